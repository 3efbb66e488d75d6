package groupsel

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Method names a solver.
type Method string

// The solvers.
const (
	// MethodRank is the paper's rank approach (Rank).
	MethodRank Method = "rank"
	// MethodBnB is the branch and bound that checks it (BranchAndBound).
	MethodBnB Method = "bnb"
)

// UseRule says how the resource use of a selection, the second key of the
// order of solutions, combines several constraints. The paper says only
// "the minimal length by the weight of the constraints".
type UseRule string

// The rules for resource use.
const (
	// UseSum adds the left-hand sides of all constraints (the default).
	UseSum UseRule = "sum"
	// UseLex compares the constraints' left-hand sides one after the
	// other, in the instance's order.
	UseLex UseRule = "lex"
	// UseMaxShare compares the largest share lhs / |bound| over the
	// constraints (lhs itself where the bound is 0).
	UseMaxShare UseRule = "max-share"
)

// UseRules lists the rules, the default first.
func UseRules() []UseRule { return []UseRule{UseSum, UseLex, UseMaxShare} }

// Options control a solve. The zero value solves with the defaults.
type Options struct {
	// Use says how constraints combine into the resource use that breaks
	// ties of the objective; empty means UseSum.
	Use UseRule
	// Workers extends each rank's paths on this many goroutines (Rank
	// only); the result is the same for any number. 0 means 1.
	Workers int
	// MaxPaths bounds the paths the rank approach keeps over all ranks;
	// 0 means DefaultMaxPaths. Past it Rank fails with ErrBudget.
	MaxPaths int
	// MaxNodes bounds the nodes of the branch and bound; 0 means
	// DefaultMaxNodes. Past it BranchAndBound fails with ErrBudget.
	MaxNodes int64
}

// The default budgets.
const (
	// DefaultMaxPaths keeps the rank approach's memory under a few hundred
	// megabytes for a handful of constraints (all 2^20 selections of 20
	// jobs fit).
	DefaultMaxPaths = 1 << 22
	// DefaultMaxNodes bounds a branch and bound to a few minutes.
	DefaultMaxNodes = 1 << 30
)

// Solution is an optimal selection, or, returned beside ErrBudget, the best
// selection found before the budget ran out.
type Solution struct {
	// Selected are the indices of the variables set to 1, ascending.
	Selected []int
	// Value is the objective, in the instance's sense, summed in term
	// order; LHS is each constraint's left-hand side.
	Value float64
	LHS   []float64
	// Optimal is true when the solver proved the selection first in the
	// order of solutions; false beside ErrBudget.
	Optimal bool
	// Bound is the best objective that any selection can have, as far as
	// the solver proved it (at least Value when maximising, at most when
	// minimising); Gap is |Bound - Value|, 0 when Optimal. A gap of 0
	// without Optimal means the value is optimal but a selection of equal
	// value might come first in the order of solutions.
	Bound, Gap float64
	Stats      Stats
}

// Stats counts what a solver did.
type Stats struct {
	Method  Method `json:"method"`
	Workers int    `json:"workers"`
	// Ranks has one entry per rank the rank approach reached (rank r holds
	// the selections of r variables; rank 0 is the empty selection).
	Ranks []RankStats `json:"ranks,omitempty"`
	// Paths is the number of paths kept over all ranks (rank approach) and
	// Cuts the extensions cut because no extension of them could satisfy a
	// constraint (the paper's rule 1). There is no count for rule 2 ("the
	// path is not unique"): extending a path only by variables after its
	// last gives each selection one path, so the rule has nothing to cut;
	// TestRankCounts checks that every rank holds each selection once.
	Paths int64 `json:"paths,omitempty"`
	Cuts  int64 `json:"cuts,omitempty"`
	// Nodes is the number of branch-and-bound nodes, Pruned those cut by
	// the objective's bound or by a constraint.
	Nodes  int64 `json:"nodes,omitempty"`
	Pruned int64 `json:"pruned,omitempty"`
	// TermEvals counts the term evaluations: a term tested on a path's
	// extension, or a term's state updated in the branch and bound.
	TermEvals int64 `json:"term_evals"`
	// Feasible counts the feasible selections met (candidates).
	Feasible int64 `json:"feasible"`
}

// RankStats is one rank of the rank approach.
type RankStats struct {
	Rank  int   `json:"rank"`
	Paths int64 `json:"paths"`
	Cuts  int64 `json:"cuts"`
	// Best is the local optimum of the rank (the paper's local extremum),
	// in the instance's sense; absent when the rank has no feasible path.
	Best *float64 `json:"best,omitempty"`
}

// Solve solves the instance with the method.
func Solve(in *Instance, m Method, opts Options) (*Solution, error) {
	switch m {
	case MethodRank, "":
		return Rank(in, opts)
	case MethodBnB:
		return BranchAndBound(in, opts)
	}
	return nil, fmt.Errorf("groupsel: unknown method %q (rank or bnb)", m)
}

// problem is an instance compiled for the solvers: the objective always
// maximised, terms by variable, coefficients by term.
type problem struct {
	n       int
	terms   [][]int
	obj     []float64 // maximised
	termsOf [][]int   // per variable, the terms holding it
	coefs   [][]Coef  // per term, (constraint, value) with Coef.Term the constraint
	rel     []Relation
	bound   []float64
	// monotone: a constraint <= whose coefficients are all >= 0, which a
	// selection that breaks it cannot satisfy by taking more variables.
	monotone    []bool
	allMonotone bool
	constant    []int // the empty terms, always active
	use         UseRule
}

