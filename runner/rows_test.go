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
		if got := JobExtras(tc.plat, jobs, tc.units); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
