package groupsel

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// linear builds a linear instance: one term per variable.
func linear(values []float64, uses [][]float64, caps []float64) *Instance {
	in := &Instance{N: len(values), Objective: values}
	for v := range values {
		in.Terms = append(in.Terms, []int{v})
	}
	for g, cap := range caps {
		c := Constraint{Rel: LE, Bound: cap}
		for v := range values {
			c.Coefs = append(c.Coefs, Coef{Term: v, Value: uses[g][v]})
		}
		in.Constraints = append(in.Constraints, c)
	}
	return in
}

// TestHandComputed solves small instances whose optimum and tie-breaks are
// worked out by hand, with both methods.
func TestHandComputed(t *testing.T) {
	cases := []struct {
		name string
		in   *Instance
		use  UseRule
		want []int
		val  float64
	}{
		// {0} = 5 (use 3), {1,2} = 7 (use 4), {0,1} and {0,2} use 5 > 4.
		{"capacity", linear([]float64{5, 4, 3}, [][]float64{{3, 2, 2}}, []float64{4}), "", []int{1, 2}, 7},
		// {0} and {1} both value 1: {1} uses 1, less than {0}'s 2.
		{"less use", linear([]float64{1, 1}, [][]float64{{2, 1}}, []float64{2}), "", []int{1}, 1},
		// Equal value and use: the earlier job.
		{"earlier job", linear([]float64{1, 1, 1}, [][]float64{{1, 1, 1}}, []float64{1}), "", []int{0}, 1},
		// {0,2} and {1,2}: equal value 2 and use 2, they differ first at 0.
		{"earliest difference", linear([]float64{1, 1, 1}, [][]float64{{1, 1, 1}}, []float64{2}), "", []int{0, 1}, 2},
		// Two resources of capacities (2.5, 1): {0} uses (2, 0), {1} uses
		// (1, 0.9), together (3, 0.9) too much. Sum: {1} (1.9 < 2). Lex: {1}
		// (1 < 2). Max share: {0} (2/2.5 = 0.8 < 0.9/1).
		{"use sum", linear([]float64{1, 1}, [][]float64{{2, 1}, {0, 0.9}}, []float64{2.5, 1}), UseSum, []int{1}, 1},
		{"use lex", linear([]float64{1, 1}, [][]float64{{2, 1}, {0, 0.9}}, []float64{2.5, 1}), UseLex, []int{1}, 1},
		{"use max share", linear([]float64{1, 1}, [][]float64{{2, 1}, {0, 0.9}}, []float64{2.5, 1}), UseMaxShare, []int{0}, 1},
		// A product term: x0 x1 is worth 10 and uses 3; x2 worth 4 uses 1;
		// capacity 3 fits x0 x1 but not x0 x1 x2.
		{"product", &Instance{N: 3, Terms: [][]int{{0, 1}, {2}}, Objective: []float64{10, 4},
			Constraints: []Constraint{{Coefs: []Coef{{0, 3}, {1, 1}}, Rel: LE, Bound: 3}}}, "", []int{0, 1}, 10},
		// Nothing fits: the empty selection (start nothing).
		{"nothing fits", linear([]float64{3, 2}, [][]float64{{5, 6}}, []float64{4}), "", []int{}, 0},
		// Minimise x0 + 2 x1 + 3 x2 subject to x0 + x1 + x2 >= 2 and
		// x1 + x2 <= 1: {0,1} = 3.
		{"minimise", &Instance{N: 3, Terms: [][]int{{0}, {1}, {2}}, Objective: []float64{1, 2, 3}, Sense: Minimise,
			Constraints: []Constraint{{Coefs: []Coef{{0, 1}, {1, 1}, {2, 1}}, Rel: GE, Bound: 2},
				{Coefs: []Coef{{1, 1}, {2, 1}}, Rel: LE, Bound: 1}}}, "", []int{0, 1}, 3},
		// x0 - x1 = 0 with x1 worth -1 and x0 worth 3: {0,1} = 2.
		{"equality", &Instance{N: 2, Terms: [][]int{{0}, {1}}, Objective: []float64{3, -1},
			Constraints: []Constraint{{Coefs: []Coef{{0, 1}, {1, -1}}, Rel: EQ, Bound: 0}}}, "", []int{0, 1}, 2},
	}
	for _, c := range cases {
		for _, m := range []Method{MethodRank, MethodBnB} {
			s, err := Solve(c.in, m, Options{Use: c.use})
			if err != nil {
				t.Errorf("%s, %s: %v", c.name, m, err)
				continue
			}
			if !slices.Equal(s.Selected, c.want) || s.Value != c.val {
				t.Errorf("%s, %s: selected %v value %v, want %v value %v", c.name, m, s.Selected, s.Value, c.want, c.val)
			}
		}
	}
}

