// Package campaign runs the runs of a manifest concurrently into a campaign
// folder: one Parquet jobs file per run, a status file per run, runs.parquet
// (one row per run) and manifest.lock.toml (the manifest fully resolved).
// Every file is written to a temporary name and renamed when complete, so a
// campaign killed at any moment can be resumed, running only what is
// missing. The folder layout is documented in docs/results.md.
package campaign

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/nodes"
	"github.com/schedlab/schedlab/workload/outages"
	"github.com/schedlab/schedlab/workload/pwa"
	"github.com/schedlab/schedlab/workload/sacct"
	"github.com/schedlab/schedlab/workload/swf"
)

// The files and folders of a campaign folder.
const (
	LockFile  = results.LockFile
	RunsFile  = results.RunsFile
	JobsDir   = results.JobsDir
	PowerDir  = results.PowerDir
	StatusDir = "status"
	LogsDir   = "logs"
)

// LogLimit bounds a run's log file (what its plugin process wrote during
// the run), in bytes: past it the rest is counted, not kept, so that a
// policy printing without end fills neither the memory nor the disk.
const LogLimit = 1 << 20

// Options control how a campaign runs.
type Options struct {
	// Dir is the campaign folder; empty means the manifest's campaign.out.
	Dir string
	// Workers is the number of runs in flight at once; 0 means one per CPU.
	Workers int
	// FailFast stops starting runs after the first failure; by default
	// every run is tried and failures are collected.
	FailFast bool
	// Resume runs only the runs of an existing campaign folder that have
	// not completed. Without Resume or Overwrite, a folder that already
	// holds a campaign is an error, so no result is ever lost by mistake.
	Resume bool
	// Overwrite deletes the campaign files of an existing folder first.
	Overwrite bool
	// InProcess links reference policies into this process instead of
	// starting plugin processes; the records are identical.
	InProcess bool
	// FreshProcesses starts a plugin process for every run and ends it
	// after, as a policy's fresh_process setting does for that policy. By
	// default a plugin process serves many runs of the campaign, one at a
	// time, each with a fresh policy (runner.Processes); the records are
	// identical either way for a policy that keeps no state between runs.
	FreshProcesses bool
	// ProcessRuns bounds the runs of one plugin process; 0 means
	// runner.DefaultProcessRuns.
	ProcessRuns int
	// Resolver resolves and builds the policies.
	Resolver runner.Resolver
	// Generators are the workload generators the manifest may name.
	Generators []manifest.Generator
	// Source is the manifest's path as the user gave it and SourceText its
	// content, recorded in the lock; empty when resuming from the lock. A
	// resume with a Source runs the manifest as it is now, keeping the
	// completed runs whose keys it still has, and rewrites the lock.
	Source     string
	SourceText []byte
	// Logger receives a record per run; nil discards them.
	Logger *slog.Logger
	// Archive resolves the pwa:NAME traces, downloading what its cache
	// lacks; the zero value uses the default cache folder.
	Archive pwa.Cache
	// Progress, when set, is called after each run ends, one call at a
	// time.
	Progress func(Progress)
	// Shard, when partial, runs only that shard's runs (AssignShards). The
	// folder may already hold the campaign, from the same manifest, with
	// other shards running into it: their results are kept, and
	// runs.parquet is rebuilt from every run the folder holds.
	Shard Shard
	// ShardKeys, when set, are the run keys the shard must have, in
	// campaign order, as recorded when the shards were planned: a shard
	// computed otherwise (a trace or a policy changed since) runs nothing
	// and Run returns ErrShardChanged.
	ShardKeys []string
	// Merge runs nothing: it rebuilds runs.parquet from the runs the
	// campaign folder holds, for after the shards of a campaign. On a
	// folder without a campaign it creates the campaign, every run pending.
	Merge bool
	// Executor is recorded with each run: where it ran. The zero value
	// means local.
	Executor Executor

	// provenance is runner.BuildProvenance, computed once per campaign.
	provenance map[string]string
	// joined says a shard found the folder's lock already there
	// (joinShards): it neither refuses the folder nor rewrites the lock.
	joined bool
}

