package main

import (
	"fmt"
	"io"
)

// cycleTable prints, per group, what a cycle that takes time does to the
// reservations (cycle.toml): the mean cycle's length (the policy's counts
// cycle_seconds over cycles_timed, 0 for a cycle taking no time), the
// refusals per run, the share of started global jobs refused at least
// once (which did not start at the first allocation a cycle reserved), the
// global jobs that started at their reservation (summed over runs) and
// the waits.
func cycleTable(w io.Writer, header string, runs []runOf) {
	groups, by := groupRuns(runs)
	fmt.Fprintf(w, "| %s | runs | mean cycle (s) | refusals | global jobs refused at least once | started at reservation | global mean wait (h) | global max wait (h) | local mean wait (h) |\n|---|---|---|---|---|---|---|---|---|\n", header)
	for _, g := range groups {
		rs := by[g]
		col := func(f func(r runOf) float64) []float64 { return column(rs, f) }
		var exact, started int
		for _, r := range rs {
			exact += r.exact
			started += r.started
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %d/%d | %s | %s | %s |\n", g, len(rs),
			ci(col(func(r runOf) float64 {
				if r.counts["cycles_timed"] == 0 {
					return 0
				}
				return float64(r.counts["cycle_seconds"]) / float64(r.counts["cycles_timed"])
			}), 1),
			ci(col(func(r runOf) float64 { return r.metrics["refusals"] }), 1),
			ci(col(func(r runOf) float64 { return float64(r.refused) / float64(max(r.started, 1)) }), 4),
			exact, started,
			ci(col(func(r runOf) float64 { return r.metrics["global_mean_wait"] / 3600 }), 2),
			ci(col(func(r runOf) float64 { return r.metrics["global_max_wait"] / 3600 }), 1),
			ci(col(func(r runOf) float64 { return r.metrics["local_mean_wait"] / 3600 }), 2))
	}
	fmt.Fprintln(w)
}