// TestInfeasible: no selection satisfies x0 + x1 >= 3.
func TestInfeasible(t *testing.T) {
	in := &Instance{N: 2, Terms: [][]int{{0}, {1}}, Objective: []float64{1, 1},
		Constraints: []Constraint{{Coefs: []Coef{{0, 1}, {1, 1}}, Rel: GE, Bound: 3}}}
	for _, m := range []Method{MethodRank, MethodBnB} {
		if _, err := Solve(in, m, Options{}); !errors.Is(err, ErrInfeasible) {
			t.Errorf("%s: %v, want ErrInfeasible", m, err)
		}
	}
}

// TestBudgets: both solvers fail loudly past their budgets, and the rank
// approach refuses more than 64 variables.
func TestBudgets(t *testing.T) {
	in := randomInstance(rand.New(rand.NewPCG(1, 2)), 14, 40, 3, false)
	if _, err := Rank(in, Options{MaxPaths: 50}); !errors.Is(err, ErrBudget) {
		t.Errorf("rank with 50 paths: %v", err)
	}
	if _, err := BranchAndBound(in, Options{MaxNodes: 50}); !errors.Is(err, ErrBudget) {
		t.Errorf("bnb with 50 nodes: %v", err)
	}
	big := linear(make([]float64, 65), [][]float64{make([]float64, 65)}, []float64{1})
	if _, err := Rank(big, Options{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("65 variables: %v", err)
	}
	if _, err := BranchAndBound(big, Options{}); err != nil {
		t.Errorf("bnb on 65 variables: %v", err)
	}
}

// randomInstance draws an instance like the paper's generator: terms of 1
// to n/2 variables shared by the objective and m capacities, coefficients
// 1..100, each capacity half its coefficients' sum; general adds negative
// coefficients and >= and = constraints.
func randomInstance(r *rand.Rand, n, terms, m int, general bool) *Instance {
	in := &Instance{N: n}
	for range terms {
		vars := r.Perm(n)[:1+r.IntN(max(1, n/2))]
		slices.Sort(vars)
		in.Terms = append(in.Terms, vars)
		v := float64(1 + r.IntN(100))
		if general && r.IntN(3) == 0 {
			v = -v
		}
		in.Objective = append(in.Objective, v)
	}
	for range m {
		c := Constraint{Rel: LE}
		total := 0.0
		for t := range in.Terms {
			if r.IntN(4) == 0 {
				continue
			}
			v := float64(1 + r.IntN(100))
			if general && r.IntN(4) == 0 {
				v = -v
			}
			c.Coefs = append(c.Coefs, Coef{Term: t, Value: v})
			total += abs(v)
		}
		c.Bound = float64(int(total / 2))
		if general {
			c.Rel = Relation(r.IntN(3))
			if c.Rel != LE {
				c.Bound = float64(int(total / 8))
			}
		}
		in.Constraints = append(in.Constraints, c)
	}
	return in
}

// bruteForce is the oracle: every selection evaluated, the best under
// Better kept.
func bruteForce(t *testing.T, in *Instance, use UseRule) ([]int, bool) {
	var best []int
	found := false
	for mask := range 1 << in.N {
		sel := []int{}
		for v := range in.N {
			if mask&(1<<v) != 0 {
				sel = append(sel, v)
			}
		}
		if _, _, ok := in.Evaluate(sel); !ok {
			continue
		}
		if !found {
			best, found = sel, true
			continue
		}
		b, err := Better(in, use, sel, best)
		if err != nil {
			t.Fatal(err)
		}
		if b {
			best = sel
		}
	}
	return best, found
}

// TestAgainstBruteForce: on random instances, capacities only and general
// ones, the rank approach, the branch and bound and the enumeration of
// every selection agree, under each use rule; the rank approach gives the
// same solution and counts on 1 to 5 workers.
func TestAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(2010, 1))
	for i := range 150 {
		general := i%3 == 2
		n := 4 + r.IntN(9)
		in := randomInstance(r, n, 5+r.IntN(40), 1+r.IntN(3), general)
		use := UseRules()[i%3]
		want, ok := bruteForce(t, in, use)
		rank, rerr := Rank(in, Options{Use: use})
		bnb, berr := BranchAndBound(in, Options{Use: use})
		if !ok {
			if !errors.Is(rerr, ErrInfeasible) || !errors.Is(berr, ErrInfeasible) {
				t.Errorf("instance %d: infeasible, but rank says %v and bnb %v", i, rerr, berr)
			}
			continue
		}
		if rerr != nil || berr != nil {
			t.Fatalf("instance %d: rank %v, bnb %v", i, rerr, berr)
		}
		if !slices.Equal(rank.Selected, want) || !slices.Equal(bnb.Selected, want) {
			t.Errorf("instance %d (n %d, general %v, use %s): rank %v, bnb %v, enumeration %v", i, n, general, use, rank.Selected, bnb.Selected, want)
		}
		for w := 2; w <= 5; w++ {
			par, err := Rank(in, Options{Use: use, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			par.Stats.Workers = 1
			if !reflect.DeepEqual(par, rank) {
				t.Errorf("instance %d: %d workers give %+v, 1 gives %+v", i, w, par, rank)
			}
		}
	}
}

// TestRankCounts checks the rank approach's counts against an enumeration,
// on capacity-only instances (where a selection within the capacities has
// all its subsets within them too): rank r keeps exactly the selections of
// r variables within the capacities, so none twice (the paper's rule 2 has
// nothing to cut), and cuts exactly those beyond them whose selection
// without its last variable is within them (rule 1). A hand-built case
// comes first, then random ones.
func TestRankCounts(t *testing.T) {
	// x0 + x1 + x2 <= 2 with x0 x1 x2 worth more: ranks 1 and 2 keep all
	// 3 selections each, rank 3's one is cut and the rank holds no path.
	hand := &Instance{N: 3, Terms: [][]int{{0}, {1}, {2}, {0, 1, 2}}, Objective: []float64{1, 1, 1, 10},
		Constraints: []Constraint{{Coefs: []Coef{{0, 1}, {1, 1}, {2, 1}}, Rel: LE, Bound: 2}}}
	cases := []struct {
		name string
		in   *Instance
	}{{"hand", hand}}
	r := rand.New(rand.NewPCG(34, 1))
	for i := range 40 {
		cases = append(cases, struct {
			name string
			in   *Instance
		}{fmt.Sprintf("random %d", i), randomInstance(r, 4+r.IntN(9), 5+r.IntN(40), 1+r.IntN(3), false)})
	}
	for _, c := range cases {
		in := c.in
		paths, cuts := make([]int64, in.N+1), make([]int64, in.N+1)
		within := func(mask int) bool {
			_, _, ok := in.Evaluate(membersOf(mask, in.N))
			return ok
		}
		for mask := range 1 << in.N {
			k := bits.OnesCount(uint(mask))
			switch {
			case within(mask):
				paths[k]++
			case within(mask &^ (1 << (bits.Len(uint(mask)) - 1))):
				cuts[k]++
			}
		}
		s, err := Rank(in, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var gotPaths, gotCuts []int64
		for _, rs := range s.Stats.Ranks {
			gotPaths, gotCuts = append(gotPaths, rs.Paths), append(gotCuts, rs.Cuts)
		}
		// Ranks stop after the first with neither paths nor cuts.
		last := len(paths) - 1
		for last > 0 && paths[last] == 0 && cuts[last] == 0 {
			last--
		}
		if !slices.Equal(gotPaths, paths[:last+1]) || !slices.Equal(gotCuts, cuts[:last+1]) {
			t.Errorf("%s: paths %v cuts %v per rank, enumeration %v and %v", c.name, gotPaths, gotCuts, paths[:last+1], cuts[:last+1])
		}
		if c.name == "hand" && (!slices.Equal(gotPaths, []int64{1, 3, 3, 0}) || !slices.Equal(gotCuts, []int64{0, 0, 0, 1})) {
			t.Errorf("hand: paths %v cuts %v, want [1 3 3 0] and [0 0 0 1]", gotPaths, gotCuts)
		}
	}
}

func membersOf(mask, n int) []int {
	sel := []int{}
	for v := range n {
		if mask&(1<<v) != 0 {
			sel = append(sel, v)
		}
	}
	return sel
}

// TestAnytime: a solver stopped by its budget returns ErrBudget with the
// best selection it met, which satisfies the constraints, not optimal, and
// a bound no worse than the true optimum (from an enumeration); with a
// budget large enough the same call proves the optimum, gap 0.
func TestAnytime(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 3))
	cases := []struct {
		method Method
		opts   Options
	}{
		{MethodRank, Options{MaxPaths: 20}},
		{MethodRank, Options{MaxPaths: 200}},
		{MethodRank, Options{MaxPaths: 200, Workers: 3}},
		{MethodBnB, Options{MaxNodes: 5}},
		{MethodBnB, Options{MaxNodes: 30}},
	}
	stopped := 0
	for i := range 60 {
		general := i%4 == 3
		in := randomInstance(r, 8+r.IntN(5), 10+r.IntN(30), 1+r.IntN(3), general)
		if i%5 == 4 {
			in.Sense = Minimise
		}
		want, ok := bruteForce(t, in, UseSum)
		if !ok {
			continue
		}
		opt, _, _ := in.Evaluate(want)
		for _, c := range cases {
			s, err := Solve(in, c.method, c.opts)
			if err == nil {
				if !s.Optimal || s.Gap != 0 || !slices.Equal(s.Selected, want) {
					t.Errorf("instance %d, %s %+v: no error but %+v", i, c.method, c.opts, s)
				}
				continue
			}
			if !errors.Is(err, ErrBudget) {
				t.Fatalf("instance %d, %s %+v: %v", i, c.method, c.opts, err)
			}
			if s == nil {
				continue // stopped before any feasible selection
			}
			stopped++
			_, _, feasible := in.Evaluate(s.Selected)
			// The bound holds the optimum: above it when maximising,
			// below when minimising.
			holds := s.Bound >= opt-1e-9 && opt >= s.Value-1e-9
			if in.Sense == Minimise {
				holds = s.Bound <= opt+1e-9 && opt <= s.Value+1e-9
			}
			if !feasible || s.Optimal || !holds || s.Gap != abs(s.Bound-s.Value) {
				t.Errorf("instance %d, %s %+v: %+v (feasible %v), optimum %v", i, c.method, c.opts, s, feasible, opt)
			}
		}
	}
	if stopped < 50 {
		t.Errorf("only %d stopped solves returned a selection: the budgets test too little", stopped)
	}
}

