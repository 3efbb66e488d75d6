package backfill

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
	"github.com/schedlab/schedlab/workload/nodes"
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

// TestConservativeNodesAroundWindowsHandWorked is docs/policies.md's case
// of a window that makes the node a job holds matter: two nodes of one
// core, node 1 in maintenance over [100, 200). R (50 s) and Z (90 s) arrive
// at 0: R on node 0, Z on node 1, which it leaves before the window. S
// (100 s), at 1, would reach the window on node 1: it is reserved on node
// 0 at 50, when R ends. W (60 s), at 2, fits node 1 only from 200 and node
// 0 from 150, after S: reserved there. Every promise is kept.
func TestConservativeNodesAroundWindowsHandWorked(t *testing.T) {
	plat := onNodes(2, 1, sdk.FirstFit)
	jobs := []job{
		{ID: 1, Submit: 0, Runtime: 50, Walltime: 50, Tasks: excl(1)},
		{ID: 2, Submit: 0, Runtime: 90, Walltime: 90, Tasks: excl(1)},
		{ID: 3, Submit: 1, Runtime: 100, Walltime: 100, Tasks: excl(1)},
		{ID: 4, Submit: 2, Runtime: 60, Walltime: 60, Tasks: excl(1)},
	}
	sc := policytest.Scenario{Platform: plat, Jobs: jobs}
	outs := []sdk.Outage{{Nodes: []int32{1}, Start: 100, End: 200, Kind: sdk.Maintenance}}
	res, err := host.InProcess(Conservative()).Run(context.Background(), host.RunSpec{Platform: plat, Params: map[string]string{"reservation": ReservationNodes}, Outages: outs}, sc.Inputs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.Outages(plat, sc.Inputs(), outs, sim.Faults{}, true, res); err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		start, promised int64
		on              string
	}{{0, 0, "0:1"}, {0, 0, "1:1"}, {50, 50, "0:1"}, {150, 150, "0:1"}} {
		r := res.Records[i]
		if r.Start != want.start || r.Promised != want.promised || allocString(res.Allocs.Of(i)) != want.on {
			t.Errorf("job %d started at %d on %q, promised %d; want %d on %q, promised %d", i+1, r.Start, allocString(res.Allocs.Of(i)), r.Promised, want.start, want.on, want.promised)
		}
	}
	if got := res.Stats.PolicyCounts["replanned"]; got != 0 {
		t.Errorf("replanned %d, want 0", got)
	}
}