// Progress is the state of a campaign after one more run ended.
type Progress struct {
	// Total counts the campaign's runs; Done those completed (in this
	// invocation or, when resuming, before), Failed those that failed and
	// Reused those a resume found already complete.
	Total, Done, Failed, Reused int
	// Last is the run that just ended.
	Last *RunResult
	// Elapsed is the time since the campaign started.
	Elapsed time.Duration
}

// Status values of a run.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
	// StatusPending is a run that has not completed: not started, or
	// stopped by an interrupt or by --fail-fast. Resuming runs it.
	StatusPending = "pending"
)

// RunResult is the outcome of one run, as its status file records it.
type RunResult struct {
	Index   int    `json:"index"`
	Label   string `json:"label"`
	Key     string `json:"key"`
	SpecSHA string `json:"spec_sha256"`
	// Spec is the run's canonical spec (manifest.CanonicalSpec), so that a
	// resume with an edited manifest can say which settings changed.
	Spec      json.RawMessage   `json:"spec,omitempty"`
	Axes      map[string]string `json:"axes"`
	Replicate int               `json:"replicate"`
	Params    map[string]string `json:"params"`
	Seed      uint64            `json:"seed"`
	WLSeed    uint64            `json:"workload_seed"`
	Status    string            `json:"status"`
	Error     string            `json:"error,omitempty"`
	// Metrics are the summary metrics (metrics.Summary by JSON name) of a
	// run that completed.
	Metrics map[string]any `json:"metrics,omitempty"`
	Policy  PolicyInfo     `json:"policy"`
	// WorkloadSHA is the sha256 of the workload the run used.
	WorkloadSHA string `json:"workload_sha256"`
	WorkloadJob int    `json:"workload_jobs"`
	// JobsSHA256 is the sha256 of the run's jobs file as written, so that a
	// resume can tell a complete file from a damaged one.
	JobsSHA256 string `json:"jobs_sha256,omitempty"`
	// PowerSHA256 is the sha256 of the run's power file as written (a run
	// with a power model), checked on resume as JobsSHA256 is.
	PowerSHA256 string  `json:"power_sha256,omitempty"`
	Procs       int64   `json:"procs"`
	Transport   string  `json:"transport,omitempty"`
	Start       string  `json:"start_time,omitempty"`
	End         string  `json:"end_time,omitempty"`
	WallSeconds float64 `json:"wall_seconds"`
	SimSeconds  float64 `json:"sim_seconds"`
	PolSeconds  float64 `json:"policy_seconds"`
	Events      int64   `json:"events"`
	PolicyCalls int64   `json:"policy_calls"`
	// PolicyCounts holds the policy's own counts (sdk.Counter), when it
	// keeps some: groupsel's, for one, counts the calls at which its search
	// stopped at its limit.
	PolicyCounts map[string]int64 `json:"policy_counts,omitempty"`
	// PolicyDrains counts the nodes the policy drained itself
	// (sdk.DrainNodes), when it drained some.
	PolicyDrains int64 `json:"policy_drains,omitempty"`
	// NodeCounts holds what each rule of the mapping onto nodes did, on a
	// platform of nodes (workload/nodes).
	NodeCounts map[string]int64 `json:"node_counts,omitempty"`
	// FeedbackCounts holds what each rule of the workload's feedback did,
	// when it has some (workload.FeedbackReport).
	FeedbackCounts map[string]int64 `json:"feedback_counts,omitempty"`
	// OutageCounts says what outages the run had, on a platform with some
	// (workload/outages.Counts).
	OutageCounts *outages.Counts `json:"outage_counts,omitempty"`
	// Transform names the workload's transform and TransformCounts holds
	// what it did (manifest.Transform.Apply), when it has one.
	Transform       string           `json:"transform,omitempty"`
	TransformCounts map[string]int64 `json:"transform_counts,omitempty"`
	// Log is the run's log file, relative to the campaign folder, when its
	// plugin process wrote anything during the run.
	Log string `json:"log,omitempty"`
	// ProcessRun is the run's number in the plugin process that served it:
	// 1 for a fresh process; 0 in process.
	ProcessRun int `json:"process_run,omitempty"`
	// Executor, Host, SlurmJobID and SlurmArrayTaskID say where the run
	// ran (Executor), and Shard the shard of the campaign it was run in
	// ("" when the campaign ran whole).
	Executor         string `json:"executor,omitempty"`
	Host             string `json:"host,omitempty"`
	SlurmJobID       int64  `json:"slurm_job_id,omitempty"`
	SlurmArrayTaskID *int64 `json:"slurm_array_task_id,omitempty"`
	Shard            string `json:"shard,omitempty"`
	// Reused marks a run a resume found complete; not stored.
	Reused bool `json:"-"`
}

