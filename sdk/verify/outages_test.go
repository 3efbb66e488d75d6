package verify_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// outageRun is a small run with a failure, a drain and a maintenance
// window, its jobs started in order wherever they fit by the engine's
// placement: job 1 fails at 30 and is requeued, the others run through.
func outageRun(t *testing.T, f sim.Faults) (*sdk.Platform, []sim.Input, []sdk.Outage, *sim.Result) {
	t.Helper()
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 3, Cores: 4}}, nil, sdk.FirstFit)
	l := sdk.NewLayout(p, 0)
	var jobs []sim.Input
	for _, j := range [][4]int64{{1, 0, 100, 100}, {2, 0, 40, 40}, {3, 5, 20, 20}, {4, 10, 30, 60}} { // id, submit, runtime, walltime
		tasks := sdk.Tasks{Count: 4, Cores: 1}
		req := make(sdk.Vector, p.Dims())
		l.Request(&tasks, req)
		jobs = append(jobs, sim.Input{Job: sdk.Job{ID: j[0], Submit: j[1], Walltime: j[3], Request: req, Tasks: &tasks}, Runtime: j[2]})
	}
	sim.Sort(jobs)
	outs := []sdk.Outage{
		{Nodes: []int32{0}, Start: 30, End: 60, Kind: sdk.Failure},
		{Nodes: []int32{2}, Start: 35, End: 500, Kind: sdk.Drain},
		{Nodes: []int32{1}, Start: 300, End: 400, Kind: sdk.Maintenance},
	}
	pol := sdk.Plugin{Info: sdk.Info{Name: "fit"}, New: func() sdk.Policy { return fitAll{} }}
	res, err := sim.Run(context.Background(), pol, sim.Config{Platform: p, Jobs: jobs, Outages: outs, Faults: f})
	if err != nil {
		t.Fatal(err)
	}
	return p, jobs, outs, res
}

// fitAll starts every waiting job that fits, in order, placed by the
// engine, skipping those a maintenance window would reach.
type fitAll struct{}

func (fitAll) Init(sdk.Env) error { return nil }

func (fitAll) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	var out []sdk.Decision
	n := new(sdk.Nodes)
	n.CopyFrom(s.Nodes[0])
	for _, j := range s.Queue {
		var a sdk.Alloc
		try := new(sdk.Nodes)
		try.CopyFrom(n)
		for k := range sdk.WindowNodes(s, 0, j.Walltime) {
			try.SetFree(k, sdk.Amount{})
		}
		if try.Place(j.Tasks, n.Layout.Rule(), &a) {
			n.Take(j.Tasks, a)
			out = append(out, sdk.StartAlloc(j, 0, a))
		}
	}
	return out, nil
}

func cloneResult(r *sim.Result) *sim.Result {
	c := *r
	c.Records = slices.Clone(r.Records)
	c.Attempts = slices.Clone(r.Attempts)
	c.Allocs = &sim.Allocs{Start: slices.Clone(r.Allocs.Start), Nodes: slices.Clone(r.Allocs.Nodes), Tasks: slices.Clone(r.Allocs.Tasks)}
	c.AttemptAllocs = &sim.Allocs{Start: slices.Clone(r.AttemptAllocs.Start), Nodes: slices.Clone(r.AttemptAllocs.Nodes), Tasks: slices.Clone(r.AttemptAllocs.Tasks)}
	return &c
}

