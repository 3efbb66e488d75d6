package stats

import (
	"math"
	"sort"
)

// ECDF is an empirical cumulative distribution function.
type ECDF struct {
	// X holds the distinct sample values in increasing order and P[i] the
	// share of the sample that is <= X[i], so P is increasing and ends at 1.
	// Both are empty for an empty sample; for a sample with a NaN both are
	// the single value NaN (see NewECDF).
	X, P []float64
}

// NewECDF returns the empirical distribution function of xs.
//
// A sample containing a NaN cannot be ordered, so its ECDF is X = P =
// [NaN] and At returns NaN everywhere, rather than an ECDF of the other
// values that would hide the broken one.
func NewECDF(xs []float64) ECDF {
	if len(xs) == 0 {
		return ECDF{}
	}
	if hasNaN(xs) {
		return ECDF{X: []float64{math.NaN()}, P: []float64{math.NaN()}}
	}
	sorted := sortedCopy(xs)
	n := float64(len(sorted))
	var e ECDF
	for i, x := range sorted {
		// The last of a run of equal values carries the run's share:
		// i+1 values are <= x.
		if i+1 < len(sorted) && sorted[i+1] == x {
			continue
		}
		e.X = append(e.X, x)
		e.P = append(e.P, float64(i+1)/n)
	}
	return e
}

// At returns the share of the sample that is <= x: a right-continuous step
// function, 0 below the smallest value and 1 from the largest on.
//
// It is NaN for a NaN x, for the ECDF of an empty sample (no share is
// defined) and for the ECDF of a sample that contained a NaN.
func (e ECDF) At(x float64) float64 {
	if len(e.X) == 0 || math.IsNaN(x) || math.IsNaN(e.X[0]) {
		return math.NaN()
	}
	// i is the number of distinct values <= x.
	i := sort.Search(len(e.X), func(i int) bool { return e.X[i] > x })
	if i == 0 {
		return 0
	}
	return e.P[i-1]
}

// Quantile is the p-quantile with linear interpolation between order statistics (Hyndman & Fan type 7, numpy's and SciPy's default).
//
// It is NaN for an empty sample, a sample containing a NaN (as in
// numpy.quantile) and a p outside [0, 1] or NaN. Callers needing several
// quantiles of one sample should use Quantiles, which sorts only once.
func Quantile(xs []float64, p float64) float64 {
	return Quantiles(xs, []float64{p})[0]
}

// Quantiles returns the type 7 quantiles of xs at each of ps, in the order
// of ps, with the NaN rules of Quantile.
func Quantiles(xs []float64, ps []float64) []float64 {
	out := make([]float64, len(ps))
	if len(xs) == 0 || hasNaN(xs) {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	sorted := sortedCopy(xs)
	for i, p := range ps {
		out[i] = quantileSorted(sorted, p)
	}
	return out
}

// quantileSorted is the type 7 quantile of the non-empty, NaN-free sorted
// slice s. It interpolates as numpy does (numpy/lib/function_base.py,
// _lerp): from the lower order statistic below the midpoint and from the
// upper one above it, which keeps the result within [s[lo], s[lo+1]] and
// exact at both ends despite rounding.
func quantileSorted(s []float64, p float64) float64 {
	if !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	h := float64(len(s)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	t := h - lo
	a, b := s[i], s[i+1]
	if t == 0 || a == b {
		// Also keeps ±Inf from turning into NaN via Inf-Inf or Inf·0.
		return a
	}
	diff := b - a
	if t >= 0.5 {
		return b - diff*(1-t)
	}
	return a + diff*t
}
