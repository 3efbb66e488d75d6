package main

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results/compare"
)

func TestQuantiles(t *testing.T) {
	cases := []struct {
		xs   []float64
		want [5]float64
	}{
		// numpy.quantile([1, 2, 3, 4], [0, .25, .5, .75, 1]) = 1, 1.75, 2.5, 3.25, 4
		{[]float64{4, 1, 3, 2}, [5]float64{1, 1.75, 2.5, 3.25, 4}},
		{[]float64{7}, [5]float64{7, 7, 7, 7, 7}},
		// numpy.quantile([0, 10, 20, 30, 40], ...) = 0, 10, 20, 30, 40
		{[]float64{40, 30, 20, 10, 0}, [5]float64{0, 10, 20, 30, 40}},
	}
	for _, c := range cases {
		if got := quantiles(c.xs); got != c.want {
			t.Errorf("quantiles(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 999.4: "999", 1000: "1,000", 14791: "14,791", 5487028.6: "5,487,029", -12345: "-12,345"} {
		if got := thousands(in); got != want {
			t.Errorf("thousands(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestPairRatios(t *testing.T) {
	run := func(pol, wl string, rep int, wait float64) compare.Run {
		return compare.Run{Label: pol + "/" + wl, Status: "ok", Replicate: rep,
			Axes: map[string]string{"policy": pol, "workload": wl}, Values: map[string]float64{"mean_wait": wait}}
	}
	c := &compare.Campaign{Dir: "x", Runs: []compare.Run{
		run("sjf-bb", "part01", 0, 100), run("sjf-bb", "part01", 1, 200),
		run("plan-2", "part01", 0, 50), run("plan-2", "part01", 1, 300),
		run("sjf-bb", "part02", 0, 10), run("plan-2", "part02", 0, 20),
	}}
	all := func(compare.Run) bool { return true }
	got, err := pairRatios(c, "mean_wait", "sjf-bb", "plan-2", all)
	if err != nil || len(got) != 3 || got[0] != 0.5 || got[1] != 1.5 || got[2] != 2 {
		t.Errorf("pairRatios = %v, %v; want [0.5 1.5 2]", got, err)
	}
	// A run without its baseline is an error, not a silent gap.
	c.Runs = append(c.Runs, run("plan-2", "part03", 0, 1))
	if _, err := pairRatios(c, "mean_wait", "sjf-bb", "plan-2", all); err == nil || !strings.Contains(err.Error(), "no sjf-bb run paired with plan-2/part03") {
		t.Errorf("missing baseline: %v", err)
	}
}
