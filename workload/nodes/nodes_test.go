package nodes_test

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/nodes"
	"github.com/schedlab/schedlab/workload/swf"
)

const kb = 1024

// records: id, procs, requested and used memory (KB a processor),
// partition, walltime.
func records(rows ...[6]float64) []swf.Record {
	var out []swf.Record
	for i, r := range rows {
		out = append(out, swf.Record{JobNumber: int64(r[0]), Submit: int64(i), RunTime: 10, ReqTime: int64(r[5]),
			ReqProcs: int64(r[1]), AllocProcs: -1, ReqMemory: r[2], UsedMemory: r[3], Partition: int64(r[4]),
			User: -1, Group: -1, App: -1, Queue: -1, Status: 1, PrecedingJob: -1, ThinkTime: -1, Wait: -1, AvgCPUTime: -1})
	}
	return out
}

func machine() *sdk.Platform {
	return sdk.NodesPlatform("m", []sdk.NodeGroup{
		{Name: "thin", Count: 4, Cores: 8, Memory: 16 << 20 * kb},
		{Name: "fat", Count: 2, Cores: 16, Memory: 64 << 20 * kb},
	}, []sdk.Partition{{Name: "thin", Groups: []string{"thin"}, Default: true, MaxWalltime: 3600},
		{Name: "fat", Groups: []string{"fat"}}}, sdk.FirstFit)
}

func tasksText(t *sdk.Tasks) string {
	return fmt.Sprintf("%d x %dc %dKB n%d excl=%v p%d", t.Count, t.Cores, t.Memory/kb, t.Nodes, t.Exclusive, t.Partition)
}

// TestApplyHandWorked maps small traces onto a machine of 4 thin nodes (8
// cores, 16 GiB) and 2 fat (16 cores, 64 GiB), worked out by hand.
func TestApplyHandWorked(t *testing.T) {
	recs := records(
		// 12 processors of 1 GiB each: exclusive on thin nodes, 2 nodes.
		[6]float64{1, 12, 1 << 20, -1, 1, 100},
		// 4 processors of 6 GiB: a thin node holds 2 (16/6), so 2 nodes.
		[6]float64{2, 4, 6 << 20, 3 << 20, 1, 100},
		// Partition 2 (fat), no memory known: 20 processors, 2 fat nodes.
		[6]float64{3, 20, -1, -1, 2, 100},
		// A walltime over the thin partition's limit.
		[6]float64{4, 1, -1, 1 << 20, 1, 7200},
		// 40 processors: more than the thin partition's 32 cores.
		[6]float64{5, 40, -1, -1, 1, 100},
	)
	w, err := workload.FromRecords("trace", recs, 64, workload.DefaultClean())
	if err != nil {
		t.Fatal(err)
	}
	part := map[int32]string{1: "thin", 2: "fat"}
	for _, tc := range []struct {
		name   string
		s      nodes.Settings
		want   []string // tasks of the jobs kept, by id
		counts map[string]int64
		err    string
	}{
		{"exclusive, requested memory", nodes.Settings{Partitions: part}, []string{
			"1: 12 x 1c 1048576KB n2 excl=true p1", "2: 4 x 1c 6291456KB n2 excl=true p1", "3: 20 x 1c 0KB n2 excl=true p2"},
			map[string]int64{"exclusive": 3, "exclusive-rounded-up": 3, "memory-requested": 2, "memory-unknown": 1, "partition-mapped": 3,
				"walltime-over-limit-dropped": 1, "oversize-dropped": 1}, ""},
		{"shared, used memory", nodes.Settings{Allocation: nodes.Shared, Memory: nodes.MemoryUsed, Partitions: part}, []string{
			"1: 12 x 1c 0KB n0 excl=false p1", "2: 4 x 1c 3145728KB n0 excl=false p1", "3: 20 x 1c 0KB n0 excl=false p2"},
			map[string]int64{"shared": 3, "memory-used": 1, "memory-unknown": 2, "partition-mapped": 3,
				"walltime-over-limit-dropped": 1, "oversize-dropped": 1}, ""},
		// Clamped: job 4's walltime cut to 3600, job 5 to the thin
		// partition's 32 cores on its 4 nodes.
		{"clamp", nodes.Settings{Oversize: nodes.Clamp, Memory: nodes.MemoryNone, Partitions: part}, []string{
			"1: 12 x 1c 0KB n2 excl=true p1", "2: 4 x 1c 0KB n1 excl=true p1", "3: 20 x 1c 0KB n2 excl=true p2",
			"4: 1 x 1c 0KB n1 excl=true p1", "5: 32 x 1c 0KB n4 excl=true p1"},
			map[string]int64{"exclusive": 5, "exclusive-rounded-up": 4, "partition-mapped": 5, "walltime-over-limit-clamped": 1, "oversize-clamped": 1}, ""},
		// No table: every job in the default (thin) partition; job 3's
		// 20 processors take 3 thin nodes.
		{"no partition table", nodes.Settings{Memory: nodes.MemoryNone}, []string{
			"1: 12 x 1c 0KB n2 excl=true p0", "2: 4 x 1c 0KB n1 excl=true p0", "3: 20 x 1c 0KB n3 excl=true p0"},
			map[string]int64{"exclusive": 3, "exclusive-rounded-up": 3, "walltime-over-limit-dropped": 1, "oversize-dropped": 1}, ""},
		{"error", nodes.Settings{Oversize: nodes.Fail, Partitions: part}, nil, nil, "trace: job id 4: invalid tasks: walltime 7200 s over the partition's limit of 3600 s (oversize=error)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.s.Resolved(machine())
			if err != nil {
				t.Fatal(err)
			}
			out, counts, err := nodes.Apply(machine(), w, w.Jobs, s)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, in := range out {
				if in.Job.Index != i {
					t.Errorf("job id %d has index %d at %d", in.Job.ID, in.Job.Index, i)
				}
				got = append(got, fmt.Sprintf("%d: %s", in.Job.ID, tasksText(in.Job.Tasks)))
				want := make(sdk.Vector, 2)
				sdk.NewLayout(machine(), 0).Request(in.Job.Tasks, want)
				if fmt.Sprint(in.Job.Request) != fmt.Sprint(want) {
					t.Errorf("job id %d requests %v, its tasks hold %v", in.Job.ID, in.Job.Request, want)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("tasks\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if !maps.Equal(counts, tc.counts) {
				t.Errorf("counts %v, want %v", counts, tc.counts)
			}
		})
	}
	// The workload's own jobs are not changed.
	if w.Jobs[0].Job.Tasks != nil || len(w.Jobs[0].Job.Request) != 1 {
		t.Errorf("Apply changed the workload's job: %+v", w.Jobs[0].Job)
	}
}

func TestResolvedRefuses(t *testing.T) {
	for _, tc := range []struct {
		s    nodes.Settings
		p    *sdk.Platform
		want string
	}{
		{nodes.Settings{Allocation: "whole"}, machine(), `allocation = "whole"`},
		{nodes.Settings{Memory: nodes.MemoryUsed}, sdk.NodesPlatform("c", []sdk.NodeGroup{{Name: "n", Count: 1, Cores: 4}}, nil, sdk.FirstFit), "whose nodes have no memory"},
		{nodes.Settings{Partitions: map[int32]string{3: "gpu"}}, machine(), `trace partition 3 maps to "gpu"`},
	} {
		_, err := tc.s.Resolved(tc.p)
		if !errors.Is(err, nodes.ErrSetting) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolved(%+v) = %v, want %q", tc.s, err, tc.want)
		}
	}
}

