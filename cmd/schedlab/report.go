package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/compare"
	"github.com/schedlab/schedlab/results/report"
)

type reportFlags struct {
	out, baseline, title string
	metrics, by, series  []string
	level                float64
	resamples, points    int
	seed                 uint64
	figures              string
}

func newReportCmd() *cobra.Command {
	f := reportFlags{}
	cmd := &cobra.Command{
		Use:   "report DIR [--out FILE] [--baseline AXIS=VALUE] [--metric METRIC]...",
		Short: "write a campaign's report: one self-contained HTML page of tables, plots and provenance",
		Long: `Write the report of a campaign folder (DIR/runs.parquet and its jobs files) as a
single HTML file that needs nothing else to open: no network, no script, plots
as inline SVG. It holds the campaign's provenance (schedlab version, commit, Go,
host, seed, metric settings, every policy with its plugin sha256), the tables of
schedlab compare for each --metric, and plots: each metric per value of the
compared axis with confidence intervals, against numeric policy parameters,
box plots over replicates, box plots of the per-pair ratio to the baseline
(when a comparison has 2 pairs or more), ECDFs of job wait and bounded slowdown,
and utilisation and queue length over time for the runs of one group (--series).
In a grid campaign (paper 003) it compares local and global jobs apart by
default, and tabulates where the global jobs ran and what they paid.
--by none compares all runs in one group, paired across the other axes (a
16-part split of a trace gives 16 pairs per policy and replicate).

The compared axis and its reference are --baseline AXIS=VALUE; by default the
policy axis against its first policy. See docs/analysis.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runReport(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "the HTML file to write (default DIR/report.html)")
	fl.StringVar(&f.baseline, "baseline", "", "the reference: `AXIS=VALUE`, e.g. policy=easy (default: the first policy)")
	fl.StringSliceVar(&f.metrics, "metric", nil, "numeric columns of runs.parquet to compare (repeatable; default "+
		strings.Join(report.DefaultMetrics(), ", ")+"; in a grid campaign "+strings.Join(report.GridMetrics(), ", ")+")")
	fl.StringSliceVar(&f.by, "by", nil, "group by these axes (repeatable; default: every axis but the compared one that varies; "+
		"\""+compare.NoGrouping+"\": no grouping axis, one group of all runs paired across every other axis)")
	fl.StringSliceVar(&f.series, "series", nil, "plot over time the runs with these axis values: `AXIS=VALUE` (repeatable; default: the first group)")
	fl.StringVar(&f.title, "title", "", "the page's title (default: Campaign report: NAME)")
	fl.Float64Var(&f.level, "level", 0.95, "confidence level of the intervals")
	fl.IntVar(&f.resamples, "resamples", 10_000, "bootstrap resamples")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the bootstrap resampling")
	fl.IntVar(&f.points, "points", 300, "points per curve of the time series")
	fl.StringVar(&f.figures, "figures", "", "also write each plot as a standalone SVG file into this folder (NN-ID.svg)")
	return cmd
}

func runReport(cmd *cobra.Command, dir string, f reportFlags) error {
	by, err := compare.ParseBy(f.by)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	opts := report.Options{Metrics: f.metrics, By: by, Level: f.level, Resamples: f.resamples, Seed: f.seed,
		Title: f.title, Points: f.points}
	if f.baseline != "" {
		axis, value, ok := strings.Cut(f.baseline, "=")
		if !ok || axis == "" || value == "" {
			return &exitError{exitBadInput, fmt.Errorf("--baseline %q: want AXIS=VALUE, such as policy=easy", f.baseline)}
		}
		opts.Axis, opts.Baseline = axis, value
	}
	for _, s := range f.series {
		axis, value, ok := strings.Cut(s, "=")
		if !ok || axis == "" {
			return &exitError{exitBadInput, fmt.Errorf("--series %q: want AXIS=VALUE, such as workload=kth", s)}
		}
		opts.Series = append(opts.Series, compare.AxisValue{Axis: axis, Value: value})
	}
	if f.resamples < 1 {
		return &exitError{exitBadInput, fmt.Errorf("--resamples %d: want at least 1", f.resamples)}
	}
	out := f.out
	if out == "" {
		out = filepath.Join(dir, "report.html")
	}
	// The page is built in memory first, so that a bad option leaves no
	// file and a good one replaces the old report only when complete.
	var buf bytes.Buffer
	figs, err := report.WriteFigures(&buf, dir, opts)
	if err != nil {
		var ie *report.InputError
		if errors.As(err, &ie) {
			return &exitError{exitBadInput, err}
		}
		return err
	}
	if err := results.WriteFileAtomic(out, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "report of %s written to %s (%d kB); open it in a browser\n", dir, out, (buf.Len()+512)/1024)
	if f.figures == "" {
		return nil
	}
	if err := os.MkdirAll(f.figures, 0o755); err != nil {
		return fmt.Errorf("--figures: %w", err)
	}
	for _, fig := range figs {
		if err := results.WriteFileAtomic(filepath.Join(f.figures, fig.Name), func(w io.Writer) error {
			_, err := w.Write(fig.SVG)
			return err
		}); err != nil {
			return fmt.Errorf("--figures: %w", err)
		}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%d figures written to %s\n", len(figs), f.figures)
	return nil
}
