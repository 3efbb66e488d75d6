package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/internal/stream"
	"github.com/schedlab/schedlab/sdk/sim"
)

// PluginName is the name under which a plugin binary serves its policy.
const PluginName = "policy"

// Handshake is the go-plugin handshake of schedlab plugins. Its protocol
// version is sdk.ProtocolVersion, the one a plugin of this SDK serves; a
// host speaks the versions of HostVersions and refuses a plugin of any other
// before sending it anything.
func Handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  sdk.ProtocolVersion,
		MagicCookieKey:   "SCHEDLAB_PLUGIN",
		MagicCookieValue: "policy-v1-2d5c8a0e",
	}
}

// HostVersions returns the protocol versions a host of this SDK speaks, the
// newest first: this SDK's and those before it back to 3, so that a
// plugin published against an earlier SDK keeps working after the lab
// upgrades. Protocol 3 differs from 4 only in the keys of its JSON
// documents (schema.go); 5 adds the grid fields to the job and record
// frames (codec.go), which a run needs only when its jobs have a home
// cluster or a transfer time; 6 adds nodes (platforms, tasks and
// allocations), which a run needs only on a platform of nodes; 7 adds
// dependencies between jobs, which a run needs only when a job depends on
// another; 8 to 11 add outages, a power model, an I/O model, then a busy
// power table and the features of a grid's clusters with those each job
// requires, each needed only by a run with it; 12 adds the policy's notes,
// which a plugin of an older protocol does not send (sdk.ProtocolVersion).
func HostVersions() []int { return []int{sdk.ProtocolVersion, 11, 10, 9, 8, 7, 6, 5, 4, 3} }

// HostPlugins returns the plugin sets of a host, one per protocol version
// it speaks, for go-plugin's version negotiation.
func HostPlugins() map[int]plugin.PluginSet {
	sets := map[int]plugin.PluginSet{}
	for _, v := range HostVersions() {
		sets[v] = plugin.PluginSet{PluginName: &GRPCPlugin{Version: v}}
	}
	return sets
}

// NewServer makes the plugin's gRPC server, with the options go-plugin
// gives and the codec of the Run stream (frameCodec).
func NewServer(opts []grpc.ServerOption) *grpc.Server {
	return grpc.NewServer(append(opts, grpc.ForceServerCodecV2(newFrameCodec()))...)
}

const (
	serviceName    = "schedlab.v1.Policy"
	methodDescribe = "/" + serviceName + "/Describe"
	methodRun      = "/" + serviceName + "/Run"
)

// GRPCPlugin adapts a policy to go-plugin. On the plugin side Policy is the
// policy served; on the host side Version is the protocol version this set
// speaks.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Policy  sdk.Plugin
	Version int
	// RunEnded, when set, is called on the plugin side after each run.
	RunEnded func()
}

// GRPCServer registers the policy service on the plugin's gRPC server.
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	s.RegisterService(serviceDesc(), &server{policy: p.Policy, runEnded: p.RunEnded})
	return nil
}

// GRPCClient returns the host's handle on the plugin: a *Client.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &Client{conn: c, version: p.Version}, nil
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
				b, err := EncodeInfo(srv.(handler).describe())
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
	policy   sdk.Plugin
	runEnded func()
}

func (s *server) describe() sdk.Info { return Describe(s.policy) }

