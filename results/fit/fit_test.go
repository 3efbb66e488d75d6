package fit

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mathext"

	"github.com/schedlab/schedlab/internal/scipytest"
)

// draw returns n values from the law fam(params), drawn with a PCG
// generator seeded with seed; PCG is specified by math/rand/v2, so the
// sample is fixed.
func draw(fam Family, params map[string]float64, n int, seed uint64) []float64 {
	f := Fit{Family: fam, Params: params}
	rng := rand.New(rand.NewPCG(seed, 23))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = f.Rand(rng)
	}
	return xs
}

// syntheticSamples are the samples drawn in Go for the SciPy comparison:
// each family with job-like parameters, tiny samples, heavy ties, a narrow
// spread (shapes in the thousands) and a range of 1 s to 10⁷ s.
func syntheticSamples() []sample {
	rng := rand.New(rand.NewPCG(99, 1))
	ties := make([]float64, 2000)
	for i := range ties {
		// Whole seconds from a log-normal: most values repeat.
		ties[i] = 1 + math.Round(math.Exp(3+1.5*rng.NormFloat64()))
	}
	narrow := make([]float64, 500)
	for i := range narrow {
		narrow[i] = 1e6 + 1e3*rng.Float64()
	}
	wide := make([]float64, 2000)
	for i := range wide {
		wide[i] = math.Exp(rng.Float64() * math.Log(1e7))
	}
	return []sample{
		{"exponential mean 600", draw(Exponential, map[string]float64{ParamRate: 1.0 / 600}, 1000, 1), false},
		{"lognormal sigma 2.5", draw(LogNormal, map[string]float64{ParamMu: 5, ParamSigma: 2.5}, 2000, 2), false},
		{"weibull k 0.45", draw(Weibull, map[string]float64{ParamK: 0.45, ParamLambda: 3000}, 3000, 3), false},
		{"gamma k 0.3", draw(Gamma, map[string]float64{ParamK: 0.3, ParamTheta: 2e4}, 1500, 4), false},
		{"gamma k 8", draw(Gamma, map[string]float64{ParamK: 8, ParamTheta: 10}, 500, 5), false},
		{"five values", []float64{3, 17, 120, 45, 9}, false},
		{"integer seconds with ties", ties, false},
		{"narrow around 1e6", narrow, true},
		{"log-uniform 1 s to 1e7 s", wide, false},
	}
}

func TestMLEAgainstSciPy(t *testing.T) {
	checkAgainstSciPy(t, syntheticSamples())
}

func TestMLEErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		xs   []float64
		fam  Family
		want string // in the error
	}{
		{"nil", nil, Exponential, "no values"},
		{"empty", []float64{}, Weibull, "no values"},
		{"NaN", []float64{1, 2, 3, nan, 5}, LogNormal, "xs[3] is NaN"},
		{"zero", []float64{1, 2, 0, -1}, Gamma, "xs[2] = 0 is not positive"},
		{"negative", []float64{-4, 2}, Exponential, "xs[0] = -4 is not positive"},
		{"infinite", []float64{1, inf}, Weibull, "xs[1] is +Inf"},
		{"unknown family", []float64{1, 2}, Family("pareto"), `unknown family "pareto"`},
		{"one value lognormal", []float64{7}, LogNormal, "all 1 values equal 7"},
		{"equal values weibull", []float64{60, 60, 60}, Weibull, "at least 2 distinct values"},
		{"equal values gamma", []float64{60, 60, 60}, Gamma, "at least 2 distinct values"},
		// The mean of these is finite, the gamma scale mean/k is not.
		{"overflowing scale", []float64{math.MaxFloat64, 1}, Gamma, "estimate out of range: gamma: parameter theta = +Inf is not finite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := MLE(tt.xs, tt.fam)
			if err == nil {
				t.Fatalf("MLE = %v, want an error", f)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "fit: MLE(") {
				t.Errorf("error %q, want one starting with \"fit: MLE(\" and containing %q", err, tt.want)
			}
			if _, err := FitAll(tt.xs); err == nil && tt.fam != Family("pareto") {
				t.Errorf("FitAll accepted %v", tt.xs)
			}
		})
	}
	// An exponential law is defined by one value, or equal ones.
	for _, xs := range [][]float64{{7}, {60, 60, 60}} {
		f, err := MLE(xs, Exponential)
		if err != nil || f.Params[ParamRate] != 1/xs[0] {
			t.Errorf("MLE(%v, exponential) = %v, %v; want rate %v", xs, f, err, 1/xs[0])
		}
	}
}

