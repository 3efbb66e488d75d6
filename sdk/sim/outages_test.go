package sim_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// fcfsAround starts waiting jobs in order while they fit on the nodes,
// leaving out for each job the nodes that a maintenance window reaches
// before its walltime is over, as a policy must under MaintenanceHard.
func fcfsAround(s *sdk.State, _ int) ([]sdk.Decision, error) {
	var out []sdk.Decision
	n, try := new(sdk.Nodes), new(sdk.Nodes)
	n.CopyFrom(s.Nodes[0])
	for _, j := range s.Queue {
		var a sdk.Alloc // a fresh one each time: the decision keeps it
		try.CopyFrom(n)
		for k := range sdk.WindowNodes(s, 0, j.Walltime) {
			try.SetFree(k, sdk.Amount{})
		}
		if !try.Place(j.Tasks, n.Layout.Rule(), &a) {
			break
		}
		n.Take(j.Tasks, a)
		out = append(out, sdk.StartAlloc(j, 0, a))
	}
	return out, nil
}

func outageText(r sim.Record, a sdk.Alloc) string {
	s := fmt.Sprintf("%d %d %s", r.Start, r.End, allocText(a))
	if r.Interrupted != 0 {
		s += " " + r.Interrupted.String()
	}
	if r.Attempts > 0 {
		s += fmt.Sprintf(" attempts=%d", r.Attempts)
	}
	return s
}

