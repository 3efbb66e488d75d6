package campaign

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/workload"
)

// logJob is one job of the generated sacct log, as the test knows it.
type logJob struct {
	nodes, cpus, allocCPUs, memGiB, gpus int64
	partition, constraint                string
	noAlloc                              bool // no AllocTRES: tres = allocated falls back
}

// sacctJobs are the 30 jobs of the test's log: 1 to 3 nodes, cores that
// are not always a multiple of the nodes, memory, GPUs on the gpu
// partition, a partition (debug) the table does not name, a feature.
func sacctJobs() []logJob {
	var out []logJob
	for j := int64(1); j <= 30; j++ {
		n := 1 + j%3
		c := logJob{nodes: n, cpus: n * (2 + (j*5)%10), memGiB: n * (1 + j%4), partition: "cpu"}
		if j%7 == 0 {
			c.cpus-- // not a multiple of the nodes: each node's share rounded up
		}
		c.allocCPUs = n * ((c.cpus + n - 1) / n)
		switch {
		case j%5 == 0:
			c.nodes = 1 + j%2
			c.cpus, c.allocCPUs, c.memGiB = 8*c.nodes, 8*c.nodes, 4*c.nodes
			c.partition, c.gpus = "gpu", 2*c.nodes
		case j%6 == 1:
			c.partition = "debug"
		}
		if j%4 == 2 && c.partition != "gpu" {
			c.constraint = "fast" // the cpu nodes' feature
		}
		c.noAlloc = j%9 == 0
		out = append(out, c)
	}
	return out
}

// writeSacctLog writes the log of jobs, with bad replacing the ReqTRES of
// job 2 when not empty, and returns its path and sha256.
func writeSacctLog(t *testing.T, jobs []logJob, bad string) (string, string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("JobID|Partition|Submit|Start|End|Elapsed|Timelimit|ReqCPUS|AllocCPUS|NNodes|ReqTRES|AllocTRES|Constraints|State\n")
	for i, j := range jobs {
		id := i + 1
		req := fmt.Sprintf("billing=%d,cpu=%d,mem=%dG,node=%d", j.cpus, j.cpus, j.memGiB, j.nodes)
		alloc := fmt.Sprintf("billing=%d,cpu=%d,mem=%dG,node=%d", j.allocCPUs, j.allocCPUs, j.memGiB, j.nodes)
		if j.gpus > 0 {
			req += fmt.Sprintf(",gres/gpu:a100=%d", j.gpus)
			alloc += fmt.Sprintf(",gres/gpu=%d,gres/gpu:a100=%d", j.gpus, j.gpus)
		}
		if j.noAlloc {
			alloc = ""
		}
		if id == 2 && bad != "" {
			req = bad
		}
		run := 5 + (id*7)%25
		fmt.Fprintf(&b, "%d|%s|2021-01-01T00:%02d:00|2021-01-01T00:%02d:30|2021-01-01T01:%02d:30|00:%02d:00|01:00:00|%d|%d|%d|%s|%s|%s|COMPLETED\n",
			1000+id, j.partition, id, id, id, run, j.cpus, j.allocCPUs, j.nodes, req, alloc, j.constraint)
	}
	path := filepath.Join(t.TempDir(), "cluster.sacct")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := workload.SHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, sum
}

// sacctManifest runs the log as two workloads (tres requested and
// allocated) on a platform of 4 cpu nodes (16 cores, 64 GiB, feature
// fast) and 2 gpu nodes (32 cores, 128 GiB, 4 GPUs), exclusive and
// shared, under FCFS and EASY; extra is added to the table of req.
func sacctManifest(path, sum, extra string) string {
	return fmt.Sprintf(`[campaign]
seed = 31
[platforms.excl.nodes.cpu]
count = 4
cores = 16
memory = "64GiB"
features = ["fast"]
[platforms.excl.nodes.gpu]
count = 2
cores = 32
memory = "128GiB"
gpus = 4
[platforms.excl.partitions.batch]
groups = ["cpu", "gpu"]
default = true
[platforms.excl.partitions.gpu]
groups = ["gpu"]
[platforms.shared]
allocation = "shared"
placement = "best-fit"
[platforms.shared.nodes.cpu]
count = 4
cores = 16
memory = "64GiB"
features = ["fast"]
[platforms.shared.nodes.gpu]
count = 2
cores = 32
memory = "128GiB"
gpus = 4
[platforms.shared.partitions.batch]
groups = ["cpu", "gpu"]
default = true
[platforms.shared.partitions.gpu]
groups = ["gpu"]
[workloads.req]
trace = %[1]q
sha256 = %[2]q
format = "sacct"
partitions = { cpu = "batch", gpu = "gpu" }
%[3]s
[workloads.alloc]
trace = %[1]q
sha256 = %[2]q
format = "sacct"
tres = "allocated"
partitions = { cpu = "batch", gpu = "gpu" }
[policies.fcfs]
ref = "fcfs"
[policies.easy]
ref = "easy"
[matrix]
workload = ["req", "alloc"]
platform = ["excl", "shared"]
policy = ["fcfs", "easy"]
`, path, sum, extra)
}

