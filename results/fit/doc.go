// Package fit fits parametric distributions to samples of scheduler
// history (run times, requested times, processor counts, waits) by maximum
// likelihood, and measures how well they fit.
//
// Four families are supported: exponential, log-normal, Weibull and gamma.
// Their location is fixed at 0, as SciPy's fit(x, floc=0) does, because
// that is what job-time data needs: times and sizes start at 0 by nature,
// while a free location would be pulled to the smallest value (often 1 s),
// which says nothing about the workload, and for the shapes below 1 that
// job data has it makes the likelihood unbounded there. So every value
// must be finite and strictly positive; zero run times and waits must be
// dropped (or shifted) by the caller, who knows what they mean.
//
// Estimation methods:
//
//   - exponential: closed form, rate = 1/mean.
//   - log-normal: closed form, mu and sigma are the mean and the standard
//     deviation (divided by n, not n-1) of log x.
//   - Weibull: the shape k solves the profile-likelihood equation
//     Σ xᵢᵏ ln xᵢ / Σ xᵢᵏ − 1/k − mean(ln x) = 0, whose left side is
//     increasing in k; it is found by Newton's method safeguarded by a
//     bracket (bisection whenever a Newton step leaves it), evaluated with
//     weights exp(k(ln xᵢ − max ln x)) that cannot overflow. Then
//     lambda = (mean xᵏ)^(1/k).
//   - gamma: the shape k solves ln k − ψ(k) = ln(mean x) − mean(ln x),
//     whose left side is decreasing in k, by the same safeguarded Newton
//     method (with the trigamma function for the derivative and an
//     asymptotic series for large k, where ln k − ψ(k) cancels). Then
//     theta = mean(x)/k.
//
// Both shape equations have a single root when the sample holds at least
// two distinct values, so the solvers either converge to the maximum
// likelihood estimate or report an error; ties are harmless. They cost a
// few dozen passes over the data (0.2 s for all four families on the
// 447,784 run times of RICC, the largest trace), and they work in
// logarithms so that values from 1 s to 10⁷ s, or far beyond, cause no
// overflow. Sums over the sample are compensated, so their rounding does
// not grow with its size.
//
// Goodness of fit: KS and CvM are the one-sample Kolmogorov–Smirnov and
// Cramér–von Mises statistics as scipy.stats.kstest and
// scipy.stats.cramervonmises compute them. Their classical p-values assume
// parameters known in advance; with parameters fitted from the same data
// they are far too large, so Test computes p-values by parametric
// bootstrap instead (as Lilliefors did for the normal law): it draws
// samples from the fitted law, refits each and recomputes the statistics.
//
// The laws themselves are gonum's distuv types (Fit.Dist), and Fit's CDF,
// Quantile and Rand use them, except where gonum loses precision that job
// data needs: quantiles in the lower tail (a gamma quantile is solved here
// in logarithms; gonum's is 0 below p ≈ 10⁻⁶ for small shapes) and
// log-densities of gamma laws with huge shapes (nearly constant samples).
//
// Every estimator and statistic is checked against SciPy 1.10 in the tests,
// on synthetic samples and on the real traces.
//
// The package has no mutable package-level state. Randomness comes only
// from the *rand.Rand a caller passes, so results are reproducible from a
// seed. Inputs are never modified.
package fit
