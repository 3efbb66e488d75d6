package main

import (
	"fmt"
	"io"
)

// paidTable prints, per group, what the started global jobs paid
// (computers.toml): the share charged more than 0, the mean charge per
// started global job and per charged one, and the charges over the
// payments offered (the jobs file's cost and payment).
func paidTable(w io.Writer, header string, runs []runOf) {
	groups, by := groupRuns(runs)
	fmt.Fprintf(w, "| %s | runs | global jobs charged > 0 | charged per started global job | charged per global job charged > 0 | charged / offered |\n|---|---|---|---|---|---|\n", header)
	for _, g := range groups {
		rs := by[g]
		col := func(f func(r runOf) float64) []float64 { return column(rs, f) }
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", g, len(rs),
			ci(col(func(r runOf) float64 { return float64(r.charged) / float64(max(r.started, 1)) }), 3),
			ci(col(func(r runOf) float64 { return r.paid / float64(max(r.started, 1)) }), 0),
			ci(col(func(r runOf) float64 { return r.paid / float64(max(r.charged, 1)) }), 0),
			ci(col(func(r runOf) float64 {
				if r.offered == 0 {
					return 0
				}
				return r.paid / r.offered
			}), 4))
	}
	fmt.Fprintln(w)
}
