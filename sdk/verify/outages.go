package verify

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// The checks of a run with outages (sim.Config.Outages) are written from
// the outages, the rules and the records alone, apart from the engine's
// outage code, so that a mistake there is not repeated here.

// outageRun is what a Checker keeps of a run with outages.
type outageRun struct {
	outs   []sdk.Outage
	faults sim.Faults
	exact  bool         // the run showed exact estimates
	recs   []sim.Record // every record added, by index
	submit []int64      // each job's submission in the run
	atts   []sim.Attempt
	allocs *sim.Allocs
	byJob  [][]int32 // each job's attempts, indexes in atts
}

// Expect tells c that the run had outages outs under rules f, and whether
// it showed the policy exact estimates (sim.Config.ExactEstimates: the
// hard maintenance rule then keeps a job's known duration, not its
// requested walltime, out of windows): its records may then end early
// (Interrupted) and have attempts, which SetAttempts gives. Call it before
// the first Add.
func (c *Checker) Expect(outs []sdk.Outage, f sim.Faults, exact bool) {
	if len(outs) > 0 {
		c.ot = &outageRun{outs: outs, faults: f, exact: exact}
	}
}

// SetAttempts gives c the runs of jobs that outages ended
// (sim.Result.Attempts and AttemptAllocs), which Finish checks. Call it
// before Finish.
func (c *Checker) SetAttempts(atts []sim.Attempt, allocs *sim.Allocs) {
	if c.ot != nil {
		c.ot.atts, c.ot.allocs = atts, allocs
	}
}

// Outages checks res, a run with outages outs under rules f (exact says
// whether it showed exact estimates), as Result
// checks a run without: and besides, every run of every job (its attempts
// that outages ended and its last) on nodes in service, none started on a
// draining node or, under sim.MaintenanceHard, reaching a maintenance
// window within its walltime; each attempt ended by an outage of its
// nodes at that instant, and every job on a node when a failure (or, under
// sim.MaintenanceSoft, a window) begins ended then; the attempts of each
// job in order and in the number its record says; no node or resource
// over capacity at any instant, attempts counted; and the backfilled
// flags, a requeued job waiting again from the end of its attempt.
func Outages(p *sdk.Platform, jobs []sim.Input, outs []sdk.Outage, f sim.Faults, exact bool, res *sim.Result) error {
	c := NewChecker(p, jobs)
	c.Expect(outs, f, exact)
	c.Add(res.Records)
	c.SetAttempts(res.Attempts, res.AttemptAllocs)
	return c.Finish(res.Units, res.Allocs)
}

// checkpointing reports whether the run's jobs checkpoint: their runs
// then last more than their work, which checkOutages checks.
func (c *Checker) checkpointing() bool {
	return c.ot != nil && c.ot.faults.OnFailure == sim.FailCheckpoint
}

// The arithmetic of checkpointing (sim.Checkpoint), written again here.

// ckptInterval is the interval between the checkpoints of a job on nodes
// nodes.
func ckptInterval(c *sim.Checkpoint, nodes int) int64 {
	if c.Rule == sim.IntervalFixed {
		return max(1, c.Interval)
	}
	m, cost := c.MTBF/float64(nodes), float64(c.Cost)
	tau := math.Sqrt(2 * cost * m) // Young
	if c.Rule == sim.IntervalDaly {
		if cost >= 2*m {
			tau = m
		} else {
			r := cost / (2 * m)
			tau = math.Sqrt(2*cost*m)*(1+math.Sqrt(r)/3+r/9) - cost
		}
	}
	return max(1, int64(math.Round(tau)))
}

// ckptRun returns the length of a run with work to do: the work, a
// checkpoint after each interval of it but the last, a restart first
// when resumed; and the work its checkpoints keep if it is ended after
// elapsed seconds.
func ckptRun(c *sim.Checkpoint, work, tau int64, resumed bool, elapsed int64) (length, saved int64) {
	points := (work - 1) / tau // checkpoints a whole run makes
	start := int64(0)
	if resumed {
		start = c.Restart
	}
	length = start + work + points*c.Cost
	if done := elapsed - start; done > 0 {
		saved = tau * min(points, done/(tau+c.Cost))
	}
	return length, saved
}