// TestConservativeNodesKeepsPromisesAroundWindows: random node workloads
// (jobs ending early) with maintenance windows known in advance, on a few
// nodes or the whole machine: holding nodes, conservative breaks no
// promise and starts no job into a window. With failures and drains,
// which are not known in advance, reservations they take nodes from are
// planned again (counted) and runs still verify.
func TestConservativeNodesKeepsPromisesAroundWindows(t *testing.T) {
	params := map[string]string{"reservation": ReservationNodes}
	replanned := int64(0)
	for seed := range uint64(20) {
		sc := policytest.Random{Nodes: true, Jobs: 150, Params: params}.Scenario(seed)
		in := sc.Inputs()
		horizon := in[len(in)-1].Job.Submit + 1
		n := int32(sc.Platform.Clusters[0].NodeCount())
		r := rand.New(rand.NewPCG(seed, 41))
		var windows []sdk.Outage
		for range 5 {
			s := r.Int64N(horizon)
			o := sdk.Outage{Start: s, End: s + 1 + r.Int64N(horizon/8+1), Kind: sdk.Maintenance}
			if r.IntN(4) > 0 {
				o.Nodes = []int32{r.Int32N(n)}
			}
			windows = append(windows, o)
		}
		sdk.SortOutages(windows)
		res, err := host.InProcess(Conservative()).Run(context.Background(), host.RunSpec{Platform: sc.Platform, Params: params, Seed: sc.Seed, Outages: windows}, in, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := verify.Outages(sc.Platform, in, windows, sim.Faults{}, true, res); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := policytest.PromisesKept().Check(in, res.Records); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		outs := randomOutages(sc.Platform, seed, horizon)
		res, err = host.InProcess(Conservative()).Run(context.Background(), host.RunSpec{Platform: sc.Platform, Params: params, Seed: sc.Seed, Outages: outs,
			Faults: sim.Faults{OnFailure: sim.FailRequeue}}, in, nil)
		if err != nil {
			t.Fatalf("seed %d with failures: %v", seed, err)
		}
		if err := verify.Outages(sc.Platform, in, outs, sim.Faults{OnFailure: sim.FailRequeue}, false, res); err != nil {
			t.Fatalf("seed %d with failures: %v", seed, err)
		}
		replanned += res.Stats.PolicyCounts["replanned"]
	}
	if replanned == 0 {
		t.Error("no reservation was planned again: the failures reached none")
	}
	t.Logf("%d reservations planned again after failures and drains", replanned)
}

// TestUsageChange puts random holdings on a node and takes random ones
// off, through usage.change, and checks after each that the steps give,
// over random spans, the most that steps built afresh from the holdings
// give, and are no more steps than those.
func TestUsageChange(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 5))
	plat := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 1, Cores: 64, Memory: 1000, GPUs: 4}}, nil, sdk.FirstFit)
	c := &nodeCons{layout: sdk.NewLayout(plat, 0)}
	for trial := range 200 {
		var hs []*holding
		var u usage
		for op := range 60 {
			if len(hs) > 0 && r.IntN(3) == 0 {
				k := r.IntN(len(hs))
				h := hs[k]
				hs = append(hs[:k], hs[k+1:]...)
				u.change(h.from, h.to, c.held(h, 0), -1)
			} else {
				from := r.Int64N(50)
				to := from + r.Int64N(20)
				if r.IntN(10) == 0 {
					to = math.MaxInt64
				}
				var h *holding
				if r.IntN(8) == 0 {
					h = &holding{from: from, to: to} // an outage: the node whole
				} else {
					tasks := &sdk.Tasks{Count: 1, Cores: 1 + r.Int32N(8), Memory: r.Int64N(100), GPUs: r.Int32N(2)}
					h = &holding{from: from, to: to, job: &sdk.Job{Tasks: tasks}, alloc: sdk.Alloc{Nodes: []int32{0}, Tasks: []int32{1}}}
				}
				hs = append(hs, h)
				u.change(h.from, h.to, c.held(h, 0), 1)
			}
			var want usage
			want.build(c, 0, hs)
			for range 10 {
				from := r.Int64N(80) - 5
				to := from + 1 + r.Int64N(40)
				if got, w := u.most(from, to), want.most(from, to); got != w {
					t.Fatalf("trial %d, op %d: most over [%d, %d) = %+v; built afresh %+v (steps %v %v, built %v %v)",
						trial, op, from, to, got, w, u.at, u.use, want.at, want.use)
				}
				// mostBelow tells most when it stays below stop cores.
				stop := 1 + r.Int64N(12)
				m, ok := u.mostBelow(from, to, stop)
				if w := want.most(from, to); ok != (w.Cores < stop) || ok && m != w {
					t.Fatalf("trial %d, op %d: mostBelow over [%d, %d), stop %d = %+v, %v; most %+v", trial, op, from, to, stop, m, ok, w)
				}
			}
			if len(u.at) > len(want.at) {
				t.Fatalf("trial %d, op %d: %d steps; built afresh %d", trial, op, len(u.at), len(want.at))
			}
		}
	}
}

