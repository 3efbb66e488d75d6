package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/campaign"
)

// writeManifest writes a campaign over the shipped traces into a new
// folder and returns its path; matrix is the body of [matrix] after the
// workload axis.
func writeManifest(t *testing.T, campaignExtra, matrix string) string {
	t.Helper()
	data, err := filepath.Abs(filepath.Join("..", "..", "experiments", "data"))
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`[campaign]
seed = 7
%s
[workloads.kth]
trace = %q
sha256 = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"
[workloads.nasa]
trace = %q
sha256 = "9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76"
[policies.fcfs]
ref = "fcfs"
[policies.easy]
ref = "easy"
[policies.conservative]
ref = "conservative"
[policies.missing]
ref = "./no-such-plugin"
[matrix]
workload = ["kth", "nasa"]
%s
`, campaignExtra, filepath.Join(data, "KTH-SP2-1996-2.1-cln.swf.gz"), filepath.Join(data, "NASA-iPSC-1993-3.1-cln.swf.gz"), matrix)
	path := filepath.Join(t.TempDir(), "m.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestKillAndResume kills `schedlab run` with SIGKILL in the middle of a
// campaign, then resumes it: every run ends up completed exactly once, the
// runs completed before the kill are reused, and no partial file looks
// complete.
func TestKillAndResume(t *testing.T) {
	m := writeManifest(t, "replicates = 3", `policy = ["fcfs", "easy", "conservative"]
"param.order" = ["submit", "shortest", "smallest", "largest"]`)
	const total = 2 * 3 * 4 * 3
	dir := filepath.Join(t.TempDir(), "c")
	cmd := exec.Command(schedlab, "run", m, "--out", dir, "--jobs", "2")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	lines := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "[") {
			lines++
		}
		if lines == 5 {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	go func() {
		for sc.Scan() { // drain, so the process never blocks on a full pipe
		}
	}()
	_ = cmd.Wait()
	if lines < 5 {
		t.Fatalf("only %d runs reported before the kill", lines)
	}

	// What the kill left: only whole files under final names.
	statuses, _ := filepath.Glob(filepath.Join(dir, campaign.StatusDir, "*.json"))
	jobs, _ := filepath.Glob(filepath.Join(dir, campaign.JobsDir, "*.parquet"))
	if len(statuses) < 5 || len(statuses) >= total {
		t.Fatalf("%d status files after the kill", len(statuses))
	}
	for _, j := range jobs {
		if _, _, err := results.ReadJobs(j); err != nil {
			t.Errorf("a jobs file left by the kill does not read: %v", err)
		}
	}
	before := len(statuses)

	out, err := exec.Command(schedlab, "run", "--resume", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	earlier := strings.Count(string(out), ": done earlier")
	executed := strings.Count(string(out), "): ok")
	if earlier != before || executed != total-before {
		t.Errorf("resume reused %d runs and executed %d; %d were complete before, %d in all\n%s", earlier, executed, before, total, out)
	}
	_, rows, _, err := results.ReadTable(filepath.Join(dir, campaign.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != total {
		t.Fatalf("runs.parquet has %d rows, want %d", len(rows), total)
	}
	jobs, _ = filepath.Glob(filepath.Join(dir, campaign.JobsDir, "*.parquet"))
	statuses, _ = filepath.Glob(filepath.Join(dir, campaign.StatusDir, "*.json"))
	if len(jobs) != total || len(statuses) != total {
		t.Errorf("%d jobs files and %d status files, want %d of each", len(jobs), len(statuses), total)
	}
	temps, _ := filepath.Glob(filepath.Join(dir, "*", ".*"))
	if len(temps) != 0 {
		t.Errorf("temporary files left after resuming: %v", temps)
	}
}

// TestRunExitCodes checks the exit status and message of each outcome.
func TestRunExitCodes(t *testing.T) {
	good := writeManifest(t, "", `policy = ["easy"]`)
	dir := filepath.Join(t.TempDir(), "c")
	out, err := run(t, "run", good, "--out", dir, "--quiet")
	if exitCode(err) != exitOK || out != "" {
		t.Fatalf("good campaign: exit %d\n%s", exitCode(err), out)
	}
	out, err = run(t, "run", good, "--out", dir)
	if exitCode(err) != exitBadInput || !strings.Contains(out, "already holds a campaign") {
		t.Errorf("existing folder: exit %d\n%s", exitCode(err), out)
	}
	out, err = run(t, "run", good, "--out", filepath.Join(t.TempDir(), "d"), "--jobs")
	if exitCode(err) != exitBadInput {
		t.Errorf("bad flag: exit %d\n%s", exitCode(err), out)
	}
	// Command lines cobra refuses are bad input too.
	for _, args := range [][]string{{"run"}, {"run", good, good}, {"compare", dir}, {"bogus"}} {
		if out, err := run(t, args...); exitCode(err) != exitBadInput {
			t.Errorf("%v: exit %d, want %d\n%s", args, exitCode(err), exitBadInput, out)
		}
	}
	out, err = run(t, "rerun", dir, "--out", dir)
	if exitCode(err) != exitBadInput || !strings.Contains(out, "start it again with --overwrite") || strings.Contains(out, "--resume") {
		t.Errorf("rerun into a folder with a campaign: exit %d\n%s", exitCode(err), out)
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("[campaign]\nseed = 1\nsede = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, "run", bad)
	if exitCode(err) != exitBadInput || !strings.Contains(out, "bad.toml:3: unknown key campaign.sede") {
		t.Errorf("bad manifest: exit %d\n%s", exitCode(err), out)
	}
	// A campaign folder that takes no file: under a regular file, and a
	// folder made immutable (chattr +i, which binds root too). Nothing runs.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Its jobs and status folders exist and take files; it does not.
	frozen := filepath.Join(t.TempDir(), "frozen")
	for _, sub := range []string{"jobs", "status"} {
		if err := os.MkdirAll(filepath.Join(frozen, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	unwritable := []string{filepath.Join(file, "c")}
	if out, err := exec.Command("chattr", "+i", frozen).CombinedOutput(); err != nil {
		t.Logf("chattr +i is not available here (%v: %s): the immutable folder is not tried", err, out)
	} else {
		defer exec.Command("chattr", "-i", frozen).Run()
		unwritable = append(unwritable, frozen)
	}
	for _, dir := range unwritable {
		out, err = run(t, "run", good, "--out", dir)
		if exitCode(err) != exitBadInput || !strings.Contains(out, "the campaign folder cannot be written") || strings.Contains(out, "[1/") {
			t.Errorf("unwritable folder %s: exit %d\n%s", dir, exitCode(err), out)
		}
	}
	missing := writeManifest(t, "", `policy = ["easy", "missing"]`)
	out, err = run(t, "run", missing, "--out", filepath.Join(t.TempDir(), "e"), "--json")
	if exitCode(err) != exitRunsFailed || !strings.Contains(out, `"failed": 2`) || !strings.Contains(out, "2 of 4 runs failed") {
		t.Errorf("failed runs: exit %d\n%s", exitCode(err), out)
	}
}

// TestRerunAndExpand reruns a campaign from its lock file and expands a
// manifest.
func TestRerunAndExpand(t *testing.T) {
	m := writeManifest(t, "", `policy = ["easy", "conservative"]`)
	dir := filepath.Join(t.TempDir(), "c")
	if out, err := run(t, "run", m, "--out", dir, "-q"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := run(t, "rerun", dir, "-q")
	if err != nil || !strings.Contains(out, "4/4 runs identical") {
		t.Fatalf("rerun: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir+"-rerun", campaign.RunsFile)); err != nil {
		t.Error(err)
	}
	out, err = run(t, "expand", m)
	if err != nil || strings.Count(out, "\n") != 6 || !strings.Contains(out, "4 runs") {
		t.Errorf("expand: %v\n%s", err, out)
	}
}

// TestInterrupt sends SIGINT: the runs in flight stop, runs.parquet is
// written, the exit status says interrupted, and a resume completes it.
func TestInterrupt(t *testing.T) {
	m := writeManifest(t, "replicates = 4", `policy = ["conservative", "easy"]
"param.order" = ["submit", "shortest"]`)
	dir := filepath.Join(t.TempDir(), "c")
	cmd := exec.Command(schedlab, "run", m, "--out", dir, "--jobs", "1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "[2/") {
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var rest strings.Builder
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("schedlab did not stop within a minute of SIGINT")
	}
	if exitCode(err) != exitInterrupted || !strings.Contains(rest.String(), "--resume") {
		t.Fatalf("interrupt: exit %d\n%s", exitCode(err), rest.String())
	}
	_, rows, meta, err := results.ReadTable(filepath.Join(dir, campaign.RunsFile))
	if err != nil || len(rows) != 32 || meta["campaign.pending"] == "0" {
		t.Fatalf("runs.parquet after the interrupt: %d rows, %v, pending %s", len(rows), err, meta["campaign.pending"])
	}
	if out, err := run(t, "run", "--resume", dir, "-q"); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	_, _, meta, err = results.ReadTable(filepath.Join(dir, campaign.RunsFile))
	if err != nil || meta["campaign.ok"] != "32" {
		t.Errorf("after resuming: %v ok %s", err, meta["campaign.ok"])
	}
}
