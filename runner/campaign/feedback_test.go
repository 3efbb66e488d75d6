package campaign

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/workload"
)

// checkFeedbackFile checks a jobs file of a run with feedback from its
// columns alone, with no code of the engine or the verification: a job
// that depends on another is submitted exactly its think time after that
// job's end, which comes before it, and starts no earlier; any other job is
// submitted at its trace time; waits count from the submission. It
// returns the number of dependent jobs and of those submitted after their
// trace time.
func checkFeedbackFile(t *testing.T, path string) (dependent, later int) {
	t.Helper()
	rows, x, _, err := results.ReadJobsWith(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Feedback) != len(rows) {
		t.Fatalf("%s: %d feedback rows for %d jobs", path, len(x.Feedback), len(rows))
	}
	for i, r := range rows {
		f := x.Feedback[i]
		want := f.TraceSubmit
		if f.AfterIndex != nil {
			a := *f.AfterIndex
			if a < 0 || a >= int64(i) || f.ThinkTime == nil || *f.ThinkTime < 0 {
				t.Fatalf("%s: job %d depends on row %d with think time %v", path, r.JobID, a, f.ThinkTime)
			}
			want = rows[a].End + *f.ThinkTime
			dependent++
		}
		if r.Submit != want || r.Start < r.Submit || r.Wait != r.Start-r.Submit {
			t.Fatalf("%s: job %d submitted at %d (want %d), starts at %d, waits %d", path, r.JobID, r.Submit, want, r.Start, r.Wait)
		}
		if r.Submit > f.TraceSubmit {
			later++
		}
	}
	return dependent, later
}

// TestFeedbackCampaign runs KTH-SP2 replayed and with inferred sessions
// under FCFS, EASY and conservative backfilling, as plugin processes: the
// replay's files have no feedback column nor key, the sessions' files pass
// the check above and record the setting and its counts, and the campaign
// reruns in process identically.
func TestFeedbackCampaign(t *testing.T) {
	m := loadManifest(t, fmt.Sprintf(`[campaign]
seed = 40
[workloads.kth]
trace = %q
sha256 = %q
[workloads.kths]
trace = %q
sha256 = %q
feedback = "sessions"
[policies.fcfs]
ref = "fcfs"
[policies.easy]
ref = "easy"
[policies.conservative]
ref = "conservative"
[matrix]
workload = ["kth", "kths"]
policy = ["fcfs", "easy", "conservative"]
`, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA))
	dir := filepath.Join(t.TempDir(), "c")
	rep := run(t, m, Options{Dir: dir, Workers: 2})
	if rep.Failed > 0 || rep.Done != 6 {
		t.Fatalf("%d done, %d failed: %+v", rep.Done, rep.Failed, rep.Runs)
	}
	wl, err := workload.LoadSWFWith(filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), 0, workload.Clean{}, workload.Feedback{Mode: workload.FeedbackSessions})
	if err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, JobsDir, "*.parquet"))
	for _, path := range names {
		meta, err := results.ReadMetadata(path)
		if err != nil {
			t.Fatal(err)
		}
		_, x, _, err := results.ReadJobsWith(path)
		if err != nil {
			t.Fatal(err)
		}
		label := meta["run.label"]
		if meta["workload.name"] == "kth" {
			if x.Feedback != nil || meta["workload.feedback"] != "" || meta["workload.feedback.counts"] != "" {
				t.Errorf("%s: a replay with feedback columns or keys", label)
			}
			continue
		}
		dependent, later := checkFeedbackFile(t, path)
		if want := wl.Feedback.Count(workload.RuleDependent); dependent != want || later == 0 {
			t.Errorf("%s: %d dependent jobs (the workload says %d), %d submitted after their trace time", label, dependent, want, later)
		}
		var counts []workload.Count
		if err := json.Unmarshal([]byte(meta["workload.feedback.counts"]), &counts); err != nil || len(counts) != 9 {
			t.Errorf("%s: workload.feedback.counts %q: %v", label, meta["workload.feedback.counts"], err)
		}
		if meta["workload.feedback"] != "sessions" || meta["workload.session-threshold"] != "1200" || meta["workload.unknown-wait"] != "no-end" {
			t.Errorf("%s: feedback keys %q, %q", label, meta["workload.feedback"], meta["workload.session-threshold"])
		}
	}
	rerunIdentical(t, dir, filepath.Join(t.TempDir(), "again"))
	// In a subtest, which skips without DuckDB, leaving the checks above
	// their own result.
	t.Run("duckdb", func(t *testing.T) { docQueries(t, dir, "feedback", "out/feedback") })
}
