package backfill

import (
	"math"
	"sort"

	"github.com/schedlab/schedlab/sdk"
)

// cursor is what EASY keeps from one call to the next on a platform of
// nodes: what the nodes will have free at a time at (the last shadow
// time), once every running job expected to end by then has ended. A
// call moves it from there to its own head's shadow time, back or
// forward, at the cost of the jobs whose expected ends lie between the
// two, where computing the shadow afresh gave back every running job
// expected to end before it (thousands on RICC, at every call a job
// ended). It holds, at every instant,
//
//	nodes = what is free now + what the running jobs with an expected end <= at hold
//
// and is kept so as jobs end (Completed) and start (easy.start).
type cursor struct {
	valid bool
	at    int64
	nodes sdk.Nodes
	avail sdk.Vector
}

// cursorOK reports whether the shadow may be computed from the cursor in
// this call: a platform of nodes on which nothing but jobs' starts and
// ends changes what is free (no outages, drains, power model or cap), and
// a reading of the reservation that needs no placement at the shadow
// time. Otherwise the shadow is computed afresh, and the cursor is built
// again when it may next be used.
func (p *easy) cursorOK(s *sdk.State) bool {
	r := &p.room
	return r.nodes != nil && !p.fresh && !p.batsched && p.drains == nil && p.saver == nil &&
		len(s.Outages) == 0 && s.Power == nil && len(r.down) == 0 && r.cap == 0
}

// cursorSync brings the cursor to what happened since the previous call:
// a job that ended after the cursor's time gives back what it held there
// too (one that ended by then was counted as given back already). A
// requeued or interrupted job (outages) makes the cursor invalid.
func (p *easy) cursorSync(s *sdk.State) {
	c := &p.cur
	if !c.valid {
		return
	}
	if !p.cursorOK(s) {
		c.valid = false
		return
	}
	for i := range s.Completed {
		d := &s.Completed[i]
		if d.Alloc == nil || d.Requeued || d.Interrupted != 0 {
			c.valid = false
			return
		}
		if d.Start+d.Job.Walltime > c.at {
			c.nodes.Release(d.Job.Tasks, *d.Alloc)
			c.avail.Add(p.room.heldBy(d.Job, *d.Alloc))
		}
	}
}

// cursorStarted notes that a job holding r started now: unless it is
// expected to end by the cursor's time, the cursor loses what it holds.
func (p *easy) cursorStarted(r *release) {
	if c := &p.cur; c.valid && r.at > c.at {
		c.nodes.Take(r.tasks, r.alloc)
		c.avail.Sub(r.held)
	}
}

// shadowByCursor is shadow's computation from the cursor (cursorOK, and
// a head that holds its request on any nodes, so that the extra capacity
// needs no placement): the shadow time is the earliest expected end of a
// running job or of a job started in this call after which the head fits
// (every job ending then given back), as shadow computes it. It leaves
// p.avail as shadow does, and the cursor at the shadow time.
func (p *easy) shadowByCursor(s *sdk.State, head *sdk.Job) int64 {
	c := &p.cur
	if !c.valid {
		c.nodes.CopyFrom(&p.room.nodes.Nodes)
		c.avail = append(c.avail[:0], p.room.free...)
		c.at, c.valid = math.MinInt64, true
	}
	w := &p.watch
	w.View(&c.nodes, head.Tasks, p.room.rule)
	p.avail = append(p.avail[:0], c.avail...)
	run, started := s.Running, p.now
	// run[:i] and started[:k] are given back in the watch.
	i := sort.Search(len(run), func(x int) bool { return run[x].ExpectedEnd > c.at })
	k := sort.Search(len(started), func(x int) bool { return started[x].at > c.at })
	fits := func() bool { return head.Request.Fits(p.avail) && w.Fits() }
	// give and take give back and take again the jobs ending at t among
	// run[i:] and started[k:], or run[:i] and started[:k], moving i and k.
	give := func(t int64) {
		for ; i < len(run) && run[i].ExpectedEnd == t; i++ {
			w.Release(run[i].Job.Tasks, *run[i].Alloc)
			p.avail.Add(p.room.heldBy(run[i].Job, *run[i].Alloc))
		}
		for ; k < len(started) && started[k].at == t; k++ {
			w.Release(started[k].tasks, started[k].alloc)
			p.avail.Add(started[k].held)
		}
	}
	take := func(t int64) {
		for ; i > 0 && run[i-1].ExpectedEnd == t; i-- {
			w.Take(run[i-1].Job.Tasks, *run[i-1].Alloc)
			p.avail.Sub(p.room.heldBy(run[i-1].Job, *run[i-1].Alloc))
		}
		for ; k > 0 && started[k-1].at == t; k-- {
			w.Take(started[k-1].tasks, started[k-1].alloc)
			p.avail.Sub(started[k-1].held)
		}
	}
	// next and prev are the first expected end ahead and the last one
	// given back (math.MaxInt64 and math.MinInt64 for none).
	next := func() int64 {
		t := int64(math.MaxInt64)
		if i < len(run) {
			t = run[i].ExpectedEnd
		}
		if k < len(started) {
			t = min(t, started[k].at)
		}
		return t
	}
	prev := func() int64 {
		t := int64(math.MinInt64)
		if i > 0 {
			t = run[i-1].ExpectedEnd
		}
		if k > 0 {
			t = max(t, started[k-1].at)
		}
		return t
	}
	shadow := int64(-1)
	fitted := fits()
	if fitted {
		// The head fits at the last expected end given back: go back
		// while it still fits one expected end earlier. Before the
		// first, nothing is given back, and the first is the shadow
		// time whether the head fits then or not, as shadow has it.
		for t := prev(); t != math.MinInt64; t = prev() {
			shadow = t
			take(t)
			if (i == 0 && k == 0) || !fits() {
				give(t)
				break
			}
		}
	}
	if shadow < 0 {
		for t := next(); t != math.MaxInt64; t = next() {
			give(t)
			if fitted || fits() {
				shadow = t
				break
			}
		}
	}
	c.at = shadow
	if shadow < 0 {
		c.at = math.MaxInt64 // every job given back
	} else {
		p.extraNodes = w.FreeInPartition()
	}
	w.Commit()
	c.avail = append(c.avail[:0], p.avail...)
	return shadow
}
