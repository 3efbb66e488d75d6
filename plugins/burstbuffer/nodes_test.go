package burstbuffer_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/plugins/burstbuffer"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestRandomNodes runs every burst-buffer policy on random platforms of
// nodes (shared and exclusive jobs, node counts, memory, GPUs, features,
// partitions) beside a burst buffer of three units, jobs asking for pieces
// of it half the time: every schedule verified as a host verifies it (each
// node's cores, memory and GPUs and each unit never exceeded at any
// instant), bb-fcfs in submit order, a second run identical.
func TestRandomNodes(t *testing.T) {
	for seed := range uint64(6) {
		plat := policytest.WithBurstBuffer(policytest.RandomNodes(seed), 40, 40, 20)
		sc := policytest.Random{Platform: plat, Jobs: 100, MaxWalltime: 60, Burst: 3}.Scenario(seed)
		pieces := 0
		for _, r := range sc.Requests {
			if r[len(r)-1] > 0 {
				pieces++
			}
		}
		if pieces == 0 {
			t.Fatalf("seed %d: no job asks for the burst buffer", seed)
		}
		for _, p := range burstbuffer.Plugins() {
			var inv []policytest.Invariant
			if p.Info.Name == "bb-fcfs" {
				inv = append(inv, policytest.StartsInSubmitOrder())
			}
			recs := policytest.Check(t, p, sc, inv...)
			again, err := policytest.Simulate(p, sc)
			if err != nil || !reflect.DeepEqual(recs, again) {
				t.Fatalf("seed %d %s: a second run differs (%v)", seed, p.Info.Name, err)
			}
		}
	}
}

// TestNodesHandWorked: two shared nodes of 4 cores beside a burst buffer
// of two units of 40, a piece per core. A (3 cores, until 100) takes node
// 0 and B (3 cores, until 50) node 1, leaving a core on each. C (one task
// of 2 cores, 40 of the buffer), at 1, fits the totals (2 cores, 80 of
// the buffer free) but no node: it waits for B's end and runs from 50 on
// node 1. D (1 core, 100 s, no buffer), at 2, fits node 0 now. bb-fcfs
// keeps it behind C (50); bb-filler starts it at once; the EASY policies
// reserve C from its shadow time on the nodes, 50, where counting totals
// alone would reserve it now and hold D back, and backfill D at 2;
// bb-plan plans C from 50 too, and starts D now. On a pool of 8 processors
// C starts at 1, on the two cores D then waits for until 11.
func TestNodesHandWorked(t *testing.T) {
	plat := policytest.WithBurstBuffer(sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit), 40, 40)
	sc := policytest.Scenario{Platform: plat}
	for _, j := range []struct {
		id, submit, runtime int64
		cores               int32
		bb                  int64
	}{
		{1, 0, 100, 3, 0},
		{2, 0, 50, 3, 0},
		{3, 1, 10, 2, 40},
		{4, 2, 100, 1, 0},
	} {
		sc.Jobs = append(sc.Jobs, policytest.Job{ID: j.id, Submit: j.submit, Runtime: j.runtime, Walltime: j.runtime,
			Tasks: &sdk.Tasks{Count: 1, Cores: j.cores}})
		sc.Requests = append(sc.Requests, sdk.Vector{0, j.bb})
	}
	early := []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 50, Promised: 50}, {ID: 4, At: 2}}
	for _, tc := range []struct {
		p    sdk.Plugin
		want []policytest.Start
	}{
		{burstbuffer.FCFS(), []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 50}, {ID: 4, At: 50}}},
		{burstbuffer.Filler(), []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 50}, {ID: 4, At: 2}}},
		{burstbuffer.EASYProcs(), early},
		{burstbuffer.EASY(), early},
		{burstbuffer.EASYSJF(), early},
		{burstbuffer.Plan(), []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 50}, {ID: 4, At: 2}}},
	} {
		sc.Name, sc.Want = tc.p.Info.Name, tc.want
		policytest.Run(t, tc.p, sc)
	}
	// The same jobs on a pool of the nodes' 8 cores: C starts at once,
	// and D after it.
	pool := sc
	pool.Platform = &sdk.Platform{Name: "pool", Resources: []string{sdk.Processors, "bb"},
		Clusters: []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{8, 80}, Units: []sdk.Units{{Resource: 1, Capacity: []int64{40, 40}}}}}}
	pool.Requests = nil
	for i, j := range pool.Jobs {
		pool.Jobs[i].Procs, pool.Jobs[i].Tasks = int64(j.Tasks.Cores), nil
		pool.Requests = append(pool.Requests, sdk.Vector{int64(j.Tasks.Cores), sc.Requests[i][1]})
	}
	pool.Name, pool.Want = "pool", []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 1}, {ID: 4, At: 11}}
	policytest.Run(t, burstbuffer.EASY(), pool)
}

