package stats

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkWilcoxonExact50 times the largest exact case, where the null
// distribution over 2^50 sign patterns is counted.
func BenchmarkWilcoxonExact50(b *testing.B) {
	d := signedSample(21, 50, 0.3)
	for b.Loop() {
		if _, err := Wilcoxon(d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBootstrapBCa times a BCa interval of the mean of 30 values with
// 10000 resamples, the scale of one cell of a compare report.
func BenchmarkBootstrapBCa(b *testing.B) {
	xs := sample(22, 30, 100)
	mean := bootStats["mean"]
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		if _, err := Bootstrap(xs, mean, 0.95, 10000, BCa, rng); err != nil {
			b.Fatal(err)
		}
	}
}
