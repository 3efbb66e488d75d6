package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/slurmtest"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/campaign"
	"github.com/schedlab/schedlab/runner/slurm"
)

// TestSlurm runs campaigns on a real Slurm (a throw-away single-node one
// where none is configured): the quickstart as an array of 3, and an array
// one of whose tasks is cancelled mid-way and resumed.
func TestSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no Slurm")
	}
	slurmtest.Start(t)
	t.Run("quickstart", slurmQuickstart)
	t.Run("cancel and resume", slurmCancelResume)
}

// runsTable reads runs.parquet as rows keyed by column name.
func runsTable(t *testing.T, dir string) []map[string]any {
	t.Helper()
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, campaign.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		out[i] = map[string]any{}
		for j, c := range cols {
			out[i][c.Name] = r[j]
		}
	}
	return out
}

// checkOnce checks that the folder holds every one of the campaign's runs
// exactly once and completed: one row each in runs.parquet, one status
// and one jobs file each, and no file left half-written.
func checkOnce(t *testing.T, dir string, want int) []map[string]any {
	t.Helper()
	rows := runsTable(t, dir)
	keys := map[string]bool{}
	for _, r := range rows {
		if r["status"] != campaign.StatusOK {
			t.Errorf("run %v: %v %v", r["label"], r["status"], r["error"])
		}
		keys[r["run_key"].(string)] = true
	}
	if len(rows) != want || len(keys) != want {
		t.Errorf("runs.parquet: %d rows, %d distinct keys; want %d", len(rows), len(keys), want)
	}
	for _, sub := range []string{campaign.JobsDir, campaign.StatusDir} {
		names, _ := filepath.Glob(filepath.Join(dir, sub, "*"))
		if len(names) != want {
			t.Errorf("%s holds %d files, want %d: %v", sub, len(names), want, names)
		}
		temps, _ := filepath.Glob(filepath.Join(dir, sub, ".*"))
		if len(temps) > 0 {
			t.Errorf("%s: temporary files left: %v", sub, temps)
		}
	}
	return rows
}

func slurmQuickstart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "q")
	out, err := run(t, "slurm", "submit", "../../experiments/quickstart.toml", "--array", "3", "--out", dir, "--wait", "--poll", "300ms")
	if err != nil {
		t.Fatalf("submit: %v\n%s", err, out)
	}
	rec, err := slurm.ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := checkOnce(t, dir, 12)
	tasks := map[int64]int{}
	for _, r := range rows {
		if r["executor"] != campaign.ExecutorSlurm || r["slurm_job_id"] != rec.Submissions[0].ArrayJobID || r["host"] == nil {
			t.Errorf("run %v: executor %v, job %v (array %d), host %v", r["label"], r["executor"], r["slurm_job_id"], rec.Submissions[0].ArrayJobID, r["host"])
		}
		if id, ok := r["slurm_array_task_id"].(int64); ok {
			tasks[id]++
			if r["shard"] != fmt.Sprintf("%d/3", id) {
				t.Errorf("run %v: shard %v in task %d", r["label"], r["shard"], id)
			}
		}
	}
	if len(tasks) != 3 || tasks[1]+tasks[2]+tasks[3] != 12 {
		t.Errorf("runs by array task: %v, want 12 runs over tasks 1, 2 and 3", tasks)
	}
	for _, want := range []string{"shard  runs  completed", "COMPLETED", "12 of 12 runs completed, 0 failed, 0 not run"} {
		if !strings.Contains(out, want) {
			t.Errorf("submit --wait does not say %q:\n%s", want, out)
		}
	}
	// A reader reruns the folder locally: every run the same.
	out, err = run(t, "rerun", dir)
	if err != nil || !strings.Contains(out, "12/12 runs identical") {
		t.Errorf("rerun: %v\n%s", err, out)
	}
	// A partition the cluster does not have is refused by sbatch
	// --test-only, before the folder exists.
	other := filepath.Join(t.TempDir(), "other")
	out, err = run(t, "slurm", "submit", "../../experiments/quickstart.toml", "--array", "2", "--out", other, "--partition", "no-such-partition")
	if _, serr := os.Stat(other); exitCode(err) != exitBadInput || serr == nil || !strings.Contains(out, "test-only") {
		t.Errorf("an unknown partition: exit %d, folder made: %v\n%s", exitCode(err), serr == nil, out)
	}
	// A second submission of the same folder is refused, before anything.
	out, err = run(t, "slurm", "submit", "../../experiments/quickstart.toml", "--array", "3", "--out", dir)
	if exitCode(err) != exitBadInput || !strings.Contains(out, "slurm submit --resume") {
		t.Errorf("submitting into a campaign folder: exit %d\n%s", exitCode(err), out)
	}
	// Resuming a complete campaign submits nothing.
	out, err = run(t, "slurm", "submit", "--resume", dir)
	if err != nil || !strings.Contains(out, "nothing to submit") {
		t.Errorf("resume of a complete campaign: %v\n%s", err, out)
	}
}

