package verify_test

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestFeatureRecords checks the verification of cluster features on a
// valid schedule of one global job requiring "gpu", which only cluster b
// has, shipped at 0, reserved and started at 10 on b; moving its start or
// its reservation to cluster a is caught.
func TestFeatureRecords(t *testing.T) {
	plat := &sdk.Platform{Name: "g", Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{
		{Name: "a", Capacity: sdk.Vector{4}, Features: []string{"big"}}, {Name: "b", Capacity: sdk.Vector{2}, Features: []string{"gpu"}}}}
	jobs := []sim.Input{{Job: sdk.Job{ID: 1, Submit: 0, Walltime: 10, Request: sdk.Vector{2}, Transfer: 10, Priority: 4, Requires: 2}, Runtime: 10}}
	valid := func() []sim.Record {
		return []sim.Record{{Index: 0, Cluster: 1, Start: 10, End: 20, Shipped: true, ShipTime: 0, Reserved: true, ReservedAt: 10,
			ReservedCluster: 1, Promised: 10, HasPromise: true}}
	}
	if err := verify.Records(plat, jobs, valid()); err != nil {
		t.Fatalf("the valid schedule: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(r []sim.Record)
		want   string
	}{
		{"run without the feature", func(r []sim.Record) { r[0].Cluster, r[0].ReservedCluster = 0, 0 },
			`job id 1: it requires features [gpu] and runs on cluster "a", which has [big]`},
		{"reserved without the feature", func(r []sim.Record) { r[0].ReservedCluster = 0 },
			`job id 1: it requires features [gpu] and holds a reservation on cluster "a", which lacks them`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := valid()
			c.change(r)
			if err := verify.Records(plat, jobs, r); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
