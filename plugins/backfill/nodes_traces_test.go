package backfill

import (
	"context"
	"fmt"
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
// passes the host's verification.
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
				t.Log(fmt.Sprintf("%s: %d jobs, the same starts on %d nodes of %d cores and on the pool", p.Info.Name, len(pool), group.Count, group.Cores))
			}
		})
	}
}
