package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/plugins"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/runner/campaign"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/runner/slurm"
)

func newSlurmCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "slurm",
		Short: "run a campaign on a Slurm cluster, as a job array of shards",
		Long: `Run a campaign on a Slurm cluster (docs/cluster.md): submit submits it as a job
array, each task one shard of the campaign's runs, and a merge job that
rebuilds runs.parquet once they have ended; status shows how they fare.
The campaign folder must be on a file system the compute nodes share.`,
	}
	cmd.AddCommand(newSlurmSubmitCmd(), newSlurmStatusCmd(), newSlurmTaskCmd(), newSlurmMergeCmd())
	return cmd
}

type submitFlags struct {
	out    string
	array  int
	resume bool
	wait   bool
	poll   time.Duration
	res    slurm.Resources
}

func newSlurmSubmitCmd() *cobra.Command {
	var f submitFlags
	cmd := &cobra.Command{
		Use:   "submit MANIFEST.toml --array N | submit --resume DIR",
		Short: "submit a campaign as a Slurm job array of N shards and a merge job",
		Long: `Submit the campaign of a manifest to Slurm: a job array of N tasks, task I
running shard I/N of the campaign's runs (schedlab run --shard), and a merge
job that rebuilds runs.parquet after every task has ended (afterany).

Before anything is submitted, everything is checked as schedlab run checks it
(traces, policies, parameters: a problem exits 2 and creates nothing); then the
campaign folder is made, and this schedlab binary and the policies' binaries
(Go packages built here, once) are copied into DIR/slurm, so that compute
nodes need no Go. The scripts, the task logs and the record of the
submissions (job IDs, each shard's runs) are in DIR/slurm too.

--wait waits for the merge job and exits with the campaign's status, as
schedlab run does: 0 every run completed, 1 some failed, 3 some did not run
(a task cancelled or out of time: submit --resume DIR runs them).

submit --resume DIR submits again only the shards with runs missing or
failed, each of them running only those runs.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return slurmSubmit(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "campaign folder (default: the manifest's campaign.out), on a shared file system")
	fl.IntVar(&f.array, "array", 0, "number of array tasks, each a shard of the campaign's runs")
	fl.BoolVar(&f.resume, "resume", false, "submit again the shards of campaign folder DIR with runs missing or failed")
	fl.BoolVar(&f.wait, "wait", false, "wait for the array and the merge job, and exit with the campaign's status")
	fl.DurationVar(&f.poll, "poll", 5*time.Second, "with --wait, how often to ask squeue")
	fl.StringVar(&f.res.Partition, "partition", "", "sbatch --partition")
	fl.StringVar(&f.res.Time, "time", "", "sbatch --time of each task, e.g. 1:00:00")
	fl.StringVar(&f.res.Mem, "mem", "", "sbatch --mem of each task, e.g. 4G")
	fl.IntVar(&f.res.CPUsPerTask, "cpus-per-task", 1, "sbatch --cpus-per-task: CPUs of each task, which runs as many runs at once")
	fl.StringArrayVar(&f.res.Args, "sbatch-arg", nil, "another sbatch option for the tasks and the merge job, e.g. --sbatch-arg=--account=proj (repeatable)")
	return cmd
}

func slurmSubmit(cmd *cobra.Command, arg string, f submitFlags) error {
	ctx := cmd.Context()
	stderr, stdout := cmd.ErrOrStderr(), cmd.OutOrStdout()
	bad := func(err error) error { return &exitError{exitBadInput, err} }
	if _, err := exec.LookPath("sbatch"); err != nil {
		return bad(fmt.Errorf("sbatch is not on PATH: submit from a Slurm login node (Debian: apt-get install slurm-client): %w", err))
	}
	if f.wait && f.poll < 100*time.Millisecond {
		return bad(fmt.Errorf("--poll %s: at least 100ms", f.poll))
	}
	gens := generators()
	opts := campaign.Options{Merge: true, Generators: gens, Executor: campaign.ExecutorFromEnv(os.Getenv), Archive: archive(stderr)}
	client := slurm.Client{}
	var m *manifest.Manifest
	var rec *slurm.Record
	var err error
	if f.resume {
		if f.out != "" || f.array != 0 {
			return bad(errors.New("submit --resume DIR resubmits DIR as it was submitted: --out and --array apply to a first submission"))
		}
		if opts.Dir, err = filepath.Abs(arg); err != nil {
			return bad(err)
		}
		if rec, err = slurm.ReadRecord(opts.Dir); err != nil {
			return bad(err)
		}
		if id := plugins.Identity(); rec.Identity != "" && rec.Identity != id {
			// Another build's reference policies have other run keys: its
			// resume would run the whole campaign again.
			return bad(fmt.Errorf("%s was submitted by a schedlab whose reference policies have identity %.12s..., this one's is %.12s...: "+
				"resume it with the binary it was submitted with: %s slurm submit --resume %s",
				arg, rec.Identity, id, filepath.Join(display(opts.Dir), slurm.Folder, slurm.Binary), arg))
		}
		if n := len(rec.Submissions); n > 0 {
			last := rec.Submissions[n-1]
			if q, err := client.Queued(ctx, last.ArrayJobID, last.MergeJobID); err != nil {
				return err
			} else if len(q) > 0 {
				return bad(fmt.Errorf("%s: jobs %v of the last submission are still queued or running: wait for them (schedlab slurm status %s) or scancel them first",
					arg, q, arg))
			}
		}
		if m, err = manifest.LoadLock(filepath.Join(opts.Dir, campaign.LockFile), gens...); err != nil {
			return bad(err)
		}
		// The options of the last submission, but those given now.
		res, fl := rec.Resources, cmd.Flags()
		for name, set := range map[string]func(){
			"partition": func() { res.Partition = f.res.Partition }, "time": func() { res.Time = f.res.Time },
			"mem": func() { res.Mem = f.res.Mem }, "cpus-per-task": func() { res.CPUsPerTask = f.res.CPUsPerTask },
			"sbatch-arg": func() { res.Args = f.res.Args },
		} {
			if fl.Changed(name) {
				set()
			}
		}
		f.res = res
		opts.Resume = true
		opts.Resolver, err = folderResolver(opts.Dir, m, rec)
	} else {
		if f.array < 1 {
			return bad(errors.New("--array N: the number of array tasks (shards), at least 1"))
		}
		if m, err = manifest.Load(arg, gens...); err != nil {
			return bad(err)
		}
		opts.Source = arg
		opts.SourceText, _ = os.ReadFile(arg)
		if opts.Dir, err = filepath.Abs(cmp.Or(f.out, m.Campaign.Out)); err != nil {
			return bad(err)
		}
		if _, err := os.Stat(filepath.Join(opts.Dir, campaign.LockFile)); err == nil {
			return bad(fmt.Errorf("%s: %w\n  submit what it misses: schedlab slurm submit --resume %s", display(opts.Dir), campaign.ErrExists, display(opts.Dir)))
		}
		rec = &slurm.Record{Shards: f.array, Identity: plugins.Identity()}
		opts.Resolver, err = resolver()
	}
	if err != nil {
		return err
	}
	if err := f.res.Validate(); err != nil {
		return bad(err)
	}
	dir := opts.Dir
	array, merge := slurm.Scripts(dir, m.Campaign.Name, f.res)
	if !f.resume {
		// The cluster's word on the options, before the folder exists.
		all := make([]int, rec.Shards)
		for i := range all {
			all[i] = i + 1
		}
		if err := client.TestArray(ctx, array, all); err != nil {
			return bad(err)
		}
	}
	// Checks everything, then makes the folder and the lock, every run
	// pending (or, resuming, as the folder holds it).
	rep, err := campaign.Run(ctx, m, opts)
	if err != nil {
		if errors.Is(err, campaign.ErrInput) || errors.Is(err, campaign.ErrFolder) || errors.Is(err, campaign.ErrExists) {
			return bad(err)
		}
		return err
	}
	if rec.Policies, err = copyBinaries(dir, rep.Policies, rec.Policies); err != nil {
		return err
	}
	costs := make([]float64, len(rep.Plan))
	for i, p := range rep.Plan {
		costs[i] = p.Cost
	}
	rec.Keys = make([][]string, rec.Shards)
	var tasks []int
	for i, s := range campaign.AssignShards(costs, rec.Shards) {
		rec.Keys[s-1] = append(rec.Keys[s-1], rep.Plan[i].Key)
		if !rep.Plan[i].Done && !slices.Contains(tasks, s) {
			tasks = append(tasks, s)
		}
	}
	slices.Sort(tasks)
	c := rep.Campaign
	if len(tasks) == 0 {
		fmt.Fprintf(stdout, "campaign %s: all %d runs completed; nothing to submit\n", display(dir), c.Total)
		return nil
	}
	if f.resume {
		if err := client.TestArray(ctx, array, tasks); err != nil {
			return bad(err)
		}
	}
	for name, text := range map[string]string{slurm.ArrayScript: array, slurm.MergeScript: merge} {
		if err := results.WriteFileAtomic(filepath.Join(dir, slurm.Folder, name), func(w io.Writer) error {
			_, err := io.WriteString(w, text)
			return err
		}); err != nil {
			return fmt.Errorf("write the batch scripts: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, slurm.Folder, slurm.LogsDir), 0o755); err != nil {
		return fmt.Errorf("the folder of the task logs: %w", err)
	}
	// The tasks read the shards' keys: recorded before they can start.
	rec.Resources = f.res
	if err := rec.Write(dir); err != nil {
		return fmt.Errorf("record the submission: %w", err)
	}
	sub, err := client.Submit(ctx, dir, tasks)
	if sub.ArrayJobID != 0 {
		rec.Submissions = append(rec.Submissions, sub)
		if werr := rec.Write(dir); werr != nil {
			err = errors.Join(err, fmt.Errorf("record the submission: %w", werr))
		}
	}
	if err != nil {
		return err
	}
	todo := c.Total - c.Done
	fmt.Fprintf(stdout, "submitted job array %d (%d tasks: %s) for %d of the campaign's %d runs, and merge job %d after it\n",
		sub.ArrayJobID, len(tasks), slurm.TaskList(tasks), todo, c.Total, sub.MergeJobID)
	fmt.Fprintf(stdout, "  follow it: schedlab slurm status %s\n", display(dir))
	if !f.wait {
		return nil
	}
	if err := client.Wait(ctx, f.poll, sub.ArrayJobID, sub.MergeJobID); err != nil {
		if ctx.Err() != nil {
			return &exitError{exitInterrupted, fmt.Errorf("stopped waiting; the jobs go on: schedlab slurm status %s", display(dir))}
		}
		return err
	}
	fmt.Fprintln(stderr, "the array and the merge job have ended")
	// The merge job exits 0, 1 or 3 with the campaign's status; anything
	// else (killed, out of memory, gone) leaves runs.parquet to rebuild here.
	if st, code := client.JobState(ctx, sub.MergeJobID); !(st == "COMPLETED" || st == "FAILED" && (code == "1:0" || code == "3:0")) {
		fmt.Fprintf(stderr, "the merge job %d ended %s (exit %s): rebuilding %s here\n", sub.MergeJobID, cmp.Or(st, "unknown to Slurm"), code,
			filepath.Join(display(dir), campaign.RunsFile))
		mo := campaign.Options{Dir: dir, Resume: true, Merge: true, Generators: gens, Resolver: opts.Resolver}
		if _, err := campaign.Run(ctx, m, mo); err != nil {
			return fmt.Errorf("rebuild %s: %w", campaign.RunsFile, err)
		}
	}
	return slurmStatus(ctx, stdout, dir, true)
}

// copyBinaries copies this schedlab binary and the binaries of the
// policies it does not serve itself into the campaign folder, where the
// compute nodes run them, and returns the policies' (kept from an earlier
// submission when they are still there).
func copyBinaries(dir string, pols map[string]*runner.Resolved, had map[string]runner.Prebuilt) (map[string]runner.Prebuilt, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locate the schedlab binary: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, slurm.Folder, slurm.PluginsDir), 0o755); err != nil {
		return nil, err
	}
	if err := copyFile(self, filepath.Join(dir, slurm.Folder, slurm.Binary)); err != nil {
		return nil, err
	}
	out := map[string]runner.Prebuilt{}
	for name, res := range pols {
		if res == nil || res.Kind == runner.KindReference {
			continue
		}
		rel := filepath.Join(slurm.Folder, slurm.PluginsDir, res.SHA256)
		if pb, ok := had[name]; ok && pb.Binary == rel {
			out[name] = pb
			continue
		}
		if err := copyFile(res.Binary, filepath.Join(dir, rel)); err != nil {
			return nil, err
		}
		out[name] = runner.Prebuilt{Binary: rel, Kind: res.Kind}
	}
	return out, nil
}

// copyFile copies an executable to dst, through a temporary file, unless
// dst is already the same file.
func copyFile(src, dst string) error {
	if a, err := os.Stat(src); err == nil {
		if b, err := os.Stat(dst); err == nil && os.SameFile(a, b) {
			return nil
		}
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	err = results.WriteFileAtomic(dst, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
	if err != nil {
		return fmt.Errorf("copy %s into the campaign folder: %w", src, err)
	}
	return os.Chmod(dst, 0o755)
}

// folderResolver resolves the policies of a submitted campaign to the
// binaries in its folder, and the reference policies to this binary.
func folderResolver(dir string, m *manifest.Manifest, rec *slurm.Record) (runner.Resolver, error) {
	r, err := resolver()
	if err != nil {
		return r, err
	}
	r.Prebuilt = map[string]runner.Prebuilt{}
	for name, pb := range rec.Policies {
		p, ok := m.Policies[name]
		if !ok {
			continue
		}
		r.Prebuilt[p.Target] = runner.Prebuilt{Binary: filepath.Join(dir, pb.Binary), Kind: pb.Kind}
	}
	return r, nil
}

func newSlurmStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status DIR",
		Short: "show the tasks of a campaign submitted to Slurm and the runs each completed",
		Long: `Show, for each shard of a campaign submitted with schedlab slurm submit, its
runs completed, failed and not run (from the campaign folder) and its array
task's state (from scontrol while Slurm keeps the job, else sacct where
accounting is on), and the state of the merge job.

Exit status: 0 every run completed, 1 some failed, 3 some not run yet.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return slurmStatus(cmd.Context(), cmd.OutOrStdout(), args[0], false)
		},
	}
}

