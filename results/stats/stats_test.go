package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/internal/scipytest"
)

// sample returns n deterministic pseudo-random values from a lognormal
// distribution (right-skewed, like waiting times), scaled by scale; the
// PCG generator of math/rand/v2 is specified, so the data are fixed.
func sample(seed uint64, n int, scale float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 17))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = scale * math.Exp(rng.NormFloat64())
	}
	return xs
}

// signedSample returns n deterministic differences with distinct absolute
// values, shifted by shift, for Wilcoxon cases.
func signedSample(seed uint64, n int, shift float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 29))
	d := make([]float64, n)
	for i := range d {
		d[i] = shift + rng.NormFloat64()
	}
	return d
}

func TestDescribeAgainstSciPy(t *testing.T) {
	type tcase struct {
		Name  string    `json:"-"`
		XS    []float64 `json:"xs"`
		Level float64   `json:"level"`
	}
	cases := []tcase{
		{"two values", []float64{3.2, 4.7}, 0.95},
		{"five values", []float64{12.5, 9.1, 15.3, 11.0, 10.2}, 0.9},
		{"negative and positive", []float64{-3.5, 2.25, -0.75, 8, 1.5, -6}, 0.95},
		{"30 skewed", sample(1, 30, 100), 0.95},
		{"100 skewed at 0.99", sample(2, 100, 3600), 0.99},
		{"large offset", func() []float64 {
			xs := signedSample(3, 40, 0)
			for i := range xs {
				xs[i] += 1e6
			}
			return xs
		}(), 0.95},
	}
	var want []struct {
		Mean, SD, SE, Min, Median, Max, Lo, Hi scipytest.Float
		LoPolished                             scipytest.Float `json:"lo_polished"`
		HiPolished                             scipytest.Float `json:"hi_polished"`
	}
	oracle(t, "describe", cases, &want)
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			w := want[i]
			in := slices.Clone(c.XS)
			s := Describe(c.XS, c.Level)
			if !slices.Equal(in, c.XS) {
				t.Fatal("Describe modified its input")
			}
			if s.N != len(c.XS) {
				t.Errorf("N = %d, want %d", s.N, len(c.XS))
			}
			checkNear(t, "Mean", s.Mean, w.Mean.F())
			checkNear(t, "SD", s.SD, w.SD.F())
			checkNear(t, "SE", s.SE, w.SE.F())
			checkNear(t, "Min", s.Min, w.Min.F())
			checkNear(t, "Median", s.Median, w.Median.F())
			checkNear(t, "Max", s.Max, w.Max.F())
			// Against t.interval's quantile polished on t.cdf (see
			// oracle.py). The half-width is the t quantile at work; the
			// bounds alone would hide its error behind a large mean.
			checkNear(t, "CI.Lo", s.CI.Lo, w.LoPolished.F())
			checkNear(t, "CI.Hi", s.CI.Hi, w.HiPolished.F())
			checkNear(t, "CI half-width", (s.CI.Hi-s.CI.Lo)/2, (w.HiPolished.F()-w.LoPolished.F())/2)
			// Against scipy.stats.t.interval itself, within the 1e-8 its
			// cdflib quantile reaches.
			if got, want := (s.CI.Hi-s.CI.Lo)/2, (w.Hi.F()-w.Lo.F())/2; !near(got, want, 1e-8, 0) {
				t.Errorf("CI half-width = %.17g, scipy.stats.t.interval %.17g", got, want)
			}
			if !near(s.CI.Lo, w.Lo.F(), 1e-8, 0) || !near(s.CI.Hi, w.Hi.F(), 1e-8, 0) {
				t.Errorf("CI = [%.17g, %.17g], scipy.stats.t.interval [%.17g, %.17g]", s.CI.Lo, s.CI.Hi, w.Lo.F(), w.Hi.F())
			}
			if s.CI.Level != c.Level || s.CI.Method != "student-t" {
				t.Errorf("CI level %v method %q, want %v student-t", s.CI.Level, s.CI.Method, c.Level)
			}
			if iv := MeanCI(c.XS, c.Level); iv != s.CI {
				t.Errorf("MeanCI = %+v, Describe's CI %+v", iv, s.CI)
			}
		})
	}
}

