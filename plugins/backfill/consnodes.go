package backfill

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// ReservationNodes is conservative's reading in which a reservation holds
// nodes: each waiting job is reserved an interval and a placement, the
// nodes and the tasks on each, at the earliest time the placement rule
// finds room on nodes that every running job (to its walltime) and every
// earlier reservation leave free for the whole interval; the job starts on
// exactly those nodes. A reservation that fits never meets a node taken by
// another job, so no promise is broken, on shared nodes, memory or nodes of
// several sizes too, where counting totals (ReservationCount) breaks some.
// Compression moves each reservation, in queue order, to the earliest room
// no later than it had, against every other reservation as it stands, so
// that the rooms of the reservations after it are kept.
const ReservationNodes = "nodes"

// nodeCons is conservative's state of a run under ReservationNodes.
type nodeCons struct {
	layout  *sdk.Layout
	rule    sdk.Placement
	scratch *sdk.Nodes
	// resv holds each waiting job's reservation by job index; byNode the
	// holdings (running jobs and reservations) on each node, steps each
	// node's usage made of them, and ends every holding's end, sorted.
	resv   map[int]*holding
	byNode [][]*holding
	steps  []usage
	ends   []int64
	// running holds the running jobs' holdings by job index: a
	// reservation that starts becomes one, unchanged.
	running map[int]*holding
	// kept says the holdings, steps, ends and totals are kept from the
	// previous call, to be brought up to date with what changed since
	// (keep) rather than made again from the state (remake), which cost
	// a sort of every node's holdings at every call. rebuild makes the
	// policy the plain reading its shortcuts must equal: the holdings
	// made again at every call, every reservation taken off and put back
	// in compression, every node's usage read over the whole interval
	// (TestConservativeNodesKeptEqualsRebuilt).
	kept    bool
	rebuild bool
	now     int64
	// keptCalls counts the calls keep brought up to date.
	keptCalls int64
	// totals counts the holdings' requests in the cluster's totals: a job
	// that does not fit them fits no node, which rules out most times at
	// the cost of a profile's search.
	totals   plan.Profile
	capacity sdk.Vector
	out      []sdk.Decision
	// outages are the holdings of the outages the policy knows of, each
	// a node's whole capacity; seen is a copy of them at the previous
	// call, which tells when one began or ended; replanned counts the
	// reservations an outage took nodes from, planned again.
	outages   []holding
	seen      []sdk.Outage
	replanned int64
	anyOutage bool
}

// holding is what a job holds, or will, on nodes over [from, to).
type holding struct {
	from, to int64
	job      *sdk.Job
	alloc    sdk.Alloc
}

func newNodeCons(plat *sdk.Platform) *nodeCons {
	l := sdk.NewLayout(plat, 0)
	return &nodeCons{layout: l, rule: l.Rule(), scratch: l.NewNodes(), resv: map[int]*holding{}, running: map[int]*holding{},
		byNode: make([][]*holding, l.Len()), steps: make([]usage, l.Len()), capacity: plat.Clusters[0].Capacity.Clone()}
}

