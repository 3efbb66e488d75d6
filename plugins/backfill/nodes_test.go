package backfill

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
)

// excl is an exclusive request of n one-core nodes.
func excl(n int32) *sdk.Tasks { return &sdk.Tasks{Count: n, Cores: 1, Nodes: n, Exclusive: true} }

// shared is a request of n tasks of one core on shared nodes.
func shared(n int32) *sdk.Tasks { return &sdk.Tasks{Count: n, Cores: 1} }

func onNodes(n int, cores int64, rule sdk.Placement) *sdk.Platform {
	return sdk.NodesPlatform("nodes", []sdk.NodeGroup{{Name: "n", Count: n, Cores: cores}}, nil, rule)
}

// TestEASYOnNodesHandWorked checks the two readings of EASY's reservation
// on nodes where they differ: the example of batsched's easy_bf, worked by
// hand. Four one-core nodes; X (2 nodes, 5 s) and Y (2 nodes, 10 s) fill
// them at t=0 (X on nodes 0-1, Y on 2-3 by first fit). At t=5 X ends: the
// head H (3 nodes) waits for Y, shadow time 10. L (1 node, 100 s) fits now
// on node 0 and runs past the shadow time.
//   - count: 4 nodes free at t=10, H holds 3: one extra, which L takes. L
//     starts at 5 on node 0, H at 10 on nodes 1-3, as promised.
//   - batsched: H's reservation is nodes 0-2, the lowest free at t=10; L
//     may use only what that leaves now, nothing (node 3 is Y's until 10).
//     L starts at 10 on node 3, beside H.
func TestEASYOnNodesHandWorked(t *testing.T) {
	jobs := []job{
		{ID: 1, Submit: 0, Runtime: 5, Walltime: 5, Tasks: excl(2)},
		{ID: 2, Submit: 0, Runtime: 10, Walltime: 10, Tasks: excl(2)},
		{ID: 3, Submit: 1, Runtime: 10, Walltime: 10, Tasks: excl(3)},
		{ID: 4, Submit: 2, Runtime: 100, Walltime: 100, Tasks: excl(1)},
	}
	for _, tc := range []struct {
		reading string
		want    []start
		allocs  []string
	}{
		{ReservationCount, []start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 10, Promised: 10}, {ID: 4, At: 5}},
			[]string{"0:1 1:1", "2:1 3:1", "1:1 2:1 3:1", "0:1"}},
		{ReservationBatsched, []start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 10, Promised: 10}, {ID: 4, At: 10}},
			[]string{"0:1 1:1", "2:1 3:1", "0:1 1:1 2:1", "3:1"}},
	} {
		t.Run(tc.reading, func(t *testing.T) {
			sc := policytest.Scenario{Name: tc.reading, Platform: onNodes(4, 1, sdk.FirstFit), Jobs: jobs,
				Params: map[string]string{"reservation": tc.reading}, Want: tc.want}
			runPlaced(t, EASY(), sc, tc.allocs)
		})
	}
}

