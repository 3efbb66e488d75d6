package runtable

import (
	"math"
	"testing"
)

func TestNumAndCell(t *testing.T) {
	r := Row{"a": int64(3), "b": 2.5, "c": "x"}
	if r.Num("a") != 3 || r.Num("b") != 2.5 || !math.IsNaN(r.Num("c")) || !math.IsNaN(r.Num("missing")) {
		t.Errorf("Num: %v %v %v %v", r.Num("a"), r.Num("b"), r.Num("c"), r.Num("missing"))
	}
	for _, c := range []struct {
		xs   []float64
		want string
	}{
		{[]float64{2, 2, 2}, "2.0"},
		{[]float64{5}, "5.0"},
		// mean 2, sd 1, t(0.975, 2) = 4.303: 2 +- 2.484
		{[]float64{1, 2, 3}, "2.0 [-0.5, 4.5]"},
	} {
		if got := Cell(c.xs, "%.1f"); got != c.want {
			t.Errorf("Cell(%v) = %q, want %q", c.xs, got, c.want)
		}
	}
}
