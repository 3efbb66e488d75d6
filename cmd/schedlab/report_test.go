package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCommand writes the report of a small campaign to its default
// and to a chosen path, and checks that bad input exits with status 2 and
// writes nothing.
func TestReportCommand(t *testing.T) {
	m := writeManifest(t, "", `policy = ["fcfs", "easy"]`)
	dir := filepath.Join(t.TempDir(), "c")
	if out, err := run(t, "run", m, "--out", dir, "-q"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := run(t, "report", dir, "--baseline", "policy=easy", "--resamples", "500")
	if err != nil || !strings.Contains(out, filepath.Join(dir, "report.html")) {
		t.Fatalf("report: %v\n%s", err, out)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>Campaign report: m</title>", "mean_wait by policy", "mean_bsld by policy",
		"ECDF of job wait", "Utilisation over time, workload=kth", "deterministic single replicates", "policy_sha256"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	custom := filepath.Join(t.TempDir(), "r.html")
	out, err = run(t, "report", dir, "--out", custom, "--metric", "p95_wait", "--series", "workload=nasa", "--title", "NASA and KTH")
	if err != nil {
		t.Fatalf("report --out: %v\n%s", err, out)
	}
	page, err = os.ReadFile(custom)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>NASA and KTH</title>", "p95_wait by policy", "Utilisation over time, workload=nasa"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("%s lacks %q", custom, want)
		}
	}
	if strings.Contains(string(page), "mean_wait by policy") {
		t.Errorf("--metric p95_wait still plots mean_wait")
	}
	// No grouping axis: the two workloads pair up, which makes boxes of
	// per-pair ratios.
	none := filepath.Join(t.TempDir(), "none.html")
	if out, err := run(t, "report", dir, "--out", none, "--baseline", "policy=easy", "--by", "none", "--resamples", "200"); err != nil {
		t.Fatalf("report --by none: %v\n%s", err, out)
	}
	page, err = os.ReadFile(none)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"in one group of all runs", "mean_wait ratio to easy per pair", "2 ratios in all, 2 pairs per box",
		"Utilisation over time, all runs"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("%s lacks %q", none, want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.html")
	for args, want := range map[string]string{
		"--baseline policy":                  "want AXIS=VALUE",
		"--baseline policy=sjf":              "no such run",
		"--baseline colour=red":              "not an axis",
		"--metric foo":                       `metric "foo"`,
		"--series workload":                  "want AXIS=VALUE",
		"--series workload=lanl":             "no such run",
		"--level 2":                          "confidence level",
		"--points 1":                         "at least 2",
		"--by policy --baseline policy=easy": "cannot also group",
		"--by none --by workload":            "cannot be combined",
	} {
		out, err := run(t, append([]string{"report", dir, "--out", bad}, strings.Fields(args)...)...)
		if exitCode(err) != exitBadInput || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, output %q, want %q", args, exitCode(err), out, want)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Errorf("%s: a report was written despite the error", args)
		}
	}
	if out, err := run(t, "report", t.TempDir()); exitCode(err) != exitBadInput || !strings.Contains(out, "runs.parquet") {
		t.Errorf("a folder without a campaign: exit %d, output %q", exitCode(err), out)
	}
}