func TestDescribeEdgeCases(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		xs   []float64
		want Summary
	}{
		{"empty", nil, Summary{N: 0, Mean: nan, SD: nan, SE: nan, Min: nan, Median: nan, Max: nan,
			CI: Interval{Lo: nan, Hi: nan, Level: 0.95, Method: "student-t"}}},
		{"one value", []float64{4}, Summary{N: 1, Mean: 4, SD: nan, SE: nan, Min: 4, Median: 4, Max: 4,
			CI: Interval{Lo: nan, Hi: nan, Level: 0.95, Method: "student-t"}}},
		{"constant: zero-width interval", []float64{2.5, 2.5, 2.5}, Summary{N: 3, Mean: 2.5, SD: 0, SE: 0, Min: 2.5, Median: 2.5, Max: 2.5,
			CI: Interval{Lo: 2.5, Hi: 2.5, Level: 0.95, Method: "student-t"}}},
		{"NaN propagates", []float64{1, nan, 3}, Summary{N: 3, Mean: nan, SD: nan, SE: nan, Min: nan, Median: nan, Max: nan,
			CI: Interval{Lo: nan, Hi: nan, Level: 0.95, Method: "student-t"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Describe(tt.xs, 0.95)
			if !sameSummary(got, tt.want) {
				t.Errorf("Describe = %+v\nwant       %+v", got, tt.want)
			}
		})
	}
	for _, level := range []float64{0, 1, -0.5, 95, nan} {
		if iv := MeanCI([]float64{1, 2, 3}, level); !math.IsNaN(iv.Lo) || !math.IsNaN(iv.Hi) {
			t.Errorf("MeanCI at level %v = %+v, want NaN bounds", level, iv)
		}
	}
}

// same compares floats with NaN equal to NaN.
func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func sameSummary(a, b Summary) bool {
	return a.N == b.N && same(a.Mean, b.Mean) && same(a.SD, b.SD) && same(a.SE, b.SE) &&
		same(a.Min, b.Min) && same(a.Median, b.Median) && same(a.Max, b.Max) &&
		same(a.CI.Lo, b.CI.Lo) && same(a.CI.Hi, b.CI.Hi) && a.CI.Level == b.CI.Level && a.CI.Method == b.CI.Method
}

