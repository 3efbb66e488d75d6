package burstbuffer_test

import (
	"testing"

	"github.com/schedlab/schedlab/plugins/burstbuffer"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
)

// bbPlatform has 4 processors and a burst buffer of two units of 40, one
// piece per processor.
func bbPlatform() *sdk.Platform {
	return &sdk.Platform{Name: "bb", Resources: []string{sdk.Processors, "bb"},
		Clusters: []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{4, 80},
			Units: []sdk.Units{{Resource: 1, PiecesBy: 0, Capacity: []int64{40, 40}}}}}}
}

// starvation is the workload on which reserving burst buffers matters. Job
// 2 needs the whole burst buffer (2 pieces of 40); jobs 3, 4 and 5 each
// hold a piece of 20 and follow one another so that, once one runs, some
// burst buffer is always in use; job 6 needs no burst buffer and fits in the
// hole before job 2's reservation. Walltimes are exact.
//
//	id  submit  runtime  procs  bb
//	 1     0      10       1    20
//	 2     1      10       2    80
//	 6     2       5       1     0
//	 3     5      10       1    20
//	 4    14      10       1    20
//	 5    23      10       1    20
func starvation(want map[int64]int64, promised map[int64]int64) policytest.Scenario {
	sc := policytest.Scenario{Platform: bbPlatform()}
	for _, j := range []struct{ id, submit, runtime, procs, bb int64 }{
		{1, 0, 10, 1, 20}, {2, 1, 10, 2, 80}, {6, 2, 5, 1, 0},
		{3, 5, 10, 1, 20}, {4, 14, 10, 1, 20}, {5, 23, 10, 1, 20},
	} {
		sc.Jobs = append(sc.Jobs, policytest.Job{ID: j.id, Submit: j.submit, Runtime: j.runtime, Walltime: j.runtime, Procs: j.procs})
		sc.Requests = append(sc.Requests, sdk.Vector{j.procs, j.bb})
		sc.Want = append(sc.Want, policytest.Start{ID: j.id, At: want[j.id], Promised: promised[j.id]})
	}
	return sc
}

func TestStarvationScenario(t *testing.T) {
	for _, tc := range []struct {
		name     string
		p        sdk.Plugin
		params   map[string]string
		want     map[int64]int64
		promised map[int64]int64
	}{
		// Job 2 blocks the queue until job 1 ends at 10; job 6 waits behind
		// it and starts with it.
		{"fcfs", burstbuffer.FCFS(), nil,
			map[int64]int64{1: 0, 2: 10, 6: 10, 3: 20, 4: 20, 5: 23}, nil},
		// Every job that fits starts; job 2 gets the burst buffer only when
		// the stream of small jobs dries up, at 33.
		{"filler", burstbuffer.Filler(), nil,
			map[int64]int64{1: 0, 2: 33, 6: 2, 3: 5, 4: 14, 5: 23}, nil},
		// Reserving processors only: job 6 backfills at 2, job 3 at 7 (when
		// job 6 gives back the processor job 2's reservation left), and the
		// small jobs keep unit 0 busy: job 2 starves until 33, although it
		// was promised a start at 1.
		{"fcfs-easy", burstbuffer.EASYProcs(), nil,
			map[int64]int64{1: 0, 2: 33, 6: 2, 3: 7, 4: 14, 5: 23}, map[int64]int64{2: 1}},
		// Reserving processors and burst buffer: job 2 is reserved at 10,
		// when job 1 frees unit 0, and starts then; job 6 still backfills.
		{"fcfs-bb", burstbuffer.EASY(), nil,
			map[int64]int64{1: 0, 2: 10, 6: 2, 3: 20, 4: 20, 5: 23}, map[int64]int64{2: 10}},
		{"sjf-bb", burstbuffer.EASYSJF(), nil,
			map[int64]int64{1: 0, 2: 10, 6: 2, 3: 20, 4: 20, 5: 23}, map[int64]int64{2: 10}},
		// plan-2, by hand: at 5 the order (3, 2) scores 0 + 14^2 = 196
		// against (2, 3)'s 9^2 + 15^2 = 306, so job 3 starts and job 2 is
		// planned at 15; at 14, (2, 4) scores 14^2 + 11^2 = 317 against
		// (4, 2)'s 0 + 23^2, so job 4 waits for job 2, which starts at 15;
		// jobs 4 and 5 start together when it ends at 25.
		{"plan-2", burstbuffer.Plan(), map[string]string{"alpha": "2"},
			map[int64]int64{1: 0, 2: 15, 6: 2, 3: 5, 4: 25, 5: 25}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := starvation(tc.want, tc.promised)
			sc.Name = "starvation"
			sc.Params = tc.params
			policytest.Run(t, tc.p, sc)
		})
	}
}
