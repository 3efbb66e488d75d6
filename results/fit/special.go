package fit

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// asymptoticFrom is where logMinusDigamma switches to its asymptotic
// series; from 10 on, nine terms are good to rounding.
const asymptoticFrom = 10

// logMinusDigamma returns ln k − ψ(k) for k > 0 and its derivative
// 1/k − ψ′(k).
//
// The gamma shape equation needs it for shapes up to ~10⁶ (nearly
// constant samples), where ln k and ψ(k) agree in their first digits and
// subtracting them would lose up to half of the precision. So for
// k >= 10 both come from their asymptotic series in 1/k (Abramowitz &
// Stegun 6.3.18 and 6.4.12, Bernoulli numbers up to B₁₆), which have no
// cancellation, and below 10 from the recurrences ψ(k) = ψ(k+1) − 1/k and
// ψ′(k) = ψ′(k+1) + 1/k², shifting k up to the series.
func logMinusDigamma(k float64) (v, dv float64) {
	if k >= asymptoticFrom {
		return lmdSeries(k)
	}
	// z = k + m >= 10, and ln k − ψ(k) = ln(k/z) + [ln z − ψ(z)] + Σ 1/(k+j).
	var sum, sum2 float64
	z := k
	for z < asymptoticFrom {
		sum += 1 / z
		sum2 += 1 / (z * z)
		z++
	}
	v, dv = lmdSeries(z)
	return math.Log(k/z) + v + sum, 1/k - 1/z + dv - sum2
}

// lmdSeries is logMinusDigamma for k >= 10, by the asymptotic series
//
//	ln k − ψ(k) = 1/(2k) + Σₙ B₂ₙ/(2n·k²ⁿ)
//	1/k − ψ′(k) = −1/(2k²) − Σₙ B₂ₙ/k²ⁿ⁺¹
//
// evaluated by Horner's rule in 1/k².
func lmdSeries(k float64) (v, dv float64) {
	r := 1 / k
	r2 := r * r
	// B₂ₙ/(2n) for n = 1..8: 1/12, −1/120, 1/252, −1/240, 1/132,
	// −691/32760, 1/12, −3617/8160.
	v = r2 * (1.0/12 + r2*(-1.0/120+r2*(1.0/252+r2*(-1.0/240+r2*(1.0/132+r2*(-691.0/32760+r2*(1.0/12+r2*(-3617.0/8160))))))))
	v += r / 2
	// B₂ₙ for n = 1..8: 1/6, −1/30, 1/42, −1/30, 5/66, −691/2730, 7/6,
	// −3617/510.
	dv = r * r2 * (1.0/6 + r2*(-1.0/30+r2*(1.0/42+r2*(-1.0/30+r2*(5.0/66+r2*(-691.0/2730+r2*(7.0/6+r2*(-3617.0/510))))))))
	dv = -(r2/2 + dv)
	return v, dv
}

// maxSolveIter bounds the iterations of solveIncreasing. Bisection alone
// shrinks a bracket whose ends are within a factor 2 to rounding in
// about 53 steps, so this is only reached if the function is broken.
const maxSolveIter = 300

// maxBracketSteps bounds the halvings and doublings of bracketRoot: 2^1100
// spans every positive float64 from any start.
const maxBracketSteps = 1100

// bracketRoot returns lo <= hi with f(lo) <= 0 <= f(hi) for an increasing
// f on (0, ∞) that is negative near 0 and positive for large x, starting
// from the guess x0 > 0 and halving or doubling.
func bracketRoot(f func(float64) (float64, float64), x0 float64) (lo, hi float64, err error) {
	lo, hi = x0, x0
	for i := 0; ; i++ {
		v, _ := f(lo)
		if v <= 0 {
			break
		}
		if i == maxBracketSteps || lo == 0 {
			return 0, 0, fmt.Errorf("no root: positive down to %g", lo)
		}
		hi = lo
		lo /= 2
	}
	for i := 0; ; i++ {
		v, _ := f(hi)
		if v >= 0 {
			break
		}
		if i == maxBracketSteps || math.IsInf(hi, 1) {
			return 0, 0, fmt.Errorf("no root: negative up to %g", hi)
		}
		lo = hi
		hi *= 2
	}
	return lo, hi, nil
}

// solveIncreasing finds the root of an increasing function f, which
// returns its value and derivative, in the bracket [lo, hi] where
// f(lo) <= 0 <= f(hi), starting from x0 in it.
//
// It is Newton's method safeguarded by the bracket (Press et al.,
// Numerical Recipes, rtsafe): every evaluation narrows the bracket by the
// sign of f, and a Newton step that would leave it, or a non-positive
// derivative, is replaced by bisection. Newton converges quadratically
// near the root, bisection guarantees progress far from it, and the
// answer is the root to within a few units in the last place.
// It stops when a step or the bracket is within 2⁻⁵¹ of the root
// relative, or within atol absolutely (for roots that may be 0).
func solveIncreasing(f func(float64) (float64, float64), lo, hi, x0, atol float64) (float64, error) {
	x := x0
	if !(x >= lo && x <= hi) {
		x = lo + (hi-lo)/2
	}
	for range maxSolveIter {
		v, dv := f(x)
		switch {
		case v == 0:
			return x, nil
		case math.IsNaN(v):
			return 0, fmt.Errorf("no root: equation is NaN at %g", x)
		case v < 0:
			lo = x
		default:
			hi = x
		}
		next := x - v/dv
		if !(dv > 0) || !(next > lo && next < hi) {
			next = lo + (hi-lo)/2
		}
		if math.Abs(next-x) <= max(2*eps*math.Abs(next), atol) || hi-lo <= max(2*eps*max(math.Abs(lo), math.Abs(hi)), atol) {
			return next, nil
		}
		x = next
	}
	return 0, fmt.Errorf("no convergence in %d iterations (bracket [%g, %g])", maxSolveIter, lo, hi)
}

