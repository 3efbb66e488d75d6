// Command summarize turns the Minukhin & Ganzha (2010) experiments into the
// tables of docs/reproductions/minukhin2010.md. It reads only their Parquet
// files (and, with -milp, runs GLPK on regenerated instances):
//
//	go run ./experiments/minukhin2010/summarize -dir out/minukhin2010 -milp 3
//
// table1.parquet is `schedlab groupsel bench` on the paper's grid;
// vars-N.parquet the same at one number of terms for N variables (the
// sweep over n); capsweep-C.parquet at one number of terms and n for
// capacity C (the sweep down to tight capacities); kth-waits/ and policy/ the campaigns
// experiments/minukhin2010/kth-waits.toml and policy.toml. Each part is
// printed when its files are there.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/groupsel/lp"
	"github.com/schedlab/schedlab/groupsel/table1"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/compare"
	"github.com/schedlab/schedlab/results/stats"
	"github.com/schedlab/schedlab/sdk/groupsel"
)

func main() {
	dir := flag.String("dir", "out/minukhin2010", "folder holding table1.parquet, vars-*.parquet and the policy campaign")
	milp := flag.Int("milp", 0, "solve the first N instances of some Table 1 points with GLPK's glpsol and compare")
	var mk mknapRun
	flag.StringVar(&mk.file, "mknapcb", "", "an OR-Library mknapcb file to run the branch and bound on (with -best)")
	flag.StringVar(&mk.best, "best", "", "OR-Library's published values for mknapcb (mkcbres.txt)")
	flag.Int64Var(&mk.maxNodes, "max-nodes", 100000, "the branch and bound's limit in nodes per mknapcb problem")
	flag.Parse()
	if (mk.file == "") != (mk.best == "") {
		fmt.Fprintln(os.Stderr, "summarize: -mknapcb and -best go together")
		os.Exit(2)
	}
	if err := run(os.Stdout, *dir, *milp, mk); err != nil {
		fmt.Fprintln(os.Stderr, "summarize:", err)
		os.Exit(1)
	}
}

// paper is Table 1 of the paper: mean seconds, sequential and on 4 nodes.
var paper = map[int][2]float64{
	50: {0.05, 0.04}, 60: {0.07, 0.05}, 70: {0.1, 0.06}, 80: {0.13, 0.09}, 90: {0.16, 0.1}, 100: {0.2, 0.12},
	110: {0.23, 0.15}, 120: {0.27, 0.17}, 130: {0.31, 0.2}, 140: {0.37, 0.21}, 150: {0.41, 0.24}, 160: {0.46, 0.28},
	170: {0.52, 0.3}, 180: {0.58, 0.32}, 190: {0.62, 0.34}, 200: {0.69, 0.37}, 210: {0.73, 0.39}, 220: {0.8, 0.4},
	230: {0.85, 0.43}, 240: {0.91, 0.48},
}

// row is one solve of a bench file.
type row struct {
	terms, instance, workers int
	seed                     uint64
	method                   string
	value, checked           float64
	paths, nodes, termEvals  float64
	secs                     float64
	agrees                   bool
}

func read(path string) ([]row, results.Metadata, error) {
	cols, rows, meta, err := results.ReadTable(path)
	if err != nil {
		return nil, nil, err
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	var out []row
	for _, r := range rows {
		i64 := func(n string) int64 { return r[idx[n]].(int64) }
		out = append(out, row{terms: int(i64("terms")), instance: int(i64("instance")), workers: int(i64("workers")),
			seed: uint64(i64("seed")), method: r[idx["method"]].(string), value: r[idx["value"]].(float64),
			checked: r[idx["checked_value"]].(float64), paths: float64(i64("paths")), nodes: float64(i64("nodes")),
			termEvals: float64(i64("term_evals")), secs: float64(i64("ns")) / 1e9, agrees: r[idx["agrees"]].(bool)})
	}
	return out, meta, nil
}

// run prints the tables of the experiments found in dir, each skipped when
// its files are absent: the Table 1 grid takes minutes, and the write-up's
// tests check the rest from committed copies (experiments/minukhin2010/runs).
func run(w io.Writer, dir string, milp int, mk mknapRun) error {
	if _, err := os.Stat(filepath.Join(dir, "table1.parquet")); err == nil {
		rows, meta, err := read(filepath.Join(dir, "table1.parquet"))
		if err != nil {
			return err
		}
		if err := table(w, rows, meta); err != nil {
			return err
		}
		if err := capacities(w, dir, rows, meta); err != nil {
			return err
		}
		if milp > 0 {
			if err := checkMILP(w, rows, meta, milp); err != nil {
				return err
			}
		}
	} else if milp > 0 {
		return fmt.Errorf("-milp needs %s", filepath.Join(dir, "table1.parquet"))
	}
	if err := sweep(w, dir); err != nil {
		return err
	}
	if err := capSweep(w, dir); err != nil {
		return err
	}
	if err := termsSweep(w, dir); err != nil {
		return err
	}
	if mk.file != "" {
		if err := mknapcb(w, mk.file, mk.best, mk.maxNodes); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "kth-waits", results.RunsFile)); err == nil {
		if err := kthWaits(w, filepath.Join(dir, "kth-waits")); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "policy", results.RunsFile)); err != nil {
		return nil // the campaign has not run
	}
	return policy(w, filepath.Join(dir, "policy"))
}