// TestOutagesHandWorked runs small platforms with failures, drains and
// maintenance windows whose schedules were worked out by hand, and checks
// them with the host's verification.
func TestOutagesHandWorked(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	four := sdk.Tasks{Count: 4, Cores: 1}
	fail := func(node int32, from, to int64) sdk.Outage {
		return sdk.Outage{Nodes: []int32{node}, Start: from, End: to, Kind: sdk.Failure}
	}
	requeue := sim.Faults{OnFailure: sim.FailRequeue}
	for _, tc := range []struct {
		name   string
		jobs   []nodeJob
		outs   []sdk.Outage
		faults sim.Faults
		policy func(*sdk.State, int) ([]sdk.Decision, error)
		want   []string // per job: "start end alloc [cause] [attempts=n]"
		tries  []string // Result.Attempts: "job start end cause node"
	}{
		// Node 0 fails at 30 under job 1, which is killed; job 3 waits
		// for the repair at 50.
		{"failure kills", []nodeJob{{1, 0, 100, four}, {2, 0, 100, four}, {3, 0, 10, four}},
			[]sdk.Outage{fail(0, 30, 50)}, sim.Faults{}, fcfsNodes,
			[]string{"0 30 0:4 failure attempts=1", "0 100 1:4", "50 60 0:4"},
			[]string{"1 0 30 failure 0"}},
		// Requeued, job 1 keeps its place before job 3 and starts again
		// at the repair; job 3 waits for job 2.
		{"failure requeues in place", []nodeJob{{1, 0, 100, four}, {2, 0, 100, four}, {3, 0, 10, four}},
			[]sdk.Outage{fail(0, 30, 50)}, requeue, fcfsNodes,
			[]string{"50 150 0:4 attempts=1", "0 100 1:4", "100 110 1:4"},
			[]string{"1 0 30 failure 0"}},
		// Losing its place, job 1 comes after job 3, which takes node 0
		// at the repair; job 1 follows it at 60.
		{"failure requeues last", []nodeJob{{1, 0, 100, four}, {2, 0, 100, four}, {3, 0, 10, four}},
			[]sdk.Outage{fail(0, 30, 50)}, sim.Faults{OnFailure: sim.FailRequeue, LosePlace: true}, fcfsNodes,
			[]string{"60 160 0:4 attempts=1", "0 100 1:4", "50 60 0:4"},
			[]string{"1 0 30 failure 0"}},
		// A job ending when its node fails has ended: the end comes first.
		{"end before failure", []nodeJob{{1, 0, 30, four}, {2, 0, 10, four}},
			[]sdk.Outage{fail(0, 30, 40)}, sim.Faults{}, fcfsNodes,
			[]string{"0 30 0:4", "0 10 1:4"}, nil},
		// Twice requeued: node 0 fails at 10 and, after the restart at
		// 20, again at 25.
		{"failing twice", []nodeJob{{1, 0, 50, four}, {2, 0, 1000, four}},
			[]sdk.Outage{fail(0, 10, 20), fail(0, 25, 30)}, requeue, fcfsNodes,
			[]string{"30 80 0:4 attempts=2", "0 1000 1:4"},
			[]string{"1 0 10 failure 0", "1 20 25 failure 0"}},
		// Node 0 drains from 50: job 1 runs to its end there, and job 3
		// goes to node 1 after job 2.
		{"drain", []nodeJob{{1, 0, 100, four}, {2, 0, 100, four}, {3, 10, 10, four}},
			[]sdk.Outage{{Nodes: []int32{0}, Start: 50, End: 300, Kind: sdk.Drain}}, sim.Faults{}, fcfsNodes,
			[]string{"0 100 0:4", "0 100 1:4", "100 110 1:4"}, nil},
		// A window on node 0 from 100: job 1 (150 s) cannot start there,
		// job 2 (50 s) can; job 3 (submitted at 60, 60 s) would reach the
		// window on node 0 and waits for node 1 at 150.
		{"maintenance hard", []nodeJob{{1, 0, 150, four}, {2, 0, 50, four}, {3, 60, 60, four}},
			[]sdk.Outage{{Nodes: []int32{0}, Start: 100, End: 200, Kind: sdk.Maintenance}}, sim.Faults{}, fcfsAround,
			[]string{"0 150 1:4", "0 50 0:4", "150 210 1:4"}, nil},
		// The same, the engine placing: it leaves node 0 out for job 1.
		{"maintenance hard, engine placing", []nodeJob{{1, 0, 150, four}, {2, 0, 50, four}},
			[]sdk.Outage{{Nodes: []int32{0}, Start: 100, End: 200, Kind: sdk.Maintenance}}, sim.Faults{}, func(s *sdk.State, call int) ([]sdk.Decision, error) {
				return []sdk.Decision{sdk.Start(s.Queue[0]), sdk.Start(s.Queue[1])}, nil
			},
			[]string{"0 150 1:4", "0 50 0:4"}, nil},
		// Soft: job 1 starts on node 0 and is killed when the window
		// begins; job 2, on node 1, is not reached by it.
		{"maintenance soft", []nodeJob{{1, 0, 150, four}, {2, 0, 150, four}},
			[]sdk.Outage{{Nodes: []int32{0}, Start: 100, End: 200, Kind: sdk.Maintenance}}, sim.Faults{Maintenance: sim.MaintenanceSoft}, fcfsNodes,
			[]string{"0 100 0:4 maintenance attempts=1", "0 150 1:4"},
			[]string{"1 0 100 maintenance 0"}},
		// A machine-wide window (no nodes named) with requeue: both jobs
		// go back to the queue and start again at its end.
		{"machine-wide soft, requeued", []nodeJob{{1, 0, 150, four}, {2, 0, 150, four}},
			[]sdk.Outage{{Start: 100, End: 200, Kind: sdk.Maintenance}}, sim.Faults{Maintenance: sim.MaintenanceSoft, OnFailure: sim.FailRequeue}, fcfsNodes,
			[]string{"200 350 0:4 attempts=1", "200 350 1:4 attempts=1"},
			[]string{"1 0 100 maintenance 0", "2 0 100 maintenance 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := nodeInputs(two, tc.jobs...)
			res, err := sim.Run(context.Background(), plugin(&scripted{fn: tc.policy}), sim.Config{Platform: two, Jobs: in, Outages: tc.outs, Faults: tc.faults})
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res.Records {
				if got := outageText(r, res.Allocs.Of(i)); got != tc.want[i] {
					t.Errorf("job id %d: %q, want %q", in[i].Job.ID, got, tc.want[i])
				}
			}
			var tries []string
			for _, a := range res.Attempts {
				tries = append(tries, fmt.Sprintf("%d %d %d %s %d", in[a.Index].Job.ID, a.Start, a.End, a.Cause, a.Node))
			}
			if strings.Join(tries, "; ") != strings.Join(tc.tries, "; ") {
				t.Errorf("attempts %q, want %q", tries, tc.tries)
			}
			if err := verify.Outages(two, in, tc.outs, tc.faults, false, res); err != nil {
				t.Errorf("verification: %v", err)
			}
		})
	}
}

