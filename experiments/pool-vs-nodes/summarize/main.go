// Command summarize turns the four pool-vs-nodes campaigns (SDSC-BLUE,
// LLNL-Thunder, RICC and CEA-Curie, each log in 8 parts run as a pool, on
// its machine's nodes held whole and on them shared; see the manifests
// beside this folder) into the tables of docs/pool-vs-nodes.md. It reads
// only the campaigns' runs.parquet.
//
//	go run ./experiments/pool-vs-nodes/summarize -campaigns out/pool-vs-nodes
//
// Per log and policy, each platform's mean over the 8 parts with a 95 %
// Student t interval (of the mean wait, bounded slowdown and the parts'
// longest waits), its ratio to the pool's over the parts paired (the same
// part), with a bootstrap percentile interval from results/compare (seed
// 31, 10,000 resamples), the promises broken in all, and the means of the
// work done (the cores the jobs use, over capacity and makespan: on a pool
// its utilisation, on nodes the tasks' cores), the cores held (a node whole
// for an exclusive job) and the fragmentation; then, per log, what the
// mapping onto nodes did, summed over the parts.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/results/compare"
	"github.com/schedlab/schedlab/results/stats"
)

// machines are the campaigns, in the write-up's order, with what the
// tables call them.
var machines = []struct{ dir, name string }{
	{"blue", "SDSC-BLUE (144 nodes of 8)"},
	{"thunder", "LLNL-Thunder (1,002 nodes of 4)"},
	{"ricc", "RICC (1,024 nodes of 8, 12 GiB)"},
	{"curie", "CEA-Curie (thin, fat, hybrid)"},
}

var (
	policies  = []string{"fcfs", "easy", "conservative"}
	platforms = []string{"pool", "exclusive", "shared"}
)

func main() {
	root := flag.String("campaigns", "out/pool-vs-nodes", "folder holding the four campaigns")
	flag.Parse()
	if err := run(os.Stdout, *root); err != nil {
		fmt.Fprintln(os.Stderr, "summarize:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, root string) error {
	for _, m := range machines {
		c, err := compare.Load(filepath.Join(root, m.dir))
		if err != nil {
			return err
		}
		if err := table(w, m.name, c); err != nil {
			return fmt.Errorf("%s: %w", m.dir, err)
		}
	}
	return mapping(w, root)
}

// table prints one log's table: per policy and platform, the mean wait and
// bounded slowdown with their ratios to the pool, utilisation, the cores
// held and fragmentation.
func table(w io.Writer, name string, c *compare.Campaign) error {
	ratios := map[string]*compare.Result{}
	for _, metric := range []string{"mean_wait", "mean_bsld"} {
		res, err := compare.Compare(c, compare.Options{Metric: metric, Axis: "platform", Baseline: "pool", By: []string{"policy"}, Seed: 31})
		if err != nil {
			return err
		}
		ratios[metric] = res
	}
	fmt.Fprintf(w, "%s, 8 parts: mean [95 %% interval]; ratio to the pool, paired by part [bootstrap 95 %%]\n\n", name)
	fmt.Fprintln(w, "| policy | platform | mean wait (s) | wait / pool | mean bounded slowdown | bsld / pool | max wait (s) | promises broken | work | cores held | fragmentation |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, pol := range policies {
		for _, pl := range platforms {
			row := []string{pol, pl}
			for _, metric := range []string{"mean_wait", "mean_bsld"} {
				digits := 0
				if metric == "mean_bsld" {
					digits = 1
				}
				row = append(row, meanCI(values(c, pol, pl, metric), digits), ratio(ratios[metric], pol, pl))
			}
			// On a pool the processors used are the work and what is held;
			// on nodes the tasks' cores are the work.
			work, held := "utilisation", "utilisation"
			if pl != "pool" {
				work, held = "task_core_utilisation", "held_core_utilisation"
			}
			row = append(row, meanCI(values(c, pol, pl, "max_wait"), 0), num(sum(values(c, pol, pl, "promises_broken")), 0),
				meanOnly(values(c, pol, pl, work), 3), meanOnly(values(c, pol, pl, held), 3),
				meanOnly(values(c, pol, pl, "fragmentation"), 4))
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
	}
	fmt.Fprintln(w)
	return nil
}

// values returns a metric of the completed runs of a policy on a platform,
// one a part, in part order.
func values(c *compare.Campaign, pol, plat, metric string) []float64 {
	var out []float64
	runs := slices.Clone(c.Runs)
	slices.SortFunc(runs, func(a, b compare.Run) int { return strings.Compare(a.Axes["workload"], b.Axes["workload"]) })
	for _, r := range runs {
		if r.Status != "ok" || r.Axes["policy"] != pol || r.Axes["platform"] != plat {
			continue
		}
		if v, ok := r.Values[metric]; ok {
			out = append(out, v)
		}
	}
	return out
}

func num(x float64, digits int) string {
	s := fmt.Sprintf("%.*f", digits, x)
	// Thousands separated, as the write-up writes numbers.
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := b.String()
	if neg {
		out = "-" + out
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}

func meanCI(xs []float64, digits int) string {
	if len(xs) == 0 {
		return "-"
	}
	s := stats.Describe(xs, 0.95)
	if math.IsNaN(s.CI.Lo) {
		return num(s.Mean, digits)
	}
	return fmt.Sprintf("%s [%s, %s]", num(s.Mean, digits), num(s.CI.Lo, digits), num(s.CI.Hi, digits))
}

func meanOnly(xs []float64, digits int) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.*f", digits, stats.Describe(xs, 0.95).Mean)
}

// ratio is the mean of a platform over the mean of the pool on the same
// parts, with its bootstrap interval.
func ratio(res *compare.Result, pol, plat string) string {
	if plat == "pool" {
		return "1"
	}
	for _, g := range res.Groups {
		if len(g.Key) != 1 || g.Key[0].Value != pol {
			continue
		}
		for _, cmp := range g.Comparisons {
			if cmp.Value != plat {
				continue
			}
			if cmp.RatioBoot == nil || math.IsNaN(cmp.RatioBoot.Lo) {
				return fmt.Sprintf("%.2f", cmp.Ratio)
			}
			return fmt.Sprintf("%.2f [%.2f, %.2f]", cmp.Ratio, cmp.RatioBoot.Lo, cmp.RatioBoot.Hi)
		}
	}
	return "-"
}

// mapping prints what the mapping onto nodes did on each log, summed over
// the parts (of the EASY runs: every policy of a platform maps alike).
func mapping(w io.Writer, root string) error {
	counts := []string{"exclusive_rounded_up", "memory_requested", "memory_unknown", "partition_mapped", "partition_default",
		"oversize_dropped", "walltime_over_limit_dropped"}
	fmt.Fprintln(w, "The mapping onto nodes, summed over the 8 parts (each platform of nodes maps its log alike under every policy)")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| log | platform | jobs | %s |\n", strings.Join(counts, " | "))
	fmt.Fprintf(w, "|---|---|---|%s\n", strings.Repeat("---|", len(counts)))
	for _, m := range machines {
		c, err := compare.Load(filepath.Join(root, m.dir))
		if err != nil {
			return err
		}
		for _, pl := range platforms[1:] {
			row := []string{m.dir, pl, num(sum(values(c, "easy", pl, "jobs")), 0)}
			for _, k := range counts {
				row = append(row, num(sum(values(c, "easy", pl, "nodes_"+k)), 0))
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
	}
	fmt.Fprintln(w)
	return nil
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}
