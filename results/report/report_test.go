package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/compare"
)

// fakeCampaign writes a campaign folder with axes workload, policy and the
// numeric parameter param_depth, reps replicates whose jobs differ by seed
// (as a policy that uses its seed would make them), jobs files whose
// summary columns agree with runs.parquet, and one failed run.
func fakeCampaign(t testing.TB, reps int) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, results.JobsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	cols := []results.Column{
		{Name: "run_index", Kind: results.Int64}, {Name: "run_key", Kind: results.String},
		{Name: "label", Kind: results.String}, {Name: "status", Kind: results.String},
		{Name: "error", Kind: results.String}, {Name: "workload", Kind: results.String},
		{Name: "policy", Kind: results.String}, {Name: "param_depth", Kind: results.Int64},
		{Name: "replicate", Kind: results.Int64}, {Name: "mean_wait", Kind: results.Float64},
		{Name: "mean_bsld", Kind: results.Float64}, {Name: "bsld_tau", Kind: results.Int64},
		{Name: "policy_ref", Kind: results.String}, {Name: "policy_sha256", Kind: results.String},
		{Name: "workload_sha256", Kind: results.String}, {Name: "procs", Kind: results.Int64},
	}
	const procs = 64
	var rows [][]any
	n := 0
	for _, w := range []string{"small", "large"} {
		for pi, p := range []string{"fifo", "backfill", "random"} {
			for _, depth := range []int64{1, 2, 4, 8} {
				for rep := range reps {
					key := fmt.Sprintf("%064x", n+1)
					label := fmt.Sprintf("workload=%s policy=%s param.depth=%d replicate=%d", w, p, depth, rep)
					if w == "large" && p == "random" && depth == 8 && rep == 0 {
						rows = append(rows, []any{int64(n), key, label, "failed", "plugin crashed: out of luck", w, p, depth,
							int64(rep), nil, nil, int64(10), p, fmt.Sprintf("%064x", pi), "ab", int64(procs)})
						n++
						continue
					}
					// Same jobs in every run of a workload and replicate
					// (the workload's seed), waits set by the policy, its
					// depth and the replicate's seed.
					wl := rand.New(rand.NewPCG(uint64(len(w)), uint64(rep)))
					rng := rand.New(rand.NewPCG(uint64(n), 7))
					scale := map[string]float64{"small": 30, "large": 3000}[w] * []float64{4, 1, 1.6}[pi] / math.Sqrt(float64(depth))
					var jobs []results.JobRow
					for j := range 300 {
						submit := int64(j) * 97
						runtime := 5 + wl.Int64N(900)
						wait := int64(rng.ExpFloat64() * scale)
						if j%3 == 0 {
							wait = 0
						}
						jobs = append(jobs, results.JobRow{JobID: int64(j + 1), Submit: submit, Start: submit + wait, End: submit + wait + runtime,
							Wait: wait, Runtime: runtime, Walltime: 2 * runtime, Procs: 1 + wl.Int64N(8), User: -1, Group: -1, App: -1, Queue: -1, Partition: -1})
					}
					waits, bslds := compare.JobWaitBSLD(jobs, 10)
					if err := results.WriteJobs(results.CampaignJobsPath(dir, key), jobs, results.Metadata{"run.key": key}); err != nil {
						t.Fatal(err)
					}
					rows = append(rows, []any{int64(n), key, label, "ok", nil, w, p, depth, int64(rep), avg(waits), avg(bslds), int64(10),
						p, fmt.Sprintf("%064x", pi), "ab", int64(procs)})
					n++
				}
			}
		}
	}
	meta := results.Metadata{results.AxesKey: `["workload","policy","param_depth"]`, "campaign.name": "synthetic",
		"campaign.seed": "99", "schedlab.version": "0.1.0", "vcs.revision": "0123456789abcdef", "go.version": "go1.26",
		"host": "test", "metrics.bsld_tau": "10", "campaign.runs": fmt.Sprint(n)}
	if err := results.WriteTable(filepath.Join(dir, results.RunsFile), cols, rows, meta); err != nil {
		t.Fatal(err)
	}
	return dir
}

