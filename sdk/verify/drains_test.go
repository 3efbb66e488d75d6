package verify_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// randomDrainer drains and resumes nodes other than node 0 at random (from
// the run's seed) and starts waiting jobs in order on the nodes left.
type randomDrainer struct {
	rng     *rand.Rand
	drained []bool
}

func (p *randomDrainer) Init(env sdk.Env) error {
	p.rng = env.Rand
	p.drained = make([]bool, env.Platform.Clusters[0].NodeCount())
	return nil
}

func (p *randomDrainer) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	var out []sdk.Decision
	n := new(sdk.Nodes)
	n.CopyFrom(s.Nodes[0])
	for k := 1; k < len(p.drained); k++ {
		if p.rng.IntN(3) != 0 {
			continue
		}
		if p.drained[k] {
			out = append(out, sdk.ResumeNodes(0, []int32{int32(k)}))
		} else {
			out = append(out, sdk.DrainNodes(0, []int32{int32(k)}))
			n.SetFree(int32(k), sdk.Amount{})
		}
		p.drained[k] = !p.drained[k]
	}
	for _, j := range s.Queue {
		var a sdk.Alloc
		if n.Place(j.Tasks, n.Layout.Rule(), &a) {
			n.Take(j.Tasks, a)
			out = append(out, sdk.StartAlloc(j, 0, a))
		}
	}
	return out, nil
}

// randomDrainRun runs a random workload on a random machine under
// randomDrainer; for odd seeds every node fails once, the jobs on it
// requeued.
func randomDrainRun(t *testing.T, seed uint64) (*sdk.Platform, []sim.Input, []sdk.Outage, *sim.Result) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 5))
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2 + r.IntN(5), Cores: 4}}, nil, sdk.FirstFit)
	l := sdk.NewLayout(p, 0)
	var jobs []sim.Input
	for id := range int64(10 + r.IntN(30)) {
		tasks := sdk.Tasks{Count: int32(1 + r.IntN(4)), Cores: 1}
		req := make(sdk.Vector, p.Dims())
		l.Request(&tasks, req)
		rt := 1 + r.Int64N(100)
		jobs = append(jobs, sim.Input{Job: sdk.Job{ID: id + 1, Submit: r.Int64N(300), Walltime: rt, Request: req, Tasks: &tasks}, Runtime: rt})
	}
	sim.Sort(jobs)
	var outs []sdk.Outage
	if seed%2 == 1 {
		for k := range int32(p.Clusters[0].NodeCount()) {
			s := 1 + r.Int64N(300)
			outs = append(outs, sdk.Outage{Nodes: []int32{k}, Start: s, End: s + 1 + r.Int64N(50), Kind: sdk.Failure})
		}
		sdk.SortOutages(outs)
	}
	pol := sdk.Plugin{Info: sdk.Info{Name: "drainer"}, New: func() sdk.Policy { return &randomDrainer{} }}
	res, err := sim.Run(context.Background(), pol, sim.Config{Platform: p, Jobs: jobs, Seed: seed, Outages: outs, Faults: requeue})
	if err != nil {
		t.Fatal(err)
	}
	return p, jobs, outs, res
}

var requeue = sim.Faults{OnFailure: sim.FailRequeue}

// runOn is a run of job index job that started at start on nodes.
type runOn struct {
	job   int
	start int64
	nodes []int32
}

// runsOf lists every run of res: each job's last, and those outages ended.
func runsOf(res *sim.Result) []runOn {
	var runs []runOn
	for i, r := range res.Records {
		runs = append(runs, runOn{i, r.Start, res.Allocs.Of(i).Nodes})
	}
	for x, a := range res.Attempts {
		runs = append(runs, runOn{int(a.Index), a.Start, res.AttemptAllocs.Of(x).Nodes})
	}
	return runs
}

