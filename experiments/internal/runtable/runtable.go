// Package runtable reads a campaign's runs.parquet into rows by name, for
// the summarize programs of the write-ups, and formats a mean with its
// interval as their tables print it.
package runtable

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/stats"
)

// Row is a run's columns by name.
type Row map[string]any

// Num returns a numeric column's value, NaN when it is missing or not a
// number.
func (r Row) Num(name string) float64 {
	switch x := r[name].(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	}
	return math.NaN()
}

// Read reads the runs.parquet at path: every run by key(run). A run that
// did not complete is an error: a write-up's table stands on all of them.
func Read(path string, key func(Row) string) (map[string]Row, error) {
	cols, rows, _, err := results.ReadTable(path)
	if err != nil {
		return nil, err
	}
	out := map[string]Row{}
	for _, r := range rows {
		m := Row{}
		for i, c := range cols {
			m[c.Name] = r[i]
		}
		if m["status"] != "ok" {
			return nil, fmt.Errorf("%s: run %v is %v", path, m["label"], m["status"])
		}
		out[key(m)] = m
	}
	return out, nil
}

// ByWorkloadPolicy keys a run by "workload/policy".
func ByWorkloadPolicy(r Row) string { return fmt.Sprintf("%v/%v", r["workload"], r["policy"]) }

// Cell formats the mean of xs with its 95 % Student t interval, each in
// format f; the mean alone when the values do not vary or are too few.
func Cell(xs []float64, f string) string {
	s := stats.Describe(xs, 0.95)
	if s.SD == 0 || math.IsNaN(s.CI.Lo) {
		return fmt.Sprintf(f, s.Mean)
	}
	return fmt.Sprintf(f+" ["+f+", "+f+"]", s.Mean, s.CI.Lo, s.CI.Hi)
}
