package results

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/parquet-go/parquet-go"
)

// NodeRow is what a jobs file says of a job on a platform of nodes, in
// columns after the request columns (JobExtras.Nodes):
//
//   - tasks, task_cores, task_memory (bytes), task_gpus: the job's tasks
//     (sdk.Tasks), each of task_cores cores, task_memory and task_gpus;
//   - node_count: the number of nodes it asked for, 0 for any;
//   - exclusive: whether it held its nodes whole;
//   - node_partition: the platform partition it ran in;
//   - alloc_nodes (LIST of INT32): the nodes it ran on, by index (the
//     file's nodes.numbering metadata maps indexes to node groups);
//   - alloc_cores (LIST of INT32), same length: the cores it held on each
//     (all of a node's for an exclusive job);
//   - alloc_memory (LIST of INT64, bytes) and alloc_gpus (LIST of INT32),
//     when the platform's nodes have memory or GPUs: what it held of them
//     on each node.
//
// A job rejected by its policy has empty lists. DuckDB unnests them:
// SELECT job_id, unnest(alloc_nodes) AS node, unnest(alloc_cores) AS cores
// FROM 'jobs.parquet'.
type NodeRow struct {
	Tasks         int64   `parquet:"tasks,dict"`
	TaskCores     int64   `parquet:"task_cores,dict"`
	TaskMemory    int64   `parquet:"task_memory,dict"`
	TaskGPUs      int64   `parquet:"task_gpus,dict"`
	NodeCount     int64   `parquet:"node_count,dict"`
	Exclusive     bool    `parquet:"exclusive"`
	NodePartition string  `parquet:"node_partition,dict"`
	AllocNodes    []int32 `parquet:"alloc_nodes,list"`
	AllocCores    []int32 `parquet:"alloc_cores,list"`
	AllocMemory   []int64 `parquet:"alloc_memory,list"`
	AllocGPUs     []int32 `parquet:"alloc_gpus,list"`
}

// NodeColumns says which optional node columns a jobs file has.
type NodeColumns struct {
	Memory, GPUs bool
}

// nodeFirstColumn is the first of NodeRow's columns.
const nodeFirstColumn = "tasks"

// nodeFields returns the fields of NodeRow a file with columns c has.
func nodeFields(c NodeColumns) []reflect.StructField {
	nt := reflect.TypeFor[NodeRow]()
	var out []reflect.StructField
	for i := range nt.NumField() {
		f := nt.Field(i)
		if (f.Name == "AllocMemory" && !c.Memory) || (f.Name == "AllocGPUs" && !c.GPUs) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// setNodeFields copies the fields of r that a file with columns c has into
// v from field next on.
func setNodeFields(v reflect.Value, next int, r *NodeRow, c NodeColumns) {
	rv := reflect.ValueOf(r).Elem()
	for _, f := range nodeFields(c) {
		v.Field(next).Set(rv.FieldByName(f.Name))
		next++
	}
}

// checkNodeColumns checks the node columns of a file, gf (from its first,
// tasks), against NodeRow's.
func checkNodeColumns(gf []parquet.Field) (NodeColumns, error) {
	var c NodeColumns
	names := make([]string, len(gf))
	for i, f := range gf {
		names[i] = f.Name()
	}
	c.Memory, c.GPUs = slices.Contains(names, "alloc_memory"), slices.Contains(names, "alloc_gpus")
	want := parquet.SchemaOf(reflect.New(reflect.StructOf(nodeFields(c))).Elem().Interface()).Fields()
	if len(gf) != len(want) {
		return c, fmt.Errorf("%d node columns, want %d", len(gf), len(want))
	}
	for i, w := range want {
		g := gf[i]
		if g.Name() != w.Name() || g.Leaf() != w.Leaf() || g.Optional() != w.Optional() || g.Repeated() != w.Repeated() {
			return c, fmt.Errorf("node column %d is %q, want %q", i, g.Name(), w.Name())
		}
		if w.Leaf() && g.Type().Kind() != w.Type().Kind() {
			return c, fmt.Errorf("column %q is %s, want %s", g.Name(), g.Type().Kind(), w.Type().Kind())
		}
	}
	return c, nil
}

// readNodes reads the node columns of a jobs file.
func readNodes(pf *parquet.File) ([]NodeRow, error) {
	rows := make([]NodeRow, pf.NumRows())
	r := parquet.NewGenericReader[NodeRow](pf)
	defer r.Close()
	n := 0
	for n < len(rows) {
		k, err := r.Read(rows[n:])
		n += k
		if err != nil || k == 0 {
			if n == len(rows) {
				break
			}
			return nil, fmt.Errorf("node columns: row %d: %v", n, err)
		}
	}
	return rows, nil
}
