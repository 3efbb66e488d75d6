package runner

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// JobRows turns a verified run into the rows of its jobs file, in job index
// (submit) order.
func JobRows(jobs []sim.Input, recs []sim.Record) []results.JobRow {
	rows := make([]results.JobRow, len(recs))
	// A job that depends on another was submitted during the run: its
	// submit and wait are the simulated submission's (the trace's time is
	// in the feedback columns, JobExtras).
	jobs = AsSubmitted(jobs, recs)
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
// job); on a platform of nodes, its tasks and allocation (from allocs,
// sim.Result.Allocs); on a grid (grid set, for a workload of streams, or
// what metrics.IsGrid says), the grid columns from recs. It is empty on a
// platform of one cluster of processors only.
func JobExtras(plat *sdk.Platform, jobs []sim.Input, recs []sim.Record, units []int32, allocs *sim.Allocs, grid bool) results.JobExtras {
	var x results.JobExtras
	if plat.HasNodes() && allocs != nil {
		x.Nodes, x.NodeCols = NodeRows(plat, jobs, allocs)
	}
	if grid || metrics.IsGrid(plat, jobs) {
		x.Grid = GridRows(jobs, recs)
	}
	x.Feedback = FeedbackRows(jobs)
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

// NodeRows returns the node columns of each job of a run on a platform of
// nodes (results.NodeRow): its tasks, and what it held on each node of its
// allocation.
func NodeRows(plat *sdk.Platform, jobs []sim.Input, allocs *sim.Allocs) ([]results.NodeRow, results.NodeColumns) {
	l := sdk.NewLayout(plat, 0)
	cols := results.NodeColumns{Memory: plat.Resource(sdk.Memory) >= 0, GPUs: plat.Resource(sdk.GPUs) >= 0}
	// By sdk.Tasks.Partition: 0 is the default partition (the one marked
	// so, else the first; none without partitions).
	parts := []string{""}
	for k, pt := range plat.Clusters[0].Partitions {
		parts = append(parts, pt.Name)
		if k == 0 || pt.Default {
			parts[0] = pt.Name
		}
	}
	out := make([]results.NodeRow, len(jobs))
	for i := range jobs {
		t := jobs[i].Job.Tasks
		if t == nil {
			continue
		}
		r := &out[i]
		r.Tasks, r.TaskCores, r.TaskMemory, r.TaskGPUs = int64(t.Count), int64(t.Cores), t.Memory, int64(t.GPUs)
		r.NodeCount, r.Exclusive = int64(t.Nodes), t.Exclusive
		if int(t.Partition) < len(parts) {
			r.NodePartition = parts[t.Partition]
		}
		a := allocs.Of(i)
		r.AllocNodes = a.Nodes
		r.AllocCores = make([]int32, len(a.Nodes))
		if cols.Memory {
			r.AllocMemory = make([]int64, len(a.Nodes))
		}
		if cols.GPUs {
			r.AllocGPUs = make([]int32, len(a.Nodes))
		}
		for k, n := range a.Nodes {
			h := l.Held(t, n, a.Tasks[k])
			r.AllocCores[k] = int32(h.Cores)
			if cols.Memory {
				r.AllocMemory[k] = h.Memory
			}
			if cols.GPUs {
				r.AllocGPUs[k] = int32(h.GPUs)
			}
		}
	}
	return out, cols
}

// NodeNumbering describes how a platform's nodes are numbered: each node
// group with the range of its indexes, "thin:0-5039,fat:5040-5399", the
// jobs file's nodes.numbering metadata.
func NodeNumbering(plat *sdk.Platform) string {
	var b []byte
	first := 0
	for k, g := range plat.Clusters[0].Nodes {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, g.Name...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(first), 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(first+g.Count-1), 10)
		first += g.Count
	}
	return string(b)
}

// HasDependencies reports whether a job of jobs depends on another
// (sim.Input.After): a run of a workload with feedback.
func HasDependencies(jobs []sim.Input) bool {
	return slices.ContainsFunc(jobs, func(in sim.Input) bool { return in.After != 0 })
}

// AsSubmitted returns jobs as they were submitted in the run whose
// verified records are recs: a job that depends on another with its
// Job.Submit its simulated submission (verify.Submitted). Without
// dependencies it returns jobs itself; otherwise copies, which share the
// jobs' requests.
func AsSubmitted(jobs []sim.Input, recs []sim.Record) []sim.Input {
	if !HasDependencies(jobs) {
		return jobs
	}
	sub, err := verify.Submitted(jobs, recs)
	if err != nil {
		// The records were verified, which checks what Submitted needs.
		panic(fmt.Sprintf("runner: submissions of verified records: %v", err))
	}
	out := slices.Clone(jobs)
	for i := range out {
		out[i].Job.Submit = sub[i]
	}
	return out
}

// FeedbackRows returns the feedback columns of a jobs file (trace submit,
// predecessor's index and think time) for jobs with their trace submit
// times; nil when no job depends on another, so that a replay's file keeps
// its columns.
func FeedbackRows(jobs []sim.Input) []results.FeedbackRow {
	if !HasDependencies(jobs) {
		return nil
	}
	out := make([]results.FeedbackRow, len(jobs))
	for i := range jobs {
		in := &jobs[i]
		out[i].TraceSubmit = in.Job.Submit
		if in.After != 0 {
			after, think := int64(in.After-1), in.Think
			out[i].AfterIndex, out[i].ThinkTime = &after, &think
		}
	}
	return out
}

// OutageRows returns the outage columns of a jobs file (results.OutageRow)
// for the outcome of a run with outages of nodes on plat; nil for a run
// without, so that its file keeps its columns.
func OutageRows(plat *sdk.Platform, jobs []sim.Input, out *Outcome) []results.OutageRow {
	if !out.Outages {
		return nil
	}
	rows := make([]results.OutageRow, len(jobs))
	for i := range rows {
		r := &out.Records[i]
		rows[i].Attempts = r.Attempts
		if r.Interrupted != 0 {
			s := r.Interrupted.String()
			rows[i].Interrupted = &s
		}
	}
	l := sdk.NewLayout(plat, 0)
	for x, a := range out.Attempts {
		row := &rows[a.Index]
		row.AttemptStarts = append(row.AttemptStarts, a.Start)
		row.AttemptEnds = append(row.AttemptEnds, a.End)
		row.AttemptCauses = append(row.AttemptCauses, a.Cause.String())
		row.AttemptNodes = append(row.AttemptNodes, a.Node)
		row.AttemptSaved = append(row.AttemptSaved, a.Saved)
		row.LostCoreSeconds += metrics.HeldCores(l, jobs[a.Index].Job.Tasks, out.AttemptAllocs.Of(x)) * (a.End - a.Start - a.Saved)
	}
	return rows
}

// PowerRows returns the energy column of a jobs file (results.PowerRow)
// for the outcome of a run with power model m on plat, and, when some node
// group has a busy power table, the counts of the jobs its sharing rule
// touched (nil without); nil rows for a run without a model, so that its
// file keeps its columns.
func PowerRows(plat *sdk.Platform, m *sdk.Power, jobs []sim.Input, out *Outcome) ([]results.PowerRow, *metrics.TableCounts) {
	if m == nil || out.Power == nil || out.Allocs == nil {
		return nil, nil
	}
	l := sdk.NewLayout(plat, 0)
	own, table, counts := metrics.RunEnergy(l, m.Groups[0], jobs, metrics.Runs(out.Records, out.Allocs, out.Attempts, out.AttemptAllocs))
	rows := make([]results.PowerRow, len(jobs))
	for i := range rows {
		rows[i].Energy = own[i]
		if table != nil {
			rows[i].Energy += table[i]
		}
	}
	return rows, counts
}

// PowerSteps returns the rows of the power file (results.PowerStepRow) of
// the outcome of a run with a power model; nil for a run without.
func PowerSteps(out *Outcome) []results.PowerStepRow {
	if out.Power == nil {
		return nil
	}
	rows := make([]results.PowerStepRow, len(out.PowerSteps))
	for i, s := range out.PowerSteps {
		r := &rows[i]
		r.Start, r.End = s.From, s.To
		r.Watts = s.Watts()
		r.StaticWatts, r.DynamicWatts, r.OffWatts, r.SwitchingWatts = s.Static, s.Dynamic, s.Off, s.Switching
		if s.Cap > 0 {
			r.CapWatts = &s.Cap
		}
		r.NodesOn, r.NodesOff = s.Nodes[sdk.NodeOn], s.Nodes[sdk.NodeOff]
		r.NodesSwitchingOn, r.NodesSwitchingOff = s.Nodes[sdk.NodeSwitchingOn], s.Nodes[sdk.NodeSwitchingOff]
		r.CoresInUse = s.Cores
	}
	return rows
}

// ExtendRequests copies jobs with each request extended with zeros to dims
// entries: the jobs of a trace on a platform of more resources than
// processors, before a transform fills them.
func ExtendRequests(jobs []sim.Input, dims int) []sim.Input {
	out := slices.Clone(jobs)
	flat := make(sdk.Vector, len(jobs)*dims)
	for i := range out {
		r := flat[i*dims : (i+1)*dims : (i+1)*dims]
		copy(r, out[i].Job.Request)
		out[i].Job.Request = r
	}
	return out
}
