package runner

import (
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

func TestJobExtras(t *testing.T) {
	bb := &sdk.Platform{Name: "bb", Resources: []string{sdk.Processors, "bb", "lic"},
		Clusters: []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{4, 80, 2},
			Units: []sdk.Units{{Resource: 1, Capacity: []int64{40, 40}}}}}}
	jobs := []sim.Input{
		{Job: sdk.Job{ID: 1, Request: sdk.Vector{2, 60, 1}}},
		{Job: sdk.Job{ID: 2, Request: sdk.Vector{1, 0, 0}}},
		{Job: sdk.Job{ID: 3, Request: sdk.Vector{3}}}, // shorter than the platform: zeros
	}
	for _, tc := range []struct {
		name  string
		plat  *sdk.Platform
		units []int32
		want  results.JobExtras
	}{
		{"processors only", sdk.SingleCluster("p", 4), nil, results.JobExtras{}},
		{"burst buffer and licences", bb, []int32{1, 1, 0, 0, 0, 0}, results.JobExtras{
			Resources: []string{"bb", "lic"}, Requests: [][]int64{{60, 0, 0}, {1, 0, 0}},
			HasUnits: true, Units: []string{"1,1", "0,0", "0,0"}}},
		{"placements missing", bb, nil, results.JobExtras{
			Resources: []string{"bb", "lic"}, Requests: [][]int64{{60, 0, 0}, {1, 0, 0}},
			HasUnits: true, Units: []string{"0,0", "0,0", "0,0"}}},
	} {
		if got := JobExtras(tc.plat, jobs, make([]sim.Record, len(jobs)), tc.units, nil, false); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestGridRows: a grid run's jobs files say each job's home, priority or
// payment, and what the engine recorded of its shipment, reservation,
// charge, refusals and rejection.
func TestGridRows(t *testing.T) {
	grid := &sdk.Platform{Name: "g", Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{
		{Name: "a", Capacity: sdk.Vector{4}}, {Name: "b", Capacity: sdk.Vector{4}}}}
	jobs := []sim.Input{
		{Job: sdk.Job{ID: 1, Request: sdk.Vector{1}, Home: 2, Priority: 3}},
		{Job: sdk.Job{ID: 2, Request: sdk.Vector{1}, Transfer: 5, Priority: 40}},
		{Job: sdk.Job{ID: 3, Request: sdk.Vector{1}, Priority: 7}},
	}
	recs := []sim.Record{{Index: 0, Cluster: 1},
		{Index: 1, Shipped: true, ShipTime: 10, Reserved: true, ReservedAt: 15, Charged: true, Cost: 12.5, Refusals: 2},
		{Index: 2, Cluster: -1, Rejected: true}}
	x := JobExtras(grid, jobs, recs, nil, nil, false)
	p, pay, cost, ship, at := 3.0, 40.0, 12.5, int64(10), int64(15)
	pay3 := 7.0
	want := []results.GridRow{{Home: 1, Priority: &p},
		{Home: -1, Payment: &pay, Cost: &cost, ShipTime: &ship, ReservedAt: &at, Refusals: 2},
		{Home: -1, Payment: &pay3, Rejected: true}}
	if !reflect.DeepEqual(x.Grid, want) || len(x.Resources) != 0 || x.HasUnits {
		t.Errorf("%+v, want grid rows %+v", x, want)
	}
}
