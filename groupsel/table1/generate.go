// Package table1 generates the random instances of Table 1 of Minukhin &
// Ganzha (2010) and runs the benchmark that the table reports: for each
// number of terms, instances with 20 variables, 3 constraints, integer
// coefficients 1..100 and terms of up to 20 variables.
package table1

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/sdk/groupsel"
)

// Params are the generator's settings. The paper gives Vars, Terms,
// Degree, the coefficient range and Constraints; Capacity, Degrees and
// Shared are our readings of what it leaves out (docs/groupsel.md).
type Params struct {
	// Vars is the number of variables x_1..x_Vars a term may use (the
	// paper's "range of variables", 20).
	Vars int
	// Terms is the number of terms (50 to 240 in the paper).
	Terms int
	// Degree is the largest number of variables in a term (the paper's
	// "degree of non-linearity", 20).
	Degree int
	// MinCoef and MaxCoef bound the integer coefficients (1 and 100).
	MinCoef, MaxCoef int
	// Constraints is the number of constraints (3).
	Constraints int
	// Capacity sets each constraint's bound to this share of the sum of its
	// coefficients, rounded down (the paper gives no bound; 0.5 here).
	Capacity float64
	// Shared makes the objective and the constraints use the same terms,
	// each a group of jobs with a priority and a use of every resource (as
	// the paper explains its coefficients); false draws the objective's and
	// each constraint's terms apart.
	Shared bool
}

// Paper returns the paper's settings for a number of terms, with our
// readings where it is silent: capacity 0.5, shared terms.
func Paper(terms int) Params {
	return Params{Vars: 20, Terms: terms, Degree: 20, MinCoef: 1, MaxCoef: 100, Constraints: 3, Capacity: 0.5, Shared: true}
}

// Validate reports a setting out of range.
func (p Params) Validate() error {
	switch {
	case p.Vars < 1 || p.Vars > 64:
		return fmt.Errorf("vars %d: want 1 to 64", p.Vars)
	case p.Terms < 1:
		return fmt.Errorf("terms %d: want at least 1", p.Terms)
	case p.Degree < 1 || p.Degree > p.Vars:
		return fmt.Errorf("degree %d: want 1 to vars (%d)", p.Degree, p.Vars)
	case p.MinCoef < 1 || p.MaxCoef < p.MinCoef:
		return fmt.Errorf("coefficients %d..%d: want 1 <= min <= max", p.MinCoef, p.MaxCoef)
	case p.Constraints < 0:
		return fmt.Errorf("constraints %d: want at least 0", p.Constraints)
	case !(p.Capacity >= 0 && p.Capacity <= 1):
		return fmt.Errorf("capacity %v: want a share between 0 and 1", p.Capacity)
	}
	return nil
}

// Generate draws an instance: each term a number of variables uniform in
// 1..Degree, the variables drawn without replacement, and integer
// coefficients uniform in MinCoef..MaxCoef.
func Generate(p Params, r *rand.Rand) (*groupsel.Instance, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	in := &groupsel.Instance{N: p.Vars, Sense: groupsel.Maximise}
	coef := func() float64 { return float64(p.MinCoef + r.IntN(p.MaxCoef-p.MinCoef+1)) }
	term := func() int {
		vars := r.Perm(p.Vars)[:1+r.IntN(p.Degree)]
		slices.Sort(vars)
		in.Terms = append(in.Terms, vars)
		in.Objective = append(in.Objective, 0)
		return len(in.Terms) - 1
	}
	var shared []int
	if p.Shared {
		for range p.Terms {
			t := term()
			in.Objective[t] = coef()
			shared = append(shared, t)
		}
	} else {
		for range p.Terms {
			in.Objective[term()] = coef()
		}
	}
	for range p.Constraints {
		c := groupsel.Constraint{Rel: groupsel.LE}
		total := 0.0
		for i := range p.Terms {
			t := 0
			if p.Shared {
				t = shared[i]
			} else {
				t = term()
			}
			v := coef()
			c.Coefs = append(c.Coefs, groupsel.Coef{Term: t, Value: v})
			total += v
		}
		c.Bound = float64(int64(p.Capacity * total))
		in.Constraints = append(in.Constraints, c)
	}
	return in, in.Validate()
}
