package burstbuffer_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/plugins/burstbuffer"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
)

// randomScenario is a busy random workload on 8 processors and a burst
// buffer of units 40, 40 and 20, with pieces of 5 to 40.
func randomScenario(seed uint64, exact bool) policytest.Scenario {
	rng := rand.New(rand.NewPCG(seed, 7))
	sc := policytest.Scenario{
		Platform: &sdk.Platform{Name: "r", Resources: []string{sdk.Processors, "bb"},
			Clusters: []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{8, 100},
				Units: []sdk.Units{{Resource: 1, Capacity: []int64{40, 40, 20}}}}}},
		Exact: exact,
	}
	sizes := []int64{0, 0, 5, 10, 20, 30, 40}
	var t int64
	for i := range 80 {
		t += int64(rng.IntN(6))
		procs := int64(1 + rng.IntN(4))
		size := sizes[rng.IntN(len(sizes))]
		if procs*size > 100 || (size > 20 && procs > 2) {
			size = 10
		}
		run := int64(1 + rng.IntN(40))
		wall := run + int64(rng.IntN(20))
		sc.Jobs = append(sc.Jobs, policytest.Job{ID: int64(i + 1), Submit: t, Runtime: run, Walltime: wall, Procs: procs})
		sc.Requests = append(sc.Requests, sdk.Vector{procs, procs * size})
	}
	return sc
}

func TestRandomInvariants(t *testing.T) {
	for seed := range uint64(16) {
		for _, exact := range []bool{false, true} {
			sc := randomScenario(seed, exact)
			in := sc.Inputs()
			for _, p := range burstbuffer.Plugins() {
				name := p.Info.Name
				// Simulate replays the schedule as a host does: every job
				// once, capacity and every unit never exceeded.
				recs, err := policytest.Simulate(p, sc)
				if err != nil {
					t.Fatalf("seed %d exact=%v %s: %v", seed, exact, name, err)
				}
				switch name {
				case "bb-fcfs":
					// Submit order is kept: start times never decrease.
					var last int64
					for _, j := range in {
						r := recs[j.Job.ID]
						if r.Start < last {
							t.Fatalf("seed %d %s: job id %d starts at %d, before an earlier job's %d", seed, name, j.Job.ID, r.Start, last)
						}
						last = r.Start
					}
				case "bb-easy", "bb-easy-sjf":
					// With exact estimates no backfill delays a reservation
					// of processors and burst buffer.
					for id, r := range recs {
						if exact && r.HasPromise && r.Start > r.Promised {
							t.Fatalf("seed %d %s: job id %d promised %d, started %d", seed, name, id, r.Promised, r.Start)
						}
					}
				}
				again, err := policytest.Simulate(p, sc)
				if err != nil || !reflect.DeepEqual(recs, again) {
					t.Fatalf("seed %d %s: a second run differs (%v)", seed, name, err)
				}
			}
		}
	}
}

// TestPlanSearchModes runs bb-plan with exhaustive search only, annealing
// only, and no search at all (submit order), and checks that the plan
// scores it reaches order as the search effort does on the sum of waits.
func TestPlanSearchModes(t *testing.T) {
	var sums [3]float64
	for seed := range uint64(20) {
		sc := randomScenario(seed, true)
		in := sc.Inputs()
		for k, params := range []map[string]string{
			{"exhaustive": "0", "outer": "0", "inner": "0"},
			{"exhaustive": "0"},
			{"exhaustive": "6"},
		} {
			sc.Params = params
			sc.Params["alpha"] = "1"
			recs, err := policytest.Simulate(burstbuffer.Plan(), sc)
			if err != nil {
				t.Fatalf("seed %d %v: %v", seed, params, err)
			}
			for _, j := range in {
				sums[k] += float64(recs[j.Job.ID].Start - j.Job.Submit)
			}
		}
	}
	// Each call optimises its own plan, not the whole run, so this is a
	// tendency, not a law; over 20 busy workloads it holds by far.
	if !(sums[1] < sums[0]) {
		t.Errorf("mean wait with annealing %.0f, not below the nine starting orders' best alone %.0f", sums[1], sums[0])
	}
	t.Logf("sum of waits: starting orders only %.0f, annealing %.0f, exhaustive up to 6 %.0f", sums[0], sums[1], sums[2])
}
