package sdk

import (
	"cmp"
	"math/bits"
	"slices"
)

// Place finds room for tasks t on the free nodes of its partition by rule
// and, when dst is not nil, writes it there (reusing dst's slices); it
// reports whether the tasks fit. It does not change n.
//
// Without a node count, the rule's nodes take, one after the other, as
// many tasks as fit on them until all are placed. With a node count N,
// the tasks are balanced: Count mod N nodes take ceil(Count/N) tasks, the
// others floor(Count/N), and the rule's nodes take the larger share while
// it is due and they hold it. FirstFit goes in node order; BestFit in
// increasing order of free cores, ties by index; Contiguous takes the
// run of consecutive nodes that starts lowest. Under a partition's
// MaxNodes, when the rule's nodes would be too many, the MaxNodes nodes
// with the most room take the tasks (ties in the rule's order). Each rule
// places the job whenever some placement of its kind exists (any nodes,
// balanced shares with a node count, consecutive nodes for Contiguous).
func (n *Nodes) Place(t *Tasks, rule Placement, dst *Alloc) bool {
	maxNodes := n.Layout.maxNodes[t.Partition]
	if maxNodes == 0 {
		maxNodes = 1 << 30
	}
	if dst != nil {
		dst.Nodes, dst.Tasks = dst.Nodes[:0], dst.Tasks[:0]
	}
	if t.Nodes > maxNodes {
		return false
	}
	switch rule {
	case Contiguous:
		return n.placeContiguous(t, maxNodes, dst)
	case BestFit:
		if dst == nil && maxNodes == 1<<30 {
			// Whether the tasks fit does not depend on the order then.
			return n.placeFirst(t, maxNodes, nil)
		}
		return n.placeBestFit(t, maxNodes, dst)
	default:
		return n.placeFirst(t, maxNodes, dst)
	}
}

// PlaceWithin is Place on nodes whose room is the lesser of what n and
// limit (nodes of the same layout) have free: where a job may run now
// without taking what a reservation holds later, when limit is the nodes
// as they will be then.
func (n *Nodes) PlaceWithin(t *Tasks, rule Placement, dst *Alloc, limit *Nodes) bool {
	n.limit = limit
	defer func() { n.limit = nil }()
	return n.Place(t, rule, dst)
}

// fit is Fit, bounded by limit's Fit while PlaceWithin runs.
func (n *Nodes) fit(t *Tasks, k int32) int64 {
	x := n.Fit(t, k)
	if n.limit != nil && x > 0 {
		x = min(x, n.limit.Fit(t, k))
	}
	return x
}

// word returns the w-th word of the bitset of the nodes of t's partition
// that may take one of its tasks: wholly free for an exclusive job, with a
// free core otherwise (and so in limit too, while PlaceWithin runs). A node
// outside it has no room for t; one inside may still have none.
func (n *Nodes) word(t *Tasks, w int) uint64 {
	mask := n.some
	if t.Exclusive {
		mask = n.whole
	}
	x := n.Layout.partBits[t.Partition][w] & mask[w]
	if n.limit != nil {
		lim := n.limit.some
		if t.Exclusive {
			lim = n.limit.whole
		}
		x &= lim[w]
	}
	return x
}

// candidates returns, in n.cand, the nodes of t's partition with room for
// one of its tasks, in index order.
func (n *Nodes) candidates(t *Tasks) []int32 {
	n.cand = n.cand[:0]
	for w := range n.Layout.partBits[t.Partition] {
		for x := n.word(t, w); x != 0; x &= x - 1 {
			k := int32(w*64 + bits.TrailingZeros64(x))
			if n.fit(t, k) > 0 {
				n.cand = append(n.cand, k)
			}
		}
	}
	return n.cand
}

// share hands out a job's tasks to nodes offered one after the other:
// all it can to each without a node count; with one, the balanced shares.
type share struct {
	rem    int64 // tasks left, without a node count
	q      int64 // the smaller balanced share
	hi, lo int32 // balanced shares still due: of q+1 tasks, of q
	nodes  bool  // with a node count
}

