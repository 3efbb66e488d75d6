package metrics

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// OutageKeys returns the JSON names of the metrics of a run with outages of
// nodes (Summary.Outages), left out of every other run's summary.
func OutageKeys() []string {
	return []string{"attempts", "interrupted_jobs", "failed_jobs", "lost_core_seconds", "availability",
		"available_core_utilisation", "goodput", "requeue_wait_mean"}
}

// AddOutages fills the metrics of a run with outages of nodes into sum
// (computed by Compute and AddNodes from the same records), over the span
// of Utilisation (the makespan, from the first submission):
//
//   - attempts: the runs of jobs that outages ended; interrupted_jobs the
//     jobs with at least one; failed_jobs those an outage ended for good
//     (on_failure = kill);
//   - lost_core_seconds: the cores those runs held times their lengths,
//     less the work their checkpoints kept;
//   - availability: the node-seconds of the span during which a node was
//     in service (neither failed nor in maintenance; a draining node is in
//     service), over the nodes times the span;
//   - available_core_utilisation: the cores held by every run, those that
//     outages ended included, times their lengths, over the core-seconds
//     in service;
//   - goodput: the useful work of the jobs that ran to their end (the
//     cores they held times their runtime, to their walltime, whatever
//     their checkpoints and restarts cost) over the core-seconds in
//     service;
//   - requeue_wait_mean: over the jobs requeued that ran to their end, the
//     mean of the time they waited again, from the end of each run an
//     outage ended to their next start; null when no job was requeued.
//
// It does nothing on a platform without nodes or an empty run.
func AddOutages(sum *Summary, p *sdk.Platform, jobs []sim.Input, res *sim.Result, outs []sdk.Outage) {
	if !p.HasNodes() || res.Allocs == nil || len(res.Records) == 0 || sum.Makespan <= 0 {
		return
	}
	sum.Outages = true
	l := sdk.NewLayout(p, 0)
	from := jobs[0].Job.Submit
	to := from + sum.Makespan
	// Out of service, node by node: the union of its failures and
	// maintenance windows, within the span.
	type span struct{ s, e int64 }
	down := make([][]span, l.Len())
	for _, o := range outs {
		if o.Kind == sdk.Drain {
			continue
		}
		s, e := max(o.Start, from), min(o.End, to)
		if s >= e {
			continue
		}
		for k := range o.All(int32(l.Len())) {
			down[k] = append(down[k], span{s, e})
		}
	}
	var inService, nodeUp float64
	for k, ds := range down {
		slices.SortFunc(ds, func(a, b span) int { return cmp.Compare(a.s, b.s) })
		var out int64
		end := int64(-1 << 62)
		for _, d := range ds {
			if d.e <= end {
				continue
			}
			out += d.e - max(d.s, end)
			end = d.e
		}
		upFor := float64(sum.Makespan - out)
		nodeUp += upFor
		inService += float64(l.Cap(k).Cores) * upFor
	}
	sum.Availability = nodeUp / (float64(l.Len()) * float64(sum.Makespan))
	// The runs outages ended: their cores, the work lost and kept, and
	// each job's, in the order they ended.
	var used, good, lost float64
	saved := map[int32]int64{}
	byJob := map[int32][]sim.Attempt{}
	for x, a := range res.Attempts {
		h := float64(HeldCores(l, jobs[a.Index].Job.Tasks, res.AttemptAllocs.Of(x)))
		used += h * float64(a.End-a.Start)
		lost += h * float64(a.End-a.Start-a.Saved)
		saved[a.Index] += a.Saved
		byJob[a.Index] = append(byJob[a.Index], a)
	}
	for i := range res.Records {
		r := &res.Records[i]
		if r.Rejected {
			continue
		}
		if r.Interrupted != 0 {
			sum.FailedJobs++
			continue // its last run is one of the attempts
		}
		h := float64(HeldCores(l, jobs[i].Job.Tasks, res.Allocs.Of(i)))
		used += h * float64(r.End-r.Start)
		// The useful work: the job's runtime (to its walltime), not its
		// checkpoints' cost nor its restarts.
		good += h * float64(min(jobs[i].Runtime, jobs[i].Job.Walltime, r.End-r.Start+saved[int32(i)]))
	}
	// The wait after each attempt of a requeued job: to its next
	// attempt's start, or to its last start.
	var requeued, waited int64
	for i, as := range byJob {
		r := &res.Records[i]
		if r.Interrupted != 0 {
			continue
		}
		requeued++
		for n, a := range as {
			next := r.Start
			if n+1 < len(as) {
				next = as[n+1].Start
			}
			waited += next - a.End
		}
	}
	sum.Attempts = len(res.Attempts)
	sum.InterruptedJobs = len(byJob)
	sum.LostCoreSeconds = lost
	if inService > 0 {
		sum.AvailableCoreUtil = used / inService
		sum.Goodput = good / inService
	}
	if requeued > 0 {
		m := float64(waited) / float64(requeued)
		sum.RequeueWaitMean = &m
	}
}

// HeldCores returns the cores a job of tasks t holds on allocation a: all
// of its nodes' for an exclusive job.
func HeldCores(l *sdk.Layout, t *sdk.Tasks, a sdk.Alloc) int64 {
	var n int64
	for k, node := range a.Nodes {
		n += l.Held(t, node, a.Tasks[k]).Cores
	}
	return n
}
