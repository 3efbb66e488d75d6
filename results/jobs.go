package results

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/schedlab/schedlab/sdk"
)

// JobRow is one job of a simulation run, one row of the run's jobs file.
//
// Columns, in file order (times are simulation seconds):
//
//   - job_id: the job's number in the source trace (SWF field 1).
//   - submit: when the job was submitted.
//   - start: when the job started running.
//   - end: when the job stopped running, by completion or by being killed.
//   - wait: start - submit; stored although derivable so analyses need no
//     arithmetic and every reader agrees on it.
//   - runtime: end - start, what actually ran (at most walltime).
//   - walltime: the walltime the user requested.
//   - procs: the number of processors the job used.
//   - cluster: the index of the cluster of the platform the job ran on.
//   - killed: whether the job was killed on reaching its walltime.
//   - backfilled: whether the job started ahead of a job queued before it.
//   - promised_start: the start time the policy promised (for example a
//     reservation); NULL when the policy gave no promise.
//   - user, group, app, queue, partition: the trace's numeric attributes
//     (SWF fields 12 to 16); -1 when the trace has none.
//
// On a platform with resources besides processors, the columns of
// JobExtras follow (req_NAME, units).
//
// job_id and the times are stored delta-encoded (DELTA_BINARY_PACKED) and
// the attributes and sizes in a dictionary (RLE_DICTIONARY), then
// compressed with zstd: beside plain encoding this writes a CEA-Curie run's
// 295,540 rows in about 40 % of the time, to a file 6 % smaller
// (BenchmarkWriteJobsCurie). DuckDB (TestDuckDBReadsOurFiles), pyarrow and
// polars read both; some older readers lack DELTA_BINARY_PACKED.
//
// Beware that end, user and group are SQL keywords: DuckDB needs them
// quoted, as in SELECT "end", "user", "group" FROM 'jobs.parquet'.
type JobRow struct {
	JobID         int64  `parquet:"job_id,delta"`
	Submit        int64  `parquet:"submit,delta"`
	Start         int64  `parquet:"start,delta"`
	End           int64  `parquet:"end,delta"`
	Wait          int64  `parquet:"wait,delta"`
	Runtime       int64  `parquet:"runtime,delta"`
	Walltime      int64  `parquet:"walltime,delta"`
	Procs         int64  `parquet:"procs,dict"`
	Cluster       int64  `parquet:"cluster,dict"`
	Killed        bool   `parquet:"killed"`
	Backfilled    bool   `parquet:"backfilled"`
	PromisedStart *int64 `parquet:"promised_start,optional"`
	User          int64  `parquet:"user,dict"`
	Group         int64  `parquet:"group,dict"`
	App           int64  `parquet:"app,dict"`
	Queue         int64  `parquet:"queue,dict"`
	Partition     int64  `parquet:"partition,dict"`
}

// JobExtras are the columns a jobs file has after JobRow's when the run's
// platform has resources besides processors; a jobs file of a platform of
// processors only has none, so its schema is JobRow's alone.
//
//   - req_NAME (int64), one per resource in platform order after the
//     processors: the job's total request of the resource (for a burst
//     buffer, bytes: nodes x bytes per node).
//   - units (string), when some resource is divided into units: the job's
//     placement, the number of its pieces on each unit, comma-separated, in
//     the order of the cluster's sdk.Units and then of their units
//     ("0,2,1,0"); every row has sdk.Platform.UnitStride() numbers.
//
// A run of a grid (a workload of streams, paper 003) has the columns of
// GridRow last.
type JobExtras struct {
	// Resources names the resources besides processors, in platform order.
	Resources []string
	// Requests holds one column per resource: Requests[k][i] is row i's
	// request of Resources[k].
	Requests [][]int64
	// HasUnits says the file has a units column, and Units holds its value
	// for each row.
	HasUnits bool
	Units    []string
	// Grid holds each row's grid columns; nil for a run without streams.
	Grid []GridRow
	// Nodes holds each row's node columns (NodeRow) on a platform of
	// nodes, which NodeCols says the optional ones of; nil elsewhere.
	Nodes    []NodeRow
	NodeCols NodeColumns
	// Feedback holds each row's feedback columns (FeedbackRow) in a run
	// whose jobs depend on others; nil elsewhere, so that a replay's file
	// is what it was before feedback existed.
	Feedback []FeedbackRow
	// Outages holds each row's outage columns (OutageRow), the last, in a
	// run with outages of nodes; nil elsewhere.
	Outages []OutageRow
	// Power holds each row's energy column (PowerRow), after the others
	// but the notes, in a run with a power model; nil elsewhere.
	Power []PowerRow
	// Notes are the policy's notes per job (notes.go), the last columns;
	// nil for a policy that keeps none.
	Notes *sdk.Notes
}