func newShare(t *Tasks) share {
	if t.Nodes > 0 {
		return share{q: int64(t.Count / t.Nodes), hi: t.Count % t.Nodes, lo: t.Nodes - t.Count%t.Nodes, nodes: true}
	}
	return share{rem: int64(t.Count)}
}

// take returns the tasks a node with room for x of them takes (0: none).
func (s *share) take(x int64) int64 {
	if !s.nodes {
		k := min(x, s.rem)
		s.rem -= k
		return k
	}
	switch {
	case x < s.q:
		return 0
	case s.hi > 0 && x > s.q:
		s.hi--
		return s.q + 1
	case s.lo > 0:
		s.lo--
		return s.q
	}
	return 0
}

func (s *share) done() bool { return s.rem == 0 && s.hi == 0 && s.lo == 0 }

// placeFirst places t on the nodes of its partition in index order, looking
// only at those that may take a task (Nodes.word), and stopping once it is
// placed.
func (n *Nodes) placeFirst(t *Tasks, maxNodes int32, dst *Alloc) bool {
	// Fewer nodes with room for a task than the job's node count is the
	// commonest failure (a wide job on a busy machine), told from the
	// bitsets without looking at a node.
	if t.Nodes > 0 && n.candidateCount(t) < int(t.Nodes) {
		return false
	}
	s := newShare(t)
	used := int32(0)
	for w := range n.Layout.partBits[t.Partition] {
		for x := n.word(t, w); x != 0; x &= x - 1 {
			k := int32(w*64 + bits.TrailingZeros64(x))
			take := s.take(n.fit(t, k))
			if take == 0 {
				continue
			}
			if used++; used > maxNodes {
				return n.placeCapped(t, n.candidates(t), maxNodes, dst)
			}
			if dst != nil {
				dst.Nodes = append(dst.Nodes, k)
				dst.Tasks = append(dst.Tasks, int32(take))
			}
			if s.done() {
				return true
			}
		}
	}
	return false
}

// candidateCount returns how many nodes of t's partition word admits (an
// upper bound on those that can take a task of t), counted again only
// when the nodes changed since (outside PlaceWithin, counted each time).
func (n *Nodes) candidateCount(t *Tasks) int {
	cache := n.limit == nil
	x := int(t.Partition) * 2
	if t.Exclusive {
		x++
	}
	if cache {
		if len(n.counts) != 2*len(n.Layout.parts) {
			n.counts = make([]candCount, 2*len(n.Layout.parts))
		}
		if c := n.counts[x]; c.ver == n.ver && c.ver != 0 {
			return c.n
		}
	}
	c := 0
	for w := range n.Layout.partBits[t.Partition] {
		c += bits.OnesCount64(n.word(t, w))
	}
	if cache {
		n.counts[x] = candCount{n.ver, c}
	}
	return c
}

// placeInOrder places t on the nodes of order, in that order; without a
// node count, when that needs more than maxNodes nodes, the maxNodes
// nodes with the most room take the tasks instead (placeCapped).
func (n *Nodes) placeInOrder(t *Tasks, order []int32, maxNodes int32, dst *Alloc) bool {
	s := newShare(t)
	used := int32(0)
	for _, k := range order {
		take := s.take(n.fit(t, k))
		if take == 0 {
			continue
		}
		if used++; used > maxNodes {
			return n.placeCapped(t, order, maxNodes, dst)
		}
		if dst != nil {
			dst.Nodes = append(dst.Nodes, k)
			dst.Tasks = append(dst.Tasks, int32(take))
		}
		if s.done() {
			return true
		}
	}
	return false
}

// placeCapped places t, which has no node count, on at most maxNodes of
// the nodes of order: those with the most room (ties in order), filled in
// order.
func (n *Nodes) placeCapped(t *Tasks, order []int32, maxNodes int32, dst *Alloc) bool {
	type room struct {
		pos int
		x   int64
	}
	var best []room
	for pos, k := range order {
		if x := n.fit(t, k); x > 0 {
			best = append(best, room{pos, x})
		}
	}
	slices.SortStableFunc(best, func(a, b room) int { return cmp.Compare(b.x, a.x) })
	best = best[:min(len(best), int(maxNodes))]
	var sum int64
	for _, r := range best {
		sum += r.x
	}
	if sum < int64(t.Count) {
		return false
	}
	if dst == nil {
		return true
	}
	slices.SortFunc(best, func(a, b room) int { return cmp.Compare(a.pos, b.pos) })
	dst.Nodes, dst.Tasks = dst.Nodes[:0], dst.Tasks[:0]
	rem := int64(t.Count)
	for _, r := range best {
		if rem == 0 {
			break
		}
		take := min(r.x, rem)
		dst.Nodes = append(dst.Nodes, order[r.pos])
		dst.Tasks = append(dst.Tasks, int32(take))
		rem -= take
	}
	if !slices.IsSorted(dst.Nodes) {
		sortAlloc(dst)
	}
	return true
}

