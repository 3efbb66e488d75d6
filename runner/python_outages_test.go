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

// outageRun is a machine of nodes of cores cores, n jobs of one-core
// tasks (up to maxTasks of them) and failures of every node, drawn from
// seed, with two maintenance windows of the whole machine.
func outageRun(seed uint64, nodes int, cores int64, maxTasks, n int) (*sdk.Platform, []sim.Input, []sdk.Outage) {
	p := sdk.NodesPlatform("nodes", []sdk.NodeGroup{{Name: "n", Count: nodes, Cores: cores}}, nil, sdk.BestFit)
	l := sdk.NewLayout(p, 0)
	r := rand.New(rand.NewPCG(seed, 37))
	jobs := make([]sim.Input, n)
	t := int64(0)
	for i := range jobs {
		t += r.Int64N(120)
		tasks := sdk.Tasks{Count: int32(1 + r.IntN(maxTasks)), Cores: 1}
		req := make(sdk.Vector, p.Dims())
		l.Request(&tasks, req)
		run := 1 + r.Int64N(1800)
		jobs[i] = sim.Input{Job: sdk.Job{ID: int64(i + 1), Submit: t, Walltime: run + r.Int64N(600), Request: req, Tasks: &tasks}, Runtime: run}
	}
	sim.Sort(jobs)
	var outs []sdk.Outage
	for k := range int32(nodes) {
		for at := r.Int64N(8000); at < t; at += 1 + r.Int64N(8000) {
			d := 1 + r.Int64N(900)
			outs = append(outs, sdk.Outage{Nodes: []int32{k}, Start: at, End: at + d, Kind: sdk.Failure})
			at += d
		}
	}
	outs = append(outs, sdk.Outage{Start: t / 3, End: t/3 + 3600, Kind: sdk.Maintenance},
		sdk.Outage{Nodes: []int32{0, 1}, Start: 2 * t / 3, End: 2*t/3 + 1800, Kind: sdk.Maintenance})
	sdk.SortOutages(outs)
	return p, jobs, outs
}

// TestPythonOutages: on runs with failures of nodes and maintenance
// windows, under each rule for the jobs they reach, FCFS in Python
// (python/examples/fcfs.py, which keeps jobs off the nodes of a window
// ahead) gives the records, allocations, attempts and their allocations
// of the Go fcfs; and a Python policy that drains nodes
// (testdata/rotdrain.py) those of its Go twin, drains included, under the
// soft maintenance rule.
func TestPythonOutages(t *testing.T) {
	plat, jobs, outs := outageRun(11, 6, 8, 16, 400)
	rules := map[string]sim.Faults{
		"kill":    {},
		"requeue": {OnFailure: sim.FailRequeue, LosePlace: true, Maintenance: sim.MaintenanceSoft},
		"in place": {OnFailure: sim.FailCheckpoint,
			Checkpoint: sim.Checkpoint{Rule: sim.IntervalYoung, Cost: 60, Restart: 30, MTBF: 8000}},
	}
	procs := &Processes{}
	defer procs.Close()
	for name, f := range rules {
		t.Run("fcfs/"+name, func(t *testing.T) {
			spec := Spec{Policy: &Resolved{Ref: "fcfs", Kind: KindReference}, InProcess: true, Platform: plat, Jobs: jobs,
				Outages: outs, Faults: f, Metrics: metrics.DefaultSettings()}
			want, err := Execute(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Attempts) < 10 {
				t.Fatalf("%d attempts: the outages reach too few jobs", len(want.Attempts))
			}
			spec.Policy, spec.InProcess, spec.Processes = pythonResolved(t, filepath.Join("..", "python", "examples", "fcfs.py")), false, procs
			got, err := Execute(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			sameOutcome(t, jobs, want, got)
		})
	}
	t.Run("drains", func(t *testing.T) {
		dplat, djobs, douts := outageRun(12, 8, 1, 4, 600)
		goPlugin := sdk.Plugin{Info: sdk.Info{Name: "rotating-drain", Version: "0.1.0"},
			New: func() sdk.Policy { return &rotatingDrain{period: 300, width: 2} }}
		spec := Spec{Policy: &Resolved{Ref: "rotating-drain"}, Use: host.InProcess(goPlugin), Platform: dplat, Jobs: djobs,
			Outages: douts, Faults: sim.Faults{OnFailure: sim.FailRequeue, Maintenance: sim.MaintenanceSoft}, Metrics: metrics.DefaultSettings()}
		want, err := Execute(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Drains) < 100 || len(want.Attempts) < 10 {
			t.Fatalf("%d drains, %d attempts: the test crosses too little", len(want.Drains), len(want.Attempts))
		}
		spec.Use, spec.Policy, spec.Processes = nil, pythonResolved(t, filepath.Join("testdata", "rotdrain.py")), procs
		got, err := Execute(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		sameOutcome(t, djobs, want, got)
		if !reflect.DeepEqual(got.Drains, want.Drains) {
			t.Fatalf("Python's %d drains differ from Go's %d", len(got.Drains), len(want.Drains))
		}
	})
}

// sameOutcome fails at the first job whose record differs, then on any
// difference of allocations, attempts or their allocations.
func sameOutcome(t *testing.T, jobs []sim.Input, want, got *Outcome) {
	t.Helper()
	sameStarts(t, jobs, want.Records, got.Records)
	if !reflect.DeepEqual(got.Allocs, want.Allocs) {
		t.Fatal("Python's allocations differ from Go's")
	}
	if !reflect.DeepEqual(got.Attempts, want.Attempts) || !reflect.DeepEqual(got.AttemptAllocs, want.AttemptAllocs) {
		t.Fatalf("Python's %d attempts or their allocations differ from Go's %d", len(got.Attempts), len(want.Attempts))
	}
}
