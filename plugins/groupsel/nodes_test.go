package groupsel

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestPlacementMiss: two shared nodes of 4 cores; A takes 3 cores of node
// 0 until 100. C (2 cores) and D (3 cores), both at 1 for 50 s, fit the 5
// free cores together and each fits node 1 alone, so the selection
// (reserve = false) takes both; C starts on node 1 (first fit: node 0 has
// 1 core) and D, left 2 cores there, waits (one placement miss) until C
// ends at 51. With the reservation C starts in queue order and D, the
// head, is promised C's end, 51: no miss.
func TestPlacementMiss(t *testing.T) {
	plat := sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	task := func(cores int32) *sdk.Tasks { return &sdk.Tasks{Count: 1, Cores: cores} }
	jobs := []job{
		{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Tasks: task(3)},
		{ID: 2, Submit: 1, Runtime: 50, Walltime: 50, Tasks: task(2)},
		{ID: 3, Submit: 1, Runtime: 50, Walltime: 50, Tasks: task(3)},
	}
	for _, tc := range []struct {
		reserve string
		want    []start
		misses  int64
	}{
		{"false", []start{{ID: 1, At: 0}, {ID: 2, At: 1}, {ID: 3, At: 51}}, 1},
		{"true", []start{{ID: 1, At: 0}, {ID: 2, At: 1}, {ID: 3, At: 51, Promised: 51}}, 0},
	} {
		params := map[string]string{"reserve": tc.reserve}
		sc := policytest.Scenario{Name: "reserve " + tc.reserve, Platform: plat, Jobs: jobs, Params: params, Want: tc.want}
		policytest.Run(t, Plugin(), sc)
		res, err := sim.Run(context.Background(), Plugin(), sim.Config{Platform: plat, Jobs: sc.Inputs(), Params: params})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Stats.PolicyCounts[CountPlacementMisses]; got != tc.misses {
			t.Errorf("reserve %s: %d placement misses, want %d", tc.reserve, got, tc.misses)
		}
	}
	// A burst buffer beside the nodes it would select in totals only:
	// refused at Init, naming the policy.
	bb := policytest.WithBurstBuffer(sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit), 40, 40)
	if _, err := policytest.Simulate(Plugin(), policytest.Scenario{Platform: bb, Jobs: jobs}); err == nil ||
		!strings.Contains(err.Error(), "groupsel does not place pieces on divided resources") {
		t.Errorf("groupsel beside a burst buffer: %v", err)
	}
	// On a pool the count is not there: its records are as before.
	res, err := sim.Run(context.Background(), Plugin(), sim.Config{Platform: sdk.SingleCluster("p", 8),
		Jobs: policytest.Scenario{Procs: 8, Jobs: three}.Inputs()})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Stats.PolicyCounts[CountPlacementMisses]; ok {
		t.Errorf("counts %v on a pool, want no %s", res.Stats.PolicyCounts, CountPlacementMisses)
	}
}

// TestExclusiveNodesArePool: on 16 nodes of 4 cores held whole, groupsel
// starts every job when it does on a pool of 64 processors whose requests
// are rounded up to whole nodes' cores (fits, shadow times and extra
// capacity are then the same numbers), with and without the reservation,
// and misses no placement.
func TestExclusiveNodesArePool(t *testing.T) {
	for seed := range uint64(4) {
		sc := policytest.Random{Procs: 64, Jobs: 200, MaxWalltime: 500}.Scenario(seed)
		plat, onNodes, pool := policytest.OnWholeNodes(sc.Inputs(), 16, 4)
		for _, params := range []map[string]string{{"window": "8"}, {"window": "8", "reserve": "false", "value": "procs"}} {
			name := fmt.Sprintf("seed %d %v", seed, params)
			a, err := sim.Run(context.Background(), Plugin(), sim.Config{Platform: sdk.SingleCluster("pool", 64), Jobs: pool, Params: params})
			if err != nil {
				t.Fatal(err)
			}
			b, err := sim.Run(context.Background(), Plugin(), sim.Config{Platform: plat, Jobs: onNodes, Params: params})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := verify.Result(plat, onNodes, b); err != nil {
				t.Fatalf("%s on nodes: %v", name, err)
			}
			for i := range a.Records {
				if a.Records[i].Start != b.Records[i].Start {
					t.Fatalf("%s: job %d starts at %d on the pool, %d on nodes", name, pool[i].Job.ID, a.Records[i].Start, b.Records[i].Start)
				}
			}
			if b.Stats.PolicyCounts[CountSolves] == 0 || b.Stats.PolicyCounts[CountPlacementMisses] != 0 {
				t.Fatalf("%s: counts %v: want searches and no miss", name, b.Stats.PolicyCounts)
			}
			counts := maps.Clone(b.Stats.PolicyCounts)
			delete(counts, CountPlacementMisses)
			if !maps.Equal(counts, a.Stats.PolicyCounts) {
				t.Fatalf("%s: counts %v on nodes, %v on the pool", name, b.Stats.PolicyCounts, a.Stats.PolicyCounts)
			}
		}
	}
}

// TestRandomNodes: groupsel on random platforms of nodes (shared and
// exclusive jobs, node counts, memory, GPUs, features), with and without
// the reservation, every schedule verified as a host verifies it, no
// state kept between runs; some selections miss their placement.
func TestRandomNodes(t *testing.T) {
	var misses int64
	for seed := range uint64(10) {
		for _, reserve := range []string{"true", "false"} {
			sc := policytest.Random{Nodes: true, Jobs: 150, Params: map[string]string{"reserve": reserve, "window": "10"}}.Scenario(seed)
			policytest.Check(t, Plugin(), sc)
			res, err := sim.Run(context.Background(), Plugin(), sim.Config{Platform: sc.Platform, Jobs: sc.Inputs(), Params: sc.Params})
			if err != nil {
				t.Fatal(err)
			}
			misses += res.Stats.PolicyCounts[CountPlacementMisses]
		}
	}
	policytest.NoStateBetweenRuns(t, Plugin(), policytest.Random{Nodes: true, Jobs: 80}.Scenario(1), policytest.Random{Nodes: true, Jobs: 80}.Scenario(2))
	if misses == 0 {
		t.Fatal("no selection missed its placement: the random platforms test too little")
	}
	t.Logf("%d placement misses", misses)
}
