package verify_test

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestUnits checks placements on a burst buffer of two units of 40, one
// piece per processor:
//
//	id  submit  runtime  procs  bb (pieces)
//	 1     0      10       2    60 (2 x 30)
//	 2     0       5       1    20 (1 x 20)
//	 3     5       1       1     0
//
// Job 1 holds one piece on each unit on [0,10), job 2 one on unit 0 on
// [10,15), job 3 nothing on [10,11).
func TestUnits(t *testing.T) {
	p := &sdk.Platform{Name: "bb", Resources: []string{sdk.Processors, "bb"},
		Clusters: []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{4, 80},
			Units: []sdk.Units{{Resource: 1, PiecesBy: 0, Capacity: []int64{40, 40}}}}}}
	jobs := sorted(in(1, 0, 10, 10, 2, 60), in(2, 0, 5, 5, 1, 20), in(3, 5, 1, 1, 1, 0))
	base := func() *sim.Result {
		return &sim.Result{
			Records: []sim.Record{{Index: 0, Start: 0, End: 10}, {Index: 1, Start: 10, End: 15}, {Index: 2, Start: 10, End: 11}},
			Units:   []int32{1, 1, 1, 0, 0, 0},
		}
	}
	for _, tc := range []struct {
		name   string
		tamper func(r *sim.Result)
		want   string // "" for valid
	}{
		{"valid", func(*sim.Result) {}, ""},
		{"job 2 on the other unit", func(r *sim.Result) { r.Units[2], r.Units[3] = 0, 1 }, ""},
		// Totals are fine at t=5 (3 procs, 80 of 80), but unit 0 holds 30 +
		// 20: only the per-unit check sees it.
		{"job 2 early: a unit over capacity", func(r *sim.Result) { r.Records[1].Start, r.Records[1].End = 5, 10 },
			"at t=5, starting job id 2 makes unit 0 of bb of cluster \"m\" hold 50 of 40"},
		{"a piece missing", func(r *sim.Result) { r.Units[2] = 0 }, "job id 2: placement of 0 pieces of bb, the job has 1"},
		{"both pieces of job 1 on one unit", func(r *sim.Result) { r.Units[0], r.Units[1] = 2, 0 }, "makes unit 0 of bb of cluster \"m\" hold 60 of 40"},
		{"a negative count", func(r *sim.Result) { r.Units[0], r.Units[1] = -1, 3 }, "-1 pieces"},
		{"no placements", func(r *sim.Result) { r.Units = nil }, "0 placement entries for 3 jobs on a platform of 2 units"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := base()
			tc.tamper(r)
			err := verify.Result(p, jobs, r)
			samePieces(t, p, jobs, r, err)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