// schedule is conservative's call under ReservationNodes: queue is the
// waiting jobs in queue order, compress whether reservations are to be
// compressed.
func (c *nodeCons) schedule(s *sdk.State, queue []*sdk.Job, compress bool) ([]sdk.Decision, error) {
	c.out = c.out[:0]
	now := s.Now
	c.now = now
	waiting := make(map[int]bool, len(queue))
	for _, j := range queue {
		waiting[j.Index] = true
	}
	// An outage that begins or ends changes the room of every
	// reservation, and takes nodes from some: the holdings are made again
	// then.
	if c.rebuild || !c.kept || !c.sameOutages(s) || !c.keep(s, waiting) {
		compress = c.remake(s, queue, waiting, compress)
	} else {
		c.keptCalls++
	}
	c.kept = true
	if compress {
		for _, j := range queue {
			h := c.resv[j.Index]
			if h == nil || h.from <= now {
				continue
			}
			// Where the totals have no room before h's time, no node
			// has: h stays, and its holdings on the nodes need not be
			// taken off and put back (most reservations, most calls).
			if !c.rebuild {
				c.reserveTotals(h, -1)
				early := c.totals.EarliestFitWithin(now, h.from-1, j.Request, j.Walltime) >= 0
				c.reserveTotals(h, 1)
				if !early {
					continue
				}
			}
			c.drop(h)
			if t, a, ok := c.earliest(j, now, h.from-1); ok {
				h.from, h.to, h.alloc = t, addSat(t, j.Walltime), a
			}
			c.add(h)
		}
	}
	for _, j := range queue {
		if c.resv[j.Index] != nil {
			continue
		}
		t, a, ok := c.earliest(j, now, math.MaxInt64-1)
		if !ok {
			if c.unbounded() {
				// It waits for a node whose return is not known (a failed
				// node, a drain of the policy's): no reservation, no
				// promise, until the next call.
				continue
			}
			return nil, fmt.Errorf("conservative: job id %d does not fit the cluster's nodes", j.ID)
		}
		h := &holding{from: t, to: addSat(t, j.Walltime), job: j, alloc: a}
		c.resv[j.Index] = h
		c.add(h)
		c.out = append(c.out, sdk.Promise(j, t))
	}
	wake := int64(math.MaxInt64)
	for _, j := range queue {
		h := c.resv[j.Index]
		switch {
		case h == nil:
		case h.from < now:
			return nil, fmt.Errorf("conservative: job id %d missed its reservation at %d", j.ID, h.from)
		case h.from == now:
			c.out = append(c.out, sdk.StartAlloc(j, 0, h.alloc))
			delete(c.resv, j.Index)
			c.running[j.Index] = h
		default:
			wake = min(wake, h.from)
		}
	}
	if wake != math.MaxInt64 {
		c.out = append(c.out, sdk.WakeAt(wake))
	}
	return c.out, nil
}

// remake makes the holdings again from s: the running jobs from the state,
// to their expected ends, the outages, and the reservations of the jobs
// still waiting, less those an outage takes nodes from, which are planned
// again (their promises may break). It returns whether reservations are
// to be compressed: compress, or an outage began or ended.
func (c *nodeCons) remake(s *sdk.State, queue []*sdk.Job, waiting map[int]bool, compress bool) bool {
	now := s.Now
	for idx := range c.resv {
		if !waiting[idx] {
			delete(c.resv, idx)
		}
	}
	for k := range c.byNode {
		c.byNode[k] = c.byNode[k][:0]
	}
	c.ends = c.ends[:0]
	c.totals.Reset(now, c.capacity)
	clear(c.running)
	for i := range s.Running {
		r := &s.Running[i]
		if r.Cluster != 0 || r.Alloc == nil {
			continue
		}
		// Kept past the call: the state's allocation may change.
		h := &holding{from: now, to: max(r.ExpectedEnd, now), job: r.Job, alloc: sdk.Alloc{Nodes: slices.Clone(r.Alloc.Nodes), Tasks: slices.Clone(r.Alloc.Tasks)}}
		c.running[r.Job.Index] = h
		c.put(h)
	}
	if !c.sameOutages(s) {
		// A node out of service or back in it changes the room every
		// reservation has.
		compress = true
		c.seen = c.seen[:0]
		for _, o := range s.Outages {
			if inEffect(s, &o) {
				o.Nodes = slices.Clone(o.Nodes)
				c.seen = append(c.seen, o)
			}
		}
	}
	c.outageHoldings(s)
	c.anyOutage = c.anyOutage || len(c.outages) > 0
	for i := range c.outages {
		c.put(&c.outages[i])
	}
	for _, j := range queue {
		h := c.resv[j.Index]
		if h != nil && c.hitByOutage(h) {
			delete(c.resv, j.Index)
			c.replanned++
		}
	}
	for _, h := range c.resv {
		c.put(h)
	}
	slices.Sort(c.ends)
	for k := range c.byNode {
		c.steps[k].build(c, int32(k), c.byNode[k])
	}
	return compress
}

