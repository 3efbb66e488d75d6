package main

import (
	"fmt"
	"io"
)

// passesTable prints, per group, the global jobs that passed local jobs
// on forecasts blind to them (passes.toml, claim 11): the local jobs
// passed at least once and twice or more, as shares of the local jobs
// that started, the most passes any local job had (over every run), the
// cycles that broke the paper's TTL > 2 CP against the cycles that took
// time, the refusals and the waits. The counts are the policy's
// (stats.policy_counts); a run without them (no forecast could be blind)
// counts 0.
func passesTable(w io.Writer, header string, runs []runOf) {
	groups, by := groupRuns(runs)
	fmt.Fprintf(w, "| %s | runs | local jobs | passed at least once | passed twice or more | most passes of one local job | cycles with 2 CP >= TTL | cycles | mean cycle (s) | refusals | global mean wait (h) | local mean wait (h) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n", header)
	for _, g := range groups {
		rs := by[g]
		col := func(f func(r runOf) float64) []float64 { return column(rs, f) }
		share := func(k string) []float64 {
			return col(func(r runOf) float64 { return float64(r.counts[k]) / max(r.metrics["local_jobs"], 1) })
		}
		var most, within, cycles int64
		for _, r := range rs {
			most = max(most, r.counts["passes_max"])
			within += r.counts["ttl_within_2cp"]
			cycles += r.counts["cycles_timed"]
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %d | %d | %d | %s | %s | %s | %s |\n", g, len(rs),
			ci(col(func(r runOf) float64 { return r.metrics["local_jobs"] }), 0),
			ci(share("local_passed"), 4), ci(share("local_passed_2"), 4), most, within, cycles,
			ci(col(func(r runOf) float64 {
				if r.counts["cycles_timed"] == 0 {
					return 0
				}
				return float64(r.counts["cycle_seconds"]) / float64(r.counts["cycles_timed"])
			}), 2),
			ci(col(func(r runOf) float64 { return r.metrics["refusals"] }), 1),
			ci(col(func(r runOf) float64 { return r.metrics["global_mean_wait"] / 3600 }), 2),
			ci(col(func(r runOf) float64 { return r.metrics["local_mean_wait"] / 3600 }), 2))
	}
	fmt.Fprintln(w)
}

// clusterTable prints, per group, where the global jobs ran (clusterc.toml,
// claim 4): the share of the started global jobs' work on the first
// cluster (kth) and their number there, beside the rejections.
func clusterTable(w io.Writer, header string, runs []runOf) {
	groups, by := groupRuns(runs)
	fmt.Fprintf(w, "| %s | runs | global work on kth (share) | global jobs on kth | global jobs started | global rejected |\n|---|---|---|---|---|---|\n", header)
	for _, g := range groups {
		rs := by[g]
		col := func(f func(r runOf) float64) []float64 { return column(rs, f) }
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", g, len(rs),
			ci(col(func(r runOf) float64 { return r.firstShare }), 3),
			ci(col(func(r runOf) float64 { return float64(r.firstJobs) }), 1),
			ci(col(func(r runOf) float64 { return float64(r.started) }), 1),
			ci(col(func(r runOf) float64 { return r.metrics["global_rejected"] }), 1))
	}
	fmt.Fprintln(w)
}
