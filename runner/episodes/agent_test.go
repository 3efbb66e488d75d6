package episodes

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk/host"
)

// observation is an observation frame, decoded.
type observation struct {
	calls, waiting int
	rows           [][Features]float32
	mask           []bool
}

// episode runs req (its Agent set) with actions chosen by pick from each
// observation, and returns the observations and the Finished frame.
func episode(t testing.TB, c net.Conn, req Request, pick func(observation) int32) ([]observation, Finished) {
	t.Helper()
	b, _ := json.Marshal(req)
	if err := host.WriteCallsMessage(c, MsgRequest, b); err != nil {
		t.Fatal(err)
	}
	var seen []observation
	for {
		typ, p, err := host.ReadCallsMessage(c)
		if err != nil {
			t.Fatal(err)
		}
		if typ == MsgFinished {
			var fin Finished
			if err := json.Unmarshal(p, &fin); err != nil {
				t.Fatal(err)
			}
			return seen, fin
		}
		if typ != MsgObservation {
			t.Fatalf("a frame of type %q during an episode", typ)
		}
		o := observation{calls: int(binary.LittleEndian.Uint32(p)), waiting: int(binary.LittleEndian.Uint32(p[4:]))}
		q := req.Agent.Queue
		n := (len(p) - 8 - q - 1) / (4 * Features)
		o.rows = make([][Features]float32, n)
		for r := range n {
			for f := range Features {
				o.rows[r][f] = math.Float32frombits(binary.LittleEndian.Uint32(p[8+4*(r*Features+f):]))
			}
		}
		for _, m := range p[8+4*Features*n:] {
			o.mask = append(o.mask, m == 1)
		}
		if len(o.mask) != q+1 {
			t.Fatalf("a mask of %d actions, want %d", len(o.mask), q+1)
		}
		seen = append(seen, o)
		var a [4]byte
		binary.LittleEndian.PutUint32(a[:], uint32(pick(o)))
		if err := host.WriteCallsMessage(c, MsgAction, a[:]); err != nil {
			t.Fatal(err)
		}
	}
}

