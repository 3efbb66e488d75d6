package backfill

import "slices"

// The incremental calculations of an fsTree (fsTree.incremental), which
// give the factors calc gives from scratch (TestIncrementalFairShare,
// TestIncrementalMultifactorChangesNothing). On a trace of thousands of
// users, a calculation every PriorityCalcPeriod sorted the root's
// thousands of accounts (Fair Tree) or raised 2 to a power for every user
// (classic), most of multifactor's time; between two calculations only
// the users that ran move in the order, and only the users with jobs
// waiting have their factor read.

// sortLevel sorts Fair Tree's siblings s, an order left by the last
// calculation: insertion sort, about one comparison a sibling when few
// moved, and the general sort when many did. Any sort will do: siblings
// of equal keys rank alike whatever their order (fairTreeLevel).
func (t *fsTree) sortLevel(s []int) {
	budget := 4*len(s) + 16 // moves
	for i := 1; i < len(s); i++ {
		x := s[i]
		j := i
		for ; j > 0 && t.fairTreeCmp(x, s[j-1]) < 0; j-- {
			s[j] = s[j-1]
			budget--
		}
		s[j] = x
		if budget < 0 {
			slices.SortFunc(s, t.fairTreeCmp)
			return
		}
	}
}

// factor is user node k's fair-share factor as of the last calculation.
func (t *fsTree) factor(k int) float64 {
	if t.incremental && !t.fairTree {
		t.classicAt(k)
	}
	return t.nodes[k].fs
}

// classicAt computes node k's classic factor for the last calculation
// unless it has, its ancestors' first (calcClassic's order).
func (t *fsTree) classicAt(k int) {
	if t.nodes[k].at == t.epoch {
		return
	}
	t.classicAt(t.nodes[k].parent) // the root's is set by calc
	t.classicNode(k)
	t.nodes[k].at = t.epoch
}

// settle computes the classic factors of the last calculation not read
// yet, before the tree changes (a node added changes its siblings' level
// shares).
func (t *fsTree) settle() {
	if !t.incremental || t.fairTree {
		return
	}
	for k := 1; k < len(t.nodes); k++ {
		t.classicAt(k)
	}
}