// TestPlanMissFreesItsPlace: two shared nodes of 4 cores, four jobs at 0:
// A and B (3 cores, 100 s) take a node each; C (2 cores, 10 s) fits the 2
// free cores in totals but no node; D (1 core, 100 s) fits node 0. bb-plan
// plans C now, cannot place it, and gives what it planned for C to the
// jobs after it: D starts at 0, beside A, as under bb-easy; C when A and B
// end.
func TestPlanMissFreesItsPlace(t *testing.T) {
	plat := sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	sc := policytest.Scenario{Platform: plat}
	for _, j := range []struct {
		id, runtime int64
		cores       int32
	}{{1, 100, 3}, {2, 100, 3}, {3, 10, 2}, {4, 100, 1}} {
		sc.Jobs = append(sc.Jobs, policytest.Job{ID: j.id, Runtime: j.runtime, Walltime: j.runtime, Tasks: &sdk.Tasks{Count: 1, Cores: j.cores}})
	}
	for _, p := range []sdk.Plugin{burstbuffer.Plan(), burstbuffer.EASY()} {
		sc.Name = p.Info.Name
		sc.Want = []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 100}, {ID: 4, At: 0}}
		if p.Info.Name == "bb-easy" {
			sc.Want[2].Promised = 100
		}
		policytest.Run(t, p, sc)
	}
}

// TestIOOnNodes: bb-easy and bb-plan on random platforms of nodes beside a
// burst buffer of three units, the jobs moving their data through it
// (stage-in, checkpoints drained to the file system, stage-out, all
// sharing the bandwidths): every schedule verified on the nodes and the
// units, and every job's end recomputed by verify.IO's own fluid sharing.
func TestIOOnNodes(t *testing.T) {
	slowed := 0
	for seed := range uint64(4) {
		plat := policytest.WithBurstBuffer(policytest.RandomNodes(seed), 40, 40, 20)
		model := &sdk.IO{Resource: len(plat.Resources) - 1, FSBandwidth: 1.5, UnitBandwidth: 1, SplitDuplex: true, NodeBandwidth: 0.75,
			StageIn: 1, Checkpoint: 0.5, StageOut: 1, Drain: true, PhaseSeconds: 60, MaxPhases: 4}
		in := policytest.Random{Platform: plat, Jobs: 100, MaxWalltime: 600, Burst: 20}.Scenario(seed).Inputs()
		for _, p := range []sdk.Plugin{burstbuffer.EASY(), burstbuffer.Plan()} {
			res, err := host.InProcess(p).Run(context.Background(), host.RunSpec{Platform: plat, IO: model}, in, nil)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, p.Info.Name, err)
			}
			c := verify.NewChecker(plat, in)
			c.ExpectIO(model)
			c.Add(res.Records)
			if err := c.Finish(res.Units, res.Allocs); err != nil {
				t.Fatalf("seed %d %s: %v", seed, p.Info.Name, err)
			}
			if err := verify.IO(plat, model, in, res); err != nil {
				t.Fatalf("seed %d %s: %v", seed, p.Info.Name, err)
			}
			for i, r := range res.Records {
				if r.End > r.Start+min(in[i].Runtime, in[i].Job.Walltime) {
					slowed++
				}
			}
		}
	}
	if slowed < 50 {
		t.Fatalf("%d runs slowed by their data: the test crosses too little of the model", slowed)
	}
	t.Logf("%d runs slowed by their data", slowed)
}

