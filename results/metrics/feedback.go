package metrics

import (
	"maps"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/schedlab/schedlab/sdk/sim"
)

// Week is the bin of the weekly throughput metrics, in seconds.
const Week = 7 * 86400

// FeedbackKeys returns the JSON names of the metrics of a run in which some
// job depends on another (Summary.Feedback), left out of every other run's
// summary.
func FeedbackKeys() []string {
	return []string{"trace_submit_span", "submit_span", "submit_span_ratio", "jobs_per_day", "weekly_jobs_min",
		"weekly_jobs_max", "weekly_jobs_cv", "delayed_jobs", "submit_delay_total", "advanced_jobs", "submit_advance_total",
		"sessions", "session_jobs_mean", "session_jobs_max", "session_duration_mean", "session_duration_median"}
}

// AddFeedback fills the metrics of a run in which some job depends on
// another (sim.Input.After: a workload with feedback) into sum, computed by
// Compute from the same records. trace holds the jobs with their trace
// submit times, jobs the same jobs with their submit times in the run. It
// does nothing when no job depends on another or the run is empty. Every
// job counts, whatever the warm-up and cool-down trimming (as for the
// makespan):
//
//   - trace_submit_span and submit_span: the last submission less the
//     first, in the trace and in the run; submit_span_ratio the second
//     over the first (null when the trace's span is 0);
//   - jobs_per_day: the jobs that ran (not rejected) over the makespan in
//     days; weekly_jobs_min, weekly_jobs_max and weekly_jobs_cv: the least
//     and most jobs that ended in one week, and the coefficient of
//     variation (sample standard deviation over mean) of those counts, over
//     the whole weeks of the makespan counted from the first submission
//     (the last, partial, week left out; null with fewer than two whole
//     weeks);
//   - delayed_jobs and submit_delay_total: the jobs submitted later in the
//     run than in the trace, and the sum of their delays (run submit less
//     trace submit), in seconds; advanced_jobs and submit_advance_total
//     those submitted earlier, and how much earlier in all;
//   - sessions: a job that depends on none (submitted at its trace time)
//     opens a session, which holds it and every job that depends on it,
//     directly or through others. sessions counts them; session_jobs_mean
//     and session_jobs_max are their jobs; session_duration_mean and
//     session_duration_median (empirical) their lengths in the run, from
//     their first job's submission to the last end (or rejection) of
//     their jobs, in seconds.
func AddFeedback(sum *Summary, trace, jobs []sim.Input, recs []sim.Record) {
	if len(recs) == 0 || !slices.ContainsFunc(trace, func(in sim.Input) bool { return in.After != 0 }) {
		return
	}
	sum.Feedback = true
	n := len(recs)
	tFirst, tLast := trace[0].Job.Submit, trace[0].Job.Submit
	sFirst, sLast := jobs[0].Job.Submit, jobs[0].Job.Submit
	root := make([]int32, n)
	for i := range n {
		t, s := trace[i].Job.Submit, jobs[i].Job.Submit
		tFirst, tLast = min(tFirst, t), max(tLast, t)
		sFirst, sLast = min(sFirst, s), max(sLast, s)
		switch d := s - t; {
		case d > 0:
			sum.DelayedJobs++
			sum.SubmitDelayTotal += d
		case d < 0:
			sum.AdvancedJobs++
			sum.SubmitAdvanceTotal -= d
		}
		root[i] = int32(i)
		if a := trace[i].After; a != 0 {
			root[i] = root[a-1]
		}
	}
	sum.TraceSubmitSpan, sum.SubmitSpan = tLast-tFirst, sLast-sFirst
	if sum.TraceSubmitSpan > 0 {
		r := float64(sum.SubmitSpan) / float64(sum.TraceSubmitSpan)
		sum.SubmitSpanRatio = &r
	}
	// The throughput, over the makespan from the first submission.
	ran := n - sum.Rejected
	if sum.Makespan > 0 {
		d := float64(ran) / (float64(sum.Makespan) / 86400)
		sum.JobsPerDay = &d
	}
	if weeks := sum.Makespan / Week; weeks >= 2 {
		count := make([]float64, weeks)
		for i := range recs {
			if r := &recs[i]; !r.Rejected {
				if k := (r.End - sFirst) / Week; k < weeks {
					count[k]++
				}
			}
		}
		lo, hi := slices.Min(count), slices.Max(count)
		sum.WeeklyJobsMin, sum.WeeklyJobsMax = &lo, &hi
		if m := stat.Mean(count, nil); m > 0 {
			cv := stat.StdDev(count, nil) / m
			sum.WeeklyJobsCV = &cv
		}
	}
	// The sessions, by their first job: their sizes and ends.
	size := map[int32]int{}
	end := map[int32]int64{}
	for i := range recs {
		r := root[i]
		size[r]++
		end[r] = max(end[r], recs[i].End)
	}
	lengths := make([]float64, 0, len(size))
	for _, r := range slices.Sorted(maps.Keys(size)) {
		sum.SessionJobsMax = max(sum.SessionJobsMax, size[r])
		lengths = append(lengths, float64(end[r]-jobs[r].Job.Submit))
	}
	sum.Sessions = len(lengths)
	sum.SessionJobsMean = float64(n) / float64(len(lengths))
	sum.SessionDurationMean = stat.Mean(lengths, nil)
	slices.Sort(lengths)
	sum.SessionDurationMedian = stat.Quantile(0.5, stat.Empirical, lengths, nil)
}
