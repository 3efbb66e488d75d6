package main

import (
	"os"
	"path/filepath"
	"reflect"
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

// TestStarvationFigure draws the Gantt charts of the hand-worked scenario
// and checks the starts they show against plugins/burstbuffer's
// TestStarvationScenario: fcfs-easy starves job 2 until 33, fcfs-bb starts
// it at its reservation, 10.
func TestStarvationFigure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "starvation.svg")
	starts, err := starvationFigure(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[int64]int64{
		"fcfs-easy": {1: 0, 2: 33, 6: 2, 3: 7, 4: 14, 5: 23},
		"fcfs-bb":   {1: 0, 2: 10, 6: 2, 3: 20, 4: 20, 5: 23},
	}
	if !reflect.DeepEqual(starts, want) {
		t.Errorf("starts %v, want %v", starts, want)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "starts at 33") {
		t.Errorf("figure: %v, %d bytes", err, len(b))
	}
}

// TestWaitTable: quantiles of pooled waits by hand, NumPy's linear rule:
// numpy.quantile([0, 10, 20, 30, 40], [.5, .75, .9, .95, .99, .999, 1])
// = 20, 30, 36, 38, 39.6, 39.96, 40.
func TestWaitTable(t *testing.T) {
	var b strings.Builder
	waitTable(&b, []string{"a", "missing"}, map[string][]float64{"a": {40, 0, 30, 10, 20}}, 1)
	if want := "| a | 5 | 20 | 30 | 36 | 38 | 40 | 40 | 40 |\n"; !strings.Contains(b.String(), want) {
		t.Errorf("table\n%s\nlacks %q", b.String(), want)
	}
	if strings.Contains(b.String(), "missing") {
		t.Errorf("a policy without jobs has a row:\n%s", b.String())
	}
}

// TestAgainst: a single run of the authors' is placed against the range of
// our runs, bounds included in "within".
func TestAgainst(t *testing.T) {
	ours := []float64{3, 1, 2}
	for theirs, want := range map[float64]string{0.5: "below all 3", 1: "within", 2.5: "within", 3: "within", 3.1: "above all 3"} {
		if got := against(theirs, ours); got != want {
			t.Errorf("against(%v) = %q, want %q", theirs, got, want)
		}
	}
}