// TestApplyKeepsDependencies: the jobs kept keep their dependencies on
// their predecessors' new indexes; a job whose predecessor the mapping
// dropped depends on none, counted as predecessor-dropped; and a workload
// without dependencies has no such count.
func TestApplyKeepsDependencies(t *testing.T) {
	recs := records(
		[6]float64{1, 40, -1, -1, 1, 100}, // more than the thin partition's 32 cores: dropped
		[6]float64{2, 4, -1, -1, 1, 100},  // depends on job 1
		[6]float64{3, 4, -1, -1, 1, 100},  // depends on job 2, 7 s after it
	)
	w, err := workload.FromRecords("trace", recs, 64, workload.DefaultClean())
	if err != nil {
		t.Fatal(err)
	}
	s, err := nodes.Settings{Memory: nodes.MemoryNone}.Resolved(machine())
	if err != nil {
		t.Fatal(err)
	}
	_, counts, err := nodes.Apply(machine(), w, w.Jobs, s)
	if err != nil || counts[nodes.CountPredecessorDropped] != 0 {
		t.Fatalf("without dependencies: %v, counts %v", err, counts)
	}
	if _, ok := counts[nodes.CountPredecessorDropped]; ok {
		t.Errorf("without dependencies the counts name %s: %v", nodes.CountPredecessorDropped, counts)
	}
	w.Jobs[1].After, w.Jobs[1].Think = 1, 5
	w.Jobs[2].After, w.Jobs[2].Think = 2, 7
	out, counts, err := nodes.Apply(machine(), w, w.Jobs, s)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range out {
		got = append(got, fmt.Sprintf("%d after %d +%d", in.Job.ID, in.After, in.Think))
	}
	if want := "2 after 0 +0, 3 after 1 +7"; strings.Join(got, ", ") != want || counts[nodes.CountPredecessorDropped] != 1 {
		t.Errorf("jobs %s, want %s; counts %v", strings.Join(got, ", "), want, counts)
	}
	if w.Jobs[2].After != 2 {
		t.Errorf("Apply changed the workload's dependency: %+v", w.Jobs[2])
	}
}
