package report

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
		"mean_wait by policy", "mean_bsld by policy",
		"mean_wait against depth", "mean_bsld against depth",
		"mean_wait over replicates", "mean_bsld over replicates",
		"ECDF of job wait", "ECDF of job bounded slowdown",
		"Utilisation over time, workload=small, param_depth=1", "Queue length over time, workload=small, param_depth=1",
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
		"Utilisation over time, workload=small, policy=fifo", "Queue length over time, workload=small, policy=fifo"}
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