func (s *server) run(st grpc.ServerStream) error {
	if s.runEnded != nil {
		defer s.runEnded()
	}
	msg := new(message)
	spec, jobs, err := receiveHeader(st, msg)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	// The engine starts with the first frame of jobs and takes the next ones
	// when the simulation reaches them; a goroutine receives and decodes
	// them meanwhile. Records go back as they become final. The stream's
	// context ends the run when the host goes away.
	in := receiveJobs(st, msg, jobs, spec.Platform.Dims())
	defer in.stop()
	out := newRecordSender(st, jobs)
	progress := new(stream.Progress)
	stopBeat := out.heartbeat(progress)
	ctx := stream.With(st.Context(), &stream.Hooks[sim.Input, sim.Record]{
		Total: jobs, More: in.next, Emit: out.emit, EmitAtLeast: StreamRecords, Progress: progress,
	})
	res, err := sim.Run(ctx, s.policy, sim.Config{
		Platform: spec.Platform, Params: spec.Params, Seed: spec.Seed, ExactEstimates: spec.ExactEstimates,
		Dependencies: spec.Dependencies, Outages: spec.Outages, Faults: spec.Faults, Power: spec.Power, IO: spec.IO,
	})
	stopBeat()
	if serr := out.close(); serr != nil {
		// The host is gone or the connection broke: nobody reads a
		// policy error now.
		return serr
	}
	var bad inputError
	if errors.As(err, &bad) {
		return status.Error(codes.InvalidArgument, bad.Error())
	}
	if err != nil {
		return status.Error(codes.Aborted, err.Error())
	}
	// Report success only for a well-formed input: up to its end frame.
	if err := in.wait(); err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	var buf []byte
	for atts := res.Attempts; len(atts) > 0; {
		n := min(len(atts), AttemptsPerFrame)
		buf = AppendAttempts(buf[:0], atts[:n])
		if err := st.SendMsg(&message{frame: buf}); err != nil {
			return err
		}
		atts = atts[n:]
	}
	var energy *sim.Energy
	if res.Power != nil {
		energy = &res.Power.Energy
		for evs := res.Power.Events; len(evs) > 0; {
			n := min(len(evs), PowerPerFrame)
			buf = AppendPower(buf[:0], evs[:n])
			if err := st.SendMsg(&message{frame: buf}); err != nil {
				return err
			}
			evs = evs[n:]
		}
	}
	for ds := res.Drains; len(ds) > 0; {
		n := min(len(ds), DrainsPerFrame)
		buf = AppendDrains(buf[:0], ds[:n])
		if err := st.SendMsg(&message{frame: buf}); err != nil {
			return err
		}
		ds = ds[n:]
	}
	if res.Notes != nil {
		for blob := AppendNotes(nil, res.Notes, len(res.Records)); len(blob) > 0; {
			n := min(len(blob), FrameBytes)
			buf = append(append(buf[:0], FrameNotes), blob[:n]...)
			if err := st.SendMsg(&message{frame: buf}); err != nil {
				return err
			}
			blob = blob[n:]
		}
	}
	if res.Allocs != nil {
		vals := AllocsStream(res.Allocs)
		if res.AttemptAllocs != nil {
			vals = append(vals, AllocsStream(res.AttemptAllocs)...)
		}
		for len(vals) > 0 {
			n := min(len(vals), AllocsPerFrame)
			buf = AppendAllocs(buf[:0], vals[:n])
			if err := st.SendMsg(&message{frame: buf}); err != nil {
				return err
			}
			vals = vals[n:]
		}
	}
	for units := res.Units; len(units) > 0; {
		n := min(len(units), UnitsPerFrame)
		buf = AppendUnits(buf[:0], units[:n])
		if err := st.SendMsg(&message{frame: buf}); err != nil {
			return err
		}
		units = units[n:]
	}
	stats, err := encodeStats(res.Stats, energy)
	if err != nil {
		return err
	}
	return st.SendMsg(&message{frame: append([]byte{FrameStats}, stats...)})
}

// StreamRecords is the number of final records a plugin gathers before it
// sends them in one records frame while its engine runs on.
const StreamRecords = 4096

// recordSender streams the records the engine emits, StreamRecords or more
// at a time (sim.Config.EmitAtLeast; the last ones may be fewer): emit packs
// them into frames of at most RecordsPerFrame, and a goroutine sends the
// frames, so that the engine does not wait for the transport and the host
// receives and checks the records while the run goes on.
type recordSender struct {
	stream grpc.ServerStream
	full   chan []byte
	free   chan []byte
	errc   chan error    // the first send error
	done   chan struct{} // closed when the sending goroutine ends
	failed error
}

// newRecordSender returns the sender of the records of a run of jobs jobs.
// Its queue holds every records frame the run can have, so that the engine
// never waits for the sending goroutine (on a busy machine that goroutine
// may wait for a core); the records are in memory anyway. Heartbeats take
// what room is left.
func newRecordSender(stream grpc.ServerStream, jobs int) *recordSender {
	frames := 2*(jobs/StreamRecords) + 4
	s := &recordSender{
		stream: stream,
		full:   make(chan []byte, frames),
		free:   make(chan []byte, frames),
		errc:   make(chan error, 1),
		done:   make(chan struct{}),
	}
	go s.send()
	return s
}

