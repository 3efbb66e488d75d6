package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/schedlab/schedlab/sdk"
)

// A policy's notes per job (sdk.Noter, such as multifactor's priority
// and factors at each job's start and the reasons it waited) are a jobs
// file's last columns:
//
//   - policy_NAME (DOUBLE, NULL where the policy has no value, its NaN),
//     one per column of the notes, in their order;
//   - policy_wait_from (LIST of INT64) and policy_wait_reason (LIST of
//     STRING), when the policy keeps reasons: each spell of the job's
//     wait, the time from which a reason held and the reason.
//
// DuckDB unnests them: SELECT job_id, unnest(policy_wait_from) AS t,
// unnest(policy_wait_reason) AS reason FROM 'jobs.parquet'.
const (
	// NotePrefix begins the name of every notes column.
	NotePrefix = "policy_"
	// WaitFromColumn and WaitReasonColumn are the columns of the reasons.
	WaitFromColumn   = NotePrefix + "wait_from"
	WaitReasonColumn = NotePrefix + "wait_reason"
)

// noteField is the struct field of a notes column k named name.
func noteField(k int, name string) reflect.StructField {
	return reflect.StructField{Name: "Note" + strconv.Itoa(k), Type: reflect.TypeFor[*float64](),
		Tag: reflect.StructTag("parquet:" + strconv.Quote(NotePrefix+name+",optional"))}
}

// waitFields are the struct fields of the reasons columns.
func waitFields() []reflect.StructField {
	return []reflect.StructField{
		{Name: "WaitFrom", Type: reflect.TypeFor[[]int64](), Tag: reflect.StructTag(`parquet:"` + WaitFromColumn + `,list"`)},
		{Name: "WaitReason", Type: reflect.TypeFor[[]string](), Tag: reflect.StructTag(`parquet:"` + WaitReasonColumn + `,list"`)},
	}
}

// notesFields are the struct fields of n's columns.
func notesFields(n *sdk.Notes) []reflect.StructField {
	var fields []reflect.StructField
	for k, c := range n.Columns {
		fields = append(fields, noteField(k, c.Name))
	}
	if n.Waits != nil {
		fields = append(fields, waitFields()...)
	}
	return fields
}

// setNotes sets, from field next of v on, row i's notes columns.
func setNotes(v reflect.Value, next int, n *sdk.Notes, i int) {
	for k, c := range n.Columns {
		f := v.Field(next + k)
		if x := c.Values[i]; math.IsNaN(x) {
			f.SetZero()
		} else {
			f.Set(reflect.ValueOf(&x))
		}
	}
	if n.Waits == nil {
		return
	}
	ws := n.Waits[i]
	from, why := make([]int64, len(ws)), make([]string, len(ws))
	for s, w := range ws {
		from[s], why[s] = w.From, w.Reason
	}
	v.Field(next + len(n.Columns)).Set(reflect.ValueOf(from))
	v.Field(next + len(n.Columns) + 1).Set(reflect.ValueOf(why))
}

// notesStart returns the index in gf, from n on, of the first notes
// column, -1 for none.
func notesStart(gf []parquet.Field, n int) int {
	for k := n; k < len(gf); k++ {
		if strings.HasPrefix(gf[k].Name(), NotePrefix) {
			return k
		}
	}
	return -1
}

// checkNoteColumns checks the notes columns of a file, gf (from its first
// to the last), and returns the notes' names (without the prefix) and
// whether they have reasons.
func checkNoteColumns(gf []parquet.Field) (names []string, waits bool, err error) {
	if k := len(gf); k >= 2 && gf[k-2].Name() == WaitFromColumn {
		want := parquet.SchemaOf(reflect.Zero(reflect.StructOf(waitFields())).Interface()).Fields()
		for i, w := range want {
			g := gf[k-2+i]
			if g.Name() != w.Name() || g.Leaf() || g.Optional() != w.Optional() || g.Repeated() != w.Repeated() {
				return nil, false, fmt.Errorf("notes column %q is not a list as %q", g.Name(), w.Name())
			}
		}
		gf, waits = gf[:k-2], true
	}
	for _, g := range gf {
		name, ok := strings.CutPrefix(g.Name(), NotePrefix)
		if !ok || name == "" || !g.Leaf() || g.Repeated() || !g.Optional() || g.Type().Kind() != parquet.Double {
			return nil, false, fmt.Errorf("column %q is not a policy's note (an optional DOUBLE %sNAME)", g.Name(), NotePrefix)
		}
		names = append(names, name)
	}
	return names, waits, nil
}

