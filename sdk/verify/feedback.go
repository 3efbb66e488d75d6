package verify

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// feedback keeps, for a workload whose jobs depend on others (sim.Input.After),
// what the checks need of the records added: each job's simulated
// submission, start, end and backfilled flag, by index.
type feedback struct {
	submit, start, end []int64
	backfilled         []bool
}

// Submitted returns the submission times of a run's jobs (sorted with
// sim.Sort) given their records: a job that depends on another
// (sim.Input.After) is submitted its think time after that job's end (or
// rejection); any other, at its Job.Submit. Records must be in index order,
// one per job, as verify.Result checks them; Submitted checks only what it
// needs to compute, and fails naming the job.
func Submitted(jobs []sim.Input, recs []sim.Record) ([]int64, error) {
	if len(recs) != len(jobs) {
		return nil, fmt.Errorf("verify: %d records for %d jobs", len(recs), len(jobs))
	}
	out := make([]int64, len(jobs))
	for i := range jobs {
		in := &jobs[i]
		out[i] = in.Job.Submit
		if in.After == 0 {
			continue
		}
		p := int(in.After) - 1
		if p < 0 || p >= i || in.Think < 0 || in.Think > sim.MaxTime {
			return nil, fmt.Errorf("verify: job id %d depends on job index %d with think time %d: %w", in.Job.ID, p, in.Think, errBadDependency)
		}
		out[i] = recs[p].End + in.Think
	}
	return out, nil
}

// errBadDependency marks a dependency the engine refuses: on a job that
// does not come before, or with a think time outside [0, sim.MaxTime].
var errBadDependency = fmt.Errorf("a job depends only on an earlier job, with a think time of 0 to %d s", int64(sim.MaxTime))

// submitted returns job i as it was submitted in the run, the record of its
// predecessor, if any, having been added: with its simulated submission in
// place of the trace's. It keeps what Finish needs of r.
func (c *Checker) submitted(i int, j *sdk.Job, r *sim.Record) (*sdk.Job, bool) {
	in := &c.jobs[i]
	fb := c.fb
	if len(fb.end) != i {
		// An earlier record was wrong (and named): the predecessors'
		// ends are not all known.
		return j, false
	}
	sub := j.Submit
	if in.After != 0 || in.Think != 0 {
		p := int(in.After) - 1
		if p < 0 || p >= i || in.Think < 0 || in.Think > sim.MaxTime {
			return j, c.add("job id %d depends on job index %d with think time %d: %v", j.ID, p, in.Think, errBadDependency)
		}
		sub = fb.end[p] + in.Think
	}
	fb.submit = append(fb.submit, sub)
	fb.start = append(fb.start, r.Start)
	fb.end = append(fb.end, r.End)
	fb.backfilled = append(fb.backfilled, r.Backfilled)
	if sub == j.Submit {
		return j, true
	}
	moved := *j
	moved.Submit = sub
	return &moved, true
}

// backfilled checks every job's backfilled flag: set when some job
// submitted before it (earlier, or at the same time with a lower index)
// starts after it, as without dependencies but in the order of the
// simulated submissions.
func (fb *feedback) checkBackfilled(jobs []sim.Input) error {
	order := make([]int32, len(fb.submit))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(fb.submit[a], fb.submit[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var latest int64
	for k, i := range order {
		want := k > 0 && latest > fb.start[i]
		if fb.backfilled[i] != want {
			return fmt.Errorf("verify: job id %d: backfilled flag %v, but the latest start of jobs submitted before it is %d and it starts at %d",
				jobs[i].Job.ID, fb.backfilled[i], latest, fb.start[i])
		}
		if k == 0 || fb.start[i] > latest {
			latest = fb.start[i]
		}
	}
	return nil
}
