package campaign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/swf"
)

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/1", Shard{1, 1}, true}, {"2/8", Shard{2, 8}, true}, {"8/8", Shard{8, 8}, true},
		{"0/3", Shard{}, false}, {"4/3", Shard{}, false}, {"1/0", Shard{}, false}, {"3", Shard{}, false},
		{"a/3", Shard{}, false}, {"1/b", Shard{}, false}, {"-1/3", Shard{}, false},
	} {
		got, err := ParseShard(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
		if c.ok && got.String() != c.in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}

// TestAssignShardsBalance checks on random costs what the longest-first
// rule guarantees: no shard above the mean load plus (1-1/n) of the
// costliest run (Graham's bound for any list schedule), shards of equal
// runs differing by at most one run, and every shard of n used when there
// are at least n runs.
func TestAssignShardsBalance(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + trial%7
		costs := make([]float64, 1+rng.IntN(60))
		total, most := 0.0, 0.0
		for i := range costs {
			costs[i] = float64(1 + rng.IntN(1000))
			if trial%3 == 0 {
				costs[i] = 1 // all equal: by count
			}
			total += costs[i]
			most = max(most, costs[i])
		}
		got := AssignShards(costs, n)
		if !slices.Equal(got, AssignShards(costs, n)) {
			t.Fatal("not deterministic")
		}
		load := make([]float64, n+1)
		for i, s := range got {
			if s < 1 || s > n {
				t.Fatalf("shard %d of %d", s, n)
			}
			load[s] += costs[i]
		}
		bound := total/float64(n) + most*(1-1/float64(n))
		if trial%3 == 0 {
			bound = float64((len(costs) + n - 1) / n)
		}
		for s := 1; s <= n; s++ {
			if load[s] > bound+1e-9 {
				t.Errorf("trial %d: shard %d/%d has cost %g, above the bound %g", trial, s, n, load[s], bound)
			}
			if len(costs) >= n && load[s] == 0 {
				t.Errorf("trial %d: shard %d/%d empty with %d runs", trial, s, n, len(costs))
			}
		}
	}
}

// tinyGenerator makes small random workloads, so that a campaign of many
// runs takes a fraction of a second.
var tinyGenerator = manifest.Generator{
	Name: "tiny", Doc: "jobs of random size and runtime",
	Params: []sdk.Param{{Name: "jobs", Type: sdk.Int, Default: "40"}},
	Generate: func(p sdk.Params, procs int64, rng *rand.Rand) ([]swf.Record, error) {
		n := int(p.Int("jobs"))
		recs := make([]swf.Record, n)
		submit := int64(0)
		for i := range recs {
			submit += rng.Int64N(200)
			run := 1 + rng.Int64N(2000)
			size := 1 + rng.Int64N(procs)
			recs[i] = swf.Record{JobNumber: int64(i + 1), Submit: submit, Wait: -1, RunTime: run, AllocProcs: size, ReqProcs: size,
				ReqTime: run + rng.Int64N(1000), Status: 1, User: 1, Group: 1, App: -1, Queue: -1, Partition: -1,
				PrecedingJob: -1, ThinkTime: -1, AvgCPUTime: -1, UsedMemory: -1, ReqMemory: -1}
		}
		return recs, nil
	},
}

// shardManifest is a campaign of 24 runs on tiny workloads of two sizes,
// the conservative runs declared 3 times as costly per job.
func shardManifest(t testing.TB) (*manifest.Manifest, []byte) {
	t.Helper()
	src := `[campaign]
seed = 7
replicates = 3
[workloads.small]
generator = "tiny"
procs = 16
params = { jobs = 30 }
[workloads.large]
generator = "tiny"
procs = 32
params = { jobs = 120 }
[policies.fcfs]
ref = "fcfs"
[policies.easy]
ref = "easy"
[policies.sjf]
ref = "easy"
params = { order = "shortest" }
[policies.conservative]
ref = "conservative"
cost = 3
[matrix]
workload = ["small", "large"]
policy = ["fcfs", "easy", "conservative", "sjf"]
`
	path := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(path, tinyGenerator)
	if err != nil {
		t.Fatal(err)
	}
	return m, []byte(src)
}

// stableRuns reads runs.parquet without the columns that say when and
// where a run ran, which differ between any two campaigns.
func stableRuns(t testing.TB, dir string) [][]any {
	t.Helper()
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	varying := []string{"start_time", "end_time", "wall_seconds", "sim_seconds", "policy_seconds", "process_run", "transport", "shard", "host"}
	var keep []int
	for i, c := range cols {
		if !slices.Contains(varying, c.Name) {
			keep = append(keep, i)
		}
	}
	out := make([][]any, len(rows))
	for i, r := range rows {
		for _, j := range keep {
			out[i] = append(out[i], r[j])
		}
	}
	return out
}