func TestWilcoxonAgainstSciPy(t *testing.T) {
	type tcase struct {
		Name      string    `json:"-"`
		D         []float64 `json:"d"`
		WantExact bool      `json:"-"`
	}
	allPositive := func(n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			d[i] = 0.5 + float64(i)*1.25
		}
		return d
	}
	cases := []tcase{
		{"exact n=10", []float64{1.83, -0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30, -0.27}, true},
		{"exact n=1", []float64{2.5}, true},
		{"exact n=3", []float64{1, -2, 3}, true},
		{"exact at the centre, p=1", []float64{1, -2, -3, 4}, true},
		{"exact n=12 negative shift", signedSample(4, 12, -0.8), true},
		{"exact n=20 all positive", allPositive(20), true},
		{"exact n=50", signedSample(5, 50, 0.3), true},
		{"exact n=50 all positive, p=2^-49", allPositive(50), true},
		{"approx n=51", signedSample(6, 51, 0.3), false},
		{"approx n=200", signedSample(7, 200, -0.1), false},
		{"approx ties n=12", []float64{1, 2, 2, -3, 3, 3, 4, -5, 5, 6, -2, 7}, false},
		{"approx ties of opposite sign n=8", []float64{-1, 1, 2, -2, 3, 4, 5, 6}, false},
		{"approx zeros n=15", []float64{0.4, -1.1, 2.3, 0, 3.7, 1.9, -0.6, 2.8, 0, 4.4, 1.2, 3.1, -0.2, 2.6, 5.3}, false},
		{"approx zeros and ties", []float64{0, 1, 1, -1, 2, 0, 3, 3, -4, 5, 0, 6}, false},
		{"approx one non-zero among zeros", []float64{0, 0, 1.5}, false},
		{"approx n=300 rounded, many ties", func() []float64 {
			d := signedSample(8, 300, 0.2)
			for i := range d {
				d[i] = math.Round(d[i]*4) / 4
			}
			return d
		}(), false},
	}
	type approx struct{ Statistic, PValue, Z scipytest.Float }
	var want []struct {
		Auto, Exact  *approx
		Approx       approx
		WPlus        scipytest.Float
		RankBiserial scipytest.Float `json:"rank_biserial"`
		Dz           scipytest.Float
	}
	oracle(t, "wilcoxon", cases, &want)
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			w := want[i]
			in := slices.Clone(c.D)
			got, err := Wilcoxon(c.D)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(in, c.D) {
				t.Fatal("Wilcoxon modified its input")
			}
			zeros := 0
			for _, x := range c.D {
				if x == 0 {
					zeros++
				}
			}
			if got.N != len(c.D)-zeros || got.Zeros != zeros {
				t.Errorf("N, Zeros = %d, %d; want %d, %d", got.N, got.Zeros, len(c.D)-zeros, zeros)
			}
			if got.Exact != c.WantExact {
				t.Fatalf("Exact = %v (%s), want %v", got.Exact, got.Method, c.WantExact)
			}
			checkNear(t, "WPlus", got.WPlus, w.WPlus.F())
			checkNear(t, "Statistic", got.Statistic, w.Approx.Statistic.F())
			if got.Exact {
				if got.Method != "exact" || !math.IsNaN(got.Z) {
					t.Errorf("exact result has Method %q, Z %v", got.Method, got.Z)
				}
				checkNear(t, "PValue vs method=exact", got.PValue, w.Exact.PValue.F())
			} else {
				if got.Method != "normal approximation with tie correction" {
					t.Errorf("Method = %q", got.Method)
				}
				checkNear(t, "PValue vs method=approx", got.PValue, w.Approx.PValue.F())
				// SciPy's z comes from min(W+, W-), so it is -|Z|.
				checkNear(t, "-|Z| vs zstatistic", -math.Abs(got.Z), w.Approx.Z.F())
				if n := float64(got.N); (got.Z > 0) != (got.WPlus > n*(n+1)/4) {
					t.Errorf("Z = %v has the wrong sign for W+ = %v of %v", got.Z, got.WPlus, n*(n+1)/2)
				}
			}
			// SciPy 1.10's method="auto" takes the exact path for ties when
			// n <= 50 (see Wilcoxon); everywhere else it must agree.
			hasTies := func() bool {
				a := make([]float64, 0, len(c.D))
				for _, x := range c.D {
					if x != 0 {
						a = append(a, math.Abs(x))
					}
				}
				slices.Sort(a)
				return len(slices.Compact(a)) < len(a)
			}()
			if !hasTies || len(c.D) > 50 || zeros > 0 {
				checkNear(t, "PValue vs method=auto", got.PValue, w.Auto.PValue.F())
			} else {
				t.Logf("ties with n <= 50: SciPy 1.10 auto p = %v (exact table at truncated W+), ours %v (normal approximation)", w.Auto.PValue.F(), got.PValue)
			}
			checkNear(t, "RankBiserial", RankBiserial(c.D), w.RankBiserial.F())
			checkNear(t, "CohenDz", CohenDz(c.D), w.Dz.F())
		})
	}
}

func TestWilcoxonErrorsAndEffectSizes(t *testing.T) {
	for _, d := range [][]float64{nil, {0, 0, 0}, {1, math.NaN(), 2}} {
		if _, err := Wilcoxon(d); err == nil {
			t.Errorf("Wilcoxon(%v): no error", d)
		}
	}
	// W+ = 1+2+4 = 7, W- = 3: r = 4/10; mean 1, sd sqrt(26/3).
	d := []float64{1, 2, -3, 4}
	if got := RankBiserial(d); !near(got, 0.4, 1e-15, 0) {
		t.Errorf("RankBiserial(%v) = %v, want 0.4", d, got)
	}
	if got, want := CohenDz(d), 1/math.Sqrt(26.0/3); !near(got, want, 1e-15, 0) {
		t.Errorf("CohenDz(%v) = %v, want %v", d, got, want)
	}
	tests := []struct {
		name     string
		d        []float64
		rb, dz   float64
		rbIsNaN  bool
		dzIsNaN  bool
		dzIsPInf bool
	}{
		{name: "all positive", d: []float64{1, 2, 3}, rb: 1, dz: 2},
		{name: "all negative", d: []float64{-1, -2, -3}, rb: -1, dz: -2},
		{name: "zeros dropped", d: []float64{0, 1, -2, 0}, rb: (1.0 - 2) / 3, dz: (-0.25) / math.Sqrt(1.5833333333333333)},
		{name: "empty", d: nil, rbIsNaN: true, dzIsNaN: true},
		{name: "one value", d: []float64{2}, rb: 1, dzIsNaN: true},
		{name: "all zero", d: []float64{0, 0}, rbIsNaN: true, dzIsNaN: true},
		{name: "constant", d: []float64{3, 3, 3}, rb: 1, dzIsPInf: true},
		{name: "NaN", d: []float64{1, math.NaN()}, rbIsNaN: true, dzIsNaN: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rb, dz := RankBiserial(tt.d), CohenDz(tt.d)
			switch {
			case tt.rbIsNaN && !math.IsNaN(rb), !tt.rbIsNaN && !near(rb, tt.rb, 1e-15, 0):
				t.Errorf("RankBiserial = %v, want %v (NaN: %v)", rb, tt.rb, tt.rbIsNaN)
			}
			switch {
			case tt.dzIsNaN:
				if !math.IsNaN(dz) {
					t.Errorf("CohenDz = %v, want NaN", dz)
				}
			case tt.dzIsPInf:
				if !math.IsInf(dz, 1) {
					t.Errorf("CohenDz = %v, want +Inf", dz)
				}
			case !near(dz, tt.dz, 1e-15, 0):
				t.Errorf("CohenDz = %v, want %v", dz, tt.dz)
			}
		})
	}
}

