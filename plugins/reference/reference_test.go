package reference

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// onNodes names the reference policies that schedule platforms of nodes:
// all but the grid ones.
var onNodes = map[string]bool{"fcfs": true, "easy": true, "conservative": true, "multifactor": true, "probfill": true, "probfill-nf": true,
	"groupsel": true, "bb-fcfs": true, "bb-filler": true, "bb-easy-procs": true, "bb-easy": true, "bb-easy-sjf": true, "bb-plan": true}

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

// aroundOutages are the parameters a policy needs around outages of
// nodes: conservative counting reservations in totals refuses them.
var aroundOutages = map[string]map[string]string{"conservative": {"reservation": "nodes"}}

// TestNodePoliciesAroundOutages runs every policy that schedules nodes on
// random platforms of nodes where node 0 fails twice (its jobs requeued)
// and the whole machine stops for a maintenance window: every schedule
// verified, no job on a node out of service or inside the window.
func TestNodePoliciesAroundOutages(t *testing.T) {
	outs := []sdk.Outage{
		{Nodes: []int32{0}, Start: 300, End: 900, Kind: sdk.Failure},
		{Nodes: []int32{0}, Start: 2000, End: 2600, Kind: sdk.Failure},
		{Start: 4000, End: 4500, Kind: sdk.Maintenance},
	}
	f := sim.Faults{OnFailure: sim.FailRequeue}
	for _, p := range All() {
		if !onNodes[p.Info.Name] {
			continue
		}
		t.Run(p.Info.Name, func(t *testing.T) {
			requeued := 0
			for seed := range uint64(4) {
				sc := policytest.Random{Nodes: true, Jobs: 120}.Scenario(seed)
				in := sc.Inputs()
				res, err := host.InProcess(p).Run(context.Background(), host.RunSpec{Platform: sc.Platform, Params: aroundOutages[p.Info.Name], Outages: outs, Faults: f}, in, nil)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if err := verify.Outages(sc.Platform, in, outs, f, false, res); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				for _, r := range res.Records {
					requeued += int(r.Attempts)
				}
			}
			if requeued == 0 {
				t.Fatal("no failure ended a job: the case tests nothing")
			}
		})
	}
}

// TestNodePoliciesAroundAWindow: one node of 4 cores with a maintenance
// window from 100 to 150. A (4 tasks, 200 s) cannot run before the window
// ends; B (1 task, 10 s), submitted after it, ends long before the window.
// The policies that reserve A promise it the window's end, 150, and start
// B at once beside that promise; the FCFS ones keep B behind A.
func TestNodePoliciesAroundAWindow(t *testing.T) {
	plat := sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "n", Count: 1, Cores: 4}}, nil, sdk.FirstFit)
	in := policytest.Scenario{Platform: plat, Jobs: []policytest.Job{
		{ID: 1, Submit: 0, Runtime: 200, Walltime: 200, Tasks: &sdk.Tasks{Count: 4, Cores: 1}},
		{ID: 2, Submit: 0, Runtime: 10, Walltime: 10, Tasks: &sdk.Tasks{Count: 1, Cores: 1}},
	}}.Inputs()
	outs := []sdk.Outage{{Start: 100, End: 150, Kind: sdk.Maintenance}}
	const fifo, backfill, promised = "A 150, B 350", "A 150, B 0", "A 150 promised 150, B 0"
	want := map[string]string{"fcfs": fifo, "bb-fcfs": fifo, "easy": promised, "conservative": promised, "multifactor": promised,
		"groupsel": promised, "bb-easy": promised, "bb-easy-sjf": promised, "bb-easy-procs": promised, "bb-filler": backfill, "bb-plan": backfill}
	for _, p := range All() {
		w, ok := want[p.Info.Name]
		if !ok {
			continue
		}
		res, err := host.InProcess(p).Run(context.Background(), host.RunSpec{Platform: plat, Params: aroundOutages[p.Info.Name], Outages: outs}, in, nil)
		if err != nil {
			t.Fatalf("%s: %v", p.Info.Name, err)
		}
		if err := verify.Outages(plat, in, outs, sim.Faults{}, false, res); err != nil {
			t.Fatalf("%s: %v", p.Info.Name, err)
		}
		a, b := res.Records[0], res.Records[1]
		got := fmt.Sprintf("A %d, B %d", a.Start, b.Start)
		if a.HasPromise && w == promised {
			got = fmt.Sprintf("A %d promised %d, B %d", a.Start, a.Promised, b.Start)
		}
		if got != w {
			t.Errorf("%s: %s, want %s", p.Info.Name, got, w)
		}
	}
}
