package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/manifest"
)

// TestSimCommandReproducesRun runs a campaign whose run has a setting of
// every kind sim takes (a cleaning setting, a platform size, a parameter,
// exact estimates, a bounded-slowdown floor), then the sim command that
// simCommand gives for it: sim must write the campaign's job records, one
// for one, and say the same metrics.
func TestSimCommandReproducesRun(t *testing.T) {
	dir := t.TempDir()
	trace, err := filepath.Abs(kth)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "m.toml")
	src := `[campaign]
seed = 11
[metrics]
bsld_tau = 60
[workloads.kth]
trace = ` + strconv.Quote(trace) + `
sha256 = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"
procs = 96
clean = { job_ids = "15-1780" }
[policies.easy]
ref = "easy"
params = { order = "shortest" }
[matrix]
workload = ["kth"]
policy = ["easy"]
estimates = ["exact"]
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "c")
	if text, err := run(t, "run", path, "--out", out, "-q"); err != nil {
		t.Fatalf("campaign: %v\n%s", err, text)
	}
	cols, rows, _, err := results.ReadTable(filepath.Join(out, results.RunsFile))
	if err != nil || len(rows) != 1 {
		t.Fatalf("runs.parquet: %v, %d rows", err, len(rows))
	}
	get := func(name string) any {
		for i, c := range cols {
			if c.Name == name {
				return rows[0][i]
			}
		}
		t.Fatalf("runs.parquet has no %s", name)
		return nil
	}
	key, seed := get("run_key").(string), uint64(get("seed").(int64))

	m, err := manifest.Load(path, generators()...)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := m.Expand()
	if err != nil {
		t.Fatal(err)
	}
	cmd, ok := simCommand(m, runs[0], seed)
	if !ok {
		t.Fatalf("simCommand: no command for %s", runs[0].Label())
	}
	for _, want := range []string{"--clean job-ids=15-1780", "--procs 96", "--param order=shortest", "--exact", "--bsld-tau 60", "--seed " + strconv.FormatUint(seed, 10)} {
		if !strings.Contains(cmd, want) {
			t.Errorf("%s\nlacks %s", cmd, want)
		}
	}
	jobs := filepath.Join(dir, "alone.parquet")
	args := append(strings.Fields(cmd)[1:], "--out", jobs)
	if text, err := run(t, args...); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, text)
	}
	want, _, err := results.ReadJobs(results.CampaignJobsPath(out, key))
	if err != nil {
		t.Fatal(err)
	}
	got, meta, err := results.ReadJobs(jobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("sim wrote %d job records, the campaign %d, not the same", len(got), len(want))
	}
	if meta["metrics.bsld_tau"] != "60" || meta["exact_estimates"] != "true" || meta["seed"] != strconv.FormatUint(seed, 10) {
		t.Errorf("sim's provenance: bsld_tau %s, exact %s, seed %s", meta["metrics.bsld_tau"], meta["exact_estimates"], meta["seed"])
	}
}

// TestSimCommandNone: a run sim cannot express gets no command.
func TestSimCommandNone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.toml")
	src := `[campaign]
seed = 1
[workloads.gen]
generator = "lublin-feitelson"
procs = 64
params = { jobs = 100 }
[policies.easy]
ref = "easy"
[matrix]
workload = ["gen"]
policy = ["easy"]
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(path, generators()...)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := m.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if cmd, ok := simCommand(m, runs[0], 1); ok {
		t.Errorf("a generated workload: %s", cmd)
	}
}
