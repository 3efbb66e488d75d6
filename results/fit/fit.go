package fit

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Family names a distribution family.
type Family string

// The supported families, all with location fixed at 0 (see the package
// documentation).
const (
	// Exponential has density rate·exp(−rate·x): memoryless, the baseline
	// that heavier-tailed families must beat.
	Exponential Family = "exponential"
	// LogNormal is the law of exp(N(mu, sigma²)); mu and sigma are those of
	// ln x, as in scipy.stats.lognorm(s=sigma, scale=exp(mu)).
	LogNormal Family = "lognormal"
	// Weibull has CDF 1 − exp(−(x/lambda)^k), scipy.stats.weibull_min(c=k,
	// scale=lambda).
	Weibull Family = "weibull"
	// Gamma has density x^(k−1)·exp(−x/theta)/(Γ(k)·theta^k),
	// scipy.stats.gamma(a=k, scale=theta).
	Gamma Family = "gamma"
)

// Parameter names, the keys of Fit.Params, so that callers need not repeat
// the strings.
const (
	// ParamRate is the exponential rate (1/mean).
	ParamRate = "rate"
	// ParamMu is the log-normal mean of ln x.
	ParamMu = "mu"
	// ParamSigma is the log-normal standard deviation of ln x.
	ParamSigma = "sigma"
	// ParamK is the shape of the Weibull and gamma families.
	ParamK = "k"
	// ParamLambda is the Weibull scale.
	ParamLambda = "lambda"
	// ParamTheta is the gamma scale (1/rate).
	ParamTheta = "theta"
)

// Families returns every supported family, in the order FitAll uses to
// break ties of AIC (simplest first). The slice is new on each call.
func Families() []Family { return []Family{Exponential, LogNormal, Weibull, Gamma} }

// NumParams is the number of free parameters of the family, which AIC and
// BIC charge for: 1 for exponential, 2 for the others and 0 for an unknown
// family.
func (fam Family) NumParams() int {
	switch fam {
	case Exponential:
		return 1
	case LogNormal, Weibull, Gamma:
		return 2
	}
	return 0
}

// Fit is a fitted distribution.
type Fit struct {
	// Family is the distribution family.
	Family Family
	// Params holds the parameters by name (the Param constants):
	// exponential: rate; lognormal: mu, sigma (of ln x); weibull: shape k,
	// scale lambda; gamma: shape k, scale theta.
	Params map[string]float64
	// LogLik is the log-likelihood of the sample at Params, Σ ln f(xᵢ).
	LogLik float64
	// AIC = 2p − 2·LogLik and BIC = p·ln N − 2·LogLik, with p =
	// Family.NumParams(); lower is better, and only differences between
	// fits of the same sample mean anything.
	AIC, BIC float64
	// N is the sample size.
	N int
}

// String formats the family and parameters, for logs and reports.
func (f Fit) String() string {
	l, err := f.law()
	if err != nil {
		return fmt.Sprintf("%s(invalid: %v)", f.Family, err)
	}
	a, b := l.names()
	if b == "" {
		return fmt.Sprintf("%s(%s=%.6g)", f.Family, a, l.a)
	}
	return fmt.Sprintf("%s(%s=%.6g, %s=%.6g)", f.Family, a, l.a, b, l.b)
}

// CDF is the distribution function at x: 0 for x <= 0, and NaN for a NaN
// x or a Fit whose family or parameters are invalid (so that a broken Fit
// shows up in a report rather than as a plausible number).
func (f Fit) CDF(x float64) float64 {
	l, err := f.law()
	if err != nil {
		return math.NaN()
	}
	return l.cdf(x)
}

// Quantile is the inverse of CDF: the x with CDF(x) = p, 0 at p = 0 and +Inf
// at p = 1. It is NaN for p outside [0, 1] (where gonum panics) and for an
// invalid Fit.
func (f Fit) Quantile(p float64) float64 {
	l, err := f.law()
	if err != nil {
		return math.NaN()
	}
	return l.quantile(p)
}

// Rand draws a value from the fitted law using rng, which must not be nil;
// the same rng state gives the same value. It is NaN for an invalid Fit.
func (f Fit) Rand(rng *rand.Rand) float64 {
	l, err := f.law()
	if err != nil {
		return math.NaN()
	}
	return l.rand(rng)
}

