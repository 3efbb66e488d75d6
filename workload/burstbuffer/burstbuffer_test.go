package burstbuffer

import (
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/scipytest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
)

const gb = 1_000_000_000

// paper is the paper's burst buffer: 12 units of 40 GB, one piece per
// processor.
func paper() Target {
	u := make([]int64, 12)
	for i := range u {
		u[i] = 40 * gb
	}
	return Target{Resource: 1, PiecesBy: 0, Units: u, Capacity: 480 * gb}
}

// zFor returns the draw for which the default model's X*1024 is b bytes.
func zFor(b float64) float64 {
	return math.Log((b/KiB-Loc)/Scale) / Shape
}

func TestPerNode(t *testing.T) {
	m := Default()
	small := Target{Resource: 1, Units: []int64{10, 10}, Capacity: 20}
	pooled := Target{Resource: 1, Capacity: 100}
	uneven := Target{Resource: 1, Units: []int64{10, 25}, Capacity: 35}
	tiny := Model{Shape: 1, Scale: 1, XBytes: 1, MinBytes: 1, MaxBytes: 1000, ShortWalltime: -1}
	for _, tc := range []struct {
		name     string
		m        Model
		t        Target
		z        float64
		nodes    int64
		walltime int64
		want     int64
		out      Outcome
		err      string
	}{
		{"drawn, rounded", m, paper(), zFor(5e9 + 0.4), 1, 3600, 5e9, Drawn, ""},
		{"drawn, 96 nodes of 5 GB fit exactly (8 per unit)", m, paper(), zFor(5e9), 96, 3600, 5e9, Drawn, ""},
		{"96 nodes of 5 GB + 1 byte do not fit: floor(40 GB / ceil(96/12))", m, paper(), zFor(5e9 + 1), 96, 3600, 5e9, Reduced, ""},
		{"below 100 MB", m, paper(), zFor(99e6), 4, 3600, MinBytes, ClampedLow, ""},
		{"negative X (loc < 0)", m, paper(), -5, 4, 3600, MinBytes, ClampedLow, ""},
		{"above 40 GB, one node", m, paper(), zFor(41e9), 1, 3600, 40 * gb, ClampedHigh, ""},
		{"above 40 GB, 12 nodes fit one per unit", m, paper(), 6, 12, 3600, 40 * gb, ClampedHigh, ""},
		{"above 40 GB, 13 nodes: floor(40 GB / 2)", m, paper(), 6, 13, 3600, 20 * gb, Reduced, ""},
		{"100 nodes: floor(40 GB / 9)", m, paper(), 6, 100, 3600, 4_444_444_444, Reduced, ""},
		{"low clamp then reduced: 96 nodes of 100 MB fit", m, paper(), -5, 96, 3600, MinBytes, ClampedLow, ""},
		{"walltime 120 s is short", m, paper(), 6, 96, 120, ShortBytes, Short, ""},
		{"walltime 121 s is not", m, paper(), zFor(1e9), 1, 121, 1e9, Drawn, ""},
		{"short rule disabled", Model{Shape: Shape, Loc: Loc, Scale: Scale, XBytes: KiB, MinBytes: MinBytes, ShortWalltime: -1}, paper(), zFor(1e9), 1, 10, 1e9, Drawn, ""},
		{"explicit maximum", Model{Shape: Shape, Loc: Loc, Scale: Scale, XBytes: KiB, MinBytes: MinBytes, MaxBytes: 2e9}, paper(), zFor(3e9), 1, 3600, 2e9, ClampedHigh, ""},
		{"no nodes", m, paper(), 0, 0, 3600, 0, NoPieces, ""},
		{"pooled: 3 x 40 > 100, reduced to 33", tiny, pooled, math.Log(40), 3, 3600, 33, Reduced, ""},
		{"pooled: maximum is the capacity", Model{Shape: 1, Scale: 1, XBytes: 1, MinBytes: 1, ShortWalltime: -1}, pooled, math.Log(500), 1, 3600, 100, ClampedHigh, ""},
		{"uneven units: 3 pieces, largest size 10", tiny, uneven, math.Log(12), 3, 3600, 10, Reduced, ""},
		{"uneven units: 2 pieces of 12 fit on the unit of 25", tiny, uneven, math.Log(12), 2, 3600, 12, Drawn, ""},
		{"more nodes than bytes", tiny, small, math.Log(5), 21, 3600, 0, Reduced, "cannot each have one byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, out, err := tc.m.PerNode(tc.t, tc.z, tc.nodes, tc.walltime)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || out != tc.out {
				t.Errorf("got %d bytes (outcome %d), want %d (outcome %d)", got, out, tc.want, tc.out)
			}
			if tc.nodes > 0 && !tc.t.fits(tc.nodes, got) {
				t.Errorf("%d pieces of %d do not fit", tc.nodes, got)
			}
		})
	}
}

