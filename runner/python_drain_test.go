package runner

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/sim"
)

// rotatingDrain is testdata/rotdrain.py in Go: a window of width nodes
// that moves along the machine every period seconds is drained (at each
// call, the window's nodes not drained yet are drained and those that left
// it resumed), and waiting jobs start in queue order while they fit on the
// nodes left, placed by the engine.
type rotatingDrain struct {
	period  int64
	width   int
	drained []bool
}

func (p *rotatingDrain) Init(env sdk.Env) error {
	p.drained = make([]bool, env.Platform.Clusters[0].NodeCount())
	return nil
}

func (p *rotatingDrain) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	var out []sdk.Decision
	n := len(p.drained)
	first := int(s.Now/p.period*int64(p.width)) % n
	var drain, resume []int32
	for k := range n {
		in := (k-first+n)%n < p.width
		switch {
		case in && !p.drained[k]:
			drain = append(drain, int32(k))
		case !in && p.drained[k]:
			resume = append(resume, int32(k))
		}
		p.drained[k] = in
	}
	nodes := new(sdk.Nodes)
	nodes.CopyFrom(s.Nodes[0])
	if len(resume) > 0 {
		out = append(out, sdk.ResumeNodes(0, resume))
	}
	if len(drain) > 0 {
		out = append(out, sdk.DrainNodes(0, drain))
		for _, k := range drain {
			nodes.SetFree(k, sdk.Amount{})
		}
	}
	var a sdk.Alloc
	started := 0
	for _, j := range s.Queue {
		if !nodes.Place(j.Tasks, nodes.Layout.Rule(), &a) {
			break
		}
		nodes.Take(j.Tasks, a)
		out = append(out, sdk.Start(j))
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
		out = append(out, sdk.WakeAt(at))
	}
	return out, nil
}

// TestPythonDrains: a Python policy that drains and resumes nodes
// (testdata/rotdrain.py) gives every job the start, allocation and every
// drain the span that the same policy in Go gives, both verified by the
// host, drains and their count included.
func TestPythonDrains(t *testing.T) {
	plat := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 8, Cores: 1}}, nil, sdk.FirstFit)
	l := sdk.NewLayout(plat, 0)
	r := rand.New(rand.NewPCG(8, 9))
	jobs := make([]sim.Input, 800)
	at := int64(0)
	for i := range jobs {
		at += r.Int64N(40)
		tasks := sdk.Tasks{Count: int32(1 + r.IntN(4)), Cores: 1}
		req := make(sdk.Vector, plat.Dims())
		l.Request(&tasks, req)
		run := 1 + r.Int64N(400)
		jobs[i] = sim.Input{Job: sdk.Job{ID: int64(i + 1), Submit: at, Walltime: run + r.Int64N(100), Request: req, Tasks: &tasks}, Runtime: run}
	}
	sim.Sort(jobs)
	goPlugin := sdk.Plugin{Info: sdk.Info{Name: "rotating-drain", Version: "0.1.0"},
		New: func() sdk.Policy { return &rotatingDrain{period: 300, width: 2} }}
	spec := Spec{Policy: &Resolved{Ref: "rotating-drain"}, Use: host.InProcess(goPlugin), Platform: plat, Jobs: jobs,
		Metrics: metrics.DefaultSettings()}
	want, err := Execute(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Drains) < 100 {
		t.Fatalf("%d drains: the test drains too little", len(want.Drains))
	}
	procs := &Processes{}
	defer procs.Close()
	spec.Use, spec.Policy, spec.Processes = nil, pythonResolved(t, filepath.Join("testdata", "rotdrain.py")), procs
	got, err := Execute(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	sameStarts(t, jobs, want.Records, got.Records)
	if !reflect.DeepEqual(got.Allocs, want.Allocs) || !reflect.DeepEqual(got.Drains, want.Drains) || got.Stats.PolicyDrains != int64(len(want.Drains)) {
		t.Fatalf("Python's allocations or %d drains (counted %d) differ from Go's %d", len(got.Drains), got.Stats.PolicyDrains, len(want.Drains))
	}
}
