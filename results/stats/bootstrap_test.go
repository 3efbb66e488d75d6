package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/schedlab/schedlab/internal/scipytest"
)

// bootStats are the statistics the bootstrap tests use, by the names
// testdata/oracle.py knows.
var bootStats = map[string]func([]float64) float64{
	"mean":   func(x []float64) float64 { return stat.Mean(x, nil) },
	"sd":     func(x []float64) float64 { return stat.StdDev(x, nil) },
	"median": func(x []float64) float64 { return Quantile(x, 0.5) },
}

func TestBootstrapAgainstSciPy(t *testing.T) {
	// SciPy draws different resamples, so intervals agree only up to Monte
	// Carlo error. With B = 50000 resamples the standard error of a 2.5%
	// quantile of a roughly normal bootstrap distribution is about 0.45%
	// of the 95% interval's width, so the difference of two independent
	// endpoints has a standard error of about 0.6% of the width; BCa
	// endpoints sit further out in the tails and vary more. Allow 5%.
	// (TestBootstrapSameResamplesAsSciPy checks the arithmetic to
	// rounding.)
	const resamples, tol = 50000, 0.05
	type tcase struct {
		Stat      string    `json:"stat"`
		Method    string    `json:"method"`
		Level     float64   `json:"level"`
		XS        []float64 `json:"xs"`
		Resamples int       `json:"resamples"`
		Seed      int       `json:"seed"`
	}
	skewed := sample(12, 30, 100)
	symmetric := signedSample(13, 25, 10)
	cases := []tcase{
		{Stat: "mean", Method: "BCa", Level: 0.95, XS: skewed},
		{Stat: "mean", Method: "percentile", Level: 0.95, XS: skewed},
		{Stat: "mean", Method: "BCa", Level: 0.9, XS: symmetric},
		{Stat: "sd", Method: "BCa", Level: 0.95, XS: skewed},
		{Stat: "sd", Method: "percentile", Level: 0.95, XS: skewed},
		{Stat: "median", Method: "percentile", Level: 0.95, XS: skewed},
	}
	for i := range cases {
		cases[i].Resamples, cases[i].Seed = resamples, 1000+i
	}
	var want []struct{ Lo, Hi scipytest.Float }
	oracle(t, "bootstrap", cases, &want)
	for i, c := range cases {
		t.Run(c.Stat+"/"+c.Method, func(t *testing.T) {
			method := map[string]BootMethod{"BCa": BCa, "percentile": Percentile}[c.Method]
			rng := rand.New(rand.NewPCG(uint64(i), 99))
			got, err := Bootstrap(c.XS, bootStats[c.Stat], c.Level, resamples, method, rng)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := want[i].Lo.F(), want[i].Hi.F()
			width := hi - lo
			t.Logf("ours [%.6g, %.6g], SciPy [%.6g, %.6g]: endpoints differ by %.2f%%, %.2f%% of SciPy's width",
				got.Lo, got.Hi, lo, hi, 100*(got.Lo-lo)/width, 100*(got.Hi-hi)/width)
			if math.Abs(got.Lo-lo) > tol*width || math.Abs(got.Hi-hi) > tol*width {
				t.Errorf("interval [%v, %v] is not within %v%% of SciPy's width of [%v, %v]", got.Lo, got.Hi, 100*tol, lo, hi)
			}
			if got.Level != c.Level || got.Method != method.String() {
				t.Errorf("Level %v Method %q", got.Level, got.Method)
			}
		})
	}
}

