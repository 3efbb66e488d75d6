package lublin

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/scipytest"
	"github.com/schedlab/schedlab/workload/swf"
)

// trial draws n jobs of one class alone.
func trial(t *testing.T, mode string, n int, seed uint64) []int64 {
	t.Helper()
	m := Published()
	m.Mode, m.Jobs = mode, n
	recs, err := m.Generate(rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	sizes := make([]int64, n)
	for i, r := range recs {
		sizes[i] = r.AllocProcs
	}
	return sizes
}

// within reports whether a share observed in n draws is within 5 standard
// errors of p.
func within(got float64, p float64, n int) bool {
	return math.Abs(got-p) <= 5*math.Sqrt(p*(1-p)/float64(n))
}

// tsuMass is the probability that the two-stage uniform of c falls in
// [a, b).
func tsuMass(c Class, a, b float64) float64 {
	seg := func(lo, hi float64) float64 {
		if hi <= lo {
			return 0
		}
		return max(0, min(b, hi)-max(a, lo)) / (hi - lo)
	}
	return c.UProb*seg(c.ULow, c.UMed) + (1-c.UProb)*seg(c.UMed, c.UHi)
}

// TestSizes checks the serial and power-of-two shares of each class
// against what the model implies: serial_prob, and pow2_prob plus the
// unrounded draws that happen to round to a power of two (the mass of the
// two-stage uniform on [log2(2^k - 1/2), log2(2^k + 1/2))).
func TestSizes(t *testing.T) {
	const n = 200_000
	p := Published()
	for _, c := range []struct {
		mode  string
		class Class
	}{{ModeBatch, p.Batch}, {ModeInteractive, p.Interactive}, {ModeTypeless, p.Typeless}} {
		sizes := trial(t, c.mode, n, 11)
		serial, pow2 := 0, 0
		for _, s := range sizes {
			switch {
			case s == 1:
				serial++
			case s&(s-1) == 0:
				pow2++
			}
			if s < 1 || s > 1<<8 {
				t.Fatalf("%s: size %d", c.mode, s)
			}
		}
		q := 0.0
		for k := 1; k <= 8; k++ {
			x := math.Ldexp(1, k)
			q += tsuMass(c.class, math.Log2(x-0.5), math.Log2(x+0.5))
		}
		wantPow2 := c.class.Pow2Prob + (1-c.class.SerialProb-c.class.Pow2Prob)*q
		gotSerial, gotPow2 := float64(serial)/n, float64(pow2)/n
		t.Logf("%s: serial %.4f (model %.4f), power of two > 1 %.4f (model %.4f)", c.mode, gotSerial, c.class.SerialProb, gotPow2, wantPow2)
		if !within(gotSerial, c.class.SerialProb, n) || !within(gotPow2, wantPow2, n) {
			t.Errorf("%s: serial %.4f want %.4f, power of two %.4f want %.4f", c.mode, gotSerial, c.class.SerialProb, gotPow2, wantPow2)
		}
	}
}

// TestScaleSizes checks that scaling to a machine moves the largest job to
// its size: 2^UHi of a batch job is the machine.
func TestScaleSizes(t *testing.T) {
	m := Published()
	m.Mode, m.Jobs, m.Procs = ModeBatch, 50_000, 1024
	recs, err := m.Generate(rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	most := int64(0)
	for _, r := range recs {
		most = max(most, r.AllocProcs)
	}
	if most != 1024 {
		t.Errorf("largest batch job on 1024 processors: %d, want 1024", most)
	}
	m.ScaleSizes = false
	recs, _ = m.Generate(rand.New(rand.NewPCG(3, 4)))
	for _, r := range recs {
		if r.AllocProcs > 128 {
			t.Fatalf("unscaled: a job of %d processors, the published model's largest is 128", r.AllocProcs)
		}
	}
}

// gammaCDFs asks SciPy for the CDF of gamma(shape, scale) at each x.
func gammaCDFs(t *testing.T, shape, scale float64, xs []float64) []float64 {
	t.Helper()
	var out []float64
	scipytest.Snippet(t, time.Minute, `
q = json.load(sys.stdin)
print(json.dumps([float(v) for v in scipy.stats.gamma(q["a"], scale=q["scale"]).cdf(q["x"])]))
`, map[string]any{"a": shape, "scale": scale, "x": xs}, &out)
	return out
}

// TestRuntimes checks the runtimes of jobs of several sizes against the
// model's own distribution, computed from SciPy's gamma CDFs: a
// Kolmogorov-Smirnov distance below the DKW bound at 1e-6 on 100,000
// draws, and the mean within 5 standard errors of the model's.
func TestRuntimes(t *testing.T) {
	const n = 100_000
	c := Published().Batch
	// R = floor(exp(H)) with H the hyper-gamma below 12: P(R <= r) =
	// P(H < ln(r+1) | H <= 12), on a grid of r up to the largest runtime.
	var rs, xs []float64
	for r := 1.0; r < math.Exp(12); r *= 1.05 {
		rs = append(rs, math.Floor(r))
		xs = append(xs, math.Log(math.Floor(r)+1))
	}
	xs = append(xs, 12)
	g1, g2 := gammaCDFs(t, c.A1, c.B1, xs), gammaCDFs(t, c.A2, c.B2, xs)
	eps := math.Sqrt(math.Log(2/1e-6) / (2 * n))
	for _, nodes := range []int64{1, 16, 128} {
		p := c.MixProb(nodes)
		cdf := func(i int) float64 {
			return (p*g1[i] + (1-p)*g2[i]) / (p*g1[len(xs)-1] + (1-p)*g2[len(xs)-1])
		}
		rng := rand.New(rand.NewPCG(uint64(nodes), 9))
		sample := make([]float64, n)
		sum, sumsq := 0.0, 0.0
		for i := range sample {
			r := float64(Runtime(c, nodes, 12, rng))
			sample[i] = r
			sum, sumsq = sum+r, sumsq+r*r
		}
		slices.Sort(sample)
		worst := 0.0
		for i, r := range rs {
			k, _ := slices.BinarySearch(sample, r+0.5) // draws <= r
			worst = max(worst, math.Abs(float64(k)/n-cdf(i)))
		}
		// The model's mean: E[exp(H) | H <= 12] by quadrature of SciPy's
		// gamma densities, less the half second that truncation takes on
		// average (within half a second).
		var mean float64
		scipytest.Snippet(t, time.Minute, `
import scipy.integrate, math
q = json.load(sys.stdin)
g1 = scipy.stats.gamma(q["a1"], scale=q["b1"]); g2 = scipy.stats.gamma(q["a2"], scale=q["b2"]); p = q["p"]
num = scipy.integrate.quad(lambda x: math.exp(x) * (p * g1.pdf(x) + (1 - p) * g2.pdf(x)), 0, 12, limit=200)[0]
print(json.dumps(num / (p * g1.cdf(12) + (1 - p) * g2.cdf(12)) - 0.5))
`, map[string]any{"a1": c.A1, "b1": c.B1, "a2": c.A2, "b2": c.B2, "p": p}, &mean)
		got := sum / n
		se := math.Sqrt((sumsq/n - got*got) / n)
		t.Logf("%d nodes: KS distance %.4f (bound %.4f), mean runtime %.0f s (model %.0f s, se %.0f)", nodes, worst, eps, got, mean, se)
		if worst > eps {
			t.Errorf("%d nodes: runtimes at KS distance %.4f from the model's, above %.4f", nodes, worst, eps)
		}
		if math.Abs(got-mean) > 0.02*mean+5*se {
			t.Errorf("%d nodes: mean runtime %.0f s, the model's about %.0f s", nodes, got, mean)
		}
	}
}

// TestDailyCycle checks the weights against SciPy's gamma CDF, then that
// arrivals fall in each half hour of the day in proportion to its weight
// (in the long run, arrivals are uniform in points, and a bucket holds
// weight points), and that the mean inter-arrival time is the mean of
// exp of the truncated gamma.
func TestDailyCycle(t *testing.T) {
	p := Published()
	for _, c := range []struct {
		mode  string
		class Class
	}{{ModeBatch, p.Batch}, {ModeInteractive, p.Interactive}} {
		w := c.class.Weights()
		var xs []float64
		for i := cycleStart; i < Buckets+cycleStart; i++ {
			xs = append(xs, float64(i)-0.5, float64(i)+0.5)
		}
		cdf := gammaCDFs(t, c.class.ANum, c.class.BNum, xs)
		mean := 0.0
		for k := range Buckets {
			mean += cdf[2*k+1] - cdf[2*k]
		}
		mean /= Buckets
		for k, i := 0, cycleStart; i < Buckets+cycleStart; k, i = k+1, i+1 {
			if want := (cdf[2*k+1] - cdf[2*k]) / mean; math.Abs(w[(i-1)%Buckets]-want) > 1e-9 {
				t.Fatalf("%s: weight of bucket %d is %v, SciPy gives %v", c.mode, (i-1)%Buckets, w[(i-1)%Buckets], want)
			}
		}

		const n = 300_000
		m := Published()
		m.Mode, m.Jobs = c.mode, n
		recs, err := m.Generate(rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		// The total-variation distance between the arrivals' shares of the
		// half hours and the weights' (1 is disjoint, 0 equal); the
		// program's truncated clock, which drifts against the buckets,
		// smears the cycle to a distance an order of magnitude larger.
		m.TruncateClock = true
		drifted, err := m.Generate(rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		dist := func(recs []swf.Record) float64 {
			var count [Buckets]float64
			for _, r := range recs {
				count[(r.Submit%86400)/BucketSeconds]++
			}
			tv := 0.0
			for b := range Buckets {
				tv += math.Abs(count[b]/n-w[b]/Buckets) / 2
			}
			return tv
		}
		tv, tvDrift := dist(recs), dist(drifted)
		t.Logf("%s: arrivals by half hour at distance %.4f from the weights (%.4f with the program's truncated clock)", c.mode, tv, tvDrift)
		if tv > 0.02 || tvDrift < 5*tv {
			t.Errorf("%s: arrivals by half hour at distance %.4f from the weights, %.4f with a truncated clock", c.mode, tv, tvDrift)
		}
		// Mean inter-arrival time: E[exp(G) | G <= 13] by quadrature of
		// exp(x) times SciPy's gamma density, against the sample's.
		var want float64
		scipytest.Snippet(t, time.Minute, `
import scipy.integrate, math
q = json.load(sys.stdin)
g = scipy.stats.gamma(q["a"], scale=q["scale"])
num = scipy.integrate.quad(lambda x: math.exp(x) * g.pdf(x), 0, 13, limit=200)[0]
print(json.dumps(num / g.cdf(13)))
`, map[string]any{"a": c.class.AArr * c.class.ARAR, "scale": c.class.BArr}, &want)
		sum, sumsq := 0.0, 0.0
		for i := 1; i < n; i++ {
			d := float64(recs[i].Submit - recs[i-1].Submit)
			sum, sumsq = sum+d, sumsq+d*d
		}
		got := sum / (n - 1)
		se := math.Sqrt((sumsq/(n-1) - got*got) / (n - 1))
		t.Logf("%s: mean inter-arrival %.1f s, the model's %.1f s (se %.1f)", c.mode, got, want, se)
		// Within 5 standard errors (the weights average 1 over whole days
		// only: the log's last day is partial, a bias far below that).
		if math.Abs(got-want) > 5*se {
			t.Errorf("%s: mean inter-arrival %.1f s, the model's %.1f s", c.mode, got, want)
		}
	}
}

// TestDeterministic checks that a seed gives the same jobs, another seed
// others, and that a mixed workload holds both types in submit order.
func TestDeterministic(t *testing.T) {
	m := Published()
	m.Jobs = 5000
	a, _ := m.Generate(rand.New(rand.NewPCG(1, 2)))
	b, _ := m.Generate(rand.New(rand.NewPCG(1, 2)))
	c, _ := m.Generate(rand.New(rand.NewPCG(1, 3)))
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Fatal("the same seed must give the same jobs, another seed others")
	}
	types := map[int64]int{}
	for i, r := range a {
		types[r.Queue]++
		if i > 0 && r.Submit < a[i-1].Submit {
			t.Fatalf("job %d submitted before job %d", i+1, i)
		}
		if r.RunTime < 1 || float64(r.RunTime) > math.Exp(12) {
			t.Fatalf("job %d runs %d s", i+1, r.RunTime)
		}
	}
	if types[QueueBatch] == 0 || types[QueueInteractive] == 0 {
		t.Errorf("a mixed workload of %v jobs by queue", types)
	}
	t.Logf("mixed: %d batch and %d interactive jobs over %.1f days", types[QueueBatch], types[QueueInteractive], float64(a[len(a)-1].Submit)/86400)
}

func TestValidate(t *testing.T) {
	for name, change := range map[string]func(*Model){
		"no jobs":       func(m *Model) { m.Jobs = 0 },
		"bad mode":      func(m *Model) { m.Mode = "both" },
		"bad hour":      func(m *Model) { m.StartHour = 24 },
		"probability":   func(m *Model) { m.Batch.SerialProb = 1.5 },
		"serial+pow2":   func(m *Model) { m.Interactive.Pow2Prob = 0.9 },
		"sizes order":   func(m *Model) { m.Typeless.UMed = 9 },
		"gamma shape":   func(m *Model) { m.Batch.A2 = 0 },
		"runtime bound": func(m *Model) { m.MaxLogRuntime = 0 },
	} {
		m := Published()
		change(&m)
		if err := m.Validate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := Published().Validate(); err != nil {
		t.Errorf("published: %v", err)
	}
}