// TestConservativeNodesKeptEqualsRebuilt: conservative's shortcuts under
// reservation = nodes (the holdings kept from call to call, brought up to
// date with the jobs that ended and left the queue; a reservation left in
// place in compression where the totals have no room before it; a node's
// usage read only until the node is ruled out) give the schedule, promises,
// allocations and replanned count of the plain reading (rebuildingCons:
// the holdings made again from the state at every call, every reservation
// taken off and put back, every node's usage read whole), on
// KTH-SP2 as shared and as exclusive nodes (a queue of hundreds when
// submitted three times as fast) and on random platforms and workloads
// of nodes (jobs ending early), in three orders and both compressions,
// some with outages (made again when one begins or ends).
func TestConservativeNodesKeptEqualsRebuilt(t *testing.T) {
	w := loadTrace(t, "../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz")
	plat := sdk.NodesPlatform("kth4", []sdk.NodeGroup{{Name: "n", Count: 25, Cores: 4}}, nil, sdk.BestFit)
	var runs []policyRun
	for _, alloc := range []string{nodes.Shared, nodes.Exclusive} {
		jobs, _, err := nodes.Apply(plat, w, w.Jobs[:2500], nodes.Settings{Allocation: alloc, Memory: nodes.MemoryNone,
			NodeSize: nodes.NodeSmallest, Oversize: nodes.Fail})
		if err != nil {
			t.Fatal(err)
		}
		fast := slices.Clone(jobs)
		for i := range fast {
			fast[i].Job.Submit /= 3
		}
		name := "KTH " + alloc
		horizon := jobs[len(jobs)-1].Job.Submit + 1
		// A weekly 4-hour window of the whole machine, from the first day.
		var weekly []sdk.Outage
		for at := int64(86400); at < horizon; at += 7 * 86400 {
			weekly = append(weekly, sdk.Outage{Start: at, End: at + 4*3600, Kind: sdk.Maintenance})
		}
		// Jobs a failure ends are requeued on shared nodes, resumed from
		// their last checkpoint on whole ones.
		faults := sim.Faults{OnFailure: sim.FailRequeue}
		if alloc == nodes.Exclusive {
			faults = sim.Faults{OnFailure: sim.FailCheckpoint, Checkpoint: sim.Checkpoint{Interval: 3600, Cost: 60, Restart: 60}}
		}
		params := map[string]string{"reservation": ReservationNodes}
		runs = append(runs, policyRun{name, plat, jobs, params, nil, sim.Faults{}},
			policyRun{name + " three times as fast, every end", plat, fast, map[string]string{"reservation": ReservationNodes, "compress": CompressEveryEnd}, nil, sim.Faults{}},
			policyRun{name + " with failures, drains and windows", plat, jobs, params, randomOutages(plat, 3, horizon), faults},
			policyRun{name + " with a weekly window", plat, jobs, params, weekly, faults})
	}
	for seed := range uint64(60) {
		params := []map[string]string{
			{"reservation": ReservationNodes},
			{"reservation": ReservationNodes, "order": OrderShortest, "compress": CompressEveryEnd},
			{"reservation": ReservationNodes, "order": OrderLargest},
		}[seed%3]
		sc := policytest.Random{Nodes: true, Jobs: 200, Params: params}.Scenario(seed)
		in := sc.Inputs()
		r := policyRun{fmt.Sprintf("random nodes %d", seed), sc.Platform, in, sc.Params, nil, sim.Faults{}}
		if seed%10 == 9 {
			r.outs, r.faults = randomOutages(sc.Platform, seed, in[len(in)-1].Job.Submit+1), sim.Faults{OnFailure: sim.FailRequeue}
		}
		runs = append(runs, r)
	}
	var kept, keptOut int64
	for _, r := range runs {
		var pol *conservative
		keeping := Conservative()
		keeping.New = func() sdk.Policy { pol = &conservative{}; return pol }
		cfg := r.config()
		a, err := sim.Run(context.Background(), keeping, cfg)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		var ref *rebuildingCons
		rebuilding := Conservative()
		rebuilding.New = func() sdk.Policy { ref = &rebuildingCons{}; return ref }
		b, err := sim.Run(context.Background(), rebuilding, cfg)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if !sameRuns(a, b) {
			t.Errorf("%s: what conservative keeps from call to call changes the schedule", r.name)
		}
		if pol.byNodes.replanned != ref.byNodes.replanned {
			t.Errorf("%s: %d reservations planned again, %d by the plain reading", r.name, pol.byNodes.replanned, ref.byNodes.replanned)
		}
		if r.outs != nil {
			keptOut += pol.byNodes.keptCalls
		}
		kept += pol.byNodes.keptCalls
		if !strings.HasPrefix(r.name, "random") {
			t.Logf("%s: %d calls kept the holdings", r.name, pol.byNodes.keptCalls)
		}
	}
	if kept < 5000 || keptOut < 100 {
		t.Errorf("%d calls kept the holdings, %d beside outages: the test crosses too little of it", kept, keptOut)
	}
}

// rebuildingCons is conservative under reservation = nodes read plainly,
// without its shortcuts (nodeCons.rebuild).
type rebuildingCons struct{ conservative }

func (p *rebuildingCons) Init(env sdk.Env) error {
	if err := p.conservative.Init(env); err != nil {
		return err
	}
	if p.byNodes != nil {
		p.byNodes.rebuild = true
	}
	return nil
}
