package sdk

// Watch follows whether one job's tasks fit on a copy of some nodes as
// other jobs take and give back what they hold there, at the cost of the
// nodes they touch: a policy looking for the time a job fits, giving back
// running jobs one after the other (EASY's shadow time), asks Fits after
// each without a pass over every node.
type Watch struct {
	layout *Layout
	t      *Tasks
	rule   Placement
	exact  bool // Fits needs no placement to answer
	// free is what each node has free as the watch sees it, and fit what
	// each node of the partition can take of t (0 elsewhere).
	free []Amount
	fit  []int64
	// sum is what the nodes take in all, without a node count; with one,
	// lo and hi count the nodes that take the smaller and the larger of
	// the balanced shares.
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
// free.
func (w *Watch) Reset(n *Nodes, t *Tasks, rule Placement) {
	l := n.Layout
	w.layout, w.t, w.rule = l, t, rule
	w.exact = (rule == FirstFit || rule == BestFit) && l.maxNodes[t.Partition] == 0
	w.sum, w.lo, w.hi, w.q = 0, 0, 0, 0
	if t.Nodes > 0 {
		w.q = int64(t.Count / t.Nodes)
	}
	w.free = append(w.free[:0], n.Free...)
	if w.withheld > 0 {
		clear(w.off)
		w.withheld = 0
	}
	if cap(w.fit) >= l.Len() {
		w.fit = w.fit[:l.Len()]
		clear(w.fit)
	} else {
		w.fit = make([]int64, l.Len())
	}
	for _, k := range l.parts[t.Partition] {
		w.set(k, w.fitOf(k))
	}
}

// FreeInPartition returns what the nodes of the watched tasks' partition
// have free in all, as the watch sees them.
func (w *Watch) FreeInPartition() Amount {
	var all Amount
	for _, k := range w.layout.parts[w.t.Partition] {
		if w.withheld == 0 || w.off[k] == 0 {
			all.add(w.free[k])
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
	if len(w.off) < w.layout.Len() {
		w.off = make([]int32, w.layout.Len())
	}
	w.off[k]++
	if w.off[k] == 1 {
		w.withheld++
		w.update(k)
	}
}

// Restore undoes one Withhold of node k.
func (w *Watch) Restore(k int32) {
	w.off[k]--
	if w.off[k] == 0 {
		w.withheld--
		w.update(k)
	}
}

// Withheld reports whether node k is withheld.
func (w *Watch) Withheld(k int32) bool { return w.withheld > 0 && w.off[k] > 0 }

// SetFree sets what node k has free, as the watch sees it: a node coming
// back into service.
func (w *Watch) SetFree(k int32, a Amount) {
	w.free[k] = a
	w.update(k)
}

// Free returns what node k has free as the watch sees it, withheld or
// not.
func (w *Watch) Free(k int32) Amount { return w.free[k] }

// Take takes what a job of tasks t2 holds on allocation a from the watched
// nodes.
func (w *Watch) Take(t2 *Tasks, a Alloc) {
	for i, k := range a.Nodes {
		w.free[k].sub(w.layout.Held(t2, k, a.Tasks[i]))
		w.update(k)
	}
}

// Release gives back what a job of tasks t2 holds on allocation a.
func (w *Watch) Release(t2 *Tasks, a Alloc) {
	for i, k := range a.Nodes {
		w.free[k].add(w.layout.Held(t2, k, a.Tasks[i]))
		w.update(k)
	}
}

// update recomputes what node k takes, when it is of the partition.
func (w *Watch) update(k int32) {
	if w.layout.partBits[w.t.Partition][k/64]&(1<<(k%64)) != 0 {
		w.set(k, w.fitOf(k))
	}
}

// fitOf is Nodes.Fit on the watched nodes.
func (w *Watch) fitOf(k int32) int64 {
	if w.withheld > 0 && w.off[k] > 0 {
		return 0
	}
	return w.layout.fit(w.t, k, w.free[k])
}

// set records that node k takes x tasks.
func (w *Watch) set(k int32, x int64) {
	old := w.fit[k]
	w.fit[k] = x
	c := int64(w.t.Count)
	w.sum += min(x, c) - min(old, c)
	if w.q > 0 {
		w.lo += b2c(x >= w.q) - b2c(old >= w.q)
		w.hi += b2c(x > w.q) - b2c(old > w.q)
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
	if w.nodes == nil {
		w.nodes = &Nodes{}
	}
	w.nodes.Layout = w.layout
	w.nodes.Free = append(w.nodes.Free[:0], w.free...)
	if w.withheld > 0 {
		for k, n := range w.off {
			if n > 0 {
				w.nodes.Free[k] = Amount{}
			}
		}
	}
	w.nodes.reindex()
	return w.nodes.Place(t, w.rule, nil)
}
