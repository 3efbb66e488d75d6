// Package analysis describes the history of a real scheduler, after paper
// 002 (Petunin et al.): per value of a factor (user, group, application,
// queue, partition, account), how many jobs, what share of the work,
// and the distributions of requested processors, requested time T_lim,
// runtime, wait and K_wall = T_run / T_lim; then the factor's values
// clustered by k-means on <A, R1, T_lim, K_wall>: by default the paper's
// activity A (share of the jobs) and requested resource R1 (nodes where the
// log records them, else processors), other measures as Features settings.
//
// Censoring: a job killed at its limit has a true runtime only known to be
// at least T_lim. Which jobs were killed is a setting (Rules: the log's
// state TIMEOUT where it has one, else T_run >= T_lim or an end within a
// tolerance before a long enough limit). Such jobs are counted
// (Stats.Censored) and kept in the runtime and K_wall statistics at their
// observed values, which therefore understate the tail; fits of runtime
// distributions leave them out. Jobs that never ran (T_run = 0) are left
// out of the runtime, K_wall and wait statistics by default
// (Rules.NeverRan), and counted (Stats.NeverRan).
package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/results/cluster"
	"github.com/schedlab/schedlab/results/stats"
	"github.com/schedlab/schedlab/workload/swf"
)

// The factors a job can be grouped by.
const (
	User      = "user"
	Group     = "group"
	App       = "app"
	Queue     = "queue"
	Partition = "partition"
	Account   = "account"
)

// Job is one job of the history, with NaN for what the log does not know.
type Job struct {
	// Factors holds the job's value of each factor the log records.
	Factors map[string]string
	// Procs is the number of processors requested (allocated when the
	// request is unknown); Nodes the number of nodes, where the log records
	// it (Slurm accounting; NaN for SWF); ReqTime is T_lim and Runtime
	// T_run, in seconds.
	Procs, Nodes, ReqTime, Runtime, Wait float64
	// Submit is the submission time in seconds.
	Submit float64
	// KEf1 = T_sys / (T_sys + T_user) and KEf2 = (T_CPU - (T_sys +
	// T_user)) / T_CPU are the efficiency indicators of paper 002, known
	// for completed jobs of Slurm logs only (NaN otherwise).
	KEf1, KEf2 float64
	// State is how the job ended as the log records it, Slurm's
	// normalised state (sacct.StateTimeout...); "" when the log does not
	// say (SWF).
	State string
	// Killed says the job was killed at its limit, and NeverRan that it
	// never ran and is left out of the runtime, K_wall and wait: both as
	// Rules.Apply set them (FromSWF and FromSacct apply DefaultRules).
	Killed, NeverRan bool
}

// KWall is T_run / T_lim, NaN when either is unknown or T_lim is 0.
func (j Job) KWall() float64 {
	if math.IsNaN(j.Runtime) || math.IsNaN(j.ReqTime) || j.ReqTime <= 0 {
		return math.NaN()
	}
	return j.Runtime / j.ReqTime
}

// Censored reports whether the job was killed at its limit, as the rules
// last applied to it say (Killed).
func (j Job) Censored() bool { return j.Killed }

// FromSWF converts SWF records; -1 (unknown) becomes NaN and an unknown
// factor is left out. The jobs are marked by DefaultRules.
func FromSWF(recs []swf.Record) []Job {
	num := func(v int64) float64 {
		if v < 0 {
			return math.NaN()
		}
		return float64(v)
	}
	out := make([]Job, len(recs))
	for i, r := range recs {
		f := map[string]string{}
		for name, v := range map[string]int64{User: r.User, Group: r.Group, App: r.App, Queue: r.Queue, Partition: r.Partition} {
			if v >= 0 {
				f[name] = strconv.FormatInt(v, 10)
			}
		}
		procs := r.ReqProcs
		if procs <= 0 {
			procs = r.AllocProcs
		}
		out[i] = Job{Factors: f, Procs: num(procs), Nodes: math.NaN(), ReqTime: num(r.ReqTime), Runtime: num(r.RunTime),
			Wait: num(r.Wait), Submit: num(r.Submit), KEf1: math.NaN(), KEf2: math.NaN()}
	}
	DefaultRules().Apply(out)
	return out
}

// Parameters are the per-job quantities described, in report order.
func Parameters() []string {
	return []string{"procs", "req_time", "runtime", "wait", "k_wall", "k_ef1", "k_ef2"}
}

