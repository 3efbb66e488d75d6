package workload_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/swf"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// fbRec is a record of the feedback tests: job number, submit, wait, run
// time, user, preceding job (field 17) and think time (field 18); one
// processor, a walltime of an hour.
func fbRec(id, submit, wait, run, user, precede, think int64) swf.Record {
	return swf.Record{JobNumber: id, Submit: submit, Wait: wait, RunTime: run, AllocProcs: 1, ReqProcs: 1, ReqTime: 3600,
		User: user, Group: -1, App: -1, Queue: -1, Partition: -1, PrecedingJob: precede, ThinkTime: think}
}

// deps returns, for each job of w by ID, "ID<-PRED+THINK", or "ID" for a
// job that depends on none.
func deps(w *workload.Workload) []string {
	var out []string
	for _, in := range w.Jobs {
		s := fmt.Sprint(in.Job.ID)
		if in.After != 0 {
			s += fmt.Sprintf("<-%d+%d", w.Jobs[in.After-1].Job.ID, in.Think)
		}
		out = append(out, s)
	}
	return out
}

func fbCounts(r workload.FeedbackReport) map[string]int {
	m := map[string]int{}
	for _, c := range r.Counts {
		if c.Jobs > 0 {
			m[c.Rule] = c.Jobs
		}
	}
	return m
}

// sessionRecs, worked by hand (threshold 1200 s). User 1: job 1 runs
// 0-100; job 2, submitted at 200, depends on it (think 100); job 3,
// submitted at 250 while job 2 runs (200-300), depends on job 1 too, the
// latest end by then (think 150); job 4, at 5000, comes 4650 s after the
// latest end (job 3's, 350): a session break; job 5, at 5100, the instant
// job 4 ends, depends on it with think time 0. User 2: job 6 (10 s, run
// time 0) is dropped by the cleaning; job 7, at 20, would depend on it: a
// dropped predecessor. Job 8's user is unknown.
func sessionRecs() []swf.Record {
	return []swf.Record{
		fbRec(1, 0, 0, 100, 1, -1, -1),
		fbRec(6, 10, 0, 0, 2, -1, -1),
		fbRec(7, 20, 0, 50, 2, -1, -1),
		fbRec(8, 30, 0, 50, -1, -1, -1),
		fbRec(2, 200, 0, 100, 1, -1, -1),
		fbRec(3, 250, 0, 100, 1, -1, -1),
		fbRec(4, 5000, 0, 100, 1, -1, -1),
		fbRec(5, 5100, 5, 100, 1, -1, -1),
	}
}

// swfRecs, worked by hand: job 1 depends on none; job 2 on job 1 with
// think time 30; job 3 on job 2 with an unknown think time, so the
// trace's gap, 300 - 250 = 50; job 4 on job 99, which the trace does not
// have; jobs 5 and 6 on each other, a cycle: 5's predecessor comes after
// it (forward), 6 depends on 5 (think 0); job 7 (run time 0) is dropped, so
// job 8, which depends on it, is on its own; job 9 depends on itself.
func swfRecs() []swf.Record {
	return []swf.Record{
		fbRec(1, 0, 0, 100, 1, -1, -1),
		fbRec(2, 150, 0, 100, 1, 1, 30),
		fbRec(3, 300, 0, 100, 1, 2, -1),
		fbRec(4, 400, 0, 10, 1, 99, 5),
		fbRec(5, 450, 0, 10, 1, 6, 5),
		fbRec(6, 500, 0, 10, 1, 5, 0),
		fbRec(7, 600, 0, 0, 1, -1, -1),
		fbRec(8, 700, 0, 10, 1, 7, 5),
		fbRec(9, 800, 0, 10, 1, 9, 5),
	}
}

func TestFeedbackHandWorked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		recs   []swf.Record
		fb     workload.Feedback
		deps   []string // by job index
		counts map[string]int
	}{
		{"none", sessionRecs(), workload.Feedback{}, []string{"1", "7", "8", "2", "3", "4", "5"}, map[string]int{}},
		{"sessions", sessionRecs(), workload.Feedback{Mode: workload.FeedbackSessions},
			[]string{"1", "7", "8", "2<-1+100", "3<-1+150", "4", "5<-4+0"},
			map[string]int{"dependent": 3, "no-predecessor": 1, "unknown-user": 1, "session-break": 1, "dropped-predecessor": 1}},
		// With a threshold of 150 s, job 2's gap (100) keeps its
		// dependency and job 3's (150) breaks the session.
		{"sessions, 150 s", sessionRecs(), workload.Feedback{Mode: workload.FeedbackSessions, Threshold: 150},
			[]string{"1", "7", "8", "2<-1+100", "3", "4", "5<-4+0"},
			map[string]int{"dependent": 2, "no-predecessor": 1, "unknown-user": 1, "session-break": 2, "dropped-predecessor": 1}},
		// The trace's fields 17 and 18 say nothing here.
		{"swf without fields 17 and 18", sessionRecs(), workload.Feedback{Mode: workload.FeedbackSWF},
			[]string{"1", "7", "8", "2", "3", "4", "5"}, map[string]int{"no-predecessor": 7}},
		{"swf", swfRecs(), workload.Feedback{Mode: workload.FeedbackSWF},
			[]string{"1", "2<-1+30", "3<-2+50", "4", "5", "6<-5+0", "8", "9"},
			map[string]int{"dependent": 3, "think-time-unknown": 1, "no-predecessor": 1, "missing-predecessor": 1,
				"forward-predecessor": 2, "dropped-predecessor": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := workload.FromRecordsWith("t", tc.recs, 4, workload.Clean{}, tc.fb)
			if err != nil {
				t.Fatal(err)
			}
			if got := deps(w); !slices.Equal(got, tc.deps) {
				t.Errorf("dependencies %v, want %v", got, tc.deps)
			}
			got := fbCounts(w.Feedback)
			if fmt.Sprint(got) != fmt.Sprint(tc.counts) {
				t.Errorf("counts %v, want %v", got, tc.counts)
			}
			// Every kept job is counted once by the rules that say
			// whether it depends (all but think-time-unknown).
			if tc.fb.Mode != "" {
				sum := 0
				for _, c := range w.Feedback.Counts {
					if c.Rule != workload.RuleThinkTimeUnknown && c.Rule != workload.RuleWaitUnknown {
						sum += c.Jobs
					}
				}
				if sum != len(w.Jobs) || len(w.Feedback.Counts) != 9 {
					t.Errorf("rules count %d jobs in %d rules, the workload has %d", sum, len(w.Feedback.Counts), len(w.Jobs))
				}
			}
			// The jobs keep their trace submit times.
			for _, in := range w.Jobs {
				for _, r := range tc.recs {
					if r.JobNumber == in.Job.ID && r.Submit != in.Job.Submit {
						t.Errorf("job %d: submit %d, the trace says %d", in.Job.ID, in.Job.Submit, r.Submit)
					}
				}
			}
		})
	}
}

