package sacct_test

import (
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/sacct"
	"github.com/schedlab/schedlab/workload/swf"
)

func TestToSWF(t *testing.T) {
	text := lines("JobID|User|Group|JobName|QOS|Partition|State|Submit|Start|End|Elapsed|Timelimit|AllocCPUS|ReqCPUS|NNodes|ReqNodes|ReqMem|TotalCPU",
		// Submitted 100 s after the earliest job; per-CPU memory.
		"100|alice|g1|sim|normal|batch|COMPLETED|2021-01-01T00:01:40|2021-01-01T00:02:00|2021-01-01T01:02:00|01:00:00|02:00:00|4|4|1|1|1000Mc|02:00:00",
		// The earliest; cancelled before it started, no limit, per-node memory.
		"101|bob|g2|post|high|debug|CANCELLED by 5|2021-01-01T00:00:00|Unknown|2021-01-01T00:00:30|00:00:00|UNLIMITED|0|2|1|1|8000Mn|",
		// An array task that hit its limit; memory for the whole job (Slurm >= 21.08).
		"102_1|alice|g1|sim|normal|gpu|TIMEOUT|2021-01-01T00:05:00|2021-01-01T00:10:00|2021-01-01T00:40:00|00:30:00|00:30:00|8|8|2|2|16G|01:00:00",
		// Nothing known.
		"103|||||||Unknown|Unknown|Unknown||||||||")
	jobs, _ := read(t, text)
	recs, m := sacct.ToSWF(jobs)
	want := []swf.Record{
		{Line: 2, JobNumber: 1, Submit: 100, Wait: 20, RunTime: 3600, AllocProcs: 4, AvgCPUTime: 1800, UsedMemory: -1,
			ReqProcs: 4, ReqTime: 7200, ReqMemory: 1000 * 1024, Status: 1, User: 1, Group: 1, App: 1, Queue: 1, Partition: 1,
			PrecedingJob: -1, ThinkTime: -1},
		{Line: 3, JobNumber: 2, Submit: 0, Wait: -1, RunTime: 0, AllocProcs: 0, AvgCPUTime: -1, UsedMemory: -1,
			ReqProcs: 2, ReqTime: -1, ReqMemory: 8000 * 1024 / 2, Status: 5, User: 2, Group: 2, App: 2, Queue: 2, Partition: 2,
			PrecedingJob: -1, ThinkTime: -1},
		{Line: 4, JobNumber: 3, Submit: 300, Wait: 300, RunTime: 1800, AllocProcs: 8, AvgCPUTime: 450, UsedMemory: -1,
			ReqProcs: 8, ReqTime: 1800, ReqMemory: 16 * 1024 * 1024 / 8, Status: 0, User: 1, Group: 1, App: 1, Queue: 1, Partition: 3,
			PrecedingJob: -1, ThinkTime: -1},
		{Line: 5, JobNumber: 4, Submit: -1, Wait: -1, RunTime: -1, AllocProcs: -1, AvgCPUTime: -1, UsedMemory: -1,
			ReqProcs: -1, ReqTime: -1, ReqMemory: -1, Status: -1, User: -1, Group: -1, App: -1, Queue: -1, Partition: -1,
			PrecedingJob: -1, ThinkTime: -1},
	}
	if !reflect.DeepEqual(recs, want) {
		for i := range recs {
			if i >= len(want) || recs[i] != want[i] {
				t.Errorf("record %d:\n got %+v", i+1, recs[i])
				if i < len(want) {
					t.Errorf("want %+v", want[i])
				}
			}
		}
	}
	wantMap := sacct.SWFMapping{
		Origin:     1609459200, // 2021-01-01T00:00:00 UTC
		JobIDs:     []string{"100", "101", "102_1", "103"},
		Users:      []string{"alice", "bob"},
		Groups:     []string{"g1", "g2"},
		Apps:       []string{"sim", "post"},
		Queues:     []string{"normal", "high"},
		Partitions: []string{"batch", "debug", "gpu"},
	}
	if !reflect.DeepEqual(m, wantMap) {
		t.Errorf("mapping %+v\nwant %+v", m, wantMap)
	}

	// The records feed the workload cleaner: the job that never ran and
	// the one without a submit time are dropped, by rules that say so.
	w, err := workload.FromRecords("test.log", recs, 16, workload.DefaultClean())
	if err != nil {
		t.Fatal(err)
	}
	if w.Report.Kept != 2 || len(w.Jobs) != 2 || w.Jobs[0].Runtime != 3600 || w.Jobs[1].Job.Walltime != 1800 {
		t.Errorf("workload: report %+v, jobs %+v", w.Report, w.Jobs)
	}
}

func TestSWFStatus(t *testing.T) {
	cases := map[string]int64{
		sacct.StateCompleted: 1, sacct.StateFailed: 0, sacct.StateTimeout: 0, sacct.StateOutOfMemory: 0,
		sacct.StateNodeFail: 0, sacct.StateBootFail: 0, sacct.StateDeadline: 0,
		sacct.StateCancelled: 5, sacct.StatePreempted: 5, sacct.StateRevoked: 5,
		sacct.StateRunning: -1, sacct.StatePending: -1, "": -1, "SOMETHING_NEW": -1,
	}
	for s, want := range cases {
		if got := sacct.SWFStatus(s); got != want {
			t.Errorf("SWFStatus(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestToSWFEmpty(t *testing.T) {
	recs, m := sacct.ToSWF(nil)
	if len(recs) != 0 || m.Origin != sacct.Missing || len(m.JobIDs) != 0 {
		t.Errorf("ToSWF(nil) = %v, %+v", recs, m)
	}
}
