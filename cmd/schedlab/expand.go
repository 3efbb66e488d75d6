package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/runner/campaign"
	"github.com/schedlab/schedlab/runner/manifest"
)

func newExpandCmd() *cobra.Command {
	var noCheck bool
	cmd := &cobra.Command{
		Use:   "expand MANIFEST.toml",
		Short: "check a manifest and print the runs it expands to, without running anything",
		Long: `Check a campaign manifest and print its runs, one line each: index, the value
of every matrix axis, replicate, the first 12 hex digits of the sha256 of the
run's spec, and the run's workload and policy seeds.

It checks what run checks before creating anything: the manifest itself, then
every trace (loaded and compared with its sha256), every policy (resolved,
Go packages built, started to ask for its parameters) and every run's
parameters. Every problem is reported at once, as FILE:LINE: message, and
exits 2. --no-check checks the manifest only (no trace read, nothing built).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			gens := generators()
			m, err := manifest.Load(args[0], gens...)
			if err != nil {
				return &exitError{exitBadInput, err}
			}
			if !noCheck {
				r, err := resolver()
				if err != nil {
					return err
				}
				if err := campaign.Check(cmd.Context(), m, campaign.Options{Resolver: r, Generators: gens}); err != nil {
					if errors.Is(err, campaign.ErrInput) {
						return &exitError{exitBadInput, err}
					}
					return err
				}
			}
			runs, err := m.Expand()
			if err != nil {
				return &exitError{exitBadInput, err}
			}
			if err := m.WriteRuns(cmd.OutOrStdout(), runs); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d runs; results would go to %s\n", len(runs), m.Campaign.Out)
			return nil
		},
	}
	cmd.Flags().BoolVar(&noCheck, "no-check", false, "check the manifest only: read no trace, build and start no policy")
	return cmd
}

func newRerunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "rerun DIR",
		Short: "re-execute a campaign from its manifest.lock.toml and compare every run",
		Long: `Re-execute the campaign in DIR from its manifest.lock.toml into a new folder
(--out, by default DIR-rerun) and compare the job records of every run with
the original's, printing "N/N runs identical" or a table of the runs that
differ, with the reason when the provenance shows one (a different plugin
binary or workload).

Exit status: 0 every run identical; 1 some runs differ or failed; 2 bad input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return rerun(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "folder of the rerun (default: DIR-rerun)")
	fl.IntVarP(&f.jobs, "jobs", "j", 0, "runs in flight at once (default: number of CPUs)")
	fl.BoolVar(&f.overwrite, "overwrite", false, "delete a previous rerun in the output folder first")
	fl.BoolVar(&f.inProcess, "in-process", false, "link reference policies into this process instead of starting plugin processes")
	fl.BoolVar(&f.freshProcesses, "fresh-processes", false, "start a plugin process for every run instead of reusing one for many runs of a policy")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print nothing but errors and the comparison")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log every run")
	return cmd
}

func rerun(cmd *cobra.Command, dir string, f runFlags) error {
	dir = filepath.Clean(dir)
	m, err := manifest.LoadLock(filepath.Join(dir, campaign.LockFile), generators()...)
	if err != nil {
		if os.IsNotExist(err) || strings.Contains(err.Error(), "no such file") {
			err = fmt.Errorf("rerun %s: no %s there: not a campaign folder", dir, campaign.LockFile)
		}
		return &exitError{exitBadInput, err}
	}
	out := f.out
	if out == "" {
		out = dir + "-rerun"
	}
	r, err := resolver()
	if err != nil {
		return err
	}
	opts := campaign.Options{Dir: out, Workers: f.jobs, Overwrite: f.overwrite, InProcess: f.inProcess,
		FreshProcesses: f.freshProcesses, Resolver: r, Generators: generators(), Source: filepath.Join(dir, campaign.LockFile)}
	opts.SourceText, _ = os.ReadFile(opts.Source)
	stderr := cmd.ErrOrStderr()
	opts.Logger = logger(stderr, f.verbose, f.quiet)
	finish := func() {}
	if !f.quiet {
		finish = progress(stderr, &opts)
	}
	rep, err := campaign.Run(cmd.Context(), m, opts)
	finish()
	if err != nil {
		if errors.Is(err, campaign.ErrExists) {
			// Not the campaign error's advice: rerun has no --resume.
			return &exitError{exitBadInput, fmt.Errorf("rerun %s: %s already holds a rerun; start it again with --overwrite, or give another folder with --out", dir, out)}
		}
		if errors.Is(err, campaign.ErrFolder) || errors.Is(err, campaign.ErrInput) {
			return &exitError{exitBadInput, err}
		}
		return err
	}
	if rep.Interrupted {
		return &exitError{exitInterrupted, fmt.Errorf("rerun interrupted; finish with: schedlab run --resume %s, then compare again with schedlab rerun", out)}
	}
	diffs, err := campaign.Compare(dir, out)
	if err != nil {
		return err
	}
	same := 0
	for _, d := range diffs {
		if d.Identical {
			same++
		}
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "%d/%d runs identical (original %s, rerun %s)\n", same, len(diffs), dir, out)
	if same == len(diffs) {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tdifference\twhy")
	for _, d := range diffs {
		if !d.Identical {
			why := d.Why
			if why == "" {
				why = "same plugin binary and workload: the policy or the engine is not deterministic"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Label, d.What, why)
		}
	}
	tw.Flush()
	return &exitError{exitRunsFailed, fmt.Errorf("%d of %d runs differ", len(diffs)-same, len(diffs))}
}