// TestOnNodesHandWorked checks FCFS and EASY on shared nodes, where a job
// that fits the free cores in total may fit no node: two nodes of 4 cores.
// Job 1 (3 tasks) and job 2 (3 tasks) leave 1 core on each node at t=0;
// job 3 (2 tasks, 1 node) fits the 2 free cores in total but no node, and
// waits for job 1 (t=10); job 4 (1 task) fits now.
func TestOnNodesHandWorked(t *testing.T) {
	plat := onNodes(2, 4, sdk.FirstFit)
	oneNode := &sdk.Tasks{Count: 2, Cores: 1, Nodes: 1}
	jobs := []job{
		{ID: 1, Submit: 0, Runtime: 10, Walltime: 10, Tasks: &sdk.Tasks{Count: 3, Cores: 1, Nodes: 1}},
		{ID: 2, Submit: 0, Runtime: 20, Walltime: 20, Tasks: &sdk.Tasks{Count: 3, Cores: 1, Nodes: 1}},
		{ID: 3, Submit: 1, Runtime: 5, Walltime: 5, Tasks: oneNode},
		{ID: 4, Submit: 2, Runtime: 5, Walltime: 5, Tasks: shared(1)},
	}
	policytest.Run(t, FCFS(), policytest.Scenario{Name: "fcfs", Platform: plat, Jobs: jobs,
		Want: []start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 10}, {ID: 4, At: 10}}})
	// EASY: job 4 ends by the shadow time (10) and backfills at 2.
	policytest.Run(t, EASY(), policytest.Scenario{Name: "easy", Platform: plat, Jobs: jobs,
		Want: []start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 10, Promised: 10}, {ID: 4, At: 2}}})
	// Conservative counts: job 3's 2 cores are free in total at t=1, so
	// it is reserved then (promised 1); the rule cannot place it, so it is
	// reserved again from the next expected end, job 1's at 10, where it
	// starts: a broken promise. Job 4 (1 core) is reserved at 2 and
	// starts then, on node 0's free core.
	policytest.Run(t, Conservative(), policytest.Scenario{Name: "conservative", Platform: plat, Jobs: jobs,
		Want: []start{{ID: 1, At: 0, Promised: 0}, {ID: 2, At: 0, Promised: 0}, {ID: 3, At: 10, Promised: 1}, {ID: 4, At: 2, Promised: 2}}})
}

// TestConservativeOnExclusiveNodesKeepsPromises: on nodes all alike held
// whole, a reservation that fits the count always places, so conservative
// keeps every promise, whatever the order.
func TestConservativeOnExclusiveNodesKeepsPromises(t *testing.T) {
	plat := onNodes(12, 4, sdk.BestFit)
	for seed := range uint64(20) {
		sc := policytest.Random{Platform: plat, Jobs: 200}.Scenario(seed)
		for i := range sc.Jobs {
			n := int32(1 + (seed+uint64(i))%6)
			sc.Jobs[i].Tasks = &sdk.Tasks{Count: n * 3, Cores: 1, Nodes: n, Exclusive: true}
		}
		for _, order := range []string{OrderSubmit, OrderLargest} {
			sc.Params = map[string]string{"order": order}
			policytest.Check(t, Conservative(), sc, policytest.PromisesKept())
		}
	}
}

