package fit

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// binomialRange returns the counts lo..hi that a Binomial(n, p) variable
// falls outside with probability at most alpha/2 on each side.
func binomialRange(n int, p, alpha float64) (lo, hi int) {
	b := distuv.Binomial{N: float64(n), P: p}
	lo, hi = 0, n
	for lo < n && b.CDF(float64(lo)) < alpha/2 {
		lo++
	}
	// hi is the smallest count whose upper tail beyond it is <= alpha/2.
	for hi > 0 && 1-b.CDF(float64(hi-1)) <= alpha/2 {
		hi--
	}
	return lo, hi
}

// TestBootstrapUniformUnderH0 draws many small samples from a known law
// of each family, fits the family and tests the fit: the p-values must be
// uniformly distributed, the property the classical KS p-value lacks when
// parameters are estimated. With B resamples a p-value is a multiple of
// 1/(B+1) and P(p <= j/(B+1)) = j/(B+1) under H0, so the count of p-values
// at or below each threshold must be plausible for a Binomial(M, j/(B+1))
// count: the test fails when it is outside the central 99.9% (the seeds
// are fixed, so the outcome is too; the band says what "roughly uniform"
// means).
//
// The exponential, log-normal and Weibull families are scale or
// log-location-scale families, where the statistics of a refitted sample
// do not depend on the true parameters, so the bootstrap p-value is exact
// up to Monte Carlo error. For the gamma family the shape is not pivotal,
// so it is only approximately uniform; it passes the same band here.
func TestBootstrapUniformUnderH0(t *testing.T) {
	const (
		m     = 300 // samples per family
		n     = 40  // values per sample
		b     = 99  // resamples per test
		alpha = 1e-3
	)
	thresholds := []int{5, 10, 25, 50, 75, 90} // j: p <= j/(B+1)
	for i, f := range []Fit{
		{Family: Exponential, Params: map[string]float64{ParamRate: 1.0 / 300}},
		{Family: LogNormal, Params: map[string]float64{ParamMu: 6, ParamSigma: 1.8}},
		{Family: Weibull, Params: map[string]float64{ParamK: 0.6, ParamLambda: 2000}},
		{Family: Gamma, Params: map[string]float64{ParamK: 0.7, ParamTheta: 900}},
	} {
		t.Run(string(f.Family), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(1000+i), 3))
			ksp := make([]float64, m)
			cvmp := make([]float64, m)
			xs := make([]float64, n)
			for s := range m {
				for j := range xs {
					xs[j] = f.Rand(rng)
				}
				fitted, err := MLE(xs, f.Family)
				if err != nil {
					t.Fatal(err)
				}
				g, err := Test(xs, fitted, b, rng)
				if err != nil {
					t.Fatal(err)
				}
				ksp[s], cvmp[s] = g.KSP, g.CvMP
			}
			for _, j := range thresholds {
				level := float64(j) / (b + 1)
				lo, hi := binomialRange(m, level, alpha)
				for name, ps := range map[string][]float64{"KS": ksp, "CvM": cvmp} {
					c := 0
					for _, p := range ps {
						// p-values are exact multiples of 1/(B+1) up to
						// rounding of the division.
						if p <= level*(1+1e-12) {
							c++
						}
					}
					if c < lo || c > hi {
						t.Errorf("%s: %d of %d p-values <= %.2f, want %d..%d", name, c, m, level, lo, hi)
					}
				}
			}
		})
	}
}

