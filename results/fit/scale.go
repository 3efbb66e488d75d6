package fit

import (
	"fmt"
	"math"
)

// Scaled returns the law of s·X for X of the fitted law f, s > 0: the same
// family with its scale multiplied by s (exponential: rate / s; lognormal:
// mu + ln s; Weibull: lambda·s; gamma: theta·s), so that its mean is s
// times f's and its shape is f's.
func (f Fit) Scaled(s float64) (Fit, error) {
	if !(s > 0) || math.IsInf(s, 1) {
		return Fit{}, fmt.Errorf("fit: Scaled by %v: the factor must be a positive number", s)
	}
	l, err := f.law()
	if err != nil {
		return Fit{}, fmt.Errorf("fit: Scaled: %w", err)
	}
	switch l.fam {
	case Exponential:
		l.a /= s
	case LogNormal:
		l.a += math.Log(s)
	default: // Weibull and gamma: b is the scale
		l.b *= s
	}
	return Fit{Family: f.Family, Params: l.params()}, nil
}