// FeedbackRow is what a jobs file says of a job in a run whose workload
// has feedback (a workload's feedback setting, docs/semantics.md): the
// row's submit is then the simulated submission, and
//
//   - trace_submit: the trace's submit time;
//   - after_index: the row (0-based, the job's index) of the job it
//     depends on; NULL for a job that depends on none, submitted at its
//     trace time;
//   - think_time: seconds between that job's end and this job's
//     submission; NULL with after_index.
type FeedbackRow struct {
	TraceSubmit int64  `parquet:"trace_submit"`
	AfterIndex  *int64 `parquet:"after_index,optional"`
	ThinkTime   *int64 `parquet:"think_time,optional"`
}

// GridRow is what a jobs file says of a job of a grid (paper 003):
//
//   - home: the index of the cluster whose local stream the job belongs
//     to, -1 for a global job.
//   - priority: a local job's priority; NULL for a global job.
//   - payment: a global job's payment; NULL for a local job.
//   - cost: what the policy charged for the job's allocation (sdk.Charge);
//     NULL where it charged nothing.
//   - ship_time: when the job was shipped to its cluster; NULL if never.
//   - reserved_at: the start of its last advance reservation; NULL if none.
//   - refusals: the reservations of it the engine refused.
//   - rejected: the policy turned it away unstarted (its start and end are
//     the rejection's time, its cluster -1, and it is in no metric but
//     rejected).
type GridRow struct {
	Home       int64    `parquet:"home"`
	Priority   *float64 `parquet:"priority,optional"`
	Payment    *float64 `parquet:"payment,optional"`
	Cost       *float64 `parquet:"cost,optional"`
	ShipTime   *int64   `parquet:"ship_time,optional"`
	ReservedAt *int64   `parquet:"reserved_at,optional"`
	Refusals   int64    `parquet:"refusals"`
	Rejected   bool     `parquet:"rejected"`
}

// empty reports whether x adds no column.
func (x JobExtras) empty() bool {
	return len(x.Resources) == 0 && !x.HasUnits && x.Grid == nil && x.Nodes == nil && x.Feedback == nil && x.Outages == nil && x.Power == nil && x.Notes == nil
}

// UnitsColumn is the name of the placement column of JobExtras.
const UnitsColumn = "units"

// RequestColumn returns the column name of a resource's requests, req_NAME.
func RequestColumn(resource string) string { return "req_" + resource }

// check reports extras that do not match rows or the column rules.
func (x JobExtras) check(rows int) error {
	if len(x.Requests) != len(x.Resources) {
		return fmt.Errorf("%d request columns for %d resources", len(x.Requests), len(x.Resources))
	}
	seen := map[string]bool{}
	for k, name := range x.Resources {
		switch {
		case name == "" || strings.ContainsAny(name, ",") || seen[name]:
			return fmt.Errorf("resource %d: name %q is empty, repeated or has a comma", k, name)
		case len(x.Requests[k]) != rows:
			return fmt.Errorf("column %s has %d values for %d rows", RequestColumn(name), len(x.Requests[k]), rows)
		}
		seen[name] = true
	}
	if x.HasUnits && len(x.Units) != rows {
		return fmt.Errorf("column %s has %d values for %d rows", UnitsColumn, len(x.Units), rows)
	}
	if !x.HasUnits && len(x.Units) > 0 {
		return fmt.Errorf("%d placements but no %s column", len(x.Units), UnitsColumn)
	}
	if x.Grid != nil && len(x.Grid) != rows {
		return fmt.Errorf("%d grid rows for %d rows", len(x.Grid), rows)
	}
	if x.Nodes != nil && len(x.Nodes) != rows {
		return fmt.Errorf("%d node rows for %d rows", len(x.Nodes), rows)
	}
	if x.Feedback != nil && len(x.Feedback) != rows {
		return fmt.Errorf("%d feedback rows for %d rows", len(x.Feedback), rows)
	}
	if x.Outages != nil && len(x.Outages) != rows {
		return fmt.Errorf("%d outage rows for %d rows", len(x.Outages), rows)
	}
	if x.Power != nil && len(x.Power) != rows {
		return fmt.Errorf("%d power rows for %d rows", len(x.Power), rows)
	}
	if x.Notes != nil {
		// sdk.Notes.Check keeps the reasons' column names for them.
		if err := x.Notes.Check(rows); err != nil {
			return err
		}
	}
	if x.Nodes != nil && x.Grid != nil {
		return errors.New("node columns with grid columns")
	}
	return nil
}

