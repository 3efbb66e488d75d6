// Package export writes a run's jobs in the formats the field's other
// tools read: Batsim's jobs.csv, which evalys takes, and SWF with the
// simulated waits, which any SWF reader takes.
package export

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/results/layout"
	"github.com/schedlab/schedlab/workload/swf"
)

// BatsimColumns are the columns of Batsim's jobs.csv (docs/output-jobs.rst
// of Batsim 4), in its order.
var BatsimColumns = []string{"job_id", "workload_name", "profile", "submission_time",
	"requested_number_of_resources", "requested_time", "success", "final_state",
	"starting_time", "execution_time", "finish_time", "waiting_time", "turnaround_time",
	"stretch", "allocated_resources", "consumed_energy", "metadata"}

// Resources says what Batsim's resources are in an export.
type Resources int

const (
	// Lanes are the layout's lanes: processors of a pool, cores of nodes.
	Lanes Resources = iota
	// Hosts are nodes, as Batsim's resources are on a platform of nodes;
	// on a pool they are processors, as for Lanes.
	Hosts
)

// Batsim writes the run as Batsim's jobs.csv: one row per job, in the jobs
// file's order, times with six decimals as Batsim prints them.
//
// Where the two models differ: every job is "delay" profile (it runs its
// recorded runtime); a job killed at its walltime is COMPLETED_WALLTIME_REACHED
// with success 0; a job rejected by its policy is REJECTED with empty times;
// stretch is empty for a job of zero runtime (Batsim would divide by
// zero); consumed_energy is -1, as Batsim without its energy plugin.
func Batsim(w io.Writer, r *layout.Run, l *layout.Layout, res Resources) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(strings.Join(BatsimColumns, ","))
	bw.WriteByte('\n')
	name := csvField(r.WorkloadName())
	var b []byte
	for i, j := range r.Jobs {
		rejected := r.Extras.Grid != nil && r.Extras.Grid[i].Rejected
		n := j.Procs
		alloc := layout.String(l.Spans[i])
		if res == Hosts && r.Extras.Nodes != nil {
			n = int64(len(r.Extras.Nodes[i].AllocNodes))
			alloc = hostString(r.Extras.Nodes[i].AllocNodes)
		}
		b = b[:0]
		b = strconv.AppendInt(b, j.JobID, 10)
		b = append(b, ',')
		b = append(b, name...)
		b = append(b, ",delay,"...)
		b = seconds(b, j.Submit)
		b = append(b, ',')
		b = strconv.AppendInt(b, n, 10)
		b = append(b, ',')
		b = seconds(b, j.Walltime)
		switch {
		case rejected:
			b = append(b, ",0,REJECTED,,,,,,,"...)
			b = append(b, alloc...)
			b = append(b, ",,\n"...)
			bw.Write(b)
			continue
		case j.Killed:
			b = append(b, ",0,COMPLETED_WALLTIME_REACHED,"...)
		default:
			b = append(b, ",1,COMPLETED_SUCCESSFULLY,"...)
		}
		run := j.End - j.Start
		for _, v := range []int64{j.Start, run, j.End, j.Start - j.Submit, j.End - j.Submit} {
			b = seconds(b, v)
			b = append(b, ',')
		}
		if run > 0 {
			b = strconv.AppendFloat(b, float64(j.End-j.Submit)/float64(run), 'f', 6, 64)
		}
		b = append(b, ',')
		b = append(b, alloc...)
		b = append(b, ",-1,\n"...)
		bw.Write(b)
	}
	return bw.Flush()
}

// seconds appends t as Batsim prints a time, "%f".
func seconds(b []byte, t int64) []byte {
	b = strconv.AppendInt(b, t, 10)
	return append(b, ".000000"...)
}

// hostString writes node indexes as an interval set, "0-3 8".
func hostString(nodes []int32) string {
	spans := make([]layout.Span, 0, len(nodes))
	for _, n := range nodes {
		if k := len(spans) - 1; k >= 0 && spans[k].Lo+spans[k].N == n {
			spans[k].N++
			continue
		}
		spans = append(spans, layout.Span{Lo: n, N: 1})
	}
	return layout.String(spans)
}

// csvField quotes s for CSV when it needs it.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\n\r") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// SWF writes the run as an SWF trace with the simulated schedule: wait and
// run time are the simulation's, status 1 for a completed job and 0 for
// one killed at its walltime (SWF's "failed"), 5 for one its policy
// rejected (SWF's "cancelled", with wait and run time 0). Processors
// allocated and requested are both the job's processors (cores on nodes);
// what SWF has that the jobs file does not (CPU time, memory, the
// preceding job) is -1. The header says what the file is and which run it
// came from.
func SWF(w io.Writer, r *layout.Run) error {
	var procs int64
	for _, c := range r.Platform.Clusters {
		if len(c.Capacity) > 0 {
			procs += c.Capacity[0]
		}
	}
	h := swf.Header{Pairs: []swf.Pair{
		{Key: "Version", Value: "2.2"},
		{Key: "Computer", Value: "simulated by schedlab: platform " + oneLine(r.Platform.Name)},
		{Key: "Note", Value: "the schedule of a simulation, not a log: waits and run times are simulated"},
		{Key: "Note", Value: "run " + oneLine(runName(r)) + ", policy " + oneLine(r.Meta["policy.ref"]) + " " + oneLine(r.Meta["policy.params"])},
		{Key: "Note", Value: "workload " + oneLine(r.WorkloadName()) + " sha256 " + oneLine(r.Meta["workload.sha256"])},
		{Key: "Note", Value: "status: 1 completed, 0 killed at its walltime, 5 rejected by the policy"},
		{Key: "MaxJobs", Value: strconv.Itoa(len(r.Jobs))},
		{Key: "MaxRecords", Value: strconv.Itoa(len(r.Jobs))},
		{Key: "MaxProcs", Value: strconv.FormatInt(procs, 10)},
	}}
	if s, ok := r.Meta["schedlab.version"]; ok {
		h.Pairs = append(h.Pairs, swf.Pair{Key: "Conversion", Value: "schedlab " + oneLine(s) + " export"})
	}
	sw := swf.NewWriter(w)
	if err := sw.WriteHeader(h); err != nil {
		return err
	}
	for i, j := range r.Jobs {
		rec := swf.Record{JobNumber: j.JobID, Submit: j.Submit, Wait: j.Start - j.Submit, RunTime: j.End - j.Start,
			AllocProcs: j.Procs, AvgCPUTime: swf.Missing, UsedMemory: swf.Missing, ReqProcs: j.Procs,
			ReqTime: j.Walltime, ReqMemory: swf.Missing, Status: 1, User: j.User, Group: j.Group, App: j.App,
			Queue: j.Queue, Partition: j.Partition, PrecedingJob: swf.Missing, ThinkTime: swf.Missing}
		switch {
		case r.Extras.Grid != nil && r.Extras.Grid[i].Rejected:
			rec.Status, rec.Wait, rec.RunTime = 5, 0, 0
		case j.Killed:
			rec.Status = 0
		}
		if err := sw.Write(rec); err != nil {
			return fmt.Errorf("job %d: %w", j.JobID, err)
		}
	}
	return sw.Flush()
}

// oneLine keeps a header value on one line.
func oneLine(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
}

// runName names the run: its key in a campaign, else "schedlab sim".
func runName(r *layout.Run) string {
	if k := r.Meta["run.key"]; k != "" {
		return k
	}
	return "schedlab sim"
}