// keep brings the holdings kept from the previous call up to date: the
// jobs that ended give back the rest of their holdings, the reservations
// of jobs no longer waiting go, and the totals move to now. Usage before
// now is left where it is (every question is about now or later) and
// trimmed as nodes are touched. It reports false, having changed
// nothing that remake does not make again, when the running jobs are not
// those it holds, to their expected ends: remake must then.
func (c *nodeCons) keep(s *sdk.State, waiting map[int]bool) bool {
	now := s.Now
	for _, done := range s.Completed {
		h := c.running[done.Job.Index]
		if done.Cluster != 0 || h == nil {
			return false
		}
		c.drop(h)
		delete(c.running, done.Job.Index)
	}
	for idx, h := range c.resv {
		if !waiting[idx] {
			c.drop(h)
			delete(c.resv, idx)
		}
	}
	n := 0
	for i := range s.Running {
		r := &s.Running[i]
		if r.Cluster != 0 || r.Alloc == nil {
			continue
		}
		n++
		h := c.running[r.Job.Index]
		if h == nil || h.to != max(r.ExpectedEnd, now) || !slices.Equal(h.alloc.Nodes, r.Alloc.Nodes) {
			return false
		}
	}
	if n != len(c.running) {
		return false
	}
	c.totals.Advance(now)
	// The ends up to now are never tried again.
	i, _ := slices.BinarySearch(c.ends, now+1)
	c.ends = c.ends[:copy(c.ends, c.ends[i:])]
	return true
}

// earliest returns the earliest time in [now, limit] at which j fits, and
// where: the nodes' free amounts over [t, t + walltime) are their
// capacities less the most the holdings on them take at any moment of it.
// Room only opens where a holding ends, so the times tried are now and
// the holdings' ends, from the first at which j's request fits the totals.
func (c *nodeCons) earliest(j *sdk.Job, now, limit int64) (int64, sdk.Alloc, bool) {
	var a sdk.Alloc
	t := now
	for {
		t = c.totals.EarliestFitWithin(t, limit, j.Request, j.Walltime)
		if t < 0 {
			return 0, sdk.Alloc{}, false
		}
		end := addSat(t, j.Walltime)
		for k := range c.byNode {
			free := c.layout.Cap(k)
			if c.rebuild {
				// The plain reading: the capacity less the most held,
				// nothing when that is less than nothing (a drained
				// node's running jobs and its outage both hold it).
				most := c.steps[k].most(t, end)
				free.Cores, free.Memory, free.GPUs = max(free.Cores-most.Cores, 0), max(free.Memory-most.Memory, 0), max(free.GPUs-most.GPUs, 0)
				c.scratch.SetFree(int32(k), free)
				continue
			}
			// A node where j cannot go (every core held at some moment;
			// for a job held whole, anything held) counts as having
			// nothing, told without the rest of the interval: a task
			// needs a core, and every holding holds some.
			stop := free.Cores
			if j.Tasks.Exclusive {
				stop = 1
			}
			if most, ok := c.steps[k].mostBelow(t, end, stop); ok {
				free.Cores, free.Memory, free.GPUs = free.Cores-most.Cores, max(free.Memory-most.Memory, 0), max(free.GPUs-most.GPUs, 0)
			} else {
				free = sdk.Amount{}
			}
			if c.scratch.Free[k] != free {
				c.scratch.SetFree(int32(k), free)
			}
		}
		if c.scratch.Place(j.Tasks, c.rule, &a) {
			return t, a, true
		}
		// The next time room may open: the first end after t.
		i, _ := slices.BinarySearch(c.ends, t+1)
		if i == len(c.ends) || c.ends[i] > limit {
			return 0, sdk.Alloc{}, false
		}
		t = c.ends[i]
	}
}

// put puts h on its nodes' lists (which remake builds the nodes' steps
// from), its end among the ends and its request in the totals; add puts
// it in the steps, the ends and the totals, and drop takes it off them.
// The lists serve remake only, which makes them again: add and drop leave
// them.
func (c *nodeCons) put(h *holding) {
	for _, k := range h.alloc.Nodes {
		c.byNode[k] = append(c.byNode[k], h)
	}
	if h.to != math.MaxInt64 {
		c.ends = append(c.ends, h.to)
	}
	c.reserveTotals(h, 1)
}

func (c *nodeCons) add(h *holding) {
	if h.to != math.MaxInt64 {
		i, _ := slices.BinarySearch(c.ends, h.to)
		c.ends = slices.Insert(c.ends, i, h.to)
	}
	c.reserveTotals(h, 1)
	for _, k := range h.alloc.Nodes {
		c.steps[k].trim(c.now)
		c.steps[k].change(h.from, h.to, c.held(h, k), 1)
	}
}

