package backfill

import (
	"context"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload/nodes"
)

// freshEASY is EASY computing the shadow at every call, the reference
// the reuse of the previous call's shadow must equal.
func freshEASY() sdk.Plugin {
	p := EASY()
	p.New = func() sdk.Policy { return &easy{fresh: true} }
	return p
}

// TestShadowReuseChangesNothing runs EASY with and without reusing what
// previous calls computed (the previous call's shadow; on nodes, the
// cursor at the last shadow time) on KTH-SP2 (a pool, and its nodes
// shared 4 to a node or held whole, in both reservation readings and
// several orders) and on random workloads on nodes, and compares every
// record.
func TestShadowReuseChangesNothing(t *testing.T) {
	type run struct {
		name   string
		plat   *sdk.Platform
		jobs   []sim.Input
		params map[string]string
	}
	w := loadTrace(t, "../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz")
	var runs []run
	for _, order := range []string{OrderSubmit, OrderWFP3, OrderShortest} {
		runs = append(runs, run{"KTH pool " + order, sdk.SingleCluster("kth", 100), w.Jobs, map[string]string{"order": order}})
	}
	plat := sdk.NodesPlatform("kth4", []sdk.NodeGroup{{Name: "n", Count: 25, Cores: 4}}, nil, sdk.FirstFit)
	jobs, _, err := nodes.Apply(plat, w, w.Jobs, nodes.Settings{Allocation: nodes.Shared, Memory: nodes.MemoryNone,
		NodeSize: nodes.NodeSmallest, Oversize: nodes.Fail})
	if err != nil {
		t.Fatal(err)
	}
	for _, reading := range []string{ReservationCount, ReservationBatsched} {
		runs = append(runs, run{"KTH shared nodes " + reading, plat, jobs, map[string]string{"reservation": reading}})
	}
	runs = append(runs, run{"KTH shared nodes wfp3", plat, jobs, map[string]string{"order": OrderWFP3}})
	excl, _, err := nodes.Apply(plat, w, w.Jobs, nodes.Settings{Allocation: nodes.Exclusive, Memory: nodes.MemoryNone,
		NodeSize: nodes.NodeSmallest, Oversize: nodes.Fail})
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range []string{OrderSubmit, OrderShortest} {
		runs = append(runs, run{"KTH exclusive nodes " + order, plat, excl, map[string]string{"order": order}})
	}
	for seed := range uint64(60) {
		sc := policytest.Random{Nodes: true, Jobs: 200}.Scenario(seed)
		runs = append(runs, run{"random nodes", sc.Platform, sc.Inputs(), nil})
	}
	for _, r := range runs {
		var pol *easy
		reusing := EASY()
		reusing.New = func() sdk.Policy { pol = &easy{}; return pol }
		a, err := sim.Run(context.Background(), reusing, sim.Config{Platform: r.plat, Jobs: r.jobs, Params: r.params})
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		b, err := sim.Run(context.Background(), freshEASY(), sim.Config{Platform: r.plat, Jobs: r.jobs, Params: r.params})
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if !slices.EqualFunc(a.Records, b.Records, func(x, y sim.Record) bool {
			return x.Start == y.Start && x.End == y.End && x.Promised == y.Promised && x.Backfilled == y.Backfilled
		}) {
			t.Errorf("%s: reusing the shadow changes the schedule", r.name)
		}
		if r.name != "random nodes" {
			t.Logf("%s: %d shadows computed (%d from the cursor), %d reused", r.name, pol.computed, pol.cursored, pol.reused)
		}
	}
}
