package campaign

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/manifest"
)

// nodesManifest runs the shipped KTH-SP2 log on a pool of 100 processors,
// on the known machine KTH-SP2 (100 one-core nodes, exclusive), and on 4
// nodes of 25 cores shared, under FCFS, EASY and conservative.
func nodesManifest(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf(`[campaign]
seed = 31
[platforms.pool]
procs = 100
[platforms.excl]
machine = "KTH-SP2"
[platforms.shared]
allocation = "shared"
placement = "best-fit"
[platforms.shared.nodes.n]
count = 4
cores = 25
[workloads.kth]
trace = %q
sha256 = %q
[policies.fcfs]
ref = "fcfs"
[policies.easy]
ref = "easy"
[policies.conservative]
ref = "conservative"
[matrix]
workload = ["kth"]
platform = ["pool", "excl", "shared"]
policy = ["fcfs", "easy", "conservative"]
`, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA)
}

// TestNodesCampaign runs the nodes manifest end to end as plugin processes
// (nodes, tasks and allocations cross the wire, every schedule verified
// node by node) and checks: on 100 exclusive one-core nodes, every job
// starts when it does on the pool of 100 processors, under every policy;
// the jobs files of node runs carry each job's allocation, one node per
// processor there; runs.parquet has the node metrics and the mapping's
// counts, nulls for the pool runs; the jobs files say how nodes are
// numbered and what the mapping did.
func TestNodesCampaign(t *testing.T) {
	m := loadManifest(t, nodesManifest(t))
	dir := t.TempDir()
	rep := run(t, m, Options{Dir: dir, Workers: 2})
	if rep.Done != 9 {
		for _, r := range rep.Runs {
			t.Logf("%s: %s %s", r.Label, r.Status, r.Error)
		}
		t.Fatalf("%d of 9 runs completed", rep.Done)
	}
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	for _, c := range []string{"node_utilisation", "fragmentation", "held_core_utilisation", "nodes_exclusive", "nodes_shared", "nodes_oversize_dropped"} {
		if _, ok := idx[c]; !ok {
			t.Fatalf("runs.parquet has no column %s", c)
		}
	}
	byLabel := map[string][]any{}
	for _, r := range rows {
		byLabel[r[idx["platform"]].(string)+"/"+r[idx["policy"]].(string)] = r
	}
	for _, pol := range []string{"fcfs", "easy", "conservative"} {
		pool, excl, shared := byLabel["pool/"+pol], byLabel["excl/"+pol], byLabel["shared/"+pol]
		if pool[idx["node_utilisation"]] != nil || pool[idx["nodes_exclusive"]] != nil {
			t.Errorf("%s on the pool has node metrics or counts", pol)
		}
		if n := excl[idx["nodes_exclusive"]]; n != int64(28467) {
			t.Errorf("%s on exclusive nodes: %v jobs mapped exclusive, want all 28,467", pol, n)
		}
		if n := shared[idx["nodes_shared"]]; n != int64(28467) {
			t.Errorf("%s on shared nodes: %v jobs mapped shared", pol, n)
		}
		// One-core nodes held whole: no fragmentation, cores held as
		// used, utilisation as on the pool.
		if f := excl[idx["fragmentation"]].(float64); f != 0 {
			t.Errorf("%s on one-core nodes: fragmentation %v", pol, f)
		}
		if u, h := pool[idx["utilisation"]].(float64), excl[idx["held_core_utilisation"]].(float64); u != h {
			t.Errorf("%s: utilisation %v on the pool, %v held on one-core nodes", pol, u, h)
		}
		a, _, err := results.ReadJobs(JobsPath(dir, pool[idx["run_key"]].(string)))
		if err != nil {
			t.Fatal(err)
		}
		b, x, meta, err := results.ReadJobsWith(JobsPath(dir, excl[idx["run_key"]].(string)))
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != len(b) {
			t.Fatalf("%s: %d jobs on the pool, %d on nodes", pol, len(a), len(b))
		}
		for i := range a {
			if a[i].JobID != b[i].JobID || a[i].Start != b[i].Start || a[i].End != b[i].End {
				t.Fatalf("%s: job id %d starts at %d on the pool, %d on one-core nodes", pol, a[i].JobID, a[i].Start, b[i].Start)
			}
			if n := x.Nodes[i]; len(n.AllocNodes) != int(a[i].Procs) || !slices.IsSorted(n.AllocNodes) || !n.Exclusive {
				t.Fatalf("%s: job id %d of %d processors on nodes %v", pol, a[i].JobID, a[i].Procs, n.AllocNodes)
			}
		}
		if meta["nodes.numbering"] != "node:0-99" || !strings.Contains(meta["nodes.mapping"], `"allocation":"exclusive"`) ||
			!strings.Contains(meta["nodes.counts"], `"exclusive":28467`) {
			t.Errorf("%s: node metadata %q, %q, %q", pol, meta["nodes.numbering"], meta["nodes.mapping"], meta["nodes.counts"])
		}
	}
	duckCheck(t, dir, 9, 9, 0)
	docQueries(t, dir, "nodes", "out/nodes-kth")
}

