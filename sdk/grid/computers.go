package grid

import (
	"cmp"
	"fmt"
	"slices"
)

// Slots says how a market sees a cluster's processors.
//
// The paper plans and prices per computer (section 6: an allocation is N
// processor nodes, each free on one interval; the price PR(t) is a
// computer's, set by the local job the forecast puts on that computer).
// A pool reading sees a cluster as a number of processors: at every moment
// an allocation takes the cheapest processors available then, as if its
// job could move from one processor to another while it runs, so it may
// cost less than any fixed set of computers would; and the ship rule's
// condition (1) is read over the whole cluster.
type Slots string

// The readings of a cluster's processors.
const (
	// SlotsPool sees each cluster as one pool of processors (our first
	// reading, the default of grid-lookahead).
	SlotsPool Slots = "pool"
	// SlotsComputer sees each processor as a computer with its own slot
	// timeline, as the paper does: an allocation holds the same computers
	// throughout, its cost is the sum of their prices over its interval,
	// and condition (1) looks only at the local jobs forecast on its
	// computers. Which computer each running job, reservation and forecast
	// slot is on is our rule (see NewMarketOf): in order of start, the
	// lowest-numbered computers free then.
	SlotsComputer Slots = "computer"
)

// SlotReadings lists the readings, for a policy parameter's choices.
func SlotReadings() []string { return []string{string(SlotsPool), string(SlotsComputer)} }

// span is what a computer does over [from, to): run or hold a job (hard:
// nobody can buy it) or a forecast slot at a price.
type span struct {
	from, to int64
	price    float64
	hard     bool
}

// pcmarket is one cluster's forecast as computers.
type pcmarket struct {
	idle float64
	// spans holds each computer's spans in order of time; they do not
	// overlap. taken holds the allocations taken in the cycle (Take).
	spans [][]span
	taken [][]span
	buf   []choice
}

// item is a job of a forecast to place on computers.
type item struct {
	from, to int64
	n        int64
	price    float64
	hard     bool
	kind     int // 0 running, 1 reservation, 2 forecast slot: the order of equal starts
	order    int
}

// newPCMarket assigns cluster's forecast f to its capacity computers and
// prices its slots (scale x priority per second; idle ones at idle). The
// assignment is our rule: in order of start (running jobs, then held
// reservations, then forecast slots; each in the forecast's order), each
// job takes the lowest-numbered computers free at its start. The forecast
// fits in the cluster's processors at every moment (the local plan is made
// beside what is running and held), so this never runs short; should it,
// the job takes the computers that are free.
func newPCMarket(capacity int64, f Forecast, scale, idle float64) *pcmarket {
	now := f.At
	var its []item
	for _, r := range f.Running {
		if r.ExpectedEnd > now {
			its = append(its, item{from: now, to: r.ExpectedEnd, n: r.Job.Request[0], hard: true, kind: 0, order: len(its)})
		}
	}
	for _, h := range f.Holds {
		if h.End > now {
			its = append(its, item{from: max(h.At, now), to: h.End, n: h.Job.Request[0], hard: true, kind: 1, order: len(its)})
		}
	}
	for _, sl := range f.Slots {
		its = append(its, item{from: sl.Start, to: sl.End, n: sl.Job.Request[0], price: scale * max(sl.Priority, 0), kind: 2, order: len(its)})
	}
	slices.SortStableFunc(its, func(a, b item) int {
		if c := cmp.Compare(a.from, b.from); c != 0 {
			return c
		}
		return cmp.Compare(a.kind, b.kind)
	})
	m := &pcmarket{idle: idle, spans: make([][]span, capacity), taken: make([][]span, capacity)}
	busy := make([]int64, capacity) // each computer's end of its last span
	for _, it := range its {
		left := it.n
		for k := range busy {
			if left == 0 {
				break
			}
			if busy[k] <= it.from {
				m.spans[k] = append(m.spans[k], span{from: it.from, to: it.to, price: it.price, hard: it.hard})
				busy[k] = it.to
				left--
			}
		}
	}
	return m
}

// cost returns what computer k costs over [t, t+w), and false when it is
// not available throughout (running, held or taken); it counts one
// operation per span it looks at.
func (m *pcmarket) cost(k int, t, w int64, ops *int64) (float64, bool) {
	end := t + w
	for _, s := range m.taken[k] {
		*ops++
		if s.from < end && s.to > t {
			return 0, false
		}
	}
	sp := m.spans[k]
	i, _ := slices.BinarySearchFunc(sp, t, func(s span, t int64) int {
		if s.to <= t {
			return -1
		}
		return 1
	})
	total, covered := 0.0, int64(0)
	for ; i < len(sp) && sp[i].from < end; i++ {
		*ops++
		if sp[i].hard {
			return 0, false
		}
		d := min(sp[i].to, end) - max(sp[i].from, t)
		total += sp[i].price * float64(d)
		covered += d
	}
	return total + m.idle*float64(w-covered), true
}

