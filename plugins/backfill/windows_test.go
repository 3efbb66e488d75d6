package backfill

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestEASYPlansAroundWindowsHandWorked checks EASY's reservation around
// maintenance windows known in advance, in cases worked by hand; each job
// holds one node (4 tasks of a core on nodes of 4 cores) or two.
//
//   - The window moves the reservation. Nodes 0 and 1; A (1 node, 100 s)
//     on node 0 from 0; node 1 is in maintenance from 50 to 300. H (2
//     nodes, 100 s) arrives at 10: at A's end, 100, node 1 is in the
//     window, so H's shadow time is the window's end, 300 (without
//     counting the window it was 100, a promise the window broke). C (1
//     node, 250 s) and B (1 node, 150 s) arrive at 20: neither fits node
//     1 before the window, which they would reach. At 100 node 0 is free:
//     C would end at 350, after H's shadow time, on a node H needs then,
//     so it waits for H's end, 400 (counting the window as never ending,
//     as before, it started at 100 and H at 350); B ends at 250, before
//     it: it starts at 100.
//   - A job that would run into a window is not backfilled on its nodes.
//     Nodes 0 and 1; A (1 node, 1,000 s) on node 0; node 1 is in
//     maintenance from 200 to 300. H (2 nodes) waits for A, shadow 1,000,
//     the window over by then. D (1 node, 250 s, arriving first) would
//     run into the window on node 1: it waits for the window's end, 300;
//     E (1 node, 150 s) ends before the window: it starts at 20 on node 1.
//   - A job on a node the head cannot use does not delay it. Nodes 0-2; A
//     and B (1 node, 1,000 s) on nodes 0 and 1; node 2 is in maintenance
//     from 1,050 to 5,000. H (2 nodes, 100 s) arrives at 10; at 1,000 it
//     fits on nodes 0 and 1 (node 2 would reach the window): shadow 1,000,
//     nothing spare on the nodes H may use. J (1 node, 1,030 s) ends at
//     1,050, after the shadow time, on node 2, whose window keeps H off
//     it: it starts at 20, and H at 1,000.
//   - A drain's end. Nodes 0 and 1; X (1 node, 300 s) on node 0 and A (1
//     node, 100 s) on node 1 from 0; node 0 drains from 5 to 200. H (2
//     nodes, 100 s) arrives at 10: node 0 is back at 200 with X on it,
//     free at 300: shadow 300 (counting the drain as never ending, as
//     before, H had no reservation and C, 1 node for 250 s, arriving at
//     20, started at 100 on node 1 and delayed H to 350). C waits for
//     H's end, 400. With X of 150 s instead, gone before the drain ends,
//     node 0 is free when it is back: shadow 200, C at 300.
func TestEASYPlansAroundWindowsHandWorked(t *testing.T) {
	one := sdk.Tasks{Count: 4, Cores: 1}
	two := sdk.Tasks{Count: 8, Cores: 1}
	maint := func(node int32, start, end int64) []sdk.Outage {
		return []sdk.Outage{{Nodes: []int32{node}, Start: start, End: end, Kind: sdk.Maintenance}}
	}
	drain := []sdk.Outage{{Nodes: []int32{0}, Start: 5, End: 200, Kind: sdk.Drain}}
	for _, tc := range []struct {
		name     string
		nodes    int
		jobs     []job
		outs     []sdk.Outage
		want     map[int64]int64 // start by job id
		promised map[int64]int64 // the head's first promise
	}{
		{"the window moves the reservation", 2, []job{
			{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Tasks: &one},
			{ID: 2, Submit: 10, Runtime: 100, Walltime: 100, Tasks: &two},
			{ID: 3, Submit: 20, Runtime: 250, Walltime: 250, Tasks: &one},
			{ID: 4, Submit: 20, Runtime: 150, Walltime: 150, Tasks: &one},
		}, maint(1, 50, 300), map[int64]int64{1: 0, 2: 300, 3: 400, 4: 100}, map[int64]int64{2: 300}},
		{"not into a window", 2, []job{
			{ID: 1, Submit: 0, Runtime: 1000, Walltime: 1000, Tasks: &one},
			{ID: 2, Submit: 10, Runtime: 100, Walltime: 100, Tasks: &two},
			{ID: 3, Submit: 20, Runtime: 250, Walltime: 250, Tasks: &one},
			{ID: 4, Submit: 20, Runtime: 150, Walltime: 150, Tasks: &one},
		}, maint(1, 200, 300), map[int64]int64{1: 0, 2: 1000, 3: 300, 4: 20}, map[int64]int64{2: 1000}},
		{"a node the head cannot use", 3, []job{
			{ID: 1, Submit: 0, Runtime: 1000, Walltime: 1000, Tasks: &one},
			{ID: 2, Submit: 0, Runtime: 1000, Walltime: 1000, Tasks: &one},
			{ID: 3, Submit: 10, Runtime: 100, Walltime: 100, Tasks: &two},
			{ID: 4, Submit: 20, Runtime: 1030, Walltime: 1030, Tasks: &one},
		}, maint(2, 1050, 5000), map[int64]int64{1: 0, 2: 0, 3: 1000, 4: 20}, map[int64]int64{3: 1000}},
		{"a drain's end", 2, []job{
			{ID: 1, Submit: 0, Runtime: 300, Walltime: 300, Tasks: &one},
			{ID: 2, Submit: 0, Runtime: 100, Walltime: 100, Tasks: &one},
			{ID: 3, Submit: 10, Runtime: 100, Walltime: 100, Tasks: &two},
			{ID: 4, Submit: 20, Runtime: 250, Walltime: 250, Tasks: &one},
		}, drain, map[int64]int64{1: 0, 2: 0, 3: 300, 4: 400}, map[int64]int64{3: 300}},
		{"a drain's end, its job gone", 2, []job{
			{ID: 1, Submit: 0, Runtime: 150, Walltime: 150, Tasks: &one},
			{ID: 2, Submit: 0, Runtime: 100, Walltime: 100, Tasks: &one},
			{ID: 3, Submit: 10, Runtime: 100, Walltime: 100, Tasks: &two},
			{ID: 4, Submit: 20, Runtime: 250, Walltime: 250, Tasks: &one},
		}, drain, map[int64]int64{1: 0, 2: 0, 3: 200, 4: 300}, map[int64]int64{3: 200}},
	} {
		for _, pl := range []struct {
			p      sdk.Plugin
			params map[string]string
		}{{EASY(), nil}, {EASY(), map[string]string{"reservation": ReservationBatsched}}, {Multifactor(), nil},
			{Multifactor(), map[string]string{"SchedulerType": SchedBackfill, "SchedulerParameters": "sched_interval=0,bf_interval=0,bf_resolution=1"}}} {
			t.Run(tc.name+"/"+pl.p.Info.Name+"/"+pl.params["reservation"]+pl.params["SchedulerType"], func(t *testing.T) {
				p := onNodes(tc.nodes, 4, sdk.FirstFit)
				in := policytest.Scenario{Platform: p, Jobs: tc.jobs}.Inputs()
				res, err := host.InProcess(pl.p).Run(context.Background(), host.RunSpec{Platform: p, Params: pl.params, Outages: tc.outs}, in, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := verify.Outages(p, in, tc.outs, sim.Faults{}, false, res); err != nil {
					t.Fatal(err)
				}
				for i, r := range res.Records {
					id := in[i].Job.ID
					if want, ok := tc.want[id]; ok && r.Start != want {
						t.Errorf("job %d starts at %d, want %d", id, r.Start, want)
					}
					if want, ok := tc.promised[id]; ok && (!r.HasPromise || r.Promised != want) {
						t.Errorf("job %d promised %d (%v), want %d", id, r.Promised, r.HasPromise, want)
					}
				}
			})
		}
	}
}

// TestEASYKeepsPromisesAroundWindows: with exact estimates, on disjoint
// partitions of nodes all alike held whole (where EASY keeps every promise
// without outages, TestEASYCountKeepsPromisesOnPartitions), random
// maintenance windows known in advance (machine-wide and on a few nodes,
// some in effect at once) break no promise: no head starts later than its
// first reservation, in either reading. Without counting the windows,
// promises break (the test checks that some heads were promised a
// window's end, which only a reservation that counts the window promises,
// so that it tests something).
func TestEASYKeepsPromisesAroundWindows(t *testing.T) {
	plat := sdk.NodesPlatform("two", []sdk.NodeGroup{{Name: "thin", Count: 10, Cores: 4}, {Name: "fat", Count: 3, Cores: 8}},
		[]sdk.Partition{{Name: "thin", Groups: []string{"thin"}, Default: true}, {Name: "fat", Groups: []string{"fat"}}}, sdk.FirstFit)
	promises, late := 0, 0
	for seed := range uint64(20) {
		sc := policytest.Random{Platform: plat, Jobs: 200, Exact: true}.Scenario(seed)
		for i := range sc.Jobs {
			part := int32(1 + (seed+uint64(i))%2)
			per, most := int32(4), int32(6)
			if part == 2 {
				per, most = 8, 3
			}
			n := 1 + int32(uint64(i)*7%uint64(most))
			sc.Jobs[i].Tasks = &sdk.Tasks{Count: n * per, Cores: 1, Nodes: n, Exclusive: true, Partition: part}
		}
		in := sc.Inputs()
		horizon := in[len(in)-1].Job.Submit + 1
		r := rand.New(rand.NewPCG(seed, 37))
		var outs []sdk.Outage
		for range 6 {
			s := r.Int64N(horizon)
			o := sdk.Outage{Start: s, End: s + 1 + r.Int64N(300), Kind: sdk.Maintenance}
			if r.IntN(3) > 0 {
				for k := range int32(13) {
					if r.IntN(3) == 0 {
						o.Nodes = append(o.Nodes, k)
					}
				}
			}
			outs = append(outs, o)
		}
		sdk.SortOutages(outs)
		for _, params := range []map[string]string{nil, {"reservation": ReservationBatsched}} {
			res, err := host.InProcess(EASY()).Run(context.Background(), host.RunSpec{Platform: plat, Params: params, ExactEstimates: true, Outages: outs}, in, nil)
			if err != nil {
				t.Fatalf("seed %d, %v: %v", seed, params, err)
			}
			if err := verify.Outages(plat, in, outs, sim.Faults{}, true, res); err != nil {
				t.Fatalf("seed %d, %v: %v", seed, params, err)
			}
			if err := policytest.PromisesKept().Check(in, res.Records); err != nil {
				t.Errorf("seed %d, %v: %v", seed, params, err)
			}
			// A promise at a window's end is one the window moved: only
			// counting the window puts a shadow time there.
			for _, rec := range res.Records {
				if rec.HasPromise {
					promises++
					for _, o := range outs {
						if rec.Promised == o.End {
							late++
							break
						}
					}
				}
			}
		}
	}
	t.Logf("%d promises, %d at a window's end", promises, late)
	if promises == 0 || late == 0 {
		t.Errorf("%d promises, %d of them moved by a window: the test tests too little", promises, late)
	}
}