func (s *recordSender) send() {
	defer close(s.done)
	failed := false
	for f := range s.full {
		if !failed {
			// The codec copies f: it is free once SendMsg returns.
			if err := s.stream.SendMsg(&message{frame: f}); err != nil {
				s.errc <- err
				failed = true
			}
		}
		select {
		case s.free <- f[:0]:
		default:
		}
	}
}

// emit is sim.Config.Emit: it queues recs in frames, unless a send failed,
// whose error it returns.
func (s *recordSender) emit(recs []sim.Record) error {
	if s.failed == nil {
		select {
		case s.failed = <-s.errc:
		default:
		}
	}
	if s.failed != nil {
		return s.failed
	}
	for len(recs) > 0 {
		n := min(len(recs), RecordsPerFrame)
		var buf []byte
		select {
		case buf = <-s.free:
		default:
		}
		s.full <- AppendRecords(buf, recs[:n])
		recs = recs[n:]
	}
	return nil
}

// heartbeat queues a progress frame every ProgressEvery, with what the
// engine published in p, until the returned function is called (before
// close). A beat is skipped when the queue is full: frames are flowing.
func (s *recordSender) heartbeat(p *stream.Progress) (stop func()) {
	halt, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-halt:
				return
			case <-t.C:
				select {
				case s.full <- AppendProgress(nil, p.Events.Load(), p.Now.Load()):
				default:
				}
			}
		}
	}()
	return func() {
		close(halt)
		<-done
	}
}

// close waits for the sending goroutine to send what is queued and returns
// the first send error.
func (s *recordSender) close() error {
	close(s.full)
	<-s.done
	if s.failed == nil {
		select {
		case s.failed = <-s.errc:
		default:
		}
	}
	return s.failed
}

// receiveHeader reads the header frame of a run into msg and returns the
// run's spec and number of jobs.
func receiveHeader(stream grpc.ServerStream, msg *message) (RunSpec, int, error) {
	if err := receive(stream, msg); err != nil {
		return RunSpec{}, 0, err
	}
	f := msg.frame
	if f[0] != FrameHeader {
		return RunSpec{}, 0, fmt.Errorf("wire: unexpected frame %q", f[0])
	}
	return decodeHeader(f[1:])
}

// receive reads the next frame of a run into msg.
func receive(stream grpc.ServerStream, msg *message) error {
	if err := stream.RecvMsg(msg); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("wire: input ended before its end frame")
		}
		return err
	}
	if len(msg.frame) == 0 {
		return errors.New("wire: empty frame")
	}
	return nil
}

// inputError marks an error of the run's input, as opposed to one of the
// simulation.
type inputError struct{ error }

func (e inputError) Unwrap() error { return e.error }

// jobReceiver receives and decodes the job frames of a run on its own
// goroutine, a few frames ahead of the engine, which takes them with next
// (sim.Config.More). The engine copies the jobs it takes before it asks for
// more, so the receiver decodes into a few buffers that go round: a fresh
// process touching less fresh memory spends less time in page faults.
type jobReceiver struct {
	batches chan *batch
	free    chan *batch
	lent    *batch        // the batch the engine has
	halt    chan struct{} // closed by stop
	done    chan struct{} // closed when the goroutine ends, after err is set
	err     error         // nil once the end frame came after all jobs
}

// A batch is the decoded jobs of one frame.
type batch struct {
	jobs []sim.Input
	reqs []int64 // the jobs' request vectors
}

// aheadFrames is how many decoded frames may wait for the engine. Beyond
// it the receiver stops reading, flow control holds the host's sender, and
// the rest of the jobs wait in the transport's buffers.
const aheadFrames = 4

