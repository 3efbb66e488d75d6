package broker

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// withFeatures returns plat with the given features on its clusters.
func withFeatures(plat *sdk.Platform, features ...[]string) *sdk.Platform {
	for c, f := range features {
		plat.Clusters[c].Features = f
	}
	return plat
}

// runCounts is run that also returns the policy's counts.
func runCounts(t *testing.T, p sdk.Plugin, params map[string]string, plat *sdk.Platform, jobs []sim.Input) (map[int64]sim.Record, map[string]int64) {
	t.Helper()
	res, err := sim.Run(context.Background(), p, sim.Config{Platform: plat, Jobs: jobs, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.Result(plat, jobs, res); err != nil {
		t.Fatal(err)
	}
	out := map[int64]sim.Record{}
	for i, r := range res.Records {
		out[jobs[i].Job.ID] = r
	}
	return out, res.Stats.PolicyCounts
}

// TestFeaturesPlaceJob, worked by hand: clusters a and b of 4 processors,
// only b with feature gpu. At 0 local jobs 1 and 2 of b (2 processors,
// 100 s, priority 1) and global job 3 (2 processors, 50 s, paying 0, no
// transfer) arrive. Without a requirement every broker puts job 3 on a,
// idle, at 0. Requiring gpu it runs on b whatever that costs in time:
// at 100, when b's local jobs end (lookahead: idle processors only, its
// payment buying none of a local job's; greedy and fixed-low: after the
// local jobs of b's queue; lazy: once b's queue is empty and processors
// are free), or at 0 (fixed-high: before the local jobs, of which job 2
// then waits to 50; static: b's global half is free).
func TestFeaturesPlaceJob(t *testing.T) {
	jobs := func(requires uint64) []sim.Input {
		in := inputs(j{id: 1, procs: 2, wall: 100, run: 100, home: 2, prio: 1},
			j{id: 2, procs: 2, wall: 100, run: 100, home: 2, prio: 1},
			j{id: 3, procs: 2, wall: 50, run: 50})
		in[2].Job.Requires = requires
		return in
	}
	for _, tc := range []struct {
		policy sdk.Plugin
		params map[string]string
		start  int64 // job 3's start on b when it requires gpu
	}{
		{Lookahead(), nil, 100},
		{Greedy(), nil, 100},
		{FixedPriority(), map[string]string{"level": "low"}, 100},
		{FixedPriority(), map[string]string{"level": "high"}, 0},
		{Lazy(), nil, 100},
		{Static(), nil, 0},
	} {
		t.Run(fmt.Sprint(tc.policy.Info.Name, tc.params), func(t *testing.T) {
			plat := withFeatures(gridPlatform(4, 4), nil, []string{"gpu"})
			free := run(t, tc.policy, tc.params, plat, jobs(0))
			if r := free[3]; r.Cluster != 0 || r.Start != 0 {
				t.Errorf("without a requirement: job 3 on cluster %d at %d, want a (0) at 0", r.Cluster, r.Start)
			}
			bound, counts := runCounts(t, tc.policy, tc.params, plat, jobs(1))
			if r := bound[3]; r.Cluster != 1 || r.Start != tc.start {
				t.Errorf("requiring gpu: job 3 on cluster %d at %d, want b (1) at %d", r.Cluster, r.Start, tc.start)
			}
			if counts["rejected_unmatched"] != 0 {
				t.Errorf("counts %v, want no job rejected unmatched", counts)
			}
		})
	}
}

// TestFeaturesReject, by hand: a has 4 processors, b 2 and feature gpu.
// Global job 1 (3 processors) requires gpu: only a is large enough, and a
// lacks gpu, so every broker rejects it and counts it unmatched. Job 2 (1
// processor, gpu; grid-static keeps 1 of b's 2 for global jobs) runs on b
// at 0, job 3 (3 processors, no requirement) on
// a at 0 (grid-static rejects it, wider than a's global half, 2, which is
// no feature's doing and not counted).
func TestFeaturesReject(t *testing.T) {
	jobs := inputs(j{id: 1, procs: 3, wall: 10, run: 10}, j{id: 2, procs: 1, wall: 10, run: 10}, j{id: 3, procs: 3, wall: 10, run: 10})
	jobs[0].Job.Requires, jobs[1].Job.Requires = 1, 1
	for _, p := range Plugins() {
		t.Run(p.Info.Name, func(t *testing.T) {
			plat := withFeatures(gridPlatform(4, 2), nil, []string{"gpu"})
			recs, counts := runCounts(t, p, nil, plat, jobs)
			if !recs[1].Rejected || recs[1].Start != 0 {
				t.Errorf("job 1: %+v, want rejected at 0", recs[1])
			}
			if r := recs[2]; r.Rejected || r.Cluster != 1 || r.Start != 0 {
				t.Errorf("job 2: %+v, want on b at 0", r)
			}
			static := p.Info.Name == "grid-static"
			if r := recs[3]; r.Rejected != static || (!static && (r.Cluster != 0 || r.Start != 0)) {
				t.Errorf("job 3: %+v, want on a at 0 (rejected by grid-static)", r)
			}
			if counts["rejected_unmatched"] != 1 {
				t.Errorf("counts %v, want rejected_unmatched 1", counts)
			}
		})
	}
	// Without features on the platform a policy counts nothing, so that
	// the records of runs without features stay as they were.
	for _, p := range Plugins() {
		if _, counts := runCounts(t, p, nil, gridPlatform(4, 2), inputs(j{id: 1, procs: 2, wall: 10, run: 10})); counts != nil {
			t.Errorf("%s counts %v on a platform without features, want none", p.Info.Name, counts)
		}
	}
}

// TestRandomGridsFeatures runs every grid policy on random grids whose
// global jobs require features: a has gpu, b big; a third of the global
// jobs require gpu, a sixth big, a tenth both, which no cluster has. Every
// run is checked as a host checks it, and: no job starts on a cluster
// lacking a feature it requires; every job requiring both is rejected and
// counted unmatched, and no other.
func TestRandomGridsFeatures(t *testing.T) {
	for _, p := range Plugins() {
		for seed := range uint64(4) {
			jobs := randomGrid(seed, 300, seed%2 == 0)
			both := 0
			for i := range jobs {
				jb := &jobs[i].Job
				if jb.Home != 0 {
					continue
				}
				switch k := (jb.ID * 7) % 30; {
				case k < 3:
					jb.Requires = 3 // big (0) and gpu (1)
					both++
				case k < 13:
					jb.Requires = 2
				case k < 18:
					jb.Requires = 1
				}
			}
			params := map[string]string{}
			if p.Info.Name == "grid-lookahead" && seed%2 == 1 {
				params["slots"], params["idle_price"] = "computer", "0.5"
			}
			t.Run(fmt.Sprintf("%s/%d", p.Info.Name, seed), func(t *testing.T) {
				plat := withFeatures(gridPlatform(16, 32), []string{"gpu"}, []string{"big"})
				recs, counts := runCounts(t, p, params, plat, jobs)
				onA, onB := 0, 0
				for _, in := range jobs {
					r, jb := recs[in.Job.ID], in.Job
					if r.Rejected {
						continue
					}
					if !plat.Serves(int(r.Cluster), &jb) {
						t.Fatalf("job %d requires %s and ran on cluster %d", jb.ID, plat.FeatureList(jb.Requires), r.Cluster)
					}
					switch jb.Requires {
					case 2:
						onA++
					case 1:
						onB++
					}
				}
				if counts["rejected_unmatched"] != int64(both) || both == 0 || onA == 0 || onB == 0 {
					t.Errorf("%d jobs rejected unmatched, %d require both; %d gpu jobs and %d big ones ran", counts["rejected_unmatched"], both, onA, onB)
				}
			})
		}
	}
}
