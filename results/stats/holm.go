package stats

import (
	"math"
	"slices"
)

// Holm returns Holm-Bonferroni adjusted p-values, in the order given (monotone, capped at 1).
//
// With the m p-values sorted increasingly, the i-th (from 1) is adjusted to
// max over j <= i of (m-j+1)·p(j), capped at 1, so that rejecting every
// adjusted p-value below α controls the family-wise error rate at α.
// NaN p-values (a comparison without a test) stay NaN in the result and do
// not count in m, as in R's p.adjust, so one missing test does not inflate
// the others. p is not modified.
func Holm(p []float64) []float64 {
	out := make([]float64, len(p))
	idx := make([]int, 0, len(p))
	for i, v := range p {
		if math.IsNaN(v) {
			out[i] = math.NaN()
			continue
		}
		idx = append(idx, i)
	}
	// A stable sort keeps the result independent of how equal p-values
	// are ordered (they get the same adjusted value anyway).
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	m := len(idx)
	running := 0.0
	for rank, i := range idx {
		running = math.Max(running, float64(m-rank)*p[i])
		out[i] = math.Min(1, running)
	}
	return out
}
