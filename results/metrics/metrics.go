// Package metrics computes a run's summary metrics from verified records, in
// one place, so that every command and every reproduction uses the same
// definitions. Each choice that changes published numbers (the slowdown
// floor, warm-up and cool-down trimming) is a named setting recorded with the
// result.
package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// Settings are the choices that change metric values.
type Settings struct {
	// SlowdownTau is the runtime floor of bounded slowdown, in seconds:
	// 10 s in most of the literature, 600 s in some (paper 004).
	SlowdownTau int64
	// WarmupJobs and CooldownJobs exclude the first and last jobs (in
	// submit order) from the job metrics; they are still simulated.
	WarmupJobs, CooldownJobs int
	// Grid says the run is of a grid (a workload of streams): its grid
	// metrics are computed whatever its platform and jobs. Without it they
	// are computed when the platform has several clusters or a job has a
	// home or a transfer time. It is not a choice of the manifest, so not
	// in Map.
	Grid bool
}

// DefaultSettings returns a 10 s slowdown floor and no trimming.
func DefaultSettings() Settings { return Settings{SlowdownTau: 10} }

// Map returns the settings as named strings for provenance.
func (s Settings) Map() map[string]string {
	return map[string]string{
		"metrics.bsld_tau":      strconv.FormatInt(s.SlowdownTau, 10),
		"metrics.warmup_jobs":   strconv.Itoa(s.WarmupJobs),
		"metrics.cooldown_jobs": strconv.Itoa(s.CooldownJobs),
	}
}

