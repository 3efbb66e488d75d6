package backfill

import (
	"context"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/machines"
	"github.com/schedlab/schedlab/workload/nodes"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// TestExclusiveNodesArePools checks, on every shared trace, that a machine
// of N nodes of C cores all alike, held whole, schedules as a pool of N
// processors where each job asks for its processors rounded up to whole
// nodes (ceil(P/C)): job for job the same start, under FCFS, EASY and
// conservative. The nodes are the known machine's (CEA-Curie, whose nodes
// are of three sizes, as 5,832 nodes of 16 cores); the schedule on nodes
// passes the host's verification. Each trace is taken whole up to its
// first equivalenceJobs jobs: rounded up to whole nodes, RICC's jobs (most
// of one to seven processors on nodes of eight) leave backlogs of tens of
// thousands of jobs, whose whole log takes minutes per policy.
const equivalenceJobs = 60_000

func TestExclusiveNodesArePools(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs every reference policy on every shared trace")
	}
	for _, src := range tracedata.SourcesForTest(t) {
		t.Run(src.File, func(t *testing.T) {
			path, err := tracedata.Path(src.File)
			if err != nil {
				t.Fatal(err)
			}
			w, err := workload.LoadSWF(path, 0, workload.DefaultClean())
			if err != nil {
				t.Fatal(err)
			}
			group := sdk.NodeGroup{Name: "node", Count: 5832, Cores: 16}
			for _, m := range machines.All() {
				if m.Trace == src.File && len(m.Groups) == 1 {
					group = m.Groups[0]
					group.Memory = 0
				}
			}
			w.Jobs = w.Jobs[:min(len(w.Jobs), equivalenceJobs)]
			if int64(group.Count)*group.Cores != w.Procs {
				t.Fatalf("%d nodes of %d cores for a trace of %d processors", group.Count, group.Cores, w.Procs)
			}
			plat := sdk.NodesPlatform("nodes", []sdk.NodeGroup{group}, nil, sdk.FirstFit)
			onNodes, _, err := nodes.Apply(plat, w, w.Jobs, nodes.Settings{Allocation: nodes.Exclusive, Memory: nodes.MemoryNone,
				NodeSize: nodes.NodeSmallest, Oversize: nodes.Fail})
			if err != nil {
				t.Fatal(err)
			}
			pool := make([]sim.Input, len(w.Jobs))
			copy(pool, w.Jobs)
			for i := range pool {
				p := pool[i].Job.Request[0]
				pool[i].Job.Request = sdk.Vector{(p + group.Cores - 1) / group.Cores}
			}
			poolPlat := sdk.SingleCluster("pool", int64(group.Count))
			for _, p := range []sdk.Plugin{FCFS(), EASY(), Conservative()} {
				a, err := sim.Run(context.Background(), p, sim.Config{Platform: poolPlat, Jobs: pool})
				if err != nil {
					t.Fatal(err)
				}
				b, err := sim.Run(context.Background(), p, sim.Config{Platform: plat, Jobs: onNodes})
				if err != nil {
					t.Fatal(err)
				}
				if err := verify.Result(plat, onNodes, b); err != nil {
					t.Fatalf("%s on nodes: %v", p.Info.Name, err)
				}
				for i := range a.Records {
					if a.Records[i].Start != b.Records[i].Start {
						t.Fatalf("%s: job id %d starts at %d on the pool, %d on nodes", p.Info.Name, pool[i].Job.ID, a.Records[i].Start, b.Records[i].Start)
					}
				}
				t.Logf("%s: %d jobs, the same starts on %d nodes of %d cores and on the pool", p.Info.Name, len(pool), group.Count, group.Cores)
			}
		})
	}
}

// TestEASYReadingsOnKTH runs EASY's two readings of its reservation on
// the shipped KTH-SP2 log as its machine, 100 one-core nodes held whole:
// the count reading gives every job the start it has on the pool of 100
// processors, while the batsched reading, whose reservation holds the
// lowest-numbered nodes free at the shadow time, starts about a third of
// the jobs at other times (9,175 of 28,467 when this was written).
func TestEASYReadingsOnKTH(t *testing.T) {
	w := loadTrace(t, "../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz")
	m, err := machines.Lookup("KTH-SP2")
	if err != nil {
		t.Fatal(err)
	}
	plat := m.Platform("", sdk.FirstFit)
	jobs, _, err := nodes.Apply(plat, w, w.Jobs, nodes.Settings{Allocation: nodes.Exclusive, Memory: nodes.MemoryNone,
		NodeSize: nodes.NodeSmallest, Oversize: nodes.Fail})
	if err != nil {
		t.Fatal(err)
	}
	pool, err := sim.Run(context.Background(), EASY(), sim.Config{Platform: sdk.SingleCluster("pool", 100), Jobs: w.Jobs})
	if err != nil {
		t.Fatal(err)
	}
	starts := map[string][]int64{}
	for _, reading := range []string{ReservationCount, ReservationBatsched} {
		res, err := sim.Run(context.Background(), EASY(), sim.Config{Platform: plat, Jobs: jobs, Params: map[string]string{"reservation": reading}})
		if err != nil {
			t.Fatal(err)
		}
		if err := verify.Result(plat, jobs, res); err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Records {
			starts[reading] = append(starts[reading], r.Start)
		}
	}
	differ := 0
	for i, r := range pool.Records {
		if starts[ReservationCount][i] != r.Start {
			t.Fatalf("count reading: job id %d starts at %d, at %d on the pool", jobs[i].Job.ID, starts[ReservationCount][i], r.Start)
		}
		if starts[ReservationBatsched][i] != r.Start {
			differ++
		}
	}
	if share := float64(differ) / float64(len(jobs)); share < 0.25 || share > 0.4 {
		t.Errorf("the batsched reading starts %d of %d jobs at other times (%.3f), not about a third", differ, len(jobs), share)
	}
	t.Logf("the batsched reading starts %d of %d jobs at other times", differ, len(jobs))
}
