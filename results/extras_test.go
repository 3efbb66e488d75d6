package results

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// sampleFeedback is n rows of feedback columns: every other job depends
// on the one before it.
func sampleFeedback(n int) []FeedbackRow {
	out := make([]FeedbackRow, n)
	for i := range out {
		out[i].TraceSubmit = int64(100 * i)
		if i%2 == 1 {
			after, think := int64(i-1), int64(7*i)
			out[i].AfterIndex, out[i].ThinkTime = &after, &think
		}
	}
	return out
}

func sampleExtras(n int) JobExtras {
	x := JobExtras{Resources: []string{"bb", "lic"}, Requests: [][]int64{make([]int64, n), make([]int64, n)},
		HasUnits: true, Units: make([]string, n)}
	for i := range n {
		x.Requests[0][i] = int64(i) * 40_000_000_000
		x.Requests[1][i] = int64(i % 3)
		x.Units[i] = strconv.Itoa(i%4) + ",0," + strconv.Itoa(i%2)
	}
	return x
}

// TestJobExtrasRoundTrip: a jobs file with request and placement columns
// reads back whole with ReadJobsWith, as plain jobs with ReadJobs (so
// analyses of processors only keep working), and is written
// deterministically.
func TestJobExtrasRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		x    JobExtras
		n    int
	}{
		{"requests and units", sampleExtras(300), 300},
		{"requests only", JobExtras{Resources: []string{"bb"}, Requests: [][]int64{{1, 2, 3}}}, 3},
		{"units only", JobExtras{HasUnits: true, Units: []string{"1,0", "0,1"}}, 2},
		{"no rows", JobExtras{Resources: []string{"bb"}, Requests: [][]int64{{}}, HasUnits: true, Units: []string{}}, 0},
		{"none", JobExtras{}, 4},
		{"grid", JobExtras{Grid: sampleGrid(5)}, 5},
		{"units and grid", JobExtras{HasUnits: true, Units: []string{"1,0", "0,1", "2,2"}, Grid: sampleGrid(3)}, 3},
		{"feedback", JobExtras{Feedback: sampleFeedback(4)}, 4},
		{"requests, grid and feedback", JobExtras{Resources: []string{"bb"}, Requests: [][]int64{{1, 2, 3}}, Grid: sampleGrid(3), Feedback: sampleFeedback(3)}, 3},
		{"250k rows, several row groups", sampleExtras(250_000), 250_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := sampleJobs(tc.n)
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".parquet")
			if err := WriteJobsWith(path, rows, tc.x, sampleMeta()); err != nil {
				t.Fatal(err)
			}
			got, x, meta, err := ReadJobsWith(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, rows) && !(len(got) == 0 && len(rows) == 0) {
				t.Errorf("rows differ")
			}
			if len(tc.x.Resources) == 0 && !tc.x.HasUnits && tc.x.Grid == nil && tc.x.Feedback == nil {
				if !reflect.DeepEqual(x, JobExtras{}) {
					t.Errorf("extras %+v, want none", x)
				}
			} else if !reflect.DeepEqual(x, tc.x) {
				t.Errorf("extras %+v, want %+v", x, tc.x)
			}
			if !reflect.DeepEqual(meta, sampleMeta()) {
				t.Errorf("metadata %v", meta)
			}
			plain, _, err := ReadJobs(path)
			if err != nil || len(plain) != tc.n {
				t.Errorf("ReadJobs: %d rows, %v", len(plain), err)
			}
			again := path + ".again"
			if err := WriteJobsWith(again, rows, tc.x, sampleMeta()); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(path)
			b, _ := os.ReadFile(again)
			if !bytes.Equal(a, b) {
				t.Error("two writes differ")
			}
		})
	}
	// Without extras the file is exactly WriteJobs's.
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	if err := WriteJobs(a, sampleJobs(10), sampleMeta()); err != nil {
		t.Fatal(err)
	}
	if err := WriteJobsWith(b, sampleJobs(10), JobExtras{}, sampleMeta()); err != nil {
		t.Fatal(err)
	}
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ba, bb) {
		t.Error("WriteJobsWith without extras differs from WriteJobs")
	}
}

func TestJobExtrasErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		x    JobExtras
		want string
	}{
		{"column count", JobExtras{Resources: []string{"bb"}}, "0 request columns for 1 resources"},
		{"short column", JobExtras{Resources: []string{"bb"}, Requests: [][]int64{{1}}}, "column req_bb has 1 values for 3 rows"},
		{"repeated name", JobExtras{Resources: []string{"bb", "bb"}, Requests: [][]int64{{1, 2, 3}, {1, 2, 3}}}, "repeated"},
		{"short units", JobExtras{HasUnits: true, Units: []string{"1"}}, "column units has 1 values for 3 rows"},
		{"units without the column", JobExtras{Units: []string{"1", "2", "3"}}, "no units column"},
	} {
		path := filepath.Join(dir, "x.parquet")
		err := WriteJobsWith(path, sampleJobs(3), tc.x, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s: a file was written", tc.name)
		}
	}
	// A jobs file followed by a column that is neither a request nor the
	// placements, or has the wrong type, is not a jobs file.
	for _, tc := range []struct {
		name string
		cols []reflect.StructField
		want string
	}{
		{"other column", []reflect.StructField{{Name: "X", Type: reflect.TypeFor[int64](), Tag: `parquet:"bogus"`}}, `column "bogus" is not a request`},
		{"string request", []reflect.StructField{{Name: "X", Type: reflect.TypeFor[string](), Tag: `parquet:"req_bb"`}}, `column "req_bb" is BYTE_ARRAY`},
		{"optional request", []reflect.StructField{{Name: "X", Type: reflect.TypeFor[int64](), Tag: `parquet:"req_bb,optional"`}}, `column "req_bb" is INT64 (optional true)`},
		{"units not last", []reflect.StructField{{Name: "U", Type: reflect.TypeFor[string](), Tag: `parquet:"units"`},
			{Name: "X", Type: reflect.TypeFor[int64](), Tag: `parquet:"req_bb"`}}, `column "units" is not a request`},
	} {
		fields := []reflect.StructField{}
		jt := reflect.TypeFor[JobRow]()
		for i := range jt.NumField() {
			fields = append(fields, jt.Field(i))
		}
		typ := reflect.StructOf(append(fields, tc.cols...))
		path := filepath.Join(dir, "bad.parquet")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		pw := parquet.NewWriter(f, parquet.SchemaOf(reflect.Zero(typ).Interface()))
		if err := pw.Write(reflect.New(typ).Interface()); err != nil {
			t.Fatal(err)
		}
		if err := pw.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if _, _, err := ReadJobs(path); err == nil || !strings.Contains(err.Error(), "not a jobs file") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want not a jobs file: %s", tc.name, err, tc.want)
		}
	}
}

// TestDuckDBReadsJobExtras: DuckDB sees the extra columns after JobRow's,
// as BIGINT and VARCHAR, with our values.
func TestDuckDBReadsJobExtras(t *testing.T) {
	check := duckChecker(t)
	path := filepath.Join(t.TempDir(), "jobs.parquet")
	x := sampleExtras(20)
	if err := WriteJobsWith(path, sampleJobs(20), x, sampleMeta()); err != nil {
		t.Fatal(err)
	}
	rep := check(path, true)
	n := reflect.TypeFor[JobRow]().NumField()
	if len(rep.Columns) != n+3 {
		t.Fatalf("DuckDB sees columns %v", rep.Columns)
	}
	for i, want := range [][2]string{{"req_bb", "BIGINT"}, {"req_lic", "BIGINT"}, {"units", "VARCHAR"}} {
		if c := rep.Columns[n+i]; c.Name != want[0] || c.Type != want[1] {
			t.Errorf("column %d: DuckDB sees %s %s, want %s %s", n+i, c.Name, c.Type, want[0], want[1])
		}
	}
	for i, row := range rep.Data {
		if row["req_bb"] != strconv.FormatInt(x.Requests[0][i], 10) || row["req_lic"] != strconv.FormatInt(x.Requests[1][i], 10) || row["units"] != x.Units[i] {
			t.Errorf("row %d: DuckDB has %v %v %v", i, row["req_bb"], row["req_lic"], row["units"])
		}
	}
}

// sampleGrid has n grid rows: local jobs with a priority, global ones with
// a payment, some charged, shipped, reserved, refused or rejected.
func sampleGrid(n int) []GridRow {
	out := make([]GridRow, n)
	for i := range out {
		v, t := float64(i)+0.5, int64(100*i)
		g := GridRow{Home: int64(i%3) - 1, Refusals: int64(i % 2), Rejected: i%4 == 3}
		if g.Home >= 0 {
			g.Priority = &v
		} else {
			g.Payment, g.Cost, g.ShipTime, g.ReservedAt = &v, &v, &t, &t
		}
		out[i] = g
	}
	return out
}