func compile(in *Instance, opts Options) (*problem, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	use := opts.Use
	if use == "" {
		use = UseSum
	}
	if !slices.Contains(UseRules(), use) {
		return nil, fmt.Errorf("groupsel: unknown use rule %q (sum, lex or max-share)", use)
	}
	p := &problem{n: in.N, terms: in.Terms, obj: slices.Clone(in.Objective), termsOf: make([][]int, in.N),
		coefs: make([][]Coef, len(in.Terms)), use: use, allMonotone: true}
	if in.Sense == Minimise {
		for i := range p.obj {
			p.obj[i] = -p.obj[i]
		}
	}
	for t, vars := range in.Terms {
		if len(vars) == 0 {
			p.constant = append(p.constant, t)
		}
		for _, v := range vars {
			p.termsOf[v] = append(p.termsOf[v], t)
		}
	}
	for c, con := range in.Constraints {
		mono := con.Rel == LE
		for _, k := range con.Coefs {
			p.coefs[k.Term] = append(p.coefs[k.Term], Coef{Term: c, Value: k.Value})
			mono = mono && k.Value >= 0
		}
		p.rel = append(p.rel, con.Rel)
		p.bound = append(p.bound, con.Bound)
		p.monotone = append(p.monotone, mono)
		p.allMonotone = p.allMonotone && mono
	}
	return p, nil
}

// candidate is a selection with what orders it.
type candidate struct {
	set   []uint64 // bitset of the selected variables
	value float64  // maximised objective
	lhs   []float64
}

// useKey compares the resource use of two left-hand-side vectors: <0 when a
// uses less.
func (p *problem) useKey(a, b []float64) int {
	switch p.use {
	case UseLex:
		for c := range a {
			if a[c] != b[c] {
				return cmp.Compare(a[c], b[c])
			}
		}
		return 0
	case UseMaxShare:
		return cmp.Compare(p.maxShare(a), p.maxShare(b))
	}
	return cmp.Compare(sum(a), sum(b))
}

func (p *problem) maxShare(lhs []float64) float64 {
	m := math.Inf(-1)
	for c, v := range lhs {
		if b := math.Abs(p.bound[c]); b > 0 {
			v /= b
		}
		m = max(m, v)
	}
	if len(lhs) == 0 {
		return 0
	}
	return m
}

// better reports whether a comes before b in the order of solutions: the
// larger objective, then the smaller use, then the selection holding the
// earlier variable where the two differ.
func (p *problem) better(av float64, alhs []float64, aset []uint64, bv float64, blhs []float64, bset []uint64) bool {
	if av != bv {
		return av > bv
	}
	if c := p.useKey(alhs, blhs); c != 0 {
		return c < 0
	}
	return earlier(aset, bset)
}

// earlier reports whether bitset a holds the lowest variable where a and b
// differ.
func earlier(a, b []uint64) bool {
	for i := range a {
		if d := a[i] ^ b[i]; d != 0 {
			return a[i]&(d&-d) != 0
		}
	}
	return false
}

// Better reports whether selection a comes before selection b in the
// order of solutions of the instance (both must satisfy it for this to be
// meaningful): the larger objective in the instance's sense, then the
// smaller resource use under the rule, then the one holding the earlier
// variable where they differ. It is a total order on distinct selections.
func Better(in *Instance, use UseRule, a, b []int) (bool, error) {
	p, err := compile(in, Options{Use: use})
	if err != nil {
		return false, err
	}
	av, alhs, _ := in.Evaluate(a)
	bv, blhs, _ := in.Evaluate(b)
	if in.Sense == Minimise {
		av, bv = -av, -bv
	}
	return p.better(av, alhs, bitset(in.N, a), bv, blhs, bitset(in.N, b)), nil
}

func bitset(n int, vars []int) []uint64 {
	s := make([]uint64, (n+63)/64)
	for _, v := range vars {
		s[v/64] |= 1 << (v % 64)
	}
	return s
}

func members(set []uint64) []int {
	out := []int{}
	for w, x := range set {
		for x != 0 {
			b := bits.TrailingZeros64(x)
			out = append(out, w*64+b)
			x &= x - 1
		}
	}
	return out
}

// solution turns the best candidate into a Solution, its value and
// left-hand sides recomputed in term order.
func solution(in *Instance, best *candidate, st Stats) *Solution {
	sel := members(best.set)
	v, lhs, _ := in.Evaluate(sel)
	return &Solution{Selected: sel, Value: v, LHS: lhs, Optimal: true, Bound: v, Stats: st}
}

// stopped is solution for a search a budget stopped: best is the incumbent
// and bound (maximised) bounds every selection the search did not meet.
func stopped(in *Instance, best *candidate, st Stats, bound float64) *Solution {
	s := solution(in, best, st)
	s.Optimal = false
	s.Bound = external(in, max(bound, best.value))
	s.Gap = abs(s.Bound - s.Value)
	return s
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// external returns a maximised objective in the instance's sense.
func external(in *Instance, v float64) float64 {
	if in.Sense == Minimise {
		return -v
	}
	return v
}