// TestBootstrapSameResamplesAsSciPy computes intervals from SciPy's own
// bootstrap distribution, which removes the Monte Carlo difference and
// checks the interval arithmetic (bias correction, jackknife acceleration,
// quantile interpolation) to rounding.
func TestBootstrapSameResamplesAsSciPy(t *testing.T) {
	type tcase struct {
		Stat         string    `json:"stat"`
		Method       string    `json:"method"`
		Level        float64   `json:"level"`
		XS           []float64 `json:"xs"`
		Resamples    int       `json:"resamples"`
		Seed         int       `json:"seed"`
		Distribution bool      `json:"distribution"`
	}
	skewed := sample(15, 30, 100)
	// n = 12 rather than fewer: a resample that permutes the sample has
	// its statistic only up to rounding, which SciPy compares exactly and
	// Bootstrap does not (see bcaLevels); with 12 values the chance of one
	// among 2000 resamples is 1e-4.
	small := sample(16, 12, 1)
	var cases []tcase
	for _, st := range []string{"mean", "sd", "median"} {
		for _, m := range []string{"BCa", "percentile"} {
			cases = append(cases,
				tcase{Stat: st, Method: m, Level: 0.95, XS: skewed},
				tcase{Stat: st, Method: m, Level: 0.9, XS: small})
		}
	}
	for i := range cases {
		cases[i].Resamples, cases[i].Seed, cases[i].Distribution = 2000, 2000+i, true
	}
	var want []struct {
		Lo, Hi       scipytest.Float
		Distribution []float64
	}
	oracle(t, "bootstrap", cases, &want)
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/n=%d", c.Stat, c.Method, len(c.XS)), func(t *testing.T) {
			method := map[string]BootMethod{"BCa": BCa, "percentile": Percentile}[c.Method]
			lo, hi, err := bootInterval(c.XS, bootStats[c.Stat], want[i].Distribution, c.Level, method)
			if err != nil {
				t.Fatal(err)
			}
			checkNear(t, "Lo", lo, want[i].Lo.F())
			checkNear(t, "Hi", hi, want[i].Hi.F())
		})
	}
}

// TestBCaTiesUpToRounding checks that resampled statistics one ulp off
// the sample's count as ties, so the interval does not depend on the order
// in which a statistic happens to sum.
func TestBCaTiesUpToRounding(t *testing.T) {
	xs := []float64{0.1, 0.7, 0.2, 1.3, 0.4}
	mean := bootStats["mean"]
	th := mean(xs)
	theta := func(at float64) []float64 {
		d := []float64{0.2, 0.3, 0.35, 0.5, 0.55, 0.6, 0.8, 0.9, 1.0, 1.1}
		return append(d, at, at, at)
	}
	lo, hi, err := bootInterval(xs, mean, theta(th), 0.9, BCa)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []float64{math.Nextafter(th, 0), math.Nextafter(th, 2)} {
		lo2, hi2, err := bootInterval(xs, mean, theta(at), 0.9, BCa)
		if err != nil || lo2 != lo || hi2 != hi {
			t.Errorf("statistics at %.17g give [%v, %v], at %.17g [%v, %v] (%v)", at, lo2, hi2, th, lo, hi, err)
		}
	}
}

func TestBootstrapDeterministic(t *testing.T) {
	xs := sample(14, 20, 1)
	in := slices.Clone(xs)
	for _, method := range []BootMethod{Percentile, BCa} {
		run := func(seed uint64) Interval {
			iv, err := Bootstrap(xs, bootStats["mean"], 0.95, 500, method, rand.New(rand.NewPCG(seed, 1)))
			if err != nil {
				t.Fatal(err)
			}
			return iv
		}
		a, b, c := run(7), run(7), run(8)
		if a != b {
			t.Errorf("%v: same seed gave %+v and %+v", method, a, b)
		}
		if a == c {
			t.Errorf("%v: different seeds gave the same %+v", method, a)
		}
	}
	// A stat that sorts its argument in place must not reorder xs.
	sortingMedian := func(x []float64) float64 { slices.Sort(x); return x[len(x)/2] }
	if _, err := Bootstrap(xs, sortingMedian, 0.95, 50, BCa, rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in, xs) {
		t.Fatal("Bootstrap modified its input")
	}
}

