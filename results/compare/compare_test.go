package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/stats"
)

// fakeCampaign writes a runs.parquet with axes workload, policy and
// param_order, replicates 0..reps-1, and mean_wait given by value(w, p, o,
// rep); no jobs files.
func fakeCampaign(t *testing.T, reps int, value func(w, p, o string, rep int) float64) string {
	t.Helper()
	dir := t.TempDir()
	cols := []results.Column{
		{Name: "run_key", Kind: results.String}, {Name: "label", Kind: results.String},
		{Name: "status", Kind: results.String}, {Name: "workload", Kind: results.String},
		{Name: "policy", Kind: results.String}, {Name: "param_order", Kind: results.String},
		{Name: "replicate", Kind: results.Int64}, {Name: "mean_wait", Kind: results.Float64},
		{Name: "bsld_tau", Kind: results.Int64},
	}
	var rows [][]any
	n := 0
	for _, w := range []string{"kth", "nasa"} {
		for _, p := range []string{"fcfs", "easy", "cons"} {
			for _, o := range []string{"submit", "shortest"} {
				for rep := range reps {
					status := "ok"
					v := any(value(w, p, o, rep))
					if math.IsNaN(value(w, p, o, rep)) {
						status, v = "failed", nil
					}
					rows = append(rows, []any{"k" + string(rune('a'+n%26)) + string(rune('a'+n/26)), w + p + o, status, w, p, o, int64(rep), v, int64(10)})
					n++
				}
			}
		}
	}
	meta := results.Metadata{results.AxesKey: `["workload","policy","param_order"]`}
	if err := results.WriteTable(filepath.Join(dir, results.RunsFile), cols, rows, meta); err != nil {
		t.Fatal(err)
	}
	return dir
}

