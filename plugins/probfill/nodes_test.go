package probfill

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestShortfall: the head's shortfall, worked by hand, on a pool and on
// nodes of 4 cores whose free cores are given.
func TestShortfall(t *testing.T) {
	plat := sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "n", Count: 3, Cores: 4}}, nil, sdk.FirstFit)
	layout := sdk.NewLayout(plat, 0)
	job := func(tk sdk.Tasks) *sdk.Job {
		j := &sdk.Job{Tasks: &tk, Request: make(sdk.Vector, plat.Dims())}
		layout.Request(&tk, j.Request)
		return j
	}
	for _, tc := range []struct {
		name string
		head *sdk.Job
		free []int64 // free cores of the three nodes
		want int64
	}{
		// One task of 2 cores: the 2 free cores are one on each of two
		// nodes, where it fits nowhere (a pool would say 0).
		{"fragmented", job(sdk.Tasks{Count: 1, Cores: 2}), []int64{1, 1, 0}, 2},
		// Two tasks of 2 cores: one fits the node with 3 free, the other
		// lacks its 2 cores.
		{"one task placed", job(sdk.Tasks{Count: 2, Cores: 2}), []int64{3, 1, 0}, 2},
		// Two nodes held whole: one wholly free node, one half free (which
		// an exclusive job cannot take), one busy: one node of 4 cores short.
		{"exclusive", job(sdk.Tasks{Count: 2, Cores: 4, Nodes: 2, Exclusive: true}), []int64{4, 2, 0}, 4},
		// Two tasks of a core on exactly two nodes: both fit the free node,
		// but the job needs a second node, whose core is what it lacks.
		{"node count", job(sdk.Tasks{Count: 2, Cores: 1, Nodes: 2}), []int64{4, 0, 0}, 1},
		// Room for it, not started (a window, a cap): one task short.
		{"room but not started", job(sdk.Tasks{Count: 1, Cores: 2}), []int64{4, 4, 4}, 2},
		{"three tasks short", job(sdk.Tasks{Count: 5, Cores: 2}), []int64{1, 3, 0}, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := layout.NewNodes()
			for k, c := range tc.free {
				n.SetFree(int32(k), sdk.Amount{Cores: c})
			}
			var free int64
			for _, c := range tc.free {
				free += c
			}
			if got := Shortfall(tc.head, sdk.Vector{free}, n); got != tc.want {
				t.Errorf("shortfall %d, want %d", got, tc.want)
			}
		})
	}
	if got := Shortfall(&sdk.Job{Request: sdk.Vector{10}}, sdk.Vector{2}, nil); got != 8 {
		t.Errorf("on a pool: shortfall %d, want 10 - 2 = 8", got)
	}
}

// TestHandScenarioOnNodes: two shared nodes of 4 cores. A and B take 3
// cores each (A on node 0, B on node 1, first fit), leaving one core on
// each; C, the head, needs one task of 2 cores, which neither node has:
// on nodes it is short of 2 cores, where the pool's count (2 free, 2
// asked) says 0 and would backfill anything. D needs a core for 100 s:
// with lambda = 6/min, mu = 0.5, PErr(0.1, 100, 0.5, 2, 1) decides. Above
// it D starts at 2 on node 0 and C at 50 when A ends; below it D waits
// and starts with C at 50 (C on node 0, D beside it).
func TestHandScenarioOnNodes(t *testing.T) {
	p := PErr(0.1, 100, 0.5, 2, 1)
	if p <= 0.01 || p >= 0.99 {
		t.Fatalf("the scenario needs a middling probability, got %v", p)
	}
	plat := sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	task := func(cores int32) *sdk.Tasks { return &sdk.Tasks{Count: 1, Cores: cores} }
	jobs := []policytest.Job{
		{ID: 1, Submit: 0, Runtime: 50, Walltime: 50, Tasks: task(3)},
		{ID: 2, Submit: 0, Runtime: 60, Walltime: 60, Tasks: task(3)},
		{ID: 3, Submit: 1, Runtime: 10, Walltime: 10, Tasks: task(2)},
		{ID: 4, Submit: 2, Runtime: 100, Walltime: 100, Tasks: task(1)},
	}
	params := func(tau float64) map[string]string {
		return map[string]string{"tau": ftoa(tau), "lambda": "6", "mu": "0.5"}
	}
	policytest.Run(t, Plugin(), policytest.Scenario{Name: "tau above PErr: backfill", Platform: plat, Jobs: jobs,
		Params: params(p + 1e-6), Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 50}, {ID: 4, At: 2}}})
	policytest.Run(t, Plugin(), policytest.Scenario{Name: "tau below PErr: wait", Platform: plat, Jobs: jobs,
		Params: params(p - 1e-6), Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 50}, {ID: 4, At: 50}}})
}