func TestFeedbackSettings(t *testing.T) {
	for _, tc := range []struct {
		fb   workload.Feedback
		want string // settings, or the error
	}{
		{workload.Feedback{}, "map[]"},
		{workload.Feedback{Mode: "none"}, "map[]"},
		{workload.Feedback{Mode: "swf"}, "map[feedback:swf unknown-wait:no-end]"},
		{workload.Feedback{Mode: "sessions"}, "map[feedback:sessions session-threshold:1200 unknown-wait:no-end]"},
		{workload.Feedback{Mode: "sessions", Threshold: 600, UnknownWait: "zero"}, "map[feedback:sessions session-threshold:600 unknown-wait:zero]"},
		{workload.Feedback{Mode: "sessions", UnknownWait: "0"}, `unknown-wait: value "0": allowed are no-end, zero`},
		{workload.Feedback{UnknownWait: "zero"}, "unknown-wait: set under feedback=none"},
		{workload.Feedback{Mode: "session"}, `feedback: value "session": allowed are none, swf, sessions`},
		{workload.Feedback{Mode: "swf", Threshold: 60}, "session-threshold: set under feedback=swf, which has no sessions"},
		{workload.Feedback{Mode: "sessions", Threshold: -1}, "session-threshold: -1 s"},
	} {
		r, err := tc.fb.Resolved()
		got := fmt.Sprint(r.Settings())
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%+v: %s, want %s", tc.fb, got, tc.want)
		}
	}
	if _, err := workload.FromRecordsWith("t", swfRecs(), 4, workload.Clean{}, workload.Feedback{Mode: "sesions"}); err == nil ||
		!strings.Contains(err.Error(), `t: feedback: value "sesions"`) {
		t.Errorf("a bad mode: %v", err)
	}
}

// TestRealTraceFeedback loads every shared trace with the default cleaning
// under feedback = sessions and swf: every kept job is counted by one rule,
// and with -v it prints, per trace, the jobs each rule counts, the table
// of docs/semantics.md:
//
//	go test ./workload -run 'TestRealTraceFeedback$' -v
func TestRealTraceFeedback(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: loads every shared trace twice")
	}
	var rows []string
	tracedata.EachForTest(t, func(t *testing.T, s tracedata.Source) {
		p, err := tracedata.Path(s.File)
		if err != nil {
			t.Fatal(err)
		}
		row := []string{strings.TrimSuffix(s.File, ".swf.gz")}
		for _, f := range []workload.Feedback{{Mode: workload.FeedbackSessions}, {Mode: workload.FeedbackSessions, UnknownWait: workload.WaitZero},
			{Mode: workload.FeedbackSWF}} {
			mode := f.Mode
			w, err := workload.LoadSWFWith(p, 0, workload.Clean{}, f)
			if err != nil {
				t.Fatal(err)
			}
			sum := 0
			for _, c := range w.Feedback.Counts {
				if c.Rule != workload.RuleThinkTimeUnknown && c.Rule != workload.RuleWaitUnknown {
					sum += c.Jobs
				}
			}
			if sum != len(w.Jobs) {
				t.Errorf("%s: the rules count %d jobs of %d", mode, sum, len(w.Jobs))
			}
			share := fmt.Sprintf("%.1f %%", 100*float64(w.Feedback.Count(workload.RuleDependent))/float64(len(w.Jobs)))
			switch {
			case mode == workload.FeedbackSessions && f.UnknownWait == "":
				row = append(row, fmt.Sprint(len(w.Jobs)))
				for _, c := range w.Feedback.Counts[:7] {
					row = append(row, fmt.Sprint(c.Jobs))
				}
				row = append(row, fmt.Sprint(w.Feedback.Count(workload.RuleWaitUnknown)), share)
			case mode == workload.FeedbackSessions:
				row = append(row, share)
			default:
				row = append(row, fmt.Sprint(w.Feedback.Count(workload.RuleDependent)))
			}
		}
		rows = append(rows, "| "+strings.Join(row, " | ")+" |")
	})
	t.Log("\n| trace | kept | dependent | no-predecessor | unknown-user | session-break | missing-predecessor | dropped-predecessor | forward-predecessor | wait-unknown | dependent share | share, unknown-wait = zero | swf: dependent |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n" +
		strings.Join(rows, "\n"))
}