// slurmCancelResume cancels task 2 of an array once it has completed a run
// of its shard and before it completes them all, then resumes: only shard
// 2 is submitted again, the runs it completed before are kept, and every
// run ends up completed once. Its policy is a Go package (a slow FCFS),
// built once before submission and run from the campaign folder.
func slurmCancelResume(t *testing.T) {
	data, err := filepath.Abs(filepath.Join("..", "..", "experiments", "data"))
	if err != nil {
		t.Fatal(err)
	}
	slow, err := filepath.Abs(filepath.Join("..", "..", "runner", "testdata", "slow"))
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`[campaign]
seed = 3
replicates = 6
[workloads.nasa]
trace = %q
sha256 = "9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76"
[policies.slow]
ref = %q
params = { sleep_ms = 2000 }
[matrix]
workload = ["nasa"]
policy = ["slow"]
`, filepath.Join(data, "NASA-iPSC-1993-3.1-cln.swf.gz"), slow)
	m := filepath.Join(t.TempDir(), "slow.toml")
	if err := os.WriteFile(m, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "c")
	out, err := run(t, "slurm", "submit", m, "--array", "3", "--out", dir, "--time", "0:10:00")
	if err != nil {
		t.Fatalf("submit: %v\n%s", err, out)
	}
	rec, err := slurm.ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Policies) != 1 || !strings.HasPrefix(rec.Policies["slow"].Binary, filepath.Join(slurm.Folder, slurm.PluginsDir)) {
		t.Fatalf("the package policy's binary is not in the folder: %+v", rec.Policies)
	}
	array := rec.Submissions[0].ArrayJobID
	shard2 := rec.Keys[1]
	if len(shard2) != 2 {
		t.Fatalf("shard 2 has %d runs, want 2 of 6", len(shard2))
	}
	// Cancel task 2 as soon as its first run has completed.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := slurm.Client{}
	var before map[string][]byte
	for before == nil {
		if ctx.Err() != nil {
			t.Fatal("shard 2 completed no run in 2 minutes")
		}
		for _, k := range shard2 {
			if campaign.StatusOf(dir, k) == campaign.StatusOK {
				before = map[string][]byte{}
				if err := client.Cancel(ctx, array, 2); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := client.Wait(ctx, 300*time.Millisecond, array, rec.Submissions[0].MergeJobID); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, k := range shard2 {
		if campaign.StatusOf(dir, k) == campaign.StatusOK {
			kept = append(kept, k)
			before[k], _ = os.ReadFile(filepath.Join(dir, campaign.StatusDir, k+".json"))
		}
	}
	if len(kept) != 1 {
		t.Fatalf("task 2 was cancelled with %d of its 2 runs completed, want 1 (cancelled mid-way)", len(kept))
	}
	out, err = run(t, "slurm", "status", dir)
	if exitCode(err) != exitInterrupted || !strings.Contains(out, "5 of 6 runs completed, 0 failed, 1 not run") {
		t.Errorf("status after the cancel: exit %d\n%s", exitCode(err), out)
	}
	if rows := runsTable(t, dir); len(rows) != 6 {
		t.Errorf("the merge job left %d rows, want 6 (one pending)", len(rows))
	}

	out, err = run(t, "slurm", "submit", "--resume", dir, "--wait", "--poll", "300ms")
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	rec, err = slurm.ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Submissions) != 2 || !slices.Equal(rec.Submissions[1].Tasks, []int{2}) {
		t.Errorf("the resume submitted %+v, want task 2 only", rec.Submissions[1:])
	}
	checkOnce(t, dir, 6)
	// The resume kept the first submission's options.
	if script, _ := os.ReadFile(filepath.Join(dir, slurm.Folder, slurm.ArrayScript)); !strings.Contains(string(script), "#SBATCH --time=0:10:00\n") {
		t.Errorf("the resumed array lost --time:\n%s", script)
	}
	for k, b := range before {
		if now, _ := os.ReadFile(filepath.Join(dir, campaign.StatusDir, k+".json")); string(now) != string(b) {
			t.Errorf("run %s, completed before the cancel, ran again", k[:12])
		}
	}
}

// TestSlurmSubmitBadInput checks that submit refuses bad input with exit 2
// before it creates anything, with or without Slurm on the machine.
func TestSlurmSubmitBadInput(t *testing.T) {
	bad := writeManifest(t, "", `policy = ["easy"]`)
	text, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.Replace(string(text), "fba36494", "00000000", 1)
	if err := os.WriteFile(bad, []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"wrong sha256":         {"slurm", "submit", bad, "--array", "2"},
		"no --array":           {"slurm", "submit", "../../experiments/quickstart.toml"},
		"--resume and --array": {"slurm", "submit", "--resume", t.TempDir(), "--array", "2"},
	} {
		dir := filepath.Join(t.TempDir(), "c")
		out, err := run(t, append(args, "--out", dir)...)
		if exitCode(err) != exitBadInput {
			t.Errorf("%s: exit %d, want 2\n%s", name, exitCode(err), out)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s: the campaign folder was created", name)
		}
	}
}