// TestAnytimeByHand stops both solvers on a knapsack worked out by hand:
// values 3, 2, 2, weights 3, 2, 2, capacity 4; the optimum is {1, 2}, of
// value 4.
//
// The branch and bound with one node: its greedy incumbent (ratios all 1,
// so index order) is {0}, value 3. The root (node 1) is not pruned: its
// fractional knapsack bound is 3 + 2 x 1/2 = 4. Its 1-branch is node 2,
// past the limit; pending then holds that node's bound (x0 = 1: 3 + 1 = 4)
// and the 0-branch's (x0 = 0: 2 + 2 = 4). Bound 4, gap 1.
//
// The rank approach with 4 paths: rank 0 (the empty path) and rank 1 (the
// three single items) fill it; rank 2 overflows on its first kept path
// ({1, 2}; {0, 1} and {0, 2} are cut). The best met is {0}, value 3; the
// frontier bound is the best of each rank-1 path's value plus the positive
// terms after its last: {0}: 3 + 2 + 2 = 7, {1}: 2 + 2, {2}: 2. Bound 7,
// gap 4.
func TestAnytimeByHand(t *testing.T) {
	in := linear([]float64{3, 2, 2}, [][]float64{{3, 2, 2}}, []float64{4})
	cases := []struct {
		method     Method
		opts       Options
		bound, gap float64
	}{
		{MethodBnB, Options{MaxNodes: 1}, 4, 1},
		{MethodRank, Options{MaxPaths: 4}, 7, 4},
	}
	for _, c := range cases {
		s, err := Solve(in, c.method, c.opts)
		if !errors.Is(err, ErrBudget) || s == nil {
			t.Fatalf("%s %+v: %+v, %v; want the incumbent beside ErrBudget", c.method, c.opts, s, err)
		}
		_, _, feasible := in.Evaluate(s.Selected)
		if !feasible || !slices.Equal(s.Selected, []int{0}) || s.Value != 3 || s.Optimal ||
			s.Bound != c.bound || s.Gap != c.gap {
			t.Errorf("%s %+v: selected %v (feasible %v), value %v, bound %v, gap %v, optimal %v; want [0], 3, %v, %v, false",
				c.method, c.opts, s.Selected, feasible, s.Value, s.Bound, s.Gap, s.Optimal, c.bound, c.gap)
		}
		// Unbounded, the same solver proves {1, 2}.
		if s, err := Solve(in, c.method, Options{}); err != nil || !s.Optimal || s.Gap != 0 || !slices.Equal(s.Selected, []int{1, 2}) {
			t.Errorf("%s unbounded: %+v, %v; want [1 2] proved", c.method, s, err)
		}
	}
}
