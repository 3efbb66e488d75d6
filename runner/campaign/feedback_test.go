package campaign

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
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

// checkFeedbackMetrics recomputes from a jobs file's columns alone the
// feedback metrics that count jobs and seconds (metrics.AddFeedback), and
// compares them with the run's summary.
func checkFeedbackMetrics(t *testing.T, path, summary string) {
	t.Helper()
	rows, x, _, err := results.ReadJobsWith(path)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(summary), &got); err != nil {
		t.Fatalf("%s: summary %q: %v", path, summary, err)
	}
	var delayed, delay, advanced, advance int64
	open := map[int64]int64{} // a session's first row: its last end
	first := make([]int64, len(rows))
	for i, r := range rows {
		f := x.Feedback[i]
		if d := r.Submit - f.TraceSubmit; d > 0 {
			delayed, delay = delayed+1, delay+d
		} else if d < 0 {
			advanced, advance = advanced+1, advance-d
		}
		first[i] = int64(i)
		if f.AfterIndex != nil {
			first[i] = first[*f.AfterIndex]
		}
		open[first[i]] = max(open[first[i]], r.End)
	}
	var length float64
	for k, end := range open {
		length += float64(end - rows[k].Submit)
	}
	want := map[string]float64{"delayed_jobs": float64(delayed), "submit_delay_total": float64(delay), "advanced_jobs": float64(advanced),
		"submit_advance_total": float64(advance), "sessions": float64(len(open)), "session_duration_mean": length / float64(len(open))}
	for k, w := range want {
		if g, ok := got[k].(float64); !ok || math.Abs(g-w) > 1e-9*max(1, math.Abs(w)) {
			t.Errorf("%s: %s %v in the summary, %v from the jobs file", path, k, got[k], w)
		}
	}
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
		checkFeedbackMetrics(t, path, meta["summary"])
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
	// runs.parquet has the counts, NULL for the replay's runs.
	cols, table, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	at := func(name string) int {
		for k, c := range cols {
			if c.Name == name {
				return k
			}
		}
		t.Fatalf("runs.parquet has no column %s", name)
		return -1
	}
	dep, wcol, sess := at("feedback_dependent"), at("workload"), at("sessions")
	for _, row := range table {
		want := any(nil)
		if row[wcol] == "kths" {
			want = int64(wl.Feedback.Count(workload.RuleDependent))
		}
		if row[dep] != want {
			t.Errorf("%v: feedback_dependent %v, want %v", row[wcol], row[dep], want)
		}
		// The feedback metrics: null for the replay; for the sessions,
		// every job not dependent opens one.
		if want != nil {
			want = int64(wl.Report.Kept - wl.Feedback.Count(workload.RuleDependent))
		}
		if row[sess] != want {
			t.Errorf("%v: sessions %v, want %v", row[wcol], row[sess], want)
		}
	}
	rerunIdentical(t, dir, filepath.Join(t.TempDir(), "again"))
	// In a subtest, which skips without DuckDB, leaving the checks above
	// their own result.
	t.Run("duckdb", func(t *testing.T) { docQueries(t, dir, "feedback", "out/feedback") })
}

// replayRows are the sha256 of the rows of the quickstart's jobs files
// (rowsSHA256) as the commit before feedback wrote them (20e6d39): a
// replay, feedback = "none", must give them still.
var replayRows = map[string]string{
	"workload=kth policy=conservative estimates=requested param.order=shortest replicate=0":  "6c1e275ffa9193b7fd571b7c633470bb738dbe20fc6d68ce577bc6f9619f0175",
	"workload=kth policy=conservative estimates=requested param.order=submit replicate=0":    "e72f5ca94d4ec678c3dc5a7a87b9dc7361668110b6a7f1db655c1a7d1c38ccaa",
	"workload=kth policy=easy estimates=requested param.order=shortest replicate=0":          "82c5b7b53cec9fe0c44486131b5fc31aadd14ee58c0601a768cf93e97260e82f",
	"workload=kth policy=easy estimates=requested param.order=submit replicate=0":            "2440cb390769213cb2a2b6c28e64278d1d98d98d137ecf4f8a7e98c30987b6ff",
	"workload=kth policy=fcfs estimates=requested param.order=shortest replicate=0":          "1bffc4105cc5c23ba27d1b6ef0caf57e227bf43cd92f85db4ed8b429a7f83f92",
	"workload=kth policy=fcfs estimates=requested param.order=submit replicate=0":            "1cff6cd6cfe966868dc7861f46a04a3083f2869660a65fdd36005e2f2c46d2f3",
	"workload=nasa policy=conservative estimates=requested param.order=shortest replicate=0": "5f660528fdf48d1f438bbaef243c95130600195259e98d3f5196aacdd882d851",
	"workload=nasa policy=conservative estimates=requested param.order=submit replicate=0":   "5f660528fdf48d1f438bbaef243c95130600195259e98d3f5196aacdd882d851",
	"workload=nasa policy=easy estimates=requested param.order=shortest replicate=0":         "cc27143ec4271aed1b570e507dc33628b3f9b5ea8441d3b17e627b8a8f2de9a1",
	"workload=nasa policy=easy estimates=requested param.order=submit replicate=0":           "415dadf19275652c98992e24a758261c8501ab423c26e272541b045564e40f0e",
	"workload=nasa policy=fcfs estimates=requested param.order=shortest replicate=0":         "45e89021e170955109594d6a0b1b399cfaaf091591d87b442baef1a0f442189c",
	"workload=nasa policy=fcfs estimates=requested param.order=submit replicate=0":           "b1408b432933f6170cfe74b173a63523b96377d3fa33cef66e5fafc3ed5e731f",
}

// rowsSHA256 hashes the rows of a jobs file, each field as text, a
// promised start by its value.
func rowsSHA256(t *testing.T, path string) string {
	t.Helper()
	rows, _, err := results.ReadJobs(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, r := range rows {
		p := int64(-1 << 62)
		if r.PromisedStart != nil {
			p = *r.PromisedStart
		}
		r.PromisedStart = nil
		fmt.Fprintf(h, "%+v %d\n", r, p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestReplayUnchanged runs the quickstart in process: every jobs file has
// the rows it had before feedback existed, and no feedback column or key.
func TestReplayUnchanged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "qs")
	rep := run(t, quickstart(t, "", allPolicies), Options{Dir: dir, InProcess: true})
	if rep.Done != len(replayRows) {
		t.Fatalf("%d runs done, want %d", rep.Done, len(replayRows))
	}
	names, _ := filepath.Glob(filepath.Join(dir, JobsDir, "*.parquet"))
	for _, path := range names {
		meta, err := results.ReadMetadata(path)
		if err != nil {
			t.Fatal(err)
		}
		label := meta["run.label"]
		if got := rowsSHA256(t, path); got != replayRows[label] {
			t.Errorf("%s: rows sha256 %s, before feedback %s", label, got, replayRows[label])
		}
		if _, x, _, err := results.ReadJobsWith(path); err != nil || x.Feedback != nil || meta["workload.feedback"] != "" {
			t.Errorf("%s: feedback columns or keys in a replay (%v)", label, err)
		}
	}
}
