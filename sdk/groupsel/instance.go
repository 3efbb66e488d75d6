// Package groupsel selects a group of jobs to start together, as a 0-1
// problem over several resources (Minukhin & Ganzha 2010): boolean
// variables x_1..x_N (x_p = 1 starts job p), an objective that is a sum of
// terms, each a product of variables with a value (the linear case has one
// variable per term), and constraints over the same kind of terms, one per
// resource. Two exact solvers return the same optimum under one total order
// of solutions: the paper's rank approach (Rank), which extends partial
// selections rank by rank and may run each rank's extensions on several
// workers with identical results, and a branch and bound (BranchAndBound)
// that checks it.
//
// The order of solutions (Better) is total: the larger objective, then the
// smaller resource use (Options.Use says how several constraints combine),
// then the selection holding the earlier job (the lowest index where two
// selections differ). See docs/groupsel.md for the paper's method, the
// readings chosen where it is ambiguous, and the settings for the others.
package groupsel

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Sense says whether the objective is maximised or minimised.
type Sense int

// The senses of an objective. The paper maximises the total priority; a
// PB-competition (OPB) file minimises.
const (
	Maximise Sense = iota
	Minimise
)

// Relation is the comparison of a constraint's left-hand side with its
// bound.
type Relation int

// The relations of a constraint.
const (
	LE Relation = iota // sum <= bound (a capacity: the paper's form)
	GE                 // sum >= bound
	EQ                 // sum == bound
)

func (r Relation) String() string {
	switch r {
	case LE:
		return "<="
	case GE:
		return ">="
	case EQ:
		return "="
	}
	return fmt.Sprintf("Relation(%d)", int(r))
}

// Coef is the coefficient of one term in a constraint.
type Coef struct {
	Term  int
	Value float64
}

// Constraint is sum over its terms of Value * term  Rel  Bound.
type Constraint struct {
	Coefs []Coef
	Rel   Relation
	Bound float64
}

// Instance is a 0-1 problem whose objective and constraints are sums over
// terms (products of variables).
type Instance struct {
	// N is the number of variables, indexed 0..N-1: the queue's jobs in
	// the order they arrived.
	N int
	// Terms are the products: each a set of variable indices, ascending and
	// distinct. An empty term is the constant 1.
	Terms [][]int
	// Objective holds each term's value in the objective (len(Terms)).
	Objective []float64
	// Sense says whether Objective is maximised (the paper) or minimised.
	Sense Sense
	// Constraints, one per resource in the paper.
	Constraints []Constraint
}

// Errors of the solvers.
var (
	// ErrInfeasible: no selection satisfies the constraints.
	ErrInfeasible = errors.New("no selection satisfies the constraints")
	// ErrBudget: the search exceeded its budget (Options.MaxPaths or
	// MaxNodes) before proving the optimum. The solvers then also return
	// the best selection they found, if any, with Optimal false and a
	// bound on the optimum (Solution.Bound, Gap).
	ErrBudget = errors.New("the search exceeded its budget")
	// ErrInstance: the instance is malformed.
	ErrInstance = errors.New("malformed instance")
)

// Validate reports what is malformed in the instance.
func (in *Instance) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInstance, fmt.Sprintf(format, args...))
	}
	if in.N < 0 {
		return bad("%d variables", in.N)
	}
	if len(in.Objective) != len(in.Terms) {
		return bad("%d objective values for %d terms", len(in.Objective), len(in.Terms))
	}
	for t, vars := range in.Terms {
		for i, v := range vars {
			if v < 0 || v >= in.N {
				return bad("term %d holds variable %d of %d", t, v, in.N)
			}
			if i > 0 && vars[i-1] >= v {
				return bad("term %d's variables are not ascending and distinct: %v", t, vars)
			}
		}
		if !finite(in.Objective[t]) {
			return bad("term %d has objective value %v", t, in.Objective[t])
		}
	}
	for c, con := range in.Constraints {
		if con.Rel < LE || con.Rel > EQ {
			return bad("constraint %d has relation %d", c, con.Rel)
		}
		if !finite(con.Bound) {
			return bad("constraint %d has bound %v", c, con.Bound)
		}
		for _, k := range con.Coefs {
			if k.Term < 0 || k.Term >= len(in.Terms) || !finite(k.Value) {
				return bad("constraint %d has coefficient %v of term %d of %d", c, k.Value, k.Term, len(in.Terms))
			}
		}
	}
	return nil
}

// Evaluate returns the objective of a selection (in the instance's sense)
// and each constraint's left-hand side, summed in term order, and whether
// the selection satisfies every constraint.
func (in *Instance) Evaluate(selected []int) (value float64, lhs []float64, feasible bool) {
	on := make([]bool, in.N)
	for _, v := range selected {
		on[v] = true
	}
	active := make([]bool, len(in.Terms))
	for t, vars := range in.Terms {
		active[t] = !slices.ContainsFunc(vars, func(v int) bool { return !on[v] })
		if active[t] {
			value += in.Objective[t]
		}
	}
	lhs = make([]float64, len(in.Constraints))
	feasible = true
	for c, con := range in.Constraints {
		for _, k := range con.Coefs {
			if active[k.Term] {
				lhs[c] += k.Value
			}
		}
		feasible = feasible && satisfied(lhs[c], con.Rel, con.Bound)
	}
	return value, lhs, feasible
}

// satisfied compares a left-hand side with its bound, with a tolerance of
// 1e-9 relative to the bound's magnitude for fractional coefficients.
func satisfied(lhs float64, rel Relation, bound float64) bool {
	eps := 1e-9 * max(1, math.Abs(bound))
	switch rel {
	case LE:
		return lhs <= bound+eps
	case GE:
		return lhs >= bound-eps
	}
	return math.Abs(lhs-bound) <= eps
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
