package sdk_test

import (
	"encoding/json"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// TestPlatformJSON pins the JSON form of a platform, which results record
// as provenance: renaming a field must not change it.
func TestPlatformJSON(t *testing.T) {
	p := sdk.Platform{Name: "kth-bb", Resources: []string{sdk.Processors, "bb"}, Clusters: []sdk.Cluster{
		{Name: "kth", Capacity: sdk.Vector{100, 60}, Units: []sdk.Units{{Resource: 1, PiecesBy: 0, Capacity: []int64{20, 40}}}},
		{Name: "small", Capacity: sdk.Vector{4, 0}},
	}}
	const want = `{"name":"kth-bb","resources":["procs","bb"],"clusters":[` +
		`{"name":"kth","capacity":[100,60],"units":[{"resource":1,"pieces_by":0,"capacity":[20,40]}]},` +
		`{"name":"small","capacity":[4,0]}]}`
	b, err := json.Marshal(p)
	if err != nil || string(b) != want {
		t.Fatalf("platform JSON\n%s\nwant\n%s (%v)", b, want, err)
	}
}
