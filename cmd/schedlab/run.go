package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/schedlab/schedlab/runner/campaign"
	"github.com/schedlab/schedlab/runner/manifest"
)

// Exit codes of schedlab.
const (
	exitOK          = 0
	exitRunsFailed  = 1 // the campaign ran, some runs failed
	exitBadInput    = 2 // bad manifest, flags or folder: nothing ran
	exitInterrupted = 3 // interrupted; resume to finish
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

type runFlags struct {
	out                  string
	jobs                 int
	failFast, resume     bool
	overwrite, inProcess bool
	freshProcesses       bool
	quiet, asJSON        bool
	verbose              bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run MANIFEST.toml | run --resume DIR",
		Short: "run a campaign: every run of a manifest's matrix, concurrently",
		Long: `Run every run of a campaign manifest (see docs/manifest.md) into its campaign
folder (campaign.out, or --out): jobs/<run-key>.parquet per run, runs.parquet
with one row per run, and manifest.lock.toml, the manifest fully resolved
(see docs/results.md).

A folder that already holds a campaign is never overwritten by mistake:
--resume DIR runs only the runs that have not completed (after a failure, an
interrupt or a kill), --overwrite starts again.

Exit status: 0 all runs completed; 1 some runs failed (the others completed
and are recorded); 2 bad input, nothing ran; 3 interrupted, resume to finish.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runCampaign(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "campaign folder (default: the manifest's campaign.out)")
	fl.IntVarP(&f.jobs, "jobs", "j", 0, "runs in flight at once (default: number of CPUs)")
	fl.BoolVar(&f.failFast, "fail-fast", false, "stop starting runs after the first failure")
	fl.BoolVar(&f.resume, "resume", false, "the argument is a campaign folder: run what it is missing")
	fl.BoolVar(&f.overwrite, "overwrite", false, "delete the results of a campaign already in the folder first")
	fl.BoolVar(&f.inProcess, "in-process", false, "link reference policies into this process instead of starting plugin processes")
	fl.BoolVar(&f.freshProcesses, "fresh-processes", false, "start a plugin process for every run instead of reusing one for many runs of a policy")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print nothing but errors")
	fl.BoolVar(&f.asJSON, "json", false, "print the campaign summary as JSON")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log every run")
	return cmd
}

func logger(w io.Writer, verbose, quiet bool) *slog.Logger {
	level := slog.LevelWarn
	switch {
	case verbose:
		level = slog.LevelDebug
	case quiet:
		level = slog.LevelError
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

func runCampaign(cmd *cobra.Command, arg string, f runFlags) error {
	if f.resume && f.overwrite {
		return &exitError{exitBadInput, errors.New("--resume and --overwrite contradict each other")}
	}
	opts := campaign.Options{Workers: f.jobs, FailFast: f.failFast, Resume: f.resume, Overwrite: f.overwrite,
		InProcess: f.inProcess, FreshProcesses: f.freshProcesses, Generators: generators()}
	var m *manifest.Manifest
	var err error
	if f.resume {
		dir := arg
		if st, serr := os.Stat(arg); serr == nil && !st.IsDir() {
			// A manifest: resume its output folder.
			mm, lerr := manifest.Load(arg, opts.Generators...)
			if lerr != nil {
				return &exitError{exitBadInput, lerr}
			}
			dir = mm.Campaign.Out
		}
		if f.out != "" {
			return &exitError{exitBadInput, errors.New("--resume takes the campaign folder as its argument; --out does not apply")}
		}
		m, err = manifest.Load(filepath.Join(dir, campaign.LockFile), opts.Generators...)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				err = fmt.Errorf("resume %s: no %s there, so no campaign to resume", dir, campaign.LockFile)
			}
			return &exitError{exitBadInput, err}
		}
		opts.Dir = dir
	} else {
		m, err = manifest.Load(arg, opts.Generators...)
		if err != nil {
			return &exitError{exitBadInput, err}
		}
		opts.Source = arg
		opts.SourceText, _ = os.ReadFile(arg)
		opts.Dir = f.out
	}
	if opts.Resolver, err = resolver(); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	opts.Logger = logger(stderr, f.verbose, f.quiet)
	finish := func() {}
	if !f.quiet && !f.asJSON {
		finish = progress(stderr, &opts)
	}
	rep, err := campaign.Run(cmd.Context(), m, opts)
	finish()
	if err != nil {
		if errors.Is(err, campaign.ErrExists) || errors.Is(err, campaign.ErrFolder) {
			return &exitError{exitBadInput, err}
		}
		return err
	}
	out := cmd.OutOrStdout()
	switch {
	case f.asJSON:
		if err := writeReportJSON(out, rep); err != nil {
			return err
		}
	case !f.quiet:
		printReport(out, rep)
	}
	switch {
	case rep.Interrupted:
		return &exitError{exitInterrupted, fmt.Errorf("interrupted with %d of %d runs completed; finish with: schedlab run --resume %s",
			rep.Done, rep.Total, display(rep.Dir))}
	case rep.Failed > 0:
		return &exitError{exitRunsFailed, fmt.Errorf("%d of %d runs failed (status and error in %s)",
			rep.Failed, rep.Total, filepath.Join(display(rep.Dir), campaign.RunsFile))}
	case rep.Pending > 0:
		return &exitError{exitRunsFailed, fmt.Errorf("%d of %d runs did not run (--fail-fast); finish with: schedlab run --resume %s",
			rep.Pending, rep.Total, display(rep.Dir))}
	}
	return nil
}

// progress shows a bar on a terminal and one line per run otherwise (CI
// logs, files), chosen by whether w is a terminal. It returns what ends
// the display.
func progress(w io.Writer, opts *campaign.Options) (finish func()) {
	if file, isFile := w.(*os.File); isFile && term.IsTerminal(int(file.Fd())) {
		return progressBar(w, opts)
	}
	return progressLines(w, opts)
}

// progressLines prints one line per run that ends.
func progressLines(w io.Writer, opts *campaign.Options) (finish func()) {
	opts.Progress = func(p campaign.Progress) {
		r := p.Last
		state := r.Status
		switch {
		case r.Reused:
			state = "done earlier"
		case r.Status == campaign.StatusFailed:
			state = "FAILED: " + firstLine(r.Error)
		}
		fmt.Fprintf(w, "[%d/%d] %s (%.2f s): %s\n", p.Done+p.Failed, p.Total, r.Label, r.WallSeconds, state)
	}
	return func() {}
}

// progressBar draws a bar of the runs ended out of all, with the failures
// and the time left.
func progressBar(w io.Writer, opts *campaign.Options) (finish func()) {
	var bar *progressbar.ProgressBar
	opts.Progress = func(p campaign.Progress) {
		if bar == nil {
			bar = progressbar.NewOptions(p.Total,
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription("runs"),
				progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionShowElapsedTimeOnFinish(),
				progressbar.OptionSetWidth(30),
			)
		}
		if p.Failed > 0 {
			bar.Describe(fmt.Sprintf("runs (%d failed)", p.Failed))
		}
		_ = bar.Set(p.Done + p.Failed)
	}
	return func() {
		if bar != nil {
			_ = bar.Exit() // leaves the bar as drawn, whether complete or not
			fmt.Fprintln(w)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func printReport(w io.Writer, rep *campaign.Report) {
	dir := display(rep.Dir)
	fmt.Fprintf(w, "campaign %s: %d of %d runs completed", dir, rep.Done, rep.Total)
	if rep.Reused > 0 {
		fmt.Fprintf(w, " (%d by an earlier invocation)", rep.Reused)
	}
	fmt.Fprintf(w, ", %d failed, %d not run, in %s\n\n", rep.Failed, rep.Pending, rep.Elapsed.Round(time.Millisecond))
	// Show the axes that vary; the others are the same for every run.
	var axes []string
	seen := map[string]map[string]bool{}
	for _, r := range rep.Runs {
		for a, v := range r.Axes {
			if seen[a] == nil {
				seen[a] = map[string]bool{}
				axes = append(axes, a)
			}
			seen[a][v] = true
		}
		if seen["replicate"] == nil {
			seen["replicate"] = map[string]bool{}
		}
		seen["replicate"][strconv.Itoa(r.Replicate)] = true
	}
	axes = slices.DeleteFunc(axes, func(a string) bool { return len(seen[a]) < 2 })
	slices.SortStableFunc(axes, func(a, b string) int { return axisRank(a) - axisRank(b) })
	showRep := len(seen["replicate"]) > 1
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, a := range axes {
		fmt.Fprintf(tw, "%s\t", a)
	}
	if showRep {
		fmt.Fprint(tw, "replicate\t")
	}
	fmt.Fprintln(tw, "jobs\tmean wait (s)\tp95 wait (s)\tmean bsld\tutilisation\tseconds\t")
	for _, r := range rep.Runs {
		for _, a := range axes {
			fmt.Fprintf(tw, "%s\t", r.Axes[a])
		}
		if showRep {
			fmt.Fprintf(tw, "%d\t", r.Replicate)
		}
		if r.Status != campaign.StatusOK {
			fmt.Fprintf(tw, "%s: %s\t\t\t\t\t\t\n", r.Status, firstLine(r.Error))
			continue
		}
		mt := r.Metrics
		fmt.Fprintf(tw, "%.0f\t%.1f\t%.0f\t%.2f\t%.4f\t%.2f\t\n", mt["jobs"], mt["mean_wait"], mt["p95_wait"],
			mt["mean_bsld"], mt["utilisation"], r.WallSeconds)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nper run: %s    per job: %s/<run_key>.parquet    (docs/results.md)\n",
		filepath.Join(dir, campaign.RunsFile), filepath.Join(dir, campaign.JobsDir))
}

// axisRank orders the table's axis columns as the matrix does.
func axisRank(a string) int {
	switch a {
	case "workload":
		return 0
	case "platform":
		return 1
	case "policy":
		return 2
	case "estimates":
		return 3
	}
	return 4
}

// display shortens a path under the working directory to a relative one.
func display(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

func writeReportJSON(w io.Writer, rep *campaign.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{
		"dir": rep.Dir, "total": rep.Total, "done": rep.Done, "failed": rep.Failed, "pending": rep.Pending,
		"reused": rep.Reused, "interrupted": rep.Interrupted, "elapsed_seconds": rep.Elapsed.Seconds(), "runs": rep.Runs,
	})
}
