// Package slurm runs the shards of a campaign as a Slurm job array: it
// writes the batch scripts into the campaign folder, submits them with
// sbatch (the array, then a merge job that depends on it), records what it
// submitted, and asks Slurm (squeue, scontrol, sacct) how the tasks fare.
// The campaign folder must be on a file system every compute node sees at
// the same path; docs/cluster.md says what goes where.
package slurm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner"
)

// The files of a campaign folder's slurm folder.
const (
	// Folder holds everything a submission adds to the campaign folder.
	Folder = "slurm"
	// RecordFile records the shards and every submission.
	RecordFile = "submit.json"
	// Binary is the copy of schedlab the tasks run.
	Binary = "schedlab"
	// PluginsDir holds the policies' binaries, by sha256.
	PluginsDir = "plugins"
	// LogsDir holds the tasks' standard output and error.
	LogsDir = "logs"
	// ArrayScript and MergeScript are the batch scripts.
	ArrayScript = "array.sbatch"
	MergeScript = "merge.sbatch"
)

// Record is what the slurm folder records of a campaign's submissions.
type Record struct {
	// Shards is the number of shards (the array's size).
	Shards int `json:"shards"`
	// Keys holds each shard's run keys in campaign order, Keys[i-1] shard
	// i's, as planned at the last submission: each task checks it computes
	// the same.
	Keys [][]string `json:"keys"`
	// Policies maps a policy's name to its binary in the folder (the path
	// relative to the campaign folder) for policies that are not served by
	// schedlab itself.
	Policies map[string]runner.Prebuilt `json:"policies,omitempty"`
	// Identity is the identity of the reference policies of the schedlab
	// binary in the folder (plugins.Identity), part of their runs' keys.
	Identity string `json:"identity"`
	// Resources are the sbatch options of the last submission, which a
	// resume keeps unless given others.
	Resources Resources `json:"resources"`
	// Submissions lists every submission, the last one last.
	Submissions []Submission `json:"submissions"`
}

// Submission is one sbatch of a campaign: the array and its merge job.
type Submission struct {
	Time       string `json:"time"`
	ArrayJobID int64  `json:"array_job_id"`
	MergeJobID int64  `json:"merge_job_id"`
	// Tasks are the array's task IDs, which are shard numbers: all of
	// 1..Shards at first, the shards with runs missing on a resume.
	Tasks []int `json:"tasks"`
}

// ReadRecord reads the record of the campaign folder dir.
func ReadRecord(dir string) (*Record, error) {
	b, err := os.ReadFile(filepath.Join(dir, Folder, RecordFile))
	if err != nil {
		return nil, fmt.Errorf("%s: no Slurm submission recorded: %w", dir, err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, Folder, RecordFile), err)
	}
	return &r, nil
}

// Write writes the record into the campaign folder dir.
func (r *Record) Write(dir string) error {
	return results.WriteFileAtomic(filepath.Join(dir, Folder, RecordFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	})
}

// Resources are the sbatch options of the array's tasks.
type Resources struct {
	Partition   string `json:"partition,omitempty"`
	Time        string `json:"time,omitempty"`
	Mem         string `json:"mem,omitempty"`
	CPUsPerTask int    `json:"cpus_per_task"`
	// Args are more sbatch options, passed as they are.
	Args []string `json:"sbatch_args,omitempty"`
}

// Validate checks the options before they go into a script: a value on
// more than one line would add lines of its own.
func (r Resources) Validate() error {
	if r.CPUsPerTask < 1 {
		return fmt.Errorf("--cpus-per-task %d: at least 1", r.CPUsPerTask)
	}
	for name, v := range map[string]string{"--partition": r.Partition, "--time": r.Time, "--mem": r.Mem} {
		if strings.ContainsAny(v, "\n\r") {
			return fmt.Errorf("%s %q: one line only", name, v)
		}
	}
	for _, a := range r.Args {
		if strings.ContainsAny(a, "\n\r") || !strings.HasPrefix(a, "-") {
			return fmt.Errorf("--sbatch-arg %q: one sbatch option on one line, starting with -", a)
		}
	}
	return nil
}

