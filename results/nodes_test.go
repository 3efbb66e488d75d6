package results

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// nodeExtras returns node columns for n rows: requests of procs and mem,
// allocations of 1 to 3 nodes, one job with none (rejected).
func nodeExtras(n int, cols NodeColumns) JobExtras {
	x := JobExtras{Resources: []string{"mem"}, Requests: [][]int64{make([]int64, n)}, NodeCols: cols}
	for i := range n {
		r := NodeRow{Tasks: int64(1 + i%7), TaskCores: 1, TaskMemory: int64(i) << 20, NodeCount: int64(i % 3), Exclusive: i%2 == 0,
			NodePartition: []string{"thin", "fat"}[i%2]}
		for k := range 1 + i%3 {
			r.AllocNodes = append(r.AllocNodes, int32(i+k))
			r.AllocCores = append(r.AllocCores, int32(1+k))
			if cols.Memory {
				r.AllocMemory = append(r.AllocMemory, int64(k)<<40)
			}
			if cols.GPUs {
				r.AllocGPUs = append(r.AllocGPUs, int32(k))
			}
		}
		if i == 3 {
			r.AllocNodes, r.AllocCores, r.AllocMemory, r.AllocGPUs = nil, nil, nil, nil
		}
		x.Nodes = append(x.Nodes, r)
		x.Requests[0][i] = r.TaskMemory * r.Tasks
	}
	return x
}

// TestNodeColumnsRoundTrip writes jobs files with node columns, with and
// without memory and GPUs, and beside a burst buffer divided into units
// (its request and placement columns), and reads them back, rows and
// extras.
func TestNodeColumnsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		cols  NodeColumns
		units bool
	}{{}, {NodeColumns{Memory: true}, false}, {NodeColumns{Memory: true, GPUs: true}, false}, {NodeColumns{Memory: true}, true}} {
		t.Run(fmt.Sprintf("%+v, units %t", tc.cols, tc.units), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "jobs.parquet")
			jobs := sampleJobs(40)
			x := nodeExtras(40, tc.cols)
			if tc.units {
				x.Resources = append(x.Resources, "bb")
				x.Requests = append(x.Requests, make([]int64, 40))
				x.HasUnits, x.Units = true, make([]string, 40)
				for i := range 40 {
					x.Requests[1][i] = int64(i%3) * 20
					x.Units[i] = fmt.Sprintf("%d,%d", i%3, 0)
				}
			}
			if err := WriteJobsWith(path, jobs, x, sampleMeta()); err != nil {
				t.Fatal(err)
			}
			rows, meta, err := ReadJobs(path)
			if err != nil || !reflect.DeepEqual(rows, jobs) || meta["seed"] != sampleMeta()["seed"] {
				t.Fatalf("ReadJobs: %v", err)
			}
			_, got, _, err := ReadJobsWith(path)
			if err != nil {
				t.Fatal(err)
			}
			// A nil list reads back empty.
			for i := range x.Nodes {
				for _, l := range []*[]int32{&x.Nodes[i].AllocNodes, &x.Nodes[i].AllocCores, &x.Nodes[i].AllocGPUs} {
					if *l == nil {
						*l = []int32{}
					}
				}
				if x.Nodes[i].AllocMemory == nil {
					x.Nodes[i].AllocMemory = []int64{}
				}
				for _, l := range []*[]int32{&got.Nodes[i].AllocNodes, &got.Nodes[i].AllocCores, &got.Nodes[i].AllocGPUs} {
					if *l == nil {
						*l = []int32{}
					}
				}
				if got.Nodes[i].AllocMemory == nil {
					got.Nodes[i].AllocMemory = []int64{}
				}
			}
			if !reflect.DeepEqual(got, x) {
				t.Fatalf("extras read back\n%+v\nwant\n%+v", got.Nodes[:3], x.Nodes[:3])
			}
		})
	}
}

// TestDuckDBReadsNodeColumns checks the node columns with DuckDB, an
// independent reader: their types, and the lists row by row.
func TestDuckDBReadsNodeColumns(t *testing.T) {
	check := duckChecker(t)
	path := filepath.Join(t.TempDir(), "jobs.parquet")
	x := nodeExtras(30, NodeColumns{Memory: true})
	if err := WriteJobsWith(path, sampleJobs(30), x, sampleMeta()); err != nil {
		t.Fatal(err)
	}
	rep := check(path, true)
	types := map[string]string{}
	for _, c := range rep.Columns {
		types[c.Name] = c.Type
	}
	for name, want := range map[string]string{"alloc_nodes": "INTEGER[]", "alloc_cores": "INTEGER[]", "alloc_memory": "BIGINT[]",
		"tasks": "BIGINT", "exclusive": "BOOLEAN", "node_partition": "VARCHAR", "req_mem": "BIGINT"} {
		if types[name] != want {
			t.Errorf("DuckDB types %s as %s, want %s", name, types[name], want)
		}
	}
	if _, ok := types["alloc_gpus"]; ok {
		t.Error("a file without GPUs has an alloc_gpus column")
	}
	if len(rep.Data) != 30 {
		t.Fatalf("DuckDB read %d rows", len(rep.Data))
	}
	text := func(v any) string { return strings.ReplaceAll(fmt.Sprint(v), " ", ",") }
	for i, row := range rep.Data {
		r := x.Nodes[i]
		want := fmt.Sprint(r.AllocNodes)
		if r.AllocNodes == nil {
			want = "[]"
		}
		if got := text(row["alloc_nodes"]); got != strings.ReplaceAll(want, " ", ",") {
			t.Errorf("row %d: DuckDB reads alloc_nodes %s, want %s", i, got, want)
		}
		if got, want := text(row["alloc_memory"]), strings.ReplaceAll(fmt.Sprint(r.AllocMemory), " ", ","); r.AllocMemory != nil && got != want {
			t.Errorf("row %d: DuckDB reads alloc_memory %s, want %s", i, got, want)
		}
	}
}
