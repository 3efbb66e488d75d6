package sdk

import (
	"fmt"
	"slices"
)

// Nodes is the state of a cluster's nodes: what each has free. The engine
// shows one per cluster of nodes (State.Nodes); a policy that looks ahead
// keeps a copy of its own (CopyFrom, or a Sandbox) and takes and releases
// allocations on it. Its methods are not safe for concurrent use.
type Nodes struct {
	Layout *Layout
	// Free is what each node has free, by node index. Read it freely;
	// change it only through SetFree, Take and Release, which keep the
	// index placement searches by.
	Free []Amount
	// whole and some are bitsets of the nodes wholly free and of those
	// with a free core: placement looks only at those an exclusive job
	// (whole) or a shared one (some) may use, a word of 64 nodes at a
	// time, so that a busy machine of thousands of nodes costs little.
	// nonzero marks the nodes with anything free (a core, memory or a
	// GPU): what a sum of the free amounts reads.
	whole, some, nonzero []uint64
	// cand and fits are scratch space for placements.
	cand []int32
	fits []int64
	// limit, while PlaceWithin runs, bounds the room of every node.
	limit *Nodes
	// changed logs the nodes SetFree changed since ClearChanged, marked
	// in logged; epoch counts the calls of ClearChanged.
	changed []int32
	logged  []bool
	epoch   uint64
	// ver counts the changes of the bitsets; counts caches, by partition
	// and exclusive or not, how many nodes may take a task (candidates),
	// as of the ver it was counted at: a policy trying job after job in
	// one call asks it at every try, and the nodes change only at starts.
	ver    uint64
	counts []candCount
}

type candCount struct {
	ver uint64
	n   int
}

// reindex builds the bitsets from Free.
func (n *Nodes) reindex() {
	words := (len(n.Free) + 63) / 64
	n.whole = append(n.whole[:0], make([]uint64, words)...)
	n.some = append(n.some[:0], make([]uint64, words)...)
	n.nonzero = append(n.nonzero[:0], make([]uint64, words)...)
	for k := range n.Free {
		n.index(int32(k))
	}
}

// index updates the bitsets for node k.
func (n *Nodes) index(k int32) {
	n.ver++
	w, b := k/64, uint64(1)<<(k%64)
	f := n.Free[k]
	if f == n.Layout.caps[k] {
		n.whole[w] |= b
	} else {
		n.whole[w] &^= b
	}
	if f.Cores > 0 {
		n.some[w] |= b
	} else {
		n.some[w] &^= b
	}
	if f != (Amount{}) {
		n.nonzero[w] |= b
	} else {
		n.nonzero[w] &^= b
	}
}

// SetFree sets what node k has free and logs the change (see Changed).
// The engine changes the nodes it shows this way.
func (n *Nodes) SetFree(k int32, a Amount) {
	n.Free[k] = a
	n.index(k)
	if n.logged == nil {
		n.logged = make([]bool, len(n.Free))
	}
	if !n.logged[k] {
		n.logged[k] = true
		n.changed = append(n.changed, k)
	}
}

// Changed returns the nodes SetFree changed since the last ClearChanged:
// on the nodes the engine shows, those changed since the previous
// Schedule call. The caller must not change it.
func (n *Nodes) Changed() []int32 { return n.changed }

// ClearChanged empties the log of changed nodes. The engine calls it on
// the nodes it shows when a Schedule call returns.
func (n *Nodes) ClearChanged() {
	for _, k := range n.changed {
		n.logged[k] = false
	}
	n.changed = n.changed[:0]
	n.epoch++
}

// CopyFrom makes n a copy of what m has free, reusing n's memory (its log
// of changes is not copied).
func (n *Nodes) CopyFrom(m *Nodes) {
	n.Layout = m.Layout
	n.Free = append(n.Free[:0], m.Free...)
	n.whole = append(n.whole[:0], m.whole...)
	n.some = append(n.some[:0], m.some...)
	n.nonzero = append(n.nonzero[:0], m.nonzero...)
	n.ver++
}

// copyNode makes node k of n what it is in m.
func (n *Nodes) copyNode(m *Nodes, k int32) {
	n.Free[k] = m.Free[k]
	n.index(k)
}

