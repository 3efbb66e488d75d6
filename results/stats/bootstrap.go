package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// BootMethod selects how Bootstrap turns the bootstrap distribution into an
// interval.
type BootMethod int

// Bootstrap interval methods.
const (
	// Percentile takes the (1-level)/2 and (1+level)/2 quantiles of the
	// bootstrap distribution (Efron & Tibshirani 1993, ch. 13).
	Percentile BootMethod = iota + 1
	// BCa is the bias-corrected and accelerated percentile interval
	// (Efron & Tibshirani 1993, ch. 14), second-order accurate, and
	// scipy.stats.bootstrap's default.
	BCa
)

// String returns the Interval.Method name of m.
func (m BootMethod) String() string {
	switch m {
	case Percentile:
		return MethodBootstrapPercentile
	case BCa:
		return MethodBootstrapBCa
	}
	return fmt.Sprintf("BootMethod(%d)", int(m))
}

// Bootstrap returns a bootstrap CI of stat over xs with the given number of resamples.
// BCa uses the jackknife for acceleration (Efron & Tibshirani 1993, ch. 14), as scipy.stats.bootstrap does.
// Errors when len(xs) < 2 or resamples < 1; deterministic given rng.
//
// Each resample draws len(xs) values from xs with replacement using
// rng.IntN; the same rng state, data and arguments give the same interval.
// Quantiles of the bootstrap distribution are type 7, as np.percentile in
// SciPy. For BCa, the bias correction z0 is Φ⁻¹ of the share of resampled
// statistics below the sample's (ties counted half), and the acceleration
// comes from the len(xs) leave-one-out statistics; both as
// scipy.stats.bootstrap 1.10 computes them, so that from the same
// resamples the intervals agree to rounding, except that statistics within
// a few units in the last place of the sample's count as ties (see
// bcaLevels) where SciPy compares exactly.
//
// stat gets a scratch slice it may reorder (xs itself is never passed);
// it must not keep it after returning. When the bootstrap distribution
// is degenerate because every statistic is the same value c (for example
// constant data), the interval is [c, c], where SciPy would give NaN: a
// zero acceleration is used when the jackknife statistics do not vary.
//
// It also errors when level is not strictly between 0 and 1, method is
// unknown, xs contains a NaN, stat returns NaN for the sample, a resample
// or a jackknife sample, or the BCa bias correction is infinite (the
// sample's statistic lies above or below every resampled one, as it can
// for a statistic such as the number of distinct values).
func Bootstrap(xs []float64, stat func([]float64) float64, level float64, resamples int, method BootMethod, rng *rand.Rand) (Interval, error) {
	iv := Interval{Lo: math.NaN(), Hi: math.NaN(), Level: level, Method: method.String()}
	n := len(xs)
	switch {
	case n < 2:
		return iv, fmt.Errorf("stats: Bootstrap: need at least 2 values, have %d", n)
	case resamples < 1:
		return iv, fmt.Errorf("stats: Bootstrap: need at least 1 resample, have %d", resamples)
	case !(level > 0 && level < 1):
		return iv, fmt.Errorf("stats: Bootstrap: level %v is not in (0, 1)", level)
	case method != Percentile && method != BCa:
		return iv, fmt.Errorf("stats: Bootstrap: unknown method %d", int(method))
	case hasNaN(xs):
		return iv, errors.New("stats: Bootstrap: values contain NaN")
	case rng == nil:
		return iv, errors.New("stats: Bootstrap: nil *rand.Rand")
	}
	buf := make([]float64, n)
	theta := make([]float64, resamples)
	for b := range theta {
		for i := range buf {
			buf[i] = xs[rng.IntN(n)]
		}
		theta[b] = stat(buf)
		if math.IsNaN(theta[b]) {
			return iv, errors.New("stats: Bootstrap: statistic is NaN on a resample")
		}
	}
	var err error
	iv.Lo, iv.Hi, err = bootInterval(xs, stat, theta, level, method)
	return iv, err
}