// WriteJobs atomically writes rows, in order, and meta to a jobs file at
// path, replacing any file there.
func WriteJobs(path string, rows []JobRow, meta Metadata) error {
	return WriteJobsWith(path, rows, JobExtras{}, meta)
}

// WriteJobsWith is WriteJobs with the extra columns x after JobRow's
// (none when x is empty: then the file is exactly what WriteJobs writes).
func WriteJobsWith(path string, rows []JobRow, x JobExtras, meta Metadata) error {
	return WriteJobsThen(path, rows, x, meta, nil)
}

// Later is metadata known only after the rows are written: its keys, and
// the function that gives their values.
type Later struct {
	Keys []string
	Fill func() (Metadata, error)
}

// WriteJobsThen is WriteJobsWith whose metadata is completed once the rows
// are encoded: the keys of later get the values later.Fill returns then,
// so that computing them (a run's metrics) overlaps the encoding. The file
// is byte for byte the one WriteJobsWith writes with the whole metadata. A
// nil later adds nothing.
func WriteJobsThen(path string, rows []JobRow, x JobExtras, meta Metadata, later *Later) error {
	err := meta.validate()
	if err == nil {
		err = x.check(len(rows))
	}
	if err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	// The late keys are in the footer from the start, with empty values
	// replaced in place later: the pairs stay in sorted order.
	all := maps.Clone(meta)
	if later != nil {
		for _, k := range later.Keys {
			if _, dup := all[k]; dup {
				return fmt.Errorf("results: write %s: metadata key %q given early and late", path, k)
			}
			all[k] = ""
		}
	}
	return WriteFileAtomic(path, func(w io.Writer) error {
		if x.empty() {
			return writeJobsTo(w, rows, all, later)
		}
		return writeJobsExtraTo(w, rows, x, all, later)
	})
}

// fillLater sets the late metadata on a writer before it closes.
func fillLater(set func(k, v string), later *Later) error {
	if later == nil {
		return nil
	}
	m, err := later.Fill()
	if err != nil {
		return err
	}
	if err := m.validate(); err != nil {
		return err
	}
	for _, k := range later.Keys {
		v, ok := m[k]
		if !ok {
			return fmt.Errorf("metadata key %q was promised but not given", k)
		}
		set(k, v)
	}
	if len(m) != len(later.Keys) {
		return fmt.Errorf("late metadata holds %d keys, %d were promised", len(m), len(later.Keys))
	}
	return nil
}

// extraType is JobRow with the fields of x's columns appended (a struct
// type made with reflect, since the columns depend on the platform).
func extraType(x JobExtras) reflect.Type {
	jt := reflect.TypeFor[JobRow]()
	fields := make([]reflect.StructField, 0, jt.NumField()+len(x.Resources)+1)
	for i := range jt.NumField() {
		fields = append(fields, jt.Field(i))
	}
	for k, name := range x.Resources {
		fields = append(fields, reflect.StructField{Name: "Req" + strconv.Itoa(k), Type: reflect.TypeFor[int64](),
			Tag: reflect.StructTag("parquet:" + strconv.Quote(RequestColumn(name)))})
	}
	if x.HasUnits {
		fields = append(fields, reflect.StructField{Name: "Units", Type: reflect.TypeFor[string](),
			Tag: reflect.StructTag("parquet:" + strconv.Quote(UnitsColumn))})
	}
	if x.Nodes != nil {
		fields = append(fields, nodeFields(x.NodeCols)...)
	}
	if x.Grid != nil {
		gt := reflect.TypeFor[GridRow]()
		for i := range gt.NumField() {
			fields = append(fields, gt.Field(i))
		}
	}
	if x.Feedback != nil {
		ft := reflect.TypeFor[FeedbackRow]()
		for i := range ft.NumField() {
			fields = append(fields, ft.Field(i))
		}
	}
	if x.Outages != nil {
		ot := reflect.TypeFor[OutageRow]()
		for i := range ot.NumField() {
			fields = append(fields, ot.Field(i))
		}
	}
	if x.Power != nil {
		fields = append(fields, reflect.TypeFor[PowerRow]().Field(0))
	}
	if x.Notes != nil {
		fields = append(fields, notesFields(x.Notes)...)
	}
	return reflect.StructOf(fields)
}

