package metrics_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// fbJob is a job of the feedback metrics' cases: its trace and run submit
// times, its predecessor (1 + index, 0 for none), its run and whether it
// was rejected.
type fbJob struct {
	trace, submit int64
	after         int32
	start, end    int64
	rejected      bool
}

// TestFeedbackMetricsHandWorked checks AddFeedback on hand-worked runs:
//
//   - chains: job 0 (0, runs 10-110) is followed by job 1 (trace 150, in
//     the run 160: 10 s late; runs 160-260), followed by job 2 (trace 300,
//     run 290: 10 s early; 300-400). Job 3 (1000, 1000-1100) opens a new
//     session, followed by job 4 (trace 1200, run 1120: 80 s early,
//     1120-1500). Spans 1200 and 1120; makespan 1500: 5 jobs in 1500/86400
//     days, no whole week; sessions {0,1,2} of 400 s and {3,4} of 500 s.
//   - weeks: a rejected job is no throughput but ends its session; jobs
//     end 2 then 3 in the two whole weeks (the partial third left out):
//     mean 2.5, sample deviation sqrt(0.5); sessions of 20, 5, 100, 300
//     (the rejection, 200 s after its predecessor ended) and 4 s.
//   - replay: no dependency, no feedback metric.
func TestFeedbackMetricsHandWorked(t *testing.T) {
	const w = metrics.Week
	f := func(x float64) *float64 { return &x }
	cases := []struct {
		name string
		jobs []fbJob
		want metrics.Summary // the feedback fields
	}{
		{"chains", []fbJob{
			{0, 0, 0, 10, 110, false},
			{150, 160, 1, 160, 260, false},
			{300, 290, 2, 300, 400, false},
			{1000, 1000, 0, 1000, 1100, false},
			{1200, 1120, 4, 1120, 1500, false},
		}, metrics.Summary{Feedback: true, TraceSubmitSpan: 1200, SubmitSpan: 1120, SubmitSpanRatio: f(1120.0 / 1200),
			JobsPerDay: f(5 / (1500.0 / 86400)), DelayedJobs: 1, SubmitDelayTotal: 10, AdvancedJobs: 2, SubmitAdvanceTotal: 90,
			Sessions: 2, SessionJobsMean: 2.5, SessionJobsMax: 3, SessionDurationMean: 450, SessionDurationMedian: 400}},
		{"weeks", []fbJob{
			{0, 0, 0, 0, 10, false},
			{10, 10, 1, 10, 20, false},
			{w + 5, w + 5, 0, w + 5, w + 10, false},
			{w + 100, w + 100, 0, w + 100, w + 200, false},
			{w + 300, w + 300, 0, w + 300, w + 400, false},
			{w + 500, w + 600, 5, w + 600, w + 600, true},
			{2*w + 1, 2*w + 1, 0, 2*w + 1, 2*w + 5, false},
		}, metrics.Summary{Feedback: true, TraceSubmitSpan: 2*w + 1, SubmitSpan: 2*w + 1, SubmitSpanRatio: f(1),
			JobsPerDay: f(6 / (float64(2*w+5) / 86400)), WeeklyJobsMin: f(2), WeeklyJobsMax: f(3), WeeklyJobsCV: f(math.Sqrt(0.5) / 2.5),
			DelayedJobs: 1, SubmitDelayTotal: 100,
			Sessions: 5, SessionJobsMean: 7.0 / 5, SessionJobsMax: 2, SessionDurationMean: (20 + 5 + 100 + 300 + 4) / 5.0, SessionDurationMedian: 20}},
		{"replay", []fbJob{
			{0, 0, 0, 0, 10, false},
			{5, 5, 0, 10, 20, false},
		}, metrics.Summary{}},
	}
	p := &sdk.Platform{Name: "one", Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{{Name: "a", Capacity: sdk.Vector{1}}}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var trace, jobs []sim.Input
			var recs []sim.Record
			for i, j := range c.jobs {
				in := sim.Input{Job: sdk.Job{ID: int64(i + 1), Submit: j.trace, Walltime: 1000, Request: sdk.Vector{1}}, Runtime: j.end - j.start, After: j.after}
				trace = append(trace, in)
				in.Job.Submit = j.submit
				jobs = append(jobs, in)
				r := sim.Record{Index: int32(i), Start: j.start, End: j.end, Rejected: j.rejected}
				if j.rejected {
					r.Cluster = -1
				}
				recs = append(recs, r)
			}
			sum, err := metrics.Compute(p, jobs, recs, metrics.DefaultSettings())
			if err != nil {
				t.Fatal(err)
			}
			metrics.AddFeedback(&sum, trace, jobs, recs)
			got := feedbackPart(sum)
			if g, w := js(t, got), js(t, feedbackPart(c.want)); g != w || got.Feedback != c.want.Feedback {
				t.Errorf("got  %s\nwant %s", g, w)
			}
			out := js(t, sum)
			for _, k := range metrics.FeedbackKeys() {
				if strings.Contains(out, `"`+k+`"`) != c.want.Feedback {
					t.Errorf("key %s in the summary's JSON: %t, want %t", k, !c.want.Feedback, c.want.Feedback)
				}
			}
		})
	}
}

// feedbackPart returns the feedback fields of s, the others zero, rounded
// to 12 significant digits.
func feedbackPart(s metrics.Summary) metrics.Summary {
	r := func(x *float64) *float64 {
		if x == nil {
			return nil
		}
		y := math.Round(*x*1e9) / 1e9
		return &y
	}
	return metrics.Summary{Feedback: s.Feedback, TraceSubmitSpan: s.TraceSubmitSpan, SubmitSpan: s.SubmitSpan,
		SubmitSpanRatio: r(s.SubmitSpanRatio), JobsPerDay: r(s.JobsPerDay), WeeklyJobsMin: s.WeeklyJobsMin, WeeklyJobsMax: s.WeeklyJobsMax,
		WeeklyJobsCV: r(s.WeeklyJobsCV), DelayedJobs: s.DelayedJobs, SubmitDelayTotal: s.SubmitDelayTotal, AdvancedJobs: s.AdvancedJobs,
		SubmitAdvanceTotal: s.SubmitAdvanceTotal, Sessions: s.Sessions, SessionJobsMean: s.SessionJobsMean, SessionJobsMax: s.SessionJobsMax,
		SessionDurationMean: s.SessionDurationMean, SessionDurationMedian: s.SessionDurationMedian}
}

func js(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