// Distribution is what the gonum distuv type of every family provides, so
// that a Fit can be handed to code that works on distributions.
type Distribution interface {
	CDF(x float64) float64
	Survival(x float64) float64
	Quantile(p float64) float64
	Prob(x float64) float64
	LogProb(x float64) float64
	Mean() float64
	StdDev() float64
	Rand() float64
}

// Dist returns the fitted law as a gonum distuv value (distuv.Exponential,
// distuv.LogNormal, distuv.Weibull or distuv.Gamma) drawing from src; a
// nil src makes gonum draw from the global generator, which is not
// reproducible. gonum's Quantile panics outside [0, 1] and loses relative
// precision in the lower tail of the exponential and Weibull laws, where
// Fit.Quantile does not. It errors for an invalid Fit.
func (f Fit) Dist(src rand.Source) (Distribution, error) {
	l, err := f.law()
	if err != nil {
		return nil, fmt.Errorf("fit: Dist: %w", err)
	}
	switch l.fam {
	case Exponential:
		return distuv.Exponential{Rate: l.a, Src: src}, nil
	case LogNormal:
		return distuv.LogNormal{Mu: l.a, Sigma: l.b, Src: src}, nil
	case Weibull:
		return distuv.Weibull{K: l.a, Lambda: l.b, Src: src}, nil
	default: // Gamma; law() accepts no other family
		return distuv.Gamma{Alpha: l.a, Beta: 1 / l.b, Src: src}, nil
	}
}

// law is a family with its parameters unpacked from the Params map, which
// the hot loops (likelihood, statistics, bootstrap) use instead of map
// look-ups. a and b are: exponential rate (b unused); lognormal mu, sigma;
// Weibull k, lambda; gamma k, theta.
type law struct {
	fam  Family
	a, b float64
}

// names returns the Params keys of a and b ("" for an unused b).
func (l law) names() (a, b string) {
	switch l.fam {
	case Exponential:
		return ParamRate, ""
	case LogNormal:
		return ParamMu, ParamSigma
	case Weibull:
		return ParamK, ParamLambda
	case Gamma:
		return ParamK, ParamTheta
	}
	return "", ""
}

// params packs l into a Params map.
func (l law) params() map[string]float64 {
	a, b := l.names()
	m := map[string]float64{a: l.a}
	if b != "" {
		m[b] = l.b
	}
	return m
}

// law unpacks and checks f's parameters: every one must be present and
// valid (see law.check). Extra keys are an error too, since they are most
// likely a misspelt name.
func (f Fit) law() (law, error) {
	l := law{fam: f.Family}
	an, bn := l.names()
	if an == "" {
		return l, fmt.Errorf("unknown family %q", f.Family)
	}
	var ok bool
	if l.a, ok = f.Params[an]; !ok {
		return l, fmt.Errorf("%s: no parameter %q", f.Family, an)
	}
	want := 1
	if bn != "" {
		want = 2
		if l.b, ok = f.Params[bn]; !ok {
			return l, fmt.Errorf("%s: no parameter %q", f.Family, bn)
		}
	}
	if len(f.Params) != want {
		return l, fmt.Errorf("%s: %d parameters, want %d (%s)", f.Family, len(f.Params), want, paramList(an, bn))
	}
	return l, l.check()
}

// check returns an error unless every parameter of l is finite and all
// but the log-normal mu are positive. MLE applies it to its estimates
// too, which overflow only for data near the float64 limits.
func (l law) check() error {
	an, bn := l.names()
	for _, p := range []struct {
		name     string
		v        float64
		anySign  bool
		inFamily bool
	}{{an, l.a, l.fam == LogNormal, true}, {bn, l.b, false, bn != ""}} {
		switch {
		case !p.inFamily:
		case math.IsNaN(p.v) || math.IsInf(p.v, 0):
			return fmt.Errorf("%s: parameter %s = %v is not finite", l.fam, p.name, p.v)
		case p.v <= 0 && !p.anySign:
			return fmt.Errorf("%s: parameter %s = %v is not positive", l.fam, p.name, p.v)
		}
	}
	return nil
}

// paramList lists the parameter names a and b, for error messages.
func paramList(a, b string) string {
	if b == "" {
		return a
	}
	return a + ", " + b
}

