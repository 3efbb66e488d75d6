package probfill

import (
	"math"
	"math/rand/v2"
	"testing"
)

// monteCarlo simulates the model directly: completion times of a Poisson
// process of rate lambda up to te, each freeing Exp(mu) processors, and
// counts the runs in which some completion brings the freed total into
// [cq, cq+ci). It shares no code with PErr.
func monteCarlo(rng *rand.Rand, lambda, te, mu, cq, ci float64, runs int) float64 {
	hits := 0
	for range runs {
		t, freed := 0.0, 0.0
		for {
			t += rng.ExpFloat64() / lambda
			if t > te {
				break
			}
			freed += rng.ExpFloat64() / mu
			if freed >= cq {
				if freed < cq+ci {
					hits++
				}
				break // once the head fits, later completions change nothing
			}
		}
	}
	return float64(hits) / float64(runs)
}

// TestPErrMonteCarlo checks the closed form against simulation over a grid
// of lambda*te, mu, cq and ci (180 points), within 3 standard errors. Out
// of 180 independent comparisons about 0.5 exceed 3 standard errors by
// chance (0.27 % each), and more than 3 do with probability below 0.2 %:
// so at most 3 may, and none may exceed 4.5.
func TestPErrMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const runs = 40_000
	checked, beyond3 := 0, 0
	for _, lt := range []float64{0.1, 1, 3, 10, 40} {
		for _, mu := range []float64{0.02, 0.105, 0.5} {
			for _, cq := range []float64{1, 5, 20, 60} {
				for _, ci := range []float64{1, 4, 16} {
					te := 3600.0
					lambda := lt / te
					p := PErr(lambda, te, mu, cq, ci)
					mc := monteCarlo(rng, lambda, te, mu, cq, ci, runs)
					se := math.Sqrt(max(p*(1-p), 1e-4) / runs)
					if d := math.Abs(p - mc); d > 4.5*se {
						t.Errorf("lambda*te=%v mu=%v cq=%v ci=%v: closed form %.5f, Monte Carlo %.5f (se %.5f)", lt, mu, cq, ci, p, mc, se)
					} else if d > 3*se {
						beyond3++
						t.Logf("lambda*te=%v mu=%v cq=%v ci=%v: closed form %.5f, Monte Carlo %.5f, %.1f se", lt, mu, cq, ci, p, mc, d/se)
					}
					checked++
				}
			}
		}
	}
	if checked != 180 {
		t.Fatalf("checked %d points", checked)
	}
	if beyond3 > 3 {
		t.Errorf("%d of 180 points beyond 3 standard errors; chance explains at most 3", beyond3)
	}
}

// TestPErrSeries compares the closed form with the paper's double series
// summed literally, and checks limits.
func TestPErrSeries(t *testing.T) {
	series := func(lambda, te, mu, cq, ci float64) float64 {
		c := cq + ci
		lt := lambda * te
		var sum float64
		// P(N >= n) for N ~ Poisson(lt), by summing the pmf.
		pN := func(k int) float64 {
			lg, _ := math.Lgamma(float64(k) + 1)
			return math.Exp(float64(k)*math.Log(lt) - lt - lg)
		}
		for n := 1; n < 400; n++ {
			lg, _ := math.Lgamma(float64(n))
			term := math.Exp(float64(n-1)*math.Log(mu*cq)-lg) * (math.Exp(-mu*cq) - math.Exp(-mu*c))
			var tail float64
			for k := n; k < n+600; k++ {
				tail += pN(k)
			}
			sum += term * tail
		}
		return sum
	}
	for _, tc := range [][5]float64{{1.0 / 600, 3600, 0.105, 10, 5}, {1.0 / 60, 1800, 0.05, 30, 12}, {1e-4, 7200, 0.3, 2, 1}} {
		got, want := PErr(tc[0], tc[1], tc[2], tc[3], tc[4]), series(tc[0], tc[1], tc[2], tc[3], tc[4])
		if math.Abs(got-want) > 1e-12*max(1, want) {
			t.Errorf("%v: closed form %.15g, series %.15g", tc, got, want)
		}
	}
	for name, p := range map[string]float64{
		"no time":         PErr(1, 0, 0.1, 5, 5),
		"no completions":  PErr(0, 100, 0.1, 5, 5),
		"nothing to take": PErr(1, 100, 0.1, 5, 0),
	} {
		if p != 0 {
			t.Errorf("%s: %v, want 0", name, p)
		}
	}
	// Huge means stay finite and in [0, 1].
	for _, tc := range [][5]float64{{10, 1e6, 0.01, 5000, 100}, {1e-9, 1, 50, 1e4, 1e4}} {
		p := PErr(tc[0], tc[1], tc[2], tc[3], tc[4])
		if math.IsNaN(p) || p < 0 || p > 1 {
			t.Errorf("%v: %v", tc, p)
		}
	}
}
