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
//	 3    1     10     30        50       5     55    yes   compute fits: killed by its data
//	 4    1     10     60        50       5     55    yes   compute past the walltime
func TestAddIO(t *testing.T) {
	p := &sdk.Platform{Name: "bb", Resources: []string{sdk.Processors, "bb"},
		Clusters: []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{4, 80}, Units: []sdk.Units{{Resource: 1, Capacity: []int64{40, 40}}}}}}
	m := &sdk.IO{Resource: 1, FSBandwidth: 1, UnitBandwidth: 1, StageIn: 1, Checkpoint: 0.5, StageOut: 1, Drain: true, PhaseSeconds: 10, MaxPhases: 10}
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
