package compare

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/results/stats"
)

// Options say what to compare.
type Options struct {
	// Metric is a numeric column of runs.parquet, such as mean_wait.
	Metric string
	// Axis and Baseline name the compared axis and its reference value
	// (--baseline policy=easy).
	Axis, Baseline string
	// By lists the axes that define the groups; nil means every axis but
	// the compared one that takes more than one value, and an empty
	// non-nil slice means no grouping axis: one group of all runs, paired
	// across every other axis (see ParseBy for the --by none spelling).
	// Runs of a group that differ in other axes are paired on them, as
	// blocks.
	By []string
	// Level is the confidence level, 0.95 by default.
	Level float64
	// Resamples is the number of bootstrap resamples, 10,000 by default.
	Resamples int
	// Seed seeds the bootstrap, so that a comparison prints the same
	// intervals every time.
	Seed uint64
	// Lower says a smaller metric is better (waits, slowdowns); it only
	// orders and words the verdicts. Default: true unless the metric is
	// utilisation-like (see LowerIsBetter).
	Lower *bool
}

// NoGrouping is the value of a --by flag that asks for no grouping axis:
// one group of all runs, whose runs are paired across every axis but the
// compared one (each combination of their values and the replicate is a
// block).
const NoGrouping = "none"

// ParseBy turns the values of a --by flag into Options.By. No flag (nil)
// stays nil, the default grouping by every other axis that varies;
// NoGrouping alone becomes an empty non-nil slice, no grouping axis; other
// values are axes and are returned as given. NoGrouping among axes, and an
// empty value (--by ""), are errors.
func ParseBy(values []string) ([]string, error) {
	if values == nil {
		return nil, nil
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("--by with no axis: name the grouping axes, or %s for no grouping axis", NoGrouping)
	}
	if slices.Contains(values, NoGrouping) {
		if len(values) > 1 {
			return nil, fmt.Errorf("--by %s: %s means no grouping axis and cannot be combined with axes", strings.Join(values, ","), NoGrouping)
		}
		return []string{}, nil
	}
	for _, v := range values {
		if v == "" {
			return nil, fmt.Errorf("--by %s: an empty axis name", strings.Join(values, ","))
		}
	}
	return values, nil
}

// Result is a comparison.
type Result struct {
	Metric   string `json:"metric"`
	Axis     string `json:"axis"`
	Baseline string `json:"baseline"`
	// By are the grouping axes as resolved (the default filled in); empty
	// means one group of all runs, whose Key is empty.
	By            []string `json:"by"`
	Level         float64  `json:"level"`
	Resamples     int      `json:"resamples"`
	LowerIsBetter bool     `json:"lower_is_better"`
	// Replicated says some comparison has more than one pair; with one pair
	// per comparison there is nothing to estimate an interval from, and
	// only the per-run values are reported.
	Replicated bool `json:"replicated"`
	// Groups are in the JSON output's table, not here (WriteJSON).
	Groups []Group `json:"-"`
	// Skipped counts the runs left out because they did not complete or
	// lack the metric.
	Skipped int `json:"skipped"`
}

// AxisValue is one axis and its value.
type AxisValue struct {
	Axis  string `json:"axis"`
	Value string `json:"value"`
}

// Group is the runs sharing the values of the By axes.
type Group struct {
	Key    []AxisValue
	Levels []Level
	// Comparisons has one entry per value of the compared axis other than
	// the baseline, in matrix order.
	Comparisons []Comparison
}

// Level summarises the metric over the runs of one value of the compared
// axis in a group.
type Level struct {
	Value   string
	Summary stats.Summary
	// Boot is a bootstrap interval of the mean (BCa), when N >= 3.
	Boot   *stats.Interval
	Values []float64
}

