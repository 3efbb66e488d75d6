package plan_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// unitsPlatform: 8 processors and a burst buffer of three units (capacities
// 40, 40, 20), one piece per processor.
func unitsPlatform() *sdk.Platform {
	return &sdk.Platform{Name: "u", Resources: []string{sdk.Processors, "bb"},
		Clusters: []sdk.Cluster{{Name: "c", Capacity: sdk.Vector{8, 100},
			Units: []sdk.Units{{Resource: 1, Capacity: []int64{40, 40, 20}}}}}}
}

// TestUnitsEarliestFitHand: job A (2 procs, 2 x 30) runs until 10 with one
// piece on each 40-unit; job B (1 proc, 1 x 20) holds the 20-unit until 5.
// A job of 1 x 20 fits by total at 0 (100 - 80 = 20 free) but no unit holds
// 20 before 5, when the 20-unit frees; a job of 2 x 20 fits only at 10.
func TestUnitsEarliestFitHand(t *testing.T) {
	p := unitsPlatform()
	s := &sdk.State{Now: 0, Platform: p,
		Free:      []sdk.Vector{{5, 20}},
		FreeUnits: [][]int64{{10, 10, 0}},
		Running: []sdk.Running{
			{Job: &sdk.Job{Request: sdk.Vector{1, 20}}, ExpectedEnd: 5, Units: []int32{0, 0, 1}},
			{Job: &sdk.Job{Request: sdk.Vector{2, 60}}, ExpectedEnd: 10, Units: []int32{1, 1, 0}},
		}}
	u := plan.NewUnits(p, 0)
	prof := &plan.Profile{}
	u.ResetFromState(prof, s, 0)
	for _, tc := range []struct {
		req     sdk.Vector
		dur     int64
		want    int64
		placing []int32
	}{
		{sdk.Vector{1, 20}, 3, 5, []int32{0, 0, 1}},
		// At 10 all is free: best fit fills the 20-unit, then unit 0.
		{sdk.Vector{2, 40}, 3, 10, []int32{1, 0, 1}},
		{sdk.Vector{1, 0}, 3, 0, []int32{0, 0, 0}},
		{sdk.Vector{1, 10}, 3, 0, []int32{1, 0, 0}},
		{sdk.Vector{1, 50}, 3, -1, nil},
	} {
		pl := make([]int32, u.Count())
		got := u.EarliestFit(prof, 0, tc.req, tc.dur, pl)
		if got != tc.want || (got >= 0 && !slices.Equal(pl, tc.placing)) {
			t.Errorf("EarliestFit(%v) = %d placed %v, want %d placed %v", tc.req, got, pl, tc.want, tc.placing)
		}
	}
}

// TestUnitsEarliestFitOracle compares EarliestFit with a brute force over
// integer times on random profiles made of reservations with placements.
func TestUnitsEarliestFitOracle(t *testing.T) {
	p := unitsPlatform()
	capa := []int64{40, 40, 20}
	sizes := []int64{5, 10, 20, 30, 40}
	rng := rand.New(rand.NewPCG(1, 2))
	const horizon = 80
	for trial := range 3000 {
		u := plan.NewUnits(p, 0)
		prof := plan.New(0, append(sdk.Vector{8, 100}, capa...))
		// usage[t][k]: used on unit k at time t; procs[t].
		var usage [horizon + 100][3]int64
		var procs [horizon + 100]int64
		for range rng.IntN(6) {
			req := sdk.Vector{int64(1 + rng.IntN(3)), 0}
			size := sizes[rng.IntN(len(sizes))]
			req[1] = req[0] * size
			start, dur := int64(rng.IntN(40)), int64(1+rng.IntN(30))
			pl := make([]int32, 3)
			if got := u.EarliestFit(prof, start, req, dur, pl); got != start {
				continue // keep the random profile simple: only what fits where asked
			}
			if err := prof.Reserve(start, dur, u.Amount(req, pl)); err != nil {
				t.Fatal(err)
			}
			for x := start; x < start+dur; x++ {
				procs[x] += req[0]
				for k := range 3 {
					usage[x][k] += int64(pl[k]) * size
				}
			}
		}
		req := sdk.Vector{int64(1 + rng.IntN(4)), 0}
		size := sizes[rng.IntN(len(sizes))]
		req[1] = req[0] * size
		dur := int64(1 + rng.IntN(30))
		from := int64(rng.IntN(20))
		want := int64(-1)
		for t0 := from; t0 <= horizon && want < 0; t0++ {
			minFree := [3]int64{capa[0], capa[1], capa[2]}
			ok := true
			for x := t0; x < t0+dur; x++ {
				if procs[x]+req[0] > 8 {
					ok = false
				}
				for k := range 3 {
					minFree[k] = min(minFree[k], capa[k]-usage[x][k])
				}
			}
			if ok && sdk.PiecesFit(minFree[:], req[0], size) {
				want = t0
			}
		}
		pl := make([]int32, 3)
		got := u.EarliestFit(prof, from, req, dur, pl)
		if got != want {
			t.Fatalf("trial %d: EarliestFit(%v for %d from %d) = %d, brute force %d; profile %v", trial, req, dur, from, got, want, prof)
		}
		if got >= 0 {
			if err := prof.Reserve(got, dur, u.Amount(req, pl)); err != nil {
				t.Fatalf("trial %d: the placement EarliestFit returned does not reserve: %v", trial, err)
			}
		}
	}
}