// Summary holds a run's metrics. Wait and slowdown statistics cover the
// measured jobs (all jobs less the trimmed ones); utilisation and makespan
// cover the whole run. A statistic with no job to stand on is not a
// number: the wait, slowdown and turnaround statistics of a run without a
// measured job (HasJobStats false), the makespan and utilisation of a run
// in which no job ran (HasSpan false, every job rejected). They are 0 here
// and left out of the JSON (null in runs.parquet), never written as 0.
type Summary struct {
	Jobs         int `json:"jobs"`
	MeasuredJobs int `json:"measured_jobs"`
	Killed       int `json:"killed"`
	Backfilled   int `json:"backfilled"`
	// Rejected counts the jobs the policy turned away unstarted
	// (sdk.Reject); they are left out of every other statistic.
	Rejected int `json:"rejected"`
	// BackfillErrors counts the backfilled jobs that delayed the head of
	// the queue (see BackfillErrors); -1 on a platform of several clusters.
	BackfillErrors int `json:"backfill_errors"`
	// Promised counts jobs given a promised start; PromisesBroken those
	// that started after their first promise.
	Promised       int `json:"promised"`
	PromisesBroken int `json:"promises_broken"`
	// Wait statistics in seconds. Median and P95 are empirical quantiles
	// (the smallest wait w with at least that share of waits <= w).
	MeanWait   float64 `json:"mean_wait"`
	MedianWait float64 `json:"median_wait"`
	P95Wait    float64 `json:"p95_wait"`
	MaxWait    float64 `json:"max_wait"`
	// MeanBSLD is the mean bounded slowdown, max(1, (wait+run)/max(run, tau)).
	MeanBSLD float64 `json:"mean_bsld"`
	MaxBSLD  float64 `json:"max_bsld"`
	// MeanTurnaround is the mean of wait + run, in seconds.
	MeanTurnaround float64 `json:"mean_turnaround"`
	// Fairness between users (issue 36), over the measured jobs grouped by
	// their trace user (sdk.Job.User, -1 for a trace without users, one
	// user then): Users counts them; UserMeanBSLDMin and UserMeanBSLDMax
	// are the least and largest of the users' mean bounded slowdowns, and
	// UserBSLDJain is Jain's fairness index over them, (sum m)^2 / (U x
	// sum m^2): 1 when every user's mean is the same, 1/U when one user
	// takes all the slowdown.
	Users           int     `json:"users"`
	UserMeanBSLDMin float64 `json:"user_mean_bsld_min"`
	UserMeanBSLDMax float64 `json:"user_mean_bsld_max"`
	UserBSLDJain    float64 `json:"user_bsld_jain"`
	// Utilisation is processor-seconds used over processors times the span
	// from the first submission to the last end.
	Utilisation float64 `json:"utilisation"`
	// Makespan is the last end minus the first submission, in seconds.
	Makespan int64 `json:"makespan"`

	// The metrics of a grid (a platform of several clusters, or jobs with
	// a home or a transfer; paper 003), by stream: local jobs (with a
	// home) and global jobs, measured like the whole; rejected global
	// jobs; reservations refused and broken. A run that is not of a grid
	// has none of them (Grid is false and they are left out of its JSON,
	// so runs.parquet has nulls there).
	Grid               bool    `json:"-"`
	LocalJobs          int     `json:"local_jobs"`
	GlobalJobs         int     `json:"global_jobs"`
	LocalMeanWait      float64 `json:"local_mean_wait"`
	GlobalMeanWait     float64 `json:"global_mean_wait"`
	GlobalMaxWait      float64 `json:"global_max_wait"`
	LocalMeanBSLD      float64 `json:"local_mean_bsld"`
	GlobalMeanBSLD     float64 `json:"global_mean_bsld"`
	GlobalRejected     int     `json:"global_rejected"`
	Refusals           int     `json:"refusals"`
	BrokenReservations int     `json:"broken_reservations"`
	// ClusterUtilisation is each cluster's utilisation, by name, over the
	// same span as Utilisation: processor-seconds used on it over its
	// processors times the makespan.
	ClusterUtilisation map[string]float64 `json:"cluster_utilisation"`

	// The metrics of a run on a platform of nodes (AddNodes); a run on a
	// pool has none of them (Nodes is false and they are left out of its
	// JSON). MemoryUtil and GPUUtil are nil where the nodes have none.
	Nodes         bool     `json:"-"`
	TaskCoreUtil  float64  `json:"task_core_utilisation"`
	HeldCoreUtil  float64  `json:"held_core_utilisation"`
	MemoryUtil    *float64 `json:"memory_utilisation"`
	GPUUtil       *float64 `json:"gpu_utilisation"`
	NodeUtil      float64  `json:"node_utilisation"`
	Fragmentation float64  `json:"fragmentation"`

	// The metrics of a run with outages of nodes (AddOutages); a run
	// without has none of them (Outages is false and they are left out of
	// its JSON).
	Outages           bool     `json:"-"`
	Attempts          int      `json:"attempts"`
	InterruptedJobs   int      `json:"interrupted_jobs"`
	FailedJobs        int      `json:"failed_jobs"`
	LostCoreSeconds   float64  `json:"lost_core_seconds"`
	Availability      float64  `json:"availability"`
	AvailableCoreUtil float64  `json:"available_core_utilisation"`
	Goodput           float64  `json:"goodput"`
	RequeueWaitMean   *float64 `json:"requeue_wait_mean"`

	// The metrics of a run in which some job depends on another
	// (AddFeedback: a workload with feedback); a run without has none of
	// them (Feedback is false and they are left out of its JSON).
	Feedback              bool     `json:"-"`
	TraceSubmitSpan       int64    `json:"trace_submit_span"`
	SubmitSpan            int64    `json:"submit_span"`
	SubmitSpanRatio       *float64 `json:"submit_span_ratio"`
	JobsPerDay            *float64 `json:"jobs_per_day"`
	WeeklyJobsMin         *float64 `json:"weekly_jobs_min"`
	WeeklyJobsMax         *float64 `json:"weekly_jobs_max"`
	WeeklyJobsCV          *float64 `json:"weekly_jobs_cv"`
	DelayedJobs           int      `json:"delayed_jobs"`
	SubmitDelayTotal      int64    `json:"submit_delay_total"`
	AdvancedJobs          int      `json:"advanced_jobs"`
	SubmitAdvanceTotal    int64    `json:"submit_advance_total"`
	Sessions              int      `json:"sessions"`
	SessionJobsMean       float64  `json:"session_jobs_mean"`
	SessionJobsMax        int      `json:"session_jobs_max"`
	SessionDurationMean   float64  `json:"session_duration_mean"`
	SessionDurationMedian float64  `json:"session_duration_median"`

	// The metrics of a run with a power model (AddPower), in joules,
	// watts and seconds; a run without has none of them (Power is false
	// and they are left out of its JSON).
	Power                bool     `json:"-"`
	Energy               float64  `json:"energy"`
	EnergyStatic         float64  `json:"energy_static"`
	EnergyDynamic        float64  `json:"energy_dynamic"`
	EnergyOff            float64  `json:"energy_off"`
	EnergySwitching      float64  `json:"energy_switching"`
	EnergyJobs           float64  `json:"energy_jobs"`
	EnergyIdle           float64  `json:"energy_idle"`
	PowerMean            *float64 `json:"power_mean"`
	EnergyDelay          *float64 `json:"energy_delay"`
	SwitchOns            int      `json:"switch_ons"`
	SwitchOffs           int      `json:"switch_offs"`
	SwitchingNodeSeconds float64  `json:"switching_node_seconds"`
	OffNodeSeconds       float64  `json:"off_node_seconds"`
	OverCapSeconds       int64    `json:"over_cap_seconds"`

	// The metrics of a run with an I/O model (AddIO); a run without has
	// none of them (IO is false and they are left out of its JSON).
	IO            bool    `json:"-"`
	IOJobs        int     `json:"io_jobs"`
	IOKilled      int     `json:"io_killed"`
	IOSecondsMean float64 `json:"io_seconds_mean"`
	IOBytes       float64 `json:"io_bytes"`
	IOUnfit       int     `json:"io_unfit"`
}