// slurmStatus prints the state of the campaign's shards and tasks and
// returns an exitError for a campaign not completed. finished says the jobs
// have ended (after --wait), so that runs not run are to be resumed.
func slurmStatus(ctx context.Context, w io.Writer, dir string, finished bool) error {
	rec, err := slurm.ReadRecord(dir)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	client := slurm.Client{}
	var last slurm.Submission
	var states map[int]slurm.TaskState
	if n := len(rec.Submissions); n > 0 {
		last = rec.Submissions[n-1]
		states = client.Tasks(ctx, last.ArrayJobID)
	}
	total, done, failed := 0, 0, 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "shard\truns\tcompleted\tfailed\tnot run\tlast task\tstate\t")
	for i, keys := range rec.Keys {
		d, fl := 0, 0
		for _, k := range keys {
			switch campaign.StatusOf(dir, k) {
			case campaign.StatusOK:
				d++
			case campaign.StatusFailed:
				fl++
			}
		}
		total, done, failed = total+len(keys), done+d, failed+fl
		task, state := "-", "-"
		if slices.Contains(last.Tasks, i+1) {
			task = fmt.Sprintf("%d_%d", last.ArrayJobID, i+1)
			state = "unknown to Slurm now"
			if s, ok := states[i+1]; ok {
				state = s.State
				if s.ExitCode != "" && s.ExitCode != "0:0" {
					state += " (exit " + s.ExitCode + ")"
				}
			}
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", i+1, len(keys), d, fl, len(keys)-d-fl, task, state)
	}
	tw.Flush()
	if last.MergeJobID != 0 {
		ms := "ended"
		if q, err := client.Queued(ctx, last.MergeJobID); err == nil && len(q) > 0 {
			ms = "waiting for the array, or running"
		}
		fmt.Fprintf(w, "merge job %d: %s\n", last.MergeJobID, ms)
	}
	fmt.Fprintf(w, "campaign %s: %d of %d runs completed, %d failed, %d not run (%d submissions)\n",
		display(dir), done, total, failed, total-done-failed, len(rec.Submissions))
	switch {
	case failed > 0:
		return &exitError{exitRunsFailed, fmt.Errorf("%d of %d runs failed (their errors: the error column of %s); submit them again: schedlab slurm submit --resume %s",
			failed, total, filepath.Join(display(dir), campaign.RunsFile), display(dir))}
	case done < total && finished:
		return &exitError{exitInterrupted, fmt.Errorf("%d of %d runs did not run (a task cancelled, failed or out of time: its log is in %s); submit them again: schedlab slurm submit --resume %s",
			total-done, total, filepath.Join(display(dir), slurm.Folder, slurm.LogsDir), display(dir))}
	case done < total:
		return &exitError{exitInterrupted, fmt.Errorf("%d of %d runs not completed yet", total-done, total)}
	}
	return nil
}