// Scripts returns the batch scripts of a campaign folder dir (absolute):
// each task of the array runs its shard (the task ID is the shard number)
// with the folder's copy of schedlab, and the merge job rebuilds
// runs.parquet once the array has ended, whatever its tasks' states.
func Scripts(dir, name string, res Resources) (array, merge string) {
	bin := shellQuote(filepath.Join(dir, Folder, Binary))
	logs := filepath.Join(dir, Folder, LogsDir)
	head := func(what string) string {
		var b strings.Builder
		b.WriteString("#!/bin/bash\n")
		fmt.Fprintf(&b, "# Written by schedlab slurm submit: %s of campaign %s.\n", what, name)
		fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", jobName(name))
		if res.Partition != "" {
			fmt.Fprintf(&b, "#SBATCH --partition=%s\n", res.Partition)
		}
		if res.Time != "" {
			fmt.Fprintf(&b, "#SBATCH --time=%s\n", res.Time)
		}
		return b.String()
	}
	var a strings.Builder
	a.WriteString(head("one shard per array task"))
	fmt.Fprintf(&a, "#SBATCH --output=%s\n", filepath.Join(logs, "task-%A_%a.log"))
	fmt.Fprintf(&a, "#SBATCH --cpus-per-task=%d\n", max(res.CPUsPerTask, 1))
	if res.Mem != "" {
		fmt.Fprintf(&a, "#SBATCH --mem=%s\n", res.Mem)
	}
	for _, arg := range res.Args {
		fmt.Fprintf(&a, "#SBATCH %s\n", arg)
	}
	// exec, so that scancel's SIGTERM reaches schedlab, which then stops
	// its runs and leaves them pending for a resume.
	fmt.Fprintf(&a, "exec %s slurm task %s\n", bin, shellQuote(dir))

	var m strings.Builder
	m.WriteString(head("the merge of the shards' results"))
	fmt.Fprintf(&m, "#SBATCH --output=%s\n", filepath.Join(logs, "merge-%j.log"))
	m.WriteString("#SBATCH --cpus-per-task=1\n")
	for _, arg := range res.Args {
		fmt.Fprintf(&m, "#SBATCH %s\n", arg)
	}
	fmt.Fprintf(&m, "exec %s slurm merge %s\n", bin, shellQuote(dir))
	return a.String(), m.String()
}

// jobName keeps a campaign's name to what squeue shows well.
func jobName(name string) string {
	n := "schedlab"
	if name != "" {
		n += "-" + name
	}
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' {
			return '_'
		}
		return r
	}, n)
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Client runs Slurm's commands.
type Client struct {
	// Env is added to the commands' environment (e.g. SLURM_CONF).
	Env []string
}

