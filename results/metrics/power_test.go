package metrics

import (
	"math"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// TestJobEnergyBusyTable checks the jobs' energy on nodes with a busy
// power table by hand, on the schedule of sim's TestPowerBusyTable: two
// nodes of 4 cores, idle 100 W (25 W a core held), 130, 150, 180, 220 W
// with 1 to 4 cores in use; job 1 (2 cores, [0, 100)) and job 3 (1 core,
// [20, 60)) on node 0, job 2 (4 cores, [0, 50)) on node 1. Node 0 adds
// 50 W to its idle power with 2 cores in use, 80 W with 3, shared by the
// cores in use; the jobs and the idle cores add up to the static and
// dynamic energy. On the line from 100 W to 220 W, each core adds 30 W.
func TestJobEnergyBusyTable(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	l := sdk.NewLayout(p, 0)
	task := func(c int32) *sdk.Tasks { return &sdk.Tasks{Count: 1, Cores: c} }
	jobs := []sim.Input{{Job: sdk.Job{ID: 1, Tasks: task(2)}}, {Job: sdk.Job{ID: 2, Tasks: task(4)}}, {Job: sdk.Job{ID: 3, Submit: 20, Tasks: task(1)}}}
	recs := []sim.Record{{Start: 0, End: 100}, {Start: 0, End: 50}, {Start: 20, End: 60}}
	allocs := &sim.Allocs{Start: []int32{0, 1, 2, 3}, Nodes: []int32{0, 1, 0}, Tasks: []int32{1, 1, 1}}
	for _, tc := range []struct {
		name  string
		model sdk.NodePower
		want  []float64
	}{
		{"table", sdk.NodePower{Idle: 100, Full: 220, Busy: []float64{130, 150, 180, 220}}, []float64{
			2*25*100 + 50*20 + 80*40*2.0/3 + 50*40,
			4*25*50 + 120*50,
			1*25*40 + 80*40*1.0/3,
		}},
		{"linear", sdk.NodePower{Idle: 100, Full: 220}, []float64{
			2*25*100 + 2*30*100,
			4*25*50 + 4*30*50,
			1*25*40 + 1*30*40,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := []sdk.NodePower{tc.model}
			table, counts := TableEnergy(l, m, jobs, Runs(recs, allocs, nil, nil))
			if (table == nil) != (tc.model.Busy == nil) {
				t.Fatalf("table energy %v for a model with table %v", table, tc.model.Busy)
			}
			// Jobs 1 and 3 share node 0 over [20, 60); job 2 runs alone.
			if want := (TableCounts{Jobs: 3, Shared: 2}); table != nil && counts != want {
				t.Errorf("counts %+v, want %+v", counts, want)
			}
			sum := 0.0
			for i, want := range tc.want {
				got := JobEnergy(l, m, jobs[i].Job.Tasks, allocs.Of(i), recs[i].End-recs[i].Start)
				if table != nil {
					got += table[i]
				}
				if math.Abs(got-want) > 1e-9*want {
					t.Errorf("job %d: %v J, want %v J", i+1, got, want)
				}
				sum += got
			}
			// The idle cores: node 0 has 2 idle over [0, 20) and [60, 100),
			// 1 over [20, 60); node 1 has 4 over [50, 100).
			idle := 25.0 * (2*20 + 1*40 + 2*40 + 4*50)
			res := &sim.Result{Records: recs, Allocs: allocs, Power: &sim.PowerResult{}}
			var s Summary
			static, dynamic := 20000.0, 12200.0
			if table == nil {
				dynamic = 30 * (2*100 + 4*50 + 1*40)
			}
			AddPower(&s, p, &sdk.Power{Groups: [][]sdk.NodePower{m}}, jobs, res, sim.Energy{From: 0, To: 100, Static: static, Dynamic: dynamic})
			if math.Abs(s.EnergyJobs-sum) > 1e-9*sum || math.Abs(s.EnergyIdle-idle) > 1e-9*idle {
				t.Errorf("energy of the jobs %v and of the idle cores %v, want %v and %v", s.EnergyJobs, s.EnergyIdle, sum, idle)
			}
		})
	}
}

// TestRunEnergy checks a job's energy over all its runs, worked by hand
// on a node of 4 cores (idle 100 W, 25 W a core in use): job 1 (4 cores)
// ran 0-30, a failure ended it, and ran again 50-150 (requeued); job 2 (2
// cores) ran 0-40 and a failure killed it: its record is that run, listed
// among the attempts too, and counted once.
func TestRunEnergy(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 1, Cores: 4}}, nil, sdk.FirstFit)
	l := sdk.NewLayout(p, 0)
	jobs := []sim.Input{{Job: sdk.Job{ID: 1, Tasks: &sdk.Tasks{Count: 1, Cores: 4}}}, {Job: sdk.Job{ID: 2, Tasks: &sdk.Tasks{Count: 1, Cores: 2}}}}
	recs := []sim.Record{{Start: 50, End: 150, Attempts: 1}, {Start: 0, End: 40, Attempts: 1, Interrupted: sdk.Failure}}
	allocs := &sim.Allocs{Start: []int32{0, 1, 2}, Nodes: []int32{0, 0}, Tasks: []int32{1, 1}}
	atts := []sim.Attempt{{Index: 0, Start: 0, End: 30, Cause: sdk.Failure}, {Index: 1, Start: 0, End: 40, Cause: sdk.Failure}}
	attAllocs := &sim.Allocs{Start: []int32{0, 1, 2}, Nodes: []int32{0, 0}, Tasks: []int32{1, 1}}
	runs := Runs(recs, allocs, atts, attAllocs)
	if len(runs) != 3 {
		t.Fatalf("%d runs, want 3: %+v", len(runs), runs)
	}
	m := []sdk.NodePower{{Idle: 100, Full: 200}}
	own, table, counts := RunEnergy(l, m, jobs, runs)
	// Job 1 holds the node whole: 100 W idle plus 100 W, over 130 s. Job
	// 2 holds half: 50 W plus 50 W, over 40 s.
	if want := []float64{200 * 130, 100 * 40}; !slices.Equal(own, want) || table != nil || counts != nil {
		t.Errorf("energy %v (table %v, counts %v), want %v", own, table, counts, want)
	}
}
