package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/compare"
	"github.com/schedlab/schedlab/results/export"
	"github.com/schedlab/schedlab/results/gantt"
	"github.com/schedlab/schedlab/results/layout"
)

// runFlag is the --run of the commands that take one run, a jobs file or a
// run of a campaign folder.
const runFlagDoc = "with a campaign folder: the run, by run key (or its first digits), run_index or label"

func newGanttCmd() *cobra.Command {
	var (
		run, colour, svg, html, title string
		from, to                      int64
	)
	cmd := &cobra.Command{
		Use:   "gantt JOBS.parquet | CAMPAIGN_DIR --run RUN",
		Short: "draw a run's schedule as a Gantt chart (HTML that pans and zooms, or SVG)",
		Long: `gantt draws a run's schedule: time across, the platform's lanes down (a pool's
processors packed lowest first, as evalys packs them, or each node's cores, one row per
node), one rectangle per job and run of consecutive lanes, coloured by a column.

The HTML page (--html, the default) holds the whole run and pans and zooms over it;
the SVG (--svg) draws the window alone, for papers. --from and --to set the window in
the jobs file's seconds.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := readRun(args[0], run)
			if err != nil {
				return err
			}
			opts := gantt.Options{Colour: colour, Title: title}
			if cmd.Flags().Changed("from") {
				opts.From = &from
			}
			if cmd.Flags().Changed("to") {
				opts.To = &to
			}
			c, err := gantt.New(r, opts)
			if err != nil {
				if errors.Is(err, gantt.ErrInput) || errors.Is(err, layout.ErrOverlap) {
					return &exitError{exitBadInput, fmt.Errorf("%s: %w", r.Path, err)}
				}
				return err
			}
			if svg == "" && html == "" {
				html = strings.TrimSuffix(r.Path, ".parquet") + ".gantt.html"
			}
			for _, o := range []struct {
				path  string
				write func(io.Writer) error
			}{{html, c.HTML}, {svg, c.SVG}} {
				if o.path == "" {
					continue
				}
				if err := results.WriteFileAtomic(o.path, o.write); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Gantt chart of %s written to %s\n", r.Path, o.path)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&run, "run", "", runFlagDoc)
	fl.StringVar(&colour, "colour", gantt.ByDecision, "colour jobs by: "+strings.Join(gantt.Columns(), ", "))
	fl.StringVar(&html, "html", "", "write the HTML page here (default: beside the jobs file, NAME.gantt.html, when --svg is not given)")
	fl.StringVar(&svg, "svg", "", "write a static SVG of the window here")
	fl.StringVar(&title, "title", "", "the chart's title (default: the run's label)")
	fl.Int64Var(&from, "from", 0, "the window's start, in the jobs file's seconds (default: the first submit)")
	fl.Int64Var(&to, "to", 0, "the window's end (default: the last end)")
	return cmd
}

func newExportCmd() *cobra.Command {
	var run, format, out, resources string
	cmd := &cobra.Command{
		Use:   "export JOBS.parquet | CAMPAIGN_DIR --run RUN --format batsim|swf",
		Short: "write a run as Batsim's jobs.csv (evalys reads it) or as SWF with the simulated waits",
		Long: `export writes a run in a format the field's tools read:

  batsim  Batsim's jobs.csv, one row per job with its allocated_resources as an interval
          set: evalys (JobSet.from_csv) and Batsim's scripts read it. On a pool the
          processors are packed lowest first (as gantt draws them); on a platform of nodes
          the resources are the nodes (--resources hosts, Batsim's hosts) or the cores
          (--resources lanes).
  swf     the Standard Workload Format with the simulated wait and run time of each job,
          status 1 completed, 0 killed at its walltime, 5 rejected.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res := export.Hosts
			switch resources {
			case "hosts":
			case "lanes":
				res = export.Lanes
			default:
				return &exitError{exitBadInput, fmt.Errorf("--resources %q: want hosts or lanes", resources)}
			}
			if format != "batsim" && format != "swf" {
				return &exitError{exitBadInput, fmt.Errorf("--format %q: want batsim or swf", format)}
			}
			r, err := readRun(args[0], run)
			if err != nil {
				return err
			}
			write := func(w io.Writer) error { return export.SWF(w, r) }
			if format == "batsim" {
				l, err := r.Layout()
				if err != nil {
					if errors.Is(err, layout.ErrOverlap) {
						return &exitError{exitBadInput, err}
					}
					return err
				}
				write = func(w io.Writer) error { return export.Batsim(w, r, l, res) }
			}
			if out == "" || out == "-" {
				return write(cmd.OutOrStdout())
			}
			if err := results.WriteFileAtomic(out, write); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s written to %s (%d jobs)\n", format, out, len(r.Jobs))
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&run, "run", "", runFlagDoc)
	fl.StringVar(&format, "format", "batsim", "batsim or swf")
	fl.StringVar(&out, "out", "", "write here (default: the standard output)")
	fl.StringVar(&resources, "resources", "hosts", "on a platform of nodes, Batsim's resources: hosts (nodes) or lanes (cores)")
	return cmd
}

// readRun reads a jobs file, or the run of a campaign folder that sel
// names. Every error is bad input.
func readRun(path, sel string) (*layout.Run, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, &exitError{exitBadInput, err}
	}
	if st.IsDir() {
		if sel == "" {
			return nil, &exitError{exitBadInput, fmt.Errorf("%s is a campaign folder: name one of its runs with --run (a run key, run_index or label)", path)}
		}
		key, err := selectRun(path, sel)
		if err != nil {
			return nil, &exitError{exitBadInput, err}
		}
		path = results.CampaignJobsPath(path, key)
	} else if sel != "" {
		return nil, &exitError{exitBadInput, fmt.Errorf("--run %q: %s is a jobs file, not a campaign folder", sel, path)}
	}
	r, err := layout.Read(path)
	if err != nil {
		return nil, &exitError{exitBadInput, err}
	}
	return r, nil
}

// selectRun returns the key of the completed run of the campaign in dir
// that sel names: its index, its label, or its key or the key's first
// digits (at least 6), when exactly one run matches.
func selectRun(dir, sel string) (string, error) {
	c, err := compare.Load(dir)
	if err != nil {
		return "", err
	}
	var hits []compare.Run
	idx, isIndex := strconv.Atoi(sel)
	for i, r := range c.Runs {
		if (isIndex == nil && i == idx) || r.Label == sel || (len(sel) >= 6 && strings.HasPrefix(r.Key, sel)) {
			hits = append(hits, r)
		}
	}
	switch {
	case len(hits) == 0:
		var some []string
		for _, r := range c.Runs[:min(len(c.Runs), 5)] {
			some = append(some, fmt.Sprintf("%s (%s)", r.Label, r.Key[:12]))
		}
		return "", fmt.Errorf("--run %q: no run of %s has that index, label or key; its runs include %s", sel, dir, strings.Join(some, ", "))
	case len(hits) > 1:
		return "", fmt.Errorf("--run %q: %d runs of %s match; give more of the key", sel, len(hits), dir)
	case hits[0].Status != "ok":
		return "", fmt.Errorf("--run %q: the run %s did not complete (%s)", sel, hits[0].Label, hits[0].Status)
	}
	if _, err := os.Stat(filepath.Join(dir, results.JobsDir, hits[0].Key+".parquet")); err != nil {
		return "", err
	}
	return hits[0].Key, nil
}
