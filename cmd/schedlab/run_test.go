package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/schedlab/schedlab/internal/pyenv"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/runner/campaign"
	"github.com/schedlab/schedlab/workload/pwa"
	"github.com/schedlab/schedlab/workload/tracedata"
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
[policies.crash]
ref = %q
[matrix]
workload = ["kth", "nasa"]
%s
`, campaignExtra, filepath.Join(data, "KTH-SP2-1996-2.1-cln.swf.gz"), filepath.Join(data, "NASA-iPSC-1993-3.1-cln.swf.gz"),
		filepath.Join(crashPlugin(t)), matrix)
	path := filepath.Join(t.TempDir(), "m.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// crashPlugin is the folder of a test plugin whose policy panics on its
// third call.
func crashPlugin(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "runner", "testdata", "crash"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
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
	// A manifest over manifest.MaxBytes is refused unparsed.
	big := filepath.Join(t.TempDir(), "big.toml")
	if err := os.WriteFile(big, []byte("[campaign]\nseed = 1\n#"+strings.Repeat("x", 1<<20)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, "run", big)
	if exitCode(err) != exitBadInput || !strings.Contains(out, "big.toml: file too large: 1048598 bytes, more than the 1048576 (1 MiB) a manifest may have") {
		t.Errorf("a manifest over the bound: exit %d\n%s", exitCode(err), out)
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
	// A policy path that does not exist: exit 2 naming the key, nothing
	// created, from run and from expand.
	missing := writeManifest(t, "", `policy = ["easy", "missing"]`)
	fresh := filepath.Join(t.TempDir(), "e")
	for _, args := range [][]string{{"run", missing, "--out", fresh}, {"expand", missing}} {
		out, err = run(t, args...)
		if exitCode(err) != exitBadInput || !regexp.MustCompile(`m\.toml:\d+: policies\.missing\.ref: policy ".*no-such-plugin" is neither a plugin binary nor a Go package`).MatchString(out) ||
			strings.Contains(out, "go.mod") {
			t.Errorf("%s with a missing policy path: exit %d\n%s", args[0], exitCode(err), out)
		}
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a campaign with a missing policy path created its folder: %v", err)
	}
}

// TestFailuresOnce runs a campaign whose crash policy fails both its runs
// with one reason: the reason is printed once, however the output is read
// (progress lines, table, summary), and the exit status says runs failed.
func TestFailuresOnce(t *testing.T) {
	m := writeManifest(t, "", `policy = ["easy", "crash"]`)
	for _, mode := range []string{"lines", "quiet", "json"} {
		args := []string{"run", m, "--out", filepath.Join(t.TempDir(), "c")}
		switch mode {
		case "quiet":
			args = append(args, "-q")
		case "json":
			args = append(args, "--json")
		}
		out, err := run(t, args...)
		const reason = "crash plugin: deliberate panic on call 3"
		if exitCode(err) != exitRunsFailed || !strings.Contains(out, "2 of 4 runs failed") {
			t.Errorf("%s: exit %d\n%s", mode, exitCode(err), out)
		}
		if mode == "json" {
			if !strings.Contains(out, `"failed": 2`) {
				t.Errorf("json: no failed count\n%s", out)
			}
			continue
		}
		if n := strings.Count(out, reason); n != 1 {
			t.Errorf("%s: the reason is printed %d times, want once\n%s", mode, n, out)
		}
		if !strings.Contains(out, "workload=kth policy=crash estimates=requested replicate=0, workload=nasa policy=crash estimates=requested replicate=0") {
			t.Errorf("%s: the failed runs are not listed under their reason\n%s", mode, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if len(line) > 320 {
				t.Errorf("%s: a line of %d characters: %.100s...", mode, len(line), line)
			}
		}
		// Where the first run of the reason panicked: its simulated time,
		// the queue, the policy's file and line; and how to run it alone,
		// which fails there too.
		where := regexp.MustCompile(`(?m)^    (at t=\d+, \d+ waiting \(first: job id \d+\), \d+ running, in \S*runner/testdata/crash/main\.go:\d+ \(main\.\(\*crash\)\.Schedule\)) \(workload=kth policy=crash estimates=requested replicate=0\)$`).FindStringSubmatch(out)
		alone := regexp.MustCompile(`(?m)^    alone: (schedlab sim .*)$`).FindStringSubmatch(out)
		if where == nil || alone == nil {
			t.Errorf("%s: no line says where the policy panicked and how to run the run alone\n%s", mode, out)
			continue
		}
		if mode != "lines" {
			continue
		}
		simArgs := strings.Fields(alone[1])[1:]
		if !slices.Contains(simArgs, "--seed") || !slices.Contains(simArgs, "--trace") {
			t.Errorf("the command to run it alone lacks the run's settings: %s", alone[1])
		}
		simOut, err := run(t, simArgs...)
		if exitCode(err) != exitRunsFailed || !strings.Contains(simOut, reason) || !strings.Contains(simOut, "\n"+where[1]+"\n") {
			t.Errorf("%s: exit %d, want 1 with the panic at the same place:\n%s", alone[1], exitCode(err), simOut)
		}
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

// TestRunKeysSameForEveryBuild runs a campaign with `go run`, as the README
// does, and resumes it with binaries built by `go build` and by `go build`
// stripped and trimmed: every run is found complete, since the reference
// policies' identity is their sources, not the binary. A change to a
// policy's source changes the identity.
func TestRunKeysSameForEveryBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds schedlab three more times")
	}
	tmp := t.TempDir()
	stripped := filepath.Join(tmp, "stripped")
	if out, err := exec.Command("go", "build", "-ldflags=-s -w", "-trimpath", "-o", stripped, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// The same source with one comment added to a reference policy's file.
	easy, err := filepath.Abs(filepath.Join("..", "..", "plugins", "backfill", "easy.go"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(easy)
	if err != nil {
		t.Fatal(err)
	}
	edited, overlay, changed := filepath.Join(tmp, "easy.go"), filepath.Join(tmp, "overlay.json"), filepath.Join(tmp, "changed")
	if err := os.WriteFile(edited, append(src, "// a change\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overlay, fmt.Appendf(nil, `{"Replace": {%q: %q}}`, easy, edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "build", "-overlay", overlay, "-o", changed, ".").CombinedOutput(); err != nil {
		t.Fatalf("build with the overlay: %v\n%s", err, out)
	}
	identity := func(cmd ...string) string {
		t.Helper()
		out, err := exec.Command(cmd[0], append(cmd[1:], "--version")...).CombinedOutput()
		m := regexp.MustCompile(`reference policies: identity ([0-9a-f]{64})`).FindSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("%v --version: %v\n%s", cmd, err, out)
		}
		return string(m[1])
	}
	goRun := identity("go", "run", ".")
	if built, small := identity(schedlab), identity(stripped); built != goRun || small != goRun {
		t.Errorf("identities: go run %s, go build %s, stripped %s", goRun, built, small)
	}
	if identity(changed) == goRun {
		t.Errorf("a changed policy source keeps the identity %s", goRun)
	}
	a, _ := runner.FileSHA256(schedlab)
	b, _ := runner.FileSHA256(stripped)
	if a == b {
		t.Fatalf("the two builds are the same file: the test shows nothing")
	}

	m := writeManifest(t, "", `policy = ["fcfs", "easy"]`)
	dir := filepath.Join(tmp, "c")
	if out, err := exec.Command("go", "run", ".", "run", m, "--out", dir, "-q").CombinedOutput(); err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	for _, bin := range []string{schedlab, stripped} {
		out, err := exec.Command(bin, "run", "--resume", dir, "--json").Output()
		if err != nil || !strings.Contains(string(out), `"reused": 4`) {
			t.Errorf("resume with %s: %v\n%s", filepath.Base(bin), err, out)
		}
	}
	if jobs, _ := filepath.Glob(filepath.Join(dir, campaign.JobsDir, "*.parquet")); len(jobs) != 4 {
		t.Errorf("%d jobs files, want 4", len(jobs))
	}
}

// TestResumeEditedManifestCommand edits a campaign's manifest the ways the
// issue tracker saw users do, and reads what schedlab says.
func TestResumeEditedManifestCommand(t *testing.T) {
	m := writeManifest(t, "", `policy = ["easy"]`)
	dir := filepath.Join(t.TempDir(), "c")
	if out, err := run(t, "run", m, "--out", dir, "-q"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	edit := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(m, []byte(strings.Replace(string(b), from, to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(`policy = ["easy"]`, `policy = ["easy", "conservative"]`)
	// Without --resume: refused, with the advice that takes the edit.
	out, err := run(t, "run", m, "--out", dir)
	if exitCode(err) != exitBadInput || !strings.Contains(out, "schedlab run --resume "+m+" --out "+dir) {
		t.Errorf("run into the folder: exit %d\n%s", exitCode(err), out)
	}
	// The folder: as locked, and saying the manifest changed.
	out, err = run(t, "run", "--resume", dir)
	if err != nil || !strings.Contains(out, m+" has changed since this campaign was started") || !strings.Contains(out, "2 of 2 runs completed (2 by an earlier invocation)") {
		t.Errorf("resume the folder: %v\n%s", err, out)
	}
	// The manifest: its two new runs.
	out, err = run(t, "run", "--resume", m, "--out", dir)
	if err != nil || !strings.Contains(out, "4 of 4 runs completed (2 by an earlier invocation)") || strings.Contains(out, "not in the manifest") {
		t.Errorf("resume the grown manifest: %v\n%s", err, out)
	}
	edit(`policy = ["easy", "conservative"]`, `policy = ["conservative"]`)
	out, err = run(t, "run", "--resume", m, "--out", dir)
	if err != nil || !strings.Contains(out, "2 runs of the folder are not in the manifest as it is now") ||
		!strings.Contains(out, "no longer in the manifest\n    workload=kth policy=easy estimates=requested replicate=0, workload=nasa policy=easy") {
		t.Errorf("resume the shrunk manifest: %v\n%s", err, out)
	}
	// A change and its revert: the changed runs run again, then the
	// earlier ones are reused, and the message says which happened.
	edit("seed = 7", "seed = 8")
	out, err = run(t, "run", "--resume", m, "--out", dir)
	if err != nil || !strings.Contains(out, "changed, so run again: master_seed: 7 -> 8\n    workload=kth policy=conservative") ||
		!strings.Contains(out, "2 of 2 runs completed, 0 failed") {
		t.Errorf("resume the changed manifest: %v\n%s", err, out)
	}
	edit("seed = 8", "seed = 7")
	out, err = run(t, "run", "--resume", m, "--out", dir)
	if err != nil || !strings.Contains(out, "changed, and the folder's earlier run with the settings as they are now was reused: master_seed: 8 -> 7\n    workload=kth policy=conservative") ||
		strings.Contains(out, "so run again") || !strings.Contains(out, "2 of 2 runs completed (2 by an earlier invocation)") {
		t.Errorf("resume the reverted manifest: %v\n%s", err, out)
	}
}

// TestExperimentManifests checks every campaign shipped in experiments/ as
// run would before its first run (traces against their sha256, policies
// started, parameters), so that no published experiment rots unseen.
func TestExperimentManifests(t *testing.T) {
	var paths []string
	err := filepath.WalkDir(filepath.Join("..", "..", "experiments"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "data" {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".toml") && !strings.HasSuffix(path, "-model.toml") {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil || len(paths) < 10 {
		t.Fatalf("%d manifests found: %v", len(paths), err)
	}
	// From the repository's root, where the README runs them (a model
	// file given to the generator is relative to the working directory).
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	// A manifest naming an archive log (pwa:NAME) reads it from the cache,
	// which the shared traces folder is laid out as (NAME.swf.gz); without
	// the traces such a manifest is skipped, saying why (under CI, failed).
	traces, terr := tracedata.Dir()
	for _, p := range paths {
		rel, _ := filepath.Rel(root, must(filepath.Abs(p)))
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(src), `.py"`) {
				// A Python policy's identity needs the Python package.
				pyenv.ForTest(t)
			}
			cmd := exec.Command(schedlab, "expand", rel)
			cmd.Dir = root
			if strings.Contains(string(src), `"pwa:`) {
				if terr != nil {
					if errors.Is(terr, tracedata.ErrNotFound) && os.Getenv("CI") == "" {
						t.Skipf("names archive logs: %v", terr)
					}
					t.Fatal(terr)
				}
				cmd.Env = append(os.Environ(), pwa.EnvDir+"="+traces)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%v\n%s", err, out)
			}
		})
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// TestShortenKeepsCause: a failure's first line, cut for the console, keeps
// its start (what failed) and its end (why), whatever their length, and
// never splits a character.
func TestShortenKeepsCause(t *testing.T) {
	dir := "/scratch/" + strings.Repeat("campaigns/", 20) + "c"
	key := strings.Repeat("ab12", 16)
	for _, tc := range []struct {
		name, err string
		keep      []string
	}{
		{"no space", "results: write " + dir + "/jobs/" + key + ".parquet: fsync " + dir + "/jobs/." + key + ".parquet.tmp-4242: no space left on device",
			[]string{"results: write /scratch/", ": no space left on device"}},
		{"read-only", "open " + dir + "/status/." + key + ".json.tmp-1: read-only file system", []string{"open /scratch/", ": read-only file system"}},
		{"short", "plugin crash: deliberate panic", []string{"plugin crash: deliberate panic"}},
		{"runes", strings.Repeat("é", 400) + ": cause", []string{"éé", ": cause"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := shorten(tc.err, 300)
			if len(got) > 300 || !utf8.ValidString(got) {
				t.Errorf("%d bytes, valid UTF-8 %v: %q", len(got), utf8.ValidString(got), got)
			}
			if len(tc.err) > 300 && !strings.Contains(got, " [...] ") {
				t.Errorf("the cut is not marked: %q", got)
			}
			for _, k := range tc.keep {
				if !strings.Contains(got, k) {
					t.Errorf("%q lost %q", got, k)
				}
			}
		})
	}
}
