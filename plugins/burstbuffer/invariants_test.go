package burstbuffer_test

import (
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/plugins/burstbuffer"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
)

// randomScenario is a busy random workload of 80 jobs on 8 processors and a
// burst buffer of units 40, 40 and 20 (policytest's generator).
func randomScenario(seed uint64, exact bool) policytest.Scenario {
	return policytest.Random{
		Jobs: 80, MaxWalltime: 60, Burst: 3, Exact: exact,
		Platform: &sdk.Platform{Name: "r", Resources: []string{sdk.Processors, "bb"},
			Clusters: []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{8, 100},
				Units: []sdk.Units{{Resource: 1, Capacity: []int64{40, 40, 20}}}}}},
	}.Scenario(seed)
}

// TestRandomInvariants checks every burst-buffer policy on random workloads
// with the host's replay verification (every job once, capacity and every
// unit never exceeded), and what each promises: bb-fcfs keeps submit order;
// with exact estimates, the EASY policies that reserve the burst buffer too
// never delay a reservation (bb-easy-procs reserves processors only, and
// does). A second run must give the same records.
func TestRandomInvariants(t *testing.T) {
	for seed := range uint64(16) {
		for _, exact := range []bool{false, true} {
			sc := randomScenario(seed, exact)
			for _, p := range burstbuffer.Plugins() {
				var inv []policytest.Invariant
				switch name := p.Info.Name; {
				case name == "bb-fcfs":
					inv = append(inv, policytest.StartsInSubmitOrder())
				case (name == "bb-easy" || name == "bb-easy-sjf") && exact:
					inv = append(inv, policytest.PromisesKept())
				}
				recs := policytest.Check(t, p, sc, inv...)
				again, err := policytest.Simulate(p, sc)
				if err != nil || !reflect.DeepEqual(recs, again) {
					t.Fatalf("seed %d %s: a second run differs (%v)", seed, p.Info.Name, err)
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
