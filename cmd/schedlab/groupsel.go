package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/groupsel/mknap"
	"github.com/schedlab/schedlab/groupsel/opb"
	"github.com/schedlab/schedlab/groupsel/table1"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/sdk/groupsel"
)

func newGroupselCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "groupsel", Short: "group selection of jobs as a 0-1 problem (paper 001): solve instances, run Table 1"}
	cmd.AddCommand(newGroupselSolveCmd(), newGroupselBenchCmd())
	return cmd
}

type solveFlags struct {
	method, format, use string
	best                string
	workers, maxPaths   int
	maxNodes            int64
	instance            int
	asJSON              bool
}

func newGroupselSolveCmd() *cobra.Command {
	var f solveFlags
	cmd := &cobra.Command{
		Use:   "solve FILE [--method rank|bnb] [--workers N] [--json]",
		Short: "solve a 0-1 instance (OPB, or an OR-Library mknap file) and print the optimum",
		Long: `Solve a 0-1 instance: a pseudo-Boolean competition OPB file (min: or max:
objective, >=, = and <= constraints, products of literals) or an OR-Library
multidimensional knapsack file (mknap1, mknapcb*: several problems, each with
its published optimum), with the rank approach of Minukhin & Ganzha (2010)
or the branch and bound that checks it (see docs/groupsel.md).

The value is in the file's own sense (OPB: the minimised or maximised
objective; mknap: the maximised profit). selected lists the variables set
to 1, numbered from 1 as the files number them (x3 is 3). Among selections
of equal value the one with less resource use (--use), then the one holding
the earlier variable, is printed.

A search stopped at its limit (--max-paths, --max-nodes: counted in paths or
nodes, so the answer is the same on every machine) prints the best selection
it found with its bound and gap, and, beside a published optimum, whether
the optimum lies between the value and the bound. The mknapcb files state no
optimum; --best mkcbres.txt sets OR-Library's published best known value (a
feasible value found by Chu & Beasley's genetic algorithm, not a proved
optimum) and LP bound beside each answer, with whether the best known value
lies between the value and the bound.

Exit status: 0 solved; 1 infeasible, or a search stopped at its limit (its
best selection printed); 2 bad input (a malformed file, named with its line).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return groupselSolve(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.method, "method", "rank", "rank (the paper's rank approach) or bnb (branch and bound)")
	fl.StringVar(&f.format, "format", "auto", "opb, mknap, or auto (opb for a .opb file or one holding ;)")
	fl.StringVar(&f.use, "use", string(groupsel.UseSum), "how constraints combine into the resource use that breaks ties: sum, lex or max-share")
	fl.IntVar(&f.workers, "workers", 1, "goroutines extending each rank's paths (rank); the result is the same for any number")
	fl.IntVar(&f.maxPaths, "max-paths", groupsel.DefaultMaxPaths, "the rank approach stops past this many paths, with the best selection found and its gap (exit 1)")
	fl.Int64Var(&f.maxNodes, "max-nodes", groupsel.DefaultMaxNodes, "the branch and bound stops past this many nodes, with the best selection found and its gap (exit 1)")
	fl.IntVar(&f.instance, "instance", 0, "solve only this problem of an mknap file (from 1; default all)")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON: an object, or an array for several mknap problems")
	fl.StringVar(&f.best, "best", "", "OR-Library's published values for the mknapcb files (mkcbres.txt): each problem's best known value and LP bound, set beside the answer")
	return cmd
}

// solved is one problem's answer, as --json prints it.
type solved struct {
	File     string   `json:"file"`
	Instance int      `json:"instance,omitempty"`
	Value    float64  `json:"value"`
	Selected []int    `json:"selected"`
	Method   string   `json:"method"`
	Use      string   `json:"use"`
	Seconds  float64  `json:"seconds"`
	Optimum  *float64 `json:"published_optimum,omitempty"`
	Matches  *bool    `json:"matches_published,omitempty"`
	// Best and LP are OR-Library's published best known value and LP
	// bound (--best), Within whether Best lies between Value and Bound.
	Best   *float64 `json:"published_best,omitempty"`
	LP     *float64 `json:"published_lp,omitempty"`
	Within *bool    `json:"best_within,omitempty"`
	// Optimal is false for a solve stopped at its limit (--max-paths,
	// --max-nodes): Value is then the best selection found, Bound the best
	// any selection can reach as far as the solver proved, Gap their
	// distance.
	Optimal bool           `json:"optimal"`
	Bound   float64        `json:"bound"`
	Gap     float64        `json:"gap"`
	Stats   groupsel.Stats `json:"stats"`
}

func groupselSolve(cmd *cobra.Command, path string, f solveFlags) error {
	method := groupsel.Method(f.method)
	if method != groupsel.MethodRank && method != groupsel.MethodBnB {
		return &exitError{exitBadInput, fmt.Errorf("--method %q: want rank or bnb", f.method)}
	}
	opts := groupsel.Options{Use: groupsel.UseRule(f.use), Workers: f.workers, MaxPaths: f.maxPaths, MaxNodes: f.maxNodes}
	if f.workers < 1 {
		return &exitError{exitBadInput, fmt.Errorf("--workers %d: want at least 1", f.workers)}
	}
	probs, err := readInstances(path, f.format)
	if err != nil {
		return err
	}
	if f.best != "" && probs[0].number == 0 {
		return &exitError{exitBadInput, fmt.Errorf("--best: %s is not an mknap file", path)}
	}
	if f.instance != 0 {
		if f.instance < 1 || f.instance > len(probs) {
			return &exitError{exitBadInput, fmt.Errorf("--instance %d: %s holds problems 1 to %d", f.instance, path, len(probs))}
		}
		probs = probs[f.instance-1 : f.instance]
	}
	var best map[string]mknap.Best
	if f.best != "" {
		if best, err = mknap.ReadBestFile(f.best); err != nil {
			return &exitError{exitBadInput, err}
		}
		for _, p := range probs {
			if best[p.name].Value == 0 {
				return &exitError{exitBadInput, fmt.Errorf("--best %s: no best value for %s (%s, problem %d)", f.best, p.name, path, p.number)}
			}
		}
	}
	var out []solved
	var stopped []string
	for _, p := range probs {
		began := time.Now()
		s, err := groupsel.Solve(p.in, method, opts)
		where := path
		if p.number > 0 {
			where = fmt.Sprintf("%s, problem %d", path, p.number)
		}
		switch {
		case errors.Is(err, groupsel.ErrBudget) && s != nil:
			// The best selection found is an answer with a proved gap:
			// printed like the others, the exit status says it is not
			// proved optimal.
			stopped = append(stopped, where)
		case errors.Is(err, groupsel.ErrInstance) || err != nil && strings.Contains(err.Error(), "unknown use rule"):
			return &exitError{exitBadInput, fmt.Errorf("%s: %w", where, err)}
		case err != nil:
			return fmt.Errorf("%s: %w", where, err)
		}
		r := solved{File: path, Instance: p.number, Value: s.Value, Method: string(method), Use: cmp.Or(f.use, "sum"),
			Seconds: time.Since(began).Seconds(), Stats: s.Stats, Selected: make([]int, len(s.Selected)),
			Optimal: s.Optimal, Bound: s.Bound, Gap: s.Gap}
		for i, v := range s.Selected {
			r.Selected[i] = v + 1
		}
		if p.optimum != nil {
			ok := math.Abs(s.Value-*p.optimum) <= 1e-6*max(1, math.Abs(*p.optimum))
			r.Optimum, r.Matches = p.optimum, &ok
		}
		if best != nil {
			b := best[p.name]
			bound := s.Bound
			if s.Optimal {
				bound = s.Value
			}
			eps := 1e-6 * max(1, math.Abs(b.Value))
			in := s.Value-eps <= b.Value && b.Value <= bound+eps
			r.Best, r.Within = &b.Value, &in
			if b.LP != 0 {
				r.LP = &b.LP
			}
		}
		out = append(out, r)
	}
	w := cmd.OutOrStdout()
	if f.asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		var err error
		if len(out) == 1 {
			err = enc.Encode(out[0])
		} else {
			err = enc.Encode(out)
		}
		if err != nil {
			return err
		}
	} else {
		for _, r := range out {
			printSolved(w, r)
		}
	}
	if len(stopped) > 0 {
		return fmt.Errorf("%w: %s stopped at the limit (--max-paths, --max-nodes) with the best selection found, not proved optimal",
			groupsel.ErrBudget, strings.Join(stopped, "; "))
	}
	return nil
}

func printSolved(w io.Writer, r solved) {
	name := r.File
	if r.Instance > 0 {
		name = fmt.Sprintf("%s #%d", r.File, r.Instance)
	}
	vars := make([]string, len(r.Selected))
	for i, v := range r.Selected {
		vars[i] = fmt.Sprintf("x%d", v)
	}
	fmt.Fprintf(w, "%s: value %v, selected %s\n", name, r.Value, cmp.Or(strings.Join(vars, " "), "(none)"))
	st := r.Stats
	switch st.Method {
	case groupsel.MethodRank:
		fmt.Fprintf(w, "  rank approach, %d worker(s): %d paths over %d ranks, %d cut, %d term evaluations, %d feasible, %.3f s\n",
			st.Workers, st.Paths, len(st.Ranks), st.Cuts, st.TermEvals, st.Feasible, r.Seconds)
	default:
		fmt.Fprintf(w, "  branch and bound: %d nodes, %d pruned, %d term evaluations, %d feasible leaves, %.3f s\n",
			st.Nodes, st.Pruned, st.TermEvals, st.Feasible, r.Seconds)
	}
	if !r.Optimal {
		fmt.Fprintf(w, "  stopped at its limit: the best selection found, bound %v, gap %v\n", r.Bound, r.Gap)
	}
	if r.Best != nil {
		lp := "no LP bound published"
		if r.LP != nil {
			lp = fmt.Sprintf("LP bound %v", *r.LP)
		}
		fmt.Fprintf(w, "  published best known %v (%s): %s\n", *r.Best, lp,
			map[bool]string{true: "within the value and the bound", false: "OUTSIDE the value and the bound"}[*r.Within])
	}
	switch {
	case r.Optimum == nil:
	case r.Optimal:
		fmt.Fprintf(w, "  published optimum %v: %s\n", *r.Optimum, map[bool]string{true: "matches", false: "DIFFERS"}[*r.Matches])
	default:
		// Stopped: the published optimum must lie between the value found
		// and the bound, whichever the sense.
		lo, hi := min(r.Value, r.Bound), max(r.Value, r.Bound)
		eps := 1e-6 * max(1, math.Abs(*r.Optimum))
		in := lo-eps <= *r.Optimum && *r.Optimum <= hi+eps
		fmt.Fprintf(w, "  published optimum %v: %s\n", *r.Optimum, map[bool]string{true: "within the value and the bound", false: "OUTSIDE the value and the bound"}[in])
	}
}

// problem is one instance read from a file.
type problem struct {
	in      *groupsel.Instance
	number  int      // within an mknap file, from 1; 0 for OPB
	optimum *float64 // an mknap file's published optimum, when not 0
	name    string   // an mknap problem's name in OR-Library's results, m.n-kk
}

// readInstances reads an OPB or mknap file; a malformed one is bad input.
func readInstances(path, format string) ([]problem, error) {
	if format == "auto" {
		format = "mknap"
		if strings.EqualFold(filepath.Ext(path), ".opb") {
			format = "opb"
		} else if b, err := os.ReadFile(path); err == nil && strings.ContainsAny(string(b), ";x") {
			format = "opb"
		}
	}
	bad := func(err error) error {
		var oe *opb.Error
		var me *mknap.Error
		if errors.As(err, &oe) || errors.As(err, &me) || errors.Is(err, groupsel.ErrInstance) || errors.Is(err, os.ErrNotExist) {
			return &exitError{exitBadInput, err}
		}
		return err
	}
	switch format {
	case "opb":
		in, err := opb.ReadFile(path)
		if err != nil {
			return nil, bad(err)
		}
		return []problem{{in: in}}, nil
	case "mknap":
		ps, err := mknap.ReadFile(path)
		if err != nil {
			return nil, bad(err)
		}
		out := make([]problem, len(ps))
		for i, p := range ps {
			out[i] = problem{in: p.Instance, number: i + 1, name: mknap.Name(p, i+1)}
			if p.Optimum != 0 {
				opt := p.Optimum
				out[i].optimum = &opt
			}
		}
		return out, nil
	}
	return nil, &exitError{exitBadInput, fmt.Errorf("--format %q: want opb, mknap or auto", format)}
}

type benchFlags struct {
	terms                      string
	instances, vars, degree, m int
	capacity                   float64
	separate                   bool
	workers                    []int
	seed                       uint64
	out, use                   string
	maxPaths                   int
}

func newGroupselBenchCmd() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench --out FILE.parquet [--terms 50:240:10] [--instances 50] [--workers 1,2,4]",
		Short: "run the Table 1 benchmark of Minukhin & Ganzha (2010): solve times against the number of terms",
		Long: `Draw the instances of Table 1 of Minukhin & Ganzha (2010) with the paper's
generator (--vars variables, --constraints constraints, coefficients 1..100,
terms of up to --degree variables, --instances per number of terms), solve each
with the branch and bound and with the rank approach on each --workers count,
check that they agree, and write one Parquet row per solve (--out). A table of
mean solve times per number of terms follows, the paper's beside ours (its
times are from 2010 hardware in MC#: compare shapes and ratios, not seconds).
The capacity of each constraint is --capacity of the sum of its coefficients;
the paper gives none (docs/groupsel.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return groupselBench(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.terms, "terms", "50:240:10", "numbers of terms: FROM:TO:STEP, or a comma-separated list")
	fl.IntVar(&f.instances, "instances", 50, "instances per number of terms")
	fl.IntVar(&f.vars, "vars", 20, "variables (jobs)")
	fl.IntVar(&f.degree, "degree", 20, "most variables in a term")
	fl.IntVar(&f.m, "constraints", 3, "constraints (resources)")
	fl.Float64Var(&f.capacity, "capacity", 0.5, "each constraint's bound, as a share of the sum of its coefficients")
	fl.BoolVar(&f.separate, "separate-terms", false, "draw the objective's and each constraint's terms apart instead of sharing them")
	fl.IntSliceVar(&f.workers, "workers", []int{1, 2, 4}, "worker counts of the rank approach")
	fl.Uint64Var(&f.seed, "seed", 2010, "seed of the instances")
	fl.StringVar(&f.out, "out", "", "the Parquet file of rows (required)")
	fl.StringVar(&f.use, "use", string(groupsel.UseSum), "how constraints combine into the resource use that breaks ties: sum, lex or max-share")
	fl.IntVar(&f.maxPaths, "max-paths", groupsel.DefaultMaxPaths, "the rank approach fails past this many paths")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

// paperTable1 is the paper's Table 1: mean seconds, sequential and on 4
// nodes, by number of terms.
var paperTable1 = map[int][2]float64{
	50: {0.05, 0.04}, 60: {0.07, 0.05}, 70: {0.1, 0.06}, 80: {0.13, 0.09}, 90: {0.16, 0.1}, 100: {0.2, 0.12},
	110: {0.23, 0.15}, 120: {0.27, 0.17}, 130: {0.31, 0.2}, 140: {0.37, 0.21}, 150: {0.41, 0.24}, 160: {0.46, 0.28},
	170: {0.52, 0.3}, 180: {0.58, 0.32}, 190: {0.62, 0.34}, 200: {0.69, 0.37}, 210: {0.73, 0.39}, 220: {0.8, 0.4},
	230: {0.85, 0.43}, 240: {0.91, 0.48},
}

func groupselBench(cmd *cobra.Command, f benchFlags) error {
	terms, err := parseTerms(f.terms)
	if err != nil {
		return &exitError{exitBadInput, fmt.Errorf("--terms %q: %w", f.terms, err)}
	}
	b := table1.Bench{Params: table1.Params{Vars: f.vars, Degree: f.degree, MinCoef: 1, MaxCoef: 100, Constraints: f.m,
		Capacity: f.capacity, Shared: !f.separate, Terms: 1}, Terms: terms, Instances: f.instances, Workers: f.workers,
		Seed: f.seed, Options: groupsel.Options{Use: groupsel.UseRule(f.use), MaxPaths: f.maxPaths}}
	if err := b.Params.Validate(); err != nil {
		return &exitError{exitBadInput, err}
	}
	if f.instances < 1 || len(f.workers) == 0 || slices.ContainsFunc(f.workers, func(w int) bool { return w < 1 }) {
		return &exitError{exitBadInput, fmt.Errorf("--instances %d, --workers %v: want at least one instance and worker counts of at least 1", f.instances, f.workers)}
	}
	if !slices.Contains(groupsel.UseRules(), groupsel.UseRule(f.use)) {
		return &exitError{exitBadInput, fmt.Errorf("--use %q: want sum, lex or max-share", f.use)}
	}
	if err := checkWritable(f.out); err != nil {
		return &exitError{exitBadInput, err}
	}
	stderr := cmd.ErrOrStderr()
	rows, err := b.Run(func(terms, i int) {
		if i == f.instances-1 {
			fmt.Fprintf(stderr, "terms %d: %d instances solved\n", terms, f.instances)
		}
	})
	if err != nil {
		return err
	}
	if err := b.Write(f.out, rows, results.Metadata(runner.BuildProvenance())); err != nil {
		return err
	}
	printTable1(cmd.OutOrStdout(), b, rows)
	fmt.Fprintf(cmd.OutOrStdout(), "rows: %s\n", f.out)
	return nil
}

// printTable1 prints mean seconds per number of terms and worker count,
// beside the paper's.
func printTable1(w io.Writer, b table1.Bench, rows []table1.Row) {
	type key struct {
		terms   int
		method  groupsel.Method
		workers int
	}
	secs := map[key][]float64{}
	paths := map[int][]float64{}
	agree, total := 0, 0
	for _, r := range rows {
		k := key{r.Terms, r.Method, r.Workers}
		secs[k] = append(secs[k], float64(r.Nanos)/1e9)
		if r.Method == groupsel.MethodRank {
			total++
			if r.Agrees {
				agree++
			}
			if r.Workers == b.Workers[0] {
				paths[r.Terms] = append(paths[r.Terms], float64(r.Paths))
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "terms\tpaper seq (s)\tpaper 4 nodes (s)\t")
	for _, n := range b.Workers {
		fmt.Fprintf(tw, "rank %dw (s)\t", n)
	}
	fmt.Fprintln(tw, "bnb (s)\tmean paths\t")
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(max(1, len(xs)))
	}
	for _, t := range b.Terms {
		p, ok := paperTable1[t]
		if ok {
			fmt.Fprintf(tw, "%d\t%.2f\t%.2f\t", t, p[0], p[1])
		} else {
			fmt.Fprintf(tw, "%d\t-\t-\t", t)
		}
		for _, n := range b.Workers {
			fmt.Fprintf(tw, "%.4f\t", mean(secs[key{t, groupsel.MethodRank, n}]))
		}
		fmt.Fprintf(tw, "%.5f\t%.0f\t\n", mean(secs[key{t, groupsel.MethodBnB, 1}]), mean(paths[t]))
	}
	tw.Flush()
	fmt.Fprintf(w, "the rank approach agrees with the branch and bound (value and selection) on %d of %d solves\n", agree, total)
}

func parseTerms(s string) ([]int, error) {
	if parts := strings.Split(s, ":"); len(parts) == 3 {
		var v [3]int
		for i, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil {
				return nil, err
			}
			v[i] = n
		}
		if v[0] < 1 || v[1] < v[0] || v[2] < 1 {
			return nil, fmt.Errorf("want FROM:TO:STEP with 1 <= FROM <= TO and STEP >= 1")
		}
		var out []int
		for t := v[0]; t <= v[1]; t += v[2] {
			out = append(out, t)
		}
		return out, nil
	}
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a number of terms", p)
		}
		out = append(out, n)
	}
	return out, nil
}

// checkWritable fails before any work when path's folder cannot take the
// file.
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".write-test-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}
