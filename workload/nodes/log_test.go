package nodes_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/nodes"
	"github.com/schedlab/schedlab/workload/sacct"
)

const gib = 1 << 30

// logMachine has 4 cpu nodes (8 cores, 16 GiB, intel) and 2 gpu nodes
// (16 cores, 64 GiB, 4 GPUs, intel and ib); partition batch (default, 1 h
// at most) holds both, gpu the gpu nodes.
func logMachine() *sdk.Platform {
	return sdk.NodesPlatform("m", []sdk.NodeGroup{
		{Name: "cpu", Count: 4, Cores: 8, Memory: 16 * gib, Features: []string{"intel"}},
		{Name: "gpu", Count: 2, Cores: 16, Memory: 64 * gib, GPUs: 4, Features: []string{"ib", "intel"}},
	}, []sdk.Partition{{Name: "batch", Groups: []string{"cpu", "gpu"}, Default: true, MaxWalltime: 3600},
		{Name: "gpu", Groups: []string{"gpu"}}}, sdk.FirstFit)
}

// logLines are the jobs of the hand-worked log, one a line from line 2;
// the comments give what each becomes under the default settings
// (tres = requested, exclusive, memory requested, oversize drop).
var logLines = []string{
	// 1: 12 cores, 24 GiB on 2 nodes: 2 tasks of 6 cores, 12 GiB; intel.
	// Allocated: 16 cores, 32 GiB: 2 tasks of 8, 16 GiB.
	"1|general|2021-01-01T00:00:00|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|12|16|2|cpu=12,mem=24G,node=2|cpu=16,mem=32G,node=2|intel|COMPLETED",
	// 2: no AllocTRES (allocated falls back); 6 cores, 10 GiB, 3 v100 on
	// one node, which must have ib.
	"2|gpu|2021-01-01T00:00:01|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|6|6|1|cpu=6,gres/gpu:v100=3,mem=10G,node=1||ib|CANCELLED by 5",
	// 3: 5 cores, 3 GiB on 2 nodes: 3 cores each (rounded up), 1.5 GiB;
	// an OR of features is not representable: ignored, counted.
	"3|general|2021-01-01T00:00:02|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|5|5|2|cpu=5,mem=3G,node=2|cpu=5,mem=3G,node=2|intel|amd|COMPLETED",
	// 4: partition debug, not in the table; no node in the TRES, NNodes 1.
	"4|debug|2021-01-01T00:00:03|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|4|4|1|cpu=4,mem=2G|cpu=4,mem=2G||COMPLETED",
	// 5: 40 cores on one node: no node has them (clamp: 16).
	"5|general|2021-01-01T00:00:04|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|40|40|1|cpu=40,mem=8G,node=1|cpu=40,mem=8G,node=1||COMPLETED",
	// 6: no TRES, no node count: its 3 processors, on the smallest node
	// of batch (8 cores): 1 node.
	"6|general|2021-01-01T00:00:05|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|3|3|||||COMPLETED",
	// 7: feature fpga, which no node has.
	"7|gpu|2021-01-01T00:00:06|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|2|2|1|cpu=2,mem=1G,node=1|cpu=2,mem=1G,node=1|fpga&ib|COMPLETED",
}

func loadLog(t *testing.T) *workload.Workload {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hand.sacct")
	text := "JobID|Partition|Submit|Start|End|Elapsed|Timelimit|ReqCPUS|AllocCPUS|NNodes|ReqTRES|AllocTRES|Constraints|State\n" +
		strings.Join(logLines, "\n") + "\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := sacct.LoadWorkload(path, logMachine().Clusters[0].Capacity[0], workload.DefaultClean(), workload.Feedback{}, sacct.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func logTasksText(t *sdk.Tasks) string {
	return fmt.Sprintf("%d x %dc %dMiB %dg n%d excl=%v p%d f%d", t.Count, t.Cores, t.Memory>>20, t.GPUs, t.Nodes, t.Exclusive, t.Partition, t.Features)
}