// kthWaits prints, per policy of the campaign kth-waits.toml (one
// deterministic run each on KTH-SP2), the mean wait and its ratio to
// EASY's, and the tail: the 95th percentile and the longest wait.
func kthWaits(w io.Writer, dir string) error {
	c, err := compare.Load(dir)
	if err != nil {
		return err
	}
	by := map[string]map[string]float64{}
	for _, r := range c.Runs {
		if r.Status != "ok" {
			return fmt.Errorf("%s: run %s is %s", dir, r.Label, r.Status)
		}
		by[r.Axes["policy"]] = r.Values
	}
	easy, ok := by["easy"]
	if !ok {
		return fmt.Errorf("%s: no run of easy", dir)
	}
	fmt.Fprintf(w, "### Waits on KTH-SP2\n\n")
	fmt.Fprintln(w, "| policy | mean wait (s) | / easy | p95 wait (s) | max wait (s) | max wait (days) | / easy |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, pol := range c.Values("policy") {
		v := by[pol]
		fmt.Fprintf(w, "| %s | %.0f | %.2f | %.0f | %.0f | %.1f | %.2f |\n", pol, v["mean_wait"], v["mean_wait"]/easy["mean_wait"],
			v["p95_wait"], v["max_wait"], v["max_wait"]/86400, v["max_wait"]/easy["max_wait"])
	}
	fmt.Fprintln(w)
	return nil
}

// workersOf lists the worker counts of the rank solves.
func workersOf(rows []row) []int {
	var ws []int
	for _, r := range rows {
		if r.method == "rank" && !slices.Contains(ws, r.workers) {
			ws = append(ws, r.workers)
		}
	}
	slices.Sort(ws)
	return ws
}

