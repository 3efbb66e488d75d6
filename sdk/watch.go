package sdk

import "math/bits"

// Watch follows whether one job's tasks fit on some nodes as other jobs
// take and give back what they hold there, at the cost of the nodes they
// touch: a policy looking for the time a job fits, giving back running
// jobs one after the other (EASY's shadow time), asks Fits after each
// without a pass over every node. Starting to watch costs a pass over the
// words of the nodes' bitsets, not over every node, and View does not copy
// the nodes either.
type Watch struct {
	layout *Layout
	// base is what the watch started from (n in View, own after Reset);
	// node k has over[k] free as the watch sees it when mark[k] == gen,
	// else base.Free[k]. touched lists the nodes so marked.
	base    *Nodes
	own     Nodes
	over    []Amount
	mark    []uint32
	gen     uint32
	touched []int32
	t       *Tasks
	// wholeFit is what a wholly free node of each group takes of t, and
	// inPart says which groups are of t's partition.
	wholeFit []int64
	inPart   []bool
	// lazy are the allocations of exclusive jobs Release gave back or
	// Take took, counted without yet writing their nodes (materialize
	// does), lazyFree what that adds to the partition's free amount.
	lazy     []lazyAlloc
	lazyFree Amount
	rule     Placement
	exact    bool // Fits needs no placement to answer
	// sum is what the nodes of the partition take of t in all, without a
	// node count; with one, lo and hi count the nodes that take the
	// smaller and the larger of the balanced shares.
	sum, lo, hi int64
	q           int64
	nodes       *Nodes // for Fits when the counts do not decide
	// off counts, per node, the Withhold calls not yet undone; withheld
	// counts the nodes with any. Nil until a node is withheld, so that a
	// watch that withholds nothing pays nothing for it.
	off      []int32
	withheld int
}

// Reset makes w watch tasks t, placed by rule, on a copy of what n has
// free: n may change afterwards without changing what w sees.
func (w *Watch) Reset(n *Nodes, t *Tasks, rule Placement) {
	w.own.CopyFrom(n)
	w.View(&w.own, t, rule)
}

// View makes w watch tasks t, placed by rule, on what n has free, read in
// place rather than copied: w keeps what it is told of (Take, Release,
// SetFree) to itself, and n must not change until w is made to watch
// something else.
func (w *Watch) View(n *Nodes, t *Tasks, rule Placement) {
	l := n.Layout
	w.layout, w.base, w.t, w.rule = l, n, t, rule
	w.exact = (rule == FirstFit || rule == BestFit) && l.maxNodes[t.Partition] == 0
	w.sum, w.lo, w.hi, w.q = 0, 0, 0, 0
	if t.Nodes > 0 {
		w.q = int64(t.Count / t.Nodes)
	}
	if len(w.mark) != l.Len() {
		w.mark = make([]uint32, l.Len())
		w.over = make([]Amount, l.Len())
		w.gen = 0
	}
	w.nextGen()
	w.lazy, w.lazyFree = w.lazy[:0], Amount{}
	if w.withheld > 0 {
		clear(w.off)
		w.withheld = 0
	}
	// A node wholly free takes what its group's first node takes when
	// wholly free (nodes of a group are alike, features included); one
	// without a free core takes nothing (every task needs a core); only
	// the others are looked at one by one.
	w.wholeFit, w.inPart = w.wholeFit[:0], w.inPart[:0]
	for g := range len(l.first) - 1 {
		w.wholeFit = append(w.wholeFit, l.fit(t, l.first[g], l.caps[l.first[g]]))
		w.inPart = append(w.inPart, false)
	}
	for _, g := range l.partGroups[t.Partition] {
		w.inPart[g] = true
		lo, hi := l.first[g], l.first[g+1]
		if c := int64(countRange(n.whole, lo, hi)); c > 0 {
			w.addFit(w.wholeFit[g], c)
		}
	}
	part := l.partBits[t.Partition]
	for i, word := range part {
		for x := word & n.some[i] &^ n.whole[i]; x != 0; x &= x - 1 {
			k := int32(i*64 + bits.TrailingZeros64(x))
			w.addFit(l.fit(t, k, n.Free[k]), 1)
		}
	}
}

