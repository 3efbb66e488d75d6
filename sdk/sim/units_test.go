package sim_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// bbPlatform has 4 processors and a burst buffer of two units of 40, one
// piece per processor.
func bbPlatform() *sdk.Platform {
	return &sdk.Platform{Name: "bb", Resources: []string{sdk.Processors, "bb"},
		Clusters: []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{4, 80},
			Units: []sdk.Units{{Resource: 1, PiecesBy: 0, Capacity: []int64{40, 40}}}}}}
}

// bbJobs: id, submit, runtime (= walltime), procs, burst buffer in total.
func bbJobs(specs ...[5]int64) []sim.Input {
	in := make([]sim.Input, len(specs))
	for i, s := range specs {
		in[i] = sim.Input{Job: sdk.Job{ID: s[0], Submit: s[1], Walltime: s[2], Request: sdk.Vector{s[3], s[4]}}, Runtime: s[2]}
	}
	sim.Sort(in)
	return in
}

// fitsUnits is what a policy that respects the no-split rule checks: the
// totals, and the pieces on the free units.
func fitsUnits(s *sdk.State, j *sdk.Job, free sdk.Vector, units []int64) bool {
	u := s.Platform.Clusters[0].Units[0]
	n, size, _ := u.Pieces(j.Request)
	return j.Request.Fits(free) && sdk.PiecesFit(units, n, size)
}

// greedyUnits starts, in queue order, every job whose request and pieces
// fit, and stops at the first that does not (FCFS on the burst buffer).
func greedyUnits() *scripted {
	return &scripted{fn: func(s *sdk.State, _ int) ([]sdk.Decision, error) {
		var out []sdk.Decision
		free, units := s.Free[0].Clone(), slices.Clone(s.FreeUnits[0])
		for _, j := range s.Queue {
			if !fitsUnits(s, j, free, units) {
				break
			}
			free.Sub(j.Request)
			n, size, _ := s.Platform.Clusters[0].Units[0].Pieces(j.Request)
			pl := make([]int32, len(units))
			sdk.PlacePieces(pl, units, n, size)
			for k := range units {
				units[k] -= int64(pl[k]) * size
			}
			out = append(out, sdk.Start(j))
		}
		return out, nil
	}}
}

// TestUnitsNoSplit: job 1 takes two pieces of 30, one on each unit (10 left
// on each), so job 2's single piece of 20 cannot start at 0 although 20 of
// the burst buffer is free in total; it starts when job 1 ends at 10, on
// unit 0 (best fit, ties to the lower index), with job 3, which needs no
// burst buffer and waits behind it (FCFS).
func TestUnitsNoSplit(t *testing.T) {
	in := bbJobs([5]int64{1, 0, 10, 2, 60}, [5]int64{2, 0, 5, 1, 20}, [5]int64{3, 5, 1, 1, 0})
	var sawUnits []int32
	pol := greedyUnits()
	start := pol.fn
	pol.fn = func(s *sdk.State, call int) ([]sdk.Decision, error) {
		out, err := start(s, call)
		if len(s.Running) > 0 {
			sawUnits = slices.Clone(s.Running[0].Units)
		}
		return out, err
	}
	res, err := sim.Run(context.Background(), plugin(pol), sim.Config{Platform: bbPlatform(), Jobs: in})
	if err != nil {
		t.Fatal(err)
	}
	if got := []int64{res.Records[0].Start, res.Records[1].Start, res.Records[2].Start}; !slices.Equal(got, []int64{0, 10, 10}) {
		t.Errorf("starts %v, want [0 10 10]", got)
	}
	if want := []int32{1, 1, 1, 0, 0, 0}; !slices.Equal(res.Units, want) {
		t.Errorf("placements %v, want %v", res.Units, want)
	}
	if want := []int32{1, 1}; !slices.Equal(sawUnits, want) {
		t.Errorf("policy saw job 1 placed on %v, want %v", sawUnits, want)
	}
}

func TestUnitsDecisions(t *testing.T) {
	in := bbJobs([5]int64{1, 0, 10, 2, 60}, [5]int64{2, 0, 5, 1, 20})
	for _, tc := range []struct {
		name string
		ds   func(s *sdk.State) []sdk.Decision
		want string // error; "" for success
	}{
		{"total fits, pieces do not", func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.Start(s.Queue[0]), sdk.Start(s.Queue[1])}
		}, "its 1 pieces of 20 bb do not fit in the free units [10 10]"},
		{"explicit placement", func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.StartPlaced(s.Queue[0], 0, []int32{1, 1})}
		}, ""},
		{"explicit placement overfills a unit", func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.StartPlaced(s.Queue[0], 0, []int32{2, 0})}
		}, "2 pieces of 30 bb on unit 0, which has 40 free"},
		{"explicit placement with too few pieces", func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.StartPlaced(s.Queue[0], 0, []int32{1, 0})}
		}, "placement of 1 pieces of bb, the job has 2"},
		{"placement of the wrong length", func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.StartPlaced(s.Queue[0], 0, []int32{1, 1, 0})}
		}, "placement of 3 units, the cluster has 2"},
		{"negative placement", func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.StartPlaced(s.Queue[0], 0, []int32{-1, 3})}
		}, "-1 pieces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := false
			pol := &scripted{fn: func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				if !done {
					done = true
					return tc.ds(s), nil
				}
				if len(s.Running) == 0 {
					return []sdk.Decision{sdk.Start(s.Queue[0])}, nil
				}
				return nil, nil
			}}
			_, err := sim.Run(context.Background(), plugin(pol), sim.Config{Platform: bbPlatform(), Jobs: in})
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

func TestUnitsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		job  [5]int64
		want string
	}{
		{"pieces larger than any unit", [5]int64{1, 0, 10, 1, 50}, "more than any cluster has (or than its units hold)"},
		{"uneven pieces", [5]int64{1, 0, 10, 3, 50}, "not a multiple of its 3 pieces"},
	} {
		_, err := sim.Run(context.Background(), plugin(&scripted{fn: startHead}), sim.Config{Platform: bbPlatform(), Jobs: bbJobs(tc.job)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}
