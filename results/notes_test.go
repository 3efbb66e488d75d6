package results

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// sampleNotes are notes of n jobs: a priority (NaN for every fourth job)
// and an age, and every other job's reasons, one or two.
func sampleNotes(n int) *sdk.Notes {
	prio, age := make([]float64, n), make([]float64, n)
	waits := make([][]sdk.WaitSpell, n)
	for i := range n {
		prio[i], age[i] = float64(1000+i), float64(i)/3
		if i%4 == 0 {
			prio[i] = math.NaN()
		}
		if i%2 == 1 {
			waits[i] = []sdk.WaitSpell{{From: int64(i), Reason: "Priority"}}
			if i%3 == 0 {
				waits[i] = append(waits[i], sdk.WaitSpell{From: int64(i + 7), Reason: "QOSMaxJobsPerUserLimit"})
			}
		}
	}
	return &sdk.Notes{Columns: []sdk.NoteColumn{{Name: "priority", Values: prio}, {Name: "age", Values: age}}, Waits: waits}
}

// reqs and units are request and placement columns of n rows.
func reqs(n int, k int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i) * k
	}
	return out
}

func units(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%d:%d", i%3, i)
	}
	return out
}

// TestNotesColumnsRoundTrip writes a jobs file with a policy's notes
// alone (a pool) and after node, feedback, outage and power columns, and
// reads them back, with request, units and grid columns too; DuckDB, an independent reader, reads a NaN as NULL and
// the reasons' lists.
func TestNotesColumnsRoundTrip(t *testing.T) {
	const n = 30
	withAll := outageExtras(n)
	for i := range n {
		withAll.Power = append(withAll.Power, PowerRow{Energy: float64(i)})
	}
	for _, c := range []struct {
		name string
		x    JobExtras
	}{
		{"pool", JobExtras{}},
		{"nodes, outages and power", withAll},
		{"requests and units", JobExtras{Resources: []string{"bb", "lic"}, Requests: [][]int64{reqs(n, 3), reqs(n, 5)}, HasUnits: true, Units: units(n)}},
		{"requests and grid", JobExtras{Resources: []string{"bb"}, Requests: [][]int64{reqs(n, 7)}, Grid: sampleGrid(n)}},
	} {
		path := filepath.Join(t.TempDir(), "jobs.parquet")
		jobs := sampleJobs(n)
		x := c.x
		x.Notes = sampleNotes(n)
		if err := WriteJobsWith(path, jobs, x, sampleMeta()); err != nil {
			t.Fatal(c.name, err)
		}
		rows, got, _, err := ReadJobsWith(path)
		if err != nil {
			t.Fatal(c.name, err)
		}
		if len(rows) != n || fmt.Sprint(got.Notes) != fmt.Sprint(x.Notes) || !reflect.DeepEqual(got.Power, x.Power) ||
			!reflect.DeepEqual(got.Outages, x.Outages) || !reflect.DeepEqual(got.Resources, x.Resources) ||
			!reflect.DeepEqual(got.Requests, x.Requests) || !reflect.DeepEqual(got.Units, x.Units) || !reflect.DeepEqual(got.Grid, x.Grid) {
			t.Fatalf("%s: notes read back %v\nwant %v", c.name, got.Notes, x.Notes)
		}
		rep := duckChecker(t)(path, true)
		if len(rep.Data) != n {
			t.Fatalf("%s: DuckDB read %d rows", c.name, len(rep.Data))
		}
		for i, row := range rep.Data {
			if p := row["policy_priority"]; (i%4 == 0) != (p == nil) || p != nil && fmt.Sprint(p) != fmt.Sprint(1000+i) {
				t.Errorf("%s: row %d: DuckDB reads policy_priority %v", c.name, i, p)
			}
			var want []string
			for _, w := range x.Notes.Waits[i] {
				want = append(want, w.Reason)
			}
			if got := fmt.Sprint(row["policy_wait_reason"]); got != fmt.Sprint(want) && !(len(want) == 0 && got == "[]") {
				t.Errorf("%s: row %d: DuckDB reads policy_wait_reason %s, want %v", c.name, i, got, want)
			}
		}
	}
}

// TestNotesColumnsRefused: notes that do not fit the rows or name a
// column as the reasons' are refused, and no file is written.
func TestNotesColumnsRefused(t *testing.T) {
	short := sampleNotes(5)
	clash := sampleNotes(10)
	clash.Columns[1].Name = "wait_reason"
	for name, n := range map[string]*sdk.Notes{"short": short, "clash": clash, "empty": {}} {
		path := filepath.Join(t.TempDir(), "jobs.parquet")
		err := WriteJobsWith(path, sampleJobs(10), JobExtras{Notes: n}, sampleMeta())
		if err == nil {
			t.Errorf("%s: written", name)
		}
		if name == "short" && !errors.Is(err, sdk.ErrNotes) {
			t.Errorf("%s: %v does not wrap sdk.ErrNotes", name, err)
		}
		if _, serr := os.Stat(path); serr == nil || !strings.Contains(err.Error(), "jobs.parquet") {
			t.Errorf("%s: %v; file left: %v", name, err, serr)
		}
	}
}
