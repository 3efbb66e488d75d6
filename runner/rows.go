package runner

import (
	"strconv"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
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

// JobExtras returns the jobs file's columns beyond JobRow's for a run on
// plat (see results.JobExtras): each job's request of every resource
// besides processors; when a cluster has divided resources, its
// placement from units (sim.Result.Units, plat.UnitStride() counts per
// job); on a grid (grid set, for a workload of streams, or what
// metrics.IsGrid says), the grid columns from recs. It is empty on a
// platform of one cluster of processors only.
func JobExtras(plat *sdk.Platform, jobs []sim.Input, recs []sim.Record, units []int32, grid bool) results.JobExtras {
	var x results.JobExtras
	if grid || metrics.IsGrid(plat, jobs) {
		x.Grid = GridRows(jobs, recs)
	}
	for k, name := range plat.Resources[1:] {
		vals := make([]int64, len(jobs))
		for i := range jobs {
			if r := jobs[i].Job.Request; len(r) > k+1 {
				vals[i] = r[k+1]
			}
		}
		x.Resources = append(x.Resources, name)
		x.Requests = append(x.Requests, vals)
	}
	stride := plat.UnitStride()
	if stride == 0 {
		return x
	}
	x.HasUnits = true
	x.Units = make([]string, len(jobs))
	var b []byte
	for i := range jobs {
		b = b[:0]
		for u := range stride {
			if u > 0 {
				b = append(b, ',')
			}
			var n int32
			if k := i*stride + u; k < len(units) {
				n = units[k]
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		x.Units[i] = string(b)
	}
	return x
}

// GridRows returns the grid columns of each job (results.GridRow).
func GridRows(jobs []sim.Input, recs []sim.Record) []results.GridRow {
	out := make([]results.GridRow, len(recs))
	for i := range recs {
		r, j := &recs[i], &jobs[i].Job
		g := &out[i]
		g.Home, g.Refusals, g.Rejected = int64(j.Home)-1, int64(r.Refusals), r.Rejected
		p := j.Priority
		if j.Home > 0 {
			g.Priority = &p
		} else {
			g.Payment = &p
		}
		if r.Charged {
			c := r.Cost
			g.Cost = &c
		}
		if r.Shipped {
			t := r.ShipTime
			g.ShipTime = &t
		}
		if r.Reserved {
			t := r.ReservedAt
			g.ReservedAt = &t
		}
	}
	return out
}
