package groupsel

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// BranchAndBound solves the instance by depth-first branch and bound, an
// exact method independent of the rank approach, to check it. It fixes the
// variables in index order, 1 before 0, and keeps for every constraint the
// range its left-hand side can still reach and for the objective the most
// it can still reach (the active terms plus every positive term not yet
// excluded): a node whose objective bound is below the best found, or
// whose ranges exclude a bound, is pruned. Ties of the objective are never
// pruned, so the solution is the first in the same total order as Rank's.
func BranchAndBound(in *Instance, opts Options) (*Solution, error) {
	p, err := compile(in, opts)
	if err != nil {
		return nil, err
	}
	limit := opts.MaxNodes
	if limit <= 0 {
		limit = DefaultMaxNodes
	}
	s := newSearch(p, limit)
	s.best = p.greedy(s)
	s.dfs(0)
	if s.overflow {
		err := fmt.Errorf("%w: more than %d branch-and-bound nodes (Options.MaxNodes)", ErrBudget, limit)
		if s.best == nil {
			return nil, err
		}
		s.st.Workers = 1
		return stopped(in, s.best, s.st, s.pending), err
	}
	if s.best == nil {
		return nil, ErrInfeasible
	}
	s.st.Workers = 1
	return solution(in, s.best, s.st), nil
}

// search is the state of the branch and bound: per term, how many of its
// variables are 1 and whether one is 0; the objective and each constraint's
// left-hand side over the active terms, with what the open terms can still
// add.
type search struct {
	p       *problem
	ones    []int
	dead    []int // variables of the term fixed to 0
	set     []uint64
	value   float64 // active terms
	potObj  float64 // positive values of the open terms
	lhs     []float64
	lo, hi  []float64 // what the open terms can still add (<= 0, >= 0)
	scratch []float64
	// caps are the capacities with a knapsack bound: weight per term and
	// the terms of positive value by decreasing value per weight.
	caps     []int
	weight   [][]float64
	byRatio  [][]int
	best     *candidate
	st       Stats
	limit    int64
	overflow bool
	// pending bounds the subtrees left unexplored when the budget ran
	// out: the node where it did and the 0-branches above it.
	pending float64
	depth   int // the variables below it are fixed
}

// knapsackBound bounds the objective of any completion by a fractional
// knapsack over each capacity: the open terms of positive value, taken whole
// by decreasing value per unit of the capacity's residue and the last one
// in part. Terms that share variables cannot be taken more freely than as
// independent items, so each capacity's bound is valid; the least of them
// is returned.
func (s *search) knapsackBound() float64 {
	p := s.p
	best := math.Inf(1)
	for i := range s.weight {
		var room float64
		if i < len(s.caps) {
			room = p.bound[s.caps[i]] - s.lhs[s.caps[i]]
		} else { // the surrogate: the sum of the capacities' residues, scaled
			for _, c := range s.caps {
				room += (p.bound[c] - s.lhs[c]) / p.bound[c]
			}
		}
		b := s.value
		for _, t := range s.byRatio[i] {
			if s.dead[t] > 0 || s.ones[t] == len(p.terms[t]) {
				continue // closed, or counted in value
			}
			w := s.weight[i][t]
			if w <= room {
				room -= w
				b += p.obj[t]
				continue
			}
			b += p.obj[t] * room / w
			break
		}
		best = min(best, b)
	}
	return best
}

// byRatio lists the terms of positive value by value per unit of weight,
// largest first (weight 0 first); ties by index, so the bound is the same
// on every machine.
func byRatio(p *problem, w []float64) []int {
	var order []int
	for t := range p.terms {
		if p.obj[t] > 0 && len(p.terms[t]) > 0 {
			order = append(order, t)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(p.obj[b]*w[a], p.obj[a]*w[b])
	})
	return order
}

