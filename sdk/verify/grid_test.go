package verify_test

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestGridRules checks each grid rule of the verification on a valid
// two-job schedule changed one field at a time: a local job of cluster b,
// and a global job shipped at 5 with a transfer of 10, reserved and
// started at 20 on cluster a, charged 3 of its payment 4.
func TestGridRules(t *testing.T) {
	plat := &sdk.Platform{Name: "g", Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{
		{Name: "a", Capacity: sdk.Vector{4}}, {Name: "b", Capacity: sdk.Vector{2}}}}
	jobs := []sim.Input{
		{Job: sdk.Job{ID: 1, Submit: 0, Walltime: 10, Request: sdk.Vector{2}, Home: 2}, Runtime: 10},
		{Job: sdk.Job{ID: 2, Submit: 0, Walltime: 10, Request: sdk.Vector{4}, Transfer: 10, Priority: 4}, Runtime: 10},
	}
	sim.Sort(jobs)
	valid := func() []sim.Record {
		return []sim.Record{
			{Index: 0, Cluster: 1, Start: 0, End: 10},
			{Index: 1, Cluster: 0, Start: 20, End: 30, Backfilled: false, Shipped: true, ShipTime: 5, Reserved: true, ReservedAt: 20,
				ReservedCluster: 0, Promised: 20, HasPromise: true, Charged: true, Cost: 3},
		}
	}
	if err := verify.Records(plat, jobs, valid()); err != nil {
		t.Fatalf("the valid schedule: %v", err)
	}
	// Job 2 rejected at 4, after it was shipped and charged, is valid too.
	rejected := valid()
	rejected[1] = sim.Record{Index: 1, Cluster: -1, Start: 4, End: 4, Rejected: true, Shipped: true, ShipTime: 2, Charged: true, Cost: 1}
	if err := verify.Records(plat, jobs, rejected); err != nil {
		t.Errorf("a rejected job: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(r []sim.Record)
		want   string
	}{
		{"a local job away from home", func(r []sim.Record) { r[0].Cluster = 0 }, `a local job of cluster "b" runs on cluster "a"`},
		{"never shipped", func(r []sim.Record) { r[1].Shipped = false }, "needs a transfer of 10 s but was never shipped"},
		{"started before arriving", func(r []sim.Record) { r[1].ShipTime = 15 }, "starts at 20, shipped at 15 with a transfer of 10 s"},
		{"shipped after the start", func(r []sim.Record) { r[1].ShipTime = 25 }, "shipped at 25, outside"},
		{"a reservation on no cluster", func(r []sim.Record) { r[1].ReservedCluster = 2 }, "a reservation on cluster 2 at 20 is not possible"},
		{"a charge above the payment", func(r []sim.Record) { r[1].Cost = 5 }, "charged 5, outside 0 and its payment 4"},
		{"a negative charge", func(r []sim.Record) { r[1].Cost = -1 }, "charged -1"},
		{"negative refusals", func(r []sim.Record) { r[1].Refusals = -1 }, "-1 refusals"},
		{"rejected on a cluster", func(r []sim.Record) { r[1].Rejected, r[1].End = true, 20 }, "rejected, yet on cluster 0 from 20 to 20"},
		{"rejected, yet ran", func(r []sim.Record) { r[1].Rejected, r[1].Cluster = true, -1 }, "rejected, yet on cluster -1 from 20 to 30"},
		{"rejected before its submission", func(r []sim.Record) {
			r[1] = sim.Record{Index: 1, Cluster: -1, Start: -1, End: -1, Rejected: true}
		}, "rejected at -1, outside its submission 0"},
		{"rejected, yet killed", func(r []sim.Record) {
			r[1] = sim.Record{Index: 1, Cluster: -1, Start: 4, End: 4, Rejected: true, Killed: true}
		}, "rejected, yet killed (true)"},
	} {
		recs := valid()
		c.change(recs)
		if err := verify.Records(plat, jobs, recs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