// PolicyInfo identifies the plugin a run used.
type PolicyInfo struct {
	Ref    string `json:"ref"`
	Kind   string `json:"kind"`
	SHA256 string `json:"sha256"`
	// Identity is what stands for the policy's code in the run's key
	// (runner.Resolved.Identity).
	Identity string `json:"identity,omitempty"`
	Name     string `json:"name,omitempty"`
	Version  string `json:"version,omitempty"`
	SDK      string `json:"sdk_version,omitempty"`
}

// Report is the outcome of a campaign.
type Report struct {
	Dir string
	// Runs holds every run of the manifest (of the shard, with a partial
	// Shard), in expansion order.
	Runs []RunResult
	// Total, Done, Failed, Pending and Reused count those runs by status
	// (Done includes Reused).
	Total, Done, Failed, Pending, Reused int
	// Shard is the shard that ran (Options.Shard).
	Shard Shard
	// Campaign counts the runs of the whole campaign as the folder holds
	// them at the end, when only a shard ran or with Merge.
	Campaign *Counts
	// Plan lists every run of the campaign and Policies the policies as
	// resolved, by name, to plan shards and submit them (package slurm).
	Plan     []Planned
	Policies map[string]*runner.Resolved
	// Stale lists, when resuming, the runs of the folder that the manifest
	// no longer has, or has with other settings (and so other keys).
	Stale []Stale
	// Interrupted says the context was cancelled before every run ended.
	Interrupted bool
	Elapsed     time.Duration
}

// Planned is a run of a campaign as planned, before it runs.
type Planned struct {
	// Index, Label and Key identify the run, as in RunResult.
	Index      int
	Label, Key string
	// Policy is the run's policy, by its manifest name.
	Policy string
	// Cost is the run's expected cost, which balances shards (jobs times
	// the policy's cost setting).
	Cost float64
	// Done and Failed say how the folder holds the run at the end, set only
	// when a shard ran or with Merge (Report.Campaign counts them).
	Done, Failed bool
}

// ErrShardChanged is returned when a shard's runs are not those recorded
// when the shards were planned (Options.ShardKeys).
var ErrShardChanged = errors.New("the shard's runs differ from those planned")

// Counts counts the runs of a campaign by status.
type Counts struct{ Total, Done, Failed, Pending int }

// ErrExists is returned when the campaign folder already holds a campaign
// and neither Resume nor Overwrite is set.
var ErrExists = errors.New("the folder already holds a campaign")

// ErrFolder is returned, before any run, when the campaign folder cannot be
// made or written to.
var ErrFolder = errors.New("the campaign folder cannot be written")

type policyEntry struct {
	res *runner.Resolved
	// info is what the policy says of itself, asked when it is resolved so
	// that the lock records it before any run.
	info sdk.Info
	err  error
}

type workloadEntry struct {
	once sync.Once
	// name is the workload's name and procs the size it is loaded on.
	name  string
	procs int64
	wl    *workload.Workload
	err   error
	// cause is err without the workload's name, and errKey the key of the
	// workload's table at fault (trace, sha256 or generator), for Check.
	cause  error
	errKey string
	// A workload of streams has its parts, its identity (sha), the seed
	// of its draws, and once loaded a report of each stream.
	parts         []streamPart
	sha           string
	seed          uint64
	streamReports []StreamReport
}

