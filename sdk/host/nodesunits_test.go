package host_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestNodesAndUnitsOverTheWire runs random workloads on platforms of nodes
// beside a burst buffer divided into three units through a plugin of this
// SDK: the platform, the free units and the running jobs' placements on
// both cross the wire, and the records, allocations and placements come
// back as the in-process run's, valid by the host's replay.
func TestNodesAndUnitsOverTheWire(t *testing.T) {
	p := servedPlugin(t, "1")
	withBB := 0
	for seed := range uint64(6) {
		plat := policytest.WithBurstBuffer(policytest.RandomNodes(seed), 40, 40, 20)
		jobs := policytest.Random{Platform: plat, Jobs: 150, Burst: 5}.Scenario(seed).Inputs()
		spec := host.RunSpec{Platform: plat, Seed: seed}
		got, err := p.Run(context.Background(), spec, jobs, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := verify.Result(plat, jobs, got); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		want, err := host.InProcess(firstFitPlugin()).Run(context.Background(), spec, jobs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Records, want.Records) || !reflect.DeepEqual(got.Units, want.Units) || !reflect.DeepEqual(got.Allocs, want.Allocs) {
			t.Fatalf("seed %d: the plugin's records, placements or allocations differ from the in-process run's", seed)
		}
		for i := range jobs {
			if got.Units[i*3]+got.Units[i*3+1]+got.Units[i*3+2] > 0 {
				withBB++
			}
		}
	}
	if withBB < 50 {
		t.Fatalf("%d jobs held pieces of the burst buffer: the test crosses too little of it", withBB)
	}
}