// table prints Table 1 beside ours: mean seconds per number of terms and
// worker count with 95 % intervals, the parallel ratio, paths, and the
// branch and bound's time.
func table(w io.Writer, rows []row, meta results.Metadata) error {
	ws := workersOf(rows)
	by := map[[3]any][]float64{}
	paths := map[int][]float64{}
	var termsList []int
	agree, total := 0, 0
	for _, r := range rows {
		k := [3]any{r.terms, r.method, r.workers}
		by[k] = append(by[k], r.secs)
		if !slices.Contains(termsList, r.terms) {
			termsList = append(termsList, r.terms)
		}
		if r.method == "rank" {
			total++
			if r.agrees {
				agree++
			}
			if r.workers == 1 {
				paths[r.terms] = append(paths[r.terms], r.paths)
			}
		}
	}
	fmt.Fprintf(w, "### Table 1: mean solve time against the number of terms\n\n")
	fmt.Fprintf(w, "%s instances per point, %s variables, degree %s, %s constraints, coefficients %s, capacity %s of each constraint's sum, shared terms %s; schedlab %s, %s, %s.\n\n",
		meta["table1.instances"], meta["table1.vars"], meta["table1.degree"], meta["table1.constraints"], meta["table1.coefficients"],
		meta["table1.capacity"], meta["table1.shared"], meta["schedlab.version"], meta["go.version"], meta["os_arch"])
	fmt.Fprint(w, "| terms | paper seq (s) | paper 4 nodes (s) | paper 4 nodes / seq |")
	for _, n := range ws {
		fmt.Fprintf(w, " rank, %d worker(s) (s) |", n)
	}
	for _, n := range ws[1:] {
		fmt.Fprintf(w, " %d / 1 worker |", n)
	}
	fmt.Fprintln(w, " paths (mean) | bnb (ms) |")
	fmt.Fprint(w, "|---|---|---|---|")
	for range len(ws)*2 - 1 {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w, "---|---|")
	for _, t := range termsList {
		p := paper[t]
		fmt.Fprintf(w, "| %d | %.2f | %.2f | %.2f |", t, p[0], p[1], p[1]/p[0])
		for _, n := range ws {
			s := stats.Describe(by[[3]any{t, "rank", n}], 0.95)
			fmt.Fprintf(w, " %.3f [%.3f, %.3f] |", s.Mean, s.CI.Lo, s.CI.Hi)
		}
		base := stats.Describe(by[[3]any{t, "rank", ws[0]}], 0.95).Mean
		for _, n := range ws[1:] {
			fmt.Fprintf(w, " %.2f |", stats.Describe(by[[3]any{t, "rank", n}], 0.95).Mean/base)
		}
		fmt.Fprintf(w, " %.0f | %.3f |\n", stats.Describe(paths[t], 0.95).Mean, 1000*stats.Describe(by[[3]any{t, "bnb", 1}], 0.95).Mean)
	}
	first, last := termsList[0], termsList[len(termsList)-1]
	growth := func(m string, n int) float64 {
		return stats.Describe(by[[3]any{last, m, n}], 0.95).Mean / stats.Describe(by[[3]any{first, m, n}], 0.95).Mean
	}
	fmt.Fprintf(w, "\nFrom %d to %d terms the paper's sequential time grows %.1fx, its parallel time %.1fx; ours (1 worker) %.2fx.\n",
		first, last, paper[last][0]/paper[first][0], paper[last][1]/paper[first][1], growth("rank", 1))
	// The mean over the points of the parallel-to-sequential ratio: the
	// paper's "on average 40 % more efficient".
	paperMean := 0.0
	for _, t := range termsList {
		paperMean += paper[t][1] / paper[t][0]
	}
	fmt.Fprintf(w, "Mean over the points of the ratio to the sequential time: the paper's 4 nodes %.2f", paperMean/float64(len(termsList)))
	for _, n := range ws[1:] {
		sum := 0.0
		for _, t := range termsList {
			sum += stats.Describe(by[[3]any{t, "rank", n}], 0.95).Mean / stats.Describe(by[[3]any{t, "rank", ws[0]}], 0.95).Mean
		}
		fmt.Fprintf(w, "; ours, %d workers, %.2f", n, sum/float64(len(termsList)))
	}
	fmt.Fprintln(w, ".")
	fmt.Fprintf(w, "The rank approach agrees with the branch and bound, value and selection, on %d of %d solves.\n\n", agree, total)
	return nil
}

// capacities compares the reading of the capacities: the main grid's and
// those of the capacity-X.parquet files, by the first and last number of
// terms.
func capacities(w io.Writer, dir string, main []row, meta results.Metadata) error {
	files, _ := filepath.Glob(filepath.Join(dir, "capacity-*.parquet"))
	if len(files) == 0 {
		return nil
	}
	type set struct {
		capacity string
		rows     []row
		inst     string
	}
	sets := []set{{meta["table1.capacity"], main, meta["table1.instances"]}}
	for _, f := range files {
		rows, m, err := read(f)
		if err != nil {
			return err
		}
		sets = append(sets, set{m["table1.capacity"], rows, m["table1.instances"]})
	}
	slices.SortFunc(sets, func(a, b set) int { return strings.Compare(a.capacity, b.capacity) })
	fmt.Fprintf(w, "### The capacities, which the paper does not give\n\n")
	fmt.Fprintln(w, "| capacity (share of each constraint's sum) | instances per point | paths at 50 terms | paths at 240 terms | rank, 1 worker, 50 terms (s) | 240 terms (s) | growth |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, st := range sets {
		at := func(terms int) (paths, secs float64) {
			var ps, ss []float64
			for _, r := range st.rows {
				if r.terms == terms && r.method == "rank" && r.workers == 1 {
					ps, ss = append(ps, r.paths), append(ss, r.secs)
				}
			}
			return stats.Describe(ps, 0.95).Mean, stats.Describe(ss, 0.95).Mean
		}
		p50, s50 := at(50)
		p240, s240 := at(240)
		fmt.Fprintf(w, "| %s | %s | %.0f | %.0f | %.3f | %.3f | %.2fx |\n", st.capacity, st.inst, p50, p240, s50, s240, s240/s50)
	}
	fmt.Fprintln(w)
	return nil
}