// Comparison is one value against the baseline, over paired runs.
type Comparison struct {
	Value string
	// N counts the pairs: runs of the value and of the baseline with equal
	// values on every other axis and the same replicate.
	N     int
	Pairs []Pair
	// MeanBaseline and MeanValue are the means over the pairs.
	MeanBaseline, MeanValue float64
	// Diff summarises value - baseline per pair, with a Student t interval;
	// DiffBoot is a BCa bootstrap interval of the mean difference.
	Diff     stats.Summary
	DiffBoot *stats.Interval
	// Ratio is MeanValue / MeanBaseline, RatioBoot its bootstrap interval
	// (pairs resampled together, percentile method).
	Ratio     float64
	RatioBoot *stats.Interval
	// Wilcoxon is the signed-rank test of the differences; nil when all
	// differences are zero or there are fewer than 2 pairs. PHolm is its
	// p-value adjusted over the comparisons of the group.
	Wilcoxon     *stats.WilcoxonResult
	PHolm        float64
	RankBiserial float64
	CohenDz      float64
	// Better, Worse and Ties count pairs by direction (LowerIsBetter).
	Better, Worse, Ties int
}

// Pair is one run of the value and its baseline run.
type Pair struct {
	// Block names the pair: the values of the axes outside the group and
	// the compared axis, and the replicate.
	Block           string
	Baseline, Value float64
	BaselineRun     Run
	ValueRun        Run
}

// LowerIsBetter says whether a smaller value of a runs.parquet metric is
// better: true for waits, slowdowns, turnaround, makespan and counts of
// killed jobs or broken promises, false for utilisation and backfilled.
func LowerIsBetter(metric string) bool {
	switch metric {
	case "utilisation", "backfilled", "promised":
		return false
	}
	return true
}

