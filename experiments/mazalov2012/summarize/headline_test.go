package main

import "testing"

// TestBelow checks the test of Fig. 5's curves: one ECDF never lies below
// another when each order statistic is at most the other's.
func TestBelow(t *testing.T) {
	cases := []struct {
		name string
		a, b []int64
		want bool
	}{
		{"equal", []int64{0, 5, 9}, []int64{0, 5, 9}, true},
		{"every wait shorter", []int64{0, 1, 2}, []int64{3, 4, 5}, true},
		// Job by job one waits longer (2 against 0), but as curves the
		// sorted waits are 0, 2 against 0, 3: still never below.
		{"a job waits longer, the curve stays above", []int64{0, 2}, []int64{0, 3}, true},
		{"the longest wait longer", []int64{0, 1, 7}, []int64{0, 2, 6}, false},
		{"the shortest wait longer", []int64{1, 1}, []int64{0, 5}, false},
	}
	for _, c := range cases {
		if got := below(c.a, c.b); got != c.want {
			t.Errorf("%s: below(%v, %v) = %v, want %v", c.name, c.a, c.b, got, c.want)
		}
	}
}
