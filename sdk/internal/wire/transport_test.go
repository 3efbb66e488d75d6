package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// These tests and BenchmarkTransport run the plugin's side of the protocol
// in the test process: the same gRPC service, codec and engine as a plugin
// binary, over a Unix socket, without a process to start.

// startAll starts every waiting job that fits, in queue order.
type startAll struct{ out []sdk.Decision }

func (p *startAll) Init(sdk.Env) error { return nil }

func (p *startAll) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	free := s.Free[0].Clone()
	for _, j := range s.Queue {
		if j.Request.Fits(free) {
			free.Sub(j.Request)
			p.out = append(p.out, sdk.Start(j))
		}
	}
	return p.out, nil
}

func startAllPlugin() sdk.Plugin {
	return sdk.Plugin{Info: sdk.Info{Name: "start-all"}, New: func() sdk.Policy { return &startAll{} }}
}

// randomJobs makes n jobs of 1 to 64 processors with Poisson arrivals.
func randomJobs(n int, seed uint64) []sim.Input {
	r := rand.New(rand.NewPCG(seed, 1))
	jobs := make([]sim.Input, n)
	t := 0.0
	for i := range jobs {
		t += r.ExpFloat64() * 40
		run := 1 + r.Int64N(3600)
		jobs[i] = sim.Input{Job: sdk.Job{ID: int64(i), Submit: int64(t), Walltime: 1 + r.Int64N(7200),
			Request: sdk.Vector{1 + r.Int64N(64)}, User: int32(r.IntN(100)), Priority: r.Float64()}, Runtime: run}
	}
	sim.Sort(jobs)
	return jobs
}

// serve serves p on a Unix socket, as ServePlugin does, and returns a
// client of it.
func serve(tb testing.TB, p sdk.Plugin) *Client {
	tb.Helper()
	sock := filepath.Join(tb.TempDir(), "s")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		tb.Fatal(err)
	}
	srv := NewServer(nil)
	if err := (&GRPCPlugin{Policy: p}).GRPCServer(nil, srv); err != nil {
		tb.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	tb.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	c, err := (&GRPCPlugin{Version: sdk.ProtocolVersion}).GRPCClient(context.Background(), nil, conn)
	if err != nil {
		tb.Fatal(err)
	}
	return c.(*Client)
}

