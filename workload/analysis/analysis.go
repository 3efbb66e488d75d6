// Package analysis describes the history of a real scheduler, after paper
// 002 (Petunin et al.): per value of a factor (user, group, application,
// queue, partition, account), how many jobs, what share of the activity,
// and the distributions of requested processors, requested time T_lim,
// runtime, wait and K_wall = T_run / T_lim; then the factor's values
// clustered by k-means on <activity share, requested processors, T_lim,
// K_wall>.
//
// Censoring: a job that ran up to its limit (T_run >= T_lim) was killed
// there, so its true runtime is only known to be at least T_lim. Such jobs
// are counted (Stats.Censored) and kept in the runtime and K_wall
// statistics at their observed values, which therefore understate the
// tail; fits of runtime distributions must treat them separately.
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
	// request is unknown); ReqTime is T_lim and Runtime T_run, in seconds.
	Procs, ReqTime, Runtime, Wait float64
	// Submit is the submission time in seconds.
	Submit float64
	// KEf1 = T_sys / (T_sys + T_user) and KEf2 = (T_CPU - (T_sys +
	// T_user)) / T_CPU are the efficiency indicators of paper 002, known
	// for completed jobs of Slurm logs only (NaN otherwise).
	KEf1, KEf2 float64
}

// KWall is T_run / T_lim, NaN when either is unknown or T_lim is 0.
func (j Job) KWall() float64 {
	if math.IsNaN(j.Runtime) || math.IsNaN(j.ReqTime) || j.ReqTime <= 0 {
		return math.NaN()
	}
	return j.Runtime / j.ReqTime
}

// Censored reports whether the job ran to its limit.
func (j Job) Censored() bool { return j.ReqTime > 0 && j.Runtime >= j.ReqTime }

// FromSWF converts SWF records; -1 (unknown) becomes NaN and an unknown
// factor is left out.
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
		out[i] = Job{Factors: f, Procs: num(procs), ReqTime: num(r.ReqTime), Runtime: num(r.RunTime),
			Wait: num(r.Wait), Submit: num(r.Submit), KEf1: math.NaN(), KEf2: math.NaN()}
	}
	return out
}

// Parameters are the per-job quantities described, in report order.
func Parameters() []string {
	return []string{"procs", "req_time", "runtime", "wait", "k_wall", "k_ef1", "k_ef2"}
}

func param(j Job, name string) float64 {
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
	// Share is the value's share of the jobs; Activity its share of the
	// processor-seconds (procs x runtime) of the log.
	Share, Activity float64
	Censored        int
	// Params holds, per parameter (see Parameters), the summary of the
	// known values with a 95 % t interval of the mean, and Quantiles the
	// 10th, 25th, 50th, 75th and 90th percentiles.
	Params    map[string]stats.Summary
	Quantiles map[string][]float64
}

// QuantileProbs are the quantiles Stats reports.
func QuantileProbs() []float64 { return []float64{0.1, 0.25, 0.5, 0.75, 0.9} }

// Describe returns the statistics of each value of factor, largest
// activity first. Jobs without the factor are grouped under "" (unknown).
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
		var w float64
		for _, j := range js {
			if x := j.Procs * j.Runtime; !math.IsNaN(x) {
				w += x
			}
			if j.Censored() {
				s.Censored++
			}
		}
		if work > 0 {
			s.Activity = w / work
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
		if a.Activity != b.Activity {
			if a.Activity > b.Activity {
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

// Clusters is a k-means clustering of a factor's values.
type Clusters struct {
	Factor string
	// Features names the clustered features: activity share, mean
	// requested processors, mean T_lim, mean K_wall (each standardised).
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
// <activity share, mean requested processors, mean T_lim, mean K_wall>,
// standardised, with k in [2, kmax] chosen by the mean silhouette, seeded
// by rng. Values lacking a feature are left out. It needs at least 3
// values.
func Cluster(st []Stats, kmax, restarts int, rng *rand.Rand) (Clusters, error) {
	c := Clusters{Features: []string{"activity", "procs", "req_time", "k_wall"}}
	var xs [][]float64
	for _, s := range st {
		c.Factor = s.Factor
		x := []float64{s.Activity, s.Params["procs"].Mean, s.Params["req_time"].Mean, s.Params["k_wall"].Mean}
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
