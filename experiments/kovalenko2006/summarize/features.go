package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/schedlab/schedlab/results"
)

// featureStats is what a run's jobs file says of cluster features
// (features.toml): the global jobs drawn to require the feature, and the
// global work and waits on each cluster, by index (kth 0, nasa 1).
type featureStats struct {
	required int
	work     [2]float64
	waitSum  [2]float64
	started  [2]int
}

// readFeatures fills r.feat from a run's jobs and provenance: the global
// stream's count of jobs requiring its features (workload.streams'
// required), and where the started global jobs ran.
func (r *runOf) readFeatures(jobs []results.JobRow, grid []results.GridRow, meta results.Metadata) error {
	var streams []struct {
		Home     string `json:"home"`
		Required int    `json:"required"`
	}
	if err := json.Unmarshal([]byte(meta["workload.streams"]), &streams); err != nil {
		return fmt.Errorf("workload.streams: %w", err)
	}
	r.feat = featureStats{}
	for _, s := range streams {
		if s.Home == "" {
			r.feat.required += s.Required
		}
	}
	for i, j := range jobs {
		if g := grid[i]; g.Home >= 0 || g.Rejected || j.Cluster < 0 || j.Cluster > 1 {
			continue
		}
		r.feat.work[j.Cluster] += float64(j.Procs) * float64(j.Runtime)
		r.feat.waitSum[j.Cluster] += float64(j.Wait)
		r.feat.started[j.Cluster]++
	}
	return nil
}

// featureTable prints, per group, what requiring a feature only cluster
// kth has does: the global jobs drawn to require it, the waits, kth's
// share of the global work, the global jobs' mean wait on each cluster,
// each cluster's utilisation, and the jobs rejected because no cluster
// large enough has their features (the brokers' rejected_unmatched).
func featureTable(w io.Writer, header string, runs []runOf) {
	groups, by := groupRuns(runs)
	fmt.Fprintf(w, "| %s | runs | global jobs requiring gpu | global mean wait (h) | global max wait (h) | local mean wait (h) | kth's share of global work | global wait on kth / nasa (h) | utilisation kth / nasa | rejected unmatched |\n", header)
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, g := range groups {
		rs := by[g]
		col := func(f func(r runOf) float64) []float64 { return column(rs, f) }
		m := func(name string, scale float64) []float64 {
			return col(func(r runOf) float64 { return r.metrics[name] / scale })
		}
		wait := func(c int) []float64 {
			return col(func(r runOf) float64 { return r.feat.waitSum[c] / float64(max(r.feat.started[c], 1)) / 3600 })
		}
		unmatched := int64(0)
		for _, r := range rs {
			unmatched += r.counts["rejected_unmatched"]
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s / %s | %s / %s | %d |\n", g, len(rs),
			ci(col(func(r runOf) float64 { return float64(r.feat.required) / r.metrics["global_jobs"] }), 3),
			ci(m("global_mean_wait", 3600), 2), ci(m("global_max_wait", 3600), 1), ci(m("local_mean_wait", 3600), 2),
			ci(col(func(r runOf) float64 { return r.feat.work[0] / (r.feat.work[0] + r.feat.work[1]) }), 3),
			ci(wait(0), 2), ci(wait(1), 2), ci(m("utilisation_kth", 1), 3), ci(m("utilisation_nasa", 1), 3), unmatched)
	}
	fmt.Fprintln(w)
}