func TestMLEDoesNotModifyInput(t *testing.T) {
	xs := draw(Weibull, map[string]float64{ParamK: 0.7, ParamLambda: 100}, 200, 8)
	in := slices.Clone(xs)
	if _, err := FitAll(xs); err != nil {
		t.Fatal(err)
	}
	KS(xs, Fit{Family: Exponential, Params: map[string]float64{ParamRate: 1}})
	if _, err := Test(xs, Fit{Family: Exponential, Params: map[string]float64{ParamRate: 0.01}}, 5, rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(xs, in) {
		t.Error("input modified")
	}
}

// TestMLEScale checks that fits follow a change of unit (seconds to
// milliseconds or days), from 10⁻⁵ to 10¹¹: the shapes must not change
// and the scales must scale, which a solver that overflowed or lost
// precision at either end would break.
func TestMLEScale(t *testing.T) {
	base := draw(Gamma, map[string]float64{ParamK: 0.5, ParamTheta: 1}, 1000, 9)
	ref := map[Family]Fit{}
	for _, fam := range Families() {
		f, err := MLE(base, fam)
		if err != nil {
			t.Fatal(err)
		}
		ref[fam] = f
	}
	for _, c := range []float64{1e-5, 1.0 / 86400, 1000, 1e7, 1e11} {
		xs := make([]float64, len(base))
		for i, x := range base {
			xs[i] = c * x
		}
		for _, fam := range Families() {
			f, err := MLE(xs, fam)
			if err != nil {
				t.Fatalf("scale %g: %v", c, err)
			}
			r := ref[fam].Params
			var checks [][3]float64 // got, want, tolerance
			switch fam {
			case Exponential:
				checks = [][3]float64{{f.Params[ParamRate], r[ParamRate] / c, 1e-14}}
			case LogNormal:
				checks = [][3]float64{{f.Params[ParamMu], r[ParamMu] + math.Log(c), 1e-13}, {f.Params[ParamSigma], r[ParamSigma], 1e-12}}
			case Weibull:
				checks = [][3]float64{{f.Params[ParamK], r[ParamK], 1e-12}, {f.Params[ParamLambda], r[ParamLambda] * c, 1e-12}}
			case Gamma:
				checks = [][3]float64{{f.Params[ParamK], r[ParamK], 1e-12}, {f.Params[ParamTheta], r[ParamTheta] * c, 1e-12}}
			}
			for _, ch := range checks {
				if !near(ch[0], ch[1], ch[2], ch[2]) {
					t.Errorf("scale %g, %s: %v, want %.17g", c, fam, f, ch[1])
				}
			}
			// The log-likelihood shifts by −n·ln c (the density of c·X).
			want := ref[fam].LogLik - float64(len(xs))*math.Log(c)
			if !near(f.LogLik, want, 1e-11, 1e-8) {
				t.Errorf("scale %g, %s: LogLik %.17g, want %.17g", c, fam, f.LogLik, want)
			}
		}
	}
}

// TestMLELargeSample fits 450,000 values spanning 1 s to beyond 10⁷ s,
// the size of the largest trace (RICC), and checks that the estimates
// recover the law they were drawn from to within a few standard errors.
func TestMLELargeSample(t *testing.T) {
	const n = 450_000
	laws := []struct {
		fam    Family
		params map[string]float64
	}{
		{Weibull, map[string]float64{ParamK: 0.35, ParamLambda: 5000}},
		{Gamma, map[string]float64{ParamK: 0.25, ParamTheta: 4e4}},
		{LogNormal, map[string]float64{ParamMu: 7, ParamSigma: 2.8}},
	}
	for i, law := range laws {
		xs := draw(law.fam, law.params, n, uint64(100+i))
		xs = slices.DeleteFunc(xs, func(x float64) bool { return x <= 0 }) // gamma may underflow
		f, err := MLE(xs, law.fam)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range law.params {
			// Standard errors are ~1/√n relative; allow 2%.
			if got := f.Params[name]; !near(got, want, 0.02, 0.02) {
				t.Errorf("%s %s = %v, drawn from %v", law.fam, name, got, want)
			}
		}
		if d := KS(xs, f); d > 1.95/math.Sqrt(float64(len(xs))) {
			t.Errorf("%s: KS %v of its own law's sample", law.fam, d)
		}
		lo, hi := slices.Min(xs), slices.Max(xs)
		t.Logf("%s: %d values in [%.3g, %.3g]: %v", law.fam, len(xs), lo, hi, f)
	}
}

func TestFitAll(t *testing.T) {
	xs := draw(LogNormal, map[string]float64{ParamMu: 4, ParamSigma: 1.5}, 2000, 11)
	fits, err := FitAll(xs)
	if err != nil {
		t.Fatal(err)
	}
	if len(fits) != len(Families()) {
		t.Fatalf("%d fits", len(fits))
	}
	seen := map[Family]bool{}
	for i, f := range fits {
		seen[f.Family] = true
		if i > 0 && fits[i-1].AIC > f.AIC {
			t.Errorf("not sorted by AIC: %v (%v) before %v (%v)", fits[i-1], fits[i-1].AIC, f, f.AIC)
		}
		g, err := MLE(xs, f.Family)
		if err != nil || g.LogLik != f.LogLik || g.AIC != f.AIC || g.BIC != f.BIC || g.N != f.N {
			t.Errorf("FitAll's %v differs from MLE's %v (%v)", f, g, err)
		}
	}
	if len(seen) != len(fits) {
		t.Errorf("families %v", fits)
	}
	if fits[0].Family != LogNormal {
		t.Errorf("best fit of log-normal data is %v", fits[0])
	}
	if _, err := FitAll([]float64{3, 3}); err == nil || !strings.Contains(err.Error(), "fit: FitAll: lognormal:") {
		t.Errorf("FitAll of equal values: %v", err)
	}
}

// laws are valid fits of every family, for the tests of the methods.
func laws() []Fit {
	return []Fit{
		{Family: Exponential, Params: map[string]float64{ParamRate: 1.0 / 600}},
		{Family: LogNormal, Params: map[string]float64{ParamMu: 5, ParamSigma: 2}},
		{Family: LogNormal, Params: map[string]float64{ParamMu: -1, ParamSigma: 0.3}},
		{Family: Weibull, Params: map[string]float64{ParamK: 0.45, ParamLambda: 3000}},
		{Family: Weibull, Params: map[string]float64{ParamK: 3, ParamLambda: 10}},
		{Family: Gamma, Params: map[string]float64{ParamK: 0.3, ParamTheta: 2e4}},
		{Family: Gamma, Params: map[string]float64{ParamK: 50, ParamTheta: 2}},
	}
}

func TestFitMethods(t *testing.T) {
	for _, f := range laws() {
		t.Run(f.String(), func(t *testing.T) {
			if got := f.CDF(0); got != 0 {
				t.Errorf("CDF(0) = %v", got)
			}
			if got := f.CDF(-3); got != 0 {
				t.Errorf("CDF(-3) = %v", got)
			}
			if got := f.CDF(math.Inf(1)); got != 1 {
				t.Errorf("CDF(+Inf) = %v", got)
			}
			if got := f.CDF(math.NaN()); !math.IsNaN(got) {
				t.Errorf("CDF(NaN) = %v", got)
			}
			if f.Quantile(0) != 0 || !math.IsInf(f.Quantile(1), 1) {
				t.Errorf("Quantile(0), Quantile(1) = %v, %v", f.Quantile(0), f.Quantile(1))
			}
			for _, p := range []float64{-0.1, 1.5, math.NaN()} {
				if got := f.Quantile(p); !math.IsNaN(got) {
					t.Errorf("Quantile(%v) = %v, want NaN", p, got)
				}
			}
			d, err := f.Dist(nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []float64{1e-9, 0.001, 0.1, 0.5, 0.9, 0.999999} {
				q := f.Quantile(p)
				if got := f.CDF(q); !near(got, p, 1e-9, 0) {
					t.Errorf("CDF(Quantile(%v)) = %.17g", p, got)
				}
				if got := d.CDF(q); !near(got, f.CDF(q), 1e-15, 0) {
					t.Errorf("Dist().CDF(%v) = %v, CDF %v", q, got, f.CDF(q))
				}
			}
			// Rand: reproducible from the seed, and distributed as the
			// law (KS below its 0.1% critical value for known parameters).
			const n = 20000
			xs := make([]float64, n)
			rng := rand.New(rand.NewPCG(5, 6))
			for i := range xs {
				xs[i] = f.Rand(rng)
			}
			rng = rand.New(rand.NewPCG(5, 6))
			for i := range 10 {
				if got := f.Rand(rng); got != xs[i] {
					t.Fatalf("Rand #%d = %v, then %v with the same seed", i, xs[i], got)
				}
			}
			if ks := KS(xs, f); ks > 1.95/math.Sqrt(n) {
				t.Errorf("KS of %d draws = %v > %v", n, ks, 1.95/math.Sqrt(n))
			}
			// Dist draws the same law.
			d, err = f.Dist(rand.NewPCG(7, 8))
			if err != nil {
				t.Fatal(err)
			}
			for i := range xs {
				xs[i] = d.Rand()
			}
			if ks := KS(xs, f); ks > 1.95/math.Sqrt(n) {
				t.Errorf("KS of %d draws from Dist = %v > %v", n, ks, 1.95/math.Sqrt(n))
			}
		})
	}
}

func TestInvalidFit(t *testing.T) {
	tests := []struct {
		name string
		f    Fit
		want string
	}{
		{"zero value", Fit{}, `unknown family ""`},
		{"unknown family", Fit{Family: "pareto", Params: map[string]float64{"alpha": 2}}, `unknown family "pareto"`},
		{"missing", Fit{Family: Weibull, Params: map[string]float64{ParamK: 2}}, `no parameter "lambda"`},
		{"misspelt", Fit{Family: Gamma, Params: map[string]float64{ParamK: 2, ParamTheta: 3, "scale": 3}}, "3 parameters, want 2"},
		{"negative", Fit{Family: Exponential, Params: map[string]float64{ParamRate: -1}}, "rate = -1 is not positive"},
		{"zero sigma", Fit{Family: LogNormal, Params: map[string]float64{ParamMu: 0, ParamSigma: 0}}, "sigma = 0 is not positive"},
		{"NaN", Fit{Family: LogNormal, Params: map[string]float64{ParamMu: math.NaN(), ParamSigma: 1}}, "mu = NaN is not finite"},
	}
	xs := []float64{1, 2, 3}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			for what, v := range map[string]float64{"CDF": tt.f.CDF(1), "Quantile": tt.f.Quantile(0.5), "Rand": tt.f.Rand(rng), "KS": KS(xs, tt.f), "CvM": CvM(xs, tt.f)} {
				if !math.IsNaN(v) {
					t.Errorf("%s = %v, want NaN", what, v)
				}
			}
			if _, err := tt.f.Dist(nil); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Dist error %v, want %q", err, tt.want)
			}
			if _, err := Test(xs, tt.f, 10, rng); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Test error %v, want %q", err, tt.want)
			}
			if s := tt.f.String(); !strings.Contains(s, "invalid") {
				t.Errorf("String() = %q", s)
			}
		})
	}
	// A mu of 0 or below is a median of 1 or below: valid.
	if f := (Fit{Family: LogNormal, Params: map[string]float64{ParamMu: -2, ParamSigma: 1}}); math.IsNaN(f.CDF(1)) {
		t.Error("negative mu rejected")
	}
}