// Commit writes what w was told (Take, Release, SetFree) into the nodes
// it views, which then have free what w sees (withheld nodes keep what
// they have): a policy that keeps its own nodes at a time ahead, moved
// by a watch from one call to the next, makes the move its own. The
// nodes must be the policy's own (a Nodes of its own, not a Sandbox's or
// the engine's). w goes on watching them as they now are.
func (w *Watch) Commit() {
	w.materialize()
	for _, k := range w.touched {
		w.base.Free[k] = w.over[k]
		w.base.index(k)
	}
	w.nextGen()
}

// nextGen forgets every node the watch changed: their marks are of an
// older generation.
func (w *Watch) nextGen() {
	w.touched = w.touched[:0]
	w.gen++
	if w.gen == 0 { // wrapped: no mark may look current
		clear(w.mark)
		w.gen = 1
	}
}

// countRange counts the bits of set in [lo, hi).
func countRange(set []uint64, lo, hi int32) int {
	c := 0
	for lo < hi {
		i, b := lo/64, lo%64
		m := ^uint64(0) << b
		if end := (i + 1) * 64; hi < end {
			m &= ^uint64(0) >> (end - hi)
		}
		c += bits.OnesCount64(set[i] & m)
		lo = (i + 1) * 64
	}
	return c
}

// free returns what node k has free as the watch sees it, withheld or not.
func (w *Watch) free(k int32) Amount {
	if w.mark[k] == w.gen {
		return w.over[k]
	}
	return w.base.Free[k]
}

// setFree records that node k has a free, as the watch sees it.
func (w *Watch) setFree(k int32, a Amount) {
	if w.mark[k] != w.gen {
		w.mark[k] = w.gen
		w.touched = append(w.touched, k)
	}
	w.over[k] = a
}

// FreeInPartition returns what the nodes of the watched tasks' partition
// have free in all, as the watch sees them, withheld nodes left out.
func (w *Watch) FreeInPartition() Amount {
	l, n, p := w.layout, w.base, w.t.Partition
	part := l.partBits[p]
	var all Amount
	for _, g := range l.partGroups[p] {
		lo, hi := l.first[g], l.first[g+1]
		all.add(l.caps[lo].times(int64(countRange(n.whole, lo, hi))))
	}
	// Nodes without a free core still count what memory and GPUs they
	// have free; nodes with nothing free count nothing.
	for i, word := range part {
		for x := word &^ n.whole[i] & n.nonzero[i]; x != 0; x &= x - 1 {
			all.add(n.Free[i*64+bits.TrailingZeros64(x)])
		}
	}
	for _, k := range w.touched {
		if l.InPartition(p, k) {
			all.add(w.over[k])
			all.sub(n.Free[k])
		}
	}
	all.add(w.lazyFree)
	if w.withheld > 0 {
		for k, c := range w.off {
			if c > 0 && l.InPartition(p, int32(k)) {
				all.sub(w.free(int32(k)))
			}
		}
	}
	return all
}

// Withhold makes node k count as having nothing free, for Fits and
// FreeInPartition, until as many Restore calls undo it: a policy sets
// aside a node that a maintenance window makes unusable for the watched
// job at the time it asks about. What jobs take and give back there is
// still followed meanwhile.
func (w *Watch) Withhold(k int32) {
	w.materialize()
	if len(w.off) < w.layout.Len() {
		w.off = make([]int32, w.layout.Len())
	}
	old := w.fitOf(k)
	w.off[k]++
	if w.off[k] == 1 {
		w.withheld++
		w.refit(k, old)
	}
}

// Restore undoes one Withhold of node k.
func (w *Watch) Restore(k int32) {
	w.materialize()
	old := w.fitOf(k)
	w.off[k]--
	if w.off[k] == 0 {
		w.withheld--
		w.refit(k, old)
	}
}

// Withheld reports whether node k is withheld.
func (w *Watch) Withheld(k int32) bool { return w.withheld > 0 && w.off[k] > 0 }

// SetFree sets what node k has free, as the watch sees it: a node coming
// back into service.
func (w *Watch) SetFree(k int32, a Amount) {
	w.materialize()
	old := w.fitOf(k)
	w.setFree(k, a)
	w.refit(k, old)
}

// Free returns what node k has free as the watch sees it, withheld or
// not.
func (w *Watch) Free(k int32) Amount {
	w.materialize()
	return w.free(k)
}

// lazyAlloc is an exclusive job's allocation given back (sign 1) or
// taken (-1).
type lazyAlloc struct {
	a    Alloc
	sign int64
}