// sweep prints time and paths against the number of variables, from the
// vars-N.parquet files.
func sweep(w io.Writer, dir string) error {
	files, _ := filepath.Glob(filepath.Join(dir, "vars-*.parquet"))
	type point struct {
		n                       int
		terms                   string
		secs, secs2, paths, bnb stats.Summary
		inst, agree, total      int
	}
	var pts []point
	for _, f := range files {
		rows, meta, err := read(f)
		if err != nil {
			return err
		}
		n, _ := strconv.Atoi(meta["table1.vars"])
		var secs, secs2, paths, bnb []float64
		p := point{n: n, terms: meta["table1.terms"]}
		for _, r := range rows {
			if r.method == "rank" { // every rank solve is checked, on any number of workers
				p.total++
				if r.agrees {
					p.agree++
				}
			}
			switch {
			case r.method == "rank" && r.workers == 2:
				secs2 = append(secs2, r.secs)
			case r.method == "rank" && r.workers == 1:
				secs = append(secs, r.secs)
				paths = append(paths, r.paths)
			case r.method == "bnb":
				bnb = append(bnb, r.secs)
				p.inst++
			}
		}
		p.secs, p.paths, p.bnb = stats.Describe(secs, 0.95), stats.Describe(paths, 0.95), stats.Describe(bnb, 0.95)
		p.secs2 = stats.Describe(secs2, 0.95)
		pts = append(pts, p)
	}
	if len(pts) == 0 {
		return nil
	}
	slices.SortFunc(pts, func(a, b point) int { return a.n - b.n })
	fmt.Fprintf(w, "### Time against the number of variables\n\n%d instances per point, %s terms.\n\n", pts[0].inst, strings.Trim(pts[0].terms, "[]"))
	// The 2-worker columns (claim 3 along n) when every point has them.
	two := true
	for _, p := range pts {
		two = two && p.secs2.N > 0
	}
	head, rule := "| variables n | 2^n | paths (mean) | paths / 2^n | rank, 1 worker (s) |", "|---|---|---|---|---|"
	if two {
		head, rule = head+" rank, 2 workers (s) | 2 / 1 worker |", rule+"---|---|"
	}
	fmt.Fprintln(w, head+" bnb (ms) | agree |")
	fmt.Fprintln(w, rule+"---|---|")
	for i, p := range pts {
		growth := ""
		if i > 0 {
			growth = fmt.Sprintf(" (x%.2f)", p.secs.Mean/pts[i-1].secs.Mean)
		}
		fmt.Fprintf(w, "| %d | %d | %.0f | %.3f | %.4f [%.4f, %.4f]%s |", p.n, 1<<p.n, p.paths.Mean,
			p.paths.Mean/math.Ldexp(1, p.n), p.secs.Mean, p.secs.CI.Lo, p.secs.CI.Hi, growth)
		if two {
			fmt.Fprintf(w, " %.4f [%.4f, %.4f] | %.2f |", p.secs2.Mean, p.secs2.CI.Lo, p.secs2.CI.Hi, p.secs2.Mean/p.secs.Mean)
		}
		fmt.Fprintf(w, " %.3f | %d/%d |\n", 1000*p.bnb.Mean, p.agree, p.total)
	}
	fmt.Fprintln(w)
	return nil
}

