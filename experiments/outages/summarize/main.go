// Command summarize turns the two campaigns of docs/outages.md (failures
// and maintenance windows on KTH-SP2's machine; see the manifests beside
// this folder) into the page's tables. It reads only the campaigns'
// runs.parquet.
//
//	go run ./experiments/outages/summarize -campaigns out/outages
//
// Failures: per policy, failure rate and rule, the mean over the 10
// replicates (each its own draw of the failures) with a 95 % Student t
// interval. Maintenance: per policy and mode, the mean over the window's 4
// phases, with a 95 % Student t interval.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/stats"
)

func main() {
	root := flag.String("campaigns", "out/outages", "folder holding the campaigns failures and maintenance")
	flag.Parse()
	if err := run(os.Stdout, *root); err != nil {
		fmt.Fprintln(os.Stderr, "summarize:", err)
		os.Exit(1)
	}
}

// runs reads a campaign's runs.parquet: one map of column to value per
// completed run.
func runs(path string) ([]map[string]any, error) {
	cols, rows, _, err := results.ReadTable(path)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, r := range rows {
		m := map[string]any{}
		for i, c := range cols {
			m[c.Name] = r[i]
		}
		if m["status"] != "ok" {
			return nil, fmt.Errorf("%s: run %v is %v", path, m["label"], m["status"])
		}
		out = append(out, m)
	}
	return out, nil
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	}
	return math.NaN()
}

// cell formats the mean of xs with its 95 % Student t interval, scaled by
// div and printed with the format f; the mean alone when the values are
// all the same.
func cell(xs []float64, div float64, f string) string {
	s := stats.Describe(xs, 0.95)
	if s.SD == 0 || math.IsNaN(s.CI.Lo) {
		return fmt.Sprintf(f, s.Mean/div)
	}
	return fmt.Sprintf(f+" ["+f+", "+f+"]", s.Mean/div, s.CI.Lo/div, s.CI.Hi/div)
}

func run(w io.Writer, root string) error {
	if err := failures(w, filepath.Join(root, "failures", "runs.parquet")); err != nil {
		return err
	}
	return maintenance(w, filepath.Join(root, "maintenance", "runs.parquet"))
}

// failures prints the failures table.
func failures(w io.Writer, path string) error {
	rs, err := runs(path)
	if err != nil {
		return err
	}
	group := map[string][]map[string]any{}
	for _, r := range rs {
		k := r["policy"].(string) + "/" + r["platform"].(string)
		group[k] = append(group[k], r)
	}
	fmt.Fprintln(w, "Failures on KTH-SP2's machine, 10 replicates: mean [95 % interval]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| policy | failures a year | on failure | mean wait (h) | mean bounded slowdown | jobs killed | runs ended | work lost (core-h) | requeue wait (h) | availability | goodput |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	all := []string{"none", "r20-kill", "r20-requeue", "r20-checkpoint", "r100-kill", "r100-requeue", "r100-checkpoint",
		"r500-kill", "r500-requeue", "r500-checkpoint"}
	for _, pol := range []string{"fcfs", "easy", "conservative"} {
		for _, pl := range all {
			g := group[pol+"/"+pl]
			if len(g) == 0 {
				return fmt.Errorf("%s: no runs of %s on %s", path, pol, pl)
			}
			col := func(name string) []float64 {
				var xs []float64
				for _, r := range g {
					if v := num(r[name]); !math.IsNaN(v) {
						xs = append(xs, v)
					}
				}
				return xs
			}
			rate, rule := "0", "-"
			if pl != "none" {
				rate, rule, _ = strings.Cut(strings.TrimPrefix(pl, "r"), "-")
			}
			dash := func(name string, div float64, f string) string {
				xs := col(name)
				if len(xs) == 0 {
					return "-"
				}
				return cell(xs, div, f)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", pol, rate, rule,
				cell(col("mean_wait"), 3600, "%.2f"), cell(col("mean_bsld"), 1, "%.1f"),
				dash("failed_jobs", 1, "%.0f"), dash("attempts", 1, "%.0f"), dash("lost_core_seconds", 3600, "%.0f"),
				dash("requeue_wait_mean", 3600, "%.2f"), dash("availability", 1, "%.4f"), dash("goodput", 1, "%.4f"))
		}
	}
	fmt.Fprintln(w)
	return nil
}

// maintenance prints the maintenance table.
func maintenance(w io.Writer, path string) error {
	rs, err := runs(path)
	if err != nil {
		return err
	}
	group := map[string][]map[string]any{}
	for _, r := range rs {
		pl := r["platform"].(string)
		if i := strings.LastIndexByte(pl, '-'); pl != "none" && i > 0 {
			pl = pl[:i] // the phase
		}
		pol, _, _ := strings.Cut(r["policy"].(string), "-")
		k := pol + "/" + pl
		group[k] = append(group[k], r)
	}
	modes := []struct{ key, name string }{
		{"none", "no window"},
		{"hard", "drained ahead"},
		{"soft-kill", "not drained, jobs killed"},
		{"soft-requeue", "not drained, jobs requeued"},
	}
	fmt.Fprintln(w, "A weekly 4-hour window on KTH-SP2's machine, over its 4 phases: mean [95 % interval]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| policy | window | mean wait (h) | mean bounded slowdown | max wait (h) | jobs killed | runs ended | work lost (core-h) | utilisation | promises broken |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, pol := range []string{"fcfs", "easy", "conservative"} {
		for k, m := range modes {
			if pol == "conservative" && k > 1 {
				break // it plans around the windows whatever the rule (maintenance.toml)
			}
			g := group[pol+"/"+m.key]
			if len(g) == 0 {
				return fmt.Errorf("%s: no runs of %s, %s", path, pol, m.key)
			}
			col := func(name string) []float64 {
				xs := []float64{}
				for _, r := range g {
					v := num(r[name])
					if math.IsNaN(v) {
						v = 0 // no window: nothing killed or lost
					}
					xs = append(xs, v)
				}
				return xs
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", pol, m.name,
				cell(col("mean_wait"), 3600, "%.2f"), cell(col("mean_bsld"), 1, "%.1f"), cell(col("max_wait"), 3600, "%.0f"),
				cell(col("failed_jobs"), 1, "%.0f"), cell(col("attempts"), 1, "%.0f"), cell(col("lost_core_seconds"), 3600, "%.0f"),
				cell(col("utilisation"), 1, "%.4f"), cell(col("promises_broken"), 1, "%.0f"))
		}
	}
	return nil
}