func newSlurmTaskCmd() *cobra.Command {
	var shard int
	cmd := &cobra.Command{
		Use:    "task DIR",
		Short:  "run the shard of a submitted campaign that this array task stands for (what the array's script runs)",
		Args:   cobra.ExactArgs(1),
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return slurmTask(cmd, args[0], shard)
		},
	}
	cmd.Flags().IntVar(&shard, "shard", 0, "the shard (default: $SLURM_ARRAY_TASK_ID)")
	return cmd
}

// slurmTask runs one shard of a submitted campaign, from its lock, with the
// binaries in its folder, checking that the shard's runs are those the
// submission planned.
func slurmTask(cmd *cobra.Command, dir string, shard int) error {
	rec, err := slurm.ReadRecord(dir)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	if shard == 0 {
		if shard, err = strconv.Atoi(os.Getenv("SLURM_ARRAY_TASK_ID")); err != nil {
			return &exitError{exitBadInput, errors.New("no shard: give --shard, or run as a task of the job array (SLURM_ARRAY_TASK_ID)")}
		}
	}
	if shard < 1 || shard > rec.Shards {
		return &exitError{exitBadInput, fmt.Errorf("shard %d of %d", shard, rec.Shards)}
	}
	m, err := manifest.LoadLock(filepath.Join(dir, campaign.LockFile), generators()...)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	workers, _ := strconv.Atoi(os.Getenv("SLURM_CPUS_PER_TASK"))
	opts := campaign.Options{Dir: dir, Resume: true, Shard: campaign.Shard{I: shard, N: rec.Shards},
		ShardKeys: slices.Clip(rec.Keys[shard-1]), Workers: max(workers, 1), Generators: generators(),
		Executor: campaign.ExecutorFromEnv(os.Getenv), Logger: logger(cmd.ErrOrStderr(), true, false), Archive: archive(cmd.ErrOrStderr())}
	if opts.ShardKeys == nil {
		opts.ShardKeys = []string{}
	}
	if opts.Resolver, err = folderResolver(dir, m, rec); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "schedlab %s on %s: shard %d/%d of %s, %d runs, %d at once\n",
		runner.Version, opts.Executor.Host, shard, rec.Shards, dir, len(opts.ShardKeys), opts.Workers)
	rep, err := campaign.Run(cmd.Context(), m, opts)
	if err != nil {
		if errors.Is(err, campaign.ErrInput) || errors.Is(err, campaign.ErrShardChanged) {
			return &exitError{exitBadInput, err}
		}
		return err
	}
	printReport(cmd.OutOrStdout(), rep, reproducer(m))
	return campaignStatus(rep)
}

