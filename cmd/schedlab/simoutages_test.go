package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
)

// TestSimOutagesBadInput: each mistake in the outage flags exits 2 naming
// the flag (or the file and its line or row), and creates no output.
func TestSimOutagesBadInput(t *testing.T) {
	dir := t.TempDir()
	outDir := filepath.Join(dir, "out")
	badCSV := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(badCSV, []byte("node,down,up\n3,10,20\n100,5,6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badPQ := filepath.Join(dir, "bad.parquet")
	cols := []results.Column{{Name: "node", Kind: results.Int64}, {Name: "down", Kind: results.Int64}}
	if err := results.WriteTable(badPQ, cols, [][]any{{1, 5}}, nil); err != nil {
		t.Fatal(err)
	}
	model := []string{"--failure-model", "exponential", "--mtbf", "20d", "--mttr", "4h"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a pool", []string{"--on-failure", "requeue"}, "outages are of nodes: the outage flags need a platform of nodes"},
		{"on failure", []string{"--machine", "KTH-SP2", "--on-failure", "retry"}, `--on-failure: --on-failure "retry"`},
		{"weibull without shape", []string{"--machine", "KTH-SP2", "--failure-model", "weibull", "--mtbf", "20d", "--mttr", "4h"}, "--weibull-shape must be positive"},
		{"shape not a number", append([]string{"--machine", "KTH-SP2", "--weibull-shape", "x"}, model...), `--weibull-shape: "x" is not a number`},
		{"mtbf without a model", []string{"--machine", "KTH-SP2", "--mtbf", "20d"}, "--mtbf: is a setting of a --failure-model"},
		{"bad time", []string{"--machine", "KTH-SP2", "--failure-model", "exponential", "--mtbf", "20 fortnights", "--mttr", "4h"}, `--mtbf: "20 fortnights": unknown unit`},
		{"horizon of 0", append([]string{"--machine", "KTH-SP2", "--failure-horizon", "0"}, model...), `--failure-horizon: want "jobs" or a time`},
		{"window without duration", []string{"--machine", "KTH-SP2", "--maintenance-window", "3d"}, `--maintenance-window "3d": want START,DURATION`},
		{"window of 0 s", []string{"--machine", "KTH-SP2", "--maintenance-window", "1d,4h,7d", "--maintenance-window", "3d,0"}, `--maintenance-window "3d,0": duration must be positive`},
		{"window every less than its duration", []string{"--machine", "KTH-SP2", "--maintenance-window", "3d,4h,1h"}, `--maintenance-window "3d,4h,1h": every must be 0`},
		{"checkpoint without interval", []string{"--machine", "KTH-SP2", "--on-failure", "checkpoint"}, "needs --checkpoint-interval"},
		{"csv node out of range", []string{"--machine", "KTH-SP2", "--failures-file", badCSV}, "--failures-file: " + badCSV + ": line 3: node 100: the platform has nodes 0 to 99"},
		{"parquet without up", []string{"--machine", "KTH-SP2", "--failures-file", badPQ}, badPQ + `: no column "up"`},
		{"file and model", append([]string{"--machine", "KTH-SP2", "--failures-file", badCSV}, model...), "not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"sim", "--trace", kth, "--policy", "easy", "--in-process", "--out", filepath.Join(outDir, "jobs.parquet")}, tc.args...)
			out, err := run(t, args...)
			if exitCode(err) != exitBadInput || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d\n%s\nwant exit 2 saying %q", exitCode(err), out, tc.want)
			}
		})
	}
	if _, err := os.Stat(outDir); err == nil {
		t.Errorf("bad input created %s", outDir)
	}
}

// TestSimOutagesAsCampaign runs one simulation with outage flags and the
// campaign of a manifest with the same [platforms.NAME.outages] table (a
// failure file, a weekly window, requeue under the soft rule), and checks
// that both jobs files have the same rows, outage columns, outages and
// settings; and that without outage flags the jobs file has none of it.
func TestSimOutagesAsCampaign(t *testing.T) {
	dir := t.TempDir()
	failures := filepath.Join(dir, "failures.csv")
	if err := os.WriteFile(failures, []byte("node,down,up\n3,100000,200000\n50,2000000,2100000\n3,5000000,5003600\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace, err := filepath.Abs(kth)
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`[campaign]
seed = 7
out = %q
[workloads.kth]
trace = %q
sha256 = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"
[policies.easy]
ref = "easy"
[platforms.kth]
machine = "KTH-SP2"
[platforms.kth.outages]
on_failure = "requeue"
maintenance = "soft"
failures_file = %q
[[platforms.kth.outages.windows]]
start = "1d"
duration = "4h"
every = "7d"
[matrix]
workload = ["kth"]
policy = ["easy"]
platform = ["kth"]
`, filepath.Join(dir, "campaign"), trace, failures)
	files := []string{campaignJobsFile(t, dir, src)}
	simJobs := filepath.Join(dir, "sim", "jobs.parquet")
	out, err := run(t, "sim", "--trace", kth, "--policy", "easy", "--in-process", "--machine", "KTH-SP2",
		"--on-failure", "requeue", "--maintenance", "soft", "--failures-file", failures, "--maintenance-window", "1d,4h,7d", "--out", simJobs)
	if err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	}
	if !strings.Contains(out, "3 failures from the file, 0 drawn") {
		t.Errorf("sim's summary does not count the outages:\n%s", out)
	}
	cRows, cx, cMeta, err := results.ReadJobsWith(files[0])
	if err != nil {
		t.Fatal(err)
	}
	sRows, sx, sMeta, err := results.ReadJobsWith(simJobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(sx.Outages) != len(sRows) || !reflect.DeepEqual(cRows, sRows) || !reflect.DeepEqual(cx.Outages, sx.Outages) {
		t.Errorf("sim's jobs differ from the campaign's (%d and %d rows, %d and %d outage rows)", len(sRows), len(cRows), len(sx.Outages), len(cx.Outages))
	}
	attempts := 0
	for _, r := range sx.Outages {
		attempts += int(r.Attempts)
	}
	if attempts == 0 {
		t.Error("no job met an outage: the test would not tell requeue from kill")
	}
	for _, k := range []string{"outages.settings", "outages.counts", results.OutagesKey} {
		if sMeta[k] == "" || sMeta[k] != cMeta[k] {
			t.Errorf("%s: sim %q, campaign %q", k, sMeta[k], cMeta[k])
		}
	}
	if sMeta["outages.seed"] != "1" {
		t.Errorf("outages.seed %q, want the default 1", sMeta["outages.seed"])
	}

	// Without outage flags: no outage metadata, no outage columns.
	plain := filepath.Join(dir, "plain", "jobs.parquet")
	if out, err := run(t, "sim", "--trace", kth, "--policy", "easy", "--in-process", "--machine", "KTH-SP2", "--out", plain); err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	} else if strings.Contains(out, "outages") {
		t.Errorf("a run without outages prints some:\n%s", out)
	}
	_, px, pMeta, err := results.ReadJobsWith(plain)
	if err != nil {
		t.Fatal(err)
	}
	for k := range pMeta {
		if strings.HasPrefix(k, "outages.") {
			t.Errorf("a run without outages has %s", k)
		}
	}
	if px.Outages != nil {
		t.Error("a run without outages has outage columns")
	}
}
