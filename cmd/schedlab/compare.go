package main

import (
	"fmt"
	"maps"
	"strings"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/compare"
)

type compareFlags struct {
	metric, baseline, format, out string
	by                            []string
	level                         float64
	resamples                     int
	seed                          uint64
	noJobs                        bool
}

func newCompareCmd() *cobra.Command {
	f := compareFlags{}
	cmd := &cobra.Command{
		Use:   "compare DIR --metric METRIC --baseline AXIS=VALUE [--by AXIS|none]...",
		Short: "compare the values of one axis (usually policies) against a baseline, with intervals and tests",
		Long: `Compare a campaign's runs (DIR/runs.parquet and its jobs files) along one matrix
axis against a baseline value: per group (the --by axes; by default every other
axis that varies; --by none makes one group of all runs, whose pairs then span
the other axes: 16 workloads x R replicates give 16R pairs per policy), the
mean of the metric over replicates with a confidence interval, and
for every other value the difference and ratio to the baseline over paired runs
(same other axes and replicate, hence same seeds) with intervals, the Wilcoxon
signed-rank test with Holm's correction, and effect sizes. With one replicate
(trace runs are deterministic) it says so and shows the per-run values instead.
Job-level views follow: quantiles of wait and bounded slowdown per value and the
share of jobs that waited less or more than under the baseline.

METRIC is any numeric column of runs.parquet: mean_wait, median_wait, p95_wait,
max_wait, mean_bsld, max_bsld, mean_turnaround, utilisation, makespan, ...
See docs/analysis.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runCompare(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.metric, "metric", "mean_bsld", "numeric column of runs.parquet to compare")
	fl.StringVar(&f.baseline, "baseline", "", "the reference: `AXIS=VALUE`, e.g. policy=easy")
	fl.StringSliceVar(&f.by, "by", nil, "group by these axes (repeatable; default: every axis but the compared one that varies; "+
		"\""+compare.NoGrouping+"\": no grouping axis, one group of all runs paired across every other axis)")
	fl.StringVar(&f.format, "format", "text", "output format: text, csv, json or markdown")
	fl.StringVar(&f.out, "out", "", "also write the comparison table to this Parquet file")
	fl.Float64Var(&f.level, "level", 0.95, "confidence level of the intervals")
	fl.IntVar(&f.resamples, "resamples", 10_000, "bootstrap resamples")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the bootstrap resampling")
	fl.BoolVar(&f.noJobs, "no-jobs", false, "skip the job-level views (they read every jobs file)")
	_ = cmd.MarkFlagRequired("baseline")
	return cmd
}

func runCompare(cmd *cobra.Command, dir string, f compareFlags) error {
	axis, value, ok := strings.Cut(f.baseline, "=")
	if !ok || axis == "" {
		return &exitError{exitBadInput, fmt.Errorf("--baseline %q: want AXIS=VALUE, such as policy=easy", f.baseline)}
	}
	axis = strings.ReplaceAll(axis, ".", "_") // param.order is the column param_order
	by, err := compare.ParseBy(f.by)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	for i, b := range by {
		by[i] = strings.ReplaceAll(b, ".", "_")
	}
	if f.level <= 0 || f.level >= 1 {
		return &exitError{exitBadInput, fmt.Errorf("--level %v: want a confidence level between 0 and 1", f.level)}
	}
	c, err := compare.Load(dir)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	res, err := compare.Compare(c, compare.Options{Metric: f.metric, Axis: axis, Baseline: value, By: by,
		Level: f.level, Resamples: f.resamples, Seed: f.seed})
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	var views []compare.JobView
	if !f.noJobs {
		if views, err = compare.Jobs(c, res); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	t := res.Table()
	switch f.format {
	case "text":
		if err := res.WriteText(w); err != nil {
			return err
		}
		if len(views) > 0 {
			fmt.Fprintln(w, "Job level (pooled over each value's runs):")
			compare.WriteJobsText(w, views, value)
		}
	case "csv":
		err = t.WriteCSV(w)
	case "markdown":
		fmt.Fprintln(w, res.Method())
		fmt.Fprintln(w)
		err = t.WriteMarkdown(w)
	case "json":
		err = res.WriteJSON(w, views)
	default:
		return &exitError{exitBadInput, fmt.Errorf("--format %q: want text, csv, json or markdown", f.format)}
	}
	if err != nil {
		return err
	}
	if f.out != "" {
		meta := results.Metadata{}
		maps.Copy(meta, c.Meta)
		groupedBy := strings.Join(res.By, ",")
		if len(res.By) == 0 {
			groupedBy = compare.NoGrouping
		}
		maps.Copy(meta, map[string]string{"compare.metric": f.metric, "compare.baseline": f.baseline,
			"compare.by": groupedBy, "compare.level": fmt.Sprint(f.level),
			"compare.resamples": fmt.Sprint(f.resamples), "compare.seed": fmt.Sprint(f.seed), "compare.method": res.Method()})
		if err := t.WriteParquet(f.out, meta); err != nil {
			return err
		}
	}
	return nil
}
