package verify_test

import (
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// dependentWorkload is three jobs on 4 processors; job 20 depends on job
// 10, 5 s after its end:
//
//	id  submit  runtime  procs  depends
//	10     0      10       2
//	20     5      10       2    on 10, think 5
//	30    20      10       4
//
// FCFS runs 10 at 0-10; 20 is submitted at 15 (not 5) and runs 15-25; 30
// waits for it, 25-35.
func dependentWorkload() (*sdk.Platform, []sim.Input) {
	jobs := sorted(in(10, 0, 10, 10, 2), in(20, 5, 10, 10, 2), in(30, 20, 10, 10, 4))
	jobs[1].After, jobs[1].Think = 1, 5
	return sdk.SingleCluster("m", 4), jobs
}

func dependentRecords() []sim.Record {
	return []sim.Record{
		{Index: 0, Start: 0, End: 10},
		{Index: 1, Start: 15, End: 25},
		{Index: 2, Start: 25, End: 35},
	}
}

func TestTamperedDependentRecords(t *testing.T) {
	p, jobs := dependentWorkload()
	shift := func(k int, by int64) func([]sim.Record) []sim.Record {
		return set(k, func(r *sim.Record) { r.Start += by; r.End += by })
	}
	runTamper(t, p, jobs, dependentRecords, []tamperCase{
		{"valid", func(r []sim.Record) []sim.Record { return r }, nil},
		{"at its trace time", shift(1, -10), []string{"job id 20: starts at 5 before its submission at 15"}},
		{"a second before its submission", shift(1, -1), []string{"job id 20: starts at 14 before its submission at 15"}},
		{"its predecessor later, it not", shift(0, 3), []string{"job id 20: starts at 15 before its submission at 18"}},
		{"all later, valid", func(r []sim.Record) []sim.Record {
			return shift(2, 3)(shift(1, 3)(shift(0, 3)(r)))
		}, nil},
		{"a promise before its submission", set(1, func(r *sim.Record) { r.HasPromise, r.Promised = true, 10 }),
			[]string{"job id 20: promised start 10 before its submission at 15"}},
		{"backfilled flag", set(1, func(r *sim.Record) { r.Backfilled = true }), []string{"job id 20: backfilled flag true"}},
		// Job 30 (submitted at 20) at 20, before job 20, submitted before
		// it (at 15): job 30 is backfilled, job 20 is not.
		{"backfilled in submission order", func(r []sim.Record) []sim.Record {
			r[2].Start, r[2].End, r[2].Backfilled = 20, 30, true
			r[1].Start, r[1].End = 30, 40
			return r
		}, nil},
		{"backfilled flag unset", func(r []sim.Record) []sim.Record {
			r[2].Start, r[2].End = 20, 30
			r[1].Start, r[1].End = 30, 40
			return r
		}, []string{"job id 30: backfilled flag false"}},
	})
}
