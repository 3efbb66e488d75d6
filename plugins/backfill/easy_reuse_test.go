package backfill

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload/nodes"
)

// freshEASY is EASY computing everything afresh at every call, the
// reference what it keeps from call to call must equal.
func freshEASY() sdk.Plugin {
	p := EASY()
	p.New = func() sdk.Policy { return &easy{fresh: true} }
	return p
}

// kindsEASY is EASY reading its queue by kinds at every call, whatever
// the queue's length (kinds.always).
func kindsEASY() sdk.Plugin {
	p := EASY()
	p.New = func() sdk.Policy { e := &easy{}; e.kinds.always = true; return e }
	return p
}

// TestShadowReuseChangesNothing runs EASY with and without reusing what
// previous calls computed (the previous call's shadow, also while nodes
// are out of service; on nodes, the cursor at the last shadow time) on
// KTH-SP2 (a pool, and its nodes
// shared 4 to a node or held whole, in both reservation readings and
// several orders, submitted as logged and three times as fast, with
// outages under every rule) and on random workloads on nodes, and
// compares every record and attempt.
func TestShadowReuseChangesNothing(t *testing.T) {
	type run = policyRun
	w := loadTrace(t, "../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz")
	var runs []run
	for _, order := range []string{OrderSubmit, OrderWFP3, OrderShortest} {
		runs = append(runs, run{"KTH pool " + order, sdk.SingleCluster("kth", 100), w.Jobs, map[string]string{"order": order}, nil, sim.Faults{}})
	}
	// Submitted three times as fast, the queue grows to hundreds of jobs.
	fast := slices.Clone(w.Jobs)
	for i := range fast {
		fast[i].Job.Submit /= 3
	}
	runs = append(runs, run{"KTH pool three times as fast", sdk.SingleCluster("kth", 100), fast, nil, nil, sim.Faults{}})
	plat := sdk.NodesPlatform("kth4", []sdk.NodeGroup{{Name: "n", Count: 25, Cores: 4}}, nil, sdk.FirstFit)
	jobs, _, err := nodes.Apply(plat, w, w.Jobs, nodes.Settings{Allocation: nodes.Shared, Memory: nodes.MemoryNone,
		NodeSize: nodes.NodeSmallest, Oversize: nodes.Fail})
	if err != nil {
		t.Fatal(err)
	}
	for _, reading := range []string{ReservationCount, ReservationBatsched} {
		runs = append(runs, run{"KTH shared nodes " + reading, plat, jobs, map[string]string{"reservation": reading}, nil, sim.Faults{}})
	}
	runs = append(runs, run{"KTH shared nodes wfp3", plat, jobs, map[string]string{"order": OrderWFP3}, nil, sim.Faults{}})
	excl, _, err := nodes.Apply(plat, w, w.Jobs, nodes.Settings{Allocation: nodes.Exclusive, Memory: nodes.MemoryNone,
		NodeSize: nodes.NodeSmallest, Oversize: nodes.Fail})
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range []string{OrderSubmit, OrderShortest} {
		runs = append(runs, run{"KTH exclusive nodes " + order, plat, excl, map[string]string{"order": order}, nil, sim.Faults{}})
	}
	for seed := range uint64(60) {
		sc := policytest.Random{Nodes: true, Jobs: 200}.Scenario(seed)
		runs = append(runs, run{"random nodes", sc.Platform, sc.Inputs(), nil, nil, sim.Faults{}})
	}
	// Outages: a shadow computed while nodes are out of service is
	// reused while they stay so, under every rule for the jobs they end.
	rules := []sim.Faults{{}, {OnFailure: sim.FailRequeue}, {OnFailure: sim.FailRequeue, LosePlace: true, Maintenance: sim.MaintenanceSoft},
		{OnFailure: sim.FailCheckpoint, Checkpoint: sim.Checkpoint{Interval: 500, Cost: 20, Restart: 30}}}
	horizon := w.Jobs[len(w.Jobs)-1].Job.Submit + 1
	for i, reading := range []string{ReservationCount, ReservationBatsched} {
		runs = append(runs, run{"KTH shared nodes with outages " + reading, plat, jobs, map[string]string{"reservation": reading},
			randomOutages(plat, uint64(i), horizon), rules[1+i]})
	}
	runs = append(runs, run{"KTH exclusive nodes with outages", plat, excl, nil, randomOutages(plat, 7, horizon), rules[3]})
	// Jobs requeued at their place in a long queue.
	exclFast := slices.Clone(excl)
	for i := range exclFast {
		exclFast[i].Job.Submit /= 3
	}
	runs = append(runs, run{"KTH exclusive nodes three times as fast, requeued", plat, exclFast, nil, randomOutages(plat, 8, horizon/3), rules[1]})
	for seed := range uint64(60) {
		params := map[string]string{"reservation": []string{ReservationCount, ReservationBatsched}[seed%2]}
		sc := policytest.Random{Nodes: true, Jobs: 200, Params: params}.Scenario(seed)
		in := sc.Inputs()
		runs = append(runs, run{"random nodes with outages", sc.Platform, in, sc.Params,
			randomOutages(sc.Platform, seed, in[len(in)-1].Job.Submit+1), rules[int(seed)%len(rules)]})
	}
	reusedOut := 0
	for _, r := range runs {
		pol := againstFresh(t, r, func() *easy { return &easy{} }, "what EASY keeps from call to call")
		reusedOut += pol.reusedOut
		if !strings.HasPrefix(r.name, "random nodes") {
			t.Logf("%s: %d shadows computed (%d from the cursor), %d reused (%d with outages)", r.name, pol.computed, pol.cursored, pol.reused, pol.reusedOut)
		}
	}
	if reusedOut == 0 {
		t.Error("no shadow was reused while nodes were out of service: the test tests too little")
	}
}