// TestSacctCampaign runs a sacct log on platforms of nodes end to end
// (plugin processes, every schedule verified node by node) and checks
// each job's allocation against the log: as many nodes as its node count,
// on each its share of the cores (from ReqTRES or AllocTRES as the
// workload says), memory and GPUs, or the node whole when exclusive; and
// the mapping's counts in runs.parquet and the jobs files.
func TestSacctCampaign(t *testing.T) {
	jobs := sacctJobs()
	path, sum := writeSacctLog(t, jobs, "")
	m := loadManifest(t, sacctManifest(path, sum, ""))
	dir := t.TempDir()
	rep := run(t, m, Options{Dir: dir, Workers: 1})
	if rep.Done != 8 {
		for _, r := range rep.Runs {
			t.Logf("%s: %s %s", r.Label, r.Status, r.Error)
		}
		t.Fatalf("%d of 8 runs completed", rep.Done)
	}
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	var debug, gpus, noAlloc int64
	for _, j := range jobs {
		if j.partition == "debug" {
			debug++
		}
		if j.gpus > 0 {
			gpus++
		}
		if j.noAlloc {
			noAlloc++
		}
	}
	for _, r := range rows {
		wl, pl := r[idx["workload"]].(string), r[idx["platform"]].(string)
		name := wl + "/" + pl + "/" + r[idx["policy"]].(string)
		want := map[string]int64{"nodes_partition_default": debug, "nodes_partition_mapped": 30 - debug, "nodes_gpus": gpus,
			"nodes_memory_tres": 30, "nodes_tres_missing": 0, "nodes_oversize_dropped": 0, "nodes_constraints_required": 6}
		if wl == "req" {
			want["nodes_tres_requested"], want["nodes_tres_allocated"], want["nodes_tres_fallback"] = 30, 0, 0
		} else {
			want["nodes_tres_requested"], want["nodes_tres_allocated"], want["nodes_tres_fallback"] = noAlloc, 30-noAlloc, noAlloc
		}
		if pl == "excl" {
			want["nodes_exclusive"], want["nodes_shared"] = 30, 0
		} else {
			want["nodes_exclusive"], want["nodes_shared"] = 0, 30
		}
		for c, v := range want {
			if _, ok := idx[c]; !ok {
				t.Fatalf("runs.parquet has no column %s", c)
			}
			if got := r[idx[c]]; got != v {
				t.Errorf("%s: %s = %v, want %d", name, c, got, v)
			}
		}
		recs, x, meta, err := results.ReadJobsWith(JobsPath(dir, r[idx["run_key"]].(string)))
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 30 {
			t.Fatalf("%s: %d jobs, want 30", name, len(recs))
		}
		for i, rec := range recs {
			j, row := jobs[rec.JobID-1], x.Nodes[i]
			cpus := j.cpus
			if wl == "alloc" && !j.noAlloc {
				cpus = j.allocCPUs
			}
			share := (cpus + j.nodes - 1) / j.nodes
			if int64(len(row.AllocNodes)) != j.nodes || row.Exclusive != (pl == "excl") || row.TaskCores != share {
				t.Fatalf("%s: job %d (%d cores on %d nodes) runs %d tasks of %d cores on nodes %v (exclusive %v)",
					name, rec.JobID, cpus, j.nodes, row.Tasks, row.TaskCores, row.AllocNodes, row.Exclusive)
			}
			for k, node := range row.AllocNodes {
				gpuNode := node >= 4
				switch {
				case j.partition == "gpu" && !gpuNode, j.constraint == "fast" && gpuNode:
					t.Fatalf("%s: job %d (partition %s, constraint %q) on node %d", name, rec.JobID, j.partition, j.constraint, node)
				case pl == "excl":
					if whole := int32(16 + 16*min(1, node/4)); row.AllocCores[k] != whole {
						t.Fatalf("%s: exclusive job %d holds %d cores of node %d", name, rec.JobID, row.AllocCores[k], node)
					}
				case int64(row.AllocCores[k]) != share || row.AllocMemory[k] != j.memGiB/j.nodes<<30 || int64(row.AllocGPUs[k]) != j.gpus/j.nodes:
					t.Fatalf("%s: job %d holds %d cores, %d bytes, %d GPUs of node %d; want %d, %d GiB, %d",
						name, rec.JobID, row.AllocCores[k], row.AllocMemory[k], row.AllocGPUs[k], node, share, j.memGiB/j.nodes, j.gpus/j.nodes)
				}
			}
		}
		if !strings.Contains(meta["nodes.mapping"], `"partitions":"cpu=batch,gpu=gpu"`) || !strings.Contains(meta["nodes.mapping"], `"tres":"`) ||
			!strings.Contains(meta["nodes.counts"], `"tres-fallback":`) || meta["workload.format"] != "sacct" ||
			!strings.Contains(meta["workload.read.counts"], `"jobs":30,`) {
			t.Errorf("%s: metadata %q, %q, %q, %q", name, meta["nodes.mapping"], meta["nodes.counts"], meta["workload.format"], meta["workload.read.counts"])
		}
	}
	// The campaigns of SWF traces keep their columns.
	for _, c := range nodeColumns(loadManifest(t, nodesManifest(t))) {
		if strings.HasPrefix(c.Name, "nodes_tres") {
			t.Errorf("a campaign of SWF traces has column %s", c.Name)
		}
	}
}