// TestOnRandomNodes runs FCFS and both readings of EASY on random platforms
// of nodes and workloads: every schedule passes the host's verification
// and a naive per-node check of the test's own, FCFS starts in submit
// order, EASY under the batsched reading keeps its promises (its
// reservation holds nodes), and in process equals a fresh policy run twice.
func TestOnRandomNodes(t *testing.T) {
	for seed := range uint64(40) {
		for _, tc := range []struct {
			p          sdk.Plugin
			params     map[string]string
			invariants []policytest.Invariant
		}{
			{FCFS(), nil, []policytest.Invariant{policytest.StartsInSubmitOrder()}},
			{EASY(), nil, nil},
			{EASY(), map[string]string{"reservation": ReservationBatsched}, []policytest.Invariant{policytest.PromisesKept()}},
			{EASY(), map[string]string{"reservation": ReservationBatsched, "order": OrderShortest}, nil},
			{Conservative(), nil, nil},
			{Conservative(), map[string]string{"order": OrderShortest, "compress": CompressEveryEnd}, nil},
		} {
			sc := policytest.Random{Nodes: true, Jobs: 150, Params: tc.params}.Scenario(seed)
			policytest.Check(t, tc.p, sc, tc.invariants...)
			res, err := host.InProcess(tc.p).Run(context.Background(), host.RunSpec{Platform: sc.Platform, Params: sc.Params, Seed: sc.Seed}, sc.Inputs(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := naiveNodeCheck(sc.Platform, sc.Inputs(), res); err != nil {
				t.Fatalf("seed %d, %s %v: %v", seed, tc.p.Info.Name, tc.params, err)
			}
		}
	}
}

// naiveNodeCheck checks, at every start, each node's cores, memory and
// GPUs against what every job running then holds there: a quadratic
// sweep, apart from the engine's and the verification's code.
func naiveNodeCheck(p *sdk.Platform, in []sim.Input, res *sim.Result) error {
	l := sdk.NewLayout(p, 0)
	for i, r := range res.Records {
		used := map[int32]sdk.Amount{}
		for k, r2 := range res.Records {
			if r2.Start > r.Start || r2.End <= r.Start {
				continue
			}
			a := res.Allocs.Of(k)
			for x, n := range a.Nodes {
				h := l.Held(in[k].Job.Tasks, n, a.Tasks[x])
				u := used[n]
				used[n] = sdk.Amount{Cores: u.Cores + h.Cores, Memory: u.Memory + h.Memory, GPUs: u.GPUs + h.GPUs}
			}
		}
		for n, u := range used {
			if c := l.Cap(int(n)); u.Cores > c.Cores || u.Memory > c.Memory || u.GPUs > c.GPUs {
				return fmt.Errorf("at job id %d's start (%d), node %d holds %+v of %+v", in[i].Job.ID, r.Start, n, u, c)
			}
		}
	}
	return nil
}

// runPlaced runs sc under pol, checks the starts sc wants
// (policytest.Run), and checks that job i+1 ran on the nodes allocs[i]
// says (allocString) in a run through the host.
func runPlaced(t *testing.T, pol sdk.Plugin, sc policytest.Scenario, allocs []string) {
	t.Helper()
	policytest.Run(t, pol, sc)
	res, err := host.InProcess(pol).Run(context.Background(), host.RunSpec{Platform: sc.Platform, Params: sc.Params}, sc.Inputs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range allocs {
		if got := allocString(res.Allocs.Of(i)); got != want {
			t.Errorf("job %d on %q, want %q", i+1, got, want)
		}
	}
}

func allocString(a sdk.Alloc) string {
	s := ""
	for i, k := range a.Nodes {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%d:%d", k, a.Tasks[i])
	}
	return s
}

// TestEASYCountKeepsPromisesOnPartitions: on disjoint partitions of nodes
// all alike, held whole (as CEA-Curie's thin and fat), the count reading
// counts the extra capacity on the head's partition only, so a job in
// another partition never delays the head, and EASY keeps every promise;
// conservative counts its reservations in a profile of each partition, and
// keeps every promise too.
func TestEASYCountKeepsPromisesOnPartitions(t *testing.T) {
	plat := sdk.NodesPlatform("two", []sdk.NodeGroup{{Name: "thin", Count: 10, Cores: 4}, {Name: "fat", Count: 3, Cores: 8}},
		[]sdk.Partition{{Name: "thin", Groups: []string{"thin"}, Default: true}, {Name: "fat", Groups: []string{"fat"}}}, sdk.FirstFit)
	for seed := range uint64(30) {
		sc := policytest.Random{Platform: plat, Jobs: 250}.Scenario(seed)
		for i := range sc.Jobs {
			part := int32(1 + (seed+uint64(i))%2)
			per, most := int32(4), int32(6)
			if part == 2 {
				per, most = 8, 3
			}
			n := 1 + int32(uint64(i)*7%uint64(most))
			sc.Jobs[i].Tasks = &sdk.Tasks{Count: n * per, Cores: 1, Nodes: n, Exclusive: true, Partition: part}
		}
		policytest.Check(t, EASY(), sc, policytest.PromisesKept())
		policytest.Check(t, Conservative(), sc, policytest.PromisesKept())
	}
}

// TestEASYRefusedForItsPlacement: a job that would run past the shadow
// time, refused because its placement holds on the nodes of the head's
// partition what the head needs then, does not refuse the next job of its
// kind (same tasks, same walltime), which another start in between sends
// elsewhere. Nodes 0-1 make partition "one", nodes 0-3 partition "all", 4
// cores each. R holds node 0 until 100; the head H needs nodes 0-1 whole
// (shadow time 100, nothing extra in "one" then). J1 (all, 1000 s) would
// take node 1: refused. S (50 s) ends by 100 and takes node 1. J2, of J1's
// kind, now goes to node 2, outside "one": it starts at 1. J1 starts at
// 100 on node 3. EASY is run as it is, and reading its queue by kinds
// at every call (kinds.always).
func TestEASYRefusedForItsPlacement(t *testing.T) {
	plat, one, all := twoPartitions()
	jobs := []job{
		{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Tasks: one(1)},
		{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Tasks: one(2)},
		{ID: 3, Submit: 1, Runtime: 1000, Walltime: 1000, Tasks: all},
		{ID: 4, Submit: 1, Runtime: 50, Walltime: 50, Tasks: all},
		{ID: 5, Submit: 1, Runtime: 1000, Walltime: 1000, Tasks: all},
	}
	sc := policytest.Scenario{Name: "refused for its placement", Platform: plat, Jobs: jobs,
		Want: []start{{ID: 1, At: 0}, {ID: 2, At: 100, Promised: 100}, {ID: 3, At: 100}, {ID: 4, At: 1}, {ID: 5, At: 1}}}
	for _, pol := range []sdk.Plugin{EASY(), kindsEASY()} {
		runPlaced(t, pol, sc, []string{"0:1", "0:1 1:1", "3:1", "1:1", "2:1"})
	}
}

// TestEASYNewJobAheadOfRefused: on the platform of
// TestEASYRefusedForItsPlacement, under the shortest-first order, job 3
// (all, 1000 s) is refused at 1 for taking node 1, which the head (job 2)
// needs at its shadow time 100. Job 4 (all, 50 s), submitted at 2, ranks
// before it: it ends by the shadow time and takes node 1, and job 3, tried
// after it, goes to node 2 outside "one" and starts at 2. A call that
// tried only the jobs new since a call that started nothing (newOnly)
// left job 3 waiting until 100 (found by review).
func TestEASYNewJobAheadOfRefused(t *testing.T) {
	plat, one, all := twoPartitions()
	jobs := []job{
		{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Tasks: one(1)},
		{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Tasks: one(2)},
		{ID: 3, Submit: 1, Runtime: 1000, Walltime: 1000, Tasks: all},
		{ID: 4, Submit: 2, Runtime: 50, Walltime: 50, Tasks: all},
	}
	sc := policytest.Scenario{Name: "new job ahead of a refused one", Platform: plat, Jobs: jobs,
		Params: map[string]string{"order": OrderShortest},
		Want:   []start{{ID: 1, At: 0}, {ID: 2, At: 100, Promised: 100}, {ID: 3, At: 2}, {ID: 4, At: 2}}}
	for _, pol := range []sdk.Plugin{EASY(), kindsEASY(), freshEASY()} {
		runPlaced(t, pol, sc, []string{"0:1", "0:1 1:1", "2:1", "1:1"})
	}
}

// twoPartitions is the platform of TestEASYRefusedForItsPlacement: nodes
// 0-1 ("a") make partition "one", nodes 0-3 ("a" and "b") partition
// "all", the default, 4 cores each; one(n) asks for n whole nodes of
// "one", all for one node of "all".
func twoPartitions() (plat *sdk.Platform, one func(n int32) *sdk.Tasks, all *sdk.Tasks) {
	plat = sdk.NodesPlatform("two", []sdk.NodeGroup{{Name: "a", Count: 2, Cores: 4}, {Name: "b", Count: 2, Cores: 4}},
		[]sdk.Partition{{Name: "all", Groups: []string{"a", "b"}, Default: true}, {Name: "one", Groups: []string{"a"}}}, sdk.FirstFit)
	one = func(n int32) *sdk.Tasks { return &sdk.Tasks{Count: n, Cores: 4, Partition: 2} }
	return plat, one, &sdk.Tasks{Count: 1, Cores: 4, Partition: 1}
}
