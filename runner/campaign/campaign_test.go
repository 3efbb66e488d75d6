package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/duckcheck"
	"github.com/schedlab/schedlab/plugins/reference"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/serve"
)

// servePluginEnv makes this test binary serve a reference policy, so that
// campaigns in these tests start real plugin processes, as the schedlab
// binary does with `schedlab plugin serve NAME`.
const servePluginEnv = "SCHEDLAB_CAMPAIGN_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(servePluginEnv) == "1" {
		p, ok := reference.Lookup(os.Args[len(os.Args)-1])
		if !ok {
			fmt.Fprintln(os.Stderr, "no reference policy", os.Args[len(os.Args)-1])
			os.Exit(2)
		}
		serve.Serve(p)
		os.Exit(0)
	}
	// Children inherit the environment: they serve instead of testing.
	os.Setenv(servePluginEnv, "1")
	os.Exit(m.Run())
}

func testResolver(t testing.TB) runner.Resolver {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return runner.Resolver{SelfCommand: []string{self}, CacheDir: filepath.Join(t.TempDir(), "cache")}
}

// dataDir is the repository's shipped traces.
var dataDir, _ = filepath.Abs(filepath.Join("..", "..", "experiments", "data"))

const (
	kthSHA  = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"
	nasaSHA = "9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76"
)

// quickstart is a campaign over the shipped traces; extra is appended
// to the [matrix] table.
func quickstart(t testing.TB, policies, extra string) *manifest.Manifest {
	t.Helper()
	src := fmt.Sprintf(`[campaign]
seed = 42
[workloads.kth]
trace = %q
sha256 = %q
[workloads.nasa]
trace = %q
sha256 = %q
[policies.fcfs]
ref = "fcfs"
[policies.easy]
ref = "easy"
[policies.conservative]
ref = "conservative"
%s
[matrix]
workload = ["kth", "nasa"]
%s
`, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA, filepath.Join(dataDir, "NASA-iPSC-1993-3.1-cln.swf.gz"), nasaSHA, policies, extra)
	return loadManifest(t, src)
}