// TestTamperedDrains checks that the verification accepts the engine's
// runs in which the policy drains nodes, and catches a start on a node the
// policy had drained: for every job started on a node after a drain of
// that node ended, the drain is made to last past the start, which the
// verification must refuse, naming the drain.
func TestTamperedDrains(t *testing.T) {
	caught, attempts := 0, 0
	for seed := range uint64(30) {
		p, jobs, outs, res := randomDrainRun(t, seed)
		if err := verify.Drains(p, jobs, outs, requeue, false, res); err != nil {
			t.Fatalf("seed %d: the engine's run is refused: %v", seed, err)
		}
		for _, run := range runsOf(res) {
			i, start := run.job, run.start
			for _, k := range run.nodes {
				for x, d := range res.Drains {
					if d.Node != k || d.End == -1 || d.End > start || d.Start >= start {
						continue
					}
					// The next drain of node k must begin after the
					// start, or the tampered one would overlap it.
					next := slices.IndexFunc(res.Drains[x+1:], func(e sim.PolicyDrain) bool { return e.Node == k })
					if next >= 0 && res.Drains[x+1+next].Start <= start {
						continue
					}
					bad := *res
					bad.Drains = slices.Clone(res.Drains)
					bad.Drains[x].End = start + 1
					err := verify.Drains(p, jobs, outs, requeue, false, &bad)
					if err == nil || !strings.Contains(err.Error(), "which the policy drained") {
						t.Errorf("seed %d: job id %d started at %d on node %d, drained to %d: error %v", seed, jobs[i].Job.ID, start, k, start+1, err)
					}
					caught++
					if run.start != res.Records[i].Start {
						attempts++
					}
				}
			}
		}
	}
	if caught < 50 || attempts < 10 {
		t.Errorf("%d tampered runs in all, %d of them runs outages ended: too few to say much", caught, attempts)
	}
	t.Logf("%d tampered runs caught, %d of them runs outages ended", caught, attempts)
}

// TestMalformedDrains checks that drains a run cannot have are refused,
// and that a start at the very instant of a drain is accepted.
func TestMalformedDrains(t *testing.T) {
	p, jobs, _, res := randomDrainRun(t, 2)
	if len(res.Drains) < 2 {
		t.Fatalf("%d drains: the run should have some", len(res.Drains))
	}
	for _, tc := range []struct {
		name   string
		change func(ds []sim.PolicyDrain) []sim.PolicyDrain
		want   string
	}{
		{"unknown node", func(ds []sim.PolicyDrain) []sim.PolicyDrain { ds[0].Node = 99; return ds }, "drain 0 of node 99"},
		{"pool cluster", func(ds []sim.PolicyDrain) []sim.PolicyDrain { ds[0].Cluster = 1; return ds }, "not a cluster of nodes"},
		{"resumed before drained", func(ds []sim.PolicyDrain) []sim.PolicyDrain {
			ds[0].End = ds[0].Start - 1
			return ds
		}, "before its start"},
		{"out of order", func(ds []sim.PolicyDrain) []sim.PolicyDrain {
			ds[0], ds[1] = ds[1], ds[0]
			if ds[0].Start == ds[1].Start {
				ds[1].Start--
			}
			return ds
		}, "before the one listed before it"},
		{"drained twice", func(ds []sim.PolicyDrain) []sim.PolicyDrain {
			d := ds[0]
			d.End = -1
			return append([]sim.PolicyDrain{d}, ds...)
		}, "drained again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := *res
			bad.Drains = tc.change(slices.Clone(res.Drains))
			err := verify.Drains(p, jobs, nil, sim.Faults{}, false, &bad)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	// A drain at a job's start on its node: the policy may have started
	// the job first in that call.
	bad := *res
	r := res.Records[0]
	k := res.Allocs.Of(0).Nodes[0]
	bad.Drains = []sim.PolicyDrain{{Cluster: 0, Node: k, Start: r.Start, End: r.Start + 1}}
	if err := verify.Drains(p, jobs, nil, sim.Faults{}, false, &bad); err != nil && strings.Contains(err.Error(), "which the policy drained") {
		t.Errorf("a drain at the instant of a start is refused: %v", err)
	}
}