// writeJobsExtraTo encodes a jobs file with extra columns to w.
func writeJobsExtraTo(w io.Writer, rows []JobRow, x JobExtras, meta Metadata, later *Later) error {
	t := extraType(x)
	// The root keeps JobRow's name, as in files without extra columns.
	schema := parquet.NewSchema(parquet.SchemaOf(JobRow{}).Name(), parquet.SchemaOf(reflect.Zero(t).Interface()))
	pw := parquet.NewWriter(w, append(writerOptions(meta), schema)...)
	nj := reflect.TypeFor[JobRow]().NumField()
	nodeCount := len(nodeFields(x.NodeCols))
	v := reflect.New(t).Elem()
	for i := range rows {
		jv := reflect.ValueOf(rows[i])
		for f := range nj {
			v.Field(f).Set(jv.Field(f))
		}
		for k := range x.Resources {
			v.Field(nj + k).SetInt(x.Requests[k][i])
		}
		next := nj + len(x.Resources)
		if x.HasUnits {
			v.Field(next).SetString(x.Units[i])
			next++
		}
		if x.Nodes != nil {
			setNodeFields(v, next, &x.Nodes[i], x.NodeCols)
			next += nodeCount
		}
		if x.Grid != nil {
			gv := reflect.ValueOf(x.Grid[i])
			for f := range gv.NumField() {
				v.Field(next + f).Set(gv.Field(f))
			}
			next += gv.NumField()
		}
		if x.Feedback != nil {
			fv := reflect.ValueOf(x.Feedback[i])
			for f := range fv.NumField() {
				v.Field(next + f).Set(fv.Field(f))
			}
			next += fv.NumField()
		}
		if x.Outages != nil {
			ov := reflect.ValueOf(x.Outages[i])
			for f := range ov.NumField() {
				v.Field(next + f).Set(ov.Field(f))
			}
			next += ov.NumField()
		}
		if x.Power != nil {
			v.Field(next).SetFloat(x.Power[i].Energy)
			next++
		}
		if x.Notes != nil {
			setNotes(v, next, x.Notes, i)
		}
		if err := pw.Write(v.Addr().Interface()); err != nil {
			return fmt.Errorf("write row %d: %w", i, err)
		}
	}
	if err := fillLater(pw.SetKeyValueMetadata, later); err != nil {
		return err
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("finish file: %w", err)
	}
	return nil
}

// writeJobsTo encodes a whole jobs file to w; it is split from WriteJobs so
// tests can inject a failing writer.
func writeJobsTo(w io.Writer, rows []JobRow, meta Metadata, later *Later) error {
	pw := parquet.NewGenericWriter[JobRow](w, writerOptions(meta)...)
	// Write in slices of one row group: parquet-go flushes a row group when
	// it reaches MaxRowsPerRowGroup, and smaller calls keep its error close
	// to the rows that caused it.
	for len(rows) > 0 {
		n := min(len(rows), MaxRowsPerRowGroup)
		if _, err := pw.Write(rows[:n]); err != nil {
			return fmt.Errorf("write rows: %w", err)
		}
		rows = rows[n:]
	}
	if err := fillLater(pw.SetKeyValueMetadata, later); err != nil {
		return err
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("finish file: %w", err)
	}
	return nil
}

// ReadJobs reads a jobs file written by WriteJobs: its rows, in order, and
// its footer metadata.
func ReadJobs(path string) ([]JobRow, Metadata, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	// parquet-go maps columns by name and fills missing ones with zeros, so
	// without this check any Parquet file would "read" as jobs.
	if _, err := jobColumns(pf.Schema()); err != nil {
		return nil, nil, fmt.Errorf("results: read %s: not a jobs file: %w", path, err)
	}
	rows, err := readRows[JobRow](pf)
	if err != nil {
		return nil, nil, fmt.Errorf("results: read %s: %w", path, err)
	}
	return rows, metadataOf(pf), nil
}