// run runs a Slurm command and returns its standard output.
func (c Client) run(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), c.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("%s: %w: is this a Slurm login node? (Debian: apt-get install slurm-client)", name, err)
		}
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// TestArray asks sbatch, without submitting anything (--test-only), whether
// it would take the array script with these tasks: a partition, a time or a
// memory the cluster refuses is found before the campaign folder is made.
func (c Client) TestArray(ctx context.Context, script string, tasks []int) error {
	cmd := exec.CommandContext(ctx, "sbatch", "--test-only", "--array="+TaskList(tasks))
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("sbatch --test-only refuses the array: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// JobState returns the state and exit code of a job as scontrol, else
// sacct, knows it; empty when neither does any more.
func (c Client) JobState(ctx context.Context, id int64) (state, exit string) {
	if s, err := c.run(ctx, "scontrol", "-o", "show", "job", strconv.FormatInt(id, 10)); err == nil {
		f := fields(s)
		return f["JobState"], f["ExitCode"]
	}
	if s, err := c.run(ctx, "sacct", "-n", "-P", "-X", "-j", strconv.FormatInt(id, 10), "-o", "State,ExitCode"); err == nil {
		if parts := strings.Split(strings.TrimSpace(s), "|"); len(parts) == 2 {
			st, _, _ := strings.Cut(parts[0], " ")
			return st, parts[1]
		}
	}
	return "", ""
}

// Submit submits the array (the given task IDs) and then the merge job,
// which runs after every task has ended (afterany), and returns their job
// IDs.
func (c Client) Submit(ctx context.Context, dir string, tasks []int) (Submission, error) {
	sub := Submission{Time: time.Now().UTC().Format(time.RFC3339), Tasks: tasks}
	out, err := c.run(ctx, "sbatch", "--parsable", "--array="+TaskList(tasks), filepath.Join(dir, Folder, ArrayScript))
	if err != nil {
		return sub, fmt.Errorf("submit the array: %w", err)
	}
	if sub.ArrayJobID, err = parseJobID(out); err != nil {
		return sub, err
	}
	out, err = c.run(ctx, "sbatch", "--parsable", "--kill-on-invalid-dep=yes",
		"--dependency=afterany:"+strconv.FormatInt(sub.ArrayJobID, 10), filepath.Join(dir, Folder, MergeScript))
	if err != nil {
		return sub, fmt.Errorf("submit the merge job after array %d: %w", sub.ArrayJobID, err)
	}
	sub.MergeJobID, err = parseJobID(out)
	return sub, err
}

// parseJobID reads sbatch --parsable's answer: "ID" or "ID;CLUSTER".
func parseJobID(out string) (int64, error) {
	s, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("sbatch answered %q, not a job ID", strings.TrimSpace(out))
	}
	return id, nil
}

// TaskList writes task IDs as sbatch --array takes them: 1-3,5.
func TaskList(tasks []int) string {
	ts := slices.Sorted(slices.Values(tasks))
	var parts []string
	for i := 0; i < len(ts); {
		j := i
		for j+1 < len(ts) && ts[j+1] == ts[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ts[i], ts[j]))
		} else {
			parts = append(parts, strconv.Itoa(ts[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// Queued returns the jobs among ids that Slurm still has queued or
// running (for an array, any of its tasks).
func (c Client) Queued(ctx context.Context, ids ...int64) ([]int64, error) {
	var queued []int64
	for _, id := range ids {
		// One job at a time: squeue fails on a job it no longer knows,
		// which would hide the others.
		out, err := c.run(ctx, "squeue", "-h", "-o", "%i", "--jobs="+strconv.FormatInt(id, 10))
		if err != nil {
			if strings.Contains(err.Error(), "Invalid job id") {
				continue
			}
			return nil, err
		}
		if strings.TrimSpace(out) != "" {
			queued = append(queued, id)
		}
	}
	return queued, nil
}

// Wait waits until none of the jobs is queued or running, asking every
// interval.
func (c Client) Wait(ctx context.Context, interval time.Duration, ids ...int64) error {
	for {
		q, err := c.Queued(ctx, ids...)
		if err != nil {
			return err
		}
		if len(q) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// TaskState is what Slurm says of one task of an array.
type TaskState struct {
	Task     int
	State    string
	ExitCode string
	// Source says which command answered: squeue, scontrol or sacct.
	Source string
}

// Tasks returns the state of each task of the array job, as far as Slurm
// still knows it: scontrol while the controller keeps the job (pending,
// running and recently ended tasks), else sacct where accounting is on.
// Tasks it knows nothing of are missing from the result.
func (c Client) Tasks(ctx context.Context, array int64) map[int]TaskState {
	out := map[int]TaskState{}
	id := strconv.FormatInt(array, 10)
	if s, err := c.run(ctx, "scontrol", "-o", "show", "job", id); err == nil {
		for _, line := range strings.Split(s, "\n") {
			f := fields(line)
			task, err := strconv.Atoi(f["ArrayTaskId"])
			if err != nil {
				// Pending tasks not yet split out share one record: 2-3 or 2,4.
				for _, t := range expandTasks(f["ArrayTaskId"]) {
					out[t] = TaskState{Task: t, State: f["JobState"], ExitCode: f["ExitCode"], Source: "scontrol"}
				}
				continue
			}
			out[task] = TaskState{Task: task, State: f["JobState"], ExitCode: f["ExitCode"], Source: "scontrol"}
		}
	}
	if s, err := c.run(ctx, "sacct", "-n", "-P", "-X", "-j", id, "-o", "JobID,State,ExitCode"); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
			parts := strings.Split(line, "|")
			if len(parts) != 3 {
				continue
			}
			_, t, ok := strings.Cut(parts[0], "_")
			task, err := strconv.Atoi(t)
			if !ok || err != nil {
				continue
			}
			if _, known := out[task]; !known {
				state, _, _ := strings.Cut(parts[1], " ") // "CANCELLED by 0"
				out[task] = TaskState{Task: task, State: state, ExitCode: parts[2], Source: "sacct"}
			}
		}
	}
	return out
}

// fields splits one line of scontrol -o into its KEY=VALUE pairs.
func fields(line string) map[string]string {
	out := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			out[k] = v
		}
	}
	return out
}

// expandTasks reads a task list as scontrol prints it for pending tasks:
// "2-4", "1,3", "1-3%2", "[2-3]".
func expandTasks(s string) []int {
	s = strings.Trim(s, "[]")
	s, _, _ = strings.Cut(s, "%")
	var out []int
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err := strconv.Atoi(a)
		if err != nil {
			continue
		}
		hi := lo
		if isRange {
			if hi, err = strconv.Atoi(b); err != nil {
				continue
			}
		}
		for t := lo; t <= hi && t-lo < 1<<16; t++ {
			out = append(out, t)
		}
	}
	return out
}

// Cancel cancels one task of an array job.
func (c Client) Cancel(ctx context.Context, array int64, task int) error {
	_, err := c.run(ctx, "scancel", fmt.Sprintf("%d_%d", array, task))
	return err
}
