package backfill

import (
	"context"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/policytest"
)

// TestConservativeNodesHandWorked is TestOnNodesHandWorked's case under
// reservation = nodes: two nodes of 4 cores, jobs 1 and 2 (3 tasks on one
// node) leave 1 core on each at t=0. Job 3 (2 tasks on one node) fits no
// node before job 1 ends: it is reserved at 10 on node 0 and starts then,
// as promised (counting totals promised it 1). Job 4 (1 task, 5 s) fits
// node 0's free core over [2, 7), which job 3's reservation does not
// reach: it starts at 2. Job 5 (1 task, 20 s), at 3, finds node 1's free
// core but node 0's is taken: over [3, 23) node 1 has 1 core free
// throughout, so it starts at 3 there. Job 6 (4 tasks on one node, 1 s), at
// 4, needs a whole node: node 0 is free of job 3 from 15, node 1 of jobs 2
// and 5 from 23: reserved at 15 on node 0.
func TestConservativeNodesHandWorked(t *testing.T) {
	plat := onNodes(2, 4, sdk.FirstFit)
	jobs := []job{
		{ID: 1, Submit: 0, Runtime: 10, Walltime: 10, Tasks: &sdk.Tasks{Count: 3, Cores: 1, Nodes: 1}},
		{ID: 2, Submit: 0, Runtime: 20, Walltime: 20, Tasks: &sdk.Tasks{Count: 3, Cores: 1, Nodes: 1}},
		{ID: 3, Submit: 1, Runtime: 5, Walltime: 5, Tasks: &sdk.Tasks{Count: 2, Cores: 1, Nodes: 1}},
		{ID: 4, Submit: 2, Runtime: 5, Walltime: 5, Tasks: shared(1)},
		{ID: 5, Submit: 3, Runtime: 20, Walltime: 20, Tasks: shared(1)},
		{ID: 6, Submit: 4, Runtime: 1, Walltime: 1, Tasks: &sdk.Tasks{Count: 4, Cores: 1, Nodes: 1}},
	}
	sc := policytest.Scenario{Name: "nodes", Platform: plat, Jobs: jobs, Params: map[string]string{"reservation": ReservationNodes},
		Want: []start{{ID: 1, At: 0, Promised: 0}, {ID: 2, At: 0, Promised: 0}, {ID: 3, At: 10, Promised: 10},
			{ID: 4, At: 2, Promised: 2}, {ID: 5, At: 3, Promised: 3}, {ID: 6, At: 15, Promised: 15}}}
	policytest.Run(t, Conservative(), sc)
	res, err := host.InProcess(Conservative()).Run(context.Background(), host.RunSpec{Platform: sc.Platform, Params: sc.Params}, sc.Inputs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"0:3", "1:3", "0:2", "0:1", "1:1", "0:4"} {
		if got := allocString(res.Allocs.Of(i)); got != want {
			t.Errorf("job %d on %q, want %q", i+1, got, want)
		}
	}
}

// TestConservativeNodesKeepsPromises runs conservative on random platforms
// of nodes (shared and exclusive jobs, memory, GPUs, partitions) and
// workloads whose jobs end before their walltimes: under reservation =
// nodes no job starts after the first time it was promised, every schedule
// passes the host's verification and the naive per-node check, in every
// order and compression; counting totals, some promises break on the same
// workloads.
func TestConservativeNodesKeepsPromises(t *testing.T) {
	broken := 0
	for seed := range uint64(40) {
		for _, params := range []map[string]string{
			{"reservation": ReservationNodes},
			{"reservation": ReservationNodes, "order": OrderShortest, "compress": CompressEveryEnd},
			{"reservation": ReservationNodes, "order": OrderLargest},
		} {
			sc := policytest.Random{Nodes: true, Jobs: 150, Params: params}.Scenario(seed)
			policytest.Check(t, Conservative(), sc, policytest.PromisesKept())
			res, err := host.InProcess(Conservative()).Run(context.Background(), host.RunSpec{Platform: sc.Platform, Params: sc.Params, Seed: sc.Seed}, sc.Inputs(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := naiveNodeCheck(sc.Platform, sc.Inputs(), res); err != nil {
				t.Fatalf("seed %d %v: %v", seed, params, err)
			}
		}
		sc := policytest.Random{Nodes: true, Jobs: 150}.Scenario(seed)
		res, err := host.InProcess(Conservative()).Run(context.Background(), host.RunSpec{Platform: sc.Platform, Params: sc.Params, Seed: sc.Seed}, sc.Inputs(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Records {
			if r.Promised >= 0 && r.Start > r.Promised {
				broken++
			}
		}
	}
	if broken == 0 {
		t.Error("counting totals broke no promise: the random workloads do not tell the readings apart")
	}
	t.Logf("counting totals broke %d promises", broken)
}

// TestConservativeNodesRefusesPools: reservation = nodes needs nodes.
func TestConservativeNodesRefusesPools(t *testing.T) {
	sc := policytest.Random{Jobs: 5, Params: map[string]string{"reservation": ReservationNodes}}.Scenario(1)
	_, err := host.InProcess(Conservative()).Run(context.Background(), host.RunSpec{Platform: sc.Platform, Params: sc.Params}, sc.Inputs(), nil)
	if err == nil {
		t.Fatal("reservation = nodes ran on a pool")
	}
}
