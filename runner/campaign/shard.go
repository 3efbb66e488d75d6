package campaign

import (
	"cmp"
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

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/manifest"
)

// Shard selects part of a campaign's runs: shard I of N, 1 <= I <= N.
// Every run belongs to exactly one shard of N, the same one in every
// process that computes it from the same manifest, so that the shards can
// run at the same time on different machines into one campaign folder.
// The zero Shard is the whole campaign.
type Shard struct{ I, N int }

// ParseShard reads a shard written I/N, as `schedlab run --shard` takes it.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, erri := strconv.Atoi(a)
	n, errn := strconv.Atoi(b)
	if !ok || erri != nil || errn != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: write I/N with 1 <= I <= N, e.g. 2/8", s)
	}
	return Shard{I: i, N: n}, nil
}

// String writes the shard as ParseShard reads it; "" for the whole campaign.
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Partial reports whether the shard leaves some runs to other shards.
func (s Shard) Partial() bool { return s.N > 1 }

// AssignShards gives each run, by its expected cost, its shard among n:
// the runs in decreasing cost (ties in campaign order) each go to the
// shard with the least cost so far (ties to the lowest shard), Graham's
// longest-processing-time rule, which keeps every shard within 4/3 of the
// best balance. The result holds shards 1..n, one per cost; it depends
// only on the costs and n, which must be at least 1.
func AssignShards(costs []float64, n int) []int {
	n = max(n, 1)
	order := make([]int, len(costs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(costs[b], costs[a]) })
	load := make([]float64, n)
	out := make([]int, len(costs))
	for _, i := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		load[best] += costs[i]
		out[i] = best + 1
	}
	return out
}

// runCost is a run's expected cost for balancing shards: its workload's
// jobs times its policy's cost per job (manifest policies.NAME.cost).
func runCost(t task) float64 {
	jobs := 1
	if t.wl != nil && t.wl.wl != nil {
		jobs = max(len(t.wl.wl.Jobs), 1)
	}
	return float64(jobs) * cmp.Or(t.cost, 1)
}

// shardsOf assigns each task its shard among n.
func shardsOf(tasks []task, n int) []int {
	costs := make([]float64, len(tasks))
	for i, t := range tasks {
		costs[i] = runCost(t)
	}
	return AssignShards(costs, n)
}

// runsLock is the file whose lock serialises the rebuilding of runs.parquet
// by the shards of a campaign.
const runsLock = ".runs.lock"

// withRunsLock runs f holding an exclusive lock on the campaign folder's
// runs.parquet, so that shards ending at the same time rebuild it one after
// the other: each shard's own statuses are written before it takes the
// lock, so the last to take it sees every run. On a file system without
// locks (Lustre without -o flock, NFS mounted nolock) f runs unlocked, with
// a warning: the merge after all shards then makes runs.parquet whole.
func withRunsLock(dir string, log *slog.Logger, f func() error) error {
	lf, err := os.OpenFile(filepath.Join(dir, runsLock), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("lock %s: %w", dir, err)
	}
	defer lf.Close()
	if err := lockFile(lf); err != nil {
		if !errors.Is(err, errors.ErrUnsupported) && !noLocks(err) {
			return fmt.Errorf("lock %s: %w", filepath.Join(dir, runsLock), err)
		}
		log.Warn("the file system takes no locks: runs.parquet is rebuilt unlocked (the merge after the shards makes it whole)",
			"file", filepath.Join(dir, runsLock), "err", err)
		return f()
	}
	defer unlockFile(lf)
	return f()
}

// recorded returns a run's result as the campaign folder holds it:
// completed, failed, or pending when its status file is missing or says
// neither. With verify, a completed run's jobs file is checked against its
// status, as a resume checks it.
func recorded(dir string, t task, verify bool) RunResult {
	r, ok := readStatus(dir, t.key)
	switch {
	case !ok:
	case r.Status == StatusFailed:
		return r
	case r.Status == StatusOK && !verify:
		return r
	case r.Status == StatusOK:
		if r, ok, _ := completed(dir, t.key); ok {
			return r
		}
	}
	return pending(t)
}

// ShardsFile records, in a campaign folder run by shards, how its runs
// were divided: every shard checks it divides them the same way.
const ShardsFile = "shards.json"

// shardPlan is the content of ShardsFile.
type shardPlan struct {
	Shards int        `json:"shards"`
	Keys   [][]string `json:"keys"`
}

// checkShardPlan checks the shard's division of the runs against the one
// recorded in the folder, or records it when the folder has none: shards
// of one folder started with another N, or computing other runs (another
// build cleaning a trace otherwise, say), would run some runs twice and
// others never.
func checkShardPlan(dir string, tasks []task, s Shard) error {
	plan := shardPlan{Shards: s.N, Keys: make([][]string, s.N)}
	for i, sh := range shardsOf(tasks, s.N) {
		plan.Keys[sh-1] = append(plan.Keys[sh-1], tasks[i].key)
	}
	path := filepath.Join(dir, ShardsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return results.WriteFileAtomic(path, func(w io.Writer) error { return json.NewEncoder(w).Encode(plan) })
	}
	var had shardPlan
	if err == nil {
		err = json.Unmarshal(b, &had)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case had.Shards != s.N:
		return fmt.Errorf("shard %s of %s: %w: the folder's runs are divided into %d shards (%s; delete it, when no shard runs, to divide them anew)",
			s, dir, ErrShardChanged, had.Shards, path)
	case !slices.Equal(had.Keys[s.I-1], plan.Keys[s.I-1]):
		return fmt.Errorf("shard %s of %s: %w: %d runs recorded in %s, %d now, %d in common (did the manifest, a trace, a policy or schedlab change? delete the file, when no shard runs, to divide the runs anew)",
			s, dir, ErrShardChanged, len(had.Keys[s.I-1]), path, len(plan.Keys[s.I-1]), common(had.Keys[s.I-1], plan.Keys[s.I-1]))
	}
	return nil
}

// ErrOtherCampaign is returned when a shard finds its folder holding
// another campaign.
var ErrOtherCampaign = errors.New("the folder holds a campaign from another manifest (or this one edited since)")

// StatusOf is the status a run's status file in the campaign folder dir
// records (StatusOK, StatusFailed), or StatusPending when it has none; it
// reads only the status, not the jobs file behind it.
func StatusOf(dir, key string) string {
	if r, ok := readStatus(dir, key); ok && (r.Status == StatusOK || r.Status == StatusFailed) {
		return r.Status
	}
	return StatusPending
}

// common counts the keys a and b share.
func common(a, b []string) int {
	n := 0
	for _, k := range a {
		if slices.Contains(b, k) {
			n++
		}
	}
	return n
}

// joinShards lets a shard, or a merge, into a folder that already holds
// the campaign: started from the same manifest, it resumes it (keeping the
// runs the other shards completed) instead of refusing the folder.
func joinShards(dir string, opts *Options) error {
	if !opts.Shard.Partial() && !opts.Merge || opts.Resume {
		return nil
	}
	lockPath := filepath.Join(dir, LockFile)
	if _, err := os.Stat(lockPath); err != nil {
		return nil // the first shard here: it creates the folder
	}
	lm, err := manifest.LoadLock(lockPath, opts.Generators...)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	sum := sha256.Sum256(opts.SourceText)
	if lm.Lock == nil || lm.Lock.SourceSHA256 != hex.EncodeToString(sum[:]) {
		return fmt.Errorf("%s: %w: give each campaign its own --out, or resume it with --resume", dir, ErrOtherCampaign)
	}
	opts.Resume, opts.joined = true, true
	return nil
}
