package metrics

import (
	"context"
	"math"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// inOrder starts waiting jobs in order while the engine's placement
// finds them room.
type inOrder struct{}

func (inOrder) Init(sdk.Env) error { return nil }

func (inOrder) Schedule(s *sdk.State) ([]sdk.Decision, error) {
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

// TestOutageMetricsHandWorked: two nodes of 4 cores; jobs 1 and 2 of 4
// tasks run 100 s from 0, job 3 of 4 tasks 10 s; node 0 fails from 30 to
// 50 under job 1, which is requeued in place. Job 1 runs again from 50 to
// 150 on node 0, job 3 from 100 to 110 on node 1. Over the makespan of
// 150 s: node 0 is down 20 s, so availability (130 + 150) / 300; 1,120
// core-seconds in service; 120 lost (4 cores x 30 s), 840 in runs that
// ran to their end; job 1 waited again 20 s.
func TestOutageMetricsHandWorked(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	var jobs []sim.Input
	for _, j := range [][3]int64{{1, 0, 100}, {2, 0, 100}, {3, 0, 10}} {
		tasks := sdk.Tasks{Count: 4, Cores: 1}
		jobs = append(jobs, sim.Input{Job: sdk.Job{ID: j[0], Submit: j[1], Walltime: j[2], Request: sdk.Vector{4}, Tasks: &tasks}, Runtime: j[2]})
	}
	sim.Sort(jobs)
	outs := []sdk.Outage{{Nodes: []int32{0}, Start: 30, End: 50, Kind: sdk.Failure}}
	pl := sdk.Plugin{Info: sdk.Info{Name: "in-order"}, New: func() sdk.Policy { return inOrder{} }}
	res, err := sim.Run(context.Background(), pl, sim.Config{Platform: p, Jobs: jobs, Outages: outs, Faults: sim.Faults{OnFailure: sim.FailRequeue}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Compute(p, jobs, res.Records, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	AddOutages(&sum, p, jobs, res, outs)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if !sum.Outages || sum.Makespan != 150 || sum.Attempts != 1 || sum.InterruptedJobs != 1 || sum.FailedJobs != 0 || sum.LostCoreSeconds != 120 ||
		!near(sum.Availability, 280.0/300) || !near(sum.AvailableCoreUtil, 960.0/1120) || !near(sum.Goodput, 840.0/1120) ||
		sum.RequeueWaitMean == nil || *sum.RequeueWaitMean != 20 {
		t.Errorf("summary %+v (requeue wait %v)", sum, sum.RequeueWaitMean)
	}
	// Killed instead: job 1's run ends for good at 30; job 3 starts at 50.
	res, err = sim.Run(context.Background(), pl, sim.Config{Platform: p, Jobs: jobs, Outages: outs})
	if err != nil {
		t.Fatal(err)
	}
	sum, _ = Compute(p, jobs, res.Records, DefaultSettings())
	AddOutages(&sum, p, jobs, res, outs)
	if sum.FailedJobs != 1 || sum.Attempts != 1 || sum.RequeueWaitMean != nil || sum.LostCoreSeconds != 120 || sum.Makespan != 100 ||
		!near(sum.Goodput, (400+40)/(4*80.0+4*100)) {
		t.Errorf("killed: summary %+v", sum)
	}
}