// TestReductionIsTheAuthors checks the reduction against the authors'
// formula (burstbuffer/model.py, generate_burst_buffer_lognorm) for every
// job size up to 200 nodes and a range of per-node sizes: the request is
// reduced exactly when nodes > (cap // bytes) * units, to
// floor(cap / ceil(nodes / units)).
func TestReductionIsTheAuthors(t *testing.T) {
	const capacity, units = 40 * gb, 12
	tg := paper()
	m := Default()
	for nodes := int64(1); nodes <= 200; nodes++ {
		for _, b := range []float64{1e8, 1e9, 3.3e9, 4e9, 5e9, 1e10, 2e10, 3e10, 4e10} {
			want := int64(b)
			if nodes > (capacity/want)*units {
				want = capacity / ((nodes + units - 1) / units)
			}
			got, _, err := m.PerNode(tg, zFor(b), nodes, 3600)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("%d nodes, %.0f bytes: got %d, want %d", nodes, b, got, want)
			}
		}
	}
}

func jobs(n int) []sim.Input {
	in := make([]sim.Input, n)
	for i := range in {
		in[i] = sim.Input{Job: sdk.Job{ID: int64(i + 1), Index: i, Submit: int64(i), Walltime: 60 + int64(i%7)*100,
			Request: sdk.Vector{1 + int64(i%100), 0}}, Runtime: 10}
	}
	return in
}

func requests(in []sim.Input) []int64 {
	out := make([]int64, len(in))
	for i := range in {
		out[i] = in[i].Job.Request[1]
	}
	return out
}