// interruptedOK checks what Add can of a record whose last run an outage
// ended.
func (c *Checker) interruptedOK(j *sdk.Job, in *sim.Input, r *sim.Record) bool {
	switch {
	case c.ot.faults.OnFailure != sim.FailKill:
		return c.add("job id %d: its last run was ended by a %s, but the run requeues such jobs", j.ID, r.Interrupted)
	case r.Interrupted != sdk.Failure && r.Interrupted != sdk.Maintenance:
		return c.add("job id %d: ended by an outage of kind %d", j.ID, r.Interrupted)
	case r.End <= r.Start || r.End >= r.Start+min(in.Runtime, j.Walltime):
		return c.add("job id %d: ended by a %s at %d, outside its run from %d to %d", j.ID, r.Interrupted, r.End, r.Start, r.Start+min(in.Runtime, j.Walltime))
	case r.Killed || r.Attempts < 1:
		return c.add("job id %d: ended by a %s, yet killed (%v) or with %d attempts", j.ID, r.Interrupted, r.Killed, r.Attempts)
	}
	return true
}

// interval is one run of a job: an attempt an outage ended, or its last.
type interval struct {
	idx         int32
	start, end  int64
	alloc       sdk.Alloc
	interrupted bool
}

// checkOutages makes the checks of Outages that need every record.
func (c *Checker) checkOutages() error {
	ot := c.ot
	p, jobs := c.p, c.jobs
	if err := sdk.CheckOutages(p, ot.outs); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if !p.HasNodes() || len(p.Clusters) != 1 {
		return errors.New("verify: outages on a platform that is not one cluster of nodes")
	}
	if p.UnitStride() > 0 {
		return errors.New("verify: outages on a platform with divided resources")
	}
	in := newNodeInfo(p, &p.Clusters[0])
	nn := int32(len(in.caps))
	if ot.allocs == nil && len(ot.atts) > 0 || ot.allocs != nil && ot.allocs.Len() != len(ot.atts) {
		return fmt.Errorf("verify: %d attempts with allocations of %d", len(ot.atts), ot.allocs.Len())
	}
	// Each job's attempts, in the order they ended.
	byJob := make([][]int32, len(jobs))
	ot.byJob = byJob
	for x, a := range ot.atts {
		if a.Index < 0 || int(a.Index) >= len(jobs) {
			return fmt.Errorf("verify: attempt %d of job index %d", x, a.Index)
		}
		if x > 0 && a.End < ot.atts[x-1].End {
			return fmt.Errorf("verify: attempt %d ends at %d, before the one listed before it", x, a.End)
		}
		byJob[a.Index] = append(byJob[a.Index], int32(x))
	}
	var runs []interval
	for i := range jobs {
		r := &ot.recs[i]
		j := &jobs[i].Job
		tries := byJob[i]
		if int(r.Attempts) != len(tries) {
			return fmt.Errorf("verify: job id %d: its record counts %d attempts, %d are listed", j.ID, r.Attempts, len(tries))
		}
		if r.Rejected && len(tries) > 0 {
			return fmt.Errorf("verify: job id %d was rejected, yet has attempts", j.ID)
		}
		if ot.faults.OnFailure == sim.FailKill && len(tries) > 0 && (len(tries) > 1 || r.Interrupted == 0) {
			return fmt.Errorf("verify: job id %d ran again after an outage ended it, but the run kills such jobs", j.ID)
		}
		prev := ot.submit[i]
		ck := &ot.faults.Checkpoint
		work := jobs[i].Runtime // the work left, when checkpointing
		for n, x := range tries {
			a := &ot.atts[x]
			al := ot.allocs.Of(int(x))
			last := n == len(tries)-1 && r.Interrupted != 0
			length, saved := min(jobs[i].Runtime, j.Walltime), int64(0)
			if c.checkpointing() {
				// A run resumes (a restart first) once an earlier one saved work.
				length, saved = ckptRun(ck, work, ckptInterval(ck, len(al.Nodes)), work < jobs[i].Runtime, a.End-a.Start)
				length = min(length, c.limit(i))
				work -= saved
			}
			switch {
			case a.Saved != saved:
				return fmt.Errorf("verify: job id %d: an attempt from %d to %d saved %d s of work, its checkpoints %d", j.ID, a.Start, a.End, a.Saved, saved)
			case a.Start < prev:
				return fmt.Errorf("verify: job id %d: an attempt starts at %d, before its submission or the end of its attempt before (%d)", j.ID, a.Start, prev)
			case a.End <= a.Start || a.End >= a.Start+length:
				return fmt.Errorf("verify: job id %d: an attempt from %d ends at %d, not while it ran", j.ID, a.Start, a.End)
			case a.Cluster != 0:
				return fmt.Errorf("verify: job id %d: an attempt on cluster %d", j.ID, a.Cluster)
			case last && (a.Start != r.Start || a.End != r.End || a.Cause != r.Interrupted || !slices.Equal(al.Nodes, c.finalAllocs.Of(i).Nodes)):
				return fmt.Errorf("verify: job id %d: its record is not its last attempt, which an outage ended", j.ID)
			case !last && n == len(tries)-1 && !r.Rejected && r.Start < a.End:
				return fmt.Errorf("verify: job id %d starts at %d, before its attempt ended at %d", j.ID, r.Start, a.End)
			}
			if err := in.checkJob(j, al); err != nil {
				return fmt.Errorf("verify: attempt: %w", err)
			}
			if !slices.Contains(al.Nodes, a.Node) || !causedBy(ot.outs, a) {
				return fmt.Errorf("verify: job id %d: no %s of node %d at %d ended its attempt from %d", j.ID, a.Cause, a.Node, a.End, a.Start)
			}
			if a.Cause != sdk.Failure && a.Cause != sdk.Maintenance {
				return fmt.Errorf("verify: job id %d: an attempt ended by a %s; only failures and maintenance windows end runs", j.ID, a.Cause)
			}
			if a.Cause == sdk.Maintenance && ot.faults.Maintenance != sim.MaintenanceSoft {
				return fmt.Errorf("verify: job id %d ran into a maintenance window at %d, which the run forbids", j.ID, a.End)
			}
			runs = append(runs, interval{idx: int32(i), start: a.Start, end: a.End, alloc: al, interrupted: true})
			prev = a.End
		}
		if !r.Rejected && r.Interrupted == 0 {
			if c.checkpointing() {
				length, _ := ckptRun(ck, work, ckptInterval(ck, c.finalAllocs.Of(i).Len()), work < jobs[i].Runtime, 0)
				if r.End != r.Start+min(length, c.limit(i)) || r.Killed != (length > c.limit(i)) {
					return fmt.Errorf("verify: job id %d: its last run from %d ends at %d (killed %v); with %d s of work left and its checkpoints, it ends at %d",
						j.ID, r.Start, r.End, r.Killed, work, r.Start+min(length, c.limit(i)))
				}
			}
			runs = append(runs, interval{idx: int32(i), start: r.Start, end: r.End, alloc: c.finalAllocs.Of(i)})
		}
	}
	// Per node, its outages by start.
	perNode := make([][]int32, nn)
	for x := range ot.outs {
		for k := range ot.outs[x].All(nn) {
			perNode[k] = append(perNode[k], int32(x))
		}
	}
	for _, iv := range runs {
		j := &jobs[iv.idx].Job
		wall := j.Walltime // what the hard rule keeps out of windows
		if ot.exact {
			wall = min(wall, jobs[iv.idx].Runtime)
		}
		for _, k := range iv.alloc.Nodes {
			for _, x := range perNode[k] {
				o := &ot.outs[x]
				if o.Start >= max(iv.end, iv.start+wall) {
					break
				}
				switch o.Kind {
				case sdk.Drain:
					if iv.start >= o.Start && iv.start < o.End {
						return fmt.Errorf("verify: job id %d starts at %d on node %d, which drains from %d to %d", j.ID, iv.start, k, o.Start, o.End)
					}
				default:
					if o.Start < iv.end && o.End > iv.start && !(o.Start == iv.end && iv.interrupted) {
						return fmt.Errorf("verify: job id %d runs from %d to %d on node %d, out of service (%s) from %d to %d", j.ID, iv.start, iv.end, k, o.Kind, o.Start, o.End)
					}
					if o.Kind == sdk.Maintenance && ot.faults.Maintenance == sim.MaintenanceHard && o.Start > iv.start && o.Start < iv.start+wall {
						return fmt.Errorf("verify: job id %d starts at %d on node %d with a walltime of %d s, reaching its maintenance at %d", j.ID, iv.start, k, wall, o.Start)
					}
				}
			}
		}
	}
	if err := usage(p, in, jobs, runs); err != nil {
		return err
	}
	return c.outageBackfilled(runs)
}