func receiveJobs(stream grpc.ServerStream, msg *message, total, dims int) *jobReceiver {
	r := &jobReceiver{
		batches: make(chan *batch, aheadFrames),
		free:    make(chan *batch, aheadFrames+2),
		halt:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go func() {
		defer close(r.done)
		defer close(r.batches)
		r.err = r.receive(stream, msg, total, dims)
	}()
	return r
}

func (r *jobReceiver) receive(stream grpc.ServerStream, msg *message, total, dims int) error {
	received := 0
	for {
		if err := receive(stream, msg); err != nil {
			return err
		}
		f := msg.frame
		switch f[0] {
		case FrameJobs:
			var b *batch
			select {
			case b = <-r.free:
			default:
				b = new(batch)
			}
			var err error
			if b.jobs, b.reqs, err = decodeJobs(b.jobs[:0], b.reqs, f, dims, received, sdk.ProtocolVersion); err != nil {
				return err
			}
			if received += len(b.jobs); received > total {
				return fmt.Errorf("wire: header announced %d jobs, more arrived", total)
			}
			select {
			case r.batches <- b:
			case <-r.halt:
				return errors.New("wire: run ended")
			}
		case FrameEnd:
			if received != total {
				return fmt.Errorf("wire: header announced %d jobs, %d arrived", total, received)
			}
			return nil
		default:
			return fmt.Errorf("wire: unexpected frame %q", f[0])
		}
	}
}

// next returns the next decoded jobs, waiting for them; none at the end.
// The jobs it returned before are free again.
func (r *jobReceiver) next() ([]sim.Input, error) {
	if r.lent != nil {
		select {
		case r.free <- r.lent:
		default:
		}
		r.lent = nil
	}
	if b, ok := <-r.batches; ok {
		r.lent = b
		return b.jobs, nil
	}
	if r.err != nil {
		return nil, inputError{r.err}
	}
	return nil, nil
}

// wait waits for the end of the input and returns its error.
func (r *jobReceiver) wait() error {
	<-r.done
	return r.err
}

// stop lets the goroutine end if it waits for the engine to take jobs.
func (r *jobReceiver) stop() {
	select {
	case <-r.halt:
	default:
		close(r.halt)
	}
}

// Client is the host's handle on a running plugin.
type Client struct {
	conn    *grpc.ClientConn
	version int // the protocol version negotiated
}

// Version returns the protocol version the client speaks with its plugin.
func (c *Client) Version() int { return c.version }

// Describe asks the plugin what it is.
func (c *Client) Describe(ctx context.Context) (sdk.Info, error) {
	out := new(wrapperspb.BytesValue)
	if err := c.conn.Invoke(ctx, methodDescribe, wrapperspb.Bytes(nil), out); err != nil {
		return sdk.Info{}, err
	}
	return DecodeInfo(out.GetValue())
}

// Run sends a run to the plugin and returns its records and statistics, as
// the plugin reported them. The caller must verify them. When sink is not
// nil, it is given the records as they arrive, while the plugin still
// simulates: consecutive pieces of the result's Records, in order, each
// once, all before Run returns (a verify.Checker's Add).
func (c *Client) Run(ctx context.Context, spec RunSpec, jobs []sim.Input, sink func([]sim.Record)) (*sim.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.conn.NewStream(ctx, &grpc.StreamDesc{StreamName: "Run", ServerStreams: true, ClientStreams: true}, methodRun,
		grpc.ForceCodecV2(newFrameCodec()))
	if err != nil {
		return nil, err
	}
	if c.version < 5 && GridJobs(jobs) {
		return nil, fmt.Errorf("wire: the plugin speaks protocol %d; jobs with a home cluster or a transfer time need protocol 5 (rebuild it with SDK 0.5 or later)", c.version)
	}
	nodes := spec.Platform != nil && spec.Platform.HasNodes()
	if c.version < 6 && nodes {
		return nil, fmt.Errorf("wire: the plugin speaks protocol %d; platform %q is made of nodes, which needs protocol %d (rebuild the plugin with SDK %s or later)",
			c.version, spec.Platform.Name, 6, "0.6")
	}
	spec.Dependencies = DependentJobs(jobs)
	if c.version < 7 && spec.Dependencies {
		return nil, fmt.Errorf("wire: the plugin speaks protocol %d; jobs that depend on others (feedback) need protocol 7 (rebuild it with SDK 0.7 or later)", c.version)
	}
	if c.version < 8 && len(spec.Outages) > 0 {
		return nil, fmt.Errorf("wire: the plugin speaks protocol %d; outages of nodes (failures, drains, maintenance) need protocol 8 (rebuild it with SDK 0.8 or later)", c.version)
	}
	if c.version < 9 && spec.Power != nil {
		return nil, fmt.Errorf("wire: the plugin speaks protocol %d; a power model of the nodes needs protocol 9 (rebuild it with SDK 0.9 or later)", c.version)
	}
	if c.version < 11 && spec.Power.HasBusy() {
		return nil, fmt.Errorf("wire: the plugin speaks protocol %d; a busy power table (busy_watts) needs protocol 11 (rebuild it with SDK 0.11 or later)", c.version)
	}
	if c.version < 10 && spec.IO != nil {
		return nil, fmt.Errorf("wire: the plugin speaks protocol %d; an I/O model (jobs that move data) needs protocol 10 (rebuild it with SDK 0.10 or later)", c.version)
	}
	if c.version < 11 && (RequiringJobs(jobs) || spec.Platform != nil && len(spec.Platform.ClusterFeatures()) > 0) {
		return nil, fmt.Errorf("wire: the plugin speaks protocol %d; clusters with features and jobs that require them need protocol 11 (rebuild it with SDK 0.11 or later)", c.version)
	}
	h, err := encodeHeader(c.version, spec, len(jobs))
	if err != nil {
		return nil, err
	}
	// The plugin simulates while jobs still arrive and answers with records
	// while it simulates: send on one goroutine, receive on this one, so
	// that neither side waits for the other to read.
	sent := make(chan error, 1)
	go func() { sent <- sendRun(stream, h, JobsPerFrame(spec.Platform.Dims()), jobs, c.version) }()
	res, err := receiveResult(stream, c.version, len(jobs), nodes, spec.Power != nil, sink, spec.Progress)
	if err != nil {
		// The plugin's status, if it ended the run, is in err; the
		// sender's error (io.EOF then) says less.
		cancel()
		<-sent
		return nil, err
	}
	if err := <-sent; err != nil {
		return nil, err
	}
	return res, nil
}

// splitAllocs cuts the allocations of a run's jobs and then its attempts
// into those of the jobs and those of the attempts (nil without any).
func splitAllocs(all *sim.Allocs, jobs int) (*sim.Allocs, *sim.Allocs) {
	if all.Len() == jobs {
		return all, nil
	}
	cut := all.Start[jobs]
	a := &sim.Allocs{Start: all.Start[:jobs+1], Nodes: all.Nodes[:cut], Tasks: all.Tasks[:cut]}
	b := &sim.Allocs{Start: make([]int32, 0, all.Len()-jobs+1), Nodes: all.Nodes[cut:], Tasks: all.Tasks[cut:]}
	for _, s := range all.Start[jobs:] {
		b.Start = append(b.Start, s-cut)
	}
	return a, b
}

// firstJobsFrame is the number of jobs in the first jobs frame of a run;
// each next frame holds twice as many, up to JobsPerFrame. The plugin's
// engine starts once the first frame is decoded: a small one lets it start
// at once (a full frame, some 20,000 jobs, took about 6 ms to arrive and
// decode, a sixth of a KTH-SP2 run), while the frames after it soon reach
// the full size, which keeps the messages few.
const firstJobsFrame = 256

// jobFrames returns the number of jobs in each jobs frame of a run of n
// jobs whose frames hold at most per: firstJobsFrame, then twice as many
// each time, up to per.
func jobFrames(n, per int) []int {
	var sizes []int
	for size := min(firstJobsFrame, per); n > 0; size = min(2*size, per) {
		k := min(n, size)
		sizes = append(sizes, k)
		n -= k
	}
	return sizes
}

// sendRun sends the header h, the jobs, in frames of at most per, and the
// end frame of a run.
func sendRun(stream grpc.ClientStream, h []byte, per int, jobs []sim.Input, version int) error {
	if err := stream.SendMsg(&message{frame: append([]byte{FrameHeader}, h...)}); err != nil {
		return err
	}
	var buf []byte
	rest := jobs
	for _, n := range jobFrames(len(jobs), per) {
		buf = AppendJobsVersion(buf[:0], rest[:n], version)
		// The codec copies buf: it is free once SendMsg returns.
		if err := stream.SendMsg(&message{frame: buf}); err != nil {
			return err
		}
		rest = rest[n:]
	}
	if err := stream.SendMsg(&message{frame: []byte{FrameEnd}}); err != nil {
		return err
	}
	return stream.CloseSend()
}

// receiveResult receives the records, placements, allocations (on a
// platform of nodes) and statistics of a run of jobs jobs in the given
// protocol version, giving the records to sink, if not nil, as they
// arrive.
func receiveResult(stream grpc.ClientStream, version, jobs int, nodes, power bool, sink func([]sim.Record), progress func(events, now int64)) (*sim.Result, error) {
	res := &sim.Result{Records: make([]sim.Record, 0, jobs)}
	var powerEvents []sim.PowerEvent
	msg := new(message)
	var allocs []uint32
	var notes []byte
	for {
		if err := stream.RecvMsg(msg); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, errors.New("wire: plugin closed the run without statistics")
			}
			return nil, err
		}
		f := msg.frame
		var err error
		switch {
		case len(f) > 0 && f[0] == FrameRecords:
			n := len(res.Records)
			if res.Records, err = DecodeRecordsVersion(res.Records, f, version); err != nil {
				return nil, err
			}
			if len(res.Records) > jobs {
				return nil, fmt.Errorf("wire: plugin sent more records than the %d jobs", jobs)
			}
			if sink != nil {
				sink(res.Records[n:])
			}
		case len(f) > 0 && f[0] == FrameProgress:
			events, now, err := DecodeProgress(f)
			if err != nil {
				return nil, err
			}
			if progress != nil {
				progress(events, now)
			}
		case len(f) > 0 && f[0] == FrameUnits:
			if res.Units, err = DecodeUnits(res.Units, f); err != nil {
				return nil, err
			}
		case len(f) > 0 && f[0] == FrameAttempts && version >= 8:
			if res.Attempts, err = DecodeAttempts(res.Attempts, f); err != nil {
				return nil, err
			}
			if len(res.Attempts) > 1<<31 {
				return nil, errors.New("wire: plugin sent more than 2^31 attempts")
			}
		case len(f) > 0 && f[0] == FramePower && version >= 9 && power:
			if powerEvents, err = DecodePower(powerEvents, f); err != nil {
				return nil, err
			}
			if len(powerEvents) > 1<<31 {
				return nil, errors.New("wire: plugin sent more than 2^31 power events")
			}
		case len(f) > 0 && f[0] == FrameDrains && version >= 11 && nodes:
			if res.Drains, err = DecodeDrains(res.Drains, f); err != nil {
				return nil, err
			}
			if len(res.Drains) > 1<<31 {
				return nil, errors.New("wire: plugin sent more than 2^31 drains")
			}
		case len(f) > 0 && f[0] == FrameNotes && version >= 12:
			notes = append(notes, f[1:]...)
			if n := int64(len(notes)); n > maxNotes(jobs) {
				return nil, fmt.Errorf("wire: plugin sent %d bytes of notes for %d jobs, more than %d", n, jobs, maxNotes(jobs))
			}
		case len(f) > 0 && f[0] == FrameAllocs && version >= 6:
			if allocs, err = DecodeAllocs(allocs, f); err != nil {
				return nil, err
			}
			if len(allocs) > 1<<31 {
				return nil, errors.New("wire: plugin sent more than 2^31 allocation values")
			}
		case len(f) > 0 && f[0] == FrameStats:
			var energy *sim.Energy
			if res.Stats, energy, err = decodeStats(version, f[1:]); err != nil {
				return nil, err
			}
			switch {
			case power && energy == nil:
				return nil, errors.New("wire: plugin sent no energy for a run with a power model")
			case power:
				res.Power = &sim.PowerResult{Events: powerEvents, Energy: *energy}
			case energy != nil:
				return nil, errors.New("wire: plugin sent an energy for a run without a power model")
			}
			if len(notes) > 0 {
				if res.Notes, err = DecodeNotes(notes, jobs); err != nil {
					return nil, err
				}
				if err := res.Notes.Check(jobs); err != nil {
					return nil, fmt.Errorf("wire: %w", err)
				}
			}
			switch {
			case nodes:
				all, err := ParseAllocs(allocs, jobs+len(res.Attempts))
				if err != nil {
					return nil, err
				}
				res.Allocs, res.AttemptAllocs = splitAllocs(all, jobs)
			case len(res.Attempts) > 0:
				return nil, errors.New("wire: plugin sent attempts on a platform without nodes")
			case len(allocs) > 0:
				return nil, errors.New("wire: plugin sent allocations on a platform without nodes")
			}
			return res, nil
		default:
			return nil, errors.New("wire: unexpected frame from plugin")
		}
	}
}