func newSearch(p *problem, limit int64) *search {
	m := len(p.bound)
	s := &search{p: p, ones: make([]int, len(p.terms)), dead: make([]int, len(p.terms)), set: make([]uint64, (p.n+63)/64),
		lhs: make([]float64, m), lo: make([]float64, m), hi: make([]float64, m), scratch: make([]float64, m), limit: limit, st: Stats{Method: MethodBnB},
		pending: math.Inf(-1)}
	// The capacities get a fractional knapsack bound, unless they are too
	// many for the memory it takes.
	for c, mono := range p.monotone {
		if !mono || len(s.caps)*len(p.terms) > 1<<24 {
			continue
		}
		w := make([]float64, len(p.terms))
		for t, ks := range p.coefs {
			for _, k := range ks {
				if k.Term == c {
					w[t] += k.Value
				}
			}
		}
		s.caps = append(s.caps, c)
		s.weight = append(s.weight, w)
		s.byRatio = append(s.byRatio, byRatio(p, w))
	}
	// With several capacities, their sum scaled by each capacity (a
	// surrogate constraint, valid as any non-negative combination is) often
	// bounds tighter than any one of them.
	if len(s.caps) > 1 {
		w := make([]float64, len(p.terms))
		for i, c := range s.caps {
			if p.bound[c] <= 0 {
				w = nil
				break
			}
			for t := range w {
				w[t] += s.weight[i][t] / p.bound[c]
			}
		}
		if w != nil {
			s.weight = append(s.weight, w)
			s.byRatio = append(s.byRatio, byRatio(p, w))
		}
	}
	for t := range p.terms {
		if len(p.terms[t]) == 0 {
			s.activate(t)
			continue
		}
		if p.obj[t] > 0 {
			s.potObj += p.obj[t]
		}
		for _, k := range p.coefs[t] {
			if k.Value < 0 {
				s.lo[k.Term] += k.Value
			} else {
				s.hi[k.Term] += k.Value
			}
		}
	}
	return s
}

// activate moves an open term to the active ones; deactivate undoes it.
func (s *search) activate(t int) {
	p := s.p
	s.value += p.obj[t]
	if len(p.terms[t]) > 0 {
		if p.obj[t] > 0 {
			s.potObj -= p.obj[t]
		}
	}
	for _, k := range p.coefs[t] {
		s.lhs[k.Term] += k.Value
		if len(p.terms[t]) > 0 {
			s.open(k, -1)
		}
	}
}

func (s *search) deactivate(t int) {
	p := s.p
	s.value -= p.obj[t]
	if p.obj[t] > 0 {
		s.potObj += p.obj[t]
	}
	for _, k := range p.coefs[t] {
		s.lhs[k.Term] -= k.Value
		s.open(k, +1)
	}
}

// open adds (sign +1) or removes (-1) a term's coefficient from what the
// open terms can still add.
func (s *search) open(k Coef, sign float64) {
	if k.Value < 0 {
		s.lo[k.Term] += sign * k.Value
	} else {
		s.hi[k.Term] += sign * k.Value
	}
}

// kill closes an open term (a variable of it fixed to 0); revive undoes it.
func (s *search) kill(t int) {
	if s.p.obj[t] > 0 {
		s.potObj -= s.p.obj[t]
	}
	for _, k := range s.p.coefs[t] {
		s.open(k, -1)
	}
}

func (s *search) revive(t int) {
	if s.p.obj[t] > 0 {
		s.potObj += s.p.obj[t]
	}
	for _, k := range s.p.coefs[t] {
		s.open(k, +1)
	}
}

// prefixLoses reports whether the variables fixed so far (below s.depth)
// differ from the best's first at a variable the best holds.
func (s *search) prefixLoses() bool {
	for w := 0; w*64 < s.depth; w++ {
		d := s.set[w] ^ s.best.set[w]
		if rest := s.depth - w*64; rest < 64 {
			d &= 1<<rest - 1
		}
		if d != 0 {
			return s.best.set[w]&(d&-d) != 0
		}
	}
	return false
}

// greedy returns a first incumbent for capacities only: variables taken
// by decreasing value per unit of the capacities' scaled sum (the
// surrogate's order of single-variable terms), each kept if the selection
// still fits; nil when the instance has other constraints.
func (p *problem) greedy(s *search) *candidate {
	if !p.allMonotone || len(s.weight) == 0 {
		return nil
	}
	score := make([]float64, p.n)
	weight := make([]float64, p.n)
	w := s.weight[len(s.weight)-1]
	for t, vars := range p.terms {
		for _, v := range vars {
			score[v] += p.obj[t] / float64(len(vars))
			weight[v] += w[t] / float64(len(vars))
		}
	}
	order := make([]int, p.n)
	for v := range order {
		order[v] = v
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[b]*weight[a], score[a]*weight[b]) })
	set := make([]uint64, (p.n+63)/64)
	value, lhs := p.evaluate(set)
	if !p.feasible(lhs) {
		return nil
	}
	for _, v := range order {
		set[v/64] |= 1 << (v % 64)
		nv, nl := p.evaluate(set)
		if p.feasible(nl) && nv >= value {
			value, lhs = nv, nl
			continue
		}
		set[v/64] &^= 1 << (v % 64)
	}
	return &candidate{set: set, value: value, lhs: lhs}
}

