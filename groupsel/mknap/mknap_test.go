package mknap

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk/groupsel"
)

// TestMknap1 solves OR-Library's mknap1 problems: the branch and bound
// reaches every published optimum, and the rank approach those of the four
// problems of at most 20 items, with the same selections.
func TestMknap1(t *testing.T) {
	probs, err := ReadFile("testdata/mknap1.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{3800, 8706.1, 4015, 6120, 12400, 10618, 16537}
	if len(probs) != len(want) {
		t.Fatalf("%d problems, want %d", len(probs), len(want))
	}
	for i, p := range probs {
		if p.Optimum != want[i] {
			t.Errorf("problem %d: the file states %v, the literature %v", i+1, p.Optimum, want[i])
		}
		bnb, err := groupsel.BranchAndBound(p.Instance, groupsel.Options{})
		if err != nil {
			t.Fatalf("problem %d: %v", i+1, err)
		}
		if math.Abs(bnb.Value-p.Optimum) > 1e-6 {
			t.Errorf("problem %d: branch and bound %v, optimum %v", i+1, bnb.Value, p.Optimum)
		}
		t.Logf("problem %d (n %d): %v in %d nodes", i+1, p.Instance.N, bnb.Value, bnb.Stats.Nodes)
		if p.Instance.N > 20 {
			continue
		}
		rank, err := groupsel.Rank(p.Instance, groupsel.Options{})
		if err != nil {
			t.Fatalf("problem %d: rank: %v", i+1, err)
		}
		if math.Abs(rank.Value-p.Optimum) > 1e-6 || !equal(rank.Selected, bnb.Selected) {
			t.Errorf("problem %d: rank %v %v, branch and bound %v %v", i+1, rank.Value, rank.Selected, bnb.Value, bnb.Selected)
		}
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestErrors names the line of what is wrong.
func TestErrors(t *testing.T) {
	for text, want := range map[string]string{
		"1\n2 1 5\n3 4\n1 x\n2\n": "f:4: problem 1's weight 2 of constraint 1: \"x\" is not a number",
		"1\n2 1 5\n3 4\n1 1\n":    "f:4: the file ends where problem 1's capacity 1 should be",
		"1\n2 1 5\n3 4\n1 -1\n2":  "f:4: problem 1: weight -1 is negative",
		"1\n2 1 5\n3 4\n1 1\n2 9": "f:5: \"9\" after the 1 problems the file announces",
		"1.5\n":                   "f:1: the number of problems: 1.5 is not a count",
	} {
		_, err := Read(strings.NewReader(text), "f")
		var e *Error
		if !errors.As(err, &e) || err.Error() != want {
			t.Errorf("%q: %v, want %s", text, err, want)
		}
	}
}
