package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// PluginName is the name under which a plugin binary serves its policy.
const PluginName = "policy"

// Handshake is the go-plugin handshake of schedlab plugins. Its protocol
// version is sdk.ProtocolVersion, so a host refuses a plugin of another
// protocol before sending it anything.
func Handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  sdk.ProtocolVersion,
		MagicCookieKey:   "SCHEDLAB_PLUGIN",
		MagicCookieValue: "policy-v1-2d5c8a0e",
	}
}

const (
	serviceName    = "schedlab.v1.Policy"
	methodDescribe = "/" + serviceName + "/Describe"
	methodRun      = "/" + serviceName + "/Run"
)

// GRPCPlugin adapts a policy to go-plugin. On the plugin side Policy is the
// policy served; on the host side it is unused.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Policy sdk.Plugin
}

// GRPCServer registers the policy service on the plugin's gRPC server.
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	s.RegisterService(serviceDesc(), &server{policy: p.Policy})
	return nil
}

// GRPCClient returns the host's handle on the plugin: a *Client.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &Client{conn: c}, nil
}

// handler is the server interface gRPC checks registrations against.
type handler interface {
	describe() sdk.Info
	run(stream grpc.ServerStream) error
}

func serviceDesc() *grpc.ServiceDesc {
	return &grpc.ServiceDesc{
		ServiceName: serviceName,
		HandlerType: (*handler)(nil),
		Methods: []grpc.MethodDesc{{
			MethodName: "Describe",
			Handler: func(srv any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				if err := dec(new(wrapperspb.BytesValue)); err != nil {
					return nil, err
				}
				b, err := json.Marshal(srv.(handler).describe())
				if err != nil {
					return nil, err
				}
				return wrapperspb.Bytes(b), nil
			},
		}},
		Streams: []grpc.StreamDesc{{
			StreamName:    "Run",
			Handler:       func(srv any, stream grpc.ServerStream) error { return srv.(handler).run(stream) },
			ServerStreams: true,
			ClientStreams: true,
		}},
		Metadata: "schedlab/sdk/wire",
	}
}

// Describe completes an Info with the SDK's version and protocol.
func Describe(p sdk.Plugin) sdk.Info {
	info := p.Info
	info.SDKVersion = sdk.Version
	info.ProtocolVersion = sdk.ProtocolVersion
	return info
}

type server struct {
	policy sdk.Plugin
}

func (s *server) describe() sdk.Info { return Describe(s.policy) }

func (s *server) run(stream grpc.ServerStream) error {
	cfg, err := receiveRun(stream)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	res, err := sim.Run(s.policy, cfg)
	if err != nil {
		return status.Error(codes.Aborted, err.Error())
	}
	var buf []byte
	for recs := res.Records; len(recs) > 0; {
		n := min(len(recs), RecordsPerFrame)
		buf = AppendRecords(buf[:0], recs[:n])
		if err := stream.SendMsg(wrapperspb.Bytes(buf)); err != nil {
			return err
		}
		recs = recs[n:]
	}
	for units := res.Units; len(units) > 0; {
		n := min(len(units), UnitsPerFrame)
		buf = AppendUnits(buf[:0], units[:n])
		if err := stream.SendMsg(wrapperspb.Bytes(buf)); err != nil {
			return err
		}
		units = units[n:]
	}
	st, err := json.Marshal(res.Stats)
	if err != nil {
		return err
	}
	return stream.SendMsg(wrapperspb.Bytes(append([]byte{FrameStats}, st...)))
}

