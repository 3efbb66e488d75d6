package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// sampleJobs returns n deterministic, plausible jobs; every third job has no
// promised start so NULLs are exercised.
func sampleJobs(n int) []JobRow {
	rows := make([]JobRow, n)
	for i := range rows {
		submit := int64(i) * 7
		start := submit + int64(i%13)*60
		walltime := int64(600 + i%5*300)
		runtime := walltime - int64(i%4)*100
		r := JobRow{
			JobID:      int64(i + 1),
			Submit:     submit,
			Start:      start,
			End:        start + runtime,
			Wait:       start - submit,
			Runtime:    runtime,
			Walltime:   walltime,
			Procs:      int64(1 << (i % 8)),
			Cluster:    int64(i % 2),
			Killed:     i%4 == 0,
			Backfilled: i%3 == 1,
			User:       int64(i % 97),
			Group:      int64(i % 11),
			App:        -1,
			Queue:      int64(i % 3),
			Partition:  -1,
		}
		if i%3 != 0 {
			p := start - int64(i%2)*30
			r.PromisedStart = &p
		}
		rows[i] = r
	}
	return rows
}

func ptr(v int64) *int64 { return &v }

// sampleMeta returns provenance-like metadata, including an empty value and
// non-ASCII text; a fresh map each call so no test can leak into another.
func sampleMeta() Metadata {
	return Metadata{
		"schedlab.version": "0.1.0-dev",
		"git.commit":       "0db684b",
		"policy":           "easy-backfill",
		"params":           `{"alpha":0.5,"depth":3}`,
		"trace.sha256":     strings.Repeat("ab", 32),
		"empty":            "",
		"unicode":          "ünïcødé ✓",
	}
}

func TestJobsRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		rows []JobRow
		meta Metadata
	}{
		{"empty", nil, nil},
		{"one row no promise", []JobRow{{JobID: 42, Submit: 1, Start: 2, End: 3, Wait: 1, Runtime: 1,
			Walltime: 10, Procs: 4, User: -1, Group: -1, App: -1, Queue: -1, Partition: -1}}, Metadata{"k": "v"}},
		{"extremes", []JobRow{{JobID: -1 << 63, Submit: 1<<63 - 1, PromisedStart: ptr(-1 << 63), Killed: true, Backfilled: true},
			{PromisedStart: ptr(0)}}, sampleMeta()},
		{"mixed", sampleJobs(1000), sampleMeta()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "jobs.parquet")
			if err := WriteJobs(path, tc.rows, tc.meta); err != nil {
				t.Fatal(err)
			}
			got, meta, err := ReadJobs(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.rows) || (len(got) > 0 && !reflect.DeepEqual(got, tc.rows)) {
				t.Fatalf("rows differ:\n got %d rows, first %+v\nwant %d rows", len(got), first(got), len(tc.rows))
			}
			if !maps.Equal(meta, tc.meta) {
				t.Errorf("metadata = %v, want %v", meta, tc.meta)
			}
			// Rows must own their pointers: a reader reusing one *int64
			// for every row would make all promised starts equal.
			seen := map[*int64]bool{}
			for _, r := range got {
				if r.PromisedStart != nil {
					if seen[r.PromisedStart] {
						t.Fatal("promised_start pointers are shared between rows")
					}
					seen[r.PromisedStart] = true
				}
			}
		})
	}
}

func first(rows []JobRow) any {
	if len(rows) == 0 {
		return nil
	}
	return rows[0]
}

type policyName string

func TestTableRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		cols []Column
		rows [][]any
		want [][]any // nil means rows
	}{
		{
			name: "all kinds with NULLs, unsorted names",
			cols: []Column{{"zeta", Int64}, {"policy", String}, {"alpha", Float64}, {"exact", Bool}, {"m", Int64}},
			rows: [][]any{
				{int64(1), "fcfs", 0.5, true, nil},
				{nil, nil, nil, nil, nil},
				{int64(-1 << 63), "", math.Copysign(0, -1), false, int64(1<<63 - 1)},
				{int64(3), "easy ✓", 1e300, nil, int64(0)},
			},
		},
		{
			name: "odd names",
			cols: []Column{{"policy.param", String}, {"with space", Int64}, {"ünï", Bool}, {`quote"d\`, Float64}, {"b(1)", Int64}},
			rows: [][]any{{"x", int64(1), true, 2.5, int64(7)}},
		},
		{
			name: "no rows",
			cols: []Column{{"b", Int64}, {"a", String}},
			rows: nil,
		},
		{
			name: "Go types are normalized",
			cols: []Column{{"i", Int64}, {"u", Int64}, {"f", Float64}, {"s", String}, {"b", Bool}},
			rows: [][]any{{int(3), uint32(4), float32(0.25), policyName("sjf"), true}, {int8(-2), uint64(5), 1.0, "x", false}},
			want: [][]any{{int64(3), int64(4), 0.25, "sjf", true}, {int64(-2), int64(5), 1.0, "x", false}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "runs.parquet")
			if err := WriteTable(path, tc.cols, tc.rows, sampleMeta()); err != nil {
				t.Fatal(err)
			}
			cols, rows, meta, err := ReadTable(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cols, tc.cols) {
				t.Errorf("columns = %v, want %v", cols, tc.cols)
			}
			want := tc.want
			if want == nil {
				want = tc.rows
			}
			if len(rows) != len(want) || (len(rows) > 0 && !reflect.DeepEqual(rows, want)) {
				t.Errorf("rows = %#v, want %#v", rows, want)
			}
			if !maps.Equal(meta, sampleMeta()) {
				t.Errorf("metadata = %v, want %v", meta, sampleMeta())
			}
		})
	}
}

func TestWriteTableRejectsBadInput(t *testing.T) {
	tests := []struct {
		name string
		cols []Column
		rows [][]any
		meta Metadata
		want string
	}{
		{"no columns", nil, nil, nil, "no columns"},
		{"empty name", []Column{{"", Int64}}, nil, nil, "empty name"},
		{"comma", []Column{{"a,b", Int64}}, nil, nil, "comma"},
		{"dash", []Column{{"-", Int64}}, nil, nil, "reserved"},
		{"duplicate", []Column{{"a", Int64}, {"a", String}}, nil, nil, "duplicate"},
		{"zero kind", []Column{{"a", 0}}, nil, nil, "invalid kind"},
		{"short row", []Column{{"a", Int64}, {"b", Int64}}, [][]any{{int64(1)}}, nil, "row 0 has 1 values, want 2"},
		{"wrong type", []Column{{"a", Int64}}, [][]any{{int64(1)}, {"x"}}, nil, `row 1 column "a": want int64, got string`},
		{"float for int", []Column{{"a", Int64}}, [][]any{{1.5}}, nil, "want int64, got float64"},
		{"overflow", []Column{{"a", Int64}}, [][]any{{uint64(1 << 63)}}, nil, "overflows int64"},
		{"empty key", []Column{{"a", Int64}}, nil, Metadata{"": "x"}, "empty key"},
		{"bad utf8", []Column{{"a", Int64}}, nil, Metadata{"k": "\xff"}, "UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "runs.parquet")
			err := WriteTable(path, tc.cols, tc.rows, tc.meta)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want one naming %s and containing %q", err, path, tc.want)
			}
			assertDirHolds(t, filepath.Dir(path))
		})
	}
}

func TestReadJobsRejectsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "runs.parquet")
	if err := WriteTable(table, []Column{{"job_id", Int64}}, [][]any{{int64(1)}}, nil); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.parquet")
	if err := os.WriteFile(garbage, []byte("not parquet at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{table, garbage, filepath.Join(dir, "missing.parquet")} {
		if _, _, err := ReadJobs(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("ReadJobs(%s) err = %v, want an error naming the path", path, err)
		}
	}
	if _, _, err := ReadJobs(table); !strings.Contains(err.Error(), "not a jobs file") {
		t.Errorf("err = %v, want 'not a jobs file'", err)
	}
}

func TestDeterministicOutput(t *testing.T) {
	writers := []struct {
		name  string
		write func(path string, meta Metadata) error
	}{
		{"jobs", func(path string, meta Metadata) error { return WriteJobs(path, sampleJobs(20_000), meta) }},
		{"table", func(path string, meta Metadata) error {
			cols := []Column{{"seed", Int64}, {"policy", String}, {"load", Float64}, {"exact", Bool}}
			rows := make([][]any, 5000)
			for i := range rows {
				rows[i] = []any{int64(i), []string{"fcfs", "easy", "cons"}[i%3], float64(i) / 7, nil}
				if i%2 == 0 {
					rows[i][3] = i%4 == 0
				}
			}
			return WriteTable(path, cols, rows, meta)
		}},
	}
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			var files [][]byte
			// Different directories and names, and metadata maps built in
			// different orders, must not change a byte.
			for i := range 3 {
				src, meta := sampleMeta(), Metadata{}
				keys := slices.Sorted(maps.Keys(src))
				if i%2 == 1 {
					slices.Reverse(keys)
				}
				for _, k := range keys {
					meta[k] = src[k]
				}
				path := filepath.Join(t.TempDir(), "out"+string(rune('a'+i))+".parquet")
				if err := w.write(path, meta); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, b)
			}
			for i := 1; i < len(files); i++ {
				if !bytes.Equal(files[0], files[i]) {
					t.Fatalf("write %d differs from write 0 (%d vs %d bytes)", i, len(files[i]), len(files[0]))
				}
			}
			pf, err := parquet.OpenFile(bytes.NewReader(files[0]), int64(len(files[0])))
			if err != nil {
				t.Fatal(err)
			}
			if got := pf.Metadata().CreatedBy; got != createdBy {
				t.Errorf("created_by = %q, want %q", got, createdBy)
			}
		})
	}
}

func TestMetadataRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		meta Metadata
	}{
		{"none", nil},
		{"provenance", sampleMeta()},
		{"large value", Metadata{"config.toml": strings.Repeat("x = 1\n", 20_000)}},
		{"many keys", func() Metadata {
			m := Metadata{}
			for i := range 500 {
				m[fmt.Sprintf("key.%03d", 499-i)] = fmt.Sprint(i)
			}
			return m
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			jobs := filepath.Join(dir, "jobs.parquet")
			table := filepath.Join(dir, "runs.parquet")
			if err := WriteJobs(jobs, sampleJobs(10), tc.meta); err != nil {
				t.Fatal(err)
			}
			if err := WriteTable(table, []Column{{"x", Int64}}, [][]any{{int64(1)}}, tc.meta); err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{jobs, table} {
				got, err := ReadMetadata(path)
				if err != nil {
					t.Fatal(err)
				}
				if !maps.Equal(got, tc.meta) {
					t.Errorf("%s: metadata has %d keys, want %d", filepath.Base(path), len(got), len(tc.meta))
				}
			}
		})
	}
}

func TestWriteIntoMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "jobs.parquet")
	writes := map[string]func() error{
		"jobs":  func() error { return WriteJobs(path, sampleJobs(3), sampleMeta()) },
		"table": func() error { return WriteTable(path, []Column{{"a", Int64}}, [][]any{{int64(1)}}, nil) },
	}
	for name, write := range writes {
		t.Run(name, func(t *testing.T) {
			err := write()
			if err == nil || !strings.Contains(err.Error(), path) || !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("err = %v, want a not-exist error naming %s", err, path)
			}
		})
	}
}

// failingWriter passes budget bytes through and then fails with err, like a
// disk that fills up part way through a file.
type failingWriter struct {
	w      io.Writer
	budget int
	err    error
}

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= f.budget {
		f.budget -= len(p)
		return f.w.Write(p)
	}
	n, _ := f.w.Write(p[:f.budget])
	f.budget = 0
	return n, f.err
}

// countingWriter discards what it is given and counts the bytes.
type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}

func TestFailedWriteLeavesNoFile(t *testing.T) {
	enospc := syscall.ENOSPC
	big := sampleJobs(250_000)
	tableCols := []Column{{"a", Int64}, {"b", String}}
	tableRows := make([][]any, 200_000)
	for i := range tableRows {
		tableRows[i] = []any{int64(i), "value"}
	}
	encoders := map[string]func(io.Writer) error{
		"jobs": func(w io.Writer) error { return writeJobsTo(w, big, sampleMeta(), nil) },
		"table": func(w io.Writer) error {
			schema, err := tableSchema(tableCols)
			if err != nil {
				return err
			}
			return writeTableTo(w, schema, tableCols, tableRows, sampleMeta())
		},
	}
	// budget maps the size of a complete file to the bytes let through.
	tests := []struct {
		name     string
		budget   func(size int) int
		existing bool // a previous file is at the final path
	}{
		{"fails on first byte", func(int) int { return 0 }, false},
		{"fails mid file", func(size int) int { return size / 2 }, false},
		{"fails mid file over old file", func(size int) int { return size / 2 }, true},
		{"fails on last byte of footer", func(size int) int { return size - 1 }, true},
	}
	old := []byte("previous complete result")
	for encName, encode := range encoders {
		var full countingWriter
		if err := encode(&full); err != nil {
			t.Fatal(err)
		}
		if full.n < 4<<10 {
			t.Fatalf("%s: complete file is only %d bytes; the failure points would bunch up", encName, full.n)
		}
		for _, tc := range tests {
			t.Run(encName+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "jobs.parquet")
				if tc.existing {
					if err := os.WriteFile(path, old, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				err := WriteFileAtomic(path, func(w io.Writer) error {
					return encode(&failingWriter{w: w, budget: tc.budget(full.n), err: enospc})
				})
				if err == nil {
					t.Fatal("write succeeded despite the failing writer")
				}
				if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), path) ||
					!strings.Contains(err.Error(), "no space left on device") {
					t.Fatalf("err = %v, want ENOSPC naming %s", err, path)
				}
				if tc.existing {
					b, err := os.ReadFile(path)
					if err != nil || !bytes.Equal(b, old) {
						t.Fatalf("old file changed: %q, %v", b, err)
					}
					assertDirHolds(t, dir, "jobs.parquet")
				} else {
					assertDirHolds(t, dir)
				}
			})
		}
	}

	t.Run("read-only directory", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root ignores directory permissions; the injected failures above cover this path")
		}
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o755)
		path := filepath.Join(dir, "jobs.parquet")
		err := WriteJobs(path, sampleJobs(3), nil)
		if err == nil || !strings.Contains(err.Error(), path) || !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("err = %v, want a permission error naming %s", err, path)
		}
		assertDirHolds(t, dir)
	})
}

// assertDirHolds fails unless dir holds exactly the named files, so a
// leftover temporary file is caught too.
func assertDirHolds(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !reflect.DeepEqual(got, names) && !(len(got) == 0 && len(names) == 0) {
		t.Fatalf("%s holds %q, want %q", dir, got, names)
	}
}

func TestRowGroupsAreCapped(t *testing.T) {
	dir := t.TempDir()
	jobs := filepath.Join(dir, "jobs.parquet")
	if err := WriteJobs(jobs, sampleJobs(250_000), sampleMeta()); err != nil {
		t.Fatal(err)
	}
	rows := make([][]any, 250_000)
	for i := range rows {
		rows[i] = []any{int64(i), nil}
	}
	table := filepath.Join(dir, "runs.parquet")
	if err := WriteTable(table, []Column{{"i", Int64}, {"s", String}}, rows, nil); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{jobs, table} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			pf, err := parquet.OpenFile(f, st.Size())
			if err != nil {
				t.Fatal(err)
			}
			groups := pf.Metadata().RowGroups
			if len(groups) < 3 {
				t.Errorf("%d row groups, want >= 3", len(groups))
			}
			var total int64
			for i, rg := range groups {
				total += rg.NumRows
				if rg.NumRows > MaxRowsPerRowGroup {
					t.Errorf("row group %d has %d rows, cap is %d", i, rg.NumRows, MaxRowsPerRowGroup)
				}
				for _, c := range rg.Columns {
					if c.MetaData.Codec != format.Zstd {
						t.Errorf("row group %d column %v is %v, want ZSTD", i, c.MetaData.PathInSchema, c.MetaData.Codec)
					}
				}
			}
			if total != 250_000 {
				t.Errorf("%d rows in row groups, want 250000", total)
			}
		})
	}
	got, _, err := ReadJobs(jobs)
	if err != nil || len(got) != 250_000 || !reflect.DeepEqual(got[249_999], sampleJobs(250_000)[249_999]) {
		t.Errorf("reading back the 250k-row file: %d rows, err %v", len(got), err)
	}
}

// BenchmarkWriteJobs writes a jobs file of 300,000 rows (a large trace) and
// one of 1,000 (a run of a campaign of many small runs, where the file's
// fixed cost counts).
func BenchmarkWriteJobs(b *testing.B) {
	for _, n := range []int{300_000, 1_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			rows := sampleJobs(n)
			path := filepath.Join(b.TempDir(), "jobs.parquet")
			b.ReportAllocs()
			for b.Loop() {
				if err := WriteJobs(path, rows, sampleMeta()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			if st, err := os.Stat(path); err == nil {
				b.ReportMetric(float64(st.Size())/float64(n), "bytes/row")
			}
		})
	}
}

// TestWriteJobsThen: metadata filled in after the rows gives the file that
// the whole metadata given at once gives, byte for byte; a late key given
// early, one not filled or one more than promised is an error.
func TestWriteJobsThen(t *testing.T) {
	dir := t.TempDir()
	rows := []JobRow{{JobID: 1, Submit: 0, Start: 5, End: 9, Procs: 2}, {JobID: 2, Submit: 1, Start: 9, End: 20, Procs: 1}}
	whole := sampleMeta()
	whole["summary"] = `{"mean_wait":6.5}`
	early := sampleMeta()
	fill := func(m Metadata, err error) *Later {
		return &Later{Keys: []string{"summary"}, Fill: func() (Metadata, error) { return m, err }}
	}
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	if err := WriteJobs(a, rows, whole); err != nil {
		t.Fatal(err)
	}
	if err := WriteJobsThen(b, rows, JobExtras{}, early, fill(Metadata{"summary": `{"mean_wait":6.5}`}, nil)); err != nil {
		t.Fatal(err)
	}
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ab, bb) {
		t.Errorf("late metadata gives another file (%d bytes against %d)", len(bb), len(ab))
	}
	for name, c := range map[string]struct {
		meta  Metadata
		later *Later
	}{
		"given early":    {whole, fill(Metadata{"summary": "x"}, nil)},
		"not filled":     {early, fill(Metadata{}, nil)},
		"more than said": {early, fill(Metadata{"summary": "x", "other": "y"}, nil)},
		"fill fails":     {early, fill(nil, errors.New("metrics failed"))},
	} {
		if err := WriteJobsThen(filepath.Join(dir, "c.parquet"), rows, JobExtras{}, c.meta, c.later); err == nil {
			t.Errorf("%s: no error", name)
		}
		if _, err := os.Stat(filepath.Join(dir, "c.parquet")); err == nil {
			t.Errorf("%s: a file was left", name)
		}
	}
}

// plainJobRow is JobRow as files before the column encodings were chosen
// have it: every column plain.
type plainJobRow struct {
	JobID         int64  `parquet:"job_id"`
	Submit        int64  `parquet:"submit"`
	Start         int64  `parquet:"start"`
	End           int64  `parquet:"end"`
	Wait          int64  `parquet:"wait"`
	Runtime       int64  `parquet:"runtime"`
	Walltime      int64  `parquet:"walltime"`
	Procs         int64  `parquet:"procs"`
	Cluster       int64  `parquet:"cluster"`
	Killed        bool   `parquet:"killed"`
	Backfilled    bool   `parquet:"backfilled"`
	PromisedStart *int64 `parquet:"promised_start,optional"`
	User          int64  `parquet:"user"`
	Group         int64  `parquet:"group"`
	App           int64  `parquet:"app"`
	Queue         int64  `parquet:"queue"`
	Partition     int64  `parquet:"partition"`
}

// TestJobEncodings checks that a jobs file stores the times delta-encoded
// and the attributes in a dictionary, and that a file written before, with
// plain columns, still reads row for row.
func TestJobEncodings(t *testing.T) {
	dir := t.TempDir()
	rows := sampleJobs(5000)
	path := filepath.Join(dir, "jobs.parquet")
	if err := WriteJobs(path, rows, sampleMeta()); err != nil {
		t.Fatal(err)
	}
	f, pf, err := openParquet(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]format.Encoding{"submit": format.DeltaBinaryPacked, "end": format.DeltaBinaryPacked,
		"user": format.RLEDictionary, "procs": format.RLEDictionary, "killed": format.Plain}
	for i, c := range pf.Metadata().RowGroups[0].Columns {
		name := c.MetaData.PathInSchema[0]
		if enc, ok := want[name]; ok {
			if !slices.Contains(c.MetaData.Encoding, enc) {
				t.Errorf("column %s (%d) has encodings %v, want %v among them", name, i, c.MetaData.Encoding, enc)
			}
			delete(want, name)
		}
	}
	if len(want) > 0 {
		t.Errorf("columns not found: %v", want)
	}

	old := filepath.Join(dir, "plain.parquet")
	if err := writePlainJobs(old, rows, sampleMeta()); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadJobs(old)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Errorf("a plain jobs file reads as %d other rows", len(got))
	}
}

// writePlainJobs writes rows as a jobs file with every column plain, as
// schedlab-results 1.0.0 wrote them (not atomically: tests only).
func writePlainJobs(path string, rows []JobRow, meta Metadata) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	pw := parquet.NewGenericWriter[plainJobRow](f, writerOptions(meta)...)
	plain := make([]plainJobRow, len(rows))
	for i, r := range rows {
		plain[i] = plainJobRow(r)
	}
	_, err = pw.Write(plain)
	return errors.Join(err, pw.Close(), f.Close())
}
