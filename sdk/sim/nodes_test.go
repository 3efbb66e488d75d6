package sim_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

const gib = 1 << 30

// nodeJob is a job of a node scenario: id, submit, runtime (= walltime)
// and its tasks.
type nodeJob struct {
	id, submit, runtime int64
	tasks               sdk.Tasks
}

// nodeInputs returns the jobs of a node platform, their requests the totals
// their tasks hold.
func nodeInputs(p *sdk.Platform, js ...nodeJob) []sim.Input {
	l := sdk.NewLayout(p, 0)
	in := make([]sim.Input, len(js))
	for i, j := range js {
		req := make(sdk.Vector, p.Dims())
		l.Request(&j.tasks, req)
		in[i] = sim.Input{Job: sdk.Job{ID: j.id, Submit: j.submit, Walltime: j.runtime, Request: req, Tasks: &j.tasks}, Runtime: j.runtime}
	}
	sim.Sort(in)
	return in
}

// fcfsNodes starts waiting jobs in order while they fit on the nodes,
// leaving placement to the engine.
func fcfsNodes(s *sdk.State, _ int) ([]sdk.Decision, error) {
	var out []sdk.Decision
	n := new(sdk.Nodes)
	n.CopyFrom(s.Nodes[0])
	var a sdk.Alloc
	for _, j := range s.Queue {
		if !n.Place(j.Tasks, n.Layout.Rule(), &a) {
			break
		}
		n.Take(j.Tasks, a)
		out = append(out, sdk.Start(j))
	}
	return out, nil
}

func allocText(a sdk.Alloc) string {
	var b strings.Builder
	for i, k := range a.Nodes {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d", k, a.Tasks[i])
	}
	return b.String()
}

// TestNodesHandWorked runs small node platforms whose schedules and
// allocations were worked out by hand, and checks them with the host's
// verification.
func TestNodesHandWorked(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4, Memory: 8 * gib}}, nil, sdk.FirstFit)
	best := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 3, Cores: 4}}, nil, sdk.BestFit)
	shared := func(n int32) sdk.Tasks { return sdk.Tasks{Count: n, Cores: 1} }
	excl := func(n int32) sdk.Tasks { return sdk.Tasks{Count: n, Cores: 1, Nodes: 1, Exclusive: true} }
	for _, tc := range []struct {
		name string
		p    *sdk.Platform
		jobs []nodeJob
		want []string // per job: "start end alloc"
	}{
		{"shared nodes take jobs side by side", two, []nodeJob{{1, 0, 10, shared(3)}, {2, 0, 10, shared(3)}, {3, 0, 10, shared(2)}},
			[]string{"0 10 0:3", "0 10 0:1 1:2", "0 10 1:2"}},
		// Exclusive: each job holds a whole node, so job 3 waits for job
		// 1 although 2 cores are free.
		{"exclusive jobs hold nodes whole", two, []nodeJob{{1, 0, 10, excl(3)}, {2, 0, 20, excl(3)}, {3, 0, 10, excl(2)}},
			[]string{"0 10 0:3", "0 20 1:3", "10 20 0:2"}},
		// Job 1 takes 6 GiB of node 0's 8: job 2 (4 GiB) does not fit
		// there although 3 cores are free, and goes to node 1; job 3 (4
		// GiB) then waits for job 1's end.
		{"memory blocks what cores admit", two, []nodeJob{
			{1, 0, 10, sdk.Tasks{Count: 1, Cores: 1, Memory: 6 * gib}},
			{2, 0, 30, sdk.Tasks{Count: 1, Cores: 1, Memory: 5 * gib}},
			{3, 0, 10, sdk.Tasks{Count: 1, Cores: 1, Memory: 4 * gib}}},
			[]string{"0 10 0:1", "0 30 1:1", "10 20 0:1"}},
		// Best fit: job 2 goes to the fullest node that holds it.
		{"best fit", best, []nodeJob{{1, 0, 10, shared(3)}, {2, 0, 10, shared(1)}, {3, 0, 10, shared(4)}},
			[]string{"0 10 0:3", "0 10 0:1", "0 10 1:4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := nodeInputs(tc.p, tc.jobs...)
			res, err := sim.Run(context.Background(), plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: tc.p, Jobs: in})
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res.Records {
				got := fmt.Sprintf("%d %d %s", r.Start, r.End, allocText(res.Allocs.Of(i)))
				if got != tc.want[i] {
					t.Errorf("job id %d: %q, want %q", in[i].Job.ID, got, tc.want[i])
				}
			}
			if err := verify.Result(tc.p, in, res); err != nil {
				t.Errorf("verification: %v", err)
			}
		})
	}
}