// Compare compares the campaign's runs as opts say.
func Compare(c *Campaign, opts Options) (*Result, error) {
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	if opts.Resamples == 0 {
		opts.Resamples = 10_000
	}
	if !slices.Contains(c.Numeric, opts.Metric) {
		return nil, fmt.Errorf("metric %q is not a numeric column of runs.parquet (have: %s)", opts.Metric, strings.Join(c.Numeric, ", "))
	}
	if !slices.Contains(c.Axes, opts.Axis) {
		return nil, fmt.Errorf("baseline axis %q is not an axis of the campaign (axes: %s)", opts.Axis, strings.Join(c.Axes, ", "))
	}
	values := c.Values(opts.Axis)
	if !slices.Contains(values, opts.Baseline) {
		return nil, fmt.Errorf("baseline %s=%s: the campaign has no such run (values: %s)", opts.Axis, opts.Baseline, strings.Join(values, ", "))
	}
	if len(values) < 2 {
		return nil, fmt.Errorf("axis %s has one value only: nothing to compare", opts.Axis)
	}
	by := opts.By
	if by == nil {
		// Every other axis that varies: one with a single value (such as
		// the default estimates axis) would only repeat itself in every
		// group's name.
		for _, a := range c.Axes {
			if a != opts.Axis && len(c.Values(a)) > 1 {
				by = append(by, a)
			}
		}
	}
	for _, a := range by {
		if a == opts.Axis {
			return nil, fmt.Errorf("--by %s: the compared axis cannot also group", a)
		}
		if !slices.Contains(c.Axes, a) {
			return nil, fmt.Errorf("--by %s: not an axis of the campaign (axes: %s)", a, strings.Join(c.Axes, ", "))
		}
	}
	lower := LowerIsBetter(opts.Metric)
	if opts.Lower != nil {
		lower = *opts.Lower
	}
	res := &Result{Metric: opts.Metric, Axis: opts.Axis, Baseline: opts.Baseline, By: by, Level: opts.Level,
		Resamples: opts.Resamples, LowerIsBetter: lower}

	// Blocks are the axes neither grouping nor compared, and the replicate.
	var blockAxes []string
	for _, a := range c.Axes {
		if a != opts.Axis && !slices.Contains(by, a) {
			blockAxes = append(blockAxes, a)
		}
	}
	type cell struct {
		runs map[string]Run // by block
	}
	groups := map[string]*Group{}
	var order []string
	cells := map[string]map[string]*cell{} // group -> value -> cell
	// A baseline run that leaves a grouping axis unset (a param axis an
	// include entry did not set, such as FCFS in a tau sweep) is the
	// baseline of every group: it joins them after the other runs.
	var wildBase []Run
	for _, r := range c.Runs {
		v, ok := r.Values[opts.Metric]
		if r.Status != "ok" || !ok || math.IsNaN(v) {
			res.Skipped++
			continue
		}
		if r.Axes[opts.Axis] == opts.Baseline && slices.ContainsFunc(by, func(a string) bool { return r.Axes[a] == "" }) {
			wildBase = append(wildBase, r)
			continue
		}
		gk, key := groupKey(r, by)
		if _, ok := groups[gk]; !ok {
			groups[gk] = &Group{Key: key}
			order = append(order, gk)
			cells[gk] = map[string]*cell{}
		}
		val := r.Axes[opts.Axis]
		ce, ok := cells[gk][val]
		if !ok {
			ce = &cell{runs: map[string]Run{}}
			cells[gk][val] = ce
		}
		ce.runs[blockKey(r, blockAxes)] = r
	}
	for _, r := range wildBase {
		joined := false
		for _, gk := range order {
			if !compatible(r, groups[gk].Key) {
				continue
			}
			ce, ok := cells[gk][opts.Baseline]
			if !ok {
				ce = &cell{runs: map[string]Run{}}
				cells[gk][opts.Baseline] = ce
			}
			ce.runs[blockKey(r, blockAxes)] = r
			joined = true
		}
		if !joined {
			res.Skipped++
		}
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x5eed_c0_4a5e))
	for _, gk := range order {
		g := groups[gk]
		base := cells[gk][opts.Baseline]
		for _, val := range values {
			ce := cells[gk][val]
			if ce == nil {
				continue
			}
			lv := Level{Value: val}
			for _, b := range sortedKeys(ce.runs) {
				lv.Values = append(lv.Values, ce.runs[b].Values[opts.Metric])
			}
			lv.Summary = stats.Describe(lv.Values, opts.Level)
			if len(lv.Values) >= 3 {
				if iv, err := stats.Bootstrap(lv.Values, mean, opts.Level, opts.Resamples, stats.BCa, rng); err == nil {
					lv.Boot = &iv
				}
			}
			g.Levels = append(g.Levels, lv)
			if val == opts.Baseline || base == nil {
				continue
			}
			cmp := comparison(val, base.runs, ce.runs, blockAxes, opts, lower, rng)
			if cmp.N > 1 {
				res.Replicated = true
			}
			g.Comparisons = append(g.Comparisons, cmp)
		}
		// Holm over the comparisons of the group that have a test.
		var ps []float64
		var at []int
		for i, cmp := range g.Comparisons {
			if cmp.Wilcoxon != nil {
				ps = append(ps, cmp.Wilcoxon.PValue)
				at = append(at, i)
			}
		}
		for j, p := range stats.Holm(ps) {
			g.Comparisons[at[j]].PHolm = p
		}
		res.Groups = append(res.Groups, *g)
	}
	if len(res.Groups) == 0 {
		return nil, errors.New("no completed run has the metric")
	}
	return res, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// comparison pairs the runs of a value with the baseline's, block by