// cdf is the distribution function; see Fit.CDF.
func (l law) cdf(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return math.NaN()
	case x <= 0:
		// gonum's LogNormal would give NaN below 0 (the log of a negative
		// number); every family here lives on (0, ∞).
		return 0
	}
	switch l.fam {
	case Exponential:
		return distuv.Exponential{Rate: l.a}.CDF(x)
	case LogNormal:
		// As SciPy's lognorm(s=sigma, scale=exp(mu)): ln(x/e^mu) is
		// accurate to 2⁻⁵³ absolute where ln x − mu carries the rounding
		// of both logarithms, |mu|·2⁻⁵³, which a small sigma magnifies.
		return distuv.LogNormal{Mu: 0, Sigma: l.b}.CDF(x / math.Exp(l.a))
	case Weibull:
		return distuv.Weibull{K: l.a, Lambda: l.b}.CDF(x)
	case Gamma:
		return distuv.Gamma{Alpha: l.a, Beta: 1 / l.b}.CDF(x)
	}
	return math.NaN()
}

// quantile is the inverse CDF; see Fit.Quantile.
func (l law) quantile(p float64) float64 {
	switch {
	case !(p >= 0 && p <= 1):
		return math.NaN()
	case p == 0:
		return 0
	case p == 1:
		return math.Inf(1)
	}
	switch l.fam {
	case Exponential:
		// −ln(1−p) via Log1p: gonum's math.Log(1-p) keeps only the
		// absolute precision of 1−p, so its relative error grows as p
		// shrinks (1e-6 at p = 1e-10).
		return -math.Log1p(-p) / l.a
	case LogNormal:
		return math.Exp(l.a) * distuv.LogNormal{Mu: 0, Sigma: l.b}.Quantile(p)
	case Weibull:
		return l.b * math.Pow(-math.Log1p(-p), 1/l.a)
	case Gamma:
		// gonum's Gamma.Quantile returns 0 in the lower tail of small
		// shapes; see gammaQuantile.
		return l.b * gammaQuantile(l.a, p)
	}
	return math.NaN()
}

// rand draws a value with rng; see Fit.Rand.
func (l law) rand(rng *rand.Rand) float64 {
	switch l.fam {
	case Exponential:
		return distuv.Exponential{Rate: l.a, Src: rng}.Rand()
	case LogNormal:
		return distuv.LogNormal{Mu: l.a, Sigma: l.b, Src: rng}.Rand()
	case Weibull:
		// lambda·E^(1/k) with E standard exponential is Weibull by
		// inversion. gonum's Weibull.Rand inverts a uniform U in [0, 1)
		// instead and returns exactly 0 when U = 0, a value that no
		// refit of a bootstrap sample would accept; ExpFloat64 is never 0.
		return l.b * math.Pow(rng.ExpFloat64(), 1/l.a)
	case Gamma:
		return distuv.Gamma{Alpha: l.a, Beta: 1 / l.b, Src: rng}.Rand()
	}
	return math.NaN()
}

// logPDF is the log-density at x > 0. The Weibull and gamma forms take
// logarithms before powers, so that neither x^k nor Γ(k) overflows for
// the shapes and ranges of job data.
func (l law) logPDF(x float64) float64 {
	lx := math.Log(x)
	switch l.fam {
	case Exponential:
		return math.Log(l.a) - l.a*x
	case LogNormal:
		z := (lx - l.a) / l.b
		return -0.5*z*z - lx - math.Log(l.b) - 0.5*math.Log(2*math.Pi)
	case Weibull:
		lz := lx - math.Log(l.b) // ln(x/lambda)
		return math.Log(l.a) - math.Log(l.b) + (l.a-1)*lz - math.Exp(l.a*lz)
	case Gamma:
		k := l.a
		if k < asymptoticFrom {
			lg, _ := math.Lgamma(k)
			return -lg - k*math.Log(l.b) + (k-1)*lx - x/l.b
		}
		// For large shapes (nearly constant samples) the terms of the
		// form above are ~k·ln x and cancel to a few units: rounding
		// costs k·2⁻⁵³ absolute. With u = x/(k·theta) (x over the mean)
		// and Stirling's series, the same density is
		//   −k·(u − 1 − ln u) + ½ ln(k/2π) − stirlerr(k) − ln x,
		// whose terms are of the size of the result.
		u := x / (k * l.b)
		return -k*uMinus1MinusLog(u) + 0.5*math.Log(k/(2*math.Pi)) - stirlerr(k) - lx
	}
	return math.NaN()
}

// logLik is Σ ln f(xᵢ) over xs.
func (l law) logLik(xs []float64) float64 {
	var s acc
	for _, x := range xs {
		s.add(l.logPDF(x))
	}
	return s.sum()
}
