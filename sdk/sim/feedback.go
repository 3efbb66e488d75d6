package sim

import (
	"fmt"

	"github.com/schedlab/schedlab/sdk"
)

// deps is the engine's state of a workload whose jobs depend on others
// (Input.After): who waits for whom, and the submissions that the ends of
// jobs have released, to come.
type deps struct {
	after []int32 // Input.After of every job
	think []int64 // Input.Think of every job
	// kids lists the jobs that depend on each job, in index order: those of
	// job i are kids[first[i]:first[i+1]].
	first []int32
	kids  []int32
	// subs holds the released submissions, by (time, index): the order in
	// which the engine queues them, merged with the trace's.
	subs heap[endEvent]
	// final is the first job whose record may not be final yet.
	final int
}

func newDeps(n int) *deps {
	return &deps{
		after: make([]int32, n),
		think: make([]int64, n),
		subs:  heap[endEvent]{less: func(a, b endEvent) bool { return a.at < b.at || (a.at == b.at && a.idx < b.idx) }},
	}
}

// anyAfter reports whether a job of jobs depends on another.
func anyAfter(jobs []Input) bool {
	for k := range jobs {
		if jobs[k].After != 0 {
			return true
		}
	}
	return false
}

// load checks and keeps job i's dependency.
func (d *deps) load(i int, in *Input) error {
	if in.After < 0 || int(in.After) > i {
		return fmt.Errorf("sim: job id %d depends on job index %d; it must be an earlier job (Input.After is 1 + its index, 1 to %d)", in.Job.ID, int(in.After)-1, i)
	}
	if in.After == 0 && in.Think != 0 {
		return fmt.Errorf("sim: job id %d has think time %d but depends on no job", in.Job.ID, in.Think)
	}
	if in.Think < 0 || in.Think > MaxTime {
		return fmt.Errorf("sim: job id %d has think time %d; it must be between 0 and %d s (sim.MaxTime)", in.Job.ID, in.Think, int64(MaxTime))
	}
	d.after[i], d.think[i] = in.After, in.Think
	return nil
}

// index builds, once every job is loaded, the lists of the jobs that depend
// on each job.
func (d *deps) index() {
	n := len(d.after)
	d.first = make([]int32, n+1)
	for _, a := range d.after {
		if a != 0 {
			d.first[a]++ // counts of job a-1, shifted by one
		}
	}
	for i := 1; i <= n; i++ {
		d.first[i] += d.first[i-1]
	}
	d.kids = make([]int32, d.first[n])
	fill := make([]int32, n)
	for k, a := range d.after {
		if a != 0 {
			p := a - 1
			d.kids[d.first[p]+fill[p]] = int32(k)
			fill[p]++
		}
	}
}

// release submits, think time after t, every job that depends on job i,
// which ended or was rejected at t.
func (d *deps) release(i int32, t int64) {
	for _, k := range d.kids[d.first[i]:d.first[i+1]] {
		d.subs.push(endEvent{at: t + d.think[k], idx: k})
	}
}

// skip returns the first job from next on that the trace submits: one that
// depends on no job.
func (d *deps) skip(next int) int {
	for next < len(d.after) && d.after[next] != 0 {
		next++
	}
	return next
}

// nextSub returns the time of the earliest released submission.
func (d *deps) nextSub() (int64, bool) {
	if d.subs.len() == 0 {
		return 0, false
	}
	return d.subs.top().at, true
}

// finalUpTo returns the first job whose record may not be final: every job
// before it has started, or was rejected, and the call that did it has
// returned. With dependencies the jobs waiting and those to come are not in
// index order, so the engine looks at the jobs themselves.
func (d *deps) finalUpTo(status []uint8) int {
	for d.final < len(status) && status[d.final] >= statusRunning {
		d.final++
	}
	return d.final
}

// firstSubmitted returns the job of q submitted first (submittedBefore).
// The queue is in that order but in one case: a job released at the
// instant of a policy call (its predecessor rejected by that call, with a
// think time of 0) joins the queue at a second call at that instant, after
// jobs of that instant with higher indexes.
func (d *deps) firstSubmitted(q []*sdk.Job) *sdk.Job {
	first := q[0]
	for _, j := range q[1:] {
		if j.Submit > first.Submit {
			break // past the jobs of first's instant: the rest come later
		}
		if submittedBefore(j, first) {
			first = j
		}
	}
	return first
}

// loadAll loads every job of a streamed workload, so that a job's think time
// is known when the job it depends on ends.
func (e *engine) loadAll() error {
	for e.loaded < e.n {
		if err := e.pull(); err != nil {
			return err
		}
	}
	e.deps.index()
	return nil
}

// submittedBefore reports whether job a was submitted before job b: earlier,
// or at the same time with a lower index. Without dependencies it is index
// order; with them, the order in which the engine queued the jobs.
func submittedBefore(a, b *sdk.Job) bool {
	return a.Submit < b.Submit || (a.Submit == b.Submit && a.Index < b.Index)
}