// TestShardsPartition runs the campaign as N shards for N = 1..7, one
// after the other into one folder each: every run is run by exactly one
// shard, and the folder ends as one whole run leaves it.
func TestShardsPartition(t *testing.T) {
	m, src := shardManifest(t)
	gens := []manifest.Generator{tinyGenerator}
	whole := filepath.Join(t.TempDir(), "whole")
	rep := run(t, m, Options{Dir: whole, InProcess: true, Generators: gens, Source: "c.toml", SourceText: src})
	if rep.Total != 24 || rep.Done != 24 {
		t.Fatalf("whole: %+v", rep)
	}
	want, wantFiles := stableRuns(t, whole), jobFiles(t, whole)
	for n := 1; n <= 7; n++ {
		dir := filepath.Join(t.TempDir(), fmt.Sprint(n))
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			rep := run(t, m, Options{Dir: dir, InProcess: true, Generators: gens, Shard: Shard{i, n}, Source: "c.toml", SourceText: src})
			if rep.Done != rep.Total || rep.Reused != 0 {
				t.Fatalf("shard %d/%d: %d of %d done, %d reused", i, n, rep.Done, rep.Total, rep.Reused)
			}
			for _, r := range rep.Runs {
				seen[r.Key]++
				if n > 1 && r.Shard != fmt.Sprintf("%d/%d", i, n) {
					t.Errorf("run %s records shard %q in shard %d/%d", r.Label, r.Shard, i, n)
				}
			}
			if n > 1 && (rep.Campaign == nil || rep.Campaign.Total != 24) {
				t.Fatalf("shard %d/%d: campaign counts %+v", i, n, rep.Campaign)
			}
		}
		if len(seen) != 24 {
			t.Errorf("%d shards ran %d distinct runs, want 24", n, len(seen))
		}
		for k, c := range seen {
			if c != 1 {
				t.Errorf("%d shards: run %s ran %d times", n, k[:12], c)
			}
		}
		if got := stableRuns(t, dir); !equalRows(got, want) {
			t.Errorf("%d shards: runs.parquet differs from the whole campaign's", n)
		}
		files := jobFiles(t, dir)
		for name, b := range wantFiles {
			if !bytes.Equal(files[name], b) {
				t.Errorf("%d shards: jobs file %s differs", n, name)
			}
		}
	}
}

func equalRows(a, b [][]any) bool {
	return slices.EqualFunc(a, b, func(x, y []any) bool { return fmt.Sprint(x) == fmt.Sprint(y) })
}

// TestShardsConcurrent runs three shards at once into one folder, as the
// tasks of a job array do on a shared file system, twice (the second time
// resuming): runs.parquet ends as one local run leaves it, with nothing
// run twice.
func TestShardsConcurrent(t *testing.T) {
	m, src := shardManifest(t)
	gens := []manifest.Generator{tinyGenerator}
	whole := filepath.Join(t.TempDir(), "whole")
	run(t, m, Options{Dir: whole, InProcess: true, Generators: gens, Source: "c.toml", SourceText: src})
	dir := filepath.Join(t.TempDir(), "shards")
	for round := range 2 {
		reps := make([]*Report, 3)
		errs := make([]error, 3)
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Go(func() {
				reps[i], errs[i] = Run(context.Background(), m, Options{Dir: dir, Workers: 1, Generators: gens, Shard: Shard{i + 1, 3},
					Source: "c.toml", SourceText: src, Resolver: testResolver(t)})
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		ran := 0
		for _, rep := range reps {
			if rep.Done != rep.Total {
				t.Fatalf("round %d: %+v", round, rep)
			}
			ran += rep.Done - rep.Reused
		}
		if want := []int{24, 0}[round]; ran != want {
			t.Errorf("round %d: the shards ran %d runs, want %d", round, ran, want)
		}
		if got := stableRuns(t, dir); !equalRows(got, stableRuns(t, whole)) {
			t.Errorf("round %d: runs.parquet of 3 concurrent shards differs from the whole campaign's", round)
		}
	}
	// A merge reads the same, and a shard of another manifest is refused
	// before it changes anything.
	rep := run(t, m, Options{Dir: dir, Generators: gens, Merge: true, Source: "c.toml", SourceText: src})
	if rep.Total != 0 || rep.Campaign == nil || rep.Campaign.Done != 24 {
		t.Errorf("merge: %+v %+v", rep, rep.Campaign)
	}
	_, err := Run(context.Background(), m, Options{Dir: dir, Generators: gens, Shard: Shard{1, 2}, Source: "c.toml",
		SourceText: append(src, '\n'), Resolver: testResolver(t)})
	if !errors.Is(err, ErrOtherCampaign) {
		t.Errorf("a shard of another manifest: %v", err)
	}
	// A shard that divides the runs otherwise than the folder's shards did
	// is refused before it runs anything.
	_, err = Run(context.Background(), m, Options{Dir: dir, Generators: gens, Shard: Shard{1, 2}, Source: "c.toml",
		SourceText: src, Resolver: testResolver(t)})
	if !errors.Is(err, ErrShardChanged) {
		t.Errorf("shard 1/2 of a folder run as 3 shards: %v", err)
	}
}