// param is the job's value of parameter name; the runtime, wait and
// K_wall of a job that never ran are NaN (unknown) when the rules left it
// out.
func param(j Job, name string) float64 {
	if j.NeverRan && (name == "runtime" || name == "wait" || name == "k_wall") {
		return math.NaN()
	}
	switch name {
	case "procs":
		return j.Procs
	case "req_time":
		return j.ReqTime
	case "runtime":
		return j.Runtime
	case "wait":
		return j.Wait
	case "k_wall":
		return j.KWall()
	case "k_ef1":
		return j.KEf1
	case "k_ef2":
		return j.KEf2
	}
	return math.NaN()
}

// Stats describes the jobs of one factor value.
type Stats struct {
	Factor, Value string
	Jobs          int
	// Share is the value's share of the jobs (paper 002's activity A);
	// WorkShare its share of the processor-seconds (procs x runtime) of
	// the log.
	Share, WorkShare float64
	// Nodes is the mean number of nodes of the jobs that record it, NaN
	// when none does.
	Nodes float64
	// Censored counts the jobs killed at their limit, NeverRan those
	// left out of the runtime, K_wall and wait as never run (Rules).
	Censored, NeverRan int
	// Params holds, per parameter (see Parameters), the summary of the
	// known values with a 95 % t interval of the mean, and Quantiles the
	// 10th, 25th, 50th, 75th and 90th percentiles.
	Params    map[string]stats.Summary
	Quantiles map[string][]float64
}

// QuantileProbs are the quantiles Stats reports.
func QuantileProbs() []float64 { return []float64{0.1, 0.25, 0.5, 0.75, 0.9} }