// TestApplySeeds: the same seed gives the same requests, another seed
// other ones; every job is counted once.
func TestApplySeeds(t *testing.T) {
	run := func(seed uint64) ([]int64, Counts) {
		in := jobs(2000)
		c, err := Default().Apply(in, paper(), rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return requests(in), c
	}
	a, ca := run(1)
	b, cb := run(1)
	c, _ := run(2)
	if !slices.Equal(a, b) || ca != cb {
		t.Error("same seed, different requests")
	}
	differ, long := 0, 0
	for i, in := range jobs(2000) {
		if in.Job.Walltime > ShortWalltime {
			long++
			if a[i] != c[i] {
				differ++
			}
		}
	}
	// Short jobs all get 10 MB, and requests clamped at 40 GB or reduced to
	// fit may agree; the others differ.
	if differ < long*9/10 {
		t.Errorf("another seed: only %d of %d requests of long jobs differ", differ, long)
	}
	if sum := ca.Drawn + ca.ClampedLow + ca.ClampedHigh + ca.Reduced + ca.Short + ca.NoPieces; sum != ca.Jobs || ca.Jobs != 2000 {
		t.Errorf("counts %+v do not add up to 2000", ca)
	}
	if ca.Short != 286 || ca.ClampedLow == 0 || ca.Reduced == 0 {
		t.Errorf("counts %+v: want 286 short jobs, some clamped low and some reduced", ca)
	}
	var total int64
	for _, r := range a {
		total += r
	}
	if total != ca.TotalBytes {
		t.Errorf("total %d, counts say %d", total, ca.TotalBytes)
	}
	for i, r := range a {
		if n := int64(1 + i%100); r%n != 0 || !paper().fits(n, r/n) {
			t.Fatalf("job %d: %d bytes on %d nodes do not fit in equal pieces", i, r, n)
		}
	}
}

func TestApplyErrors(t *testing.T) {
	in := []sim.Input{{Job: sdk.Job{ID: 9, Walltime: 600, Request: sdk.Vector{4}}}}
	if _, err := Default().Apply(in, paper(), rand.New(rand.NewPCG(1, 1))); !errors.Is(err, ErrRequestLength) || !strings.Contains(err.Error(), "job id 9") {
		t.Errorf("short request: %v", err)
	}
	bad := Default()
	bad.Shape = 0
	if _, err := bad.Apply(jobs(1), paper(), rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Errorf("bad model: %v", err)
	}
}

func TestTargetOf(t *testing.T) {
	p := &sdk.Platform{Name: "kth-bb", Resources: []string{sdk.Processors, "bb", "lic"},
		Clusters: []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{96, 480 * gb, 5},
			Units: []sdk.Units{{Resource: 1, Capacity: paper().Units}}}}}
	got, err := TargetOf(p, "bb")
	if err != nil || got.Resource != 1 || got.PiecesBy != 0 || len(got.Units) != 12 || got.Capacity != 480*gb {
		t.Errorf("bb: %+v %v", got, err)
	}
	if got, err := TargetOf(p, "lic"); err != nil || got.Units != nil || got.Capacity != 5 {
		t.Errorf("lic: %+v %v", got, err)
	}
	for name, want := range map[string]string{"disk": "no resource", "procs": "processors"} {
		if _, err := TargetOf(p, name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

// TestDistributionIsSciPys checks the per-node bytes before clamping
// against SciPy's lognorm(s, loc, scale) in KiB: first exactly, the
// model's value at z = Φ⁻¹(p) against lognorm.ppf(p) x 1024; then the
// quantiles of a large sample drawn as Apply draws (NormFloat64 of a PCG),
// each within the ppf of p ± 4 standard errors.
func TestDistributionIsSciPys(t *testing.T) {
	ps := []float64{0.001, 0.01, 0.015, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999}
	const n = 400_000
	var probs []float64
	for _, p := range ps {
		se := 4 * math.Sqrt(p*(1-p)/n)
		probs = append(probs, p, p-se, p+se)
	}
	var ppf []float64
	scipytest.Snippet(t, 2*time.Minute, `
q = json.load(sys.stdin)
d = scipy.stats.lognorm(s=q["s"], loc=q["loc"], scale=q["scale"])
print(json.dumps([float(d.ppf(p)) * 1024 for p in q["p"]]))
`, map[string]any{"s": Shape, "loc": Loc, "scale": Scale, "p": probs}, &ppf)
	m := Default()
	rng := rand.New(rand.NewPCG(20210830, 7))
	sample := make([]float64, n)
	for i := range sample {
		sample[i] = m.Bytes(rng.NormFloat64())
	}
	slices.Sort(sample)
	for i, p := range ps {
		want, lo, hi := ppf[3*i], ppf[3*i+1], ppf[3*i+2]
		exact := m.Bytes(math.Sqrt2 * math.Erfinv(2*p-1))
		if math.Abs(exact-want) > 1e-9*math.Abs(want)+1e-3 {
			t.Errorf("p=%v: model gives %.6f bytes, SciPy %.6f", p, exact, want)
		}
		got := sample[int(p*n)]
		if got < lo || got > hi {
			t.Errorf("p=%v: sample quantile %.0f bytes, SciPy's %.0f, want within [%.0f, %.0f]", p, got, want, lo, hi)
		}
	}
	// The authors' comment: about 1.5 % of jobs get the 100 MB floor.
	low, _ := slices.BinarySearch(sample, MinBytes)
	t.Logf("%.2f %% of draws below 100 MB; median %.3g bytes", 100*float64(low)/n, sample[n/2])
	if f := float64(low) / n; f < 0.012 || f > 0.018 {
		t.Errorf("%.4f of draws below 100 MB, the authors say about 0.015", f)
	}
}

// TestKTH: the shipped KTH-SP2 log on the paper's 96 nodes, with the
// default cleaning (jobs larger than the platform dropped), has the
// paper's 28,453 jobs; the transform gives every job a request that fits.
func TestKTH(t *testing.T) {
	path := filepath.Join("..", "..", "experiments", "data", "KTH-SP2-1996-2.1-cln.swf.gz")
	w, err := workload.LoadSWF(path, 96, workload.Clean{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 28453 {
		t.Errorf("%d jobs, the paper has 28,453\n%s", len(w.Jobs), w.Report)
	}
	for rule, want := range map[string]int{"missing-procs": 1, "nonpositive-runtime": 8, "oversize": 14} {
		if c, _ := w.Report.Get(rule); c.Jobs != want {
			t.Errorf("%s: %d jobs, want %d", rule, c.Jobs, want)
		}
	}
	in := slices.Clone(w.Jobs)
	for i := range in {
		in[i].Job.Request = sdk.Vector{in[i].Job.Request[0], 0}
	}
	c, err := Default().Apply(in, paper(), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	short := 0
	for _, j := range w.Jobs {
		if j.Job.Walltime <= ShortWalltime {
			short++
		}
	}
	t.Logf("KTH on 12 x 40 GB: %+v", c)
	if c.Jobs != 28453 || c.Short != int64(short) || c.Reduced == 0 || c.ClampedLow == 0 {
		t.Errorf("counts %+v (want %d short jobs)", c, short)
	}
}