func TestStatisticsEdgeCases(t *testing.T) {
	f := Fit{Family: Exponential, Params: map[string]float64{ParamRate: 1}}
	for _, xs := range [][]float64{nil, {}, {1, math.NaN()}} {
		if !math.IsNaN(KS(xs, f)) || !math.IsNaN(CvM(xs, f)) {
			t.Errorf("KS, CvM of %v = %v, %v; want NaN", xs, KS(xs, f), CvM(xs, f))
		}
	}
	// One value at the median: D = 1/2, W² = 1/12 + 0.
	x := math.Ln2
	if d, w := KS([]float64{x}, f), CvM([]float64{x}, f); !near(d, 0.5, 1e-15, 0) || !near(w, 1.0/12, 1e-15, 1e-16) {
		t.Errorf("KS, CvM at the median = %v, %v; want 0.5, 1/12", d, w)
	}
	// Ties: n equal values at the median give D = 1/2 as well (the
	// empirical CDF jumps from 0 to 1 there).
	if d := KS([]float64{x, x, x, x}, f); !near(d, 0.5, 1e-15, 0) {
		t.Errorf("KS of 4 tied values at the median = %v, want 0.5", d)
	}
}

// TestLogMinusDigamma checks ln k − ψ(k) and its derivative at known
// values (ψ(1) = −γ, ψ(1/2) = −γ − 2 ln 2, ψ′(1) = π²/6, ψ′(1/2) = π²/2),
// across the switch to the asymptotic series, and against SciPy.
func TestLogMinusDigamma(t *testing.T) {
	const euler = 0.57721566490153286060651209008240243
	exact := []struct{ k, v, dv float64 }{
		{1, euler, 1 - math.Pi*math.Pi/6},
		{0.5, euler + math.Ln2, 2 - math.Pi*math.Pi/2},
		// ψ(2) = 1 − γ, ψ′(2) = π²/6 − 1.
		{2, math.Ln2 - 1 + euler, 0.5 - math.Pi*math.Pi/6 + 1},
	}
	for _, e := range exact {
		v, dv := logMinusDigamma(e.k)
		if !near(v, e.v, 4e-16, 0) || !near(dv, e.dv, 4e-15, 0) {
			t.Errorf("logMinusDigamma(%v) = %.17g, %.17g; want %.17g, %.17g", e.k, v, dv, e.v, e.dv)
		}
	}
	// Both sides of the switch agree.
	below := math.Nextafter(asymptoticFrom, 0)
	v0, d0 := logMinusDigamma(below)
	v1, d1 := logMinusDigamma(asymptoticFrom)
	if !near(v0, v1, 1e-15, 0) || !near(d0, d1, 4e-15, 0) {
		t.Errorf("at the switch: %.17g, %.17g below; %.17g, %.17g at", v0, d0, v1, d1)
	}
	// For large k, ln k − ψ(k) → 1/(2k) + 1/(12k²).
	for _, k := range []float64{1e4, 1e8, 1e15} {
		v, dv := logMinusDigamma(k)
		if !near(v, 1/(2*k)+1/(12*k*k)-1/(120*k*k*k*k), 1e-15, 0) || !near(dv, -1/(2*k*k)-1/(6*k*k*k)+1/(30*k*k*k*k*k), 1e-15, 0) {
			t.Errorf("logMinusDigamma(%g) = %g, %g", k, v, dv)
		}
	}

	type tcase struct {
		K float64 `json:"k"`
	}
	var cases []tcase
	for _, k := range []float64{1e-6, 0.01, 0.3, 1, 2.5, 7.9, 9.999, 10, 10.5, 33, 200} {
		cases = append(cases, tcase{k})
	}
	var want []struct {
		LMD      scipytest.Float `json:"lmd"`
		DLMD     scipytest.Float `json:"dlmd"`
		Digamma  scipytest.Float `json:"digamma"`
		Trigamma scipytest.Float `json:"trigamma"`
	}
	oracle(t, "special", cases, &want)
	for i, c := range cases {
		v, dv := logMinusDigamma(c.K)
		w := want[i]
		// SciPy's difference of ln k and ψ(k) carries their rounding,
		// eps·(|ln k| + |ψ(k)|), which is large next to the difference
		// when k is large; ours does not cancel.
		tolV := 4 * eps * (math.Abs(math.Log(c.K)) + math.Abs(w.Digamma.F()))
		if math.Abs(v-w.LMD.F()) > tolV+1e-15*math.Abs(v) {
			t.Errorf("ln k − ψ(k) at %v = %.17g, SciPy %.17g", c.K, v, w.LMD.F())
		}
		tolD := 4 * eps * (1/c.K + math.Abs(w.Trigamma.F()))
		if math.Abs(dv-w.DLMD.F()) > tolD+1e-14*math.Abs(dv) {
			t.Errorf("1/k − ψ′(k) at %v = %.17g, SciPy %.17g", c.K, dv, w.DLMD.F())
		}
	}
}