func (c *nodeCons) drop(h *holding) {
	for _, k := range h.alloc.Nodes {
		c.steps[k].trim(c.now)
		c.steps[k].change(max(h.from, c.now), h.to, c.held(h, k), -1)
	}
	if i, ok := slices.BinarySearch(c.ends, h.to); ok {
		c.ends = slices.Delete(c.ends, i, i+1)
	}
	c.reserveTotals(h, -1)
}

// reserveTotals counts h's request in the totals (sign 1) or takes it
// back (-1).
func (c *nodeCons) reserveTotals(h *holding, sign int) {
	if h.to <= h.from || h.job == nil {
		// An outage is left out of the totals: a drained node's running
		// jobs would count twice, and the totals must never say less is
		// free than the nodes have.
		return
	}
	if sign > 0 {
		// The holdings fit the nodes, so their requests fit the totals.
		_ = c.totals.Reserve(h.from, h.to-h.from, h.job.Request)
		return
	}
	c.totals.Unreserve(h.from, h.to-h.from, h.job.Request)
}

// usage is a node's usage as steps: at[i] to at[i+1] (the last for ever)
// the holdings take use[i]; before at[0], nothing.
type usage struct {
	at  []int64
	use []sdk.Amount
	ev  []usageEvent
}

type usageEvent struct {
	at int64
	d  sdk.Amount
}

// build makes the steps of node k's holdings hs.
func (u *usage) build(c *nodeCons, k int32, hs []*holding) {
	u.ev = u.ev[:0]
	for _, h := range hs {
		x := c.held(h, k)
		u.ev = append(u.ev, usageEvent{h.from, x}, usageEvent{h.to, sdk.Amount{Cores: -x.Cores, Memory: -x.Memory, GPUs: -x.GPUs}})
	}
	slices.SortFunc(u.ev, func(a, b usageEvent) int { return cmp.Compare(a.at, b.at) })
	u.at, u.use = u.at[:0], u.use[:0]
	var cur sdk.Amount
	for i, e := range u.ev {
		cur.Cores, cur.Memory, cur.GPUs = cur.Cores+e.d.Cores, cur.Memory+e.d.Memory, cur.GPUs+e.d.GPUs
		if i+1 < len(u.ev) && u.ev[i+1].at == e.at {
			continue
		}
		u.at, u.use = append(u.at, e.at), append(u.use, cur)
	}
}

// change adds x over [from, to) to the steps (sign 1), or takes it back
// (-1): the steps then give the usage build would give with the holding
// put on or taken off, and the same most. Building them again at each
// reservation made or moved cost conservative's compression a sort of
// the node's holdings each time (nodes_test's equivalence).
func (u *usage) change(from, to int64, x sdk.Amount, sign int64) {
	if to <= from {
		return
	}
	i := u.split(from)
	j := u.split(to)
	for k := i; k < j; k++ {
		v := &u.use[k]
		v.Cores, v.Memory, v.GPUs = v.Cores+sign*x.Cores, v.Memory+sign*x.Memory, v.GPUs+sign*x.GPUs
	}
	// The later first, so that i still names its step.
	u.merge(j)
	u.merge(i)
}

// trim forgets the steps that end by now, keeping the usage from now on:
// the step in force at now is the first.
func (u *usage) trim(now int64) {
	i, found := slices.BinarySearch(u.at, now)
	if !found {
		i--
	}
	if i > 0 {
		u.at, u.use = u.at[:copy(u.at, u.at[i:])], u.use[:copy(u.use, u.use[i:])]
	}
}

// split makes a step begin at t, with the usage in force there, and
// returns its index.
func (u *usage) split(t int64) int {
	i, found := slices.BinarySearch(u.at, t)
	if found {
		return i
	}
	var v sdk.Amount
	if i > 0 {
		v = u.use[i-1]
	}
	u.at, u.use = slices.Insert(u.at, i, t), slices.Insert(u.use, i, v)
	return i
}

// merge removes step i when it takes what the step before it takes
// (nothing, before the first), which leaves the usage as it was and keeps
// the steps from growing with every change.
func (u *usage) merge(i int) {
	if i >= len(u.at) {
		return
	}
	var prev sdk.Amount
	if i > 0 {
		prev = u.use[i-1]
	}
	if u.use[i] == prev {
		u.at, u.use = slices.Delete(u.at, i, i+1), slices.Delete(u.use, i, i+1)
	}
}