// TestExclusiveNodesArePool: on 8 nodes of 8 cores held whole, both
// variants start every job when they do on a pool of 64 processors whose
// requests are rounded up to whole nodes' cores: fits, shortfalls and the
// model's estimates are then the same numbers.
func TestExclusiveNodesArePool(t *testing.T) {
	for seed := range uint64(3) {
		jobs, _ := synthetic(t, seed)
		plat, onNodes, pool := policytest.OnWholeNodes(jobs, 8, 8)
		for _, tc := range []struct {
			p      sdk.Plugin
			params map[string]string
		}{
			{Plugin(), map[string]string{"tau": "0.05"}},
			{Plugin(), map[string]string{"tau": "0.3", "te": "mean"}},
			{NF(), map[string]string{"tau": "0.1"}},
		} {
			name := fmt.Sprintf("seed %d %s %v", seed, tc.p.Info.Name, tc.params)
			a := run(t, tc.p, pool, sdk.SingleCluster("pool", 64), tc.params)
			res, err := sim.Run(context.Background(), tc.p, sim.Config{Platform: plat, Jobs: onNodes, Params: tc.params})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := verify.Result(plat, onNodes, res); err != nil {
				t.Fatalf("%s on nodes: %v", name, err)
			}
			backfilled := 0
			for i := range a {
				if a[i].Start != res.Records[i].Start {
					t.Fatalf("%s: job %d starts at %d on the pool, %d on nodes", name, pool[i].Job.ID, a[i].Start, res.Records[i].Start)
				}
				if i > 0 && a[i].Start < a[i-1].Start {
					backfilled++
				}
			}
			if backfilled == 0 {
				t.Fatalf("%s: no job starts before one submitted earlier: the case tests nothing", name)
			}
		}
	}
}

// TestRandomNodes: both variants on random platforms of nodes (shared and
// exclusive jobs, node counts, memory, GPUs, features), every schedule
// verified as a host verifies it, and no state kept from one run to the
// next.
func TestRandomNodes(t *testing.T) {
	for seed := range uint64(12) {
		for _, p := range []sdk.Plugin{Plugin(), NF()} {
			sc := policytest.Random{Nodes: true, Jobs: 150, Params: map[string]string{"tau": "0.2"}}.Scenario(seed)
			policytest.Check(t, p, sc)
			if seed == 0 {
				policytest.NoStateBetweenRuns(t, p, sc, policytest.Random{Nodes: true, Jobs: 80}.Scenario(99))
			}
		}
	}
}

// TestWindowsOnNodes: one node of 4 cores, a job of 4 tasks and 200 s at
// 0, a maintenance window from 100 to 150. With windows = avoid the job
// waits for the window's end; with ignore it starts at 0, and the soft
// rule ends it at 100 while the hard rule refuses the start.
func TestWindowsOnNodes(t *testing.T) {
	four := sdk.Tasks{Count: 4, Cores: 1}
	plat := sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "n", Count: 1, Cores: 4}}, nil, sdk.FirstFit)
	in := policytest.Scenario{Platform: plat, Jobs: []policytest.Job{{ID: 1, Submit: 0, Runtime: 200, Walltime: 200, Tasks: &four}}}.Inputs()
	outs := []sdk.Outage{{Start: 100, End: 150, Kind: sdk.Maintenance}}
	soft := sim.Faults{Maintenance: sim.MaintenanceSoft}
	for _, p := range []sdk.Plugin{Plugin(), NF()} {
		for _, tc := range []struct {
			windows string
			f       sim.Faults
			want    string
		}{
			{backfill.WindowsAvoid, sim.Faults{}, "150-350"},
			{backfill.WindowsAvoid, soft, "150-350"},
			{backfill.WindowsIgnore, soft, "0-100"},
			{backfill.WindowsIgnore, sim.Faults{}, "refused"},
		} {
			res, err := host.InProcess(p).Run(context.Background(), host.RunSpec{Platform: plat,
				Params: map[string]string{"windows": tc.windows}, Outages: outs, Faults: tc.f}, in, nil)
			got := "refused"
			if err == nil {
				got = fmt.Sprintf("%d-%d", res.Records[0].Start, res.Records[0].End)
				if verr := verify.Outages(plat, in, outs, tc.f, false, res); verr != nil {
					t.Errorf("%s, windows %s: %v", p.Info.Name, tc.windows, verr)
				}
			} else if !strings.Contains(err.Error(), "fenced off by maintenance windows") {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("%s, windows %s, %+v: %s, want %s", p.Info.Name, tc.windows, tc.f, got, tc.want)
			}
		}
	}
}
