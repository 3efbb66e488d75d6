package metrics

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// TestAddIO works the I/O metrics of four jobs by hand, on a burst buffer
// of two units, one piece per processor, under a model that stages each
// piece in and out whole and checkpoints half of it, drained, every 10 s
// of compute:
//
//	job  procs  bb   runtime  walltime  start  end   killed
//	 1    2     40     20       100       0     31    no    2 pieces of 20; 2 phases: 20 + 20 + 10 + 10 bytes each; 11 s beyond
//	 2    1      0      5       100       0      5    no    no data
//	 3    1     10     30        50       5     55    yes   compute and data fit alone: killed by contention
//	 4    1     10     60        50       5     55    yes   compute past the walltime
func TestAddIO(t *testing.T) {
	p := &sdk.Platform{Name: "bb", Resources: []string{sdk.Processors, "bb"},
		Clusters: []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{4, 80}, Units: []sdk.Units{{Resource: 1, Capacity: []int64{40, 40}}}}}}
	m := &sdk.IO{Resource: 1, FSBandwidth: 10, UnitBandwidth: 10, StageIn: 1, Checkpoint: 0.5, StageOut: 1, Drain: true, PhaseSeconds: 10, MaxPhases: 10}
	jobs := []sim.Input{
		{Job: sdk.Job{ID: 1, Walltime: 100, Request: sdk.Vector{2, 40}}, Runtime: 20},
		{Job: sdk.Job{ID: 2, Walltime: 100, Request: sdk.Vector{1, 0}}, Runtime: 5},
		{Job: sdk.Job{ID: 3, Walltime: 50, Request: sdk.Vector{1, 10}}, Runtime: 30},
		{Job: sdk.Job{ID: 4, Walltime: 50, Request: sdk.Vector{1, 10}}, Runtime: 60},
	}
	recs := []sim.Record{{Index: 0, Start: 0, End: 31}, {Index: 1, Start: 0, End: 5}, {Index: 2, Start: 5, End: 55, Killed: true}, {Index: 3, Start: 5, End: 55, Killed: true}}
	var s Summary
	AddIO(&s, p, m, jobs, recs)
	if s.IOJobs != 3 || s.IOKilled != 1 || s.IOSecondsMean != 11 || s.IOBytes != 2*(20+20+10+10) {
		t.Errorf("io_jobs %d io_killed %d io_seconds_mean %v io_bytes %v; want 3, 1, 11, 120", s.IOJobs, s.IOKilled, s.IOSecondsMean, s.IOBytes)
	}
	// At 10 B/s, job 3's data alone take max(10/10, 10/10) twice and two
	// checkpoints (3 phases) of 5: 3 s beside its 30 s of compute, within
	// its walltime of 50 (contention killed it); job 1's, max(40/10,
	// 20/10) twice and one checkpoint of 10: 9 s beside 20, within 100;
	// job 4's compute alone (50) takes its walltime: it cannot fit.
	if got := IOAlone(m, 1, 10, 30); got != 3 {
		t.Errorf("IOAlone of job 3 = %v, want 3", got)
	}
	if got := IOAlone(m, 2, 20, 20); got != 9 {
		t.Errorf("IOAlone of job 1 = %v, want 9", got)
	}
	if s.IOUnfit != 1 {
		t.Errorf("io_unfit %d, want 1 (job 4)", s.IOUnfit)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"io_bytes":120`) {
		t.Errorf("JSON %s lacks the I/O metrics", b)
	}
	b, _ = json.Marshal(Summary{})
	if strings.Contains(string(b), "io_") {
		t.Errorf("a run without a model has I/O metrics: %s", b)
	}
}