// most returns the most the holdings take of each resource at any moment
// of [from, to): the job holds the same amounts throughout, so each
// resource's maximum on its own is what bounds it.
func (u *usage) most(from, to int64) sdk.Amount {
	m, _ := u.mostBelow(from, to, math.MaxInt64)
	return m
}

// mostBelow is most, or false as soon as the holdings take stop cores or
// more at some moment of [from, to).
func (u *usage) mostBelow(from, to, stop int64) (sdk.Amount, bool) {
	i, found := slices.BinarySearch(u.at, from)
	if !found {
		i = max(i-1, 0)
	}
	var m sdk.Amount
	for ; i < len(u.at) && u.at[i] < to; i++ {
		x := u.use[i]
		if x.Cores >= stop {
			return m, false
		}
		m.Cores, m.Memory, m.GPUs = max(m.Cores, x.Cores), max(m.Memory, x.Memory), max(m.GPUs, x.GPUs)
	}
	return m, true
}

// held is what h holds on node k: an outage (no job) holds all of it.
func (c *nodeCons) held(h *holding, k int32) sdk.Amount {
	if h.job == nil {
		return c.layout.Cap(int(k))
	}
	for i, n := range h.alloc.Nodes {
		if n == k {
			return c.layout.Held(h.job.Tasks, k, h.alloc.Tasks[i])
		}
	}
	return sdk.Amount{}
}

// inEffect reports whether o is an outage of cluster 0 that has not ended
// at s.Now.
func inEffect(s *sdk.State, o *sdk.Outage) bool {
	return o.Cluster == 0 && (o.End < 0 || o.End > s.Now)
}

// sameOutages reports whether the outages of s in effect are those seen at
// the last call that made the holdings: none began or ended since.
func (c *nodeCons) sameOutages(s *sdk.State) bool {
	n := 0
	for i := range s.Outages {
		o := &s.Outages[i]
		if !inEffect(s, o) {
			continue
		}
		if n == len(c.seen) {
			return false
		}
		w := &c.seen[n]
		if o.Kind != w.Kind || o.Start != w.Start || o.End != w.End || !slices.Equal(o.Nodes, w.Nodes) {
			return false
		}
		n++
	}
	return n == len(c.seen)
}

// outageHoldings makes c.outages of the state's outages of cluster 0 in
// effect: each holds its nodes whole from now (or its start) to its end,
// for ever when the end is not known (a failure's repair, a drain of the
// policy's own).
func (c *nodeCons) outageHoldings(s *sdk.State) {
	c.outages = c.outages[:0]
	for i := range s.Outages {
		o := &s.Outages[i]
		if !inEffect(s, o) {
			continue
		}
		end := o.End
		if end < 0 {
			end = math.MaxInt64
		}
		var nodes []int32
		if len(o.Nodes) == 0 {
			nodes = make([]int32, c.layout.Len())
			for k := range nodes {
				nodes[k] = int32(k)
			}
		} else {
			// Kept past the call: the state's own may change.
			nodes = slices.Clone(o.Nodes)
		}
		a := sdk.Alloc{Nodes: nodes, Tasks: make([]int32, len(nodes))}
		c.outages = append(c.outages, holding{from: max(o.Start, s.Now), to: end, alloc: a})
	}
}

// hitByOutage reports whether an outage takes one of h's nodes during its
// interval.
func (c *nodeCons) hitByOutage(h *holding) bool {
	for i := range c.outages {
		o := &c.outages[i]
		if o.to <= h.from || o.from >= h.to {
			continue
		}
		for _, k := range h.alloc.Nodes {
			if slices.Contains(o.alloc.Nodes, k) {
				return true
			}
		}
	}
	return false
}

// counts returns, on a run with outages, the reservations planned again
// because an outage took their nodes.
func (c *nodeCons) counts() map[string]int64 {
	if !c.anyOutage {
		return nil
	}
	return map[string]int64{"replanned": c.replanned}
}

// unbounded reports whether some node is out of service with no known end.
func (c *nodeCons) unbounded() bool {
	for i := range c.outages {
		if c.outages[i].to == math.MaxInt64 {
			return true
		}
	}
	return false
}