// TestNodesManifestErrors lists bad node platforms: each an error at its
// key, before anything is created.
func TestNodesManifestErrors(t *testing.T) {
	base := func(platform string) string {
		return fmt.Sprintf(`[campaign]
seed = 1
%s
[workloads.kth]
trace = %q
sha256 = %q
[policies.easy]
ref = "easy"
[matrix]
workload = ["kth"]
platform = ["p"]
policy = ["easy"]
`, platform, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA)
	}
	for _, tc := range []struct {
		name, platform, want string
	}{
		{"zero cores", "[platforms.p.nodes.n]\ncount = 4\ncores = 0", "platforms.p.nodes.n.cores: the cores of a node must be 1"},
		{"memory in an unknown unit", "[platforms.p.nodes.n]\ncount = 4\ncores = 2\nmemory = \"4 GiBs\"", `unknown unit "GiBs"`},
		{"unknown machine", "[platforms.p]\nmachine = \"Blue Gene\"", `no known machine "Blue Gene"`},
		{"machine and nodes", "[platforms.p]\nmachine = \"KTH-SP2\"\n[platforms.p.nodes.n]\ncount = 1\ncores = 1", "not both"},
		{"unknown allocation", "[platforms.p]\nmachine = \"KTH-SP2\"\nallocation = \"whole\"", `allocation = "whole"`},
		{"partition of an unknown group", "[platforms.p.nodes.n]\ncount = 4\ncores = 2\n[platforms.p.partitions.q]\ngroups = [\"m\"]", `"m" is not a node group`},
		{"unknown placement", "[platforms.p]\nmachine = \"KTH-SP2\"\nplacement = \"worst-fit\"", `"worst-fit" is not a placement rule`},
		{"procs beside nodes", "[platforms.p]\nprocs = 4\n[platforms.p.nodes.n]\ncount = 4\ncores = 2", "a platform of nodes has no procs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.toml")
			if err := os.WriteFile(path, []byte(base(tc.platform)), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := manifest.Load(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// TestNodesMappingErrorIsBadInput: a job no node of its partition can hold
// (the default partition has 16 of the platform's 112 cores), under
// oversize = "error", is bad input at the platform's oversize key, found
// before anything is created.
func TestNodesMappingErrorIsBadInput(t *testing.T) {
	src := fmt.Sprintf(`[campaign]
seed = 1
[platforms.small]
oversize = "error"
[platforms.small.nodes.a]
count = 2
cores = 8
[platforms.small.nodes.b]
count = 12
cores = 8
[platforms.small.partitions.few]
groups = ["a"]
default = true
[workloads.kth]
trace = %q
sha256 = %q
[policies.easy]
ref = "easy"
[matrix]
workload = ["kth"]
platform = ["small"]
policy = ["easy"]
`, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA)
	m := loadManifest(t, src)
	dir := filepath.Join(t.TempDir(), "out")
	_, err := Run(context.Background(), m, Options{Dir: dir, Resolver: testResolver(t)})
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "platforms.small.oversize") || !strings.Contains(err.Error(), "oversize=error") {
		t.Fatalf("error %v, want bad input at platforms.small.oversize", err)
	}
	if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("the campaign folder was created: %v", serr)
	}
}