func receiveRun(stream grpc.ServerStream) (sim.Config, error) {
	var spec RunSpec
	var jobs []sim.Input
	header := false
	for {
		msg := new(wrapperspb.BytesValue)
		if err := stream.RecvMsg(msg); err != nil {
			if errors.Is(err, io.EOF) {
				return sim.Config{}, errors.New("wire: input ended before its end frame")
			}
			return sim.Config{}, err
		}
		f := msg.GetValue()
		if len(f) == 0 {
			return sim.Config{}, errors.New("wire: empty frame")
		}
		switch {
		case f[0] == FrameHeader && !header:
			if err := json.Unmarshal(f[1:], &spec); err != nil {
				return sim.Config{}, fmt.Errorf("wire: header: %w", err)
			}
			if spec.Protocol != sdk.ProtocolVersion {
				return sim.Config{}, fmt.Errorf("wire: host speaks protocol %d, plugin %d", spec.Protocol, sdk.ProtocolVersion)
			}
			if spec.Platform == nil {
				return sim.Config{}, errors.New("wire: header has no platform")
			}
			header = true
			jobs = make([]sim.Input, 0, spec.Jobs)
		case f[0] == FrameJobs && header:
			var err error
			if jobs, err = DecodeJobs(jobs, f, spec.Platform.Dims()); err != nil {
				return sim.Config{}, err
			}
		case f[0] == FrameEnd && header:
			if len(jobs) != spec.Jobs {
				return sim.Config{}, fmt.Errorf("wire: header announced %d jobs, %d arrived", spec.Jobs, len(jobs))
			}
			return sim.Config{
				Platform: spec.Platform, Jobs: jobs, Params: spec.Params,
				Seed: spec.Seed, ExactEstimates: spec.ExactEstimates,
			}, nil
		default:
			return sim.Config{}, fmt.Errorf("wire: unexpected frame %q", f[0])
		}
	}
}

// Client is the host's handle on a running plugin.
type Client struct {
	conn *grpc.ClientConn
}

// Describe asks the plugin what it is.
func (c *Client) Describe(ctx context.Context) (sdk.Info, error) {
	out := new(wrapperspb.BytesValue)
	if err := c.conn.Invoke(ctx, methodDescribe, wrapperspb.Bytes(nil), out); err != nil {
		return sdk.Info{}, err
	}
	var info sdk.Info
	if err := json.Unmarshal(out.GetValue(), &info); err != nil {
		return sdk.Info{}, fmt.Errorf("wire: describe: %w", err)
	}
	return info, nil
}

// Run sends a run to the plugin and returns its records and statistics, as
// the plugin reported them. The caller must verify them.
func (c *Client) Run(ctx context.Context, spec RunSpec, jobs []sim.Input) (*sim.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.conn.NewStream(ctx, &grpc.StreamDesc{StreamName: "Run", ServerStreams: true, ClientStreams: true}, methodRun)
	if err != nil {
		return nil, err
	}
	spec.Protocol = sdk.ProtocolVersion
	spec.Jobs = len(jobs)
	h, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	if err := stream.SendMsg(wrapperspb.Bytes(append([]byte{FrameHeader}, h...))); err != nil {
		return nil, sendError(stream, err)
	}
	var buf []byte
	for rest := jobs; len(rest) > 0; {
		n := min(len(rest), JobsPerFrame(spec.Platform.Dims()))
		buf = AppendJobs(buf[:0], rest[:n])
		if err := stream.SendMsg(wrapperspb.Bytes(buf)); err != nil {
			return nil, sendError(stream, err)
		}
		rest = rest[n:]
	}
	if err := stream.SendMsg(wrapperspb.Bytes([]byte{FrameEnd})); err != nil {
		return nil, sendError(stream, err)
	}
	if err := stream.CloseSend(); err != nil {
		return nil, err
	}
	res := &sim.Result{Records: make([]sim.Record, 0, len(jobs))}
	for {
		msg := new(wrapperspb.BytesValue)
		if err := stream.RecvMsg(msg); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, errors.New("wire: plugin closed the run without statistics")
			}
			return nil, err
		}
		f := msg.GetValue()
		switch {
		case len(f) > 0 && f[0] == FrameRecords:
			if res.Records, err = DecodeRecords(res.Records, f); err != nil {
				return nil, err
			}
		case len(f) > 0 && f[0] == FrameUnits:
			if res.Units, err = DecodeUnits(res.Units, f); err != nil {
				return nil, err
			}
		case len(f) > 0 && f[0] == FrameStats:
			if err := json.Unmarshal(f[1:], &res.Stats); err != nil {
				return nil, fmt.Errorf("wire: stats: %w", err)
			}
			return res, nil
		default:
			return nil, errors.New("wire: unexpected frame from plugin")
		}
	}
}

// sendError returns the plugin's own error when a send fails because the
// plugin already ended the stream, which is more useful than io.EOF.
func sendError(stream grpc.ClientStream, err error) error {
	if errors.Is(err, io.EOF) {
		if rerr := stream.RecvMsg(new(wrapperspb.BytesValue)); rerr != nil && !errors.Is(rerr, io.EOF) {
			return rerr
		}
	}
	return err
}