// Take takes what a job of tasks t2 holds on allocation a from the watched
// nodes. An exclusive job's nodes, wholly free, are left with nothing
// free, which is counted by group (a's slices must not change until w
// watches something else).
func (w *Watch) Take(t2 *Tasks, a Alloc) {
	if t2.Exclusive && w.withheld == 0 {
		w.byGroup(a, -1)
		return
	}
	w.materialize()
	for i, k := range a.Nodes {
		old := w.fitOf(k)
		f := w.free(k)
		f.sub(w.layout.Held(t2, k, a.Tasks[i]))
		w.setFree(k, f)
		w.refit(k, old)
	}
}

// Release gives back what a job of tasks t2 holds on allocation a. An
// exclusive job's nodes become wholly free, which is counted by group
// (a's slices must not change until w watches something else).
func (w *Watch) Release(t2 *Tasks, a Alloc) {
	if t2.Exclusive && w.withheld == 0 {
		w.byGroup(a, 1)
		return
	}
	w.materialize()
	for i, k := range a.Nodes {
		old := w.fitOf(k)
		f := w.free(k)
		f.add(w.layout.Held(t2, k, a.Tasks[i]))
		w.setFree(k, f)
		w.refit(k, old)
	}
}

// byGroup counts an exclusive job's nodes given back (sign 1) or taken
// (-1) group by group: alone on its nodes, it leaves them nothing free
// while it holds them, and them whole when it does not.
func (w *Watch) byGroup(a Alloc, sign int64) {
	l := w.layout
	for g, c := range l.groupRuns(a.Nodes) {
		if w.inPart[g] {
			w.addFit(w.wholeFit[g], sign*c)
			w.lazyFree.add(l.caps[l.first[g]].times(sign * c))
		}
	}
	w.lazy = append(w.lazy, lazyAlloc{a, sign})
}

// materialize writes the nodes of the lazy allocations, whose counts
// byGroup has already made.
func (w *Watch) materialize() {
	for _, z := range w.lazy {
		for _, k := range z.a.Nodes {
			f := w.free(k)
			f.add(w.layout.caps[k].times(z.sign))
			w.setFree(k, f)
		}
	}
	w.lazy, w.lazyFree = w.lazy[:0], Amount{}
}

// refit counts what node k takes now in place of old, when it is of the
// partition.
func (w *Watch) refit(k int32, old int64) {
	if !w.layout.InPartition(w.t.Partition, k) {
		return
	}
	w.addFit(old, -1)
	w.addFit(w.fitOf(k), 1)
}

// fitOf is Nodes.Fit on the watched nodes. The nodes a running job's
// start or end leaves without a free core or wholly free are the common
// cases, answered without dividing.
func (w *Watch) fitOf(k int32) int64 {
	if w.withheld > 0 && w.off[k] > 0 {
		return 0
	}
	f := w.free(k)
	switch {
	case f.Cores == 0:
		return 0
	case f == w.layout.caps[k]:
		return w.wholeFit[w.layout.group[k]]
	}
	return w.layout.fit(w.t, k, f)
}

// addFit counts c more (or, negative, fewer) nodes that take x tasks.
func (w *Watch) addFit(x, c int64) {
	w.sum += c * min(x, int64(w.t.Count))
	if w.q > 0 {
		w.lo += c * b2c(x >= w.q)
		w.hi += c * b2c(x > w.q)
	}
}

func b2c(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Fits reports whether the watched tasks can be placed now by the rule:
// from the counts alone under FirstFit and BestFit without a partition's
// node limit, where they decide it; else, when the counts allow it, by
// placing them.
func (w *Watch) Fits() bool {
	t := w.t
	var may bool
	if t.Nodes > 0 {
		may = w.lo >= int64(t.Nodes) && w.hi >= int64(t.Count%t.Nodes)
	} else {
		may = w.sum >= int64(t.Count)
	}
	if !may || w.exact {
		return may
	}
	w.materialize()
	if w.nodes == nil {
		w.nodes = &Nodes{}
	}
	w.nodes.CopyFrom(w.base)
	for _, k := range w.touched {
		w.nodes.Free[k] = w.over[k]
		w.nodes.index(k)
	}
	if w.withheld > 0 {
		for k, n := range w.off {
			if n > 0 {
				w.nodes.Free[k] = Amount{}
				w.nodes.index(int32(k))
			}
		}
	}
	return w.nodes.Place(t, w.rule, nil)
}
