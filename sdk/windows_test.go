package sdk

import (
	"slices"
	"testing"
)

// TestWindowNodes checks which nodes WindowNodes sets aside for a job
// starting at 100: those of maintenance windows beginning after now and
// before its walltime ends, on its cluster, every node for a window
// without nodes; none of windows in effect, drains or failures.
func TestWindowNodes(t *testing.T) {
	p := NodesPlatform("m", []NodeGroup{{Name: "n", Count: 4, Cores: 2}}, nil, FirstFit)
	s := &State{Now: 100, Nodes: []*Nodes{NewLayout(p, 0).NewNodes()}}
	for _, tc := range []struct {
		name     string
		outs     []Outage
		walltime int64
		want     []int32
	}{
		{"none", nil, 50, nil},
		{"a window within the walltime", []Outage{{Nodes: []int32{1, 3}, Start: 120, End: 200, Kind: Maintenance}}, 50, []int32{1, 3}},
		{"a window at the walltime's end", []Outage{{Nodes: []int32{1}, Start: 150, End: 200, Kind: Maintenance}}, 50, nil},
		{"a window a second before it", []Outage{{Nodes: []int32{1}, Start: 149, End: 200, Kind: Maintenance}}, 50, []int32{1}},
		{"a window in effect", []Outage{{Nodes: []int32{2}, Start: 100, End: 200, Kind: Maintenance}}, 50, nil},
		{"the whole machine", []Outage{{Start: 101, End: 200, Kind: Maintenance}}, 50, []int32{0, 1, 2, 3}},
		{"drains and failures", []Outage{{Nodes: []int32{0}, Start: 110, End: 200, Kind: Drain}, {Nodes: []int32{2}, Start: 120, End: -1, Kind: Failure}}, 50, nil},
		{"another cluster", []Outage{{Cluster: 1, Nodes: []int32{0}, Start: 110, End: 200, Kind: Maintenance}}, 50, nil},
		{"two windows", []Outage{{Nodes: []int32{0}, Start: 110, End: 120, Kind: Maintenance}, {Nodes: []int32{0, 2}, Start: 130, End: 140, Kind: Maintenance},
			{Nodes: []int32{3}, Start: 500, End: 600, Kind: Maintenance}}, 50, []int32{0, 0, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.Outages = tc.outs
			got := slices.Collect(WindowNodes(s, 0, tc.walltime))
			if !slices.Equal(got, tc.want) {
				t.Errorf("nodes %v, want %v", got, tc.want)
			}
		})
	}
	if got := slices.Collect(WindowNodes(s, 3, 50)); got != nil {
		t.Errorf("a cluster the state does not have: %v", got)
	}
}
