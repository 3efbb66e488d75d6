package campaign

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/sdk"
)

// Diff compares one run of two executions of a campaign.
type Diff struct {
	Index int
	Label string
	// Identical says the two runs completed with the same job records.
	Identical bool
	// What says how the runs differ, and Why what in their provenance
	// explains it (a different plugin binary or workload), when anything
	// does.
	What, Why string
}

// Compare compares the runs of the campaign folders a (the original) and
// b (a rerun of it, from its manifest.lock.toml), run by run: their job
// records, row by row and column by column. Runs are matched by index and
// must have the same spec.
func Compare(a, b string) ([]Diff, error) {
	ra, err := readRuns(a)
	if err != nil {
		return nil, err
	}
	rb, err := readRuns(b)
	if err != nil {
		return nil, err
	}
	if len(ra) != len(rb) {
		return nil, fmt.Errorf("compare: %s has %d runs, %s has %d: not the same campaign", a, len(ra), b, len(rb))
	}
	diffs := make([]Diff, len(ra))
	for i := range ra {
		x, y := ra[i], rb[i]
		d := Diff{Index: i, Label: x.label}
		switch {
		case x.spec != y.spec:
			return nil, fmt.Errorf("compare: run %d is %q in %s but %q in %s: not the same campaign", i, x.label, a, y.label, b)
		case x.status != StatusOK || y.status != StatusOK:
			d.What = fmt.Sprintf("status %s in the original, %s in the rerun", x.status, y.status)
		default:
			d.What, err = compareJobs(JobsPath(a, x.key), JobsPath(b, y.key))
			if err != nil {
				return nil, err
			}
			d.Identical = d.What == ""
		}
		if !d.Identical {
			switch {
			case x.policySHA != y.policySHA:
				d.Why = fmt.Sprintf("different plugin binary (sha256 %.12s… then %.12s…)", x.policySHA, y.policySHA)
			case x.workloadSHA != y.workloadSHA:
				d.Why = fmt.Sprintf("different workload (sha256 %.12s… then %.12s…)", x.workloadSHA, y.workloadSHA)
			}
		}
		diffs[i] = d
	}
	return diffs, nil
}

type runRow struct {
	key, label, spec, status, policySHA, workloadSHA string
}

