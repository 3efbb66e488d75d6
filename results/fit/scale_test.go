package fit

import (
	"math"
	"testing"
)

// TestScaled checks that scaling a law multiplies its mean by the factor
// and keeps its coefficient of variation, for every family.
func TestScaled(t *testing.T) {
	for _, f := range []Fit{
		{Family: Exponential, Params: map[string]float64{ParamRate: 0.002}},
		{Family: LogNormal, Params: map[string]float64{ParamMu: 5.104, ParamSigma: 2.072}},
		{Family: Weibull, Params: map[string]float64{ParamK: 0.6, ParamLambda: 700}},
		{Family: Gamma, Params: map[string]float64{ParamK: 0.49, ParamTheta: 5e4}},
	} {
		d, err := f.Dist(nil)
		if err != nil {
			t.Fatal(err)
		}
		g, err := f.Scaled(0.717)
		if err != nil {
			t.Fatal(err)
		}
		e, err := g.Dist(nil)
		if err != nil {
			t.Fatal(err)
		}
		if r := e.Mean() / d.Mean(); math.Abs(r-0.717) > 1e-9 {
			t.Errorf("%s: mean ratio %v, want 0.717", f.Family, r)
		}
		if cv, cv2 := d.StdDev()/d.Mean(), e.StdDev()/e.Mean(); math.Abs(cv-cv2) > 1e-9*cv {
			t.Errorf("%s: coefficient of variation %v became %v", f.Family, cv, cv2)
		}
	}
	if _, err := (Fit{Family: Exponential, Params: map[string]float64{ParamRate: 1}}).Scaled(0); err == nil {
		t.Error("a factor of 0 was accepted")
	}
}