// TestHeldWholeInCall: one node of 8 cores then three of 4, jobs held
// whole, whose requests count 4 cores a node (the least of the
// partition), all at 0, each its walltime long. A (1 node, 1,000 s) takes
// the node of 8 and holds its 8 cores; B (2 nodes, 100 s) nodes 1 and 2.
// C (3 nodes, 100 s) fits nodes 1 to 3 once B ends, at 100, and is
// reserved then. D (1 node, 500 s) fits node 3 now, but would hold it
// past 100: the cores free from 100 to 200 beside C's reservation are
// 20 - 8 - 12 = 0. Counting A at its request, 4, in the call that starts
// it would leave 4 there, start D and delay C to 500. Every EASY policy
// keeps C at 100 and starts D when C ends, as easy does; so does bb-plan,
// whose plan D-then-C would rest on the same 4 cores that are not there.
func TestHeldWholeInCall(t *testing.T) {
	plat := sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "big", Count: 1, Cores: 8}, {Name: "small", Count: 3, Cores: 4}}, nil, sdk.FirstFit)
	sc := policytest.Scenario{Platform: plat}
	for _, j := range []struct {
		id, walltime int64
		nodes        int32
	}{{1, 1000, 1}, {2, 100, 2}, {3, 100, 3}, {4, 500, 1}} {
		sc.Jobs = append(sc.Jobs, policytest.Job{ID: j.id, Runtime: j.walltime, Walltime: j.walltime,
			Tasks: &sdk.Tasks{Count: j.nodes, Cores: 1, Nodes: j.nodes, Exclusive: true}})
	}
	want := []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 100, Promised: 100}, {ID: 4, At: 200}}
	for _, p := range []sdk.Plugin{burstbuffer.EASY(), burstbuffer.EASYProcs(), burstbuffer.EASYSJF(), burstbuffer.Plan(), backfill.EASY()} {
		sc.Name, sc.Want = p.Info.Name, slices.Clone(want)
		if p.Info.Name == "bb-plan" {
			sc.Want[2].Promised = 0 // bb-plan promises nothing
		}
		policytest.Run(t, p, sc)
	}
}

// TestIOWithPowerHandWorked: one node of 4 cores (idle 100 W, full
// 200 W: 25 W a core) beside a burst buffer of one unit; one job of the
// 4 cores and 4 pieces of 10 bytes, 10 s of compute. Its pieces stage in
// through the file system at 10 B/s, shared four ways: 40 bytes in 4 s,
// so the job ends at 14, not 10, and the node draws 200 W over [0, 14]:
// 1,400 J static and 1,400 J dynamic, as the engine and the host's
// recomputation (verify.Power) both count them.
func TestIOWithPowerHandWorked(t *testing.T) {
	plat := policytest.WithBurstBuffer(sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "n", Count: 1, Cores: 4}}, nil, sdk.FirstFit), 100)
	model := &sdk.IO{Resource: len(plat.Resources) - 1, FSBandwidth: 10, UnitBandwidth: 1000, StageIn: 1, MaxPhases: 1}
	power := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 10, Idle: 100, Full: 200}}}}
	req := make(sdk.Vector, len(plat.Resources))
	req[0], req[len(req)-1] = 4, 40
	in := []sim.Input{{Job: sdk.Job{ID: 1, Walltime: 100, Request: req, Tasks: &sdk.Tasks{Count: 1, Cores: 4}}, Runtime: 10}}
	for _, p := range []sdk.Plugin{burstbuffer.EASY(), burstbuffer.Plan()} {
		res, err := host.InProcess(p).Run(context.Background(), host.RunSpec{Platform: plat, IO: model, Power: power}, in, nil)
		if err != nil {
			t.Fatalf("%s: %v", p.Info.Name, err)
		}
		if r := res.Records[0]; r.Start != 0 || r.End != 14 || r.Killed {
			t.Fatalf("%s: the job ran %d-%d (killed %v), want 0-14", p.Info.Name, r.Start, r.End, r.Killed)
		}
		want := sim.Energy{From: 0, To: 14, Static: 1400, Dynamic: 1400}
		if got := res.Power.Energy; got != want {
			t.Errorf("%s: the engine counts %+v, want %+v", p.Info.Name, got, want)
		}
		if got, err := verify.Power(plat, power, nil, in, res); err != nil || got != want {
			t.Errorf("%s: the recomputation counts %+v (%v), want %+v", p.Info.Name, got, err, want)
		}
	}
}

