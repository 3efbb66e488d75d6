package fit

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// KS is the one-sample Kolmogorov–Smirnov statistic D = sup |Fₙ(x) − F(x)|
// of xs against the fitted law, as scipy.stats.kstest(xs, cdf).statistic
// computes it: with x₍₁₎ <= … <= x₍ₙ₎ sorted, the larger of
// max i/n − F(x₍ᵢ₎) and max F(x₍ᵢ₎) − (i−1)/n. Tied values need no special
// case: the last of a run gives the empirical CDF after the jump and the
// first the one before it.
//
// It is NaN for an empty xs, an xs holding a NaN or an invalid Fit. Its
// classical p-value does not apply to a fit of the same data; see Test.
func KS(xs []float64, f Fit) float64 {
	d, _ := statistics(xs, f)
	return d
}

// CvM is the Cramér–von Mises statistic W² = 1/(12n) + Σ ((2i−1)/(2n) −
// F(x₍ᵢ₎))² of xs against the fitted law, SciPy's definition
// (scipy.stats.cramervonmises(xs, cdf).statistic). It weighs the whole
// distribution where KS looks at its largest gap, so it is the more
// sensitive of the two to a misfit spread over the body of the data.
//
// It is NaN in the cases KS is.
func CvM(xs []float64, f Fit) float64 {
	_, w := statistics(xs, f)
	return w
}

// statistics returns KS and CvM of xs against f, NaN when they are
// undefined.
func statistics(xs []float64, f Fit) (d, w2 float64) {
	l, err := f.law()
	if err != nil || len(xs) == 0 || slices.ContainsFunc(xs, math.IsNaN) {
		return math.NaN(), math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return sortedStatistics(s, l)
}

// sortedStatistics returns the KS and CvM statistics of the sorted,
// NaN-free, non-empty s against l, evaluating the CDF once per value.
func sortedStatistics(s []float64, l law) (d, w2 float64) {
	n := float64(len(s))
	var w acc
	for i, x := range s {
		p := l.cdf(x)
		fi := float64(i)
		d = max(d, (fi+1)/n-p, p-fi/n)
		u := (2*fi + 1) / (2 * n)
		w.add((u - p) * (u - p))
	}
	return d, 1/(12*n) + w.sum()
}

// GoF holds goodness-of-fit statistics and their parametric-bootstrap
// p-values.
//
// The parameters of a Fit come from the data they are tested against, so
// the fitted law is closer to the data than the true law is, and the
// classical KS and CvM p-values (which assume parameters fixed in advance)
// would be far too large: a wrong family would pass. The p-values here are
// Lilliefors-style instead: each resample draws len(xs) values from the
// fitted law, refits the family to them and computes the statistics
// against that refit, which reproduces the effect of estimation.
type GoF struct {
	// KS and CvM are the statistics of the sample against the Fit, as the
	// functions KS and CvM compute them.
	KS, CvM float64
	// KSP and CvMP are the p-values (1 + #{resamples with a statistic >=
	// the sample's}) / (Resamples + 1): never 0, and at least
	// 1/(Resamples+1), the resolution a bootstrap can claim (Davison &
	// Hinkley 1997, §4.2.1). Small values reject the family.
	KSP, CvMP float64
	// Resamples is the number of bootstrap resamples.
	Resamples int
}

// Test computes KS and CvM of xs against f and their p-values from
// resamples parametric-bootstrap resamples drawn with rng (see GoF).
//
// f should be MLE(xs, f.Family), the fit being judged: each resample is
// refitted by MLE, so a Fit obtained otherwise (parameters fixed in
// advance) gets p-values for a question it did not ask. Given the same rng
// state, data and arguments the result is the same: resample b draws its
// len(xs) values in order from rng.
//
// Its cost is resamples times a fit, a sort and len(xs) CDF evaluations;
// a few hundred resamples suffice for p-values near the usual
// thresholds. It errors when resamples < 1, rng is nil, f is invalid, xs
// would be rejected by MLE, or a resample cannot be refitted (which needs
// a law so extreme that its draws underflow to 0 or overflow).
func Test(xs []float64, f Fit, resamples int, rng *rand.Rand) (GoF, error) {
	nan := math.NaN()
	g := GoF{KS: nan, CvM: nan, KSP: nan, CvMP: nan, Resamples: resamples}
	l, err := f.law()
	switch {
	case err != nil:
		return g, fmt.Errorf("fit: Test: %w", err)
	case resamples < 1:
		return g, fmt.Errorf("fit: Test: need at least 1 resample, have %d", resamples)
	case rng == nil:
		return g, errors.New("fit: Test: nil *rand.Rand")
	}
	if err := checkSample(xs); err != nil {
		return g, fmt.Errorf("fit: Test: %w", err)
	}
	n := len(xs)
	if n < l.fam.NumParams() {
		return g, fmt.Errorf("fit: Test: a %s fit needs at least %d values, have %d", l.fam, l.fam.NumParams(), n)
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	g.KS, g.CvM = sortedStatistics(s, l)
	ys := make([]float64, n)
	var geKS, geCvM int
	for b := range resamples {
		for i := range s {
			s[i] = l.rand(rng)
		}
		slices.Sort(s)
		lb, err := estimate(s, l.fam, ys)
		if err != nil {
			return g, fmt.Errorf("fit: Test: refit of resample %d from %v: %w", b, f, err)
		}
		d, w2 := sortedStatistics(s, lb)
		if d >= g.KS {
			geKS++
		}
		if w2 >= g.CvM {
			geCvM++
		}
	}
	g.KSP = float64(geKS+1) / float64(resamples+1)
	g.CvMP = float64(geCvM+1) / float64(resamples+1)
	return g, nil
}
