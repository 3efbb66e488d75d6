package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a confidence interval.
type Interval struct {
	// Lo and Hi are the bounds; both are NaN when the interval is undefined
	// (for example a Student t interval of fewer than two values).
	Lo, Hi float64
	// Level is the confidence level, e.g. 0.95.
	Level float64
	// Method names how the interval was computed: "student-t",
	// "bootstrap-bca" or "bootstrap-percentile".
	Method string
}

// Method names of an Interval, so that callers can compare against
// constants rather than repeat the strings.
const (
	MethodStudentT            = "student-t"
	MethodBootstrapBCa        = "bootstrap-bca"
	MethodBootstrapPercentile = "bootstrap-percentile"
)

// Summary describes a sample.
type Summary struct {
	// N is the number of values.
	N int
	// Mean is the arithmetic mean, SD the sample standard deviation (with
	// n-1 in the denominator, NumPy's ddof=1) and SE = SD/sqrt(N) the
	// standard error of the mean.
	Mean, SD, SE float64
	// Min, Median and Max are order statistics; Median is the type 7
	// quantile at 0.5, the usual median.
	Min, Median, Max float64
	// CI is the Student t interval of the mean; its bounds are NaN when
	// N < 2.
	CI Interval
}

// Describe summarizes xs with a Student t interval of the mean at the given
// confidence level.
//
// An empty sample gives N = 0 and NaN everywhere else; a single value gives
// its Mean, Min, Median and Max with NaN SD, SE and interval bounds, since
// one value says nothing about spread. If xs contains a NaN, every field
// but N is NaN: a summary that silently ignored it would hide a broken run.
func Describe(xs []float64, level float64) Summary {
	nan := math.NaN()
	s := Summary{N: len(xs), Mean: nan, SD: nan, SE: nan, Min: nan, Median: nan, Max: nan}
	s.CI = MeanCI(xs, level)
	if len(xs) == 0 || hasNaN(xs) {
		return s
	}
	sorted := sortedCopy(xs)
	s.Min, s.Max = sorted[0], sorted[len(sorted)-1]
	s.Median = quantileSorted(sorted, 0.5)
	s.Mean = stat.Mean(xs, nil)
	if len(xs) >= 2 {
		s.SD = stat.StdDev(xs, nil)
		s.SE = s.SD / math.Sqrt(float64(len(xs)))
	}
	return s
}

// MeanCI is the Student t confidence interval of the mean of xs, mean ±
// t(level, n-1)·SD/√n, as scipy.stats.t.interval(level, n-1, mean, sem)
// computes it.
//
// The bounds are NaN when len(xs) < 2, when xs contains a NaN or when level
// is not strictly between 0 and 1; the interval has zero width when all
// values are equal (SD = 0), which is the honest answer for a deterministic
// metric.
func MeanCI(xs []float64, level float64) Interval {
	iv := Interval{Lo: math.NaN(), Hi: math.NaN(), Level: level, Method: MethodStudentT}
	n := len(xs)
	if n < 2 || !(level > 0 && level < 1) || hasNaN(xs) {
		return iv
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	se := sd / math.Sqrt(float64(n))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile((1 + level) / 2)
	iv.Lo, iv.Hi = mean-t*se, mean+t*se
	return iv
}

// hasNaN reports whether xs contains a NaN.
func hasNaN(xs []float64) bool {
	return slices.ContainsFunc(xs, math.IsNaN)
}

// sortedCopy returns xs sorted in increasing order without touching xs.
func sortedCopy(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}