// capSweep prints, from the capsweep-C.parquet files (one number of terms
// and of variables, capacity C), against the capacity: first the work of
// each method, counted and so the same on every machine (the rank
// approach's paths and term evaluations, the branch and bound's nodes and
// term evaluations), with the share of the 2^n selections the paths are
// (every feasible selection is a path: a selection's subsets use no more
// of any resource); then, as a side reading, their times on 1 worker.
func capSweep(w io.Writer, dir string) error {
	files, _ := filepath.Glob(filepath.Join(dir, "capsweep-*.parquet"))
	type point struct {
		capacity                    float64
		n                           int
		terms                       string
		rank, bnb, paths, rankEvals stats.Summary
		nodes, bnbEvals             stats.Summary
		minNodes, maxNodes          float64
		faster, fewer, agree, all   int
	}
	var pts []point
	for _, f := range files {
		rows, meta, err := read(f)
		if err != nil {
			return err
		}
		p := point{terms: meta["table1.terms"], minNodes: math.Inf(1)}
		p.capacity, _ = strconv.ParseFloat(meta["table1.capacity"], 64)
		p.n, _ = strconv.Atoi(meta["table1.vars"])
		var rank, bnb, paths, rankEvals, nodes, bnbEvals []float64
		rankAt, bnbAt := map[int]float64{}, map[int]float64{}
		pathsAt, nodesAt := map[int]float64{}, map[int]float64{}
		for _, r := range rows {
			switch {
			case r.method == "rank" && r.workers == 1:
				rank, paths, rankEvals = append(rank, r.secs), append(paths, r.paths), append(rankEvals, r.termEvals)
				rankAt[r.instance], pathsAt[r.instance] = r.secs, r.paths
				p.all++
				if r.agrees {
					p.agree++
				}
			case r.method == "bnb":
				bnb, nodes, bnbEvals = append(bnb, r.secs), append(nodes, r.nodes), append(bnbEvals, r.termEvals)
				bnbAt[r.instance], nodesAt[r.instance] = r.secs, r.nodes
				p.minNodes, p.maxNodes = min(p.minNodes, r.nodes), max(p.maxNodes, r.nodes)
			}
		}
		for i, b := range bnbAt {
			if r, ok := rankAt[i]; ok && b < r {
				p.faster++
			}
			if n, ok := pathsAt[i]; ok && nodesAt[i] < n {
				p.fewer++
			}
		}
		p.rank, p.bnb, p.paths = stats.Describe(rank, 0.95), stats.Describe(bnb, 0.95), stats.Describe(paths, 0.95)
		p.rankEvals, p.nodes, p.bnbEvals = stats.Describe(rankEvals, 0.95), stats.Describe(nodes, 0.95), stats.Describe(bnbEvals, 0.95)
		pts = append(pts, p)
	}
	if len(pts) == 0 {
		return nil
	}
	slices.SortFunc(pts, func(a, b point) int { return -cmp.Compare(a.capacity, b.capacity) })
	fmt.Fprintf(w, "### Work and time against the capacity\n\n%d instances per point, %d variables, %s terms, 1 worker.\n\n",
		pts[0].bnb.N, pts[0].n, strings.Trim(pts[0].terms, "[]"))
	fmt.Fprintln(w, "The work, counted (the same on every machine), means over the instances:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| capacity (share of each constraint's sum) | rank: paths | paths / 2^n (feasible share) | rank: term evaluations | bnb: nodes (min, max) | bnb: term evaluations | bnb nodes / rank paths | fewer bnb nodes than rank paths (instances) | bnb term evaluations / rank's |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, p := range pts {
		fmt.Fprintf(w, "| %g | %.0f | %.3f | %.0f | %.0f (%.0f, %.0f) | %.0f | %.4f | %d/%d | %.3f |\n", p.capacity, p.paths.Mean,
			p.paths.Mean/math.Ldexp(1, p.n), p.rankEvals.Mean, p.nodes.Mean, p.minNodes, p.maxNodes, p.bnbEvals.Mean,
			p.nodes.Mean/p.paths.Mean, p.fewer, p.nodes.N, p.bnbEvals.Mean/p.rankEvals.Mean)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The time, a side reading (one run on a shared machine), means [95 % t interval]:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| capacity | rank, 1 worker (ms) | bnb (ms) | bnb / rank | bnb faster (instances) | rank (µs per path) | bnb (µs per node) | agree |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, p := range pts {
		fmt.Fprintf(w, "| %g | %.1f [%.1f, %.1f] | %.2f [%.2f, %.2f] | %.3f | %d/%d | %.2f | %.2f | %d/%d |\n", p.capacity,
			1000*p.rank.Mean, 1000*p.rank.CI.Lo, 1000*p.rank.CI.Hi,
			1000*p.bnb.Mean, 1000*p.bnb.CI.Lo, 1000*p.bnb.CI.Hi, p.bnb.Mean/p.rank.Mean, p.faster, p.bnb.N,
			1e6*p.rank.Mean/p.paths.Mean, 1e6*p.bnb.Mean/p.nodes.Mean, p.agree, p.all)
	}
	fmt.Fprintln(w)
	return nil
}

// checkMILP regenerates the first n instances of the first, middle and
// last points, solves them with glpsol and compares with the branch and
// bound's values in the rows.
func checkMILP(w io.Writer, rows []row, meta results.Metadata, n int) error {
	glpsol, err := exec.LookPath("glpsol")
	if err != nil {
		return fmt.Errorf("-milp needs glpsol (apt-get install glpk-utils): %w", err)
	}
	p := table1.Paper(0)
	p.Vars, _ = strconv.Atoi(meta["table1.vars"])
	p.Degree, _ = strconv.Atoi(meta["table1.degree"])
	p.Constraints, _ = strconv.Atoi(meta["table1.constraints"])
	p.Capacity, _ = strconv.ParseFloat(meta["table1.capacity"], 64)
	p.Shared = meta["table1.shared"] == "true"
	seed, _ := strconv.ParseUint(meta["table1.seed"], 10, 64)
	var terms []int
	for _, r := range rows {
		if !slices.Contains(terms, r.terms) {
			terms = append(terms, r.terms)
		}
	}
	picked := []int{terms[0], terms[len(terms)/2], terms[len(terms)-1]}
	tmp, err := os.MkdirTemp("", "minukhin2010-milp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	same, total := 0, 0
	for _, t := range picked {
		p.Terms = t
		for i := range n {
			var want *row
			for k := range rows {
				if rows[k].terms == t && rows[k].instance == i && rows[k].method == "bnb" {
					want = &rows[k]
				}
			}
			if want == nil {
				return fmt.Errorf("no branch-and-bound row for terms %d instance %d", t, i)
			}
			in, err := table1.Generate(p, rand.New(rand.NewPCG(seed, want.seed)))
			if err != nil {
				return err
			}
			v, err := glpk(glpsol, tmp, in)
			if err != nil {
				return err
			}
			total++
			if math.Abs(v-want.value) < 1e-6 {
				same++
			}
		}
	}
	fmt.Fprintf(w, "GLPK (glpsol, products linearised) finds the optimal value of the rows on %d of %d regenerated instances (the first %d of %d, %d and %d terms).\n\n",
		same, total, n, picked[0], picked[1], picked[2])
	return nil
}

func glpk(glpsol, dir string, in *groupsel.Instance) (float64, error) {
	path := filepath.Join(dir, "i.lp")
	if err := lp.WriteFile(path, in); err != nil {
		return 0, err
	}
	sol := filepath.Join(dir, "i.sol")
	if out, err := exec.Command(glpsol, "--lp", path, "-w", sol).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("glpsol: %w\n%s", err, out)
	}
	text, err := os.ReadFile(sol)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(text), "\n") {
		if f := strings.Fields(line); len(f) == 6 && f[0] == "s" && f[1] == "mip" && f[4] == "o" {
			return strconv.ParseFloat(f[5], 64)
		}
	}
	return 0, fmt.Errorf("glpsol found no optimum:\n%s", text)
}