// readNotes reads the notes columns of a jobs file; nil for a file
// without them.
func readNotes(path string, rows int) (*sdk.Notes, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gf := pf.Schema().Fields()
	k := notesStart(gf, 0)
	if k < 0 {
		return nil, nil
	}
	names, waits, err := checkNoteColumns(gf[k:])
	if err != nil {
		return nil, fmt.Errorf("results: read %s: %w", path, err)
	}
	n := &sdk.Notes{}
	var fields []reflect.StructField
	for i, name := range names {
		fields = append(fields, noteField(i, name))
		n.Columns = append(n.Columns, sdk.NoteColumn{Name: name, Values: make([]float64, rows)})
	}
	if waits {
		fields = append(fields, waitFields()...)
		n.Waits = make([][]sdk.WaitSpell, rows)
	}
	t := reflect.StructOf(fields)
	r := parquet.NewReader(pf, parquet.SchemaOf(reflect.Zero(t).Interface()))
	defer r.Close()
	v := reflect.New(t)
	for i := range rows {
		v.Elem().SetZero()
		if err := r.Read(v.Interface()); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("results: read %s: notes of row %d: %w", path, i, err)
		}
		e := v.Elem()
		for c := range names {
			n.Columns[c].Values[i] = math.NaN()
			if p := e.Field(c); !p.IsNil() {
				n.Columns[c].Values[i] = p.Elem().Float()
			}
		}
		if waits {
			from := e.Field(len(names)).Interface().([]int64)
			why := e.Field(len(names) + 1).Interface().([]string)
			if len(from) != len(why) {
				return nil, fmt.Errorf("results: read %s: row %d: %d wait times for %d reasons", path, i, len(from), len(why))
			}
			for s := range from {
				n.Waits[i] = append(n.Waits[i], sdk.WaitSpell{From: from[s], Reason: why[s]})
			}
		}
	}
	return n, nil
}

// PolicyNotesKey is the key, in a jobs file's metadata, of a summary of
// the policy's notes (EncodeNotesSummary); only the file of a run whose
// policy keeps notes has it.
const PolicyNotesKey = "policy_notes"

// EncodeNotesSummary returns the JSON of what a policy's notes hold: the
// names of their columns, and with reasons the number of jobs that have
// some and the spells by reason.
func EncodeNotesSummary(n *sdk.Notes) string {
	doc := struct {
		Columns []string         `json:"columns"`
		Waited  *int             `json:"jobs_with_reasons,omitempty"`
		Spells  map[string]int64 `json:"spells,omitempty"`
	}{Columns: []string{}}
	for _, c := range n.Columns {
		doc.Columns = append(doc.Columns, NotePrefix+c.Name)
	}
	if n.Waits != nil {
		waited := 0
		doc.Spells = map[string]int64{}
		for _, ws := range n.Waits {
			if len(ws) > 0 {
				waited++
			}
			for _, w := range ws {
				doc.Spells[w.Reason]++
			}
		}
		doc.Waited = &waited
	}
	b, _ := json.Marshal(doc) // strings and integers only
	return string(b)
}

// trailingOnly reports whether a jobs file's only columns past JobRow's
// are the trailing groups (feedback, outages, power, notes), if any.
func trailingOnly(path string) (bool, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	nj := reflect.TypeFor[JobRow]().NumField()
	return lastGroup(pf.Schema().Fields(), nj) == nj, nil
}

// readPrefixExtras reads the request, units and grid columns of a jobs
// file of a pool into x, through a schema of those columns alone, so
// that the lists of the trailing groups are not read.
func readPrefixExtras(path string, rows int, x *JobExtras) error {
	f, pf, err := openParquet(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gf := pf.Schema().Fields()
	nj := reflect.TypeFor[JobRow]().NumField()
	var fields []reflect.StructField
	grid := -1
	for _, g := range gf[nj:lastGroup(gf, nj)] {
		switch name := g.Name(); {
		case name == gridFirstColumn:
			grid = len(fields)
			gt := reflect.TypeFor[GridRow]()
			for i := range gt.NumField() {
				fields = append(fields, gt.Field(i))
			}
		case grid >= 0:
			// GridRow's other columns, already in.
		case name == UnitsColumn:
			x.HasUnits = true
			fields = append(fields, reflect.StructField{Name: "Units", Type: reflect.TypeFor[string](),
				Tag: reflect.StructTag("parquet:" + strconv.Quote(UnitsColumn))})
		default:
			x.Resources = append(x.Resources, strings.TrimPrefix(name, "req_"))
			fields = append(fields, reflect.StructField{Name: "Req" + strconv.Itoa(len(x.Resources)-1), Type: reflect.TypeFor[int64](),
				Tag: reflect.StructTag("parquet:" + strconv.Quote(name))})
		}
	}
	t := reflect.StructOf(fields)
	r := parquet.NewReader(pf, parquet.SchemaOf(reflect.Zero(t).Interface()))
	defer r.Close()
	x.Requests = make([][]int64, len(x.Resources))
	for k := range x.Requests {
		x.Requests[k] = make([]int64, rows)
	}
	if x.HasUnits {
		x.Units = make([]string, rows)
	}
	if grid >= 0 {
		x.Grid = make([]GridRow, rows)
	}
	v := reflect.New(t)
	for i := range rows {
		v.Elem().SetZero()
		if err := r.Read(v.Interface()); err != nil {
			return fmt.Errorf("results: read %s: row %d: %w", path, i, err)
		}
		e := v.Elem()
		for k := range x.Resources {
			x.Requests[k][i] = e.Field(k).Int()
		}
		if x.HasUnits {
			x.Units[i] = e.Field(len(x.Resources)).String()
		}
		if grid >= 0 {
			g := reflect.ValueOf(&x.Grid[i]).Elem()
			for f := range g.NumField() {
				g.Field(f).Set(e.Field(grid + f))
			}
		}
	}
	return nil
}
