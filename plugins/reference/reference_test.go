package reference

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
)

// platform is where p runs in these tests: for the burst-buffer policies, a
// cluster with a burst buffer spread over three storage nodes, one piece
// per processor; for the others, which place no pieces, processors only.
func platform(p sdk.Plugin) *sdk.Platform {
	if !strings.HasPrefix(p.Info.Name, "bb-") {
		return sdk.SingleCluster("m", 32)
	}
	return &sdk.Platform{Name: "bb", Resources: []string{sdk.Processors, "bb"}, Clusters: []sdk.Cluster{
		{Name: "m", Capacity: sdk.Vector{16, 100}, Units: []sdk.Units{{Resource: 1, Capacity: []int64{40, 40, 20}}}},
	}}
}

// TestNoStateBetweenRuns runs every reference policy on random workloads,
// each scenario again and interleaved with the others in one process: a
// plugin process that serves many runs must give each the records of a
// fresh one.
func TestNoStateBetweenRuns(t *testing.T) {
	for _, p := range All() {
		t.Run(p.Info.Name, func(t *testing.T) {
			policytest.NoStateBetweenRuns(t, p,
				policytest.Random{Platform: platform(p)}.Scenario(1),
				policytest.Random{Platform: platform(p), Exact: true, Jobs: 300}.Scenario(2),
				policytest.Random{Platform: platform(p), Burst: 5}.Scenario(3))
		})
	}
}

// TestInvariants checks on random workloads what each reference policy
// promises: FCFS keeps submit order; the backfilling policies keep their
// reservations when the estimates are exact and the queue is in submit
// order (in another order a later, shorter job may take the head's place
// and its promise with it). bb-easy-procs reserves processors only, so a
// backfilled job may take the burst buffer its reservation needs: it does
// not keep its promises, by design (paper 004).
func TestInvariants(t *testing.T) {
	submitOrder := policytest.StartsInSubmitOrder()
	kept := policytest.PromisesKept()
	for _, tc := range []struct {
		policy string
		exact  bool
		inv    []policytest.Invariant
	}{
		{"fcfs", false, []policytest.Invariant{submitOrder}},
		{"bb-fcfs", false, []policytest.Invariant{submitOrder}},
		{"easy", true, []policytest.Invariant{kept}},
		{"conservative", true, []policytest.Invariant{kept}},
		{"bb-easy", true, []policytest.Invariant{kept}},
		{"groupsel", true, []policytest.Invariant{kept}},
	} {
		p, ok := Lookup(tc.policy)
		if !ok {
			t.Fatalf("no reference policy %s", tc.policy)
		}
		for seed := range uint64(8) {
			sc := policytest.Random{Platform: platform(p), Exact: tc.exact}.Scenario(seed)
			policytest.Check(t, p, sc, tc.inv...)
		}
	}
}

// TestEveryPolicyOnNodes runs every reference policy on a platform of
// nodes: every policy but the grid ones schedules it (every schedule verified
// as a host verifies it), every other policy refuses it at Init, saying
// the platform is made of nodes.
func TestEveryPolicyOnNodes(t *testing.T) {
	onNodes := map[string]bool{"fcfs": true, "easy": true, "conservative": true, "multifactor": true, "probfill": true, "probfill-nf": true, "groupsel": true,
		"bb-fcfs": true, "bb-filler": true, "bb-easy-procs": true, "bb-easy": true, "bb-easy-sjf": true, "bb-plan": true}
	sc := policytest.Random{Nodes: true, Jobs: 80}.Scenario(7)
	for _, p := range All() {
		t.Run(p.Info.Name, func(t *testing.T) {
			_, err := policytest.Simulate(p, sc)
			switch {
			case onNodes[p.Info.Name] && err != nil:
				t.Errorf("%s on nodes: %v", p.Info.Name, err)
			case !onNodes[p.Info.Name] && (err == nil || !strings.Contains(err.Error(), "is made of nodes")):
				t.Errorf("%s on nodes: %v, want a refusal that says the platform is made of nodes", p.Info.Name, err)
			}
		})
	}
}