func load(t *testing.T, dir string) *Campaign {
	t.Helper()
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPairing checks groups, pairing and the statistics against package
// stats applied by hand to the expected pairs.
func TestPairing(t *testing.T) {
	// A value that depends on everything, so a wrong pairing shows.
	val := func(w, p, o string, rep int) float64 {
		base := map[string]float64{"kth": 1000, "nasa": 10}[w]
		pol := map[string]float64{"fcfs": 3, "easy": 1, "cons": 1.2}[p]
		ord := map[string]float64{"submit": 1, "shortest": 0.7}[o]
		return base*pol*ord + float64(rep*rep) + float64(len(p)*rep)
	}
	dir := fakeCampaign(t, 6, val)
	c := load(t, dir)
	if got := strings.Join(c.Axes, ","); got != "workload,policy,param_order" {
		t.Fatalf("axes %s", got)
	}
	res, err := Compare(c, Options{Metric: "mean_wait", Axis: "policy", Baseline: "easy", By: []string{"workload"}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Replicated || len(res.Groups) != 2 {
		t.Fatalf("replicated %v, %d groups", res.Replicated, len(res.Groups))
	}
	g := res.Groups[0]
	if g.Key[0] != (AxisValue{"workload", "kth"}) || len(g.Levels) != 3 || len(g.Comparisons) != 2 {
		t.Fatalf("group %+v", g)
	}
	for _, cmp := range g.Comparisons {
		// Pairs: both orders x 6 replicates, same order and replicate.
		var diffs []float64
		for _, o := range []string{"shortest", "submit"} { // block keys sort param_order=shortest first
			for rep := range 6 {
				diffs = append(diffs, val("kth", cmp.Value, o, rep)-val("kth", "easy", o, rep))
			}
		}
		if cmp.N != 12 {
			t.Fatalf("%s: %d pairs, want 12", cmp.Value, cmp.N)
		}
		want := stats.Describe(diffs, 0.95)
		if math.Abs(cmp.Diff.Mean-want.Mean) > 1e-9 || math.Abs(cmp.Diff.CI.Lo-want.CI.Lo) > 1e-9 {
			t.Errorf("%s: diff %+v, want %+v", cmp.Value, cmp.Diff, want)
		}
		w, err := stats.Wilcoxon(diffs)
		if err != nil || cmp.Wilcoxon == nil || cmp.Wilcoxon.PValue != w.PValue {
			t.Errorf("%s: wilcoxon %+v, want %+v (%v)", cmp.Value, cmp.Wilcoxon, w, err)
		}
		if cmp.Better+cmp.Worse+cmp.Ties != 12 {
			t.Errorf("%s: better/worse/ties %d/%d/%d", cmp.Value, cmp.Better, cmp.Worse, cmp.Ties)
		}
		if cmp.Value == "fcfs" && cmp.Worse != 12 {
			t.Errorf("fcfs is 3 times worse everywhere, got worse=%d", cmp.Worse)
		}
		if cmp.RatioBoot == nil || !(cmp.RatioBoot.Lo <= cmp.Ratio && cmp.Ratio <= cmp.RatioBoot.Hi) {
			t.Errorf("%s: ratio %v outside its interval %+v", cmp.Value, cmp.Ratio, cmp.RatioBoot)
		}
	}
	// Holm over the two comparisons of the group.
	ps := []float64{g.Comparisons[0].Wilcoxon.PValue, g.Comparisons[1].Wilcoxon.PValue}
	h := stats.Holm(ps)
	if g.Comparisons[0].PHolm != h[0] || g.Comparisons[1].PHolm != h[1] {
		t.Errorf("holm %v %v, want %v", g.Comparisons[0].PHolm, g.Comparisons[1].PHolm, h)
	}
	// The same call gives the same intervals (seeded bootstrap).
	res2, _ := Compare(c, Options{Metric: "mean_wait", Axis: "policy", Baseline: "easy", By: []string{"workload"}, Seed: 3})
	if *res2.Groups[0].Comparisons[0].RatioBoot != *g.Comparisons[0].RatioBoot {
		t.Error("bootstrap not deterministic given the seed")
	}

	// Default grouping: by every other axis, so pairs are the replicates.
	res, err = Compare(c, Options{Metric: "mean_wait", Axis: "policy", Baseline: "easy"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 4 || res.Groups[0].Comparisons[0].N != 6 {
		t.Errorf("%d groups, %d pairs", len(res.Groups), res.Groups[0].Comparisons[0].N)
	}
}

// TestSingleReplicate: one pair per comparison gives values, no intervals.
func TestSingleReplicate(t *testing.T) {
	dir := fakeCampaign(t, 1, func(w, p, o string, rep int) float64 { return float64(len(w) * len(p) * len(o)) })
	res, err := Compare(load(t, dir), Options{Metric: "mean_wait", Axis: "policy", Baseline: "easy"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Replicated {
		t.Error("one replicate reported as replicated")
	}
	var b bytes.Buffer
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "single pair of runs") || strings.Contains(b.String(), "CI (t)") {
		t.Errorf("text output:\n%s", b.String())
	}
	cmp := res.Groups[0].Comparisons[0]
	if cmp.Wilcoxon != nil || cmp.DiffBoot != nil || !math.IsNaN(cmp.Diff.CI.Lo) {
		t.Errorf("an interval or test from one pair: %+v", cmp)
	}
	// kth fcfs shortest: 3*4*8 = 96 against easy 3*4*8 = 96.
	if cmp.Value != "fcfs" || cmp.Diff.Mean != 0 || cmp.Ratio != 1 {
		t.Errorf("fcfs vs easy: diff %v ratio %v", cmp.Diff.Mean, cmp.Ratio)
	}
}

// TestFailedRunsAndErrors checks that failed runs are left out and that bad
// options name what is wrong.
func TestFailedRunsAndErrors(t *testing.T) {
	dir := fakeCampaign(t, 3, func(w, p, o string, rep int) float64 {
		if p == "cons" && rep == 1 {
			return math.NaN()
		}
		return float64(rep + len(p))
	})
	c := load(t, dir)
	res, err := Compare(c, Options{Metric: "mean_wait", Axis: "policy", Baseline: "easy"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped != 4 {
		t.Errorf("skipped %d, want 4", res.Skipped)
	}
	for _, g := range res.Groups {
		for _, cmp := range g.Comparisons {
			if cmp.Value == "cons" && cmp.N != 2 {
				t.Errorf("cons has %d pairs, want 2", cmp.N)
			}
		}
	}
	for opts, want := range map[*Options]string{
		{Metric: "nope", Axis: "policy", Baseline: "easy"}:                              "metric \"nope\"",
		{Metric: "mean_wait", Axis: "colour", Baseline: "easy"}:                         "not an axis",
		{Metric: "mean_wait", Axis: "policy", Baseline: "sjf"}:                          "no such run",
		{Metric: "mean_wait", Axis: "policy", Baseline: "easy", By: []string{"x"}}:      "--by x",
		{Metric: "mean_wait", Axis: "policy", Baseline: "easy", By: []string{"policy"}}: "cannot also group",
	} {
		if _, err := Compare(c, *opts); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", *opts, err, want)
		}
	}
}

// TestFormats writes every output format and reads them back.
func TestFormats(t *testing.T) {
	dir := fakeCampaign(t, 4, func(w, p, o string, rep int) float64 { return float64(len(p)*10 + rep) })
	res, err := Compare(load(t, dir), Options{Metric: "mean_wait", Axis: "policy", Baseline: "easy", By: []string{"workload"}})
	if err != nil {
		t.Fatal(err)
	}
	tab := res.Table()
	if len(tab.Rows) != 6 {
		t.Fatalf("%d rows, want 2 groups x 3 policies", len(tab.Rows))
	}
	var csvb, md, js bytes.Buffer
	if err := tab.WriteCSV(&csvb); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(csvb.String(), "\n"); lines != 7 || !strings.HasPrefix(csvb.String(), "workload,policy,baseline,n,mean") {
		t.Errorf("csv:\n%s", csvb.String())
	}
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if strings.Count(md.String(), "\n") != 8 {
		t.Errorf("markdown:\n%s", md.String())
	}
	if err := res.WriteJSON(&js, nil); err != nil {
		t.Fatal(err)
	}
	var back JSON
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Table) != 6 {
		t.Errorf("json: %v, %d rows", err, len(back.Table))
	}
	out := filepath.Join(t.TempDir(), "compare.parquet")
	if err := tab.WriteParquet(out, results.Metadata{"compare.metric": "mean_wait"}); err != nil {
		t.Fatal(err)
	}
	cols, rows, meta, err := results.ReadTable(out)
	if err != nil || len(rows) != 6 || len(cols) != len(tab.Columns) || meta["compare.metric"] != "mean_wait" {
		t.Errorf("parquet: %v, %d rows", err, len(rows))
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}

// TestUnsetBaselineAxis: in a tau sweep, FCFS leaves param_tau unset (NULL)
// and is the baseline of every tau, paired by replicate.
func TestUnsetBaselineAxis(t *testing.T) {
	dir := t.TempDir()
	cols := []results.Column{
		{Name: "run_key", Kind: results.String}, {Name: "label", Kind: results.String},
		{Name: "status", Kind: results.String}, {Name: "workload", Kind: results.String},
		{Name: "policy", Kind: results.String}, {Name: "param_tau", Kind: results.Float64},
		{Name: "replicate", Kind: results.Int64}, {Name: "mean_wait", Kind: results.Float64},
	}
	var rows [][]any
	n := 0
	add := func(pol string, tau any, rep int, v float64) {
		rows = append(rows, []any{strconv.Itoa(n), pol, "ok", "w", pol, tau, int64(rep), v})
		n++
	}
	for rep := range 5 {
		add("fcfs", nil, rep, 100+float64(rep))
		for _, tau := range []float64{0.1, 0.2} {
			add("probfill", tau, rep, 100+float64(rep)-1000*tau)
		}
	}
	meta := results.Metadata{results.AxesKey: `["workload","policy","param_tau"]`}
	if err := results.WriteTable(filepath.Join(dir, results.RunsFile), cols, rows, meta); err != nil {
		t.Fatal(err)
	}
	res, err := Compare(load(t, dir), Options{Metric: "mean_wait", Axis: "policy", Baseline: "fcfs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 2 {
		t.Fatalf("%d groups, want one per tau", len(res.Groups))
	}
	for i, g := range res.Groups {
		tau := []float64{0.1, 0.2}[i]
		if len(g.Comparisons) != 1 || g.Comparisons[0].N != 5 {
			t.Fatalf("group %v: %+v", g.Key, g.Comparisons)
		}
		if d := g.Comparisons[0].Diff.Mean; math.Abs(d+1000*tau) > 1e-9 {
			t.Errorf("tau %v: diff %v, want %v", tau, d, -1000*tau)
		}
	}
	if res.Skipped != 0 {
		t.Errorf("skipped %d", res.Skipped)
	}
}

// TestParseBy checks the spellings of --by.
func TestParseBy(t *testing.T) {
	for _, tc := range []struct {
		in      []string
		want    []string // nil: the default grouping
		wantErr string
	}{
		{in: nil, want: nil},
		{in: []string{"none"}, want: []string{}},
		{in: []string{"workload", "param.order"}, want: []string{"workload", "param.order"}},
		{in: []string{"workload", "none"}, wantErr: "cannot be combined"},
		{in: []string{}, wantErr: "--by with no axis"},
		{in: []string{"workload", ""}, wantErr: "empty axis name"},
	} {
		got, err := ParseBy(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseBy(%q): %v, want an error containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || (got == nil) != (tc.want == nil) || strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("ParseBy(%q) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
}

// TestNoGrouping: with no grouping axis (--by none) every run is in one
// group with an empty key, and the pairs span the workloads, the orders and
// the replicates; the outputs name the group "all runs".
func TestNoGrouping(t *testing.T) {
	val := func(w, p, o string, rep int) float64 {
		f := map[string]float64{"fcfs": 4, "easy": 1, "cons": 2}[p]
		return f * float64(len(w)*len(o)+rep)
	}
	by, err := ParseBy([]string{NoGrouping})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compare(load(t, fakeCampaign(t, 3, val)), Options{Metric: "mean_wait", Axis: "policy", Baseline: "easy", By: by, Seed: 1, Resamples: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.By) != 0 || len(res.Groups) != 1 || len(res.Groups[0].Key) != 0 || len(res.Groups[0].Comparisons) != 2 {
		t.Fatalf("by %q, %d groups, first %+v; want one group with an empty key and 2 comparisons", res.By, len(res.Groups), res.Groups[0].Key)
	}
	for _, cmp := range res.Groups[0].Comparisons {
		// 2 workloads x 2 orders x 3 replicates.
		if cmp.N != 12 || len(cmp.Pairs) != 12 {
			t.Errorf("%s: %d pairs, want 12", cmp.Value, cmp.N)
		}
		want := map[string]float64{"fcfs": 4, "cons": 2}[cmp.Value]
		for _, p := range cmp.Pairs {
			if p.Value != want*p.Baseline || p.BaselineRun.Axes["workload"] != p.ValueRun.Axes["workload"] ||
				p.BaselineRun.Axes["param_order"] != p.ValueRun.Axes["param_order"] || p.BaselineRun.Replicate != p.ValueRun.Replicate {
				t.Errorf("%s: pair %s: %v against %v, runs %+v and %+v", cmp.Value, p.Block, p.Value, p.Baseline, p.ValueRun, p.BaselineRun)
			}
		}
	}
	var text, md bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "\n== all runs\n") {
		t.Errorf("text output names the group otherwise:\n%s", text.String())
	}
	if m := res.Method(); !strings.Contains(m, "in one group of all runs (no grouping axis)") {
		t.Errorf("method: %s", m)
	}
	tab := res.Table()
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 3 || !strings.HasPrefix(md.String(), "| policy | baseline | n |") {
		t.Errorf("%d rows, markdown:\n%s", len(tab.Rows), md.String())
	}
}
