package results

import (
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/internal/duckcheck"
)

// duckReport is what .ci/duckdb/check.mjs prints about one file.
type duckReport struct {
	Rows    int `json:"rows"`
	Columns []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"columns"`
	KV          map[string]string `json:"kv"`
	CreatedBy   string            `json:"created_by"`
	RowGroups   int               `json:"row_groups"`
	Compression []string          `json:"compression"`
	Data        []map[string]any  `json:"data"`
}

// duckChecker returns a function running check.mjs on a file (see
// internal/duckcheck for when it skips).
func duckChecker(t *testing.T) func(path string, withRows bool) duckReport {
	t.Helper()
	check := duckcheck.Script(t, "check.mjs")
	return func(path string, withRows bool) duckReport {
		t.Helper()
		args := []string{path}
		if withRows {
			args = append(args, "--rows")
		}
		out := check(args...)
		var rep duckReport
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("check.mjs output: %v\n%s", err, out)
		}
		return rep
	}
}

func TestDuckDBReadsOurFiles(t *testing.T) {
	check := duckChecker(t)
	dir := t.TempDir()

	jobCols := []Column{
		{"job_id", Int64}, {"submit", Int64}, {"start", Int64}, {"end", Int64}, {"wait", Int64},
		{"runtime", Int64}, {"walltime", Int64}, {"procs", Int64}, {"cluster", Int64},
		{"killed", Bool}, {"backfilled", Bool}, {"promised_start", Int64},
		{"user", Int64}, {"group", Int64}, {"app", Int64}, {"queue", Int64}, {"partition", Int64},
	}
	asRows := func(jobs []JobRow) [][]any {
		rows := make([][]any, len(jobs))
		for i, j := range jobs {
			var promised any
			if j.PromisedStart != nil {
				promised = *j.PromisedStart
			}
			rows[i] = []any{j.JobID, j.Submit, j.Start, j.End, j.Wait, j.Runtime, j.Walltime, j.Procs,
				j.Cluster, j.Killed, j.Backfilled, promised, j.User, j.Group, j.App, j.Queue, j.Partition}
		}
		return rows
	}
	jobs := sampleJobs(50)
	jobRows := asRows(jobs)
	jobsPath := filepath.Join(dir, "jobs.parquet")
	if err := WriteJobs(jobsPath, jobs, sampleMeta()); err != nil {
		t.Fatal(err)
	}
	// Many rows, so that the delta-encoded columns span several blocks, and
	// values at both ends of int64 side by side, whose deltas wrap around.
	wide := sampleJobs(3000)
	for i := 0; i < len(wide); i += 97 {
		wide[i].Submit, wide[i].End, wide[i].User = 1<<63-1, -1<<63, 1<<62+int64(i)
	}
	wideRows := asRows(wide)
	widePath := filepath.Join(dir, "wide.parquet")
	if err := WriteJobs(widePath, wide, sampleMeta()); err != nil {
		t.Fatal(err)
	}

	tableCols := []Column{{"seed", Int64}, {"policy", String}, {"load", Float64}, {"exact", Bool}, {"alpha", Float64}}
	tableRows := [][]any{
		{int64(1), "fcfs", 0.75, true, nil},
		{int64(2), nil, 1.0 / 3, false, 0.5},
		{nil, "easy ✓", nil, nil, -1e-300},
	}
	tablePath := filepath.Join(dir, "runs.parquet")
	if err := WriteTable(tablePath, tableCols, tableRows, sampleMeta()); err != nil {
		t.Fatal(err)
	}

	bigPath := filepath.Join(dir, "big.parquet")
	if err := WriteJobs(bigPath, sampleJobs(250_000), Metadata{"k": "v"}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		path      string
		cols      []Column
		rows      [][]any // nil: do not compare data
		numRows   int
		rowGroups int
		meta      Metadata
	}{
		{"jobs", jobsPath, jobCols, jobRows, len(jobRows), 1, sampleMeta()},
		{"jobs at the int64 extremes", widePath, jobCols, wideRows, len(wideRows), 1, sampleMeta()},
		{"dynamic table", tablePath, tableCols, tableRows, len(tableRows), 1, sampleMeta()},
		{"250k jobs", bigPath, jobCols, nil, 250_000, 3, Metadata{"k": "v"}},
	}
	duckType := map[Kind]string{Int64: "BIGINT", Float64: "DOUBLE", String: "VARCHAR", Bool: "BOOLEAN"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := check(tc.path, tc.rows != nil)
			if rep.Rows != tc.numRows {
				t.Errorf("DuckDB counts %d rows, want %d", rep.Rows, tc.numRows)
			}
			if len(rep.Columns) != len(tc.cols) {
				t.Fatalf("DuckDB sees %d columns %v, want %d", len(rep.Columns), rep.Columns, len(tc.cols))
			}
			for i, c := range tc.cols {
				if got := rep.Columns[i]; got.Name != c.Name || got.Type != duckType[c.Kind] {
					t.Errorf("column %d: DuckDB sees %s %s, want %s %s", i, got.Name, got.Type, c.Name, duckType[c.Kind])
				}
			}
			if !reflect.DeepEqual(rep.KV, map[string]string(tc.meta)) {
				t.Errorf("DuckDB kv metadata = %v, want %v", rep.KV, tc.meta)
			}
			if rep.CreatedBy != createdBy {
				t.Errorf("created_by = %q, want %q", rep.CreatedBy, createdBy)
			}
			if rep.RowGroups != tc.rowGroups {
				t.Errorf("DuckDB counts %d row groups, want %d", rep.RowGroups, tc.rowGroups)
			}
			if !reflect.DeepEqual(rep.Compression, []string{"ZSTD"}) {
				t.Errorf("compression = %v, want [ZSTD]", rep.Compression)
			}
			if tc.rows == nil {
				return
			}
			if len(rep.Data) != len(tc.rows) {
				t.Fatalf("DuckDB returned %d rows of data, want %d", len(rep.Data), len(tc.rows))
			}
			for i, row := range tc.rows {
				for j, c := range tc.cols {
					got, ok := rep.Data[i][c.Name]
					if !ok {
						t.Fatalf("row %d has no column %q", i, c.Name)
					}
					if want := asDuckJSON(row[j]); !reflect.DeepEqual(got, want) {
						t.Errorf("row %d column %q: DuckDB has %#v, want %#v", i, c.Name, got, want)
					}
				}
			}
		})
	}
}

// asDuckJSON is how check.mjs renders a value after encoding/json decoded
// it: BIGINT as a decimal string (so 64-bit values stay exact), DOUBLE as a
// number unless it is not finite.
func asDuckJSON(v any) any {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return v
}