// choice is a computer and what it costs.
type choice struct {
	k    int
	cost float64
}

// at returns the procs cheapest computers available over [t, t+w) (ties to
// the lower number) and their cost, and false when fewer are available.
// The computers it returns are valid until the next call.
func (m *pcmarket) at(procs, t, w int64, ops *int64) ([]choice, float64, bool) {
	m.buf = m.buf[:0]
	for k := range m.spans {
		if c, ok := m.cost(k, t, w, ops); ok {
			m.buf = append(m.buf, choice{k, c})
		}
	}
	if int64(len(m.buf)) < procs {
		return nil, 0, false
	}
	slices.SortStableFunc(m.buf, func(a, b choice) int { return cmp.Compare(a.cost, b.cost) })
	total := 0.0
	for _, c := range m.buf[:procs] {
		total += c.cost
	}
	return m.buf[:procs], total, true
}

// search finds the earliest start, no earlier than from, at which procs
// computers can be bought for w seconds at a total of at most payment.
//
// Candidate starts are from and every time where a span of some computer
// begins or ends, and those times less w. Between two candidates each
// computer is available or not throughout, at a cost linear in the start,
// and a candidate has at least the computers available between it and its
// neighbours. The sum of the procs cheapest of linear costs is concave, so
// once a candidate is affordable and the one before was available but too
// dear, the earliest affordable second lies between them, after the
// earlier one, and is found by bisection.
func (m *pcmarket) search(procs, w, from int64, payment float64, ops *int64) (Allocation, bool) {
	cands := []int64{from}
	add := func(t int64) {
		if t > from {
			cands = append(cands, t)
		}
		if t-w > from {
			cands = append(cands, t-w)
		}
	}
	for k := range m.spans {
		for _, s := range m.spans[k] {
			add(s.from)
			add(s.to)
		}
		for _, s := range m.taken[k] {
			add(s.from)
			add(s.to)
		}
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	afford := func(t int64) bool {
		_, c, ok := m.at(procs, t, w, ops)
		return ok && c <= payment
	}
	prev, prevCost, havePrev := int64(0), 0.0, false
	for _, t := range cands {
		_, cost, ok := m.at(procs, t, w, ops)
		if !ok {
			havePrev = false
			continue
		}
		if cost > payment {
			prev, prevCost, havePrev = t, cost, true
			continue
		}
		if havePrev && prevCost > cost {
			lo, hi := prev, t
			for hi-lo > 1 {
				mid := lo + (hi-lo)/2
				if afford(mid) {
					hi = mid
				} else {
					lo = mid
				}
			}
			t = hi
		}
		cs, cost, _ := m.at(procs, t, w, ops)
		a := Allocation{Start: t, End: t + w, Cost: cost, Computers: make([]int, len(cs))}
		for i, c := range cs {
			a.Computers[i] = c.k
		}
		slices.Sort(a.Computers)
		return a, true
	}
	return Allocation{}, false
}

// take gives a's computers to its job over [a.Start, a.End).
func (m *pcmarket) take(a Allocation) {
	for _, k := range a.Computers {
		m.taken[k] = append(m.taken[k], span{from: a.Start, to: a.End, hard: true})
	}
}

// preceded reports condition (1) on a's computers: no forecast slot on
// them starts after now and before a.Start.
func (m *pcmarket) preceded(a Allocation, now int64) bool {
	for _, k := range a.Computers {
		for _, s := range m.spans[k] {
			if !s.hard && s.from > now && s.from < a.Start {
				return false
			}
		}
	}
	return true
}

// Preceded reports the ship rule's condition (1) for allocation a, which
// the market found at time now: every local job forecast to start before
// a.Start on its processors has started. On a pool (SlotsPool) the
// processors are not told apart and every forecast slot of the cluster
// counts (PrecededAll over forecast, the cluster's slots); on computers,
// only those on a's computers.
func (m *Market) Preceded(a Allocation, forecast []Slot, now int64) bool {
	if m.slots == SlotsComputer {
		return m.computers[a.Cluster].preceded(a, now)
	}
	return PrecededAll(forecast, now, a.Start)
}

// checkSlots returns an error for an unknown reading.
func checkSlots(s Slots) error {
	if s != SlotsPool && s != SlotsComputer {
		return fmt.Errorf("grid: unknown slots reading %q (want one of %v)", string(s), SlotReadings())
	}
	return nil
}