func avg(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func write(t *testing.T, dir string, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, dir, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// figureTitles lists the titles of the page's figures, in order.
func figureTitles(page string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<figcaption><strong>Figure \d+\. (.*?)\.</strong>`).FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// checkSelfContained fails the test if the page could load anything: a
// script, a stylesheet, an image, a font or a frame from anywhere.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "src=", "url(", "@import", "<?xml", "<!DOCTYPE svg"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	// The only URLs are the SVG namespace names, which nothing fetches.
	for _, u := range regexp.MustCompile(`https?://[^"' <)]+`).FindAllString(page, -1) {
		if u != "http://www.w3.org/2000/svg" && u != "http://www.w3.org/1999/xlink" {
			t.Errorf("page contains the URL %s", u)
		}
	}
	figs, caps, svgs := strings.Count(page, "<figure"), strings.Count(page, "<figcaption>"), strings.Count(page, "<svg ")
	if figs == 0 || figs != caps || figs != svgs {
		t.Errorf("%d figures, %d captions, %d SVGs: want one caption and one SVG per figure", figs, caps, svgs)
	}
}

func TestWriteReplicated(t *testing.T) {
	dir := fakeCampaign(t, 5)
	page := write(t, dir, Options{Baseline: "fifo", Seed: 1, Resamples: 2000})
	checkSelfContained(t, page)
	want := []string{
		"mean_wait by policy", "mean_wait ratio to fifo per pair", "mean_bsld by policy", "mean_bsld ratio to fifo per pair",
		"mean_wait against depth", "mean_bsld against depth",
		"mean_wait over replicates", "mean_bsld over replicates",
		"ECDF of job wait", "ECDF of job bounded slowdown",
		"Utilisation over time, workload=small, param_depth=1", "Queue length over time, workload=small, param_depth=1", "Queued work over time, workload=small, param_depth=1",
	}
	if got := figureTitles(page); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("figures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, s := range []string{
		"Campaign report: synthetic", "5 replicates", "Student t", "Wilcoxon signed-rank", "p_holm", "diff 95% CI (boot)", "better/worse/tied",
		"plugin crashed: out of luck",                                      // the failed run is listed
		"0000000000000000000000000000000000000000000000000000000000000002", // a plugin hash
		"commit 0123456789abcdef",
		"policy=random replicate 3",         // series panels name the replicate
		"15 completed runs; 12 are plotted", // fifo, backfill, random x 5 replicates: 0-3 of each
	} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if strings.Contains(page, "deterministic single replicates") {
		t.Error("a replicated campaign is called deterministic")
	}
	// Same folder, same options: same bytes.
	if again := write(t, dir, Options{Baseline: "fifo", Seed: 1, Resamples: 2000}); again != page {
		t.Error("two reports of the same folder differ")
	}
}

func TestWriteSingleReplicate(t *testing.T) {
	dir := fakeCampaign(t, 1)
	page := write(t, dir, Options{Metrics: []string{"mean_wait"}, Axis: "param.depth", Baseline: "1", Title: "Depth <study>"})
	checkSelfContained(t, page)
	want := []string{"mean_wait by param_depth", "mean_wait against depth", "ECDF of job wait", "ECDF of job bounded slowdown",
		"Utilisation over time, workload=small, policy=fifo", "Queue length over time, workload=small, policy=fifo", "Queued work over time, workload=small, policy=fifo"}
	if got := figureTitles(page); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("figures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, s := range []string{"<title>Depth &lt;study&gt;</title>", "deterministic single replicates", "one replicate"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
}

func TestWriteSeriesSelection(t *testing.T) {
	dir := fakeCampaign(t, 2)
	page := write(t, dir, Options{Metrics: []string{"mean_bsld"}, By: []string{"workload"},
		Series: []compare.AxisValue{{Axis: "workload", Value: "large"}, {Axis: "param.depth", Value: "4"}}, Points: 50, Resamples: 500})
	for _, s := range []string{"Utilisation over time, workload=large, param_depth=4", "averaged over 50 bins", "policy=random replicate 1"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	// 3 policies x 4 depths x 2 replicates in workload=large, one failed;
	// at most MaxSeriesRuns are drawn.
	page = write(t, dir, Options{Metrics: []string{"mean_bsld"}, Series: []compare.AxisValue{{Axis: "workload", Value: "large"}},
		MaxSeriesRuns: 4, Resamples: 500})
	if !strings.Contains(page, "The group has 23 completed runs; 4 are plotted, the lowest replicates of each value of policy.") {
		t.Error("the cap on plotted runs is not reported")
	}
}

func TestWriteBadInput(t *testing.T) {
	dir := fakeCampaign(t, 1)
	for name, tc := range map[string]struct {
		dir  string
		opts Options
		want string
	}{
		"no campaign":        {t.TempDir(), Options{}, "runs.parquet"},
		"unknown metric":     {dir, Options{Metrics: []string{"colour"}}, `metric "colour" is not a numeric column`},
		"metric twice":       {dir, Options{Metrics: []string{"mean_wait", "mean_wait"}}, "given twice"},
		"unknown axis":       {dir, Options{Axis: "platform"}, `axis "platform" is not an axis`},
		"unknown baseline":   {dir, Options{Baseline: "sjf"}, "no such run"},
		"by the axis":        {dir, Options{By: []string{"policy"}}, "cannot also group"},
		"bad level":          {dir, Options{Level: 95}, "confidence level"},
		"series axis":        {dir, Options{Series: []compare.AxisValue{{Axis: "colour", Value: "red"}}}, "not an axis"},
		"series value":       {dir, Options{Series: []compare.AxisValue{{Axis: "workload", Value: "huge"}}}, "no such run"},
		"too few points":     {dir, Options{Points: 1}, "at least 2"},
		"param, no baseline": {dir, Options{Axis: "param_depth", Baseline: "3"}, "no such run"},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Write(&buf, tc.dir, tc.opts)
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want an InputError containing %q", err, tc.want)
			}
			if buf.Len() != 0 {
				t.Errorf("%d bytes written despite the error", buf.Len())
			}
		})
	}
}