// loadManifest writes src as a manifest in a temporary folder and loads it.
func loadManifest(t testing.TB, src string) *manifest.Manifest {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const allPolicies = `policy = ["fcfs", "easy", "conservative"]
"param.order" = ["submit", "shortest"]`

func run(t testing.TB, m *manifest.Manifest, opts Options) *Report {
	t.Helper()
	if opts.Resolver.SelfCommand == nil {
		opts.Resolver = testResolver(t)
	}
	rep, err := Run(context.Background(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// rerunIdentical reruns the campaign in dir from its lock file, in-process,
// into again, and checks that every run gives identical files.
func rerunIdentical(t *testing.T, dir, again string) {
	t.Helper()
	lock, err := manifest.Load(filepath.Join(dir, LockFile))
	if err != nil {
		t.Fatal(err)
	}
	run(t, lock, Options{Dir: again, InProcess: true})
	diffs, err := Compare(dir, again)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		if !d.Identical {
			t.Errorf("rerun %s: %s", d.Label, d.What)
		}
	}
}

// jobFiles returns the content of every jobs file of a campaign, by name.
func jobFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, JobsDir, "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = b
	}
	return out
}

// TestDeterministicFiles runs one campaign five times: with plugin
// processes reused across runs on one worker and on two, with processes
// reused at most twice, with a fresh process per run, and in-process. Every
// jobs file must be byte-identical across the five.
func TestDeterministicFiles(t *testing.T) {
	m := quickstart(t, "", allPolicies)
	var dirs []string
	for _, d := range []string{"a", "b", "c", "d", "e"} {
		dirs = append(dirs, filepath.Join(t.TempDir(), d))
	}
	reps := []*Report{
		run(t, m, Options{Dir: dirs[0], Workers: 1}),
		run(t, m, Options{Dir: dirs[1], Workers: 2}),
		run(t, m, Options{Dir: dirs[2], Workers: 2, ProcessRuns: 2}),
		run(t, m, Options{Dir: dirs[3], Workers: 2, FreshProcesses: true}),
		run(t, m, Options{Dir: dirs[4], Workers: 2, InProcess: true}),
	}
	for i, rep := range reps {
		if rep.Total != 12 || rep.Done != 12 || rep.Failed != 0 || rep.Pending != 0 {
			t.Fatalf("campaign %d: %+v", i, rep)
		}
	}
	// A campaign without a power model writes no power folder.
	if _, err := os.Stat(filepath.Join(dirs[0], PowerDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a campaign without a power model has a %s folder (%v)", PowerDir, err)
	}
	want := jobFiles(t, dirs[0])
	if len(want) != 12 {
		t.Fatalf("%d jobs files, want 12", len(want))
	}
	for _, dir := range dirs[1:] {
		got := jobFiles(t, dir)
		for name, b := range want {
			if !bytes.Equal(got[name], b) {
				t.Errorf("%s/%s differs from %s/%s", dir, name, dirs[0], name)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d files, want %d", dir, len(got), len(want))
		}
	}
	// The transport and the process are in runs.parquet, not in the jobs
	// files. On one worker, each of the 3 policies' processes serves its 4
	// runs (2 traces x 2 orders); with at most 2 runs per process, none
	// serves a third; a fresh process serves one.
	if reps[0].Runs[0].Transport != "plugin" || reps[4].Runs[0].Transport != "in-process" {
		t.Errorf("transports %q %q", reps[0].Runs[0].Transport, reps[4].Runs[0].Transport)
	}
	for k, want := range []int{4, 0, 2, 1, 0} {
		most := 0
		for _, r := range reps[k].Runs {
			most = max(most, r.ProcessRun)
		}
		if k != 1 && most != want {
			t.Errorf("campaign %d: the busiest process served %d runs, want %d", k, most, want)
		}
	}
}

// TestRunsTable checks runs.parquet against the report and the jobs files.
func TestRunsTable(t *testing.T) {
	m := quickstart(t, "", allPolicies)
	dir := t.TempDir()
	rep := run(t, m, Options{Dir: dir, InProcess: true})
	cols, rows, meta, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 12 {
		t.Fatalf("%d rows", len(rows))
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	for _, need := range []string{"run_key", "workload", "policy", "estimates", "param_order", "replicate", "seed",
		"status", "error", "mean_wait", "mean_bsld", "utilisation", "policy_sha256", "workload_sha256", "wall_seconds"} {
		if _, ok := idx[need]; !ok {
			t.Errorf("no column %s", need)
		}
	}
	for _, grid := range []string{"global_mean_wait", "local_jobs", "refusals", "cluster_utilisation"} {
		if _, ok := idx[grid]; ok {
			t.Errorf("column %s in a campaign without a grid", grid)
		}
	}
	for i, row := range rows {
		r := rep.Runs[i]
		key := row[idx["run_key"]].(string)
		if key != r.Key || row[idx["status"]] != StatusOK || row[idx["error"]] != nil {
			t.Errorf("row %d: key %s status %v error %v", i, key, row[idx["status"]], row[idx["error"]])
		}
		if row[idx["policy"]] != r.Axes["policy"] || row[idx["param_order"]] != r.Axes["param.order"] {
			t.Errorf("row %d: axes %v %v, want %v", i, row[idx["policy"]], row[idx["param_order"]], r.Axes)
		}
		jobs, jmeta, err := results.ReadJobs(JobsPath(dir, key))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(jobs)) != row[idx["jobs"]].(int64) {
			t.Errorf("row %d: %d jobs in the file, %v in runs.parquet", i, len(jobs), row[idx["jobs"]])
		}
		var wait float64
		for _, j := range jobs {
			wait += float64(j.Wait)
		}
		if mw := row[idx["mean_wait"]].(float64); abs(mw-wait/float64(len(jobs))) > 1e-6*max(1, mw) {
			t.Errorf("row %d: mean_wait %v, jobs file says %v", i, mw, wait/float64(len(jobs)))
		}
		for _, k := range []string{"schedlab.version", "vcs.revision", "go.version", "host", "policy.sha256",
			"policy.name", "policy.version", "policy.sdk_version", "workload.sha256", "run.key", "seed", "run.spec"} {
			if jmeta[k] == "" {
				t.Errorf("jobs file of row %d: no provenance key %s", i, k)
			}
		}
		if jmeta["run.key"] != key || jmeta["seed"] != fmt.Sprint(r.Seed) {
			t.Errorf("row %d: provenance key %s seed %s", i, jmeta["run.key"], jmeta["seed"])
		}
	}
	if meta["campaign.ok"] != "12" {
		t.Errorf("runs.parquet metadata %v", meta)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err != nil {
		t.Error(err)
	}
	duckCheck(t, dir, 12, 12, 0)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestExistingFolder checks that a campaign never overwrites another by
// mistake.
func TestExistingFolder(t *testing.T) {
	m := quickstart(t, "", `policy = ["easy"]`)
	dir := t.TempDir()
	run(t, m, Options{Dir: dir, InProcess: true})
	_, err := Run(context.Background(), m, Options{Dir: dir, InProcess: true, Resolver: testResolver(t)})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("second run into the same folder: %v", err)
	}
	rep := run(t, m, Options{Dir: dir, InProcess: true, Overwrite: true})
	if rep.Done != 2 || rep.Reused != 0 {
		t.Errorf("overwrite: %+v", rep)
	}
	rep = run(t, m, Options{Dir: dir, InProcess: true, Resume: true})
	if rep.Done != 2 || rep.Reused != 2 {
		t.Errorf("resume of a complete campaign: %+v", rep)
	}
	if _, err := Run(context.Background(), m, Options{Dir: t.TempDir(), Resume: true, Resolver: testResolver(t)}); err == nil ||
		!strings.Contains(err.Error(), "no campaign to resume") {
		t.Errorf("resume of an empty folder: %v", err)
	}
}

// TestInterruptAndResume cancels a campaign after a few runs, then
// resumes it from its lock file: every run must end up done exactly once,
// the completed ones reused, and the files equal to an uninterrupted
// campaign's.
func TestInterruptAndResume(t *testing.T) {
	m := quickstart(t, "", allPolicies)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ended atomic.Int32
	rep, err := Run(ctx, m, Options{Dir: dir, Workers: 2, Resolver: testResolver(t), Progress: func(p Progress) {
		if ended.Add(1) == 4 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || rep.Done < 4 || rep.Done == 12 || rep.Done+rep.Pending != 12 {
		t.Fatalf("interrupted campaign: done %d pending %d interrupted %v", rep.Done, rep.Pending, rep.Interrupted)
	}
	doneBefore := rep.Done
	if n := len(jobFiles(t, dir)); n != doneBefore {
		t.Errorf("%d jobs files after the interrupt, %d runs done", n, doneBefore)
	}
	_, rows, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil || len(rows) != 12 {
		t.Fatalf("runs.parquet after the interrupt: %d rows, %v", len(rows), err)
	}

	lock, err := manifest.Load(filepath.Join(dir, LockFile))
	if err != nil {
		t.Fatal(err)
	}
	var executed []int
	rep2 := run(t, lock, Options{Dir: dir, Workers: 2, Resume: true, Progress: func(p Progress) {
		if !p.Last.Reused {
			executed = append(executed, p.Last.Index)
		}
	}})
	if rep2.Done != 12 || rep2.Reused != doneBefore || len(executed) != 12-doneBefore {
		t.Fatalf("resume: done %d reused %d executed %v (done before %d)", rep2.Done, rep2.Reused, executed, doneBefore)
	}
	for i, r := range rep.Runs {
		if r.Status == StatusOK && slices.Contains(executed, i) {
			t.Errorf("run %d ran twice", i)
		}
		if r.Key != rep2.Runs[i].Key {
			t.Errorf("run %d: key %s before, %s from the lock", i, r.Key, rep2.Runs[i].Key)
		}
	}
	ref := filepath.Join(t.TempDir(), "ref")
	run(t, m, Options{Dir: ref, InProcess: true})
	want, got := jobFiles(t, ref), jobFiles(t, dir)
	if len(got) != 12 {
		t.Errorf("%d jobs files after resuming", len(got))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s differs from the uninterrupted campaign's", name)
		}
	}
}

// TestResumeChecksJobsFiles: a resume runs again a completed run whose jobs
// file was truncated (the sha256 of its status file does not match), and
// one whose status file predates the sha256 and whose file does not read as
// Parquet; the files it writes are those of the uninterrupted campaign.
func TestResumeChecksJobsFiles(t *testing.T) {
	m := quickstart(t, "", `policy = ["easy"]`)
	dir := t.TempDir()
	rep := run(t, m, Options{Dir: dir, InProcess: true})
	want := jobFiles(t, dir)
	damaged := map[string]bool{}
	for k, r := range rep.Runs {
		path := JobsPath(dir, r.Key)
		if err := os.Truncate(path, 100); err != nil {
			t.Fatal(err)
		}
		damaged[r.Key] = true
		if k == 1 {
			// A status file as written before jobs_sha256 existed.
			sp := statusPath(dir, r.Key)
			b, err := os.ReadFile(sp)
			if err != nil {
				t.Fatal(err)
			}
			if b = regexp.MustCompile(`(?m)^\s*"jobs_sha256": "[0-9a-f]+",\n`).ReplaceAll(b, nil); bytes.Contains(b, []byte("jobs_sha256")) {
				t.Fatal("the status file still has its sha256")
			}
			if err := os.WriteFile(sp, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	lock, err := manifest.Load(filepath.Join(dir, LockFile))
	if err != nil {
		t.Fatal(err)
	}
	var rerun []string
	rep2 := run(t, lock, Options{Dir: dir, Resume: true, InProcess: true, Progress: func(p Progress) {
		if !p.Last.Reused {
			rerun = append(rerun, p.Last.Key)
		}
	}})
	if rep2.Done != 2 || len(rerun) != 2 {
		t.Fatalf("resume: done %d, ran again %d of the 2 damaged runs", rep2.Done, len(rerun))
	}
	got := jobFiles(t, dir)
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s differs from the uninterrupted campaign's after the resume", name)
		}
	}
}

// TestLockBeforeAnyRun: a campaign stopped before any run completed (its
// only worker stuck in a hanging plugin) leaves a lock that records what
// every policy said of itself; a lock of the old kind, without it, is
// completed by a resume.
func TestLockBeforeAnyRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	td, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	m := quickstart(t, fmt.Sprintf("[policies.hang]\nref = %q\n", filepath.Join(td, "hang")), `policy = ["hang", "easy"]`)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Stop as soon as the lock exists: the hanging run is the first.
		for {
			if _, err := os.Stat(filepath.Join(dir, LockFile)); err == nil {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	rep, err := Run(ctx, m, Options{Dir: dir, Workers: 1, Resolver: testResolver(t)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Done != 0 || !rep.Interrupted {
		t.Fatalf("done %d, interrupted %v: the test needs a campaign stopped before any run", rep.Done, rep.Interrupted)
	}
	complete := func(when string) {
		t.Helper()
		lock, err := manifest.Load(filepath.Join(dir, LockFile))
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]string{"hang": "hang", "easy": "easy"} {
			lp := lock.Lock.Policies[name]
			if lp.Name != want || lp.Version == "" || lp.SDK != sdk.Version || lp.SHA256 == "" {
				t.Errorf("%s: the lock records %s as %+v", when, name, lp)
			}
		}
	}
	complete("after the interrupt")

	// A lock as an older schedlab left it after a kill: no names.
	path := filepath.Join(dir, LockFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte("[lock.policies."))
	old := append(b[:at:at], regexp.MustCompile(`(?m)^(name|version|sdk) = ".*"$`).ReplaceAll(b[at:], []byte(`$1 = ""`))...)
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	lock, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m2 := *lock
	m2.Policies = maps.Clone(lock.Policies)
	delete(m2.Policies, "hang") // resume only what does not hang
	m2.Matrix.Axes[1].Values = []string{"easy"}
	source := lock.Lock.Source
	if _, err := Run(context.Background(), &m2, Options{Dir: dir, Workers: 1, Resume: true, Resolver: testResolver(t)}); err != nil {
		t.Fatal(err)
	}
	lock, err = manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if lp := lock.Lock.Policies["easy"]; lp.Name != "easy" || lp.SDK != sdk.Version {
		t.Errorf("the resume left the lock's easy as %+v", lp)
	}
	if lock.Lock.Source != source {
		t.Errorf("the resume changed the lock's source from %q to %q", source, lock.Lock.Source)
	}
}

// TestBadPlugins runs plugins that panic, exit, hang, return an infeasible
// schedule and flood their standard error next to a good policy: each fails
// only its own runs, with the reason in runs.parquet, and the good runs and
// the flood's complete, its log bounded. (A plugin that cannot start fails
// the campaign before its first run: TestInputErrors.)
func TestBadPlugins(t *testing.T) {
	if testing.Short() {
		t.Skip("builds six plugins")
	}
	td, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	var pols strings.Builder
	bad := []string{"crash", "exit", "hang", "infeasible", "flood"}
	for _, name := range bad {
		fmt.Fprintf(&pols, "[policies.%s]\nref = %q\n", name, filepath.Join(td, name))
	}
	m := quickstart(t, pols.String(), `policy = ["easy", "crash", "exit", "hang", "infeasible", "flood"]`)
	m.Campaign.Timeout, m.Campaign.TimeoutSet = 3e9, true
	dir := t.TempDir()
	rep := run(t, m, Options{Dir: dir, Workers: 2})
	if rep.Done != 4 || rep.Failed != 8 {
		t.Fatalf("done %d failed %d, want 4 (easy, flood) and 8", rep.Done, rep.Failed)
	}
	// The flood's runs completed with logs of LogLimit bytes and a note.
	for _, r := range rep.Runs {
		if r.Axes["policy"] != "flood" {
			continue
		}
		st, err := os.Stat(filepath.Join(dir, r.Log))
		if r.Log == "" || err != nil || st.Size() < LogLimit || st.Size() > LogLimit+200 {
			t.Errorf("flood %s: log %q, %v, %v", r.Label, r.Log, st, err)
		}
	}
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	want := map[string]string{"crash": "policy crash panicked: crash plugin: deliberate panic on call 3",
		"exit": "exit status 3", "hang": "timeout", "infeasible": "are free"}
	for _, row := range rows {
		pol, status := row[idx["policy"]].(string), row[idx["status"]].(string)
		if pol == "easy" || pol == "flood" {
			if status != StatusOK {
				t.Errorf("easy: %s %v", status, row[idx["error"]])
			}
			continue
		}
		msg, _ := row[idx["error"]].(string)
		if status != StatusFailed || !strings.Contains(msg, want[pol]) {
			t.Errorf("%s: status %s error %q, want failed with %q", pol, status, msg, want[pol])
		}
	}
	got := jobFiles(t, dir)
	if len(got) != 4 {
		t.Errorf("%d jobs files, want 4 (failed runs write none)", len(got))
	}
	duckCheck(t, dir, 12, 4, 8)
	// The good runs are those of a campaign without the bad plugins (their
	// records; the provenance differs by the run's index).
	clean := filepath.Join(t.TempDir(), "clean")
	run(t, quickstart(t, "", `policy = ["easy"]`), Options{Dir: clean, Workers: 2})
	for name := range jobFiles(t, clean) {
		want, _, err := results.ReadJobs(filepath.Join(clean, JobsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		rows, _, err := results.ReadJobs(filepath.Join(dir, JobsDir, name))
		if err != nil || !reflect.DeepEqual(rows, want) {
			t.Errorf("%s: the good run's records differ from a clean campaign's (%v)", name, err)
		}
	}
}

// duckCheck reads a campaign folder with DuckDB (.ci/duckdb/campaign.mjs):
// runs.parquet's rows, each completed run's jobs file against its row
// count, and the provenance keys of every file.
func duckCheck(t *testing.T, dir string, runs, ok, failed int) {
	t.Helper()
	out := duckcheck.Script(t, "campaign.mjs")(dir, "--runs", strconv.Itoa(runs))
	var got struct{ Runs, OK, Failed int }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("campaign.mjs: %v\n%s", err, out)
	}
	if got.Runs != runs || got.OK != ok || got.Failed != failed {
		t.Errorf("DuckDB sees %d runs, %d ok, %d failed; want %d, %d, %d", got.Runs, got.OK, got.Failed, runs, ok, failed)
	}
}

// TestFailFast stops after the first failure and leaves the rest pending.
func TestFailFast(t *testing.T) {
	td, err := filepath.Abs(filepath.Join("..", "testdata", "crash"))
	if err != nil {
		t.Fatal(err)
	}
	m := quickstart(t, fmt.Sprintf("[policies.crash]\nref = %q\n", td), `policy = ["crash", "easy", "fcfs", "conservative"]`)
	rep := run(t, m, Options{Dir: t.TempDir(), Workers: 1, FailFast: true})
	if rep.Failed != 1 || rep.Pending == 0 || rep.Done+rep.Failed+rep.Pending != 8 {
		t.Errorf("fail-fast: done %d failed %d pending %d", rep.Done, rep.Failed, rep.Pending)
	}
}

// TestCompare reruns a campaign and compares; then it alters one jobs file
// and expects Compare to find it.
func TestCompare(t *testing.T) {
	m := quickstart(t, "", `policy = ["easy", "fcfs"]`)
	a, b := t.TempDir(), t.TempDir()
	run(t, m, Options{Dir: a, InProcess: true})
	rerunIdentical(t, a, b)
	// Change one job of one run.
	files, _ := filepath.Glob(filepath.Join(b, JobsDir, "*.parquet"))
	slices.Sort(files)
	path := files[0]
	rows, meta, err := results.ReadJobs(path)
	if err != nil {
		t.Fatal(err)
	}
	rows[5].Start++
	if err := results.WriteJobs(path, rows, meta); err != nil {
		t.Fatal(err)
	}
	diffs, err := Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range diffs {
		if !d.Identical {
			n++
			if !strings.Contains(d.What, "1 of") || !strings.Contains(d.What, fmt.Sprintf("job %d: start", rows[5].JobID)) {
				t.Errorf("diff %q", d.What)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d runs differ, want 1", n)
	}
}

// TestPolicyCounts: the counts a policy keeps (sdk.Counter) reach each
// run's status and its jobs file's provenance, the same through a plugin
// process (the stats frame) as in process. groupsel's rank approach with
// a budget of 64 paths stops at many calls on KTH-SP2.
func TestPolicyCounts(t *testing.T) {
	m := quickstart(t, `[policies.groupsel]
ref = "groupsel"
params = { method = "rank", max_paths = 64, window = 12 }`, `policy = ["easy", "groupsel"]`)
	counts := map[string]string{}
	for _, inProcess := range []bool{false, true} {
		dir := t.TempDir()
		rep := run(t, m, Options{Dir: dir, InProcess: inProcess})
		for _, r := range rep.Runs {
			_, meta, err := results.ReadJobs(JobsPath(dir, r.Key))
			if err != nil {
				t.Fatal(err)
			}
			prov, ok := meta["stats.policy_counts"]
			if r.Policy.Name != "groupsel" {
				if r.PolicyCounts != nil || ok {
					t.Errorf("%s: counts %v, provenance %q: want none for a policy that keeps none", r.Label, r.PolicyCounts, prov)
				}
				continue
			}
			// NASA-iPSC's jobs fit as they come: no search there.
			if r.PolicyCounts == nil || !ok || strings.Contains(r.Label, "kth") && r.PolicyCounts["limit_hits"] == 0 {
				t.Fatalf("%s (in process %v): counts %v, provenance %q: want the stopped searches counted", r.Label, inProcess, r.PolicyCounts, prov)
			}
			if want, seen := counts[r.Label]; seen && want != prov {
				t.Errorf("%s: counts %s in process, %s through the plugin", r.Label, prov, want)
			}
			counts[r.Label] = prov
		}
	}
	if len(counts) != 2 {
		t.Errorf("counts of %d groupsel runs, want 2", len(counts))
	}
}
