package stats

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Wilcoxon method names, as reported in WilcoxonResult.Method.
const (
	WilcoxonExact  = "exact"
	WilcoxonNormal = "normal approximation with tie correction"
)

// wilcoxonExactMax is the largest number of differences for which the
// exact null distribution is used, SciPy's threshold for method="auto".
const wilcoxonExactMax = 50

// WilcoxonResult is the Wilcoxon signed-rank test of paired differences d (two-sided, H0: median 0).
type WilcoxonResult struct {
	// N is the number of non-zero differences used.
	N int
	// Zeros is the number of zero differences dropped ("wilcox" zero
	// method, SciPy's default).
	Zeros int
	// Statistic is min(W+, W-), as SciPy reports for two-sided.
	Statistic float64
	// WPlus is the sum of ranks of positive differences; W- is
	// N(N+1)/2 - WPlus.
	WPlus float64
	// Z is the normal-approximation z, (W+ - N(N+1)/4)/σ with the tie
	// corrected σ and no continuity correction; NaN for the exact method.
	// Unlike SciPy's zstatistic, which is computed from min(W+, W-) and so
	// is never positive, Z is signed: positive when positive differences
	// dominate. |Z| equals the absolute value of SciPy's zstatistic.
	Z float64
	// PValue is the two-sided p-value.
	PValue float64
	// Exact reports whether PValue comes from the exact null distribution.
	Exact bool
	// Method is WilcoxonExact ("exact") or WilcoxonNormal ("normal
	// approximation with tie correction"); no continuity correction is
	// applied, as in SciPy's default correction=False.
	Method string
}

// Wilcoxon tests whether the paired differences d are symmetric about 0
// (two-sided), dropping zero differences first as SciPy's default
// zero_method="wilcox" does.
//
// Exact distribution when N <= 50 and there are no ties (among |d|) and no zeros — matching SciPy's method="auto"; normal approximation with tie correction otherwise. Errors when N == 0.
//
// SciPy 1.10, the version the tests run against, keeps the exact method
// when |d| has ties, looking up the untied distribution at W+ truncated to
// an integer, which is not the null distribution of tied ranks; so with
// ties this function matches its method="approx" instead. Later SciPy
// releases changed method="auto" for ties too.
// Ties are exact floating-point equality of |d|, as in scipy.stats.rankdata.
// It errors when d contains a NaN, since a NaN cannot be ranked.
func Wilcoxon(d []float64) (WilcoxonResult, error) {
	if hasNaN(d) {
		return WilcoxonResult{}, errors.New("stats: Wilcoxon: differences contain NaN")
	}
	r := signedRanks(d)
	res := WilcoxonResult{N: r.n, Zeros: len(d) - r.n, WPlus: r.wPlus, Z: math.NaN()}
	if r.n == 0 {
		return res, errors.New("stats: Wilcoxon: no non-zero difference")
	}
	n := float64(r.n)
	total := n * (n + 1) / 2
	res.Statistic = math.Min(r.wPlus, total-r.wPlus)
	if r.n <= wilcoxonExactMax && res.Zeros == 0 && !r.ties {
		res.Exact, res.Method = true, WilcoxonExact
		res.PValue = wilcoxonExactP(r.n, int(math.Round(r.wPlus)))
		return res, nil
	}
	res.Method = WilcoxonNormal
	// Null variance of W+, n(n+1)(2n+1)/24, less (t³-t)/48 for every
	// group of t tied |d| (Hollander & Wolfe; SciPy's formula).
	v := (n*(n+1)*(2*n+1) - r.tieSum/2) / 24
	res.Z = (r.wPlus - total/2) / math.Sqrt(v)
	res.PValue = math.Min(1, 2*distuv.UnitNormal.Survival(math.Abs(res.Z)))
	return res, nil
}

// RankBiserial is the matched-pairs rank-biserial correlation (Kerby 2014), (W+ - W-)/(W+ + W-), the effect size reported with Wilcoxon; in [-1, 1].
//
// Zero differences are dropped as in Wilcoxon. It is NaN when no
// difference is non-zero (empty d included) or d contains a NaN.
func RankBiserial(d []float64) float64 {
	if hasNaN(d) {
		return math.NaN()
	}
	r := signedRanks(d)
	if r.n == 0 {
		return math.NaN()
	}
	n := float64(r.n)
	total := n * (n + 1) / 2
	return (r.wPlus - (total - r.wPlus)) / total
}

// CohenDz is mean(d)/sd(d), the standardized paired mean difference.
//
// sd uses n-1. It is NaN when len(d) < 2 or d contains a NaN; when all
// differences are equal (sd = 0) it follows IEEE division: ±Inf for a
// non-zero mean and NaN when every difference is 0.
func CohenDz(d []float64) float64 {
	if len(d) < 2 || hasNaN(d) {
		return math.NaN()
	}
	m, sd := stat.MeanStdDev(d, nil)
	return m / sd
}

// ranks is what Wilcoxon and RankBiserial need from the ranking of the
// non-zero |d|.
type ranks struct {
	n      int     // non-zero differences
	wPlus  float64 // sum of the (average) ranks of positive differences
	ties   bool    // whether two non-zero |d| are equal
	tieSum float64 // sum over groups of t equal |d| of t³-t
}

// signedRanks ranks the non-zero |d| with average ranks for ties, as
// scipy.stats.rankdata(method="average") does. d must be NaN-free.
func signedRanks(d []float64) ranks {
	nz := make([]float64, 0, len(d))
	for _, x := range d {
		if x != 0 {
			nz = append(nz, x)
		}
	}
	slices.SortFunc(nz, func(a, b float64) int {
		// cmp on |x|; the sign does not matter for ranks.
		a, b = math.Abs(a), math.Abs(b)
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	})
	r := ranks{n: len(nz)}
	for i := 0; i < len(nz); {
		j := i + 1
		for j < len(nz) && math.Abs(nz[j]) == math.Abs(nz[i]) {
			j++
		}
		// Positions i..j-1 hold ranks i+1..j; each gets their mean.
		rank := float64(i+1+j) / 2
		if t := float64(j - i); t > 1 {
			r.ties = true
			r.tieSum += t*t*t - t
		}
		for _, x := range nz[i:j] {
			if x > 0 {
				r.wPlus += rank
			}
		}
		i = j
	}
	return r
}

// wilcoxonExactP is the exact two-sided p-value of W+ = w among n
// untied, non-zero differences: 2·min(P(W+ <= w), P(W+ >= w)), capped at 1,
// as SciPy computes it.
//
// Under H0 each of the 2^n sign patterns is equally likely, so the null
// distribution is the number of subsets of {1..n} with each sum, counted
// by the usual subset-sum recursion. The counts are exact integers (at most
// 2^n <= 2^50) and the tail sums are formed in integers before the one
// division, so the p-value is correctly rounded even deep in the tail.
func wilcoxonExactP(n, w int) float64 {
	maxSum := n * (n + 1) / 2
	counts := make([]uint64, maxSum+1)
	counts[0] = 1
	for k := 1; k <= n; k++ {
		for s := k * (k + 1) / 2; s >= k; s-- {
			counts[s] += counts[s-k]
		}
	}
	var lower, upper uint64
	for s, c := range counts {
		if s <= w {
			lower += c
		}
		if s >= w {
			upper += c
		}
	}
	p := 2 * float64(min(lower, upper)) / math.Ldexp(1, n)
	return math.Min(1, p)
}