// readRows reads every row of pf as T's, checking that as many came as
// its footer says.
func readRows[T any](pf *parquet.File) ([]T, error) {
	rows := make([]T, pf.NumRows())
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	n := 0
	for n < len(rows) {
		k, err := r.Read(rows[n:])
		n += k
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", n, err)
		}
		if k == 0 {
			break // no progress and no error: do not spin
		}
	}
	if n != len(rows) {
		return nil, fmt.Errorf("got %d rows, footer says %d", n, len(rows))
	}
	return rows, nil
}

// ReadJobsWith reads a jobs file like ReadJobs, with its extra columns
// (JobExtras; empty for a file without them).
func ReadJobsWith(path string) ([]JobRow, JobExtras, Metadata, error) {
	rows, meta, err := ReadJobs(path)
	if err != nil {
		return nil, JobExtras{}, nil, err
	}
	fb, err := readFeedback(path, len(rows))
	if err != nil {
		return nil, JobExtras{}, nil, err
	}
	ob, err := readOutages(path, len(rows))
	if err != nil {
		return nil, JobExtras{}, nil, err
	}
	pb, err := readPower(path, len(rows))
	if err != nil {
		return nil, JobExtras{}, nil, err
	}
	nb, err := readNotes(path, len(rows))
	if err != nil {
		return nil, JobExtras{}, nil, err
	}
	var x JobExtras
	if x, err = readNodeExtras(path, len(rows)); err != nil || x.Nodes != nil {
		x.Feedback, x.Outages, x.Power, x.Notes = fb, ob, pb, nb
		return rows, x, meta, err
	}
	x.Feedback, x.Outages, x.Power, x.Notes = fb, ob, pb, nb
	if only, err := trailingOnly(path); err != nil || only {
		// Without request, units or grid columns there is nothing more
		// to read.
		return rows, x, meta, err
	}
	if nb != nil {
		// ReadTable reads no list (the notes' reasons).
		err := readPrefixExtras(path, len(rows), &x)
		return rows, x, meta, err
	}
	cols, table, _, err := ReadTable(path)
	if err != nil {
		return nil, JobExtras{}, nil, err
	}
	if len(table) != len(rows) {
		return nil, JobExtras{}, nil, fmt.Errorf("results: read %s: %d rows, then %d", path, len(rows), len(table))
	}
	nj := reflect.TypeFor[JobRow]().NumField()
	for c := nj; c < len(cols); c++ {
		if cols[c].Name == feedbackFirstColumn || cols[c].Name == outageFirstColumn || cols[c].Name == powerFirstColumn ||
			strings.HasPrefix(cols[c].Name, NotePrefix) {
			break
		}
		if cols[c].Name == gridFirstColumn {
			x.Grid = readGrid(table, c)
			break
		}
		if cols[c].Name == UnitsColumn {
			x.HasUnits = true
			x.Units = make([]string, len(table))
			for i, row := range table {
				x.Units[i], _ = row[c].(string)
			}
			continue
		}
		x.Resources = append(x.Resources, strings.TrimPrefix(cols[c].Name, "req_"))
		vals := make([]int64, len(table))
		for i, row := range table {
			vals[i], _ = row[c].(int64)
		}
		x.Requests = append(x.Requests, vals)
	}
	return rows, x, meta, nil
}

// feedbackFirstColumn is the first of FeedbackRow's columns, which come
// last.
const feedbackFirstColumn = "trace_submit"

// readFeedback reads FeedbackRow's columns of a jobs file; nil for a file
// without them.
func readFeedback(path string, rows int) ([]FeedbackRow, error) {
	return readGroup[FeedbackRow](path, rows, feedbackFirstColumn, "feedback")
}

// readGroup reads a group of columns of a jobs file, T's, by name, which
// a file has when it has the group's first column first; nil for a file
// without them. what names the group in errors.
func readGroup[T any](path string, rows int, first, what string) ([]T, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !slices.ContainsFunc(pf.Schema().Fields(), func(f parquet.Field) bool { return f.Name() == first }) {
		return nil, nil
	}
	out := make([]T, rows)
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	n := 0
	for n < rows {
		k, err := r.Read(out[n:])
		n += k
		if err != nil {
			if errors.Is(err, io.EOF) && n == rows {
				break
			}
			return nil, fmt.Errorf("results: read %s: %s columns: %w", path, what, err)
		}
	}
	return out, nil
}

