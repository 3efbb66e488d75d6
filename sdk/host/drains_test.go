package host_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// rotatingDrain drains a window of width nodes that moves along the
// machine every period seconds (at each call it drains the window's nodes
// it has not drained and resumes those it drained that left the window),
// and starts waiting jobs in queue order while they fit on the nodes
// left, placed by the engine.
type rotatingDrain struct {
	period  int64
	width   int
	drained []bool
	out     []sdk.Decision
}

func rotatingDrainPlugin() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{Name: "rotating-drain", Version: "0.1.0", Description: "FCFS beside a moving window of drained nodes"},
		New:  func() sdk.Policy { return &rotatingDrain{period: 300, width: 2} },
	}
}

func (p *rotatingDrain) Init(env sdk.Env) error {
	p.drained = make([]bool, env.Platform.Clusters[0].NodeCount())
	return nil
}

func (p *rotatingDrain) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	n := len(p.drained)
	first := int(s.Now/p.period*int64(p.width)) % n
	in := func(k int) bool { return (k-first+n)%n < p.width }
	var drain, resume []int32
	for k := range n {
		switch {
		case in(k) && !p.drained[k]:
			drain = append(drain, int32(k))
		case !in(k) && p.drained[k]:
			resume = append(resume, int32(k))
		}
		p.drained[k] = in(k)
	}
	nodes := new(sdk.Nodes)
	nodes.CopyFrom(s.Nodes[0])
	if len(resume) > 0 {
		p.out = append(p.out, sdk.ResumeNodes(0, resume))
	}
	if len(drain) > 0 {
		p.out = append(p.out, sdk.DrainNodes(0, drain))
		for _, k := range drain {
			nodes.SetFree(k, sdk.Amount{})
		}
	}
	// A resumed node shows nothing free until the next call: starts wait
	// for it, as they would in Python, which learns of it then too.
	var a sdk.Alloc
	started := 0
	for _, j := range s.Queue {
		if !nodes.Place(j.Tasks, nodes.Layout.Rule(), &a) {
			break
		}
		nodes.Take(j.Tasks, a)
		p.out = append(p.out, sdk.Start(j))
		started++
	}
	// Drains and resumes are not progress: with nothing running and
	// nothing started, wake when the resumed nodes show free (the next
	// second) or else when the window moves, or the run stalls.
	if len(s.Running) == 0 && started == 0 {
		at := (s.Now/p.period + 1) * p.period
		if len(resume) > 0 {
			at = s.Now + 1
		}
		p.out = append(p.out, sdk.WakeAt(at))
	}
	return p.out, nil
}

// drainJobs makes n jobs of 1 to 4 one-core tasks for a machine of 8
// one-core nodes, from a fixed seed.
func drainJobs(p *sdk.Platform, n int) []sim.Input {
	r := rand.New(rand.NewPCG(8, 9))
	l := sdk.NewLayout(p, 0)
	jobs := make([]sim.Input, n)
	t := int64(0)
	for i := range jobs {
		t += r.Int64N(40)
		tasks := sdk.Tasks{Count: int32(1 + r.IntN(4)), Cores: 1}
		req := make(sdk.Vector, p.Dims())
		l.Request(&tasks, req)
		run := 1 + r.Int64N(400)
		jobs[i] = sim.Input{Job: sdk.Job{ID: int64(i + 1), Submit: t, Walltime: run + r.Int64N(100), Request: req, Tasks: &tasks}, Runtime: run}
	}
	sim.Sort(jobs)
	return jobs
}

// TestDrainsOverTheWire runs a policy that drains and resumes nodes
// through a plugin of this SDK: the drains and their count come back as
// the in-process run's, with the same records, and the host's
// verification accepts them.
func TestDrainsOverTheWire(t *testing.T) {
	p := servedPlugin(t, "drain")
	plat := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 8, Cores: 1}}, nil, sdk.FirstFit)
	jobs := drainJobs(plat, 600)
	spec := host.RunSpec{Platform: plat, Seed: 1}
	c := verify.NewChecker(plat, jobs)
	got, err := p.Run(context.Background(), spec, jobs, c.Add)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDrains(got.Drains)
	if err := c.Finish(got.Units, got.Allocs); err != nil {
		t.Fatal(err)
	}
	want, err := host.InProcess(rotatingDrainPlugin()).Run(context.Background(), spec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Drains) < 100 {
		t.Fatalf("%d drains: the test crosses too few", len(want.Drains))
	}
	if !reflect.DeepEqual(got.Records, want.Records) || !reflect.DeepEqual(got.Allocs, want.Allocs) || !reflect.DeepEqual(got.Drains, want.Drains) {
		t.Fatal("the plugin's records, allocations or drains differ from the in-process run's")
	}
	if got.Stats.PolicyDrains != int64(len(want.Drains)) || want.Stats.PolicyDrains != int64(len(want.Drains)) {
		t.Fatalf("stats count %d and %d drains, the run made %d", got.Stats.PolicyDrains, want.Stats.PolicyDrains, len(want.Drains))
	}
}
