package backfill

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
	"github.com/schedlab/schedlab/workload"
)

// TestReferencePoliciesUnderFeedback runs every reference policy of this
// package on KTH-SP2 with jobs submitted during the run (feedback =
// sessions), whose indexes do not follow their submissions: policies that
// told new jobs by index would fail or schedule wrongly. Each run is
// verified, and must release some job at a simulated time.
func TestReferencePoliciesUnderFeedback(t *testing.T) {
	w, err := workload.LoadSWFWith("../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz", 0, workload.DefaultClean(),
		workload.Feedback{Mode: workload.FeedbackSessions})
	if err != nil {
		t.Fatal(err)
	}
	if w.Feedback.Count(workload.RuleDependent) == 0 {
		t.Fatal("no dependent job in KTH-SP2 under sessions")
	}
	plat := sdk.SingleCluster("kth", w.Procs)
	for _, tc := range []struct {
		name   string
		p      sdk.Plugin
		params map[string]string
	}{
		{"fcfs", FCFS(), nil},
		{"easy", EASY(), nil},
		{"easy wfp3", EASY(), map[string]string{"order": OrderWFP3}},
		{"conservative", Conservative(), nil},
		{"multifactor", Multifactor(), map[string]string{"PriorityWeightFairshare": "10000", "PriorityWeightAge": "1000"}},
		{"multifactor sched/backfill", Multifactor(), map[string]string{"PriorityWeightFairshare": "10000", "SchedulerType": "sched/backfill"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sim.Run(context.Background(), tc.p, sim.Config{Platform: plat, Jobs: w.Jobs, Params: tc.params})
			if err != nil {
				t.Fatal(err)
			}
			if err := verify.Result(plat, w.Jobs, res); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSlurmLoopsSeeReleasedJobs: under sched/backfill a submission is an
// event that runs the main loop at once. Job 2 (index 1) is released at
// 15, its predecessor job 1 having ended at 10 and its think time 5,
// after jobs 3 and 4 (indexes 2 and 3) were queued, and with no end since
// the call at 12 (job 4's submission, which took job 1's end): a policy
// telling new jobs by index misses it and starts it at the next periodic
// loop, 60. It must start at its release, 15, on the processor free.
func TestSlurmLoopsSeeReleasedJobs(t *testing.T) {
	in := []sim.Input{
		{Job: sdk.Job{ID: 1, Submit: 0, Walltime: 10, Request: sdk.Vector{1}, User: 1}, Runtime: 10},
		{Job: sdk.Job{ID: 2, Submit: 1, Walltime: 5, Request: sdk.Vector{1}, User: 1}, Runtime: 5, After: 1, Think: 5},
		{Job: sdk.Job{ID: 3, Submit: 2, Walltime: 100, Request: sdk.Vector{1}, User: 2}, Runtime: 100},
		{Job: sdk.Job{ID: 4, Submit: 12, Walltime: 20, Request: sdk.Vector{1}, User: 3}, Runtime: 20},
	}
	sim.Sort(in)
	plat := sdk.SingleCluster("three", 3)
	res, err := sim.Run(context.Background(), Multifactor(), sim.Config{Platform: plat, Jobs: in, Params: map[string]string{
		"SchedulerType": SchedBackfill, "SchedulerParameters": "sched_interval=60,bf_interval=60"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.Result(plat, in, res); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, r := range res.Records {
		got = append(got, r.Start)
	}
	if fmt.Sprint(got) != "[0 15 2 12]" {
		t.Errorf("starts %v, want [0 15 2 12]", got)
	}
}