// limit returns job i's requested walltime: the job's own, whatever the
// policy was shown (exact estimates show it its duration).
func (c *Checker) limit(i int) int64 { return c.jobs[i].Job.Walltime }

// causedBy reports whether an outage of a's cause begins at its end on
// its node.
func causedBy(outs []sdk.Outage, a *sim.Attempt) bool {
	for x := range outs {
		o := &outs[x]
		if o.Start == a.End && o.Kind == a.Cause && o.Covers(a.Node) {
			return true
		}
	}
	return false
}

// usage sweeps the runs and checks every node's and the cluster's usage at
// every instant (a run ending at t frees what it holds for one starting at
// t).
func usage(p *sdk.Platform, in *nodeInfo, jobs []sim.Input, runs []interval) error {
	type ev struct {
		at    int64
		delta int8
		run   int32
	}
	evs := make([]ev, 0, 2*len(runs))
	for x, iv := range runs {
		evs = append(evs, ev{iv.start, 1, int32(x)}, ev{iv.end, -1, int32(x)})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		if c := cmp.Compare(a.delta, b.delta); c != 0 {
			return c
		}
		return cmp.Compare(runs[a.run].idx, runs[b.run].idx)
	})
	used := make([]sdk.Amount, len(in.caps))
	total := make(sdk.Vector, p.Dims())
	cl := &p.Clusters[0]
	for _, e := range evs {
		iv := &runs[e.run]
		j := &jobs[iv.idx].Job
		if e.delta < 0 {
			total.Sub(j.Request)
		} else {
			total.Add(j.Request)
		}
		for x, k := range iv.alloc.Nodes {
			h := in.held(j.Tasks, k, iv.alloc.Tasks[x])
			u := &used[k]
			d := int64(e.delta)
			u.Cores, u.Memory, u.GPUs = u.Cores+d*h.Cores, u.Memory+d*h.Memory, u.GPUs+d*h.GPUs
			if cp := in.caps[k]; e.delta > 0 && (u.Cores > cp.Cores || u.Memory > cp.Memory || u.GPUs > cp.GPUs) {
				return fmt.Errorf("verify: at t=%d, starting job id %d makes node %d hold %+v of %+v", e.at, j.ID, k, *u, cp)
			}
		}
		for k := range total {
			if e.delta > 0 && total[k] > cl.Capacity[k] {
				return fmt.Errorf("verify: at t=%d, starting job id %d makes cluster %q use %d %s of %d", e.at, j.ID, cl.Name, total[k], p.Resources[k], cl.Capacity[k])
			}
		}
	}
	return nil
}