// block.
func comparison(val string, base, other map[string]Run, blockAxes []string, opts Options, lower bool, rng *rand.Rand) Comparison {
	cmp := Comparison{Value: val, PHolm: math.NaN(), Ratio: math.NaN(), RankBiserial: math.NaN(), CohenDz: math.NaN()}
	var diffs, bs, vs []float64
	for _, b := range sortedKeys(other) {
		br, ok := base[b]
		if !ok {
			// A baseline run that leaves a block axis unset pairs with
			// every value of it.
			if br, ok = wildMatch(base, other[b], blockAxes); !ok {
				continue
			}
		}
		p := Pair{Block: b, Baseline: br.Values[opts.Metric], Value: other[b].Values[opts.Metric], BaselineRun: br, ValueRun: other[b]}
		cmp.Pairs = append(cmp.Pairs, p)
		d := p.Value - p.Baseline
		diffs = append(diffs, d)
		bs = append(bs, p.Baseline)
		vs = append(vs, p.Value)
		switch {
		case d == 0:
			cmp.Ties++
		case (d < 0) == lower:
			cmp.Better++
		default:
			cmp.Worse++
		}
	}
	cmp.N = len(cmp.Pairs)
	if cmp.N == 0 {
		return cmp
	}
	cmp.MeanBaseline, cmp.MeanValue = mean(bs), mean(vs)
	cmp.Diff = stats.Describe(diffs, opts.Level)
	if cmp.MeanBaseline != 0 {
		cmp.Ratio = cmp.MeanValue / cmp.MeanBaseline
	}
	if cmp.N < 2 {
		return cmp
	}
	cmp.CohenDz = stats.CohenDz(diffs)
	if w, err := stats.Wilcoxon(diffs); err == nil {
		cmp.Wilcoxon = &w
		cmp.RankBiserial = stats.RankBiserial(diffs)
	}
	if cmp.N >= 3 {
		if iv, err := stats.Bootstrap(diffs, mean, opts.Level, opts.Resamples, stats.BCa, rng); err == nil {
			cmp.DiffBoot = &iv
		}
		// The ratio of means needs the pairs resampled together: resample
		// pair indices and compute the ratio over them.
		idx := make([]float64, cmp.N)
		for i := range idx {
			idx[i] = float64(i)
		}
		ratio := func(ix []float64) float64 {
			var sb, sv float64
			for _, f := range ix {
				sb += bs[int(f)]
				sv += vs[int(f)]
			}
			return sv / sb
		}
		if cmp.MeanBaseline != 0 {
			if iv, err := stats.Bootstrap(idx, ratio, opts.Level, opts.Resamples, stats.Percentile, rng); err == nil {
				cmp.RatioBoot = &iv
			}
		}
	}
	return cmp
}

// compatible reports whether a run with unset axes belongs to a group.
func compatible(r Run, key []AxisValue) bool {
	for _, kv := range key {
		if v := r.Axes[kv.Axis]; v != "" && v != kv.Value {
			return false
		}
	}
	return true
}

// wildMatch finds the baseline run that pairs with run o when the baseline
// leaves some block axes unset: same replicate, and on every block axis
// equal or unset. Several matches are ambiguous, and none is used.
func wildMatch(base map[string]Run, o Run, blockAxes []string) (Run, bool) {
	var found []Run
	for _, b := range sortedKeys(base) {
		br := base[b]
		if br.Replicate != o.Replicate {
			continue
		}
		ok := true
		for _, a := range blockAxes {
			if v := br.Axes[a]; v != "" && v != o.Axes[a] {
				ok = false
				break
			}
		}
		if ok {
			found = append(found, br)
		}
	}
	if len(found) != 1 {
		return Run{}, false
	}
	return found[0], true
}

func groupKey(r Run, by []string) (string, []AxisValue) {
	var b strings.Builder
	key := make([]AxisValue, len(by))
	for i, a := range by {
		key[i] = AxisValue{a, r.Axes[a]}
		fmt.Fprintf(&b, "%s=%s\x00", a, r.Axes[a])
	}
	return b.String(), key
}

func blockKey(r Run, axes []string) string {
	parts := make([]string, 0, len(axes)+1)
	for _, a := range axes {
		parts = append(parts, a+"="+r.Axes[a])
	}
	parts = append(parts, fmt.Sprintf("replicate=%d", r.Replicate))
	return strings.Join(parts, " ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