func TestHolm(t *testing.T) {
	nan := math.NaN()
	// Worked by hand: sort, multiply the i-th smallest (from 0) by m-i,
	// take the running maximum, cap at 1, put back in the given order.
	tests := []struct {
		name string
		p    []float64
		want []float64
	}{
		// 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 -> 0.06.
		{"running maximum", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// 0.01·3 = 0.03, 0.2·2 = 0.4, 0.5·1 = 0.5.
		{"already monotone", []float64{0.2, 0.5, 0.01}, []float64{0.4, 0.5, 0.03}},
		// 0.3·3 = 0.9, 0.4·2 = 0.8 -> 0.9, 0.6 -> 0.9.
		{"all raised to the first", []float64{0.3, 0.6, 0.4}, []float64{0.9, 0.9, 0.9}},
		// 0.4·3 = 1.2 -> capped at 1 everywhere.
		{"capped at 1", []float64{0.4, 0.6, 0.5}, []float64{1, 1, 1}},
		// Equal p-values get equal adjustments: 0.01·3, 0.01·2 -> 0.03, 0.02·1 -> 0.03.
		{"ties", []float64{0.02, 0.01, 0.01}, []float64{0.03, 0.03, 0.03}},
		// NaN stays NaN and does not count: m = 2.
		{"NaN not counted", []float64{0.01, nan, 0.04}, []float64{0.02, nan, 0.04}},
		{"single", []float64{0.03}, []float64{0.03}},
		{"empty", []float64{}, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.p)
			got := Holm(tt.p)
			if !slices.EqualFunc(in, tt.p, same) {
				t.Fatal("Holm modified its input")
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Holm(%v) = %v, want %v", tt.p, got, tt.want)
			}
			for i := range got {
				if !same(got[i], tt.want[i]) && !near(got[i], tt.want[i], 1e-15, 0) {
					t.Errorf("Holm(%v) = %v, want %v", tt.p, got, tt.want)
					break
				}
			}
		})
	}

	// Properties on random p-values: adjusted >= raw, <= 1, and ordered as
	// the raw ones are.
	rng := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		p := make([]float64, 1+rng.IntN(20))
		for i := range p {
			p[i] = rng.Float64() * rng.Float64()
		}
		adj := Holm(p)
		for i := range p {
			if adj[i] < p[i] || adj[i] > 1 {
				t.Fatalf("Holm(%v)[%d] = %v outside [p, 1]", p, i, adj[i])
			}
			for j := range p {
				if p[i] < p[j] && adj[i] > adj[j] {
					t.Fatalf("Holm(%v) = %v is not monotone at %d, %d", p, adj, i, j)
				}
			}
		}
	}
}