// TestIOWithPower runs bb-easy and bb-plan on random platforms of nodes
// with the I/O model and a power model, under a cap half the time: every
// end is recomputed under the model (verify.IO), and the energy, counted
// from the nodes the jobs held from their start to their I/O-bound end,
// recomputed from the records (verify.Power), is the engine's.
func TestIOWithPower(t *testing.T) {
	slowed := 0
	for seed := range uint64(6) {
		plat := policytest.WithBurstBuffer(policytest.RandomNodes(seed), 40, 40, 20)
		model := &sdk.IO{Resource: len(plat.Resources) - 1, FSBandwidth: 1.5, UnitBandwidth: 1, SplitDuplex: true, NodeBandwidth: 0.75,
			StageIn: 1, Checkpoint: 0.5, StageOut: 1, Drain: true, PhaseSeconds: 60, MaxPhases: 4}
		// 10 W a core in use; under a cap, jobs of more than 40 % of
		// the cores are left out, so that each fits under the cap (60 %
		// of the cores in use) alone.
		power := &sdk.Power{Groups: [][]sdk.NodePower{nil}}
		var idle, cores float64
		for _, g := range plat.Clusters[0].Nodes {
			power.Groups[0] = append(power.Groups[0], sdk.NodePower{Off: 5, Idle: 50, Full: 50 + 10*float64(g.Cores)})
			idle, cores = idle+50*float64(g.Count), cores+float64(g.Count*int(g.Cores))
		}
		in := policytest.Random{Platform: plat, Jobs: 100, MaxWalltime: 600, Burst: 20}.Scenario(seed).Inputs()
		if seed%2 == 1 {
			power.Caps = []sdk.CapStep{{From: 0, Watts: idle + 10*0.6*cores}}
			in = slices.DeleteFunc(in, func(j sim.Input) bool { return float64(j.Job.Request[0]) > 0.4*cores })
			sim.Sort(in)
		}
		for _, p := range []sdk.Plugin{burstbuffer.EASY(), burstbuffer.Plan()} {
			res, err := host.InProcess(p).Run(context.Background(), host.RunSpec{Platform: plat, IO: model, Power: power}, in, nil)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, p.Info.Name, err)
			}
			if err := verify.IO(plat, model, in, res); err != nil {
				t.Fatalf("seed %d %s: %v", seed, p.Info.Name, err)
			}
			// verify.Power fails when the engine's energy differs from
			// its own by more than a relative 1e-9.
			if en, err := verify.Power(plat, power, nil, in, res); err != nil || en.Dynamic <= 0 {
				t.Fatalf("seed %d %s: %+v, %v", seed, p.Info.Name, en, err)
			}
			for i, r := range res.Records {
				if r.End > r.Start+min(in[i].Runtime, in[i].Job.Walltime) {
					slowed++
				}
			}
		}
	}
	if slowed < 50 {
		t.Fatalf("%d runs slowed by their data: the test crosses too little of the model", slowed)
	}
	t.Logf("%d runs slowed by their data", slowed)
}