// gridFirstColumn is the first of GridRow's columns.
const gridFirstColumn = "home"

// readGrid reads GridRow's columns from column c on of a table read by
// ReadTable.
func readGrid(table [][]any, c int) []GridRow {
	out := make([]GridRow, len(table))
	f := func(v any) *float64 {
		if x, ok := v.(float64); ok {
			return &x
		}
		return nil
	}
	i := func(v any) *int64 {
		if x, ok := v.(int64); ok {
			return &x
		}
		return nil
	}
	for k, row := range table {
		g := &out[k]
		g.Home, _ = row[c].(int64)
		g.Priority, g.Payment, g.Cost = f(row[c+1]), f(row[c+2]), f(row[c+3])
		g.ShipTime, g.ReservedAt = i(row[c+4]), i(row[c+5])
		g.Refusals, _ = row[c+6].(int64)
		g.Rejected, _ = row[c+7].(bool)
	}
	return out
}

// jobColumns checks that a file has JobRow's columns, in order, with the
// same physical types and nullability, then possibly the extra columns of
// JobExtras (req_NAME int64 columns, then a units string column, then
// GridRow's columns), and returns the number of extra columns.
func jobColumns(got parquet.Node) (int, error) {
	want := parquet.SchemaOf(JobRow{})
	n := len(want.Fields())
	gf := got.Fields()
	if len(gf) < n {
		return 0, sameColumns(got, want)
	}
	extra := len(gf) - n
	if k := notesStart(gf, n); k >= 0 {
		if _, _, err := checkNoteColumns(gf[k:]); err != nil {
			return 0, err
		}
		gf = gf[:k]
	}
	if k := slices.IndexFunc(gf[n:], func(f parquet.Field) bool { return f.Name() == powerFirstColumn }); k >= 0 {
		if err := sameFields(gf[n+k:], parquet.SchemaOf(PowerRow{}).Fields()); err != nil || len(gf[n+k:]) != 1 {
			return 0, fmt.Errorf("power columns %v: want one, energy (DOUBLE)", gf[n+k:])
		}
		gf = gf[:n+k]
	}
	if k := slices.IndexFunc(gf[n:], func(f parquet.Field) bool { return f.Name() == outageFirstColumn }); k >= 0 {
		if err := checkOutageColumns(gf[n+k:]); err != nil {
			return 0, err
		}
		gf = gf[:n+k]
	}
	if k := slices.IndexFunc(gf[n:], func(f parquet.Field) bool { return f.Name() == feedbackFirstColumn }); k >= 0 {
		fb := parquet.SchemaOf(FeedbackRow{}).Fields()
		if len(gf[n+k:]) != len(fb) {
			return 0, fmt.Errorf("%d feedback columns, want %d", len(gf[n+k:]), len(fb))
		}
		if err := sameFields(gf[n+k:], fb); err != nil {
			return 0, err
		}
		gf = gf[:n+k]
	}
	if k := slices.IndexFunc(gf[n:], func(f parquet.Field) bool { return f.Name() == nodeFirstColumn }); k >= 0 {
		if _, err := checkNodeColumns(gf[n+k:]); err != nil {
			return 0, err
		}
		gf = gf[:n+k]
	}
	if k := slices.IndexFunc(gf[n:], func(f parquet.Field) bool { return f.Name() == gridFirstColumn }); k >= 0 {
		grid := parquet.SchemaOf(GridRow{}).Fields()
		if len(gf[n+k:]) != len(grid) {
			return 0, fmt.Errorf("%d grid columns, want %d", len(gf[n+k:]), len(grid))
		}
		if err := sameFields(gf[n+k:], grid); err != nil {
			return 0, err
		}
		gf = gf[:n+k]
	}
	for i, f := range gf[n:] {
		kind := parquet.Int64
		last := i == len(gf)-n-1
		switch {
		case last && f.Name() == UnitsColumn:
			kind = parquet.ByteArray
		case !strings.HasPrefix(f.Name(), "req_") || len(f.Name()) == len("req_"):
			return 0, fmt.Errorf("column %q is not a request (req_NAME) or the %s column", f.Name(), UnitsColumn)
		}
		if !f.Leaf() || f.Repeated() || f.Optional() || f.Type().Kind() != kind {
			return 0, fmt.Errorf("column %q is %s (optional %t), want a required %s", f.Name(), f.Type().Kind(), f.Optional(), kind)
		}
	}
	return extra, sameFields(gf[:n], want.Fields())
}

