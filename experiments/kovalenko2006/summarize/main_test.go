package main

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestSpearman checks the ranks (ties get their mean rank) and the
// correlation against a case worked by hand: x = 1..5 and y = 5, 6, 7, 8, 7
// rank as 1..5 and 1, 2, 3.5, 5, 3.5, whose Pearson correlation is
// 8 / sqrt(10 * 9.5) = 0.82078...
func TestSpearman(t *testing.T) {
	if got := ranks([]float64{10, 20, 20, 5}); !slices.Equal(got, []float64{2, 3.5, 3.5, 1}) {
		t.Errorf("ranks %v", got)
	}
	if got := spearman([]float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 7}); math.Abs(got-8/math.Sqrt(95)) > 1e-12 {
		t.Errorf("spearman %v, want %v", got, 8/math.Sqrt(95))
	}
	if lo, hi := quarters([]float64{8, 1, 2, 7, 3, 6, 4, 5}, []float64{80, 10, 20, 70, 30, 60, 40, 50}); lo != 15 || hi != 75 {
		t.Errorf("quarters %v %v, want 15 75", lo, hi)
	}
	if got := spearman([]float64{1, 2}, []float64{2, 1}); !math.IsNaN(got) {
		t.Errorf("spearman of two values %v, want NaN", got)
	}
}

// TestTable: a group's means with intervals, and the counts summed over
// its runs.
func TestTable(t *testing.T) {
	mk := func(wait float64, exact int) runOf {
		return runOf{group: "lookahead", metrics: map[string]float64{"global_mean_wait": wait * 3600, "refusals": 1},
			exact: exact, started: 10, charged: exact - 8, rho: 0.5}
	}
	var b bytes.Buffer
	table(&b, "policy", []runOf{mk(1, 10), mk(3, 9)})
	// Mean 2 h, t(0.975, 1) = 12.706, SD sqrt(2): 2 +- 12.706 = [-10.71, 14.71].
	for _, want := range []string{"| lookahead | 2 | 2.00 [-10.71, 14.71] |", "| 19/20 | 2 | 0 |", "| 0.00 [0.00, 0.00] / 0.00 [0.00, 0.00] |", "0.500 [0.500, 0.500]", "| 0.150 [-0.485, 0.785] |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
}