// Describe returns the statistics of each value of factor, largest
// share of work first. Jobs without the factor are grouped under ""
// (unknown).
func Describe(jobs []Job, factor string) []Stats {
	by := map[string][]Job{}
	var total, work float64
	for _, j := range jobs {
		v := j.Factors[factor]
		by[v] = append(by[v], j)
		total++
		if w := j.Procs * j.Runtime; !math.IsNaN(w) {
			work += w
		}
	}
	var out []Stats
	for v, js := range by {
		s := Stats{Factor: factor, Value: v, Jobs: len(js), Share: float64(len(js)) / total,
			Params: map[string]stats.Summary{}, Quantiles: map[string][]float64{}}
		var w, nodes float64
		var withNodes int
		for _, j := range js {
			if x := j.Procs * j.Runtime; !math.IsNaN(x) {
				w += x
			}
			if !math.IsNaN(j.Nodes) {
				nodes += j.Nodes
				withNodes++
			}
			if j.Censored() {
				s.Censored++
			}
			if j.NeverRan {
				s.NeverRan++
			}
		}
		if work > 0 {
			s.WorkShare = w / work
		}
		s.Nodes = math.NaN()
		if withNodes > 0 {
			s.Nodes = nodes / float64(withNodes)
		}
		for _, p := range Parameters() {
			var xs []float64
			for _, j := range js {
				if x := param(j, p); !math.IsNaN(x) {
					xs = append(xs, x)
				}
			}
			s.Params[p] = stats.Describe(xs, 0.95)
			if len(xs) > 0 {
				s.Quantiles[p] = stats.Quantiles(xs, QuantileProbs())
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Stats) int {
		if a.WorkShare != b.WorkShare {
			if a.WorkShare > b.WorkShare {
				return -1
			}
			return 1
		}
		if a.Jobs != b.Jobs {
			return b.Jobs - a.Jobs
		}
		return compareStrings(a.Value, b.Value)
	})
	return out
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// The measures of a value's activity A that Cluster can use
// (Features.Activity).
const (
	// ActivityJobs is the value's share of the jobs: paper 002's A, the
	// default.
	ActivityJobs = "jobs"
	// ActivityWork is the value's share of the processor-seconds: ours,
	// which weighs a user of few long, wide jobs as the machine feels them.
	ActivityWork = "work"
)

// The measures of the requested resource R1 that Cluster can use
// (Features.Resource).
const (
	// ResourceAuto is paper 002's R1: the mean number of nodes where the
	// log records nodes (Slurm accounting), else of processors (SWF). The
	// default.
	ResourceAuto = "auto"
	// ResourceNodes is the mean number of nodes; values of a log without
	// nodes then have no R1 and are left out.
	ResourceNodes = "nodes"
	// ResourceProcs is the mean number of processors, whatever the log.
	ResourceProcs = "procs"
)

// Features says which measures of activity and requested resource Cluster
// clusters on, besides the mean T_lim and K_wall.
type Features struct {
	Activity, Resource string
}

// DefaultFeatures are paper 002's: the share of jobs, and nodes where the
// log records them.
func DefaultFeatures() Features { return Features{Activity: ActivityJobs, Resource: ResourceAuto} }

// Check reports an unknown setting, naming it.
func (f Features) Check() error {
	if f.Activity != ActivityJobs && f.Activity != ActivityWork {
		return fmt.Errorf("analysis: activity %q: want %s (share of jobs) or %s (share of processor-seconds)", f.Activity, ActivityJobs, ActivityWork)
	}
	switch f.Resource {
	case ResourceAuto, ResourceNodes, ResourceProcs:
		return nil
	}
	return fmt.Errorf("analysis: resource %q: want %s, %s or %s", f.Resource, ResourceAuto, ResourceNodes, ResourceProcs)
}

// names returns the clustered features' names for values st: "jobs_share"
// or "work_share", then "nodes" or "procs", "req_time" and "k_wall".
func (f Features) names(st []Stats) []string {
	a := "jobs_share"
	if f.Activity == ActivityWork {
		a = "work_share"
	}
	r := f.Resource
	if r == ResourceAuto {
		r = ResourceProcs
		for _, s := range st {
			if !math.IsNaN(s.Nodes) {
				r = ResourceNodes
				break
			}
		}
	}
	return []string{a, r, "req_time", "k_wall"}
}

// Clusters is a k-means clustering of a factor's values.
type Clusters struct {
	Factor string
	// Features names the clustered features, each standardised:
	// "jobs_share" or "work_share" (of the processor-seconds), mean
	// "nodes" or "procs", mean "req_time" (T_lim) and mean "k_wall".
	Features []string
	// Values lists the clustered values and Labels their clusters.
	Values []string
	Labels []int
	// Points holds each value's standardised features, in Features
	// order: the coordinates k-means clustered, for scatter plots.
	Points [][]float64
	Result cluster.Result
	// Tried holds the clustering for every k tried, for the silhouette
	// plot; the chosen one has the highest mean silhouette.
	Tried []cluster.Result
}

// Cluster groups the values of a factor (from Describe) by k-means on
// <activity, requested resource, mean T_lim, mean K_wall> as feat
// measures them, standardised, with k in [2, kmax] chosen by the mean
// silhouette, seeded by rng. Values lacking a feature are left out. It
// needs at least 3 values.
func Cluster(st []Stats, feat Features, kmax, restarts int, rng *rand.Rand) (Clusters, error) {
	if err := feat.Check(); err != nil {
		return Clusters{}, err
	}
	c := Clusters{Features: feat.names(st)}
	if feat.Resource == ResourceNodes && !slices.ContainsFunc(st, func(s Stats) bool { return !math.IsNaN(s.Nodes) }) {
		return c, fmt.Errorf("analysis: resource %s: the log records no nodes (SWF has processors only)", ResourceNodes)
	}
	var xs [][]float64
	for _, s := range st {
		c.Factor = s.Factor
		x := []float64{s.Share, s.Params["procs"].Mean, s.Params["req_time"].Mean, s.Params["k_wall"].Mean}
		if c.Features[0] == "work_share" {
			x[0] = s.WorkShare
		}
		if c.Features[1] == "nodes" {
			x[1] = s.Nodes
		}
		if slices.ContainsFunc(x, math.IsNaN) {
			continue
		}
		xs = append(xs, x)
		c.Values = append(c.Values, s.Value)
	}
	if len(xs) < 3 {
		return c, fmt.Errorf("analysis: %d values of %s have every feature; clustering needs at least 3", len(xs), c.Factor)
	}
	z, _, _, err := cluster.Standardize(xs)
	if err != nil {
		return c, err
	}
	best, all, err := cluster.Best(z, 2, kmax, restarts, rng)
	if err != nil {
		return c, err
	}
	c.Result, c.Tried, c.Labels, c.Points = best, all, best.Labels, z
	return c, nil
}

// Describe returns the statistics of the jobs of each cluster of c, in
// cluster order, with Value the cluster's number: paper 002's table per
// cluster (share of the jobs, T_lim's mean and sd...). Jobs whose factor
// value was not clustered are left out, so the shares are of the
// clustered jobs.
func (c Clusters) Describe(jobs []Job) []Stats {
	label := make(map[string]int, len(c.Values))
	for i, v := range c.Values {
		label[v] = c.Labels[i]
	}
	const key = "cluster"
	var in []Job
	for _, j := range jobs {
		l, ok := label[j.Factors[c.Factor]]
		if !ok {
			continue
		}
		j.Factors = map[string]string{key: strconv.Itoa(l)}
		in = append(in, j)
	}
	st := Describe(in, key)
	slices.SortFunc(st, func(a, b Stats) int {
		x, _ := strconv.Atoi(a.Value)
		y, _ := strconv.Atoi(b.Value)
		return x - y
	})
	return st
}