// sameColumns checks that a file has exactly the wanted top-level columns,
// in order, with the same physical type and nullability.
func sameColumns(got, want parquet.Node) error {
	gf, wf := got.Fields(), want.Fields()
	if len(gf) != len(wf) {
		return fmt.Errorf("%d columns, want %d", len(gf), len(wf))
	}
	return sameFields(gf, wf)
}

func sameFields(gf, wf []parquet.Field) error {
	for i, w := range wf {
		g := gf[i]
		switch {
		case g.Name() != w.Name():
			return fmt.Errorf("column %d is %q, want %q", i, g.Name(), w.Name())
		case !g.Leaf() || g.Repeated():
			return fmt.Errorf("column %q is nested or repeated", g.Name())
		case g.Type().Kind() != w.Type().Kind():
			return fmt.Errorf("column %q is %s, want %s", g.Name(), g.Type().Kind(), w.Type().Kind())
		case g.Optional() != w.Optional():
			return fmt.Errorf("column %q: optional is %t, want %t", g.Name(), g.Optional(), w.Optional())
		}
	}
	return nil
}

// readNodeExtras reads the extra columns of a jobs file of a platform of
// nodes (its request columns and NodeRow's), which ReadTable cannot read
// (its lists); a file without node columns gives an empty JobExtras.
func readNodeExtras(path string, rows int) (JobExtras, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return JobExtras{}, err
	}
	defer f.Close()
	gf := pf.Schema().Fields()
	// The feedback and outage columns come last; readFeedback and
	// readOutages read them.
	gf = gf[:lastGroup(gf, 0)]
	k := slices.IndexFunc(gf, func(f parquet.Field) bool { return f.Name() == nodeFirstColumn })
	if k < 0 {
		return JobExtras{}, nil
	}
	var x JobExtras
	if x.NodeCols, err = checkNodeColumns(gf[k:]); err != nil {
		return JobExtras{}, fmt.Errorf("results: read %s: %w", path, err)
	}
	nj := reflect.TypeFor[JobRow]().NumField()
	reqs := gf[nj:k]
	// A burst buffer divided into units beside the nodes: its placement
	// column follows the requests.
	if n := len(reqs); n > 0 && reqs[n-1].Name() == UnitsColumn {
		reqs = reqs[:n-1]
		x.HasUnits, x.Units = true, make([]string, rows)
	}
	for _, f := range reqs {
		x.Resources = append(x.Resources, strings.TrimPrefix(f.Name(), "req_"))
		x.Requests = append(x.Requests, make([]int64, rows))
	}
	if x.Nodes, err = readNodes(pf); err != nil {
		return JobExtras{}, fmt.Errorf("results: read %s: %w", path, err)
	}
	if len(x.Resources) > 0 || x.HasUnits {
		// The request and units columns, by a reader of a struct of them
		// alone.
		var fields []reflect.StructField
		for i, name := range x.Resources {
			fields = append(fields, reflect.StructField{Name: "Req" + strconv.Itoa(i), Type: reflect.TypeFor[int64](),
				Tag: reflect.StructTag("parquet:" + strconv.Quote(RequestColumn(name)))})
		}
		if x.HasUnits {
			fields = append(fields, reflect.StructField{Name: "Units", Type: reflect.TypeFor[string](),
				Tag: reflect.StructTag("parquet:" + strconv.Quote(UnitsColumn))})
		}
		t := reflect.StructOf(fields)
		r := parquet.NewReader(pf, parquet.SchemaOf(reflect.Zero(t).Interface()))
		defer r.Close()
		v := reflect.New(t)
		for i := range rows {
			if err := r.Read(v.Interface()); err != nil {
				return JobExtras{}, fmt.Errorf("results: read %s: row %d: %w", path, i, err)
			}
			for c := range x.Resources {
				x.Requests[c][i] = v.Elem().Field(c).Int()
			}
			if x.HasUnits {
				x.Units[i] = v.Elem().Field(len(x.Resources)).String()
			}
		}
	}
	return x, nil
}