// TestWriteMissingJobsFile: a completed run whose jobs file is gone is an
// error naming the file, not a bad-input error.
func TestWriteMissingJobsFile(t *testing.T) {
	dir := fakeCampaign(t, 1)
	files, _ := filepath.Glob(filepath.Join(dir, results.JobsDir, "*.parquet"))
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	err := Write(&bytes.Buffer{}, dir, Options{})
	var ie *InputError
	if err == nil || errors.As(err, &ie) || !strings.Contains(err.Error(), filepath.Base(files[0])) {
		t.Errorf("error %v, want a plain error naming %s", err, filepath.Base(files[0]))
	}
}

func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		labels string
	}{
		{0.5, 2e6, "1 10 100 1000 10k 100k 1M"},
		{3, 40, "5 10 20"},
		{1, 100, "1 2 5 10 20 50 100"},
		{0, 10, ""},
	} {
		var got []string
		for _, tk := range (logTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != tc.labels {
			t.Errorf("logTicks(%v, %v) labels %q, want %q", tc.lo, tc.hi, strings.Join(got, " "), tc.labels)
		}
	}
}

func TestPanelNames(t *testing.T) {
	kv := func(pairs ...string) []compare.AxisValue {
		var out []compare.AxisValue
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, compare.AxisValue{Axis: pairs[i], Value: pairs[i+1]})
		}
		return out
	}
	names, common := panelNames([][]compare.AxisValue{kv("workload", "kth", "estimates", "requested"), kv("workload", "nasa", "estimates", "requested")})
	if strings.Join(names, "|") != "workload=kth|workload=nasa" || common != "; estimates=requested in every panel" {
		t.Errorf("names %q, common %q", names, common)
	}
	names, common = panelNames([][]compare.AxisValue{kv("workload", "kth")})
	if strings.Join(names, "|") != "workload=kth" || common != "" {
		t.Errorf("one panel: names %q, common %q", names, common)
	}
	names, _ = panelNames([][]compare.AxisValue{nil})
	if strings.Join(names, "|") != "all runs" {
		t.Errorf("no group axes: names %q", names)
	}
}

// ratioCampaign writes a campaign split like a trace cut into parts: axes
// workload (parts p1 to p4) and policy (sjf-bb, fcfs, easy), reps
// replicates, and per-pair ratios known in advance: mean_wait of fcfs is
// 3k times sjf-bb's on part pk, easy's half of it; mean_bsld of fcfs is 1.5
// times sjf-bb's, easy's 0.9 times. On part p4, replicate 1, every mean_wait
// is 0, so its two pairs have no ratio. Each run has a small jobs file.
func ratioCampaign(t testing.TB, reps int) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, results.JobsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	cols := []results.Column{
		{Name: "run_index", Kind: results.Int64}, {Name: "run_key", Kind: results.String},
		{Name: "label", Kind: results.String}, {Name: "status", Kind: results.String},
		{Name: "workload", Kind: results.String}, {Name: "policy", Kind: results.String},
		{Name: "replicate", Kind: results.Int64}, {Name: "mean_wait", Kind: results.Float64},
		{Name: "mean_bsld", Kind: results.Float64}, {Name: "bsld_tau", Kind: results.Int64},
		{Name: "procs", Kind: results.Int64},
	}
	var rows [][]any
	n := 0
	for k, w := range []string{"p1", "p2", "p3", "p4"} {
		for _, p := range []string{"sjf-bb", "fcfs", "easy"} {
			for rep := range reps {
				wait := float64(100 * (k + 1) * (rep + 1))
				bsld := float64(2 + k + rep)
				switch p {
				case "fcfs":
					wait *= 3 * float64(k+1)
					bsld *= 1.5
				case "easy":
					wait *= 0.5
					bsld *= 0.9
				}
				if w == "p4" && rep == 1 {
					wait = 0
				}
				key := fmt.Sprintf("%064x", n+1)
				var jobs []results.JobRow
				for j := range 20 {
					submit, runtime, jw := int64(j)*60, int64(100+j), int64(j*(k+1))
					jobs = append(jobs, results.JobRow{JobID: int64(j + 1), Submit: submit, Start: submit + jw, End: submit + jw + runtime,
						Wait: jw, Runtime: runtime, Walltime: 2 * runtime, Procs: 1 + int64(j%4), User: -1, Group: -1, App: -1, Queue: -1, Partition: -1})
				}
				if err := results.WriteJobs(results.CampaignJobsPath(dir, key), jobs, results.Metadata{"run.key": key}); err != nil {
					t.Fatal(err)
				}
				rows = append(rows, []any{int64(n), key, fmt.Sprintf("workload=%s policy=%s replicate=%d", w, p, rep), "ok",
					w, p, int64(rep), wait, bsld, int64(10), int64(16)})
				n++
			}
		}
	}
	meta := results.Metadata{results.AxesKey: `["workload","policy"]`, "campaign.name": "parts", "metrics.bsld_tau": "10"}
	if err := results.WriteTable(filepath.Join(dir, results.RunsFile), cols, rows, meta); err != nil {
		t.Fatal(err)
	}
	return dir
}

