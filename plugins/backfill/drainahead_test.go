package backfill

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestEASYDrainAheadHandWorked: nodes 0 and 1, node 0 in maintenance
// from 100 to 200; A (1 node, 30 s) from 0 on node 0, B and C (1 node,
// 20 s) arriving at 60 and 61, D (1 node, 10 s) at 150, E (2 nodes, 10
// s) at 210. Without drain_ahead, B ends by the window: it takes node 0
// at 60 and C node 1 at 61. With drain_ahead = 50, easy drains node 0 at
// its first call from 50 on, at 60: B takes node 1, C waits for it
// (promised 80); D takes node 1 at 150 (node 0 in its window); at 210,
// the window over, easy resumes node 0 and E takes both. The drain of
// node 0 lasts from 60 to 210.
func TestEASYDrainAheadHandWorked(t *testing.T) {
	one, two := sdk.Tasks{Count: 4, Cores: 1}, sdk.Tasks{Count: 8, Cores: 1}
	p := onNodes(2, 4, sdk.FirstFit)
	outs := []sdk.Outage{{Nodes: []int32{0}, Start: 100, End: 200, Kind: sdk.Maintenance}}
	in := policytest.Scenario{Platform: p, Jobs: []job{
		{ID: 1, Submit: 0, Runtime: 30, Walltime: 30, Tasks: &one},
		{ID: 2, Submit: 60, Runtime: 20, Walltime: 20, Tasks: &one},
		{ID: 3, Submit: 61, Runtime: 20, Walltime: 20, Tasks: &one},
		{ID: 4, Submit: 150, Runtime: 10, Walltime: 10, Tasks: &one},
		{ID: 5, Submit: 210, Runtime: 10, Walltime: 10, Tasks: &two},
	}}.Inputs()
	for _, tc := range []struct {
		lead   string
		want   string // per job: "start:first node"
		drains string
	}{
		{"-1", "0:0 60:0 61:1 150:1 210:0", ""},
		{"50", "0:0 60:1 80:1 150:1 210:0", "0 60 210"},
		// Drained from the first call (0, at most 200 before the
		// window): A goes to node 1.
		{"200", "0:1 60:1 80:1 150:1 210:0", "0 0 210"},
	} {
		t.Run(tc.lead, func(t *testing.T) {
			res, err := host.InProcess(EASY()).Run(context.Background(), host.RunSpec{Platform: p, Params: map[string]string{"drain_ahead": tc.lead}, Outages: outs}, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := verify.Drains(p, in, outs, sim.Faults{}, false, res); err != nil {
				t.Fatal(err)
			}
			var got, drains []string
			for i, r := range res.Records {
				got = append(got, fmt.Sprintf("%d:%d", r.Start, res.Allocs.Of(i).Nodes[0]))
			}
			for _, d := range res.Drains {
				drains = append(drains, fmt.Sprintf("%d %d %d", d.Node, d.Start, d.End))
			}
			if strings.Join(got, " ") != tc.want || strings.Join(drains, "; ") != tc.drains {
				t.Errorf("starts %q, drains %q; want %q, %q", strings.Join(got, " "), strings.Join(drains, "; "), tc.want, tc.drains)
			}
		})
	}
}

// TestEASYDrainAheadRandom: on random workloads with random maintenance
// windows, easy draining ahead (drain_ahead from 0 to 2,000 s) gives
// schedules the host verifies, drains included, and, with exact
// estimates on nodes all alike held whole (where easy keeps every promise
// around windows, TestEASYKeepsPromisesAroundWindows), breaks no promise:
// its reservations count the drains ahead.
func TestEASYDrainAheadRandom(t *testing.T) {
	plat := onNodes(12, 4, sdk.FirstFit)
	drains, promises := 0, 0
	for seed := range uint64(40) {
		sc := policytest.Random{Platform: plat, Jobs: 200, Exact: true}.Scenario(seed)
		for i := range sc.Jobs {
			n := 1 + int32(uint64(i)*7%5)
			sc.Jobs[i].Tasks = &sdk.Tasks{Count: n * 4, Cores: 1, Nodes: n, Exclusive: true}
		}
		in := sc.Inputs()
		horizon := in[len(in)-1].Job.Submit + 1
		r := rand.New(rand.NewPCG(seed, 41))
		var outs []sdk.Outage
		for range 6 {
			s := r.Int64N(horizon)
			o := sdk.Outage{Start: s, End: s + 1 + r.Int64N(300), Kind: sdk.Maintenance}
			if r.IntN(3) > 0 {
				for k := range int32(12) {
					if r.IntN(3) == 0 {
						o.Nodes = append(o.Nodes, k)
					}
				}
			}
			outs = append(outs, o)
		}
		sdk.SortOutages(outs)
		lead := fmt.Sprint(r.Int64N(2001))
		for _, params := range []map[string]string{{"drain_ahead": lead}, {"drain_ahead": lead, "reservation": ReservationBatsched}} {
			res, err := host.InProcess(EASY()).Run(context.Background(), host.RunSpec{Platform: plat, Params: params, ExactEstimates: true, Outages: outs}, in, nil)
			if err != nil {
				t.Fatalf("seed %d, %v: %v", seed, params, err)
			}
			if err := verify.Drains(plat, in, outs, sim.Faults{}, true, res); err != nil {
				t.Fatalf("seed %d, %v: %v", seed, params, err)
			}
			if err := policytest.PromisesKept().Check(in, res.Records); err != nil {
				t.Errorf("seed %d, %v: %v", seed, params, err)
			}
			drains += len(res.Drains)
			for _, rec := range res.Records {
				if rec.HasPromise {
					promises++
				}
			}
		}
	}
	t.Logf("%d drains, %d promises", drains, promises)
	if drains < 100 || promises == 0 {
		t.Errorf("%d drains, %d promises: the test tests too little", drains, promises)
	}
}

// TestEASYDrainAheadRefused: drain_ahead is refused where it cannot work,
// naming the setting.
func TestEASYDrainAheadRefused(t *testing.T) {
	nodes := onNodes(2, 4, sdk.FirstFit)
	for _, tc := range []struct {
		p      *sdk.Platform
		params map[string]string
		want   string
	}{
		{nodes, map[string]string{"drain_ahead": "-2"}, "drain_ahead = -2: want -1"},
		{sdk.SingleCluster("pool", 8), map[string]string{"drain_ahead": "10"}, "platform \"pool\" has none"},
		{nodes, map[string]string{"drain_ahead": "10", "windows": WindowsIgnore}, "windows = ignore ignores"},
	} {
		in := policytest.Scenario{Platform: tc.p, Jobs: []job{{ID: 1, Runtime: 1, Walltime: 1, Procs: 1}}}.Inputs()
		if tc.p.HasNodes() {
			in = policytest.Scenario{Platform: tc.p, Jobs: []job{{ID: 1, Runtime: 1, Walltime: 1, Tasks: &sdk.Tasks{Count: 1, Cores: 1}}}}.Inputs()
		}
		_, err := host.InProcess(EASY()).Run(context.Background(), host.RunSpec{Platform: tc.p, Params: tc.params}, in, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one saying %q", tc.params, err, tc.want)
		}
	}
}