// policy prints the campaign's mean wait and bounded slowdown per workload
// and policy, with ratios to EASY over paired runs.
func policy(w io.Writer, dir string) error {
	c, err := compare.Load(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "### The policy against backfilling\n\n")
	for _, metric := range []string{"mean_wait", "mean_bsld"} {
		res, err := compare.Compare(c, compare.Options{Metric: metric, Axis: "policy", Baseline: "easy", Resamples: 2000, Seed: 1})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s, mean over the replicates [95 %% t interval], and the ratio to EASY over paired runs [95 %% bootstrap]:\n\n", metric)
		fmt.Fprintln(w, "| workload | policy | mean | ratio to easy |")
		fmt.Fprintln(w, "|---|---|---|---|")
		for _, g := range res.Groups {
			wl := g.Key[0].Value
			for _, lv := range g.Levels {
				ratio := "(baseline)"
				for _, cmp := range g.Comparisons {
					if cmp.Value == lv.Value && cmp.RatioBoot != nil {
						ratio = fmt.Sprintf("%.3f [%.3f, %.3f]", cmp.Ratio, cmp.RatioBoot.Lo, cmp.RatioBoot.Hi)
						if cmp.RatioBoot.Lo == cmp.RatioBoot.Hi {
							ratio = fmt.Sprintf("%.3f (deterministic)", cmp.Ratio)
						}
					}
				}
				s := lv.Summary
				mean := fmt.Sprintf("%.4g [%.4g, %.4g]", s.Mean, s.CI.Lo, s.CI.Hi)
				if s.SD == 0 {
					mean = fmt.Sprintf("%.4g", s.Mean)
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s |\n", wl, lv.Value, mean, ratio)
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}
