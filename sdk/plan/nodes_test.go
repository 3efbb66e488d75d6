package plan_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
)

// asker starts the first two jobs at t=0 and, at the next call, asks
// Shadow about the third.
type asker struct {
	got string
}

func (a *asker) Init(sdk.Env) error { return nil }

func (a *asker) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if s.Now == 0 {
		return []sdk.Decision{sdk.Start(s.Queue[0]), sdk.Start(s.Queue[1])}, nil
	}
	if a.got == "" {
		at, place, extra, ok := plan.Shadow(s, 0, s.Queue[0])
		a.got = fmt.Sprintf("%v %d %v %v %v", ok, at, place.Nodes, place.Tasks, []int64(extra))
	}
	if s.Nodes[0].Fits(s.Queue[0].Tasks) {
		return []sdk.Decision{sdk.Start(s.Queue[0])}, nil
	}
	return nil, nil
}

// TestShadowHandWorked: two nodes of 4 cores; job 1 holds 3 cores of node 0
// until 10, job 2 two of node 1 until 20. Job 3 (3 tasks on one node,
// submitted at 1) fits on no node now (1 and 2 cores free), and on node 0
// at 10; then 3 + 3 cores are free, 3 beyond job 3's.
func TestShadowHandWorked(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	l := sdk.NewLayout(p, 0)
	mk := func(id, submit, run int64, tasks sdk.Tasks) sim.Input {
		req := make(sdk.Vector, 1)
		l.Request(&tasks, req)
		return sim.Input{Job: sdk.Job{ID: id, Submit: submit, Walltime: run, Request: req, Tasks: &tasks}, Runtime: run}
	}
	jobs := []sim.Input{
		mk(1, 0, 10, sdk.Tasks{Count: 3, Cores: 1, Nodes: 1}),
		mk(2, 0, 20, sdk.Tasks{Count: 2, Cores: 1, Nodes: 1}),
		mk(3, 1, 5, sdk.Tasks{Count: 3, Cores: 1, Nodes: 1}),
	}
	sim.Sort(jobs)
	a := &asker{}
	res, err := sim.Run(context.Background(), sdk.Plugin{Info: sdk.Info{Name: "asker"}, New: func() sdk.Policy { return a }},
		sim.Config{Platform: p, Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	if want := "true 10 [0] [3] [3]"; a.got != want {
		t.Errorf("Shadow said %q, want %q", a.got, want)
	}
	if res.Records[2].Start != 10 {
		t.Errorf("job 3 started at %d, not at its shadow time", res.Records[2].Start)
	}
}

// checker starts jobs first fit in queue order and, before each call's
// starts, checks Shadow for the head against a naive search: every
// candidate time (now, then each expected end), every running job ended by
// it given back to a fresh copy of the nodes, and a placement tried.
type checker struct {
	a     sdk.Alloc
	box   sdk.Sandbox
	calls int
}

func (c *checker) Init(sdk.Env) error { return nil }

func (c *checker) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	c.calls++
	head := s.Queue[0]
	at, _, _, ok := plan.Shadow(s, 0, head)
	want := int64(-1)
	for _, t := range append([]int64{s.Now}, ends(s)...) {
		n := &sdk.Nodes{}
		n.CopyFrom(s.Nodes[0])
		for _, r := range s.Running {
			if r.ExpectedEnd <= t {
				n.Release(r.Job.Tasks, *r.Alloc)
			}
		}
		if n.Fits(head.Tasks) {
			want = t
			break
		}
	}
	if !ok || at != want {
		return nil, fmt.Errorf("t=%d: Shadow of job id %d says %d (%v), the naive search %d", s.Now, head.ID, at, ok, want)
	}
	var out []sdk.Decision
	c.box.Sync(s.Nodes[0])
	for _, j := range s.Queue {
		if c.box.Place(j.Tasks, c.box.Layout.Rule(), &c.a) {
			c.box.Take(j.Tasks, c.a)
			out = append(out, sdk.Start(j))
		}
	}
	return out, nil
}

func ends(s *sdk.State) []int64 {
	var out []int64
	for _, r := range s.Running {
		if len(out) == 0 || out[len(out)-1] != r.ExpectedEnd {
			out = append(out, r.ExpectedEnd)
		}
	}
	return out
}

// TestShadowAgainstNaive checks Shadow at every call of random node
// workloads against the naive search.
func TestShadowAgainstNaive(t *testing.T) {
	for seed := range uint64(40) {
		sc := policytest.Random{Nodes: true, Jobs: 120}.Scenario(seed)
		c := &checker{}
		_, err := sim.Run(context.Background(), sdk.Plugin{Info: sdk.Info{Name: "checker"}, New: func() sdk.Policy { return c }},
			sim.Config{Platform: sc.Platform, Jobs: sc.Inputs()})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}