// TestGammaQuantile checks the gamma quantile by its residual, the
// distance of ln P(k, x) (or ln Q in the upper half) from ln p, over
// shapes from 10⁻³ to 10⁷ and p from 10⁻³⁰⁰ to 1 − 10⁻¹²: where gonum's
// Gamma.Quantile returns 0, loses precision or panics. A quantile known
// only to rounding moves ln P by eps·(d ln P/d ln x), which is large for
// large shapes, so the tolerance includes it.
func TestGammaQuantile(t *testing.T) {
	for _, k := range []float64{1e-3, 0.05, 0.3, 1, 7.5, 1e3, 1e7} {
		for _, p := range []float64{1e-300, 1e-30, 1e-12, 1e-3, 0.3, 0.5, 0.7, 0.999, 1 - 1e-12} {
			x := gammaQuantile(k, p)
			lg1, _ := math.Lgamma(k + 1)
			if (math.Log(p)+lg1)/k < math.Log(math.SmallestNonzeroFloat64) && p <= 0.5 {
				// The quantile is below the smallest float64.
				if x > 1e-300 {
					t.Errorf("k=%g p=%g: quantile %g, want an underflow", k, p, x)
				}
				continue
			}
			lgk, _ := math.Lgamma(k)
			var resid, slope float64
			if p > 0.5 {
				q := mathext.GammaIncRegComp(k, x)
				resid = math.Log(q) - math.Log1p(-p)
				slope = math.Exp(k*math.Log(x) - x - lgk - math.Log(q))
			} else {
				pp := mathext.GammaIncReg(k, x)
				resid = math.Log(pp) - math.Log(p)
				slope = math.Exp(k*math.Log(x) - x - lgk - math.Log(pp))
			}
			if tol := 1e-13 + 8*eps*slope*math.Max(1, math.Abs(math.Log(x))); !(math.Abs(resid) <= tol) {
				t.Errorf("k=%g p=%g: quantile %.17g misses ln p by %.3g (tolerance %.3g)", k, p, x, resid, tol)
			}
			if f := (Fit{Family: Gamma, Params: map[string]float64{ParamK: k, ParamTheta: 3}}); f.Quantile(p) != 3*x {
				t.Errorf("k=%g p=%g: Fit.Quantile %v, want 3·%v", k, p, f.Quantile(p), x)
			}
		}
	}
}