// TestOutagesShown checks what a policy sees of outages: maintenance
// windows from the start, failures and drains while in effect, a
// failure's end unknown, and nodes out of service with nothing free.
func TestOutagesShown(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	outs := []sdk.Outage{
		{Nodes: []int32{1}, Start: 10, End: 20, Kind: sdk.Failure},
		{Start: 50, End: 60, Kind: sdk.Maintenance},
	}
	in := nodeInputs(two, nodeJob{1, 0, 1, sdk.Tasks{Count: 1, Cores: 1}}, nodeJob{2, 10, 1, sdk.Tasks{Count: 1, Cores: 1}},
		nodeJob{3, 20, 1, sdk.Tasks{Count: 1, Cores: 1}})
	var seen []string
	p := &scripted{fn: func(s *sdk.State, _ int) ([]sdk.Decision, error) {
		var parts []string
		for _, o := range s.Outages {
			parts = append(parts, fmt.Sprintf("%s %v %d-%d", o.Kind, o.Nodes, o.Start, o.End))
		}
		seen = append(seen, fmt.Sprintf("t=%d free=%d node1=%d [%s]", s.Now, s.Free[0][0], s.Nodes[0].Free[1].Cores, strings.Join(parts, ", ")))
		return fcfsNodes(s, 0)
	}}
	if _, err := sim.Run(context.Background(), plugin(p), sim.Config{Platform: two, Jobs: in, Outages: outs}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"t=0 free=8 node1=4 [maintenance [] 50-60]",
		"t=10 free=4 node1=0 [failure [1] 10--1, maintenance [] 50-60]",
		"t=20 free=8 node1=4 [maintenance [] 50-60]",
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("the policy saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

// TestOutagesBadInput checks that outages a platform cannot have are
// refused before the run starts, naming the outage.
func TestOutagesBadInput(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	pool := sdk.SingleCluster("pool", 8)
	in := nodeInputs(two, nodeJob{1, 0, 1, sdk.Tasks{Count: 1, Cores: 1}})
	for _, tc := range []struct {
		name string
		p    *sdk.Platform
		outs []sdk.Outage
		want string
	}{
		{"unknown node", two, []sdk.Outage{{Nodes: []int32{2}, Start: 0, End: 1, Kind: sdk.Failure}}, "node 2 of cluster"},
		{"negative duration", two, []sdk.Outage{{Start: 5, End: 4, Kind: sdk.Maintenance}}, "ends before it starts"},
		{"overlap", two, []sdk.Outage{{Nodes: []int32{1}, Start: 0, End: 10, Kind: sdk.Failure}, {Nodes: []int32{1}, Start: 5, End: 20, Kind: sdk.Failure}}, "overlaps an earlier one"},
		{"out of order", two, []sdk.Outage{{Start: 5, End: 6, Kind: sdk.Drain}, {Start: 1, End: 2, Kind: sdk.Drain}}, "not in order"},
		{"no nodes", pool, []sdk.Outage{{Start: 0, End: 1, Kind: sdk.Failure}}, "has no nodes"},
		{"unknown kind", two, []sdk.Outage{{Start: 0, End: 1}}, "unknown kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs := in
			if tc.p == pool {
				jobs = jobs[:0:0]
				jobs = append(jobs, sim.Input{Job: sdk.Job{ID: 1, Walltime: 1, Request: sdk.Vector{1}}, Runtime: 1})
			}
			_, err := sim.Run(context.Background(), plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: tc.p, Jobs: jobs, Outages: tc.outs})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestOutagesRandom runs random workloads on random machines with random
// failures, drains and maintenance windows under every rule, and checks
// each schedule with the host's verification, which sweeps every node
// independently of the engine, and that a rerun gives the same records.
func TestOutagesRandom(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 37))
		nodes := 2 + rng.IntN(6)
		p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: nodes, Cores: 4}}, nil, sdk.Placements()[rng.IntN(3)])
		var js []nodeJob
		for id := range int64(10 + rng.IntN(40)) {
			tasks := sdk.Tasks{Count: int32(1 + rng.IntN(8)), Cores: 1}
			if rng.IntN(3) == 0 {
				tasks = sdk.Tasks{Count: int32(1 + rng.IntN(2)), Cores: 1, Nodes: 1, Exclusive: true}
				tasks.Nodes = tasks.Count
			}
			js = append(js, nodeJob{id + 1, rng.Int64N(500), 1 + rng.Int64N(120), tasks})
		}
		outs := randomOutages(rng, nodes)
		f := sim.Faults{OnFailure: sim.OnFailure(rng.IntN(3)), LosePlace: rng.IntN(2) == 0, Maintenance: sim.MaintenanceRule(rng.IntN(2)),
			Checkpoint: sim.Checkpoint{Rule: sim.IntervalRule(rng.IntN(3)), Interval: 1 + rng.Int64N(50), Cost: rng.Int64N(10), Restart: rng.Int64N(10), MTBF: 2000}}
		in := nodeInputs(p, js...)
		for i := range in {
			in[i].Job.Walltime += rng.Int64N(60) // room for checkpoints
		}
		// Requeued in place, a job takes back its place by submission: the
		// queue stays in (submit, index) order at every call, each job once.
		checked := func(s *sdk.State, call int) ([]sdk.Decision, error) {
			if !f.LosePlace {
				for x := 1; x < len(s.Queue); x++ {
					a, b := s.Queue[x-1], s.Queue[x]
					if a.Submit > b.Submit || a.Submit == b.Submit && a.Index >= b.Index {
						return nil, fmt.Errorf("t=%d: queue position %d holds job %d after job %d", s.Now, x, b.ID, a.ID)
					}
				}
			}
			return fcfsAround(s, call)
		}
		run := func() *sim.Result {
			res, err := sim.Run(context.Background(), plugin(&scripted{fn: checked}), sim.Config{Platform: p, Jobs: in, Outages: outs, Faults: f})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			return res
		}
		res := run()
		if err := verify.Outages(p, in, outs, f, false, res); err != nil {
			t.Fatalf("seed %d (%+v): %v", seed, f, err)
		}
		again := run()
		if !slices.Equal(res.Records, again.Records) || !slices.Equal(res.Attempts, again.Attempts) {
			t.Fatalf("seed %d: a rerun gave other records", seed)
		}
	}
}