// readRuns reads the columns Compare needs from a campaign's runs.parquet.
func readRuns(dir string) ([]runRow, error) {
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil {
		return nil, err
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	get := func(row []any, name string) string {
		i, ok := idx[name]
		if !ok {
			return ""
		}
		s, _ := row[i].(string)
		return s
	}
	out := make([]runRow, len(rows))
	for i, row := range rows {
		out[i] = runRow{key: get(row, "run_key"), label: get(row, "label"), spec: get(row, "spec_sha256"),
			status: get(row, "status"), policySHA: get(row, "policy_sha256"), workloadSHA: get(row, "workload_sha256")}
	}
	return out, nil
}

// compareJobs returns "" when two jobs files hold the same rows, else what
// differs first and how many rows differ.
func compareJobs(a, b string) (string, error) {
	ba, err := os.ReadFile(a)
	if err != nil {
		return "", err
	}
	bb, err := os.ReadFile(b)
	if err != nil {
		return "", err
	}
	if bytes.Equal(ba, bb) {
		return "", nil
	}
	// The bytes may differ in provenance only (another host or build).
	ra, xa, _, err := results.ReadJobsWith(a)
	if err != nil {
		return "", err
	}
	rb, xb, _, err := results.ReadJobsWith(b)
	if err != nil {
		return "", err
	}
	if len(ra) != len(rb) {
		return fmt.Sprintf("%d jobs, then %d", len(ra), len(rb)), nil
	}
	if (xa.Feedback == nil) != (xb.Feedback == nil) {
		return fmt.Sprintf("feedback columns %t, then %t", xa.Feedback != nil, xb.Feedback != nil), nil
	}
	if na, nb := noteNames(xa.Notes), noteNames(xb.Notes); na != nb {
		return fmt.Sprintf("policy notes %s, then %s", na, nb), nil
	}
	if !slices.Equal(xa.Resources, xb.Resources) || xa.HasUnits != xb.HasUnits || (xa.Grid == nil) != (xb.Grid == nil) {
		return fmt.Sprintf("resources %v (units %t, grid %t), then %v (units %t, grid %t)", xa.Resources, xa.HasUnits, xa.Grid != nil,
			xb.Resources, xb.HasUnits, xb.Grid != nil), nil
	}
	n, first := 0, ""
	t := reflect.TypeFor[results.JobRow]()
	for i := range ra {
		if reflect.DeepEqual(ra[i], rb[i]) {
			if d := extraDiff(xa, xb, i); d != "" {
				n++
				if first == "" {
					first = fmt.Sprintf("job %d: %s", ra[i].JobID, d)
				}
			}
			continue
		}
		n++
		if first == "" {
			va, vb := reflect.ValueOf(ra[i]), reflect.ValueOf(rb[i])
			for f := range t.NumField() {
				if !reflect.DeepEqual(va.Field(f).Interface(), vb.Field(f).Interface()) {
					name, _, _ := strings.Cut(t.Field(f).Tag.Get("parquet"), ",")
					first = fmt.Sprintf("job %d: %s %v then %v", ra[i].JobID, name,
						deref(va.Field(f)), deref(vb.Field(f)))
					break
				}
			}
		}
	}
	if n == 0 {
		return "", nil
	}
	return fmt.Sprintf("%d of %d jobs differ; first %s", n, len(ra), first), nil
}

// extraDiff says how row i's extra columns differ between two files with
// the same extra columns, "" when they do not.
func extraDiff(a, b results.JobExtras, i int) string {
	for k, name := range a.Resources {
		if x, y := a.Requests[k][i], b.Requests[k][i]; x != y {
			return fmt.Sprintf("%s %d then %d", results.RequestColumn(name), x, y)
		}
	}
	if a.HasUnits && a.Units[i] != b.Units[i] {
		return fmt.Sprintf("%s %s then %s", results.UnitsColumn, a.Units[i], b.Units[i])
	}
	if a.Grid != nil && !reflect.DeepEqual(a.Grid[i], b.Grid[i]) {
		return fmt.Sprintf("grid columns %s then %s", gridString(a.Grid[i]), gridString(b.Grid[i]))
	}
	if n := a.Notes; n != nil {
		for k, c := range n.Columns {
			if x, y := c.Values[i], b.Notes.Columns[k].Values[i]; math.Float64bits(x) != math.Float64bits(y) && !(math.IsNaN(x) && math.IsNaN(y)) {
				return fmt.Sprintf("%s%s %v then %v", results.NotePrefix, c.Name, x, y)
			}
		}
		if n.Waits != nil && !slices.Equal(n.Waits[i], b.Notes.Waits[i]) {
			return fmt.Sprintf("policy wait reasons %v then %v", n.Waits[i], b.Notes.Waits[i])
		}
	}
	if a.Feedback != nil && !reflect.DeepEqual(a.Feedback[i], b.Feedback[i]) {
		f := func(r results.FeedbackRow) string {
			if r.AfterIndex == nil {
				return fmt.Sprintf("{trace_submit %d}", r.TraceSubmit)
			}
			return fmt.Sprintf("{trace_submit %d after_index %d think_time %d}", r.TraceSubmit, *r.AfterIndex, *r.ThinkTime)
		}
		return fmt.Sprintf("feedback columns %s then %s", f(a.Feedback[i]), f(b.Feedback[i]))
	}
	return ""
}

// noteNames names a file's notes columns, "none" without notes.
func noteNames(n *sdk.Notes) string {
	if n == nil {
		return "none"
	}
	var names []string
	for _, c := range n.Columns {
		names = append(names, results.NotePrefix+c.Name)
	}
	return fmt.Sprintf("%v (reasons %t)", names, n.Waits != nil)
}

// gridString writes a job's grid columns for a message, NULLs as such.
func gridString(g results.GridRow) string {
	f := func(p *float64) string {
		if p == nil {
			return "NULL"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	i := func(p *int64) string {
		if p == nil {
			return "NULL"
		}
		return strconv.FormatInt(*p, 10)
	}
	return fmt.Sprintf("{home %d priority %s payment %s cost %s ship_time %s reserved_at %s refusals %d rejected %t}",
		g.Home, f(g.Priority), f(g.Payment), f(g.Cost), i(g.ShipTime), i(g.ReservedAt), g.Refusals, g.Rejected)
}

func deref(v reflect.Value) any {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "NULL"
		}
		return v.Elem().Interface()
	}
	return v.Interface()
}
