package sacct

import (
	"math"

	"github.com/schedlab/schedlab/workload/swf"
)

// SWFMapping records how ToSWF numbered jobs and names, so that an SWF id
// can be traced back to the log. In each name table, the name of SWF id k
// is at index k-1.
type SWFMapping struct {
	// Origin is the earliest known submit time (Unix seconds); SWF submit
	// times are relative to it. It is Missing when no job has one.
	Origin int64
	// JobIDs[n-1] is the Slurm ID (Job.ID) of SWF job n.
	JobIDs []string
	// Users, Groups, Apps (job names), Queues (QOS) and Partitions list
	// the names in order of first appearance.
	Users, Groups, Apps, Queues, Partitions []string
}

// SWFStatus maps a normalised state to an SWF status: 1 for COMPLETED; 0
// (failed) for FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, BOOT_FAIL and
// DEADLINE, all ended by an error or a limit; 5 (cancelled) for CANCELLED,
// PREEMPTED and REVOKED; Missing for the states of unfinished jobs
// (PENDING, RUNNING, ...) and unknown ones.
func SWFStatus(state string) int64 {
	switch state {
	case StateCompleted:
		return 1
	case StateFailed, StateTimeout, StateOutOfMemory, StateNodeFail, StateBootFail, StateDeadline:
		return 0
	case StateCancelled, StatePreempted, StateRevoked:
		return 5
	}
	return swf.Missing
}

// ToSWF converts jobs to SWF records, in the same order, so that a sacct
// log can feed the simulator (workload.FromRecords). The fields:
//
//   - 1 job number: the position in jobs, from 1 (Slurm IDs repeat across
//     array tasks and clusters; mapping.JobIDs keeps them);
//   - 2 submit: Submit - Origin, the earliest known submit;
//   - 3 wait: Start - Submit, Missing if either is unknown or it is
//     negative;
//   - 4 run time: Elapsed; 5 allocated processors: AllocCPUS; 8 requested
//     processors: ReqCPUS; 9 requested time: Timelimit (Missing when
//     unlimited or the partition's limit);
//   - 6 average CPU time: TotalCPU / AllocCPUS;
//   - 7 used memory: Missing, because MaxRSS is the largest task's peak,
//     not an average per processor;
//   - 10 requested memory: ReqMem in KB per processor: per CPU as is, per
//     node times NNodes (else ReqNodes) over AllocCPUS (else ReqCPUS), the
//     job's total over AllocCPUS (else ReqCPUS);
//   - 11 status: SWFStatus(State);
//   - 12 user, 13 group, 14 application (JobName), 15 queue (QOS), 16
//     partition: numbered from 1 in order of first appearance, Missing for
//     an empty name;
//   - 17 preceding job, 18 think time: Missing.
//
// Record.Line is the job's line in the log, so that errors of the
// workload cleaner point at the sacct log.
func ToSWF(jobs []Job) ([]swf.Record, SWFMapping) {
	m := SWFMapping{Origin: Missing, JobIDs: make([]string, len(jobs))}
	for _, j := range jobs {
		if j.Submit >= 0 {
			m.Origin = minKnown(m.Origin, j.Submit)
		}
	}
	// One numbering per table; the maps are local, so ToSWF keeps no
	// state between calls.
	users, groups, apps, queues, parts := map[string]int64{}, map[string]int64{}, map[string]int64{}, map[string]int64{}, map[string]int64{}
	number := func(ids map[string]int64, names *[]string, name string) int64 {
		if name == "" {
			return swf.Missing
		}
		if id, ok := ids[name]; ok {
			return id
		}
		*names = append(*names, name)
		ids[name] = int64(len(*names))
		return ids[name]
	}
	recs := make([]swf.Record, len(jobs))
	for i, j := range jobs {
		m.JobIDs[i] = j.ID
		r := swf.Record{
			Line:         j.Line,
			JobNumber:    int64(i + 1),
			Submit:       swf.Missing,
			Wait:         swf.Missing,
			RunTime:      j.Elapsed,
			AllocProcs:   j.AllocCPUS,
			AvgCPUTime:   swf.Missing,
			UsedMemory:   swf.Missing,
			ReqProcs:     j.ReqCPUS,
			ReqTime:      j.Timelimit,
			ReqMemory:    swf.Missing,
			Status:       SWFStatus(j.State),
			User:         number(users, &m.Users, j.User),
			Group:        number(groups, &m.Groups, j.Group),
			App:          number(apps, &m.Apps, j.JobName),
			Queue:        number(queues, &m.Queues, j.QOS),
			Partition:    number(parts, &m.Partitions, j.Partition),
			PrecedingJob: swf.Missing,
			ThinkTime:    swf.Missing,
		}
		if j.Submit >= 0 {
			r.Submit = j.Submit - m.Origin
		}
		if w := j.Wait(); w >= 0 {
			r.Wait = w
		}
		if !math.IsNaN(j.TotalCPU) && j.AllocCPUS > 0 {
			r.AvgCPUTime = j.TotalCPU / float64(j.AllocCPUS)
		}
		r.ReqMemory = reqMemKB(j)
		recs[i] = r
	}
	return recs, m
}

// reqMemKB is the requested memory in KB per processor, or Missing.
func reqMemKB(j Job) float64 {
	if j.ReqMem < 0 {
		return swf.Missing
	}
	procs := j.AllocCPUS
	if procs <= 0 {
		procs = j.ReqCPUS
	}
	kb := float64(j.ReqMem) / float64(KiB)
	switch j.ReqMemPer {
	case MemPerCPU:
		return kb
	case MemPerNode:
		nodes := j.NNodes
		if nodes <= 0 {
			nodes = j.ReqNodes
		}
		if nodes <= 0 || procs <= 0 {
			return swf.Missing
		}
		return kb * float64(nodes) / float64(procs)
	case MemPerJob:
		if procs <= 0 {
			return swf.Missing
		}
		return kb / float64(procs)
	}
	return swf.Missing
}