func serve(t testing.TB) net.Conn {
	env, srv := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), srv) }()
	t.Cleanup(func() {
		env.Close()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return env
}

// TestAgentByHand: on 10 processors, four jobs submitted at 0, an agent
// that always picks the first waiting job, with backfilling. At 0, job 1
// (6 procs, walltime 20) fits and starts; job 2 (6) does not (4 free) and
// is reserved at 20, job 1's end, with 10 - 6 = 4 extra processors then;
// job 3 (4, walltime 10) ends by 20 and starts; job 4 (2, walltime 100)
// would fit the extra, but nothing is free now. At 10 job 3 ends: job 2
// still does not fit, job 4 fits now and the extra, and starts. At 20 job
// 1 ends and job 2 starts: no job waits after it, so no observation.
func TestAgentByHand(t *testing.T) {
	c := serve(t)
	jobs := []Job{
		{ID: 1, Submit: 0, Runtime: 20, Walltime: 20, Procs: 6},
		{ID: 2, Submit: 0, Runtime: 10, Walltime: 10, Procs: 6},
		{ID: 3, Submit: 0, Runtime: 10, Walltime: 10, Procs: 4},
		{ID: 4, Submit: 0, Runtime: 50, Walltime: 100, Procs: 2},
	}
	req := Request{Procs: 10, Jobs: jobs, Agent: &AgentSpec{Queue: 4, Backfill: true, Reservation: "count", Mask: MaskFits}}
	obs, fin := episode(t, c, req, func(o observation) int32 { return 0 })
	if fin.Error != "" {
		t.Fatal(fin.Error)
	}
	want := []int64{0, 20, 0, 10}
	if !slices.Equal(fin.Starts, want) {
		t.Errorf("starts %v, want %v", fin.Starts, want)
	}
	if len(obs) != 2 {
		t.Fatalf("%d observations, want 2 (job 1's pick, job 2's)", len(obs))
	}
	first, second := obs[0], obs[1]
	if first.waiting != 4 || second.waiting != 3 {
		t.Errorf("waiting %d then %d, want 4 then 3", first.waiting, second.waiting)
	}
	// The first pick: all four fit 10 free processors; the last row says
	// 10 of 10 free, nothing running, 4 jobs waiting for 4 rows.
	wantFirst := [Features]float32{1, 0, 1, 0, 0, 1}
	if first.rows[4] != wantFirst {
		t.Errorf("first last row %v, want %v", first.rows[4], wantFirst)
	}
	if got := first.rows[0]; got[1] != float32(20.0/walltimeScale) || got[2] != 0.6 || got[3] != 1 || got[5] != 1 {
		t.Errorf("job 1's row %v", got)
	}
	if !slices.Equal(first.mask, []bool{true, true, true, true, false}) {
		t.Errorf("first mask %v (waiting needs an event ahead: nothing runs)", first.mask)
	}
	// The second pick: job 1 started on 6, 4 free; job 2 (6) does not fit,
	// 3 and 4 do; waiting is allowed (job 1's end is ahead).
	if !slices.Equal(second.mask, []bool{false, true, true, false, true}) {
		t.Errorf("second mask %v", second.mask)
	}
	if got := second.rows[4]; got[0] != 0.4 || got[1] != 0.1 || got[2] != 0.75 {
		t.Errorf("second last row %v", got)
	}
	if fin.Calls != 3 {
		t.Errorf("%d calls, want 3 (at 0, at 10, at 20)", fin.Calls)
	}
}

// TestAgentFirstJobIsAReferencePolicy: an agent that always picks the
// first waiting job is fcfs, and with backfilling easy (either reading on
// nodes), job for job, on pools and nodes of KTH-SP2's windows.
func TestAgentFirstJobIsAReferencePolicy(t *testing.T) {
	c := serve(t)
	shared := &manifest.NodeSpec{Nodes: 25, CoresPerNode: 4, Allocation: "shared"}
	for _, tc := range []struct {
		name        string
		nodes       *manifest.NodeSpec
		backfill    bool
		reservation string
		policy      string
	}{
		{"pool fcfs", nil, false, "count", "fcfs"},
		{"pool easy", nil, true, "count", "easy"},
		{"nodes fcfs", shared, false, "count", "fcfs"},
		{"nodes easy", shared, true, "count", "easy"},
		{"nodes easy batsched", shared, true, "batsched", "easy"},
	} {
		for _, first := range []int{0, 4000, 15000} {
			req := Request{First: first, Count: 300, Seed: 1, Nodes: tc.nodes,
				Agent: &AgentSpec{Queue: 32, Backfill: tc.backfill, Reservation: tc.reservation, Mask: MaskAny}}
			_, fin := episode(t, c, req, func(observation) int32 { return 0 })
			if fin.Error != "" {
				t.Fatalf("%s from %d: %s", tc.name, first, fin.Error)
			}
			req.Agent = nil
			req.Policy, req.Params = tc.policy, map[string]string{"reservation": tc.reservation}
			if tc.policy == "fcfs" {
				req.Params = nil
			}
			base := ask(t, c, req)
			if base.Error != "" {
				t.Fatal(base.Error)
			}
			if !slices.Equal(fin.Starts, base.Starts) {
				t.Errorf("%s from job %d: the agent's starts differ from %s's", tc.name, first, tc.policy)
			}
		}
	}
}

// BenchmarkAgent times the engine's side of the environment's steps: a
// random agent on KTH-SP2's windows of 256 jobs, queue 128, the agent's
// side being this benchmark's reads and writes over a pipe.
func BenchmarkAgent(b *testing.B) {
	c := serve(b)
	rng := rand.New(rand.NewPCG(1, 2))
	steps := 0
	for b.Loop() {
		req := Request{First: rng.IntN(28000), Count: 256, Seed: rng.Uint64(),
			Agent: &AgentSpec{Queue: 128, Reservation: "count", Mask: MaskAny}}
		obs, fin := episode(b, c, req, func(observation) int32 { return int32(rng.IntN(129)) })
		if fin.Error != "" {
			b.Fatal(fin.Error)
		}
		steps += len(obs)
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}

// TestAgentBadRequests: a request of an agent's episode that cannot run
// gets its Finished frame at once, naming the setting.
func TestAgentBadRequests(t *testing.T) {
	c := serve(t)
	ok := AgentSpec{Queue: 8, Reservation: "count", Mask: MaskAny}
	for _, tc := range []struct {
		name string
		req  Request
		want string
	}{
		{"policy too", Request{Count: 10, Policy: "easy", Agent: &ok}, "an episode is the agent's or a policy's"},
		{"queue", Request{Count: 10, Agent: &AgentSpec{Reservation: "count", Mask: MaskAny}}, "agent.queue: 0"},
		{"mask", Request{Count: 10, Agent: &AgentSpec{Queue: 8, Reservation: "count", Mask: "some"}}, `agent.mask: "some"`},
		{"reservation", Request{Count: 10, Agent: &AgentSpec{Queue: 8, Mask: MaskAny}}, `agent.reservation: ""`},
		{"node rows on a pool", Request{Count: 10, Agent: &AgentSpec{Queue: 8, Reservation: "count", Mask: MaskAny, ObserveNodes: true}},
			"agent.observe_nodes: a pool has no nodes"},
		{"batsched on a pool", Request{Count: 10, Agent: &AgentSpec{Queue: 8, Reservation: "batsched", Mask: MaskAny}},
			"reservation = batsched holds nodes"},
	} {
		fin := ask(t, c, tc.req)
		if !strings.Contains(fin.Error, tc.want) {
			t.Errorf("%s: error %q, want it to say %q", tc.name, fin.Error, tc.want)
		}
	}
}

// TestAgentBadAnswer: a frame other than an action where one is due fails
// the episode with a reason, and the next episode runs.
func TestAgentBadAnswer(t *testing.T) {
	c := serve(t)
	req := Request{First: 100, Count: 50, Agent: &AgentSpec{Queue: 8, Reservation: "count", Mask: MaskAny}}
	b, _ := json.Marshal(req)
	if err := host.WriteCallsMessage(c, MsgRequest, b); err != nil {
		t.Fatal(err)
	}
	if typ, _, err := host.ReadCallsMessage(c); err != nil || typ != MsgObservation {
		t.Fatalf("first frame %q, %v", typ, err)
	}
	if err := host.WriteCallsMessage(c, MsgAction, []byte{1, 2}); err != nil {
		t.Fatal(err)
	}
	typ, p, err := host.ReadCallsMessage(c)
	if err != nil || typ != MsgFinished {
		t.Fatalf("after a bad action: frame %q, %v", typ, err)
	}
	var fin Finished
	if err := json.Unmarshal(p, &fin); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fin.Error, "a frame of type 'A' and 2 bytes where an action was due") {
		t.Errorf("error %q", fin.Error)
	}
	if _, fin := episode(t, c, req, func(observation) int32 { return 0 }); fin.Error != "" || len(fin.Starts) != 50 {
		t.Errorf("the next episode: %+v", fin)
	}
}

// TestAgentGoneMidEpisode: the environment closing its end in an episode
// ends Serve without an error.
func TestAgentGoneMidEpisode(t *testing.T) {
	env, srv := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), srv) }()
	b, _ := json.Marshal(Request{First: 100, Count: 50, Agent: &AgentSpec{Queue: 8, Reservation: "count", Mask: MaskAny}})
	if err := host.WriteCallsMessage(env, MsgRequest, b); err != nil {
		t.Fatal(err)
	}
	if typ, _, err := host.ReadCallsMessage(env); err != nil || typ != MsgObservation {
		t.Fatalf("first frame %q, %v", typ, err)
	}
	env.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
