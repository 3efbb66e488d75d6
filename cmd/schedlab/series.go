package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/series"
)

func newSeriesCmd() *cobra.Command {
	var run, out string
	var step, from, to int64
	cmd := &cobra.Command{
		Use:   "series JOBS.parquet | CAMPAIGN_DIR --run RUN",
		Short: "write a run's utilisation, running jobs, queue and queued work over time (CSV or Parquet)",
		Long: `series writes the time series of a run: processors in use and their share of the
platform, jobs running, jobs waiting, and the work waiting (processors x requested walltime,
processor-seconds); on a platform of nodes also the cores, memory and GPUs held.

With --step S, one row per bin of S seconds from the first submit (the last bin ends at the
last end), each value the time average over the bin, so that the rows average to the run's
utilisation and mean queue length; with --step 0, one row per instant at which a series
changes, each value the one that holds until the next row. Columns: time, until, then each
series (NAME_share beside those with a capacity). --out F.parquet writes Parquet with the
run's provenance in the footer; any other name, or none (the standard output), CSV.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if step < 0 {
				return &exitError{exitBadInput, fmt.Errorf("--step %d: want 0 (every change) or a number of seconds", step)}
			}
			r, err := readRun(args[0], run)
			if err != nil {
				return err
			}
			lo, hi, ok := series.Span(r.Jobs)
			if !ok {
				return &exitError{exitBadInput, fmt.Errorf("%s: the run has no job", r.Path)}
			}
			if cmd.Flags().Changed("from") {
				lo = from
			}
			if cmd.Flags().Changed("to") {
				hi = to
			}
			cols, rows, err := series.Table(series.OfRun(r), lo, hi, step)
			if err != nil {
				return &exitError{exitBadInput, fmt.Errorf("%s: %w", r.Path, err)}
			}
			if strings.HasSuffix(out, ".parquet") {
				meta := results.Metadata{}
				maps.Copy(meta, r.Meta)
				meta["series.step"] = strconv.FormatInt(step, 10)
				meta["series.from"] = strconv.FormatInt(lo, 10)
				meta["series.to"] = strconv.FormatInt(hi, 10)
				meta["series.jobs_file"] = r.Path
				if err := results.WriteTable(out, cols, rows, meta); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "%d rows written to %s\n", len(rows), out)
				return nil
			}
			write := func(w io.Writer) error { return writeCSV(w, cols, rows) }
			if out == "" || out == "-" {
				return write(cmd.OutOrStdout())
			}
			if err := results.WriteFileAtomic(out, write); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%d rows written to %s\n", len(rows), out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&run, "run", "", runFlagDoc)
	fl.StringVar(&out, "out", "", "write here: .parquet for Parquet, else CSV (default: CSV on the standard output)")
	fl.Int64Var(&step, "step", 3600, "bin width in seconds; 0 for one row per change")
	fl.Int64Var(&from, "from", 0, "start at this time, in the jobs file's seconds (default: the first submit)")
	fl.Int64Var(&to, "to", 0, "end at this time (default: the last end)")
	return cmd
}

// writeCSV writes a table as CSV, numbers in their shortest exact form.
func writeCSV(w io.Writer, cols []results.Column, rows [][]any) error {
	bw := bufio.NewWriter(w)
	for i, c := range cols {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(c.Name)
	}
	bw.WriteByte('\n')
	var b []byte
	for _, r := range rows {
		b = b[:0]
		for i, v := range r {
			if i > 0 {
				b = append(b, ',')
			}
			switch x := v.(type) {
			case int64:
				b = strconv.AppendInt(b, x, 10)
			case float64:
				b = strconv.AppendFloat(b, x, 'g', -1, 64)
			default:
				b = fmt.Append(b, x)
			}
		}
		b = append(b, '\n')
		bw.Write(b)
	}
	return bw.Flush()
}
