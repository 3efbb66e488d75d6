package lp

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/groupsel/opb"
	"github.com/schedlab/schedlab/groupsel/table1"
	"github.com/schedlab/schedlab/internal/milp"
	"github.com/schedlab/schedlab/sdk/groupsel"
)

// TestAgainstMILP writes instances as LP files and checks that GLPK (and
// CBC on the smaller ones), real MILP solvers, find the optimal values that
// the branch and bound and the rank approach find: instances of the paper's generator (products
// of up to 14 variables, shared and separate terms), and a general one
// with negated literals, >= and = constraints and an objective constant.
func TestAgainstMILP(t *testing.T) {
	milp.Require(t, milp.GLPK)
	milp.Require(t, milp.CBC)
	var cases []*groupsel.Instance
	r := rand.New(rand.NewPCG(1, 2010))
	for i := range 8 {
		p := table1.Paper(20 + 10*i)
		p.Vars, p.Degree, p.Shared = 14, 14, i%2 == 0
		in, err := table1.Generate(p, r)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, in)
	}
	general, err := opb.Read(strings.NewReader(`min: +3 x1 x2 -2 ~x3 +1 x4 ;
+2 x1 +3 x2 x4 -1 x3 >= 2 ;
+1 ~x1 +1 x2 = 1 ;
+5 x3 x4 +2 x1 <= 6 ;
`), "general.opb")
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, general)
	dir := t.TempDir()
	for i, in := range cases {
		path := filepath.Join(dir, "i.lp")
		if err := WriteFile(path, in); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		bnb, err := groupsel.BranchAndBound(in, groupsel.Options{})
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		t.Logf("instance %d: bnb %v", i, time.Since(began))
		rank, err := groupsel.Rank(in, groupsel.Options{})
		if err != nil || rank.Value != bnb.Value {
			t.Errorf("instance %d: rank %v (%v), bnb %v", i, rank, err, bnb.Value)
		}
		solvers := []milp.Solver{milp.GLPK}
		if i < 3 || i == len(cases)-1 {
			// CBC takes seconds to minutes on the larger products'
			// linearisations (GLPK tenths of a second, the branch and
			// bound under a millisecond): the smallest suffice.
			solvers = append(solvers, milp.CBC)
		}
		for _, s := range solvers {
			began := time.Now()
			res := milp.Solve(t, s, path)
			t.Logf("instance %d: %s %v", i, s, time.Since(began))
			if !res.Optimal || math.Abs(res.Objective-bnb.Value) > 1e-6 {
				b, _ := os.ReadFile(path)
				t.Errorf("instance %d: %s says %+v, branch and bound %v\n%s", i, s, res, bnb.Value, b)
			}
		}
	}
}

// TestInfeasibleMILP: what the solvers call infeasible, the MILP solvers do
// too.
func TestInfeasibleMILP(t *testing.T) {
	in, err := opb.Read(strings.NewReader("+1 x1 +1 x2 >= 3 ;\n"), "f")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := groupsel.BranchAndBound(in, groupsel.Options{}); !errors.Is(err, groupsel.ErrInfeasible) {
		t.Fatalf("bnb: %v", err)
	}
	path := filepath.Join(t.TempDir(), "i.lp")
	if err := WriteFile(path, in); err != nil {
		t.Fatal(err)
	}
	for _, s := range []milp.Solver{milp.GLPK, milp.CBC} {
		if res := milp.Solve(t, s, path); res.Optimal || !res.Infeasible {
			t.Errorf("%s: %+v, want infeasible", s, res)
		}
	}
}
