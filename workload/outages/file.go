package outages

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// ReadFile reads a failure file, Parquet when its name ends in .parquet,
// else CSV: a header line "node,down,up", then one failure per line (#
// starts a comment). Either way a failure is the node's index (0 to
// nodes-1, in the numbering of the jobs files' nodes.numbering metadata),
// the time it fails and the time it is back, in seconds on the workload's
// clock (that of its submit times); a Parquet file has exactly the integer
// columns node, down and up (readFailureParquet). Failures of one node
// must not overlap. Errors name the file and line (CSV) or row (Parquet,
// from 1).
func ReadFile(path string, nodes int32) ([]sdk.Outage, error) {
	read := readFailureCSV
	if IsParquet(path) {
		read = readFailureParquet
	}
	recs, err := read(path)
	if err != nil {
		return nil, err
	}
	return checkFailures(path, recs, nodes)
}

// IsParquet reports whether ReadFile reads path as Parquet: its name ends
// in .parquet, in any case.
func IsParquet(path string) bool { return strings.EqualFold(filepath.Ext(path), ".parquet") }

// failureRecord is one failure of a file: node, down and up, and where it
// is ("line 3", "row 2").
type failureRecord struct {
	v     [3]int64
	where string
}

// readFailureCSV reads the failures of a CSV file, unchecked.
func readFailureCSV(path string) ([]failureRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("failures file: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = 3
	r.TrimLeadingSpace = true
	r.Comment = '#'
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: line 1: %w", path, err)
	}
	if strings.Join(head, ",") != "node,down,up" {
		return nil, fmt.Errorf("%s: line 1: header %q, want node,down,up", path, strings.Join(head, ","))
	}
	var out []failureRecord
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		fr := failureRecord{where: "line " + strconv.Itoa(line)}
		for i, s := range rec {
			if fr.v[i], err = strconv.ParseInt(strings.TrimSpace(s), 10, 64); err != nil {
				return nil, fmt.Errorf("%s: line %d: %s %q is not an integer", path, line, head[i], s)
			}
		}
		out = append(out, fr)
	}
	return out, nil
}

// failureColumns are the columns of a failure file, in a record's order.
var failureColumns = []string{"node", "down", "up"}

// readFailureParquet reads the failures of a Parquet file, unchecked: its
// columns must be node, down and up (in any order, no other), integers
// (INT32 or INT64), without NULLs.
func readFailureParquet(path string) ([]failureRecord, error) {
	cols, rows, _, err := results.ReadTable(path)
	if err != nil {
		return nil, fmt.Errorf("failures file: %w", err)
	}
	idx := [3]int{-1, -1, -1}
	for c, col := range cols {
		i := slices.Index(failureColumns, col.Name)
		switch {
		case i < 0:
			return nil, fmt.Errorf("%s: column %q: want only columns node, down and up", path, col.Name)
		case idx[i] >= 0:
			return nil, fmt.Errorf("%s: column %q twice", path, col.Name)
		case col.Kind != results.Int64:
			return nil, fmt.Errorf("%s: column %q is %s, want integers", path, col.Name, col.Kind)
		}
		idx[i] = c
	}
	for i, c := range idx {
		if c < 0 {
			return nil, fmt.Errorf("%s: no column %q: want columns node, down and up", path, failureColumns[i])
		}
	}
	out := make([]failureRecord, len(rows))
	for r, row := range rows {
		out[r].where = "row " + strconv.Itoa(r+1)
		for i, c := range idx {
			x, ok := row[c].(int64)
			if !ok {
				return nil, fmt.Errorf("%s: row %d: %s is NULL", path, r+1, failureColumns[i])
			}
			out[r].v[i] = x
		}
	}
	return out, nil
}

// checkFailures checks the failures of the file path and returns them as
// outages: nodes in range, each up after its down, times within ±MaxTime,
// and no two failures of one node overlapping.
func checkFailures(path string, recs []failureRecord, nodes int32) ([]sdk.Outage, error) {
	var out []sdk.Outage
	type span struct {
		down, up int64
		where    string
	}
	byNode := map[int32][]span{}
	for _, r := range recs {
		v := r.v
		switch {
		case v[0] < 0 || v[0] >= int64(nodes):
			return nil, fmt.Errorf("%s: %s: node %d: the platform has nodes 0 to %d", path, r.where, v[0], nodes-1)
		case v[2] <= v[1]:
			return nil, fmt.Errorf("%s: %s: up %d is not after down %d", path, r.where, v[2], v[1])
		case v[1] < -sim.MaxTime || v[2] > sim.MaxTime:
			return nil, fmt.Errorf("%s: %s: times beyond ±%d s", path, r.where, int64(sim.MaxTime))
		}
		k := int32(v[0])
		byNode[k] = append(byNode[k], span{v[1], v[2], r.where})
		out = append(out, sdk.Outage{Nodes: []int32{k}, Start: v[1], End: v[2], Kind: sdk.Failure})
	}
	for _, k := range slices.Sorted(maps.Keys(byNode)) {
		ss := byNode[k]
		slices.SortStableFunc(ss, func(a, b span) int { return cmp.Compare(a.down, b.down) })
		for i := 1; i < len(ss); i++ {
			if ss[i].down < ss[i-1].up {
				return nil, fmt.Errorf("%s: %s: node %d fails at %d while down since %s (until %d)", path, ss[i].where, k, ss[i].down, ss[i-1].where, ss[i-1].up)
			}
		}
	}
	return out, nil
}
