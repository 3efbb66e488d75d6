package outages

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// ksAgainst returns the Kolmogorov-Smirnov statistic of the sample xs
// against the distribution function cdf.
func ksAgainst(xs []float64, cdf func(float64) float64) float64 {
	slices.Sort(xs)
	n := float64(len(xs))
	d := 0.0
	for i, x := range xs {
		f := cdf(x)
		d = max(d, math.Abs(float64(i+1)/n-f), math.Abs(f-float64(i)/n))
	}
	return d
}

// TestModelDistributions draws the up times of one node over a long
// horizon and tests them against the model's distribution function with
// Kolmogorov-Smirnov at the 1 % level (critical value 1.628/sqrt(n)):
// exponential of mean MTBF, and Weibull of shape k with the scale that
// makes its mean MTBF, lambda = MTBF / Gamma(1 + 1/k). Repairs are fixed,
// so each up time is the gap between a repair's end and the next failure
// (rounded up to whole seconds: the distribution functions are taken at
// the rounded-down value as well, and the statistic is the smaller).
func TestModelDistributions(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 1, Cores: 1}}, nil, sdk.FirstFit)
	const mtbf = 86400.0
	for _, tc := range []struct {
		model string
		shape float64
		cdf   func(float64) float64
	}{
		{"exponential", 0, func(x float64) float64 { return 1 - math.Exp(-x/mtbf) }},
		{"weibull", 0.7, func(x float64) float64 {
			l := mtbf / math.Gamma(1+1/0.7)
			return 1 - math.Exp(-math.Pow(x/l, 0.7))
		}},
		{"weibull", 2.5, func(x float64) float64 {
			l := mtbf / math.Gamma(1+1/2.5)
			return 1 - math.Exp(-math.Pow(x/l, 2.5))
		}},
	} {
		s := &Settings{Model: tc.model, MTBF: mtbf, Shape: tc.shape, Repair: "fixed", MTTR: 60}
		if err := s.Check(1); err != nil {
			t.Fatal(err)
		}
		outs, c, err := Build(s, p, nil, rand.New(rand.NewPCG(1, 2)), 0, 4000*int64(mtbf))
		if err != nil {
			t.Fatal(err)
		}
		var ups, upsLow []float64
		prev := int64(0)
		for _, o := range outs {
			ups = append(ups, float64(o.Start-prev))
			upsLow = append(upsLow, float64(o.Start-prev-1))
			if o.End-o.Start != 60 {
				t.Fatalf("a fixed repair of %d s", o.End-o.Start)
			}
			prev = o.End
		}
		n := float64(len(ups))
		crit := 1.628 / math.Sqrt(n)
		if d := min(ksAgainst(ups, tc.cdf), ksAgainst(upsLow, tc.cdf)); d > crit || c.ModelFailures != len(outs) || n < 3000 {
			t.Errorf("%s %v: KS statistic %.4f over %d up times, critical %.4f (counted %d)", tc.model, tc.shape, d, len(ups), crit, c.ModelFailures)
		}
	}
}

// TestLognormalRepairs draws repairs lognormal of mean 3,600 s and sigma
// 1 and tests them against the lognormal's distribution function
// (Kolmogorov-Smirnov, 1 %), mu = ln(3600) - 1/2, and their mean against
// 3,600 (within 4 standard errors; the lognormal's variance is
// (e^(sigma^2) - 1) mean^2).
func TestLognormalRepairs(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 1, Cores: 1}}, nil, sdk.FirstFit)
	s := &Settings{Model: "exponential", MTBF: 1000, Repair: "lognormal", MTTR: 3600, RepairSigma: 1}
	if err := s.Check(1); err != nil {
		t.Fatal(err)
	}
	outs, _, err := Build(s, p, nil, rand.New(rand.NewPCG(5, 6)), 0, 40_000_000)
	if err != nil {
		t.Fatal(err)
	}
	var lo, hi []float64
	sum := 0.0
	for _, o := range outs {
		d := float64(o.End - o.Start)
		lo, hi = append(lo, d-1), append(hi, d)
		sum += d
	}
	n := float64(len(hi))
	mu := math.Log(3600) - 0.5
	cdf := func(x float64) float64 {
		if x <= 0 {
			return 0
		}
		return 0.5 * math.Erfc(-(math.Log(x)-mu)/math.Sqrt2)
	}
	if d := min(ksAgainst(hi, cdf), ksAgainst(lo, cdf)); d > 1.628/math.Sqrt(n) || n < 5000 {
		t.Errorf("KS statistic %.4f over %d repairs, critical %.4f", d, len(hi), 1.628/math.Sqrt(n))
	}
	se := math.Sqrt((math.E - 1) * 3600 * 3600 / n)
	if m := sum / n; math.Abs(m-3600) > 4*se+1 {
		t.Errorf("mean repair %.1f s, want 3,600 within %.1f", m, 4*se+1)
	}
}