// TestGammaLogPDF checks the form of the gamma log-density used for
// shapes >= 10 (see law.logPDF) against the textbook form where the
// latter is still accurate, and the Stirling remainder against Lgamma.
func TestGammaLogPDF(t *testing.T) {
	for _, k := range []float64{10, 37.5, 1000} {
		lg, _ := math.Lgamma(k)
		for _, theta := range []float64{0.01, 3, 1e5} {
			l := law{fam: Gamma, a: k, b: theta}
			for _, u := range []float64{0.05, 0.5, 0.99, 1, 1.0001, 2, 7} {
				x := u * k * theta
				naive := -lg - k*math.Log(theta) + (k-1)*math.Log(x) - x/theta
				// The naive form's rounding: a few eps times its terms.
				tol := 8 * eps * (math.Abs(lg) + math.Abs(k*math.Log(theta)) + math.Abs((k-1)*math.Log(x)) + x/theta)
				if got := l.logPDF(x); math.Abs(got-naive) > tol {
					t.Errorf("k=%g theta=%g x=%g: logPDF %.17g, textbook %.17g", k, theta, x, got, naive)
				}
			}
		}
	}
	// ln Γ(k) − [(k − ½) ln k − k + ½ ln 2π], from 60-digit Decimal sums
	// of logarithms (Γ(37.5) = √π·Π(j + ½)): differences of Lgamma would
	// carry its rounding, 1e-13 of ln Γ(1000) ≈ 5905.
	for _, c := range []struct{ k, want float64 }{
		{10, 0.0083305634333628712564693186596285522},
		{37.5, 0.0022221695580216020900350768656017602},
		{1000, 0.000083333330555556349205753969095717178},
	} {
		if got := stirlerr(c.k); !near(got, c.want, 4*eps, 0) {
			t.Errorf("stirlerr(%g) = %.17g, want %.17g", c.k, got, c.want)
		}
	}
	for _, u := range []float64{1e-9, 0.3, 0.5, 0.9, 1 - 1e-6, 1, 1 + 1e-6, 1.2, 1.5, 1.6, 40} {
		v := u - 1
		var want float64
		if math.Abs(v) < 1e-3 {
			want = v * v * (0.5 - v/3 + v*v/4 - v*v*v/5)
		} else {
			want = v - math.Log(u)
		}
		if got := uMinus1MinusLog(u); !near(got, want, 1e-13, 0) {
			t.Errorf("uMinus1MinusLog(%g) = %.17g, want %.17g", u, got, want)
		}
	}
}
