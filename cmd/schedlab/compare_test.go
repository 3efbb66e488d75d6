package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// TestCompareCommand compares the policies of a small campaign in every
// output format, with job-level views, and checks bad input.
func TestCompareCommand(t *testing.T) {
	m := writeManifest(t, "", `policy = ["fcfs", "easy", "conservative"]
"param.order" = ["submit", "shortest"]`)
	dir := filepath.Join(t.TempDir(), "c")
	if out, err := run(t, "run", m, "--out", dir, "-q"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := run(t, "compare", dir, "--baseline", "policy=easy", "--by", "workload", "--metric", "mean_wait")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"== workload=kth", "== workload=nasa", "(baseline)", "Job level", "waits less / more than easy"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	out, err = run(t, "compare", dir, "--baseline", "policy=easy", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		Table []map[string]any
		Jobs  []struct {
			Value                 string
			Jobs                  int
			WaitsLessThanBaseline int `json:"waits_less_than_baseline"`
		}
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Default groups: workload x order, 3 policies each.
	if len(js.Table) != 12 || len(js.Jobs) != 12 {
		t.Errorf("json: %d table rows, %d job views, want 12 and 12", len(js.Table), len(js.Jobs))
	}
	improved := 0
	for _, v := range js.Jobs {
		if v.Value == "easy" && v.WaitsLessThanBaseline != 0 {
			t.Errorf("the baseline improves on itself: %+v", v)
		}
		improved += v.WaitsLessThanBaseline
	}
	if improved == 0 {
		t.Error("no job waits less than under EASY in any run")
	}
	pq := filepath.Join(t.TempDir(), "cmp.parquet")
	out, err = run(t, "compare", dir, "--baseline", "param.order=submit", "--format", "markdown", "--no-jobs", "--out", pq)
	if err != nil || !strings.Contains(out, "| param_order |") {
		t.Fatalf("markdown: %v\n%s", err, out)
	}
	_, rows, meta, err := results.ReadTable(pq)
	if err != nil || len(rows) != 12 || meta["compare.baseline"] != "param.order=submit" || meta["campaign.name"] == "" {
		t.Errorf("parquet: %v, %d rows, meta %v", err, len(rows), meta)
	}
	// No grouping axis: one group, whose pairs span the 2 workloads and 2
	// orders (one replicate).
	pq = filepath.Join(t.TempDir(), "none.parquet")
	out, err = run(t, "compare", dir, "--baseline", "policy=easy", "--by", "none", "--format", "json", "--no-jobs", "--out", pq)
	if err != nil {
		t.Fatalf("--by none: %v\n%s", err, out)
	}
	js.Table = nil
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(js.Table) != 3 {
		t.Fatalf("--by none: %d table rows, want one group of 3 policies", len(js.Table))
	}
	for _, row := range js.Table {
		_, grouped := row["workload"]
		if pairs, _ := row["pairs"].(float64); grouped || row["policy"] != "easy" && pairs != 4 {
			t.Errorf("--by none: row %v, want 4 pairs and no workload column", row)
		}
	}
	if _, _, meta, err := results.ReadTable(pq); err != nil || meta["compare.by"] != "none" {
		t.Errorf("--by none parquet: %v, compare.by %q", err, meta["compare.by"])
	}
	out, err = run(t, "compare", dir, "--baseline", "policy=easy", "--by", "none", "--metric", "mean_wait", "--no-jobs")
	if err != nil || !strings.Contains(out, "\n== all runs\n") || strings.Contains(out, "== workload") {
		t.Errorf("--by none, text: %v\n%s", err, out)
	}
	for args, want := range map[string]string{
		"--baseline policy=easy --by none,workload": "cannot be combined",
		"--baseline policy=easy --by=":              "--by with no axis",
		"--baseline policy":                         "want AXIS=VALUE",
		"--baseline policy=sjf":                     "no such run",
		"--baseline colour=red":                     "not an axis",
		"--baseline policy=easy --metric foo":       "metric \"foo\"",
	} {
		out, err := run(t, append([]string{"compare", dir}, strings.Fields(args)...)...)
		if exitCode(err) != exitBadInput || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, output %q, want %q", args, exitCode(err), out, want)
		}
	}
}

// TestWorkloadAnalyze describes the shipped KTH log and writes its tables.
func TestWorkloadAnalyze(t *testing.T) {
	dir := t.TempDir()
	out, err := run(t, "workload", "analyze", kth, "--by", "user,queue", "--resamples", "19", "--out", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "== by user: 214 values") || !strings.Contains(out, "clusters: k = ") {
		t.Errorf("output:\n%s", out)
	}
	_, rows, meta, err := results.ReadTable(filepath.Join(dir, "factors.parquet"))
	if err != nil || len(rows) != 215 || meta["input.sha256"] == "" {
		t.Errorf("factors.parquet: %v, %d rows", err, len(rows))
	}
	_, fits, _, err := results.ReadTable(filepath.Join(dir, "fits.parquet"))
	if err != nil || len(fits) == 0 || len(fits)%4 != 0 {
		t.Errorf("fits.parquet: %v, %d rows (4 families per cluster and parameter)", err, len(fits))
	}
	if out, err := run(t, "workload", "analyze", kth, "--by", "colour"); exitCode(err) != exitBadInput || !strings.Contains(out, "--by \"colour\"") {
		t.Errorf("bad factor: exit %d\n%s", exitCode(err), out)
	}
}

// TestWorkloadFitAndGen fits a model to the shipped KTH log, draws a trace
// from it, and checks that the same seed draws the same trace.
func TestWorkloadFitAndGen(t *testing.T) {
	model := filepath.Join(t.TempDir(), "m.toml")
	out, err := run(t, "workload", "fit", kth, "-o", model)
	if err != nil || !strings.Contains(out, "KS distance") {
		t.Fatalf("%v\n%s", err, out)
	}
	gen := func(seed string) string {
		out, err := run(t, "workload", "gen", "--model", "model", "--param", "path="+model, "--param", "jobs=500", "--procs", "100", "--seed", seed)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return out
	}
	a, b, c := gen("1"), gen("1"), gen("2")
	if a != b || a == c || strings.Count(a, "\n") < 500 {
		t.Errorf("gen: same seed same trace %v, other seed other trace %v, %d lines", a == b, a != c, strings.Count(a, "\n"))
	}
}

// TestWorkloadAnalyzeSacct reads a Slurm accounting fixture: malformed
// records are skipped and listed, and the efficiency indicators printed.
func TestWorkloadAnalyzeSacct(t *testing.T) {
	dir := tracedata.SacctDirForTest(t)
	out, err := run(t, "workload", "analyze", filepath.Join(dir, "sacct_dump2101.log"), "--by", "app,nodes", "--resamples", "0")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"Slurm accounting", "12 jobs", "skipped:", "line 16", "== by nodes", "K_ef2 mean"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