// TestCheckpointIntervals checks Young's and Daly's intervals against
// their formulas, worked out apart: C = 5 s, a node MTBF of 10,000 s. On
// one node M = 10,000: Young sqrt(2 C M) = 316.23, Daly 312.90; on four
// nodes M = 2,500: 158.11 and 154.80; Daly is M when C >= 2M.
func TestCheckpointIntervals(t *testing.T) {
	for _, tc := range []struct {
		c     sim.Checkpoint
		nodes int
		want  int64
	}{
		{sim.Checkpoint{Rule: sim.IntervalYoung, Cost: 5, MTBF: 10000}, 1, 316},
		{sim.Checkpoint{Rule: sim.IntervalDaly, Cost: 5, MTBF: 10000}, 1, 313},
		{sim.Checkpoint{Rule: sim.IntervalYoung, Cost: 5, MTBF: 10000}, 4, 158},
		{sim.Checkpoint{Rule: sim.IntervalDaly, Cost: 5, MTBF: 10000}, 4, 155},
		{sim.Checkpoint{Rule: sim.IntervalDaly, Cost: 30000, MTBF: 10000}, 1, 10000},
		{sim.Checkpoint{Rule: sim.IntervalFixed, Interval: 600}, 7, 600},
		{sim.Checkpoint{Rule: sim.IntervalYoung, Cost: 0, MTBF: 10000}, 1, 1},
	} {
		if got := tc.c.IntervalFor(tc.nodes); got != tc.want {
			t.Errorf("%+v on %d nodes: interval %d, want %d", tc.c, tc.nodes, got, tc.want)
		}
	}
}