// eps is the float64 machine epsilon, 2⁻⁵².
const eps = 0x1p-52

// gammaQuantile returns the p-quantile of the gamma law of shape k and
// scale 1, for 0 < p < 1.
//
// gonum's Gamma.Quantile (mathext.GammaIncRegInv) returns 0 for the
// lower-tail quantiles of small shapes (p = 10⁻⁶ at k = 0.3, where the
// answer is ~10⁻¹⁶), loses relative precision for p below ~10⁻⁹ and
// panics for p near 10⁻³⁰⁰. So the quantile solves ln P(k, eᵗ) = ln p (or
// ln Q(k, eᵗ) = ln(1 − p) in the upper half, so that neither tail is
// computed as a difference from 1) in t = ln x, by the safeguarded Newton
// method of solveIncreasing, with P and Q gonum's regularized incomplete
// gamma functions. Both sides are increasing in t, with derivative
// x·f(x)/P (or /Q) at x = eᵗ. The start is the better of the
// Wilson–Hilferty approximation x ≈ k(1 − 1/(9k) + z/(3√k))³, z the
// normal p-quantile, and the lower-tail limit P(k, x) ≈ xᵏ/Γ(k+1).
func gammaQuantile(k, p float64) float64 {
	lgk, _ := math.Lgamma(k)
	upper := p > 0.5
	target := math.Log(p)
	if upper {
		target = math.Log1p(-p)
	}
	f := func(t float64) (float64, float64) {
		x := math.Exp(t)
		ld := k*t - x - lgk // ln(x·density(x))
		if upper {
			lq := math.Log(mathext.GammaIncRegComp(k, x))
			return target - lq, math.Exp(ld - lq)
		}
		lp := math.Log(mathext.GammaIncReg(k, x))
		return lp - target, math.Exp(ld - lp)
	}
	lg1, _ := math.Lgamma(k + 1)
	t0 := (math.Log(p) + lg1) / k
	if c := 1 - 1/(9*k) + distuv.UnitNormal.Quantile(p)/(3*math.Sqrt(k)); c > 0 {
		tw := math.Log(k) + 3*math.Log(c)
		v0, _ := f(t0)
		vw, _ := f(tw)
		if math.Abs(vw) < math.Abs(v0) || math.IsNaN(v0) {
			t0 = tw
		}
	}
	// Bracket by steps doubling away from t0; eᵗ under- and overflows to
	// 0 and +Inf, where the equation is −Inf and +Inf, so this ends. A
	// NaN (which the incomplete gamma functions should never return)
	// fails both tests and ends at the iteration limit.
	lo, hi := t0, t0
	for i, step := 0, 0.5; ; i, step = i+1, step*2 {
		if v, _ := f(lo); v <= 0 {
			break
		}
		if i == maxBracketSteps {
			return math.NaN()
		}
		hi, lo = lo, lo-step
	}
	for i, step := 0, 0.5; ; i, step = i+1, step*2 {
		if v, _ := f(hi); v >= 0 {
			break
		}
		if i == maxBracketSteps {
			return math.NaN()
		}
		lo, hi = hi, hi+step
	}
	// t's absolute precision is x's relative one.
	t, err := solveIncreasing(f, lo, hi, t0, 2*eps)
	if err != nil {
		return math.NaN()
	}
	return math.Exp(t)
}

// stirlerr returns ln Γ(k) − [(k − ½) ln k − k + ½ ln 2π], the error of
// Stirling's approximation, for k >= 10, by its asymptotic series
// Σₙ B₂ₙ/(2n(2n−1)k²ⁿ⁻¹) up to B₁₈ (A&S 6.1.40), good to rounding there.
func stirlerr(k float64) float64 {
	r := 1 / k
	r2 := r * r
	return r * (1.0/12 + r2*(-1.0/360+r2*(1.0/1260+r2*(-1.0/1680+r2*(1.0/1188+r2*(-691.0/360360+r2*(1.0/156+r2*(-3617.0/122400+r2*(43867.0/244188)))))))))
}

// uMinus1MinusLog returns u − 1 − ln u >= 0 for u > 0 without the
// cancellation of its terms near u = 1: with v = u − 1 and r = v/(2+v),
// ln u = 2 atanh r, so u − 1 − ln u = r·v − 2(r³/3 + r⁵/5 + …), where the
// first term dominates.
func uMinus1MinusLog(u float64) float64 {
	v := u - 1
	if math.Abs(v) > 0.5 {
		return v - math.Log(u)
	}
	r := v / (2 + v) // |r| <= 1/3
	r2 := r * r
	// Σ r^(2j+1)/(2j+1) for j >= 1, until the terms stop mattering:
	// |r|² <= 1/9, so 17 terms reach 2⁻⁵³.
	var s float64
	term := r * r2
	for j := 1; j <= 17; j++ {
		s += term / float64(2*j+1)
		term *= r2
	}
	return r*v - 2*s
}