// outageBackfilled checks every job's backfilled flag in a run with
// outages: set when, at its last start, a job submitted before it (in the
// run's submissions; ties by index) was waiting, from its submission to
// its first start (or rejection) and from the end of each attempt an
// outage ended to its next start.
func (c *Checker) outageBackfilled(runs []interval) error {
	ot := c.ot
	type wait struct {
		from, to int64
		idx      int32
	}
	var waits []wait
	// The starts of every job's runs, in the order of its runs.
	starts := make([][]int64, len(c.jobs))
	for _, iv := range runs {
		starts[iv.idx] = append(starts[iv.idx], iv.start)
	}
	for i := range c.jobs {
		r := &ot.recs[i]
		from := ot.submit[i]
		if r.Rejected {
			waits = append(waits, wait{from, r.Start, int32(i)})
			continue
		}
		for n, s := range starts[i] {
			waits = append(waits, wait{from, s, int32(i)})
			if n < len(starts[i])-1 {
				from = ot.atts[ot.byJob[i][n]].End
			}
		}
	}
	slices.SortFunc(waits, func(a, b wait) int { return cmp.Compare(a.from, b.from) })
	// The jobs by their last start.
	order := make([]int32, 0, len(c.jobs))
	for i := range c.jobs {
		if !ot.recs[i].Rejected {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(ot.recs[a].Start, ot.recs[b].Start) })
	before := func(a, b int32) bool {
		return ot.submit[a] < ot.submit[b] || ot.submit[a] == ot.submit[b] && a < b
	}
	// waiting holds the waits begun by the current instant, first
	// submitted on top; those over are dropped when they come on top.
	waiting := &waitHeap[wait]{less: func(a, b wait) bool { return before(a.idx, b.idx) }}
	w := 0
	for _, i := range order {
		t := ot.recs[i].Start
		for w < len(waits) && waits[w].from <= t {
			if waits[w].to > waits[w].from {
				waiting.push(waits[w])
			}
			w++
		}
		for waiting.len() > 0 && waiting.top().to <= t {
			waiting.pop()
		}
		want := waiting.len() > 0 && before(waiting.top().idx, i)
		if ot.recs[i].Backfilled != want {
			return fmt.Errorf("verify: job id %d: backfilled flag %v, but at its start at %d a job submitted before it was waiting: %v",
				c.jobs[i].Job.ID, ot.recs[i].Backfilled, t, want)
		}
	}
	return nil
}

// waitHeap is a binary min-heap of waits.
type waitHeap[T any] struct {
	items []T
	less  func(a, b T) bool
}

func (h *waitHeap[T]) len() int { return len(h.items) }
func (h *waitHeap[T]) top() T   { return h.items[0] }

func (h *waitHeap[T]) push(x T) {
	h.items = append(h.items, x)
	for i := len(h.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *waitHeap[T]) pop() {
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < last && h.less(h.items[l], h.items[m]) {
			m = l
		}
		if r < last && h.less(h.items[r], h.items[m]) {
			m = r
		}
		if m == i {
			return
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}