// TestSacctBadInput: a malformed log, or a job of a partition the table
// does not name under unknown_partition = "error", is bad input at the
// workload's key, naming the log and its line, found before anything is
// created; bad settings are errors of the manifest at their key.
func TestSacctBadInput(t *testing.T) {
	jobs := sacctJobs()
	for _, tc := range []struct {
		name, bad, extra string
		want             []string
	}{
		{"unknown memory unit", "cpu=2,mem=4X,node=1", "",
			[]string{"workloads.req.trace", "line 3: field ReqTRES", `unknown unit "X"`}},
		{"memory without a unit", "cpu=2,mem=4096,node=1", "",
			[]string{"workloads.req.trace", "line 3: field ReqTRES", `mem="4096": no unit`}},
		{"bad TRES syntax", "cpu=2;mem=4G", "",
			[]string{"workloads.req.trace", "line 3: field ReqTRES", "not a number"}},
		{"unknown partition", "", `unknown_partition = "error"`,
			[]string{"workloads.req.unknown_partition", "line 2: job id 1", `partition "debug" is not in the workload's partitions table`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, sum := writeSacctLog(t, jobs, tc.bad)
			m := loadManifest(t, sacctManifest(path, sum, tc.extra))
			dir := filepath.Join(t.TempDir(), "out")
			_, err := Run(context.Background(), m, Options{Dir: dir, Resolver: testResolver(t)})
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error %v, want bad input", err)
			}
			for _, w := range append(tc.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %v, want one saying %q", err, w)
				}
			}
			if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("the campaign folder was created: %v", serr)
			}
		})
	}
	path, sum := writeSacctLog(t, jobs, "")
	for _, tc := range []struct {
		name, src, want string
	}{
		{"unknown tres", sacctManifest(path, sum, `tres = "both"`), `workloads.req.tres: "both": want one of [requested allocated]`},
		{"unknown constraints", sacctManifest(path, sum, `constraints = "prefer"`), `workloads.req.constraints: "prefer"`},
		{"unknown format", strings.Replace(sacctManifest(path, sum, ""), `format = "sacct"`, `format = "csv"`, 1), `workloads.req.format: "csv" is not a trace format`},
		{"tres on an SWF trace", strings.Replace(sacctManifest(path, sum, `tres = "allocated"`), `format = "sacct"`, "", 1), "workloads.req.tres: applies to a sacct log only"},
		{"partition not on the platform", strings.Replace(sacctManifest(path, sum, ""), `gpu = "gpu" }`, `gpu = "accel" }`, 1),
			`workloads.req.partitions: on platform excl: invalid node mapping setting: log partition "gpu" maps to "accel"`},
		{"memory used", strings.Replace(sacctManifest(path, sum, ""), "[platforms.shared.nodes.cpu]", "memory = \"used\"\n[platforms.shared.nodes.cpu]", 1),
			`platforms.shared.memory: on platform shared: invalid node mapping setting: memory = "used": a sacct log gives no memory used per node`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "c.toml")
			if err := os.WriteFile(p, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := manifest.Load(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}