// TestRunStreams checks a run over gRPC against sim.Run in process: the same
// records and counts, and the records handed to the sink in several pieces
// that add up to them.
func TestRunStreams(t *testing.T) {
	jobs := randomJobs(60_000, 3)
	plat := sdk.SingleCluster("c", 4096)
	want, err := sim.Run(context.Background(), startAllPlugin(), sim.Config{Platform: plat, Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	c := serve(t, startAllPlugin())
	var pieces [][]sim.Record
	var got []sim.Record
	res, err := c.Run(context.Background(), RunSpec{Platform: plat}, jobs, func(recs []sim.Record) {
		pieces = append(pieces, recs)
		got = append(got, recs...)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Records, want.Records) || !slices.Equal(got, want.Records) {
		t.Fatal("records over gRPC differ from the in-process run")
	}
	if res.Stats.Events != want.Stats.Events || res.Stats.PolicyCalls != want.Stats.PolicyCalls || res.Stats.Decisions != want.Stats.Decisions {
		t.Fatalf("stats %+v, in process %+v", res.Stats, want.Stats)
	}
	if len(pieces) < len(jobs)/(2*StreamRecords) {
		t.Fatalf("%d pieces for %d records: not streamed", len(pieces), len(jobs))
	}
	// Zero jobs: a header and an end frame.
	res, err = c.Run(context.Background(), RunSpec{Platform: plat}, nil, nil)
	if err != nil || len(res.Records) != 0 {
		t.Fatalf("empty run: %v, %v", res, err)
	}
}

// startAllNodes starts every waiting job that fits on the nodes, leaving
// placement to the engine.
type startAllNodes struct {
	nodes sdk.Nodes
	a     sdk.Alloc
	out   []sdk.Decision
}

func (p *startAllNodes) Init(sdk.Env) error { return nil }

func (p *startAllNodes) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	p.nodes.CopyFrom(s.Nodes[0])
	for _, j := range s.Queue {
		if p.nodes.Place(j.Tasks, p.nodes.Layout.Rule(), &p.a) {
			p.nodes.Take(j.Tasks, p.a)
			p.out = append(p.out, sdk.Start(j))
		}
	}
	return p.out, nil
}

// TestRunNodes checks a run on a platform of nodes over gRPC against
// sim.Run in process: the same records and allocations, the allocations
// in more than one frame.
func TestRunNodes(t *testing.T) {
	plat := sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "a", Count: 96, Cores: 8, Memory: 32 << 30}, {Name: "b", Count: 32, Cores: 16, Memory: 64 << 30}}, nil, sdk.BestFit)
	l := sdk.NewLayout(plat, 0)
	jobs := randomJobs(60_000, 4)
	r := rand.New(rand.NewPCG(4, 4))
	for i := range jobs {
		j := &jobs[i].Job
		j.Tasks = &sdk.Tasks{Count: int32(1 + r.IntN(24)), Cores: 1, Memory: int64(r.IntN(4)) << 30}
		if r.IntN(3) == 0 {
			j.Tasks = &sdk.Tasks{Count: int32(1 + r.IntN(32)), Cores: 1, Exclusive: true}
			j.Tasks.Nodes = (j.Tasks.Count + 7) / 8
		}
		j.Request = make(sdk.Vector, plat.Dims())
		l.Request(j.Tasks, j.Request)
	}
	policy := sdk.Plugin{Info: sdk.Info{Name: "start-all-nodes"}, New: func() sdk.Policy { return &startAllNodes{} }}
	want, err := sim.Run(context.Background(), policy, sim.Config{Platform: plat, Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(AllocsStream(want.Allocs)); n <= AllocsPerFrame {
		t.Fatalf("%d allocation values: one frame", n)
	}
	res, err := serve(t, policy).Run(context.Background(), RunSpec{Platform: plat}, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Records, want.Records) || !reflect.DeepEqual(res.Allocs, want.Allocs) {
		t.Fatal("records or allocations over gRPC differ from the in-process run")
	}
	// A client of protocol 5 refuses the run, naming both versions.
	old := &Client{conn: serve(t, policy).conn, version: 5}
	if _, err := old.Run(context.Background(), RunSpec{Platform: plat}, jobs, nil); err == nil ||
		!strings.Contains(err.Error(), "speaks protocol 5") || !strings.Contains(err.Error(), "needs protocol 6") {
		t.Fatalf("a protocol-5 run on nodes: %v", err)
	}
}

// rawRun opens a Run stream and sends frames as given, then reads the
// plugin's answer to the end and returns its error.
func rawRun(t *testing.T, c *Client, frames ...[]byte) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := c.conn.NewStream(ctx, &grpc.StreamDesc{StreamName: "Run", ServerStreams: true, ClientStreams: true}, methodRun,
		grpc.ForceCodecV2(newFrameCodec()))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		if err := stream.SendMsg(&message{frame: f}); err != nil {
			break // the plugin ended the run: its status follows
		}
	}
	_ = stream.CloseSend()
	for {
		m := new(message)
		if err := stream.RecvMsg(m); err != nil {
			return err
		}
	}
}

// TestRunBadInput sends malformed runs: each must end with InvalidArgument
// and say what is wrong, before or while the engine runs. (Jobs that are
// well-formed but wrong, out of order say, are the engine's to refuse, as in
// process: sim's tests cover them.)
func TestRunBadInput(t *testing.T) {
	plat := sdk.SingleCluster("c", 256)
	c := serve(t, startAllPlugin())
	header := func(n int) []byte {
		h, _ := encodeHeader(sdk.ProtocolVersion, RunSpec{Platform: plat}, n)
		return append([]byte{FrameHeader}, h...)
	}
	jobs := randomJobs(3*JobsPerFrame(1), 5)
	frame := func(from, to int) []byte { return AppendJobs(nil, jobs[from:to]) }
	oldHeader, _ := encodeHeader(3, RunSpec{Platform: plat}, 0)
	for _, tc := range []struct {
		name   string
		frames [][]byte
		want   string
	}{
		{"no header", [][]byte{frame(0, 10)}, "unexpected frame 'J'"},
		{"other protocol", [][]byte{append([]byte{FrameHeader}, oldHeader...)}, fmt.Sprintf("host speaks protocol 3, plugin %d", sdk.ProtocolVersion)},
		{"no platform", [][]byte{append([]byte{FrameHeader}, fmt.Sprintf(`{"protocol":%d,"jobs":0}`, sdk.ProtocolVersion)...)}, "header has no platform"},
		{"no end frame", [][]byte{header(10), frame(0, 10)}, "input ended before its end frame"},
		{"fewer jobs", [][]byte{header(11), frame(0, 10), {FrameEnd}}, "header announced 11 jobs, 10 arrived"},
		{"more jobs", [][]byte{header(9), frame(0, 10), {FrameEnd}}, "header announced 9 jobs, more arrived"},
		{"more jobs, late", [][]byte{header(len(jobs) - 1), frame(0, JobsPerFrame(1)), frame(JobsPerFrame(1), len(jobs)), {FrameEnd}},
			"more arrived"},
		{"a second header", [][]byte{header(10), header(10)}, "unexpected frame 'H'"},
		{"truncated jobs", [][]byte{header(10), frame(0, 10)[:100]}, "not a multiple"},
		{"frame after the end", [][]byte{header(1), frame(0, 1), {FrameEnd}, frame(1, 2)}, ""},
	} {
		err := rawRun(t, c, tc.frames...)
		if tc.want == "" {
			// The plugin answers without reading past the end frame.
			if !errors.Is(err, io.EOF) && status.Code(err) != codes.InvalidArgument {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want InvalidArgument with %q", tc.name, err, tc.want)
		}
	}
}

// TestFrameCodecIsProtobuf checks that frameCodec writes what the protobuf
// codec writes for a BytesValue, and reads it back, so that the content of
// the stream is that of protocol 2's wrapperspb.BytesValue frames.
func TestFrameCodecIsProtobuf(t *testing.T) {
	c := newFrameCodec()
	for _, frame := range [][]byte{nil, {FrameEnd}, make([]byte, 300), AppendJobs(nil, randomJobs(2000, 1))} {
		got, err := c.Marshal(&message{frame: frame})
		if err != nil {
			t.Fatal(err)
		}
		want, err := proto.Marshal(wrapperspb.Bytes(frame))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Materialize(), want) {
			t.Fatalf("frame of %d bytes: codec wrote %d bytes, protobuf %d", len(frame), got.Len(), len(want))
		}
		var m message
		if err := c.Unmarshal(got, &m); err != nil || !slices.Equal(m.frame, frame) {
			t.Fatalf("frame of %d bytes read back as %d bytes, %v", len(frame), len(m.frame), err)
		}
		got.Free()
	}
}