// preparedEntry holds a workload's jobs made ready for one platform (and,
// with a transform, one replicate): requests extended to the platform's
// resources, the transform applied. Runs that share them share the entry.
type preparedEntry struct {
	once sync.Once
	plat *sdk.Platform
	jobs []sim.Input
	// counts is what the transform did; nil without one.
	counts map[string]int64
	// mapping and nodeCounts are the mapping of the jobs onto the
	// platform's nodes and what each of its rules did; nil on a pool.
	mapping    *nodes.Settings
	nodeCounts map[string]int64
	err        error
}

type task struct {
	run   manifest.Run
	spec  manifest.CanonicalSpec
	seeds manifest.Seeds
	key   string
	pol   *policyEntry
	wl    *workloadEntry
	// wlKey names the loaded workload the run uses, and wlSHA is the
	// workload's sha256 in the run's key.
	wlKey, wlSHA string
	prep         *preparedEntry
	// cost is the policy's cost per job (manifest.Policy.Cost).
	cost float64
}

// Run runs the manifest's runs into the campaign folder and returns the
// report. The error is for what stops the campaign as a whole (a folder
// that cannot be written, an existing campaign); a run that fails is
// recorded in its status file and in runs.parquet, and counted in the
// report. When ctx is cancelled, runs in flight are stopped and left
// pending, runs.parquet is still written, and Report.Interrupted is set.
func Run(ctx context.Context, m *manifest.Manifest, opts Options) (*Report, error) {
	began := time.Now()
	opts.provenance = runner.BuildProvenance()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir := opts.Dir
	if dir == "" {
		dir = m.Campaign.Out
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}

	if opts.Executor.Name == "" {
		opts.Executor = ExecutorFromEnv(func(string) string { return "" })
	}
	whole := !opts.Shard.Partial() && !opts.Merge
	if !whole && opts.Overwrite {
		return nil, errors.New("overwrite a campaign by shards: the other shards' results would be lost; overwrite it whole first")
	}

	procs := &runner.Processes{MaxRuns: opts.ProcessRuns}
	defer procs.Close()
	if err := joinShards(dir, &opts); err != nil {
		return nil, err
	}
	if err := checkDir(dir, opts); err != nil {
		return nil, err
	}
	tasks, err := prepare(ctx, m, opts, procs)
	if err != nil {
		return nil, err
	}
	if err := prepareDir(dir, opts); err != nil {
		return nil, err
	}
	mine := func(int) bool { return !opts.Merge }
	if opts.Shard.Partial() {
		shards := shardsOf(tasks, opts.Shard.N)
		mine = func(i int) bool { return shards[i] == opts.Shard.I }
	}
	if opts.Shard.Partial() && opts.ShardKeys == nil {
		if err := checkShardPlan(dir, tasks, opts.Shard); err != nil {
			return nil, err
		}
	}
	if opts.ShardKeys != nil {
		var keys []string
		for i, t := range tasks {
			if mine(i) {
				keys = append(keys, t.key)
			}
		}
		if !slices.Equal(keys, opts.ShardKeys) {
			return nil, fmt.Errorf("shard %s of %s: %w: %d runs planned, %d now, %d in common (did a trace, a policy or schedlab change since?)",
				opts.Shard, dir, ErrShardChanged, len(opts.ShardKeys), len(keys), common(keys, opts.ShardKeys))
		}
	}
	pols := map[string]*policyEntry{}
	for _, t := range tasks {
		pols[t.run.Policy] = t.pol
	}
	// A resume from a manifest (Source set) rather than from the lock
	// records the manifest as it is now.
	write := !opts.Resume || opts.Source != "" || lockIncomplete(m, pols)
	if opts.Shard.Partial() {
		write = !opts.joined // the shard that made the folder writes it
	}
	if write {
		if err := writeLock(m, dir, opts, pols); err != nil {
			return nil, err
		}
	}

	rep := &Report{Dir: dir, Shard: opts.Shard, Plan: make([]Planned, len(tasks)), Policies: map[string]*runner.Resolved{}}
	for i, t := range tasks {
		rep.Plan[i] = Planned{Index: t.run.Index, Label: t.run.Label(), Key: t.key, Policy: t.run.Policy, Cost: runCost(t)}
		rep.Policies[t.run.Policy] = t.pol.res
	}
	runs := make([]RunResult, len(tasks))
	for i := range tasks {
		if mine(i) {
			rep.Total++
		}
	}
	if opts.Resume {
		rep.Stale = staleRuns(dir, tasks)
	}
	var mu sync.Mutex
	progress := func(i int) {
		mu.Lock()
		defer mu.Unlock()
		r := &runs[i]
		switch r.Status {
		case StatusOK:
			rep.Done++
			if r.Reused {
				rep.Reused++
			}
		case StatusFailed:
			rep.Failed++
		}
		if opts.Progress != nil && r.Status != StatusPending {
			opts.Progress(Progress{Total: rep.Total, Done: rep.Done, Failed: rep.Failed, Reused: rep.Reused,
				Last: r, Elapsed: time.Since(began)})
		}
	}

	var todo []int
	for i, t := range tasks {
		runs[i] = pending(t)
		if !mine(i) {
			continue // another shard's: read from the folder at the end
		}
		if opts.Resume {
			prev, ok, damage := completed(dir, t.key)
			if ok {
				prev.Reused = true
				runs[i] = prev
				progress(i)
				continue
			}
			if damage != "" {
				log.Warn("a completed run's jobs file is damaged: running it again", "run", prev.Label, "key", short(t.key), "why", damage)
			}
		}
		todo = append(todo, i)
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := errgroup.Group{}
	g.SetLimit(workers)
	for _, i := range todo {
		if runCtx.Err() != nil {
			break
		}
		g.Go(func() error {
			if runCtx.Err() != nil {
				return nil
			}
			res := execute(runCtx, m, dir, tasks[i], opts, procs)
			res.Shard = opts.Shard.String()
			if res.Status == StatusPending {
				return nil // interrupted: no status file, so a resume runs it
			}
			if err := writeStatus(dir, res); err != nil {
				res.Status, res.Error = StatusFailed, joinErr(res.Error, err.Error())
			}
			mu.Lock()
			runs[i] = res
			mu.Unlock()
			if res.Status == StatusFailed {
				log.Info("run failed", "run", res.Label, "key", short(res.Key), "err", res.Error)
				if opts.FailFast {
					cancel()
				}
			} else {
				log.Debug("run done", "run", res.Label, "key", short(res.Key), "seconds", res.WallSeconds)
			}
			progress(i)
			return nil
		})
	}
	_ = g.Wait() // runs report through their results, never through the group
	for i, r := range runs {
		if mine(i) {
			rep.Runs = append(rep.Runs, r)
			if r.Status == StatusPending {
				rep.Pending++
			}
		}
	}
	rep.Interrupted = ctx.Err() != nil
	if whole {
		rep.Elapsed = time.Since(began)
		return rep, writeRuns(dir, m, opts.provenance, runs)
	}
	if rep.Interrupted {
		// A task stopped by its time limit or scancel leaves runs.parquet
		// to the next shard or the merge rather than wait for the lock.
		rep.Elapsed = time.Since(began)
		return rep, nil
	}
	// The other shards' runs as the folder holds them now, under the lock
	// every shard takes to rebuild runs.parquet. A shard reads their
	// status files; the merge also checks each jobs file against its
	// status, which reads the whole campaign's data once.
	err = withRunsLock(dir, log, func() error {
		c := &Counts{Total: len(runs)}
		for i, t := range tasks {
			if !mine(i) {
				runs[i] = recorded(dir, t, opts.Merge)
			}
			switch runs[i].Status {
			case StatusOK:
				c.Done++
				rep.Plan[i].Done = true
			case StatusFailed:
				c.Failed++
				rep.Plan[i].Failed = true
			default:
				c.Pending++
			}
		}
		rep.Campaign = c
		return writeRuns(dir, m, opts.provenance, runs)
	})
	if opts.Merge {
		removeTemps(dir)
	}
	rep.Elapsed = time.Since(began)
	return rep, err
}

func short(key string) string {
	if len(key) > 12 {
		return key[:12]
	}
	return key
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// checkDir refuses, before anything is checked or created, to mix two
// campaigns in one folder or to resume a folder without a campaign.
func checkDir(dir string, opts Options) error {
	_, err := os.Stat(filepath.Join(dir, LockFile))
	exists := err == nil
	switch {
	case opts.Resume && !exists:
		return fmt.Errorf("resume %s: no %s there, so no campaign to resume", dir, LockFile)
	case exists && !opts.Resume && !opts.Overwrite && !opts.Shard.Partial():
		// A shard may find the lock another shard of the campaign wrote
		// since it looked (joinShards).
		return fmt.Errorf("%s: %w", dir, ErrExists)
	}
	return nil
}

// prepareDir creates the campaign folder, or empties it with Overwrite,
// and checks every folder of it takes a file.
func prepareDir(dir string, opts Options) error {
	_, err := os.Stat(filepath.Join(dir, LockFile))
	exists := err == nil
	switch {
	case exists && opts.Overwrite:
		for _, name := range []string{JobsDir, StatusDir, LogsDir, PowerDir} {
			if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("overwrite %s: %w", dir, err)
			}
		}
		for _, name := range []string{RunsFile, LockFile} {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("overwrite %s: %w", dir, err)
			}
		}
	}
	// Every folder the campaign writes to must take a file now, before any
	// run: a read-only folder found after the runs would cost them all.
	for _, sub := range []string{JobsDir, StatusDir, "."} {
		d := filepath.Join(dir, sub)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("%w: %w", ErrFolder, err)
		}
		f, err := os.CreateTemp(d, ".write-test-*")
		if err != nil {
			return fmt.Errorf("%w: %w", ErrFolder, err)
		}
		f.Close()
		os.Remove(f.Name())
	}
	if opts.Resume && !opts.Shard.Partial() {
		// A shard's neighbours may be writing their temporary files now.
		removeTemps(dir)
	}
	return nil
}