// figureCaption is the caption of the figure with the given id, as HTML,
// and whether the page has that figure.
func figureCaption(page, id string) (string, bool) {
	m := regexp.MustCompile(`(?s)<figure id="` + regexp.QuoteMeta(id) + `">.*?<figcaption>(.*?)</figcaption>`).FindStringSubmatch(page)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// TestRatioFigure checks the figure of per-pair ratios to the baseline:
// when it is drawn, and that its caption counts the pairs, the boxes and
// the pairs left out for a zero baseline.
func TestRatioFigure(t *testing.T) {
	for name, tc := range map[string]struct {
		reps   int
		by     []string
		metric string
		// want lists what the caption must hold; nil means no figure.
		want, not []string
	}{
		// One group: 4 parts x 2 replicates = 8 pairs per policy, 1 of
		// them with a zero baseline.
		"no grouping axis": {2, []string{}, "mean_wait", []string{"over all runs, as one group (no grouping axis)", "14 ratios in all, 7 pairs per box",
			"same workload and replicate", "Left out: 2 pairs whose baseline mean_wait is 0", "The y axis is logarithmic"}, nil},
		// One replicate, one group: the 4 parts are the pairs.
		"parts as pairs": {1, []string{}, "mean_wait", []string{"8 ratios in all, 4 pairs per box", "same workload (",
			"The y axis is logarithmic"}, []string{"Left out"}},
		// Default grouping, by workload: the replicates are the pairs;
		// on p4 one of the two has a zero baseline. Ratios on p1 span
		// less than a factor of 10, but the figure's do: every panel is
		// logarithmic.
		"by workload": {2, nil, "mean_wait", []string{"in each group (by workload)", "14 ratios in all, 1 to 2 pairs per box",
			"same replicate (", "Left out: 2 pairs", "The y axes are logarithmic"}, nil},
		// Ratios 0.9 and 1.5 span less than a factor of 10: linear axis.
		"linear": {2, []string{}, "mean_bsld", []string{"16 ratios in all, 8 pairs per box"}, []string{"logarithmic", "Left out"}},
		// One pair per comparison: nothing to draw a box from.
		"single pairs": {1, nil, "mean_wait", nil, nil},
	} {
		t.Run(name, func(t *testing.T) {
			dir := ratioCampaign(t, tc.reps)
			page := write(t, dir, Options{Metrics: []string{tc.metric}, Baseline: "sjf-bb", By: tc.by, Resamples: 200})
			checkSelfContained(t, page)
			title := tc.metric + " ratio to sjf-bb per pair"
			caption, ok := figureCaption(page, "fig-ratio-"+tc.metric)
			if ok != (tc.want != nil) || ok != slices.Contains(figureTitles(page), title) {
				t.Fatalf("figure %q drawn %v (titles %q), want %v", title, ok, figureTitles(page), tc.want != nil)
			}
			for _, s := range tc.want {
				if !strings.Contains(caption, s) {
					t.Errorf("caption lacks %q:\n%s", s, caption)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(caption, s) {
					t.Errorf("caption has %q:\n%s", s, caption)
				}
			}
			if !ok {
				return
			}
			// One panel per group (y axis label), all on the scale the
			// caption names.
			svg := regexp.MustCompile(`(?s)<figure id="fig-ratio-[^"]*">(.*?)</figure>`).FindStringSubmatch(page)[1]
			panels := map[bool]int{true: 4, false: 1}[tc.by == nil]
			lin, logs := strings.Count(svg, ">ratio to sjf-bb</text>"), strings.Count(svg, ">ratio to sjf-bb (log scale)</text>")
			if strings.Contains(caption, "logarithmic") {
				lin, logs = logs, lin
			}
			if lin != panels || logs != 0 {
				t.Errorf("%d panels on the scale the caption names, %d on the other; want %d and 0", lin, logs, panels)
			}
		})
	}
}

// TestPairRatios checks the ratios of a comparison's pairs, computed with
// compare on the ratio campaign, against those the campaign was made with.
func TestPairRatios(t *testing.T) {
	c, err := compare.Load(ratioCampaign(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	res, err := compare.Compare(c, compare.Options{Metric: "mean_wait", Axis: "policy", Baseline: "sjf-bb", By: []string{}, Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 1 || len(res.Groups[0].Comparisons) != 2 {
		t.Fatalf("%d groups, want one with 2 comparisons", len(res.Groups))
	}
	// Pairs come in block order: workload=p1 replicate=0, p1 1, p2 0, ...;
	// p4 replicate 1 has a zero baseline.
	for _, tc := range []struct {
		value string
		want  []float64
	}{
		{"fcfs", []float64{3, 3, 6, 6, 9, 9, 12}},
		{"easy", []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}},
	} {
		var cmp compare.Comparison
		for _, c := range res.Groups[0].Comparisons {
			if c.Value == tc.value {
				cmp = c
			}
		}
		got, skipped := pairRatios(cmp)
		if skipped != 1 || len(got) != len(tc.want) {
			t.Fatalf("%s: ratios %v, %d skipped; want %v, 1 skipped", tc.value, got, skipped, tc.want)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("%s: ratios %v, want %v", tc.value, got, tc.want)
				break
			}
		}
	}
}

// TestMarkedTicks checks the labelled tick at 1 added to an axis's ticks:
// it replaces a tick at the same place and silences labels next to it.
func TestMarkedTicks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ticks  plot.ConstantTicks
		lo, hi float64
		want   string // labelled ticks, value:label
	}{
		{"added", plot.ConstantTicks{{Value: 0.5, Label: "0.5"}, {Value: 1.5, Label: "1.5"}}, 0, 2, "0.5:0.5 1.5:1.5 1:1"},
		{"replaces", plot.ConstantTicks{{Value: 1, Label: "1.0"}, {Value: 2, Label: "2"}}, 0, 3, "2:2 1:1"},
		{"crowded", plot.ConstantTicks{{Value: 0.98, Label: "0.98"}, {Value: 1.5, Label: "1.5"}}, 0, 2, "1.5:1.5 1:1"},
		{"outside", plot.ConstantTicks{{Value: 2, Label: "2"}}, 1.5, 3, "2:2"},
	} {
		var got []string
		for _, tk := range (markedTicks{Ticker: tc.ticks, At: 1, Label: "1"}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				got = append(got, fmt.Sprintf("%g:%s", tk.Value, tk.Label))
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: labelled ticks %q, want %q", tc.name, strings.Join(got, " "), tc.want)
		}
	}
}

// TestWriteFigures checks that the standalone figures are the page's, in
// its order, each a well-formed SVG document whose title is the figure's.
func TestWriteFigures(t *testing.T) {
	dir := fakeCampaign(t, 5)
	var buf bytes.Buffer
	figs, err := WriteFigures(&buf, dir, Options{Baseline: "fifo", Seed: 1, Resamples: 2000})
	if err != nil {
		t.Fatal(err)
	}
	titles := figureTitles(buf.String())
	if len(figs) != len(titles) || len(figs) == 0 {
		t.Fatalf("%d figures, the page has %d", len(figs), len(titles))
	}
	for i, f := range figs {
		if f.Title != titles[i] || !strings.HasPrefix(f.Name, fmt.Sprintf("%02d-", i+1)) || !strings.HasSuffix(f.Name, ".svg") {
			t.Errorf("figure %d: %q %q, the page's %q", i+1, f.Name, f.Title, titles[i])
		}
		var root struct {
			XMLName xml.Name
		}
		if err := xml.Unmarshal(f.SVG, &root); err != nil || root.XMLName.Local != "svg" {
			t.Errorf("%s: not an SVG document: %v", f.Name, err)
		}
	}
}