// FuzzParseBytesValue checks parseBytesValue against the protobuf decoder
// of BytesValue on arbitrary input: both accept it with the same value, or
// parseBytesValue refuses it (it also refuses groups, which protobuf skips).
func FuzzParseBytesValue(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0x0a, 2, 'H', '{'})
	f.Add([]byte{0x0a, 1, 'E', 0x0a, 1, 'J', 0x10, 5})
	f.Add([]byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseBytesValue(b)
		var want wrapperspb.BytesValue
		perr := proto.Unmarshal(b, &want)
		if err == nil && (perr != nil || !slices.Equal(got, want.GetValue())) {
			t.Fatalf("parsed %q as %q, protobuf: %q, %v", b, got, want.GetValue(), perr)
		}
	})
}

// BenchmarkTransport runs 300,000 jobs under start-all through the gRPC
// service on a Unix socket ("grpc"): the plugin protocol's cost (encoding,
// transport, decoding, streaming the records back) with a policy that costs
// little, against sim.Run alone ("in-process").
func BenchmarkTransport(b *testing.B) {
	jobs := randomJobs(300_000, 9)
	plat := sdk.SingleCluster("c", 1<<20)
	b.Run("in-process", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sim.Run(context.Background(), startAllPlugin(), sim.Config{Platform: plat, Jobs: jobs}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("grpc", func(b *testing.B) {
		c := serve(b, startAllPlugin())
		b.ReportAllocs()
		for b.Loop() {
			res, err := c.Run(context.Background(), RunSpec{Platform: plat}, jobs, func([]sim.Record) {})
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Records) != len(jobs) {
				b.Fatalf("%d records", len(res.Records))
			}
		}
	})
}

// TestJobFrames checks the sizes of the jobs frames of a run: a small first
// frame, doubling up to the largest, every job sent once, however many
// frames (a doubling without its cap would overflow after 55).
func TestJobFrames(t *testing.T) {
	for _, tc := range []struct {
		n, per int
		want   []int // nil: only check the invariants
	}{
		{0, 20_000, []int{}},
		{100, 20_000, []int{100}},
		{1000, 20_000, []int{256, 512, 232}},
		{1000, 300, []int{256, 300, 300, 144}},
		{20, 8, []int{8, 8, 4}},
		{10_000_000, 20_000, nil},
	} {
		got := jobFrames(tc.n, tc.per)
		if tc.want != nil && !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("jobFrames(%d, %d) = %v, want %v", tc.n, tc.per, got, tc.want)
		}
		sum := 0
		for k, n := range got {
			if n < 1 || n > tc.per || (k > 0 && k < len(got)-1 && n < got[k-1]) {
				t.Fatalf("jobFrames(%d, %d): frame %d holds %d jobs", tc.n, tc.per, k, n)
			}
			sum += n
		}
		if sum != tc.n {
			t.Errorf("jobFrames(%d, %d) sends %d jobs", tc.n, tc.per, sum)
		}
	}
}
