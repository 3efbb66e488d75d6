// Command summarize turns the Kovalenko et al. (2006) experiments into the
// tables of docs/reproductions/kovalenko2006.md. It reads only the
// campaigns' Parquet files:
//
//	go run ./experiments/kovalenko2006/summarize -dir out
//
// out/kovalenko2006 is experiments/kovalenko2006/grid.toml (the brokers),
// out/kovalenko2006-price price.toml (C and the idle price) and
// out/kovalenko2006-ship ship.toml (the ship rule and the cycle period),
// out/kovalenko2006-stale stale.toml (forecasts published less often, and
// their time-to-live), out/kovalenko2006-budget budget.toml (budgets) and
// out/kovalenko2006-contention contention.toml (the ship rules under a
// heavy global stream) and out/kovalenko2006-pooled pooled.toml (the bound
// of one machine as large as the grid), out/kovalenko2006-cycle cycle.toml
// (a cycle that takes time) and out/kovalenko2006-computers computers.toml
// (each cluster a pool of processors or computers), out/kovalenko2006-clusterc
// clusterc.toml (C of one cluster), out/kovalenko2006-bite bite.toml (the
// ship rules with idle processors priced), out/kovalenko2006-passes
// passes.toml (local jobs passed on forecasts blind to them) and
// out/kovalenko2006-features features.toml (jobs that require a feature of
// one cluster); a campaign not run yet is skipped.
//
// For grid.toml and contention.toml it also prints the capacity left idle
// while waiting work would fit in it (waste.go), the waste claim 5 is about.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/stats"
)

