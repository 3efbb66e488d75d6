package results

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
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
// Beware that end, user and group are SQL keywords: DuckDB needs them
// quoted, as in SELECT "end", "user", "group" FROM 'jobs.parquet'.
type JobRow struct {
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

// WriteJobs atomically writes rows, in order, and meta to a jobs file at
// path, replacing any file there.
func WriteJobs(path string, rows []JobRow, meta Metadata) error {
	if err := meta.validate(); err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	return WriteFileAtomic(path, func(w io.Writer) error {
		return writeJobsTo(w, rows, meta)
	})
}

// writeJobsTo encodes a whole jobs file to w; it is split from WriteJobs so
// tests can inject a failing writer.
func writeJobsTo(w io.Writer, rows []JobRow, meta Metadata) error {
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
	if err := sameColumns(pf.Schema(), parquet.SchemaOf(JobRow{})); err != nil {
		return nil, nil, fmt.Errorf("results: read %s: not a jobs file: %w", path, err)
	}

	rows := make([]JobRow, pf.NumRows())
	r := parquet.NewGenericReader[JobRow](pf)
	defer r.Close()
	n := 0
	for n < len(rows) {
		k, err := r.Read(rows[n:])
		n += k
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("results: read %s: row %d: %w", path, n, err)
		}
		if k == 0 {
			break // no progress and no error: do not spin
		}
	}
	if n != len(rows) {
		return nil, nil, fmt.Errorf("results: read %s: got %d rows, footer says %d", path, n, len(rows))
	}
	return rows, metadataOf(pf), nil
}

// sameColumns checks that a file has exactly the wanted top-level columns,
// in order, with the same physical type and nullability.
func sameColumns(got, want parquet.Node) error {
	gf, wf := got.Fields(), want.Fields()
	if len(gf) != len(wf) {
		return fmt.Errorf("%d columns, want %d", len(gf), len(wf))
	}
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