// TestBootstrapCoverage checks that intervals of the mean of normal samples
// cover the true mean about as often as their level says. The count of
// covering intervals among reps is compared with the central 99.9% range
// of Binomial(reps, level). Bootstrap intervals of the mean are known to
// undercover slightly in small samples (they use the plug-in SD, which
// divides by n, and normal rather than t quantiles: about 94% for n = 40
// at 95%), well inside that range for 400 intervals; the Student t
// interval is exact for normal data.
func TestBootstrapCoverage(t *testing.T) {
	const reps, n, resamples, level, trueMean = 400, 40, 1000, 0.95, 10.0
	binom := distuv.Binomial{N: reps, P: level}
	lo, hi := 0, reps
	for k := 0; k <= reps; k++ {
		if binom.CDF(float64(k)) < 0.0005 {
			lo = k + 1
		}
		if binom.CDF(float64(k)) < 0.9995 {
			hi = k + 1
		}
	}
	rng := rand.New(rand.NewPCG(2024, 5))
	covered := map[string]int{}
	xs := make([]float64, n)
	for range reps {
		for i := range xs {
			xs[i] = trueMean + 3*rng.NormFloat64()
		}
		ivs := map[string]Interval{"student-t": MeanCI(xs, level)}
		for _, m := range []BootMethod{Percentile, BCa} {
			iv, err := Bootstrap(xs, bootStats["mean"], level, resamples, m, rng)
			if err != nil {
				t.Fatal(err)
			}
			ivs[m.String()] = iv
		}
		for name, iv := range ivs {
			if iv.Lo <= trueMean && trueMean <= iv.Hi {
				covered[name]++
			}
		}
	}
	for _, name := range []string{"student-t", "bootstrap-percentile", "bootstrap-bca"} {
		k := covered[name]
		t.Logf("%s: %d of %d intervals cover the mean (%.1f%%); accepted %d..%d", name, k, reps, 100*float64(k)/reps, lo, hi)
		if k < lo || k > hi {
			t.Errorf("%s: %d of %d intervals cover the mean, outside %d..%d", name, k, reps, lo, hi)
		}
	}
}

func TestBootstrapErrorsAndDegenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	mean := bootStats["mean"]
	distinct := func(x []float64) float64 {
		s := slices.Clone(x)
		slices.Sort(s)
		return float64(len(slices.Compact(s)))
	}
	tests := []struct {
		name      string
		xs        []float64
		stat      func([]float64) float64
		level     float64
		resamples int
		method    BootMethod
		rng       *rand.Rand
	}{
		{"one value", []float64{1}, mean, 0.95, 100, BCa, rng},
		{"no resamples", []float64{1, 2}, mean, 0.95, 0, Percentile, rng},
		{"level 1", []float64{1, 2}, mean, 1, 100, Percentile, rng},
		{"level 0", []float64{1, 2}, mean, 0, 100, Percentile, rng},
		{"unknown method", []float64{1, 2}, mean, 0.95, 100, 0, rng},
		{"NaN value", []float64{1, math.NaN(), 2}, mean, 0.95, 100, Percentile, rng},
		{"nil rng", []float64{1, 2}, mean, 0.95, 100, Percentile, nil},
		{"NaN statistic", []float64{1, 2, 3}, func([]float64) float64 { return math.NaN() }, 0.95, 100, Percentile, rng},
		// Almost no resample of 8 values has 8 distinct ones, so the
		// sample's statistic is above the whole bootstrap distribution.
		{"infinite bias correction", []float64{1, 2, 3, 4, 5, 6, 7, 8}, distinct, 0.95, 10, BCa, rng},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			iv, err := Bootstrap(tt.xs, tt.stat, tt.level, tt.resamples, tt.method, tt.rng)
			if err == nil {
				t.Fatalf("no error; interval %+v", iv)
			}
			if !math.IsNaN(iv.Lo) || !math.IsNaN(iv.Hi) {
				t.Errorf("error %q with interval %+v, want NaN bounds", err, iv)
			}
		})
	}
	// Constant data: every statistic is the same, and the interval is that
	// value with zero width (SciPy gives NaN).
	for _, m := range []BootMethod{Percentile, BCa} {
		iv, err := Bootstrap([]float64{4, 4, 4, 4}, mean, 0.95, 200, m, rng)
		if err != nil || iv.Lo != 4 || iv.Hi != 4 {
			t.Errorf("%v of constant data = %+v, %v; want [4, 4]", m, iv, err)
		}
	}
}