// TestCheckpointHandWorked: a job of 100 s of work (walltime 200)
// checkpoints every 30 s of work, each checkpoint 5 s, a restart 10 s.
// Alone, its run lasts 100 + 5 x 3 = 115 s. Node 0 fails at 50 (repaired
// at 70): its first checkpoint completed at 35, the second would at 70,
// so 30 s of work are kept and 70 remain; it resumes at 70 for 10 + 70 +
// 5 x 2 = 90 s, ending at 160. Without a failure it ends at 115; with a
// walltime of 110, at 110, killed.
func TestCheckpointHandWorked(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	job := func(walltime int64) []sim.Input {
		in := nodeInputs(two, nodeJob{1, 0, 100, sdk.Tasks{Count: 4, Cores: 1}}, nodeJob{2, 0, 1000, sdk.Tasks{Count: 4, Cores: 1}})
		in[0].Job.Walltime = walltime
		return in
	}
	ck := sim.Faults{OnFailure: sim.FailCheckpoint, Checkpoint: sim.Checkpoint{Interval: 30, Cost: 5, Restart: 10}}
	fail := []sdk.Outage{{Nodes: []int32{0}, Start: 50, End: 70, Kind: sdk.Failure}}
	late := []sdk.Outage{{Nodes: []int32{1}, Start: 5000, End: 5001, Kind: sdk.Failure}}
	for _, tc := range []struct {
		name     string
		walltime int64
		outs     []sdk.Outage
		want     string
		tries    string
	}{
		{"failure", 200, fail, "70 160 0:4 attempts=1", "0-50 saved 30"},
		{"no failure", 200, late, "0 115 0:4", ""},
		{"killed at its walltime", 110, late, "0 110 0:4 killed", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := job(tc.walltime)
			res, err := sim.Run(context.Background(), plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: two, Jobs: in, Outages: tc.outs, Faults: ck})
			if err != nil {
				t.Fatal(err)
			}
			got := outageText(res.Records[0], res.Allocs.Of(0))
			if res.Records[0].Killed {
				got += " killed"
			}
			var tries []string
			for _, a := range res.Attempts {
				tries = append(tries, fmt.Sprintf("%d-%d saved %d", a.Start, a.End, a.Saved))
			}
			if got != tc.want || strings.Join(tries, "; ") != tc.tries {
				t.Errorf("job 1: %q, attempts %q; want %q, %q", got, tries, tc.want, tc.tries)
			}
			if err := verify.Outages(two, in, tc.outs, ck, false, res); err != nil {
				t.Errorf("verification: %v", err)
			}
		})
	}
}