// TestTamperedOutageRecords checks that the verification of a run with
// outages accepts the engine's records and refuses each way of changing
// them that breaks a rule.
func TestTamperedOutageRecords(t *testing.T) {
	requeue := sim.Faults{OnFailure: sim.FailRequeue}
	p, jobs, outs, base := outageRun(t, requeue)
	if len(base.Attempts) != 1 || base.Records[0].Attempts != 1 {
		t.Fatalf("the base run has attempts %+v; the test wants job 1 failed once", base.Attempts)
	}
	if err := verify.Outages(p, jobs, outs, requeue, false, base); err != nil {
		t.Fatalf("the engine's records rejected: %v", err)
	}
	for _, tc := range []struct {
		name   string
		faults sim.Faults
		outs   func([]sdk.Outage) []sdk.Outage
		tamper func(r *sim.Result)
		want   string
	}{
		{"attempt not listed", requeue, nil, func(r *sim.Result) {
			r.Attempts, r.AttemptAllocs = nil, &sim.Allocs{Start: []int32{0}}
		}, "counts 1 attempts, 0 are listed"},
		{"attempt ends off the failure", requeue, nil, func(r *sim.Result) { r.Attempts[0].End = 29 }, "ended its attempt"},
		{"no failure at all", requeue, func(o []sdk.Outage) []sdk.Outage { return o[1:] }, func(*sim.Result) {}, "ended its attempt"},
		{"restart before the attempt's end", requeue, nil, func(r *sim.Result) { r.Records[0].Start, r.Records[0].End = 20, 120 }, "starting job id 1 makes node 1 hold"},
		{"a failure the job ran through", requeue, func(o []sdk.Outage) []sdk.Outage {
			return append(o, sdk.Outage{Nodes: []int32{1}, Start: 10, End: 11, Kind: sdk.Failure})
		}, func(r *sim.Result) {}, "out of service (failure) from 10 to 11"},
		{"a start on a draining node", requeue, func(o []sdk.Outage) []sdk.Outage {
			return append(o, sdk.Outage{Nodes: []int32{2}, Start: 20, End: 30, Kind: sdk.Drain})
		}, func(r *sim.Result) {}, "which drains from 20 to 30"},
		{"a start reaching a window", requeue, func(o []sdk.Outage) []sdk.Outage {
			return append(o, sdk.Outage{Nodes: []int32{2}, Start: 70, End: 75, Kind: sdk.Maintenance})
		}, func(r *sim.Result) {}, "reaching its maintenance at 70"},
		{"a failure at the end of a run is after it", requeue, func(o []sdk.Outage) []sdk.Outage {
			return append(o, sdk.Outage{Nodes: []int32{1}, Start: 140, End: 150, Kind: sdk.Failure})
		}, func(r *sim.Result) {}, ""},
		{"kill rule, yet requeued", sim.Faults{}, nil, func(*sim.Result) {}, "ran again after an outage ended it"},
		{"soft maintenance claimed under hard", requeue, nil, func(r *sim.Result) { r.Attempts[0].Cause = sdk.Maintenance }, "ended its attempt"},
		{"backfilled flag", requeue, nil, func(r *sim.Result) { r.Records[3].Backfilled = !r.Records[3].Backfilled }, "backfilled flag"},
		{"interrupted under requeue", requeue, nil, func(r *sim.Result) { r.Records[0].Interrupted = sdk.Failure }, "the run requeues such jobs"},
		{"checkpoint saved claimed", requeue, nil, func(r *sim.Result) { r.Attempts[0].Saved = 10 }, "saved 10 s of work, its checkpoints 0"},
		{"an attempt a drain ended", requeue, func(o []sdk.Outage) []sdk.Outage {
			return append(o[1:], sdk.Outage{Nodes: []int32{0}, Start: 30, End: 60, Kind: sdk.Drain})
		}, func(r *sim.Result) { r.Attempts[0].Cause = sdk.Drain }, "only failures and maintenance windows end runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := cloneResult(base)
			tc.tamper(res)
			o := slices.Clone(outs)
			if tc.outs != nil {
				o = tc.outs(o)
				sdk.SortOutages(o)
			}
			err := verify.Outages(p, jobs, o, tc.faults, false, res)
			switch {
			case tc.want == "":
				if err != nil {
					t.Errorf("valid records rejected: %v", err)
				}
			case err == nil || !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestTamperedCheckpointRecords checks the replay of checkpoints: the
// engine's records pass; work saved that no checkpoint made, or a last run
// that ends off its length, are refused.
func TestTamperedCheckpointRecords(t *testing.T) {
	f := sim.Faults{OnFailure: sim.FailCheckpoint, Checkpoint: sim.Checkpoint{Interval: 10, Cost: 2, Restart: 3}}
	p, jobs, outs, base := outageRun(t, f)
	if len(base.Attempts) != 1 || base.Attempts[0].Saved != 20 {
		t.Fatalf("attempts %+v: the test wants job 1 failed at 30 with two checkpoints done (at 12 and 24)", base.Attempts)
	}
	if err := verify.Outages(p, jobs, outs, f, false, base); err != nil {
		t.Fatalf("the engine's records rejected: %v", err)
	}
	for _, tc := range []struct {
		name   string
		tamper func(r *sim.Result)
		want   string
	}{
		{"more saved", func(r *sim.Result) { r.Attempts[0].Saved = 30 }, "its checkpoints 20"},
		{"last run shorter", func(r *sim.Result) { r.Records[0].End-- }, "its last run"},
		{"a run without its checkpoints", func(r *sim.Result) { r.Records[3].End = r.Records[3].Start + 30 }, "its last run"},
		{"a walltime kill unflagged", func(r *sim.Result) { r.Records[2].Killed = false }, "its last run"},
	} {
		res := cloneResult(base)
		tc.tamper(res)
		if err := verify.Outages(p, jobs, outs, f, false, res); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestOutageRecordsNeedExpect checks that records with attempts are refused
// by the verification of a run without outages.
func TestOutageRecordsNeedExpect(t *testing.T) {
	requeue := sim.Faults{OnFailure: sim.FailRequeue}
	p, jobs, _, res := outageRun(t, requeue)
	if err := verify.Result(p, jobs, res); err == nil || !strings.Contains(err.Error(), "in a run without outages") {
		t.Errorf("error %v, want one about attempts in a run without outages", err)
	}
}