func TestECDFAgainstSciPy(t *testing.T) {
	type tcase struct {
		Name string    `json:"-"`
		XS   []float64 `json:"xs"`
		At   []float64 `json:"at"`
	}
	cases := []tcase{
		{"duplicates", []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}, []float64{-1, 0.999, 1, 1.5, 3, 5, 8.9, 9, 100}},
		{"one value", []float64{7}, []float64{6.99, 7, 7.01}},
		{"negative and fractional", []float64{-0.1, -2.5, 0.3, -0.1, 0, 1e-9}, []float64{-3, -2.5, -0.1, -1e-12, 0, 1e-10, 1}},
		{"37 skewed", sample(9, 37, 10), []float64{0, 5, 10, 15, 20, 50}},
	}
	var want []struct {
		Source string
		X, P   []float64
		At     []float64
	}
	oracle(t, "ecdf", cases, &want)
	t.Logf("reference ECDF: %s", want[0].Source)
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			w := want[i]
			in := slices.Clone(c.XS)
			e := NewECDF(c.XS)
			if !slices.Equal(in, c.XS) {
				t.Fatal("NewECDF modified its input")
			}
			if !slices.Equal(e.X, w.X) {
				t.Errorf("X = %v, want %v", e.X, w.X)
			}
			if len(e.P) != len(w.P) {
				t.Fatalf("P = %v, want %v", e.P, w.P)
			}
			for j := range e.P {
				checkNear(t, "P", e.P[j], w.P[j])
			}
			for j, x := range c.At {
				checkNear(t, "At", e.At(x), w.At[j])
			}
		})
	}
}

func TestECDFEdgeCases(t *testing.T) {
	if e := NewECDF(nil); len(e.X) != 0 || !math.IsNaN(e.At(1)) {
		t.Errorf("empty ECDF = %+v, At(1) = %v; want no points and NaN", e, e.At(1))
	}
	e := NewECDF([]float64{1, math.NaN(), 2})
	if !math.IsNaN(e.At(1.5)) || !math.IsNaN(e.At(-10)) {
		t.Errorf("ECDF of a sample with NaN: At = %v, %v; want NaN", e.At(1.5), e.At(-10))
	}
	e = NewECDF([]float64{2, 1, 2, math.Inf(1)})
	if got := []float64{e.At(math.Inf(-1)), e.At(0.5), e.At(1), e.At(2), e.At(1e308), e.At(math.Inf(1)), e.At(math.NaN())}; !slices.EqualFunc(got, []float64{0, 0, 0.25, 0.75, 0.75, 1, math.NaN()}, same) {
		t.Errorf("At = %v", got)
	}
}

func TestQuantileAgainstNumPy(t *testing.T) {
	type tcase struct {
		Name string    `json:"-"`
		XS   []float64 `json:"xs"`
		PS   []float64 `json:"ps"`
	}
	ps := []float64{0, 0.01, 0.025, 0.1, 0.25, 1.0 / 3, 0.5, 2.0 / 3, 0.75, 0.9, 0.975, 0.99, 1}
	cases := []tcase{
		{"one value", []float64{4.2}, ps},
		{"two values", []float64{10, -2}, ps},
		{"duplicates", []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}, ps},
		{"37 skewed", sample(10, 37, 3600), ps},
		{"1000 normal", signedSample(11, 1000, 5), ps},
		{"huge range", []float64{1e-300, 1e300, -1e300, 0, 5e299}, ps},
	}
	var want [][]scipytest.Float
	oracle(t, "quantile", cases, &want)
	for i, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			in := slices.Clone(c.XS)
			got := Quantiles(c.XS, c.PS)
			if !slices.Equal(in, c.XS) {
				t.Fatal("Quantiles modified its input")
			}
			for j, p := range c.PS {
				checkNear(t, "Quantiles", got[j], want[i][j].F())
				checkNear(t, "Quantile", Quantile(c.XS, p), want[i][j].F())
			}
		})
	}
}

func TestQuantileEdgeCases(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"empty", nil, 0.5, nan},
		{"NaN in sample", []float64{1, nan, 3}, 0.5, nan},
		{"p below 0", []float64{1, 2}, -0.1, nan},
		{"p above 1", []float64{1, 2}, 1.1, nan},
		{"p NaN", []float64{1, 2}, nan, nan},
		{"infinite max at p=1", []float64{1, inf}, 1, inf},
		{"infinite min at p=0", []float64{-inf, 1}, 0, -inf},
		{"between equal infinities", []float64{inf, inf, inf}, 0.3, inf},
		{"interpolates", []float64{0, 10}, 0.25, 2.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quantile(tt.xs, tt.p); !same(got, tt.want) {
				t.Errorf("Quantile(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
			}
		})
	}
	if got := Quantiles(nil, []float64{0.1, 0.9}); len(got) != 2 || !math.IsNaN(got[0]) || !math.IsNaN(got[1]) {
		t.Errorf("Quantiles of empty = %v, want two NaN", got)
	}
}