func main() {
	dir := flag.String("dir", "out", "folder holding the campaigns kovalenko2006, kovalenko2006-price, kovalenko2006-ship and the others of experiments/kovalenko2006")
	campaign := flag.String("campaign", "", "instead, one grid campaign folder of any name: its runs grouped by the axes that vary")
	transfer := flag.Int64("transfer", 300, "with -campaign: the global streams' transfer time in seconds, from which a global job counts as waiting in the idle-capacity table")
	flag.Parse()
	err := error(nil)
	if *campaign != "" {
		err = runCampaign(os.Stdout, *campaign, *transfer)
	} else {
		err = run(os.Stdout, *dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "summarize:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, dir string) error {
	for _, c := range []struct {
		name   string
		group  []string
		header string
		title  string
	}{
		{"kovalenko2006", []string{"policy"}, "policy", "The brokers (grid.toml)"},
		{"kovalenko2006-price", []string{"param_idle_price", "param_c"}, "idle price, C", "C and the idle price (price.toml)"},
		{"kovalenko2006-ship", []string{"param_ship", "param_period"}, "rule, period (s)", "The ship rule and the cycle period (ship.toml)"},
		{"kovalenko2006-stale", []string{"param_refresh", "param_ttl"}, "refresh, ttl (s)", "Stale forecasts (stale.toml)"},
		{"kovalenko2006-budget", []string{"workload", "param_idle_price", "param_slots"}, "workload, idle price, slots", "Budgets (budget.toml)"},
		{"kovalenko2006-contention", []string{"policy"}, "policy", "Under contention (contention.toml)"},
		{"kovalenko2006-pooled", []string{"policy"}, "policy", "All clusters pooled (pooled.toml)"},
		{"kovalenko2006-cycle", []string{"workload", "estimates", "param_a1", "param_slots"}, "workload, estimates, a1, slots", "A cycle that takes time (cycle.toml)"},
		{"kovalenko2006-computers", []string{"workload", "param_idle_price", "param_slots"}, "workload, idle price, slots", "A pool of processors or computers (computers.toml)"},
		{"kovalenko2006-clusterc", []string{"param_c_clusters", "param_idle_price", "param_slots"}, "C of kth, idle price, slots", "C per cluster (clusterc.toml)"},
		{"kovalenko2006-bite", []string{"param_ship", "param_slots"}, "rule, slots", "Where prices bite (bite.toml)"},
		{"kovalenko2006-passes", []string{"workload", "param_refresh"}, "workload, refresh (s)", "Local jobs passed on blind forecasts (passes.toml)"},
		{"kovalenko2006-features", []string{"workload", "policy"}, "load-share, policy", "Jobs that require a feature of one cluster (features.toml)"},
	} {
		path := filepath.Join(dir, c.name)
		if _, err := os.Stat(filepath.Join(path, results.RunsFile)); err != nil {
			continue
		}
		// The waste needs the transfer of 300 s that every campaign but
		// pooled.toml's has; it is printed for the brokers at both loads.
		withWaste := c.name == "kovalenko2006" || c.name == "kovalenko2006-contention"
		transfer := int64(-1)
		if withWaste {
			transfer = paperTransfer
		}
		runs, err := readRuns(path, c.group, transfer)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "### %s\n\n", c.title)
		table(w, c.header, runs)
		if c.name == "kovalenko2006-budget" {
			users(w, c.header, runs)
		}
		if c.name == "kovalenko2006-cycle" {
			cycleTable(w, c.header, runs)
		}
		if c.name == "kovalenko2006-computers" {
			paidTable(w, c.header, runs)
		}
		if c.name == "kovalenko2006-clusterc" {
			clusterTable(w, c.header, runs)
		}
		if c.name == "kovalenko2006-passes" {
			passesTable(w, c.header, runs)
		}
		if c.name == "kovalenko2006-features" {
			featureTable(w, c.header, runs)
		}
		if withWaste {
			fmt.Fprintf(w, "Idle capacity while work waits that could use it (shares of the grid's capacity), and the waits of the jobs each broker accepted:\n\n")
			wasteTable(w, c.header, runs)
		}
	}
	return nil
}

// runOf is one completed run: its group (the axis values), its metrics,
// and what its jobs file says of the global jobs.
type runOf struct {
	group   string
	metrics map[string]float64
	// rho is Spearman's correlation of the global jobs' payment per
	// processor-second with their wait; exact counts the global jobs that
	// started at their reservation's time, of started the global jobs that
	// started.
	rho float64
	// cheap and dear are the mean waits of the global jobs in the lowest
	// and the highest quarter of payment rates.
	cheap, dear    float64
	exact, started int
	// charged counts the started global jobs charged more than 0 (the
	// jobs file's cost): those for which a price bit.
	charged int
	// paid sums the costs charged to the started global jobs, offered
	// their payments.
	paid, offered   float64
	rejectedLocal   int
	globalWorkShare float64
	// firstShare is the share of the started global jobs' work that ran
	// on the first cluster (in name order), firstJobs their number there.
	firstShare float64
	firstJobs  int
	// topShare is the share of the global work of the user who ran the
	// most of it; topWait and otherWait the mean waits of that user's
	// global jobs and of the other users'.
	topShare, topWait, otherWait float64
	waste                        waste
	// refused counts the started global jobs refused a reservation at
	// least once; counts are the policy's own (stats.policy_counts).
	refused int
	counts  map[string]int64
	feat    featureStats
}

var metricCols = []string{"global_mean_wait", "global_max_wait", "local_mean_wait", "global_mean_bsld", "local_mean_bsld",
	"utilisation", "global_rejected", "rejected", "refusals", "broken_reservations", "global_jobs", "local_jobs"}

// optionalCols are metric columns read when a campaign has them: each
// cluster's utilisation, named after the clusters of paper 003's grid.
var optionalCols = []string{"utilisation_kth", "utilisation_nasa"}

// readRuns reads the completed runs of a campaign folder, grouped by the
// columns of group, with what their jobs files say; the waste with the
// global jobs' transfer time (waste), none when transfer < 0.
func readRuns(dir string, group []string, transfer int64) ([]runOf, error) {
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, results.RunsFile))
	if err != nil {
		return nil, err
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	for _, g := range append(append(slices.Clone(group), "run_key", "status"), metricCols...) {
		if _, ok := idx[g]; !ok {
			return nil, fmt.Errorf("%s: runs.parquet has no column %s", dir, g)
		}
	}
	var out []runOf
	for _, row := range rows {
		if row[idx["status"]] != "ok" {
			continue
		}
		var parts []string
		for _, g := range group {
			parts = append(parts, fmt.Sprint(row[idx[g]]))
		}
		r := runOf{group: strings.Join(parts, " "), metrics: map[string]float64{}}
		for _, m := range append(slices.Clone(metricCols), optionalCols...) {
			k, ok := idx[m]
			if !ok {
				continue
			}
			switch v := row[k].(type) {
			case float64:
				r.metrics[m] = v
			case int64:
				r.metrics[m] = float64(v)
			}
		}
		if err := r.readJobs(results.CampaignJobsPath(dir, row[idx["run_key"]].(string)), transfer); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (r *runOf) readJobs(path string, transfer int64) error {
	jobs, x, meta, err := results.ReadJobsWith(path)
	if err != nil {
		return err
	}
	if x.Grid == nil {
		return fmt.Errorf("%s: no grid columns", path)
	}
	if err := r.readFeatures(jobs, x.Grid, meta); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if c := meta["stats.policy_counts"]; c != "" {
		if err := json.Unmarshal([]byte(c), &r.counts); err != nil {
			return fmt.Errorf("%s: stats.policy_counts: %w", path, err)
		}
	}
	if transfer >= 0 {
		caps, err := platformCaps(meta)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if r.waste, err = measureWaste(jobs, x.Grid, caps, transfer); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	var rate, wait []float64
	var globalWork, work, firstWork float64
	for i, j := range jobs {
		g := x.Grid[i]
		area := float64(j.Procs) * float64(j.Runtime)
		if g.Rejected {
			if g.Home >= 0 {
				r.rejectedLocal++
			}
			continue
		}
		work += area
		if g.Home >= 0 {
			continue
		}
		globalWork += area
		r.started++
		if j.Cluster == 0 {
			firstWork += area
			r.firstJobs++
		}
		if g.ReservedAt != nil && *g.ReservedAt == j.Start {
			r.exact++
		}
		if g.Refusals > 0 {
			r.refused++
		}
		if g.Cost != nil && *g.Cost > 0 {
			r.charged++
			r.paid += *g.Cost
		}
		r.offered += *g.Payment
		rate = append(rate, *g.Payment/(float64(j.Procs)*float64(j.Walltime)))
		wait = append(wait, float64(j.Wait))
	}
	r.topShare, r.topWait, r.otherWait = topUser(jobs, x.Grid)
	r.rho = spearman(rate, wait)
	r.cheap, r.dear = quarters(rate, wait)
	if work > 0 {
		r.globalWorkShare = globalWork / work
	}
	r.firstShare = math.NaN()
	if globalWork > 0 {
		r.firstShare = firstWork / globalWork
	}
	return nil
}

// topUser finds the user with the most global work (processors x runtime
// of started global jobs; ties to the lower user number) and returns its
// share of that work and the mean waits of its global jobs and of the
// others'.
func topUser(jobs []results.JobRow, grid []results.GridRow) (share, top, other float64) {
	area := map[int64]float64{}
	total := 0.0
	for i, j := range jobs {
		if grid[i].Home < 0 && !grid[i].Rejected {
			area[j.User] += float64(j.Procs) * float64(j.Runtime)
			total += float64(j.Procs) * float64(j.Runtime)
		}
	}
	best, found := int64(0), false
	for u, a := range area {
		if !found || a > area[best] || (a == area[best] && u < best) {
			best, found = u, true
		}
	}
	if !found || total == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	var topSum, otherSum, tn, on float64
	for i, j := range jobs {
		if grid[i].Home >= 0 || grid[i].Rejected {
			continue
		}
		if j.User == best {
			topSum, tn = topSum+float64(j.Wait), tn+1
		} else {
			otherSum, on = otherSum+float64(j.Wait), on+1
		}
	}
	return area[best] / total, topSum / tn, otherSum / max(on, 1)
}

// users prints, per group, the top user's share of the global work and
// the mean waits of its jobs and of the other users' (budget.toml).
func users(w io.Writer, header string, runs []runOf) {
	groups, by := groupRuns(runs)
	fmt.Fprintf(w, "| %s | top user's share of global work | its global jobs' mean wait (h) | other users' (h) |\n|---|---|---|---|\n", header)
	for _, g := range groups {
		col := func(f func(r runOf) float64) []float64 {
			var out []float64
			for _, r := range by[g] {
				out = append(out, f(r))
			}
			return out
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", g, ci(col(func(r runOf) float64 { return r.topShare }), 3),
			ci(col(func(r runOf) float64 { return r.topWait / 3600 }), 2), ci(col(func(r runOf) float64 { return r.otherWait / 3600 }), 2))
	}
	fmt.Fprintln(w)
}

// quarters returns the mean of y over the quarter of the points with the
// lowest x and over the quarter with the highest (ties in x broken by
// order).
func quarters(x, y []float64) (lo, hi float64) {
	n := len(x)
	if n < 4 {
		return math.NaN(), math.NaN()
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return x[order[a]] < x[order[b]] })
	mean := func(ks []int) float64 {
		s := 0.0
		for _, k := range ks {
			s += y[k]
		}
		return s / float64(len(ks))
	}
	return mean(order[:n/4]), mean(order[n-n/4:])
}

// spearman is Spearman's rank correlation, ties given their mean rank.
func spearman(x, y []float64) float64 {
	if len(x) < 3 {
		return math.NaN()
	}
	return stat.Correlation(ranks(x), ranks(y), nil)
}

func ranks(x []float64) []float64 {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return x[order[a]] < x[order[b]] })
	out := make([]float64, len(x))
	for i := 0; i < len(order); {
		j := i
		for j+1 < len(order) && x[order[j+1]] == x[order[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			out[order[k]] = mean
		}
		i = j + 1
	}
	return out
}

// column returns f of each run of rs.
func column(rs []runOf, f func(r runOf) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

// groupRuns returns the groups of runs in their first run's order, and
// the runs of each.
func groupRuns(runs []runOf) ([]string, map[string][]runOf) {
	var groups []string
	by := map[string][]runOf{}
	for _, r := range runs {
		if _, ok := by[r.group]; !ok {
			groups = append(groups, r.group)
		}
		by[r.group] = append(by[r.group], r)
	}
	return groups, by
}

// ci writes a mean with its 95 % Student interval over the replicates.
func ci(xs []float64, digits int) string {
	s := stats.Describe(xs, 0.95)
	f := "%." + fmt.Sprint(digits) + "f"
	if math.IsNaN(s.CI.Lo) {
		return fmt.Sprintf(f, s.Mean)
	}
	return fmt.Sprintf(f+" ["+f+", "+f+"]", s.Mean, s.CI.Lo, s.CI.Hi)
}

func table(w io.Writer, header string, runs []runOf) {
	groups, by := groupRuns(runs)
	fmt.Fprintf(w, "| %s | runs | global mean wait (h) | global max wait (h) | local mean wait (h) | utilisation | global share of work | global jobs charged > 0 | global rejected | local rejected | rho(payment rate, wait) | global wait, cheapest / dearest quarter (h) | started at reservation | refusals | broken |\n",
		header)
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, g := range groups {
		rs := by[g]
		col := func(f func(r runOf) float64) []float64 { return column(rs, f) }
		m := func(name string, scale float64) []float64 {
			return col(func(r runOf) float64 { return r.metrics[name] / scale })
		}
		var exact, started int
		refusals, broken := 0.0, 0.0
		for _, r := range rs {
			exact += r.exact
			started += r.started
			refusals += r.metrics["refusals"]
			broken += r.metrics["broken_reservations"]
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %d/%d | %.0f | %.0f |\n", g, len(rs),
			ci(m("global_mean_wait", 3600), 2), ci(m("global_max_wait", 3600), 1), ci(m("local_mean_wait", 3600), 2),
			ci(m("utilisation", 1), 3), ci(col(func(r runOf) float64 { return r.globalWorkShare }), 3),
			ci(col(func(r runOf) float64 { return float64(r.charged) / float64(max(r.started, 1)) }), 3),
			ci(m("global_rejected", 1), 1), ci(col(func(r runOf) float64 { return float64(r.rejectedLocal) }), 1),
			ci(col(func(r runOf) float64 { return r.rho }), 3),
			ci(col(func(r runOf) float64 { return r.cheap / 3600 }), 2), ci(col(func(r runOf) float64 { return r.dear / 3600 }), 2),
			exact, started, refusals, broken)
	}
	fmt.Fprintln(w)
}