// Fit returns how many tasks of t node k can take now: 0 when the node
// lacks a feature of t, or when t is exclusive and the node not wholly
// free. It does not look at partitions.
func (n *Nodes) Fit(t *Tasks, k int32) int64 { return n.Layout.fit(t, k, n.Free[k]) }

// fit returns how many tasks of t node k takes with f free: what Nodes.Fit
// and Watch.fitOf compute, on their own copies of the nodes' free amounts.
func (l *Layout) fit(t *Tasks, k int32, f Amount) int64 {
	if l.feat[k]&t.Features != t.Features {
		return 0
	}
	if t.Exclusive && f != l.caps[k] {
		return 0
	}
	x := f.Cores
	if t.Cores != 1 {
		x /= int64(t.Cores)
	}
	if t.Memory > 0 {
		x = min(x, f.Memory/t.Memory)
	}
	if t.GPUs > 0 {
		x = min(x, f.GPUs/int64(t.GPUs))
	}
	return x
}

// Fits reports whether tasks t can be placed now by the cluster's
// placement rule (Place would succeed).
func (n *Nodes) Fits(t *Tasks) bool { return n.Place(t, n.Layout.Rule(), nil) }

// CheckAlloc reports why a job of tasks t cannot start now on allocation
// a: nodes out of order or outside its partition, a node count other than
// the job's or over the partition's limit, tasks that do not add up, or a
// node without room for its share. Nil means Take may follow.
func (n *Nodes) CheckAlloc(t *Tasks, a Alloc) error {
	l := n.Layout
	part := l.parts[t.Partition]
	switch {
	case len(a.Nodes) == 0 || len(a.Nodes) != len(a.Tasks):
		return fmt.Errorf("an allocation of %d nodes and %d task counts", len(a.Nodes), len(a.Tasks))
	case t.Nodes > 0 && len(a.Nodes) != int(t.Nodes):
		return fmt.Errorf("an allocation of %d nodes for a job of %d", len(a.Nodes), t.Nodes)
	case l.maxNodes[t.Partition] > 0 && len(a.Nodes) > int(l.maxNodes[t.Partition]):
		return fmt.Errorf("an allocation of %d nodes, over the partition's limit of %d", len(a.Nodes), l.maxNodes[t.Partition])
	}
	var sum int64
	for i, k := range a.Nodes {
		switch {
		case k < 0 || int(k) >= len(l.caps):
			return fmt.Errorf("node %d of %d", k, len(l.caps))
		case i > 0 && k <= a.Nodes[i-1]:
			return fmt.Errorf("nodes not in increasing order (%d after %d)", k, a.Nodes[i-1])
		case a.Tasks[i] < 1:
			return fmt.Errorf("%d tasks on node %d", a.Tasks[i], k)
		}
		if _, in := slices.BinarySearch(part, k); !in {
			return fmt.Errorf("node %d is not in the job's partition", k)
		}
		if x := n.Fit(t, k); int64(a.Tasks[i]) > x {
			return fmt.Errorf("%d tasks on node %d, which has room for %d (free %d cores, %d bytes, %d GPUs; exclusive %v)",
				a.Tasks[i], k, x, n.Free[k].Cores, n.Free[k].Memory, n.Free[k].GPUs, t.Exclusive)
		}
		sum += int64(a.Tasks[i])
	}
	if sum != int64(t.Count) {
		return fmt.Errorf("an allocation of %d tasks for a job of %d", sum, t.Count)
	}
	return nil
}

// Take takes what a job of tasks t holds on allocation a from the free
// nodes, and returns the total taken. It does not check (see CheckAlloc).
func (n *Nodes) Take(t *Tasks, a Alloc) Amount {
	var all Amount
	for i, k := range a.Nodes {
		h := n.Layout.Held(t, k, a.Tasks[i])
		n.Free[k].sub(h)
		n.index(k)
		all.add(h)
	}
	return all
}

// Release gives back what a job of tasks t holds on allocation a, and
// returns the total given back.
func (n *Nodes) Release(t *Tasks, a Alloc) Amount {
	var all Amount
	for i, k := range a.Nodes {
		h := n.Layout.Held(t, k, a.Tasks[i])
		n.Free[k].add(h)
		n.index(k)
		all.add(h)
	}
	return all
}