// TestBootstrapPower checks that a wrong family is rejected: heavy-tailed
// job-like data tested as exponential, and data of one two-parameter
// family tested as another, get p-values at the floor 1/(B+1), while the
// right family is not rejected.
func TestBootstrapPower(t *testing.T) {
	const b = 199
	tests := []struct {
		name   string
		xs     []float64
		fam    Family
		reject bool
	}{
		{"lognormal as exponential", draw(LogNormal, map[string]float64{ParamMu: 5, ParamSigma: 1.5}, 300, 31), Exponential, true},
		{"weibull k=0.5 as exponential", draw(Weibull, map[string]float64{ParamK: 0.5, ParamLambda: 600}, 300, 32), Exponential, true},
		{"lognormal as gamma", draw(LogNormal, map[string]float64{ParamMu: 5, ParamSigma: 1.5}, 1000, 33), Gamma, true},
		{"gamma k=3 as lognormal", draw(Gamma, map[string]float64{ParamK: 3, ParamTheta: 100}, 1000, 34), LogNormal, true},
		{"lognormal as lognormal", draw(LogNormal, map[string]float64{ParamMu: 5, ParamSigma: 1.5}, 300, 35), LogNormal, false},
		{"weibull as weibull", draw(Weibull, map[string]float64{ParamK: 0.5, ParamLambda: 600}, 300, 36), Weibull, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := MLE(tt.xs, tt.fam)
			if err != nil {
				t.Fatal(err)
			}
			g, err := Test(tt.xs, f, b, rand.New(rand.NewPCG(7, 7)))
			if err != nil {
				t.Fatal(err)
			}
			floor := 1.0 / (b + 1)
			if tt.reject && (g.KSP != floor || g.CvMP != floor) {
				t.Errorf("p-values %v, %v; want the floor %v", g.KSP, g.CvMP, floor)
			}
			if !tt.reject && (g.KSP < 0.05 || g.CvMP < 0.05) {
				t.Errorf("right family rejected: p-values %v, %v", g.KSP, g.CvMP)
			}
			if g.KS != KS(tt.xs, f) || g.CvM != CvM(tt.xs, f) || g.Resamples != b {
				t.Errorf("GoF %+v; KS %v CvM %v", g, KS(tt.xs, f), CvM(tt.xs, f))
			}
			t.Logf("%v: %+v", f, g)
		})
	}
}

func TestBootstrapDeterministic(t *testing.T) {
	xs := draw(Gamma, map[string]float64{ParamK: 0.8, ParamTheta: 500}, 100, 41)
	const floor = 1.0 / 51
	varied := 0
	for _, fam := range Families() {
		f, err := MLE(xs, fam)
		if err != nil {
			t.Fatal(err)
		}
		run := func(seed uint64) GoF {
			g, err := Test(xs, f, 50, rand.New(rand.NewPCG(seed, 9)))
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		a, b, c := run(1), run(1), run(2)
		if a != b {
			t.Errorf("%s: same seed, %+v then %+v", fam, a, b)
		}
		if c.KS != a.KS || c.CvM != a.CvM {
			t.Errorf("%s: statistics depend on the seed: %+v, %+v", fam, a, c)
		}
		// A p-value at its floor (a family far off) is the same for
		// every seed; the others should move.
		if a.KSP > floor && a.CvMP > floor {
			varied++
			if c == a {
				t.Errorf("%s: another seed gives the same p-values %+v", fam, a)
			}
		}
	}
	if varied == 0 {
		t.Error("every p-value at its floor: nothing shows that the seed matters")
	}
}

func TestBootstrapErrors(t *testing.T) {
	good := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	exp := Fit{Family: Exponential, Params: map[string]float64{ParamRate: 0.25}}
	logn := Fit{Family: LogNormal, Params: map[string]float64{ParamMu: 1, ParamSigma: 1}}
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name      string
		xs        []float64
		f         Fit
		resamples int
		rng       *rand.Rand
		want      string
	}{
		{"no resamples", good, exp, 0, rng, "need at least 1 resample, have 0"},
		{"nil rng", good, exp, 10, nil, "nil *rand.Rand"},
		{"empty", nil, exp, 10, rng, "no values"},
		{"NaN", []float64{1, math.NaN()}, exp, 10, rng, "xs[1] is NaN"},
		{"non-positive", []float64{1, 2, -3}, exp, 10, rng, "xs[2] = -3 is not positive"},
		{"one value, two parameters", []float64{5}, logn, 10, rng, "needs at least 2 values, have 1"},
		{"invalid fit", good, Fit{Family: Weibull}, 10, rng, `no parameter "k"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Test(tt.xs, tt.f, tt.resamples, tt.rng)
			if err == nil || !strings.HasPrefix(err.Error(), "fit: Test: ") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if !math.IsNaN(g.KSP) || !math.IsNaN(g.CvMP) {
				t.Errorf("p-values %v, %v with an error, want NaN", g.KSP, g.CvMP)
			}
		})
	}
	// One value and an exponential fit is a valid (if pointless) test.
	if _, err := Test([]float64{5}, exp, 10, rng); err != nil {
		t.Error(err)
	}
}