// removeTemps deletes the temporary files a killed campaign left behind.
// They are hidden and never end in .parquet or .json, so nothing reads
// them; removing them only saves space.
func removeTemps(dir string) {
	for _, sub := range []string{JobsDir, StatusDir, LogsDir, PowerDir, "."} {
		matches, _ := filepath.Glob(filepath.Join(dir, sub, ".*.tmp-*"))
		for _, f := range matches {
			_ = os.Remove(f)
		}
	}
}

// plan computes each run's key. A trace workload's hash is the manifest's
// (checked when the trace is loaded); a generated workload is generated
// here, since its hash is that of the jobs.
func plan(m *manifest.Manifest, runs []manifest.Run, pols map[string]*policyEntry, gens []manifest.Generator) []task {
	wls := map[string]*workloadEntry{}
	preps := map[string]*preparedEntry{}
	tasks := make([]task, len(runs))
	for i, r := range runs {
		t := task{run: r, spec: r.Spec(m), seeds: r.Seeds(m), pol: pols[r.Policy], cost: m.Policies[r.Policy].Cost}
		w := m.Workloads[r.Workload]
		procs := r.Procs(m)
		t.wlKey = r.Workload + "/" + strconv.FormatInt(procs, 10)
		if w.Generator != "" {
			t.wlKey += "/" + strconv.Itoa(r.Replicate)
		}
		if len(w.Streams) > 0 {
			t.wlKey = r.Workload + "/platform=" + r.Platform + "/" + strconv.Itoa(r.Replicate)
		}
		e, ok := wls[t.wlKey]
		if !ok {
			e = &workloadEntry{name: r.Workload, procs: procs}
			wls[t.wlKey] = e
			if len(w.Streams) > 0 {
				e.seed = t.seeds.Workload
				e.parts, e.sha, e.err = planStreams(m, r, wls, gens)
				if e.err != nil {
					e.cause, e.errKey = e.err, "streams"
				}
			}
		}
		t.wl = e
		prepKey := t.wlKey + "/platform=" + r.Platform
		if w.Transform != "" {
			prepKey += "/replicate=" + strconv.Itoa(r.Replicate)
		}
		if t.prep = preps[prepKey]; t.prep == nil {
			t.prep = &preparedEntry{}
			preps[prepKey] = t.prep
		}
		wlSHA := w.SHA256
		if len(w.Streams) > 0 {
			wlSHA = e.sha
		}
		if w.Generator != "" {
			e.once.Do(func() {
				e.wl, e.cause = generate(gens, w, procs, t.seeds.Workload)
				if e.cause != nil {
					e.errKey, e.err = "generator", fmt.Errorf("workload %s: %w", w.Name, e.cause)
				}
			})
			if e.err == nil {
				wlSHA = e.wl.SHA256
			}
		}
		polSHA := ""
		if t.pol.res != nil {
			polSHA = t.pol.res.Identity
		}
		t.wlSHA = wlSHA
		t.key = manifest.Key(t.spec, polSHA, wlSHA)
		tasks[i] = t
	}
	return tasks
}