// TestBuildWindowsAndDrains checks a periodic window, a drain and the
// counts by hand.
func TestBuildWindowsAndDrains(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 4, Cores: 1}}, nil, sdk.FirstFit)
	s := &Settings{
		Windows: []Window{{Start: 100, Duration: 10, Every: 1000}, {Start: 50, Duration: 5, Nodes: []int32{1, 2}}},
		Drains:  []Drain{{Start: 0, End: 20, Nodes: []int32{3}}},
	}
	if err := s.Check(4); err != nil {
		t.Fatal(err)
	}
	outs, c, err := Build(s, p, nil, nil, 0, 2500)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range outs {
		var ns []string
		for _, k := range o.Nodes {
			ns = append(ns, strconv.Itoa(int(k)))
		}
		got = append(got, fmt.Sprintf("%s %s %d-%d", o.Kind, strings.Join(ns, ","), o.Start, o.End))
	}
	want := []string{"drain 3 0-20", "maintenance 1,2 50-55", "maintenance  100-110", "maintenance  1100-1110", "maintenance  2100-2110"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("outages %q, want %q", got, want)
	}
	if c.Windows != 4 || c.Drains != 1 || c.MaintenanceNodeSeconds != 3*10*4+5*2 {
		t.Errorf("counts %+v", c)
	}
}

// TestBadSettingsAndFiles checks that each kind of bad input is refused,
// naming the setting, or the file and line.
func TestBadSettingsAndFiles(t *testing.T) {
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{Model: "gamma", MTBF: 1, Repair: "fixed", MTTR: 1}, "failure_model \"gamma\""},
		{Settings{Model: "weibull", MTBF: 1, Shape: 0, Repair: "fixed", MTTR: 1}, "weibull_shape must be positive"},
		{Settings{Model: "weibull", MTBF: 1, Shape: -1, Repair: "fixed", MTTR: 1}, "weibull_shape must be positive"},
		{Settings{Model: "exponential", MTBF: 0, Repair: "fixed", MTTR: 1}, "mtbf must be positive"},
		{Settings{Windows: []Window{{Start: 5, Duration: -1}}}, "windows[0]: duration must be positive"},
		{Settings{Windows: []Window{{Start: 5, Duration: 1, Nodes: []int32{9}}}}, "windows[0]: node 9"},
		{Settings{Drains: []Drain{{Start: 5, End: 5}}}, "drains[0]: end 5 is not after start 5"},
	} {
		if err := tc.s.Check(4); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.s, err, tc.want)
		}
	}
	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"node,down,up\n0,10,20\n7,5,9\n", "line 3: node 7"},
		{"node,down,up\n0,10,20\n0,15,30\n", "line 3: node 0 fails at 15 while down since line 2"},
		{"node,down,up\n1,30,20\n", "line 2: up 20 is not after down 30"},
		{"down,node,up\n", "line 1: header"},
		{"node,down,up\n1,x,20\n", "line 2: down \"x\""},
	} {
		path := filepath.Join(dir, "f.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(path, 4); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: error %v, want %q with the path", tc.text, err, tc.want)
		}
	}
	path := filepath.Join(dir, "ok.csv")
	if err := os.WriteFile(path, []byte("node,down,up\n# a comment\n2,100,160\n0,5,6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path, 4)
	if err != nil || len(got) != 2 || got[0].Nodes[0] != 2 || got[0].Start != 100 || got[1].End != 6 {
		t.Errorf("read %+v, %v", got, err)
	}
}