// campaignStatus is the exit status of a run, a shard or a merge.
func campaignStatus(rep *campaign.Report) error {
	switch {
	case rep.Interrupted:
		return &exitError{exitInterrupted, fmt.Errorf("interrupted with %d of %d runs completed", rep.Done, rep.Total)}
	case rep.Failed > 0:
		return &exitError{exitRunsFailed, fmt.Errorf("%d of %d runs failed", rep.Failed, rep.Total)}
	case rep.Pending > 0:
		return &exitError{exitInterrupted, fmt.Errorf("%d of %d runs did not run", rep.Pending, rep.Total)}
	}
	return nil
}

func newSlurmMergeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "merge DIR",
		Short: "rebuild runs.parquet of a campaign folder from the runs its shards completed",
		Long: `Rebuild runs.parquet of a campaign folder from the results of every run it
holds, after shards of the campaign ran into it (the merge job of schedlab
slurm submit runs this after the array). Nothing runs.

Exit status: 0 every run completed, 1 some failed, 3 some not run.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return slurmMerge(cmd, args[0]) },
	}
}

func slurmMerge(cmd *cobra.Command, dir string) error {
	m, err := manifest.LoadLock(filepath.Join(dir, campaign.LockFile), generators()...)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	opts := campaign.Options{Dir: dir, Resume: true, Merge: true, Generators: generators(), Workers: runtime.NumCPU(),
		Archive: archive(cmd.ErrOrStderr())}
	if rec, err := slurm.ReadRecord(dir); err == nil {
		opts.Resolver, err = folderResolver(dir, m, rec)
		if err != nil {
			return err
		}
	} else if opts.Resolver, err = resolver(); err != nil {
		return err
	}
	rep, err := campaign.Run(cmd.Context(), m, opts)
	if err != nil {
		if errors.Is(err, campaign.ErrInput) {
			return &exitError{exitBadInput, err}
		}
		return err
	}
	c := rep.Campaign
	fmt.Fprintf(cmd.OutOrStdout(), "campaign %s: %d of %d runs completed, %d failed, %d not run; %s rebuilt\n",
		display(dir), c.Done, c.Total, c.Failed, c.Pending, filepath.Join(display(dir), campaign.RunsFile))
	return campaignStatus(&campaign.Report{Total: c.Total, Done: c.Done, Failed: c.Failed, Pending: c.Pending})
}
