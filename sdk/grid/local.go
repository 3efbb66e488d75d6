package grid

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// Entry is a job in a cluster's local queue.
type Entry struct {
	Job *sdk.Job
	// Priority orders the queue, highest first; ties go to the earlier
	// submission, then the lower index.
	Priority float64
	// From is the earliest time the job may start: its arrival, for a job
	// shipped to the cluster.
	From int64
}

// Slot is a job of a plan: it runs from Start to End (Start plus its
// walltime).
type Slot struct {
	Job        *sdk.Job
	Start, End int64
	Priority   float64
}

// SortQueue sorts q in the local scheduler's order: by priority, highest
// first, then by submission, then by index.
func SortQueue(q []Entry) {
	slices.SortFunc(q, func(a, b Entry) int {
		if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Job.Submit, b.Job.Submit); c != 0 {
			return c
		}
		return cmp.Compare(a.Job.Index, b.Job.Index)
	})
}

// Plan is the local batch system of a cluster, a priority scheduler with
// backfilling: it sorts q (SortQueue) and plans each job at the earliest
// time it fits in p beside the jobs planned before it, taking its
// processors in p. The jobs planned at p.Now() are the ones to start now;
// the whole plan is the cluster's forecast. A job that fits nowhere (wider
// than the cluster) is left out. The plan is made afresh at every call, so
// a job of higher priority that arrives later goes ahead of one planned
// before it: the local scheduler gives no guarantee to a job of low
// priority, as a batch system's priorities do not.
func Plan(p *plan.Profile, q []Entry, dst []Slot) []Slot {
	SortQueue(q)
	for _, e := range q {
		at := p.EarliestFitFrom(max(e.From, p.Now()), e.Job.Request, e.Job.Walltime)
		if at < 0 {
			continue
		}
		_ = p.Reserve(at, e.Job.Walltime, e.Job.Request) // it fits: EarliestFit said so
		dst = append(dst, Slot{Job: e.Job, Start: at, End: at + e.Job.Walltime, Priority: e.Priority})
	}
	return dst
}

// Starts appends to dst a start on cluster c of every slot of plan that
// begins at now.
func Starts(plan []Slot, c int, now int64, dst []sdk.Decision) []sdk.Decision {
	for _, s := range plan {
		if s.Start == now {
			dst = append(dst, sdk.StartOn(s.Job, c))
		}
	}
	return dst
}