// TestNodesStateAndDecisions checks what a policy sees of the nodes and
// the allocations the engine refuses.
func TestNodesStateAndDecisions(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	in := nodeInputs(p, nodeJob{1, 0, 10, sdk.Tasks{Count: 2, Cores: 1}}, nodeJob{2, 5, 10, sdk.Tasks{Count: 4, Cores: 1, Nodes: 1, Exclusive: true}})
	for _, tc := range []struct {
		name  string
		alloc sdk.Alloc
		want  string
	}{
		{"a node not wholly free for an exclusive job", sdk.Alloc{Nodes: []int32{0}, Tasks: []int32{4}}, "room for 0"},
		{"tasks that do not add up", sdk.Alloc{Nodes: []int32{1}, Tasks: []int32{3}}, "3 tasks for a job of 4"},
		{"two nodes for a job of one", sdk.Alloc{Nodes: []int32{0, 1}, Tasks: []int32{2, 2}}, "2 nodes for a job of 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fn := func(s *sdk.State, call int) ([]sdk.Decision, error) {
				if call == 1 {
					return []sdk.Decision{sdk.StartAlloc(s.Queue[0], 0, sdk.Alloc{Nodes: []int32{0}, Tasks: []int32{2}})}, nil
				}
				// What job 1 holds shows on node 0, and its allocation
				// in Running.
				if got := s.Nodes[0].Free[0].Cores; got != 2 || allocText(*s.Running[0].Alloc) != "0:2" || s.Free[0][0] != 6 {
					return nil, fmt.Errorf("node 0 shows %d free cores, running allocation %q, free total %v", got, allocText(*s.Running[0].Alloc), s.Free[0])
				}
				// Writing into what it is shown changes nothing the
				// engine enforces.
				s.Nodes[0].Free[0].Cores = 4
				return []sdk.Decision{sdk.StartAlloc(s.Queue[0], 0, tc.alloc)}, nil
			}
			_, err := sim.Run(context.Background(), plugin(&scripted{fn: fn}), sim.Config{Platform: p, Jobs: in})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
	// The exclusive job on node 1 holds all 4 cores: the free total says 2.
	fn := func(s *sdk.State, call int) ([]sdk.Decision, error) {
		if call == 2 {
			return []sdk.Decision{sdk.Start(s.Queue[0])}, nil
		}
		if call == 3 {
			return nil, fmt.Errorf("a third call")
		}
		return []sdk.Decision{sdk.Start(s.Queue[0]), sdk.WakeAt(6)}, nil
	}
	res, err := sim.Run(context.Background(), plugin(&scripted{fn: func(s *sdk.State, call int) ([]sdk.Decision, error) {
		ds, err := fn(s, call)
		if call == 2 && s.Free[0][0] != 6 {
			return nil, fmt.Errorf("free total %v before the exclusive start", s.Free[0])
		}
		return ds, err
	}}), sim.Config{Platform: p, Jobs: in})
	if err != nil {
		t.Fatal(err)
	}
	if got := allocText(res.Allocs.Of(1)); got != "1:4" {
		t.Errorf("exclusive job on %q", got)
	}
}

// TestNodesBadJobs lists the jobs the engine refuses on a platform of
// nodes, and tasks on a platform without them.
func TestNodesBadJobs(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, []sdk.Partition{{Name: "short", Groups: []string{"n"}, MaxWalltime: 100}}, sdk.FirstFit)
	good := func() []sim.Input { return nodeInputs(p, nodeJob{1, 0, 10, sdk.Tasks{Count: 2, Cores: 1}}) }
	for _, tc := range []struct {
		name string
		p    *sdk.Platform
		mod  func(in []sim.Input)
		want string
	}{
		{"request not what its tasks hold", p, func(in []sim.Input) { in[0].Job.Request[0] = 3 }, "its tasks"},
		{"no tasks", p, func(in []sim.Input) { in[0].Job.Tasks = nil }, "has no tasks on a platform of nodes"},
		{"zero tasks", p, func(in []sim.Input) { in[0].Job.Tasks = &sdk.Tasks{} }, "has no tasks on a platform of nodes"},
		{"more tasks than the nodes hold", p, func(in []sim.Input) {
			in[0].Job.Tasks.Count = 9
			in[0].Job.Request[0] = 9
		}, "more than any cluster has"},
		{"over the partition's walltime", p, func(in []sim.Input) { in[0].Job.Walltime = 101 }, "over the partition's limit"},
		{"tasks on a pool", sdk.SingleCluster("pool", 8), func(in []sim.Input) {}, "on a platform without nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := good()
			tc.mod(in)
			_, err := sim.Run(context.Background(), plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: tc.p, Jobs: in})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// TestVerifyNodes checks that the host's verification finds allocations
// that break the nodes' rules.
func TestVerifyNodes(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	// Job 1 holds node 0 whole; jobs 2 and 3 fill node 1; job 4 waits
	// for job 1's end and takes node 0.
	in := nodeInputs(p, nodeJob{1, 0, 10, sdk.Tasks{Count: 3, Cores: 1, Nodes: 1, Exclusive: true}},
		nodeJob{2, 0, 20, sdk.Tasks{Count: 3, Cores: 1}}, nodeJob{3, 0, 10, sdk.Tasks{Count: 1, Cores: 1}},
		nodeJob{4, 0, 10, sdk.Tasks{Count: 2, Cores: 1}})
	res, err := sim.Run(context.Background(), plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: p, Jobs: in})
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.Result(p, in, res); err != nil {
		t.Fatal(err)
	}
	want := sim.Allocs{Start: []int32{0, 1, 2, 3, 4}, Nodes: []int32{0, 1, 1, 0}, Tasks: []int32{3, 3, 1, 2}}
	if fmt.Sprint(*res.Allocs) != fmt.Sprint(want) || res.Records[3].Start != 10 {
		t.Fatalf("allocations %v, job 4 at %d; want %v at 10", *res.Allocs, res.Records[3].Start, want)
	}
	for _, tc := range []struct {
		name string
		mod  func(a *sim.Allocs)
		want string
	}{
		{"zero tasks on a node", func(a *sim.Allocs) { a.Tasks[2] = 0 }, "0 tasks on node 1"},
		// Job 4 on node 1 at t=10, beside job 2's 3 cores: 5 of 4.
		{"a node over its cores", func(a *sim.Allocs) { a.Nodes[3] = 1 }, "starting job id 4 makes node 1 hold"},
		// Job 3 beside job 1, which holds node 0 whole.
		{"a job beside an exclusive one", func(a *sim.Allocs) { a.Nodes[2] = 0 }, "starting job id 3 makes node 0 hold"},
		{"tasks that do not add up", func(a *sim.Allocs) { a.Tasks[3] = 1 }, "1 tasks placed, it has 2"},
		{"more nodes than an exclusive job asked for", func(a *sim.Allocs) {
			*a = sim.Allocs{Start: []int32{0, 2, 3, 4, 5}, Nodes: []int32{0, 1, 1, 1, 0}, Tasks: []int32{2, 1, 3, 1, 2}}
		}, "runs on 2 nodes, it asked for 1"},
		{"no allocation", func(a *sim.Allocs) {
			*a = sim.Allocs{Start: []int32{0, 1, 1, 2, 3}, Nodes: []int32{0, 1, 0}, Tasks: []int32{3, 1, 2}}
		}, "0 nodes"},
		{"missing", func(a *sim.Allocs) { *a = sim.Allocs{} }, "allocations of 0 jobs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := *res
			a := sim.Allocs{Start: append([]int32(nil), res.Allocs.Start...), Nodes: append([]int32(nil), res.Allocs.Nodes...),
				Tasks: append([]int32(nil), res.Allocs.Tasks...)}
			tc.mod(&a)
			bad.Allocs = &a
			err := verify.Result(p, in, &bad)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// syncer keeps a sandbox of the nodes, synced at some calls only, and
// checks at each that it equals what the engine shows; it starts waiting
// jobs that fit, trying them on the sandbox first, in a random order of
// its own.
type syncer struct {
	box   sdk.Sandbox
	a     sdk.Alloc
	rng   *rand.Rand
	calls int
	out   []sdk.Decision
}

func (p *syncer) Init(env sdk.Env) error { p.rng = env.Rand; return nil }

func (p *syncer) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.calls++
	p.out = p.out[:0]
	if p.rng.IntN(5) == 0 {
		return nil, nil // a call without a sync
	}
	p.box.Sync(s.Nodes[0])
	if !slices.Equal(p.box.Free, s.Nodes[0].Free) {
		return nil, fmt.Errorf("call %d: the sandbox differs from the nodes shown", p.calls)
	}
	// Look ahead on the sandbox: give back what running jobs hold.
	for _, r := range s.Running {
		if p.rng.IntN(2) == 0 {
			p.box.Release(r.Job.Tasks, *r.Alloc)
		}
	}
	p.box.Sync(s.Nodes[0])
	for _, j := range s.Queue {
		if p.box.Place(j.Tasks, p.box.Layout.Rule(), &p.a) {
			p.box.Take(j.Tasks, p.a)
			p.out = append(p.out, sdk.Start(j))
		}
	}
	return p.out, nil
}

// TestSandboxSync runs a random workload on nodes under a policy that
// keeps a Sandbox and checks it against the nodes shown at every call.
func TestSandboxSync(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "a", Count: 40, Cores: 8, Memory: 16 * gib}, {Name: "b", Count: 8, Cores: 32, Memory: 64 * gib}}, nil, sdk.BestFit)
	r := rand.New(rand.NewPCG(9, 9))
	var js []nodeJob
	for i := range 3000 {
		t := sdk.Tasks{Count: int32(1 + r.IntN(40)), Cores: 1, Memory: int64(r.IntN(3)) * gib}
		if r.IntN(3) == 0 {
			t = sdk.Tasks{Count: int32(1 + r.IntN(64)), Cores: 1, Exclusive: true}
			t.Nodes = (t.Count + 7) / 8
		}
		js = append(js, nodeJob{int64(i), int64(i) * 20, 1 + r.Int64N(2000), t})
	}
	in := nodeInputs(p, js...)
	pol := &syncer{}
	res, err := sim.Run(context.Background(), sdk.Plugin{Info: sdk.Info{Name: "syncer"}, New: func() sdk.Policy { return pol }},
		sim.Config{Platform: p, Jobs: in, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.Result(p, in, res); err != nil {
		t.Fatal(err)
	}
	if pol.calls < 3000 {
		t.Fatalf("%d calls", pol.calls)
	}
}
