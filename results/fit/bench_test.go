package fit

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkFitAllLarge fits every family to 450,000 values, the size of
// the largest trace (RICC).
func BenchmarkFitAllLarge(b *testing.B) {
	xs := draw(Weibull, map[string]float64{ParamK: 0.4, ParamLambda: 3000}, 450_000, 51)
	for b.Loop() {
		if _, err := FitAll(xs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTestWeibull times a bootstrap test of a Weibull fit of 5000
// values with 200 resamples, the scale of the real-trace tests.
func BenchmarkTestWeibull(b *testing.B) {
	xs := draw(Weibull, map[string]float64{ParamK: 0.4, ParamLambda: 3000}, 5000, 52)
	f, err := MLE(xs, Weibull)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		if _, err := Test(xs, f, 200, rng); err != nil {
			b.Fatal(err)
		}
	}
}
