package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"unicode/utf8"

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
	shard                string
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run MANIFEST.toml | run --resume MANIFEST.toml | run --resume DIR",
		Short: "run a campaign: every run of a manifest's matrix, concurrently",
		Long: `Run every run of a campaign manifest (see docs/manifest.md) into its campaign
folder (campaign.out, or --out): jobs/<run-key>.parquet per run, runs.parquet
with one row per run, and manifest.lock.toml, the manifest fully resolved
(see docs/results.md).

Before anything is created, every trace is loaded and checked against its
sha256, every policy resolved (Go packages built) and started, and every
parameter checked against the policy's declarations: a problem there exits 2.

A folder that already holds a campaign is never overwritten by mistake:
--resume MANIFEST runs the manifest as it is now into its folder, keeping the
completed runs whose keys it still has and running the others (new runs of a
grown manifest, runs whose settings changed, runs that failed or never ran);
runs of the folder the manifest no longer has are listed, kept on disk and
left out of runs.parquet. --resume DIR runs what DIR is missing of the
campaign as locked in its manifest.lock.toml (after an interrupt or a kill).
--overwrite starts again.

--shard I/N runs only shard I of N of the campaign's runs, balanced by
expected cost (jobs times the policy's cost): shards can run at the same time,
on different machines, into one campaign folder on a shared file system, each
keeping the others' results and rebuilding runs.parquet from all of them
(docs/cluster.md; schedlab slurm submits them as a Slurm job array).

Exit status (schedlab --help gives the rule of every command): 0 all runs
completed; 1 some runs failed (the others completed and are recorded); 2 bad
input, nothing ran; 3 interrupted (SIGINT or SIGTERM, at any stage: building
a policy, starting one, or running), resume to finish.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runCampaign(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "campaign folder (default: the manifest's campaign.out)")
	fl.IntVarP(&f.jobs, "jobs", "j", 0, "runs in flight at once (default: number of CPUs)")
	fl.BoolVar(&f.failFast, "fail-fast", false, "stop starting runs after the first failure")
	fl.BoolVar(&f.resume, "resume", false, "keep the completed runs of the campaign folder and run the rest (the argument: the manifest, or the folder)")
	fl.BoolVar(&f.overwrite, "overwrite", false, "delete the results of a campaign already in the folder first")
	fl.BoolVar(&f.inProcess, "in-process", false, "link reference policies into this process instead of starting plugin processes")
	fl.BoolVar(&f.freshProcesses, "fresh-processes", false, "start a plugin process for every run instead of reusing one for many runs of a policy")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print nothing but errors")
	fl.BoolVar(&f.asJSON, "json", false, "print the campaign summary as JSON")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log every run")
	fl.StringVar(&f.shard, "shard", "", "run only shard I of N of the campaign's runs (I/N, e.g. 2/8)")
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
		InProcess: f.inProcess, FreshProcesses: f.freshProcesses, Generators: generators(),
		Executor: campaign.ExecutorFromEnv(os.Getenv), Archive: archive(cmd.ErrOrStderr())}
	if f.shard != "" {
		var err error
		if opts.Shard, err = campaign.ParseShard(f.shard); err != nil {
			return &exitError{exitBadInput, err}
		}
		if f.overwrite && opts.Shard.Partial() {
			return &exitError{exitBadInput, errors.New("--overwrite with --shard would delete the other shards' results: overwrite the campaign whole, then run its shards")}
		}
	}
	stderr := cmd.ErrOrStderr()
	var m *manifest.Manifest
	var err error
	st, statErr := os.Stat(arg)
	switch {
	case f.resume && statErr == nil && st.IsDir():
		// A folder: its campaign as locked.
		if f.out != "" {
			return &exitError{exitBadInput, errors.New("--resume DIR resumes DIR; --out applies only with --resume MANIFEST")}
		}
		m, err = manifest.LoadLock(filepath.Join(arg, campaign.LockFile), opts.Generators...)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				err = fmt.Errorf("resume %s: no %s there, so no campaign to resume", arg, campaign.LockFile)
			}
			return &exitError{exitBadInput, err}
		}
		warnEditedSource(stderr, arg, m)
		opts.Dir = arg
	default:
		// A manifest: run it as it is now, resuming its folder with
		// --resume (the completed runs whose keys it still has are kept).
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
	opts.Logger = logger(stderr, f.verbose, f.quiet)
	finish := func() {}
	if !f.quiet && !f.asJSON {
		finish = progress(stderr, &opts)
	}
	rep, err := campaign.Run(cmd.Context(), m, opts)
	finish()
	repro := reproducer(m)
	if err != nil {
		switch {
		case cmd.Context().Err() != nil && errors.Is(err, context.Canceled):
			// Stopped while the traces were loaded and the policies built
			// and started, which precede any change to the folder.
			return &exitError{exitInterrupted, fmt.Errorf("interrupted before the first run, while checking the campaign's inputs; the campaign folder was not touched: run the command again")}
		case errors.Is(err, campaign.ErrExists):
			return &exitError{exitBadInput, fmt.Errorf("%w\n  run what it misses (with the new and changed runs of an edited manifest): schedlab run --resume %s%s\n  start again: schedlab run --overwrite %s%s",
				err, arg, outFlag(f.out), arg, outFlag(f.out))}
		case errors.Is(err, campaign.ErrInput), errors.Is(err, campaign.ErrFolder), errors.Is(err, campaign.ErrOtherCampaign),
			errors.Is(err, campaign.ErrShardChanged):
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
		printReport(out, rep, repro)
	default:
		printFailures(stderr, rep, repro) // errors, which --quiet still prints
	}
	again := display(rep.Dir)
	if rep.Shard.Partial() {
		again += " --shard " + rep.Shard.String()
	}
	switch {
	case rep.Interrupted:
		return &exitError{exitInterrupted, fmt.Errorf("interrupted with %d of %d runs completed; finish with: schedlab run --resume %s",
			rep.Done, rep.Total, again)}
	case rep.Failed > 0:
		return &exitError{exitRunsFailed, fmt.Errorf("%d of %d runs failed (their whole errors: the error column of %s)",
			rep.Failed, rep.Total, filepath.Join(display(rep.Dir), campaign.RunsFile))}
	case rep.Pending > 0:
		return &exitError{exitRunsFailed, fmt.Errorf("%d of %d runs did not run (--fail-fast); finish with: schedlab run --resume %s",
			rep.Pending, rep.Total, again)}
	}
	return nil
}

// outFlag repeats --out in advice.
func outFlag(out string) string {
	if out == "" {
		return ""
	}
	return " --out " + out
}

// warnEditedSource says when the manifest a campaign was started from has
// changed since: resuming the folder runs the campaign as locked, not as
// edited.
func warnEditedSource(w io.Writer, dir string, m *manifest.Manifest) {
	if m.Lock == nil || m.Lock.Source == "" {
		return
	}
	text, err := os.ReadFile(m.Lock.Source)
	if err != nil {
		return // moved, or relative to another directory
	}
	if sum := sha256.Sum256(text); hex.EncodeToString(sum[:]) != m.Lock.SourceSHA256 {
		fmt.Fprintf(w, "note: %s has changed since this campaign was started; resuming %s runs the campaign as locked in %s.\n"+
			"  to run the manifest as it is now: schedlab run --resume %s\n", m.Lock.Source, dir, campaign.LockFile, m.Lock.Source)
	}
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
			state = "FAILED" // the reason once, in the failures after the table
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

// whereLine returns the line of a run's error that says where a policy
// panicked (sdk/sim writes it after the panic's value: "at t=..., ..., in
// FILE:LINE (FUNC)", or "in FILE:LINE (FUNC)" before the engine started),
// or "".
func whereLine(err string) string {
	for _, l := range strings.Split(err, "\n") {
		if strings.HasPrefix(l, "at t=") || strings.HasPrefix(l, "in ") && strings.Contains(l, ".go:") {
			return l
		}
	}
	return ""
}

func printReport(w io.Writer, rep *campaign.Report, repro func(campaign.RunResult) string) {
	dir := display(rep.Dir)
	fmt.Fprintf(w, "campaign %s", dir)
	if rep.Shard.Partial() {
		fmt.Fprintf(w, ", shard %s", rep.Shard)
	}
	fmt.Fprintf(w, ": %d of %d runs completed", rep.Done, rep.Total)
	if rep.Reused > 0 {
		fmt.Fprintf(w, " (%d by an earlier invocation)", rep.Reused)
	}
	fmt.Fprintf(w, ", %d failed, %d not run, in %s\n", rep.Failed, rep.Pending, rep.Elapsed.Round(time.Millisecond))
	if c := rep.Campaign; c != nil {
		fmt.Fprintf(w, "the whole campaign, as the folder holds it now: %d of %d runs completed, %d failed, %d not run\n",
			c.Done, c.Total, c.Failed, c.Pending)
	}
	printStale(w, rep)
	fmt.Fprintln(w)
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
	// A grid's local and global jobs are shown apart: a mean over both
	// hides either.
	grid := slices.ContainsFunc(rep.Runs, func(r campaign.RunResult) bool { _, ok := r.Metrics["global_jobs"]; return ok })
	empty := 4 // the metric columns of a run that did not complete
	if grid {
		empty = 7
		fmt.Fprintln(tw, "jobs\tlocal mean wait (s)\tglobal mean wait (s)\tglobal max wait (s)\tglobal rejected\tlocal mean bsld\tglobal mean bsld\tutilisation\tseconds\t")
	} else {
		fmt.Fprintln(tw, "jobs\tmean wait (s)\tp95 wait (s)\tmean bsld\tutilisation\tseconds\t")
	}
	for _, r := range rep.Runs {
		if r.Status == campaign.StatusPending {
			continue // counted above as not run
		}
		for _, a := range axes {
			fmt.Fprintf(tw, "%s\t", r.Axes[a])
		}
		if showRep {
			fmt.Fprintf(tw, "%d\t", r.Replicate)
		}
		if r.Status != campaign.StatusOK {
			fmt.Fprintf(tw, "%s\t%s%.2f\t\n", r.Status, strings.Repeat("\t", empty), r.WallSeconds)
			continue
		}
		mt := r.Metrics
		if grid {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t\n", metric(mt, "jobs", 0), metric(mt, "local_mean_wait", 1),
				metric(mt, "global_mean_wait", 1), metric(mt, "global_max_wait", 0), metric(mt, "global_rejected", 0),
				metric(mt, "local_mean_bsld", 2), metric(mt, "global_mean_bsld", 2), metric(mt, "utilisation", 4), r.WallSeconds)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.2f\t\n", metric(mt, "jobs", 0), metric(mt, "mean_wait", 1), metric(mt, "p95_wait", 0),
			metric(mt, "mean_bsld", 2), metric(mt, "utilisation", 4), r.WallSeconds)
	}
	tw.Flush()
	printFailures(w, rep, repro)
	fmt.Fprintf(w, "\nper run: %s    per job: %s/<run_key>.parquet    (docs/results.md)\n",
		filepath.Join(dir, campaign.RunsFile), filepath.Join(dir, campaign.JobsDir))
}

// metric formats a summary metric with the given decimals, or says null
// when the run's summary has none: a statistic with no job to stand on
// (every job rejected, or trimmed by warm-up and cool-down), which
// runs.parquet holds as NULL.
func metric(m map[string]any, key string, decimals int) string {
	v, ok := m[key].(float64)
	if !ok {
		return "null"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// printFailures says why runs failed, once per reason: the first line of
// the error (the rest, such as a stack, is in runs.parquet) and the runs
// that failed with it; then, for the first of them, where it failed when
// the error says (a policy's panic: the simulated time, the queue, the
// policy's file and line) and, when repro is not nil, how to run it alone.
func printFailures(w io.Writer, rep *campaign.Report, repro func(campaign.RunResult) string) {
	if rep.Failed == 0 {
		return
	}
	var reasons []string
	runs := map[string][]string{}
	first := map[string]campaign.RunResult{}
	logs := 0
	for _, r := range rep.Runs {
		if r.Status != campaign.StatusFailed {
			continue
		}
		why := shorten(firstLine(r.Error), 300)
		if runs[why] == nil {
			reasons = append(reasons, why)
			first[why] = r
		}
		runs[why] = append(runs[why], r.Label)
		if r.Log != "" {
			logs++
		}
	}
	fmt.Fprintf(w, "\n%d failed:\n", rep.Failed)
	for _, why := range reasons {
		fmt.Fprintf(w, "  %s\n    %s\n", why, listLabels(runs[why], 4))
		r := first[why]
		of := ""
		if len(runs[why]) > 1 {
			of = " (" + r.Label + ")"
		}
		if where := whereLine(r.Error); where != "" {
			fmt.Fprintf(w, "    %s%s\n", shorten(where, 300), of)
		}
		if repro != nil {
			if cmd := repro(r); cmd != "" {
				fmt.Fprintf(w, "    %s\n", cmd)
			}
		}
	}
	if logs > 0 {
		fmt.Fprintf(w, "what the plugins printed during the runs: %s/<run_key>.log\n", filepath.Join(display(rep.Dir), campaign.LogsDir))
	}
}

// printStale lists the runs of the folder that a resume with an edited
// manifest left out, by why.
func printStale(w io.Writer, rep *campaign.Report) {
	if len(rep.Stale) == 0 {
		return
	}
	// A run whose settings changed back (a code change reverted) has a
	// run in the folder with the settings as they are now: that one was
	// reused, not run again.
	reused := map[string]bool{}
	for _, r := range rep.Runs {
		if r.Reused {
			reused[r.Label] = true
		}
	}
	var changes []string
	labels := map[string][]string{}
	for _, s := range rep.Stale {
		why := s.Change
		switch {
		case why == "":
			why = "no longer in the manifest"
		case reused[s.Label]:
			why = "changed, and the folder's earlier run with the settings as they are now was reused: " + why
		default:
			why = "changed, so run again: " + why
		}
		if labels[why] == nil {
			changes = append(changes, why)
		}
		labels[why] = append(labels[why], s.Label)
	}
	fmt.Fprintf(w, "%d runs of the folder are not in the manifest as it is now (their files stay in %s and %s, out of %s):\n",
		len(rep.Stale), campaign.StatusDir, campaign.JobsDir, campaign.RunsFile)
	for _, why := range changes {
		fmt.Fprintf(w, "  %s\n    %s\n", why, listLabels(labels[why], 4))
	}
}

// listLabels joins up to n labels and counts the rest.
func listLabels(labels []string, n int) string {
	if len(labels) <= n {
		return strings.Join(labels, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(labels[:n], ", "), len(labels)-n)
}

// shorten cuts s to about n bytes by taking out its middle, marked, on
// character boundaries: the cause of an error comes last ("...: no space
// left on device") after paths that can be long, and the start says what
// failed, so both ends are kept.
func shorten(s string, n int) string {
	const mark = " [...] "
	if len(s) <= n {
		return s
	}
	head, tail := (n-len(mark))/2, (n-len(mark))-(n-len(mark))/2
	i, j := head, len(s)-tail
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	for j < len(s) && !utf8.RuneStart(s[j]) {
		j++
	}
	return s[:i] + mark + s[j:]
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
		"stale": staleJSON(rep.Stale),
	})
}

// staleJSON writes the stale runs with snake_case keys.
func staleJSON(stale []campaign.Stale) []map[string]string {
	out := make([]map[string]string, len(stale))
	for i, s := range stale {
		out[i] = map[string]string{"label": s.Label, "key": s.Key, "status": s.Status, "change": s.Change}
	}
	return out
}