// GridKeys returns the JSON names of the grid metrics.
func GridKeys() []string {
	return []string{"local_jobs", "global_jobs", "local_mean_wait", "global_mean_wait", "global_max_wait",
		"local_mean_bsld", "global_mean_bsld", "global_rejected", "refusals", "broken_reservations", "cluster_utilisation"}
}

// HasJobStats reports whether the wait, slowdown and turnaround statistics
// stand on some job: whether a job was measured.
func (s Summary) HasJobStats() bool { return s.MeasuredJobs > 0 }

// HasSpan reports whether the makespan and utilisation stand on some job:
// whether a job ran (was not rejected).
func (s Summary) HasSpan() bool { return s.Jobs > s.Rejected }

// jobStatKeys and spanKeys are the JSON names of the statistics that
// HasJobStats and HasSpan stand for.
var (
	jobStatKeys = []string{"mean_wait", "median_wait", "p95_wait", "max_wait", "mean_bsld", "max_bsld", "mean_turnaround",
		"users", "user_mean_bsld_min", "user_mean_bsld_max", "user_bsld_jain"}
	spanKeys = []string{"utilisation", "makespan"}
)

// MarshalJSON writes the fields in their order, leaving out the grid
// metrics of a run that is not of a grid, and every statistic with no job
// to stand on (null then, not 0): the waits, slowdowns and turnaround
// without a measured job, of the whole run or of a stream of a grid, and
// the makespan and utilisation when no job ran.
func (s Summary) MarshalJSON() ([]byte, error) {
	skip := map[string]bool{}
	if !s.Grid {
		for _, k := range GridKeys() {
			skip[k] = true
		}
	}
	if !s.Nodes {
		for _, k := range NodeKeys() {
			skip[k] = true
		}
	}
	if !s.Outages {
		for _, k := range OutageKeys() {
			skip[k] = true
		}
	}
	if !s.Feedback {
		for _, k := range FeedbackKeys() {
			skip[k] = true
		}
	}
	if !s.Power {
		for _, k := range PowerKeys() {
			skip[k] = true
		}
	}
	if !s.IO {
		for _, k := range IOKeys() {
			skip[k] = true
		}
	}
	if !s.HasJobStats() {
		for _, k := range jobStatKeys {
			skip[k] = true
		}
	}
	if !s.HasSpan() {
		for _, k := range spanKeys {
			skip[k] = true
		}
	}
	if s.LocalJobs == 0 {
		skip["local_mean_wait"], skip["local_mean_bsld"] = true, true
	}
	if s.GlobalJobs == 0 {
		skip["global_mean_wait"], skip["global_max_wait"], skip["global_mean_bsld"] = true, true, true
	}
	var b bytes.Buffer
	b.WriteByte('{')
	v := reflect.ValueOf(s)
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "-" || skip[name] {
			continue
		}
		x, err := json.Marshal(v.Field(i).Interface())
		if err != nil {
			return nil, err
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", name, x)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Compute returns the summary of a verified run.
func Compute(p *sdk.Platform, jobs []sim.Input, recs []sim.Record, s Settings) (Summary, error) {
	if s.SlowdownTau < 1 {
		return Summary{}, fmt.Errorf("metrics: slowdown floor %d s must be at least 1 s", s.SlowdownTau)
	}
	if s.WarmupJobs < 0 || s.CooldownJobs < 0 {
		return Summary{}, fmt.Errorf("metrics: negative trimming (warm-up %d, cool-down %d)", s.WarmupJobs, s.CooldownJobs)
	}
	n := len(recs)
	sum := Summary{Jobs: n}
	if n == 0 {
		return sum, nil
	}
	lo, hi := min(s.WarmupJobs, n), max(n-s.CooldownJobs, 0)
	waits := make([]float64, 0, max(hi-lo, 0))
	// The waits again as integers, which sort several times faster
	// (sortKeys) and give the same order; the mean is taken on the floats
	// in job order, so that its sum is the one it always was.
	iwaits := make([]int64, 0, max(hi-lo, 0))
	var procs int64
	for _, c := range p.Clusters {
		procs += c.Capacity[0]
	}
	first, last := jobs[0].Job.Submit, int64(0)
	var used, bsld, turnaround float64
	type userSum struct {
		bsld float64
		n    int
	}
	users := map[int32]userSum{}
	sum.Grid = s.Grid || IsGrid(p, jobs)
	for i := range recs {
		r := &recs[i]
		j := &jobs[i].Job
		if r.Rejected {
			sum.Rejected++
			continue
		}
		run := r.End - r.Start
		used += float64(j.Request[0]) * float64(run)
		last = max(last, r.End)
		if r.Killed {
			sum.Killed++
		}
		if r.Backfilled {
			sum.Backfilled++
		}
		if r.HasPromise {
			sum.Promised++
			if r.Start > r.Promised {
				sum.PromisesBroken++
			}
		}
		if i < lo || i >= hi {
			continue
		}
		w := float64(r.Start - j.Submit)
		waits = append(waits, w)
		iwaits = append(iwaits, r.Start-j.Submit)
		b := (w + float64(run)) / float64(max(run, s.SlowdownTau))
		b = max(b, 1)
		bsld += b
		u := users[j.User]
		u.bsld += b
		u.n++
		users[j.User] = u
		sum.MaxBSLD = max(sum.MaxBSLD, b)
		turnaround += w + float64(run)
		switch {
		case !sum.Grid: // no streams to tell apart
		case j.Home > 0:
			sum.LocalJobs++
			sum.LocalMeanWait += w
			sum.LocalMeanBSLD += b
		default:
			sum.GlobalJobs++
			sum.GlobalMeanWait += w
			sum.GlobalMeanBSLD += b
			sum.GlobalMaxWait = max(sum.GlobalMaxWait, w)
		}
	}
	if sum.HasSpan() {
		// Without a job that ran, last is no end: the makespan stays 0
		// (and null), not minus the first submission.
		sum.Makespan = last - first
	}
	if sum.Grid {
		gridCounts(&sum, jobs, recs)
		sum.ClusterUtilisation = clusterUtilisation(p, jobs, recs, sum.Makespan)
	}
	sum.BackfillErrors = BackfillErrors(procs, len(p.Clusters), jobs, recs)
	if sum.Makespan > 0 && procs > 0 {
		sum.Utilisation = used / (float64(procs) * float64(sum.Makespan))
	}
	sum.MeasuredJobs = len(waits)
	if len(waits) == 0 {
		return sum, nil
	}
	m := float64(len(waits))
	sum.MeanWait = stat.Mean(waits, nil)
	sum.MeanBSLD = bsld / m
	sum.MeanTurnaround = turnaround / m
	// The users in order of their numbers, so that the sums are the same
	// from run to run.
	ids := make([]int32, 0, len(users))
	for u := range users {
		ids = append(ids, u)
	}
	slices.Sort(ids)
	var s1, s2 float64
	for k, u := range ids {
		x := users[u].bsld / float64(users[u].n)
		if k == 0 {
			sum.UserMeanBSLDMin, sum.UserMeanBSLDMax = x, x
		}
		sum.UserMeanBSLDMin, sum.UserMeanBSLDMax = min(sum.UserMeanBSLDMin, x), max(sum.UserMeanBSLDMax, x)
		s1 += x
		s2 += float64(x * x)
	}
	sum.Users = len(ids)
	sum.UserBSLDJain = float64(s1*s1) / float64(float64(len(ids))*s2)
	sortKeys(iwaits)
	for k, w := range iwaits {
		waits[k] = float64(w)
	}
	sum.MedianWait = stat.Quantile(0.5, stat.Empirical, waits, nil)
	sum.P95Wait = stat.Quantile(0.95, stat.Empirical, waits, nil)
	sum.MaxWait = waits[len(waits)-1]
	return sum, nil
}

// gridCounts finishes the grid metrics: the means from the sums, and the
// counts of rejections, refusals and broken reservations.
func gridCounts(sum *Summary, jobs []sim.Input, recs []sim.Record) {
	if sum.LocalJobs > 0 {
		sum.LocalMeanWait /= float64(sum.LocalJobs)
		sum.LocalMeanBSLD /= float64(sum.LocalJobs)
	}
	if sum.GlobalJobs > 0 {
		sum.GlobalMeanWait /= float64(sum.GlobalJobs)
		sum.GlobalMeanBSLD /= float64(sum.GlobalJobs)
	}
	for i := range recs {
		r := &recs[i]
		if r.Rejected && jobs[i].Job.Home == 0 {
			sum.GlobalRejected++
		}
		sum.Refusals += int(r.Refusals)
		if r.Broken() {
			sum.BrokenReservations++
		}
	}
}

// clusterUtilisation is each cluster's share of its processor-seconds used
// over the makespan.
func clusterUtilisation(p *sdk.Platform, jobs []sim.Input, recs []sim.Record, makespan int64) map[string]float64 {
	used := make([]float64, len(p.Clusters))
	for i := range recs {
		if r := &recs[i]; !r.Rejected {
			used[r.Cluster] += float64(jobs[i].Job.Request[0]) * float64(r.End-r.Start)
		}
	}
	out := make(map[string]float64, len(p.Clusters))
	for c, cl := range p.Clusters {
		if makespan > 0 && cl.Capacity[0] > 0 {
			out[cl.Name] = used[c] / (float64(cl.Capacity[0]) * float64(makespan))
		}
	}
	return out
}

// IsGrid reports whether a run on p of jobs is of a grid by its look: the
// platform has several clusters, or a job has a home or a transfer time.
func IsGrid(p *sdk.Platform, jobs []sim.Input) bool {
	return len(p.Clusters) > 1 || slices.ContainsFunc(jobs, func(in sim.Input) bool { return in.Job.Home != 0 || in.Job.Transfer != 0 })
}
