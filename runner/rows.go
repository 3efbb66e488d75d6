package runner

import (
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/sdk/sim"
)

// JobRows turns a verified run into the rows of its jobs file, in job index
// (submit) order.
func JobRows(jobs []sim.Input, recs []sim.Record) []results.JobRow {
	rows := make([]results.JobRow, len(recs))
	for i := range recs {
		r, j := &recs[i], &jobs[i].Job
		row := &rows[i]
		*row = results.JobRow{
			JobID: j.ID, Submit: j.Submit, Start: r.Start, End: r.End,
			Wait: r.Start - j.Submit, Runtime: r.End - r.Start, Walltime: j.Walltime,
			Procs: j.Request[0], Cluster: int64(r.Cluster), Killed: r.Killed, Backfilled: r.Backfilled,
			User: int64(j.User), Group: int64(j.Group), App: int64(j.App), Queue: int64(j.Queue), Partition: int64(j.Partition),
		}
		if r.HasPromise {
			p := r.Promised
			row.PromisedStart = &p
		}
	}
	return rows
}
