package mknap

import (
	"errors"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk/groupsel"
)

// TestReadBest reads the committed results file: every problem of the nine
// mknapcb files has a best value and an LP value, the LP value above it.
func TestReadBest(t *testing.T) {
	best, err := ReadBestFile("testdata/mkcbres.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(best) != 270 {
		t.Errorf("%d problems, want 270 (9 files of 30)", len(best))
	}
	for _, c := range []struct {
		name      string
		value, lp float64
	}{
		{"5.100-00", 24381, 24585.902722}, {"5.100-29", 59965, 60242.912600}, {"30.500-29", 300460, 0},
	} {
		b, ok := best[c.name]
		if !ok || b.Value != c.value || c.lp != 0 && (b.LP < c.lp-1e-6 || b.LP > c.lp+1e-6) {
			t.Errorf("%s: %+v, want value %v, LP %v", c.name, b, c.value, c.lp)
		}
	}
	for n, b := range best {
		if b.Value <= 0 || b.LP < b.Value {
			t.Errorf("%s: best %v, LP %v: want 0 < best <= LP", n, b.Value, b.LP)
		}
	}
}

// TestReadBestErrors names the line of what is wrong.
func TestReadBestErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "f:1: no problem's value: not an OR-Library results file (mkcbres.txt)"},
		{"prose\n", "f:1: no problem's value: not an OR-Library results file (mkcbres.txt)"},
		{"5.100-00 1\n", "f:1: problem 5.100-00 before a table's heading (Problem Name  Best Feasible Solution Value, or LP optimal)"},
		{"Problem Name  Best Feasible Solution Value\n\n5.100-00 x\n", "f:3: problem 5.100-00: \"x\" is not a number"},
		{"Problem Name  Best Feasible Solution Value\n5.100-00\n", "f:2: problem 5.100-00: want one value after the name, got 0 fields"},
		{"Problem Name  Best Feasible Solution Value\n5.100-00 1\n5.100-00 2\n", "f:3: problem 5.100-00 named twice in the table of best values"},
		{"Problem Name LP optimal\n5.100-00 1\n5.100-00 2\n", "f:3: problem 5.100-00 named twice in the table of LP values"},
	} {
		_, err := ReadBest(strings.NewReader(c.text), "f")
		var e *Error
		if !errors.As(err, &e) || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.text, err, c.want)
		}
	}
}

// TestMknapcb1 runs the branch and bound on OR-Library's mknapcb1 (30
// problems of 100 items and 5 constraints) at a limit in nodes, not in
// time: each problem's search must stop at the limit with a selection
// within the capacities whose value does not exceed the LP relaxation's,
// and with a bound no lower than the published best value (a feasible
// value, so a lower bound on the optimum).
func TestMknapcb1(t *testing.T) {
	probs, err := ReadFile("testdata/mknapcb1.txt")
	if err != nil {
		t.Fatal(err)
	}
	best, err := ReadBestFile("testdata/mkcbres.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 30 {
		t.Fatalf("%d problems, want 30", len(probs))
	}
	for i, p := range probs {
		name := Name(p, i+1)
		b, ok := best[name]
		if !ok {
			t.Fatalf("problem %d: %s not in the results file", i+1, name)
		}
		if p.Optimum != 0 {
			t.Errorf("%s: the file states an optimum %v; OR-Library's mknapcb files state none", name, p.Optimum)
		}
		s, err := groupsel.BranchAndBound(p.Instance, groupsel.Options{MaxNodes: 2000})
		if err != nil && !errors.Is(err, groupsel.ErrBudget) || s == nil {
			t.Fatalf("%s: %v", name, err)
		}
		used := make([]float64, len(p.Instance.Constraints))
		value := 0.0
		for _, v := range s.Selected {
			value += p.Instance.Objective[v]
			for c, con := range p.Instance.Constraints {
				for _, k := range con.Coefs {
					if k.Term == v {
						used[c] += k.Value
					}
				}
			}
		}
		for c, con := range p.Instance.Constraints {
			if used[c] > con.Bound {
				t.Errorf("%s: constraint %d: %v used of %v", name, c+1, used[c], con.Bound)
			}
		}
		if value != s.Value || s.Value > b.LP || s.Bound < b.Value {
			t.Errorf("%s: value %v (selection's %v), bound %v; published best %v, LP %v", name, s.Value, value, s.Bound, b.Value, b.LP)
		}
	}
}