// bootInterval turns the bootstrap distribution theta (the statistics of
// the resamples, in any order; it is sorted in place) into the bounds of a
// Bootstrap interval. It is separate from the resampling so that the tests
// can feed it SciPy's own bootstrap distribution and compare to rounding.
func bootInterval(xs []float64, stat func([]float64) float64, theta []float64, level float64, method BootMethod) (lo, hi float64, err error) {
	slices.Sort(theta)
	alpha := (1 - level) / 2
	lo, hi = alpha, 1-alpha
	if method == BCa {
		if lo, hi, err = bcaLevels(xs, stat, theta, alpha); err != nil {
			return math.NaN(), math.NaN(), err
		}
	}
	return quantileSorted(theta, lo), quantileSorted(theta, hi), nil
}

// tieULPs is how many units in the last place a resampled statistic may
// differ from the sample's and still count as equal to it in the BCa bias
// correction: more than the rounding of a sum of a few dozen values in
// another order, far less than the gap between statistics of different
// resamples of real data.
const tieULPs = 64

// bcaLevels returns the BCa-adjusted quantile levels α1 and α2 for the
// sorted bootstrap distribution theta (Efron & Tibshirani 1993, eq. 14.10
// and 14.15; scipy.stats._resampling._bca_interval).
func bcaLevels(xs []float64, stat func([]float64) float64, theta []float64, alpha float64) (a1, a2 float64, err error) {
	n := len(xs)
	buf := slices.Clone(xs)
	thetaHat := stat(buf)
	if math.IsNaN(thetaHat) {
		return 0, 0, errors.New("stats: Bootstrap: statistic is NaN on the sample")
	}

	// Bias correction: the share of resampled statistics below thetaHat,
	// counting equal ones half (SciPy's _percentile_of_score). Unlike
	// SciPy, "equal" allows tieULPs of rounding: a resample that is a
	// permutation of the sample has the same statistic mathematically but
	// may differ in the last bits (the sum runs in another order), and
	// with the few replicates of a campaign such resamples are common (1
	// in 26 for n = 5), so whether they count as below, equal or above
	// must not hang on rounding.
	tieLo, tieHi := thetaHat, thetaHat
	for range tieULPs {
		tieLo, tieHi = math.Nextafter(tieLo, math.Inf(-1)), math.Nextafter(tieHi, math.Inf(1))
	}
	below, atOrBelow := 0, 0
	for _, t := range theta {
		if t < tieLo {
			below++
		}
		if t <= tieHi {
			atOrBelow++
		}
	}
	z0 := distuv.UnitNormal.Quantile(float64(below+atOrBelow) / float64(2*len(theta)))
	if math.IsInf(z0, 0) {
		return 0, 0, errors.New("stats: Bootstrap: BCa bias correction is infinite: the statistic of the sample lies outside the bootstrap distribution")
	}

	// Acceleration from the jackknife: with θ(i) the statistic without
	// value i and θ(·) their mean, a = Σ(θ(·)-θ(i))³ / (6·(Σ(θ(·)-θ(i))²)^1.5).
	jack := make([]float64, n)
	loo := buf[:n-1]
	for i := range jack {
		copy(loo, xs[:i])
		copy(loo[i:], xs[i+1:])
		jack[i] = stat(loo)
		if math.IsNaN(jack[i]) {
			return 0, 0, errors.New("stats: Bootstrap: statistic is NaN on a jackknife sample")
		}
	}
	var mean float64
	for _, j := range jack {
		mean += j
	}
	mean /= float64(n)
	var num, den float64
	for _, j := range jack {
		u := mean - j
		num += u * u * u
		den += u * u
	}
	a := 0.0
	if den > 0 {
		a = num / (6 * math.Pow(den, 1.5))
	}

	za := distuv.UnitNormal.Quantile(alpha)
	adjust := func(z float64) float64 {
		w := z0 + z
		return distuv.UnitNormal.CDF(z0 + w/(1-a*w))
	}
	a1, a2 = adjust(za), adjust(-za)
	if !(a1 >= 0 && a1 <= 1 && a2 >= 0 && a2 <= 1) {
		return 0, 0, fmt.Errorf("stats: Bootstrap: BCa quantile levels (%v, %v) are not probabilities (z0 %v, acceleration %v)", a1, a2, z0, a)
	}
	return a1, a2, nil
}