// generate builds a generated workload, cleaned like a trace, whose
// identity is the sha256 of its records written as SWF.
func generate(gens []manifest.Generator, w manifest.Workload, procs int64, seed uint64) (*workload.Workload, error) {
	i := slices.IndexFunc(gens, func(g manifest.Generator) bool { return g.Name == w.Generator })
	if i < 0 {
		return nil, fmt.Errorf("no generator %s", w.Generator)
	}
	g := gens[i]
	params, err := sdk.ResolveParams(g.Params, w.Params)
	if err != nil {
		return nil, fmt.Errorf("generator %s: %w", g.Name, err)
	}
	recs, err := g.Generate(params, procs, manifest.NewRand(seed))
	if err != nil {
		return nil, fmt.Errorf("generator %s: %w", g.Name, err)
	}
	sha, err := hashRecords(recs)
	if err != nil {
		return nil, err
	}
	wl, err := workload.FromRecordsWith("generator "+g.Name, recs, procs, w.Clean, w.Feedback)
	if err != nil {
		return nil, err
	}
	wl.SHA256 = sha
	return wl, nil
}

// hashRecords is the sha256 of recs written as SWF, a generated
// workload's identity.
func hashRecords(recs []swf.Record) (string, error) {
	h := sha256.New()
	if err := swf.Write(h, swf.Header{}, recs); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// load returns the workload, loading a trace the first time (a generated
// workload was made by plan).
func (e *workloadEntry) load(ctx context.Context, m *manifest.Manifest, archive pwa.Cache) (*workload.Workload, error) {
	if e.parts != nil {
		e.once.Do(func() {
			if e.err == nil {
				e.loadStreams(ctx, m, archive, e.seed)
			}
		})
		return e.wl, e.err
	}
	e.once.Do(func() {
		w := m.Workloads[e.name]
		e.errKey = "trace"
		path := w.Trace
		if strings.HasPrefix(path, pwa.Scheme) {
			if path, _, e.cause = archive.Path(ctx, path); e.cause != nil {
				e.err = fmt.Errorf("workload %s: %w", w.Name, e.cause)
				return
			}
		}
		if w.Format == manifest.FormatSacct {
			e.wl, e.cause = sacct.LoadWorkload(path, e.procs, w.Clean, w.Feedback, sacct.Options{Groups: w.Groups, Priority: w.Priority == manifest.PriorityLog})
		} else {
			e.wl, e.cause = workload.LoadSWFWith(path, e.procs, w.Clean, w.Feedback)
		}
		if e.cause == nil {
			if e.cause = w.VerifySHA256(e.wl.SHA256); e.cause != nil {
				e.errKey = "sha256"
			}
		}
		if e.cause != nil {
			e.err = fmt.Errorf("workload %s: %w", w.Name, e.cause)
		}
	})
	return e.wl, e.err
}

// prepare returns the run's platform and jobs, made the first time: the
// workload's jobs as they are on a platform of processors only without a
// transform, else copies whose requests have one entry per resource of the
// platform (zeros beyond the processors), changed by the transform drawing
// from the run's transform seed.
func (e *preparedEntry) prepare(m *manifest.Manifest, t task, wl *workload.Workload) (*preparedEntry, error) {
	e.once.Do(func() {
		w := m.Workloads[t.run.Workload]
		e.plat = t.run.SDKPlatform(m, wl.Procs)
		if e.err = e.plat.Validate(); e.err != nil {
			return
		}
		e.jobs = wl.Jobs
		if e.mapping = t.run.NodeMapping(m); e.mapping != nil {
			if e.jobs, e.nodeCounts, e.err = nodes.Apply(e.plat, wl, wl.Jobs, *e.mapping); e.err != nil {
				e.err = fmt.Errorf("workload %s on platform %s: %w", w.Name, e.plat.Name, e.err)
				return
			}
			if len(e.jobs) == 0 {
				e.err = fmt.Errorf("workload %s on platform %s: no job left once mapped onto its nodes (%v)", w.Name, e.plat.Name, e.nodeCounts)
				return
			}
		} else if e.plat.Dims() == 1 && w.Transform == "" {
			return
		} else {
			e.jobs = runner.ExtendRequests(wl.Jobs, e.plat.Dims())
		}
		if w.Transform == "" {
			return
		}
		tr, params, err := w.ResolveTransform()
		if err == nil {
			e.counts, err = tr.Apply(params, e.plat, e.jobs, manifest.NewRand(t.seeds.Transform))
		}
		if err != nil {
			e.err = fmt.Errorf("workload %s: transform %s on platform %s: %w", w.Name, w.Transform, e.plat.Name, err)
		}
	})
	return e, e.err
}

func pending(t task) RunResult {
	axes := map[string]string{}
	for _, a := range t.run.Axes {
		axes[a.Axis] = a.Value
	}
	sum := sha256.Sum256(t.spec)
	r := RunResult{
		Index: t.run.Index, Label: t.run.Label(), Key: t.key, SpecSHA: hex.EncodeToString(sum[:]), Spec: json.RawMessage(t.spec),
		Axes: axes, Replicate: t.run.Replicate, Params: t.run.Params,
		Seed: t.seeds.Policy, WLSeed: t.seeds.Workload, Status: StatusPending,
	}
	if t.pol.res != nil {
		r.Policy = PolicyInfo{Ref: t.pol.res.Ref, Kind: string(t.pol.res.Kind), SHA256: t.pol.res.SHA256, Identity: t.pol.res.Identity}
	}
	return r
}

// writeLock writes manifest.lock.toml, with what each policy said of itself
// when it was resolved.
func writeLock(m *manifest.Manifest, dir string, opts Options, pols map[string]*policyEntry) error {
	bp := opts.provenance
	sum := sha256.Sum256(opts.SourceText)
	lock := manifest.Lock{Schedlab: runner.Version, Revision: bp["vcs.revision"], Modified: bp["vcs.modified"],
		Source: filepath.ToSlash(opts.Source), SourceSHA256: hex.EncodeToString(sum[:]), Policies: map[string]manifest.LockedPolicy{}}
	if opts.Resume && m.Lock != nil {
		// Completing the lock of a campaign: its origin stays the original's.
		lock.Schedlab, lock.Revision, lock.Modified = m.Lock.Schedlab, m.Lock.Revision, m.Lock.Modified
		lock.Source, lock.SourceSHA256 = m.Lock.Source, m.Lock.SourceSHA256
	}
	for _, name := range slices.Sorted(maps.Keys(pols)) {
		if p := pols[name]; p.res != nil {
			lock.Policies[name] = manifest.LockedPolicy{Kind: string(p.res.Kind), SHA256: p.res.SHA256, Identity: p.res.Identity,
				Name: p.info.Name, Version: p.info.Version, SDK: p.info.SDKVersion}
		}
	}
	path := filepath.Join(dir, LockFile)
	return results.WriteFileAtomic(path, func(w io.Writer) error { return m.WriteLock(w, dir, lock) })
}

// lockIncomplete reports whether the lock of a resumed campaign lacks what
// its policies say of themselves (a lock written before SDK 0.4.0 got it
// only from completed runs, so a kill before the first left it empty) while
// this resume has it.
func lockIncomplete(m *manifest.Manifest, pols map[string]*policyEntry) bool {
	if m.Lock == nil {
		return false
	}
	for name, p := range pols {
		if lp, ok := m.Lock.Policies[name]; p.err == nil && (!ok || lp.Name == "" || lp.SDK == "") {
			return true
		}
	}
	return false
}