// TestOutagesReviewCases checks cases an independent review found wrong:
// the hard rule under exact estimates keeps the known duration out of
// windows (engine and verification agree); exact estimates with
// checkpointing are refused; a requeued job cannot be rejected.
func TestOutagesReviewCases(t *testing.T) {
	one := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 1, Cores: 4}}, nil, sdk.FirstFit)
	in := nodeInputs(one, nodeJob{1, 0, 50, sdk.Tasks{Count: 4, Cores: 1}})
	in[0].Job.Walltime = 200
	window := []sdk.Outage{{Start: 100, End: 150, Kind: sdk.Maintenance}}
	start := func(s *sdk.State, _ int) ([]sdk.Decision, error) { return []sdk.Decision{sdk.Start(s.Queue[0])}, nil }
	// Exact: the policy sees 50 s, which ends before the window.
	res, err := sim.Run(context.Background(), plugin(&scripted{fn: start}), sim.Config{Platform: one, Jobs: in, Outages: window, ExactEstimates: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.Outages(one, in, window, sim.Faults{}, true, res); err != nil || res.Records[0].Start != 0 {
		t.Errorf("exact estimates: start %d, verification %v", res.Records[0].Start, err)
	}
	// Not exact: its walltime of 200 s reaches the window, so the start at 0
	// is refused; and the verification refuses it too.
	if _, err := sim.Run(context.Background(), plugin(&scripted{fn: start}), sim.Config{Platform: one, Jobs: in, Outages: window}); err == nil || !strings.Contains(err.Error(), "do not fit") {
		t.Errorf("a start reaching a window: %v", err)
	}
	if err := verify.Outages(one, in, window, sim.Faults{}, false, res); err == nil || !strings.Contains(err.Error(), "reaching its maintenance at 100") {
		t.Errorf("verification of a start reaching a window: %v", err)
	}
	ck := sim.Faults{OnFailure: sim.FailCheckpoint, Checkpoint: sim.Checkpoint{Interval: 10}}
	if _, err := sim.Run(context.Background(), plugin(&scripted{fn: start}), sim.Config{Platform: one, Jobs: in, Outages: window, ExactEstimates: true, Faults: ck}); err == nil || !strings.Contains(err.Error(), "exact estimates and checkpointing") {
		t.Errorf("exact estimates with checkpointing: %v", err)
	}
	// Rejecting a job that an outage requeued.
	fail := []sdk.Outage{{Start: 30, End: 40, Kind: sdk.Failure}}
	reject := func(s *sdk.State, call int) ([]sdk.Decision, error) {
		if s.Now == 30 {
			return []sdk.Decision{sdk.Reject(s.Queue[0])}, nil
		}
		return start(s, call)
	}
	if _, err := sim.Run(context.Background(), plugin(&scripted{fn: reject}), sim.Config{Platform: one, Jobs: in, Outages: fail, Faults: sim.Faults{OnFailure: sim.FailRequeue}}); err == nil || !strings.Contains(err.Error(), "a job that ran is not rejected") {
		t.Errorf("rejecting a requeued job: %v", err)
	}
}

// randomOutages draws failures of each of nodes nodes up to 700 s, and at
// random a drain of one node and a machine-wide maintenance window, in
// sdk.SortOutages order.
func randomOutages(rng *rand.Rand, nodes int) []sdk.Outage {
	var outs []sdk.Outage
	for k := range int32(nodes) {
		at := int64(0)
		for {
			at += 1 + rng.Int64N(300)
			if at > 700 {
				break
			}
			d := 1 + rng.Int64N(60)
			outs = append(outs, sdk.Outage{Nodes: []int32{k}, Start: at, End: at + d, Kind: sdk.Failure})
			at += d
		}
	}
	if rng.IntN(2) == 0 {
		s := rng.Int64N(600)
		outs = append(outs, sdk.Outage{Nodes: []int32{int32(rng.IntN(nodes))}, Start: s, End: s + 1 + rng.Int64N(200), Kind: sdk.Drain})
	}
	if rng.IntN(2) == 0 {
		s := rng.Int64N(600)
		outs = append(outs, sdk.Outage{Start: s, End: s + 1 + rng.Int64N(100), Kind: sdk.Maintenance})
	}
	sdk.SortOutages(outs)
	return outs
}