// TestApplyLogHandWorked maps the hand-worked log onto logMachine under
// each setting (partition p1 is batch, p2 gpu; feature bits: ib 1, intel
// 2).
func TestApplyLogHandWorked(t *testing.T) {
	w := loadLog(t)
	table := map[string]string{"general": "batch", "gpu": "gpu"}
	log := func(l nodes.LogSettings) *nodes.LogSettings {
		if l.Partitions == nil {
			l.Partitions = table
		}
		return &l
	}
	base := map[string]int64{"exclusive": 5, "exclusive-rounded-up": 5, "tres-requested": 4, "tres-missing": 1, "memory-tres": 4, "memory-unknown": 1,
		"nodes-from-nnodes": 1, "nodes-unknown": 1, "per-node-rounded-up": 1, "gpus": 1, "partition-mapped": 4, "partition-default": 1,
		"constraints-required": 2, "constraints-unsupported": 1, "oversize-dropped": 1, "feature-unknown-dropped": 1}
	with := func(m map[string]int64, kv ...any) map[string]int64 {
		out := maps.Clone(m)
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = int64(kv[i+1].(int))
		}
		return out
	}
	cases := []struct {
		name   string
		s      nodes.Settings
		want   []string // by job id
		counts map[string]int64
		err    string
		only   int64 // when not 0, the job of this id alone
	}{
		{"defaults", nodes.Settings{Log: log(nodes.LogSettings{})}, []string{
			"1: 2 x 6c 12288MiB 0g n2 excl=true p1 f2",
			"2: 1 x 6c 10240MiB 3g n1 excl=true p2 f1",
			"3: 2 x 3c 1536MiB 0g n2 excl=true p1 f0",
			"4: 1 x 4c 2048MiB 0g n1 excl=true p0 f0",
			"6: 1 x 3c 0MiB 0g n1 excl=true p1 f0"}, base, "", 0},
		{"allocated, shared, no memory", nodes.Settings{Allocation: nodes.Shared, Memory: nodes.MemoryNone, Log: log(nodes.LogSettings{TRES: nodes.TRESAllocated})}, []string{
			"1: 2 x 8c 0MiB 0g n2 excl=false p1 f2",
			"2: 1 x 6c 0MiB 3g n1 excl=false p2 f1",
			"3: 2 x 3c 0MiB 0g n2 excl=false p1 f0",
			"4: 1 x 4c 0MiB 0g n1 excl=false p0 f0",
			"6: 1 x 3c 0MiB 0g n1 excl=false p1 f0"},
			with(base, "exclusive", 0, "exclusive-rounded-up", 0, "shared", 5, "tres-requested", 1, "tres-allocated", 3, "tres-fallback", 1, "memory-tres", 0, "memory-unknown", 0), "", 0},
		{"clamp, constraints ignored, unknown partition dropped", nodes.Settings{Oversize: nodes.Clamp,
			Log: log(nodes.LogSettings{Constraints: nodes.ConstraintsIgnore, UnknownPartition: nodes.PartitionDrop})}, []string{
			"1: 2 x 6c 12288MiB 0g n2 excl=true p1 f0",
			"2: 1 x 6c 10240MiB 3g n1 excl=true p2 f0",
			"3: 2 x 3c 1536MiB 0g n2 excl=true p1 f0",
			"5: 1 x 16c 8192MiB 0g n1 excl=true p1 f0",
			"6: 1 x 3c 0MiB 0g n1 excl=true p1 f0",
			"7: 1 x 2c 1024MiB 0g n1 excl=true p2 f0"},
			with(base, "exclusive", 6, "tres-requested", 5, "memory-tres", 5, "nodes-from-nnodes", 0, "partition-mapped", 6, "partition-default", 0,
				"partition-unknown-dropped", 1, "constraints-required", 0, "constraints-unsupported", 0, "constraints-ignored", 4,
				"oversize-dropped", 0, "oversize-clamped", 1, "feature-unknown-dropped", 0), "", 0},
		// Clamped, job 7 requires only ib, which the gpu nodes have.
		{"clamp keeps the known features", nodes.Settings{Oversize: nodes.Clamp, Log: log(nodes.LogSettings{})}, []string{
			"1: 2 x 6c 12288MiB 0g n2 excl=true p1 f2",
			"2: 1 x 6c 10240MiB 3g n1 excl=true p2 f1",
			"3: 2 x 3c 1536MiB 0g n2 excl=true p1 f0",
			"4: 1 x 4c 2048MiB 0g n1 excl=true p0 f0",
			"5: 1 x 16c 8192MiB 0g n1 excl=true p1 f0",
			"6: 1 x 3c 0MiB 0g n1 excl=true p1 f0",
			"7: 1 x 2c 1024MiB 0g n1 excl=true p2 f1"},
			with(base, "exclusive", 7, "exclusive-rounded-up", 6, "tres-requested", 6, "memory-tres", 6, "partition-mapped", 6, "oversize-dropped", 0, "oversize-clamped", 1,
				"feature-unknown-dropped", 0, "feature-unknown-clamped", 1), "", 0},
		{"unknown partition is an error", nodes.Settings{Log: log(nodes.LogSettings{UnknownPartition: nodes.PartitionFail})}, nil, nil,
			`hand.sacct line 5: job id 4: partition "debug" is not in the workload's partitions table (unknown-partition=error)`, 0},
		{"oversize error", nodes.Settings{Oversize: nodes.Fail, Log: log(nodes.LogSettings{})}, nil, nil,
			"hand.sacct line 6: job id 5: invalid tasks: 1 tasks of 40 cores", 0},
		{"unknown feature error", nodes.Settings{Oversize: nodes.Fail, Log: log(nodes.LogSettings{})}, nil, nil,
			`hand.sacct line 8: job id 7: constraint "fpga&ib": no node of the platform has feature "fpga" (oversize=error)`, 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := c.s.Resolved(logMachine())
			if err != nil {
				t.Fatal(err)
			}
			w := w
			if c.only != 0 {
				k := slices.IndexFunc(w.Jobs, func(in sim.Input) bool { return in.Job.ID == c.only })
				w = &workload.Workload{Path: w.Path, Jobs: w.Jobs[k : k+1], Requests: w.Requests[k : k+1]}
			}
			jobs, counts, err := nodes.Apply(logMachine(), w, w.Jobs, s)
			if c.err != "" || c.want == nil {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range jobs {
				got = append(got, fmt.Sprintf("%d: %s", in.Job.ID, logTasksText(in.Job.Tasks)))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("tasks\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			for _, k := range nodes.LogCountNames() {
				if _, ok := counts[k]; !ok {
					t.Errorf("count %s missing: every log count is reported, 0 or not", k)
				}
			}
			keys := maps.Clone(counts)
			maps.Copy(keys, c.counts)
			for _, k := range slices.Sorted(maps.Keys(keys)) {
				if counts[k] != c.counts[k] {
					t.Errorf("count %s = %d, want %d", k, counts[k], c.counts[k])
				}
			}
		})
	}
}