// policyRun is a run on which two ways of computing one policy's
// decisions are compared.
type policyRun struct {
	name   string
	plat   *sdk.Platform
	jobs   []sim.Input
	params map[string]string
	outs   []sdk.Outage
	faults sim.Faults
}

func (r policyRun) config() sim.Config {
	return sim.Config{Platform: r.plat, Jobs: r.jobs, Params: r.params, Outages: r.outs, Faults: r.faults}
}

// againstFresh runs r with the EASY that mk makes and with freshEASY,
// fails t when their runs differ (what names what the first keeps or
// does), and returns the policy mk made.
func againstFresh(t *testing.T, r policyRun, mk func() *easy, what string) *easy {
	t.Helper()
	var pol *easy
	p := EASY()
	p.New = func() sdk.Policy { pol = mk(); return pol }
	cfg := r.config()
	a, err := sim.Run(context.Background(), p, cfg)
	if err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
	b, err := sim.Run(context.Background(), freshEASY(), cfg)
	if err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
	if !sameRuns(a, b) {
		t.Errorf("%s %v: %s changes the schedule", r.name, r.params, what)
	}
	return pol
}

// sameRuns reports whether a and b give every job the same runs: its
// start, end, promise, backfilling and attempts, on the same nodes.
func sameRuns(a, b *sim.Result) bool {
	return slices.EqualFunc(a.Records, b.Records, func(x, y sim.Record) bool {
		return x.Start == y.Start && x.End == y.End && x.Promised == y.Promised && x.Backfilled == y.Backfilled && x.Attempts == y.Attempts
	}) && slices.Equal(a.Attempts, b.Attempts) && reflect.DeepEqual(a.Allocs, b.Allocs) && reflect.DeepEqual(a.AttemptAllocs, b.AttemptAllocs)
}

// TestBackfillByKindsChangesNothing runs EASY backfilling by kinds of
// jobs (kinds.go), and reading only the new jobs after a call that
// started nothing (newOnly), against EASY reading every job of the queue
// at every call (fresh), on long queues: random platforms of nodes
// (partitions, memory, GPUs, features, shared and exclusive jobs) and
// random pools, with submissions ten times as dense as policytest's
// default, in the static orders and both readings of the reservation,
// and KTH-SP2 three times as fast on 25 shared nodes and as a pool. Half
// the runs read by kinds at every call, the others only where it pays.
// It compares every record and checks that both ways served calls, on
// nodes and on pools, and that some refusal did not end its kind's turn
// (a job placed partly outside the head's partition).
func TestBackfillByKindsChangesNothing(t *testing.T) {
	type run = policyRun
	var runs []run
	orders := []string{OrderSubmit, OrderShortest, OrderSmallest, OrderLargest}
	for seed := range uint64(80) {
		params := map[string]string{"order": orders[seed%4], "reservation": []string{ReservationCount, ReservationBatsched}[seed/4%2]}
		sc := policytest.Random{Nodes: true, Jobs: 400, Burst: 4, MaxWalltime: 400, Params: params}.Scenario(seed)
		runs = append(runs, run{"random nodes", sc.Platform, sc.Inputs(), sc.Params, nil, sim.Faults{}})
	}
	for seed := range uint64(20) {
		sc := policytest.Random{Jobs: 400, Burst: 4, MaxWalltime: 400, Platform: sdk.SingleCluster("random", 64), Params: map[string]string{"order": orders[seed%4]}}.Scenario(seed)
		runs = append(runs, run{"random pool", sc.Platform, sc.Inputs(), sc.Params, nil, sim.Faults{}})
	}
	w := loadTrace(t, "../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz")
	plat := sdk.NodesPlatform("kth4", []sdk.NodeGroup{{Name: "n", Count: 25, Cores: 4}}, nil, sdk.FirstFit)
	fast := slices.Clone(w.Jobs)
	for i := range fast {
		fast[i].Job.Submit /= 3
	}
	jobs, _, err := nodes.Apply(plat, w, fast, nodes.Settings{Allocation: nodes.Shared, Memory: nodes.MemoryNone,
		NodeSize: nodes.NodeSmallest, Oversize: nodes.Fail})
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range []string{OrderSubmit, OrderLargest} {
		runs = append(runs, run{"KTH shared nodes three times as fast " + order, plat, jobs, map[string]string{"order": order}, nil, sim.Faults{}})
	}
	runs = append(runs, run{"KTH pool three times as fast", sdk.SingleCluster("kth", 100), fast, nil, nil, sim.Faults{}})
	served, retried, onlyNew, onPools := 0, 0, 0, 0
	for i, r := range runs {
		pol := againstFresh(t, r, func() *easy { p := &easy{}; p.kinds.always = i%2 == 0; return p }, "backfilling by kinds")
		served += pol.kinds.served
		if !r.plat.HasNodes() {
			onPools += pol.kinds.served
		}
		retried += pol.kinds.retried
		onlyNew += pol.scannedNew
	}
	t.Logf("%d calls backfilled by kinds, %d refusals retried, %d calls read only the new jobs", served, retried, onlyNew)
	if served < 1000 || onPools < 1000 || retried == 0 || onlyNew < 1000 {
		t.Errorf("kinds served %d calls (%d on pools), retried %d refusals, %d calls read only new jobs: the test tests too little", served, onPools, retried, onlyNew)
	}
}