// evaluate sums the objective and left-hand sides of a selection.
func (p *problem) evaluate(set []uint64) (float64, []float64) {
	value, lhs := 0.0, make([]float64, len(p.bound))
	for t, vars := range p.terms {
		if slices.ContainsFunc(vars, func(v int) bool { return set[v/64]&(1<<(v%64)) == 0 }) {
			continue
		}
		value += p.obj[t]
		for _, k := range p.coefs[t] {
			lhs[k.Term] += k.Value
		}
	}
	return value, lhs
}

func (s *search) dfs(v int) {
	s.depth = v
	if s.overflow {
		return
	}
	s.st.Nodes++
	if s.st.Nodes > s.limit {
		s.overflow = true
		s.pending = max(s.pending, s.nodeBound())
		return
	}
	if s.prune() {
		s.st.Pruned++
		return
	}
	p := s.p
	if v == p.n {
		if p.feasible(s.lhs) {
			s.st.Feasible++
			if s.best == nil || p.better(s.value, s.lhs, s.set, s.best.value, s.best.lhs, s.best.set) {
				s.best = &candidate{set: append([]uint64(nil), s.set...), value: s.value, lhs: append([]float64(nil), s.lhs...)}
			}
		}
		return
	}
	// x_v = 1: the terms it completes become active.
	s.set[v/64] |= 1 << (v % 64)
	for _, t := range p.termsOf[v] {
		s.st.TermEvals++
		s.ones[t]++
		if s.ones[t] == len(p.terms[t]) {
			s.activate(t)
		}
	}
	s.dfs(v + 1)
	for _, t := range p.termsOf[v] {
		if s.ones[t] == len(p.terms[t]) {
			s.deactivate(t)
		}
		s.ones[t]--
	}
	s.set[v/64] &^= 1 << (v % 64)
	// x_v = 0: the terms holding it can no longer become active.
	for _, t := range p.termsOf[v] {
		s.st.TermEvals++
		if s.dead[t]++; s.dead[t] == 1 {
			s.kill(t)
		}
	}
	if s.overflow {
		// The budget ran out in the 1-branch: this 0-branch is never
		// explored, and its bound is what the incumbent may miss.
		s.pending = max(s.pending, s.nodeBound())
	} else {
		s.dfs(v + 1)
	}
	for _, t := range p.termsOf[v] {
		if s.dead[t]--; s.dead[t] == 0 {
			s.revive(t)
		}
	}
}

// nodeBound bounds the objective of every feasible completion of the
// node: -Inf when the constraints' ranges exclude all of them.
func (s *search) nodeBound() float64 {
	for c, b := range s.p.bound {
		eps := 1e-9 * max(1, abs(b))
		lo, hi := s.lhs[c]+s.lo[c], s.lhs[c]+s.hi[c]
		switch rel := s.p.rel[c]; {
		case (rel == LE || rel == EQ) && lo > b+eps, (rel == GE || rel == EQ) && hi < b-eps:
			return math.Inf(-1)
		}
	}
	return min(s.value+s.potObj, s.knapsackBound())
}

// prune reports whether no completion of the node can satisfy the
// constraints or reach the best objective found.
func (s *search) prune() bool {
	p := s.p
	if s.best != nil {
		// A tolerance keeps ties of fractional objectives, whose sums the
		// updates may round, from being pruned.
		eps := 1e-9 * max(1, abs(s.best.value))
		bound := s.value + s.potObj
		if bound >= s.best.value-eps {
			bound = min(bound, s.knapsackBound())
		}
		if bound < s.best.value-eps {
			return true
		}
		// No completion beats the best: at most equal objective, and at
		// least its use, measured on the least each left-hand side can
		// reach (every rule grows with each of them), and a tie on both
		// loses to the best on the earlier job: the variables fixed so far
		// differ from the best's first where the best holds one.
		if bound <= s.best.value+eps && s.prefixLoses() {
			least := s.scratch
			for c := range least {
				least[c] = s.lhs[c] + s.lo[c]
			}
			if p.useKey(least, s.best.lhs) >= 0 {
				return true
			}
		}
	}
	for c, b := range p.bound {
		eps := 1e-9 * max(1, abs(b))
		lo, hi := s.lhs[c]+s.lo[c], s.lhs[c]+s.hi[c]
		switch p.rel[c] {
		case LE:
			if lo > b+eps {
				return true
			}
		case GE:
			if hi < b-eps {
				return true
			}
		case EQ:
			if lo > b+eps || hi < b-eps {
				return true
			}
		}
	}
	return false
}