// placeBestFit places t on the nodes of its partition in increasing order
// of free cores (ties by index), and sorts the allocation by node.
func (n *Nodes) placeBestFit(t *Tasks, maxNodes int32, dst *Alloc) bool {
	cand := n.candidates(t)
	slices.SortFunc(cand, func(a, b int32) int {
		if c := cmp.Compare(n.Free[a].Cores, n.Free[b].Cores); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	if !n.placeInOrder(t, cand, maxNodes, dst) {
		return false
	}
	if dst != nil {
		sortAlloc(dst)
	}
	return true
}

// placeContiguous places t on the lowest-starting run of consecutive
// nodes of its partition that holds it.
func (n *Nodes) placeContiguous(t *Tasks, maxNodes int32, dst *Alloc) bool {
	// Runs of consecutive nodes that take at least one task (at least
	// the smaller share, with a node count) are gathered from the
	// candidates, with what each takes in fits, and tried once complete.
	need := int64(1)
	if t.Nodes > 0 {
		need = int64(t.Count / t.Nodes)
	}
	cand := n.candidates(t)
	var run []int32
	n.fits = n.fits[:0]
	start := 0
	for i, k := range cand {
		x := n.fit(t, k)
		if x < need || (len(run) > 0 && run[len(run)-1] != k-1) {
			if n.tryRun(t, run, maxNodes, dst) {
				return true
			}
			run, n.fits = nil, n.fits[:0]
			start = i
		}
		if x >= need {
			if run == nil {
				start = i
			}
			run = cand[start : i+1]
			n.fits = append(n.fits, x)
		}
	}
	return n.tryRun(t, run, maxNodes, dst)
}

// tryRun places t on the run of consecutive nodes run (what each takes in
// n.fits): the window that starts lowest.
func (n *Nodes) tryRun(t *Tasks, run []int32, maxNodes int32, dst *Alloc) bool {
	fits := n.fits
	if len(run) == 0 {
		return false
	}
	if t.Nodes > 0 {
		w := int(t.Nodes)
		q := int64(t.Count / t.Nodes)
		hiNeed := int(t.Count % t.Nodes)
		his := 0 // nodes of the window that hold the larger share
		for b := range run {
			if fits[b] > q {
				his++
			}
			if b >= w && fits[b-w] > q {
				his--
			}
			if b >= w-1 && his >= hiNeed {
				if dst != nil {
					return n.placeInOrder(t, run[b-w+1:b+1], maxNodes, dst)
				}
				return true
			}
		}
		return false
	}
	rem := int64(t.Count)
	var sum int64
	b := 0
	for a := range run {
		for b < len(run) && sum < rem {
			sum += fits[b]
			b++
		}
		if sum < rem {
			return false
		}
		if int32(b-a) <= maxNodes {
			if dst != nil {
				for i := a; i < b; i++ {
					take := min(fits[i], rem)
					dst.Nodes = append(dst.Nodes, run[i])
					dst.Tasks = append(dst.Tasks, int32(take))
					rem -= take
				}
			}
			return true
		}
		sum -= fits[a]
	}
	return false
}

// sortAlloc orders an allocation by node.
func sortAlloc(a *Alloc) {
	for i := 1; i < len(a.Nodes); i++ {
		for j := i; j > 0 && a.Nodes[j] < a.Nodes[j-1]; j-- {
			a.Nodes[j], a.Nodes[j-1] = a.Nodes[j-1], a.Nodes[j]
			a.Tasks[j], a.Tasks[j-1] = a.Tasks[j-1], a.Tasks[j]
		}
	}
}
