package probfill

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/synth"
)

// TestHandScenario: A (8 of 10 processors) runs; B needs 10 and waits;
// C needs 2, fits, and runs 100 s. With lambda = 6/min (0.1/s) given, mu =
// 0.5 given and te = walltime, the head is short of cq = 10 - 2 = 8 and
// PErr(0.1, 100, 0.5, 8, 2) decides: C starts at 2 when tau is above it,
// at its turn (after B) when tau is below it.
func TestHandScenario(t *testing.T) {
	p := PErr(0.1, 100, 0.5, 8, 2)
	if p <= 0.01 || p >= 0.99 {
		t.Fatalf("the scenario needs a middling probability, got %v", p)
	}
	jobs := []policytest.Job{
		{ID: 1, Submit: 0, Runtime: 50, Walltime: 50, Procs: 8},
		{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Procs: 10},
		{ID: 3, Submit: 2, Runtime: 100, Walltime: 100, Procs: 2},
	}
	params := func(tau float64) map[string]string {
		return map[string]string{"tau": ftoa(tau), "lambda": "6", "mu": "0.5"}
	}
	policytest.Run(t, Plugin(), policytest.Scenario{Name: "tau above PErr: backfill", Procs: 10, Jobs: jobs,
		Params: params(p + 1e-6), Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 102}, {ID: 3, At: 2}}})
	policytest.Run(t, Plugin(), policytest.Scenario{Name: "tau below PErr: wait", Procs: 10, Jobs: jobs,
		Params: params(p - 1e-6), Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 50}, {ID: 3, At: 60}}})
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func synthetic(t *testing.T, seed uint64) ([]sim.Input, *sdk.Platform) {
	t.Helper()
	m := synth.Mazalov2012()
	m.Estimate, m.EstimateFactor = synth.EstimateUniform, 3
	recs, err := m.Generate(rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.FromRecords("synthetic", recs, 64, workload.DefaultClean())
	if err != nil {
		t.Fatal(err)
	}
	return w.Jobs, sdk.SingleCluster("synthetic", 64)
}

func run(t *testing.T, p sdk.Plugin, jobs []sim.Input, plat *sdk.Platform, params map[string]string) []sim.Record {
	t.Helper()
	res, err := sim.Run(context.Background(), p, sim.Config{Platform: plat, Jobs: jobs, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	return res.Records
}

// TestTauZeroIsFCFS: tau = 0 never backfills.
func TestTauZeroIsFCFS(t *testing.T) {
	for seed := range uint64(5) {
		jobs, plat := synthetic(t, seed)
		got := run(t, Plugin(), jobs, plat, map[string]string{"tau": "0"})
		want := run(t, backfill.FCFS(), jobs, plat, nil)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: tau = 0 differs from FCFS", seed)
		}
	}
}

// greedy starts, in submit order, every job that fits: backfilling with no
// protection of the head.
func greedy() sdk.Plugin {
	return sdk.Plugin{Info: sdk.Info{Name: "greedy", Version: "0"}, New: func() sdk.Policy { return &greedyPolicy{} }}
}

type greedyPolicy struct{}

func (greedyPolicy) Init(sdk.Env) error { return nil }
func (greedyPolicy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	free := s.Free[0].Clone()
	var out []sdk.Decision
	for _, j := range s.Queue {
		if j.Request.Fits(free) {
			free.Sub(j.Request)
			out = append(out, sdk.Start(j))
		}
	}
	return out, nil
}

// TestTauOneIsGreedy: tau = 1 backfills every job that fits, as the greedy
// policy does, with requested or exact estimates.
func TestTauOneIsGreedy(t *testing.T) {
	for seed := range uint64(5) {
		jobs, plat := synthetic(t, seed)
		for _, te := range []string{"walltime", "mean"} {
			got := run(t, Plugin(), jobs, plat, map[string]string{"tau": "1", "te": te})
			want := run(t, greedy(), jobs, plat, nil)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d te %s: tau = 1 differs from greedy backfilling", seed, te)
			}
		}
	}
}

// TestTauOrdersBackfills: a larger tau backfills at least as often on
// average, and the schedules stay valid (sim checks every decision).
func TestTauOrdersBackfills(t *testing.T) {
	count := func(tau string) int {
		n := 0
		for seed := range uint64(10) {
			jobs, plat := synthetic(t, seed)
			for _, r := range run(t, Plugin(), jobs, plat, map[string]string{"tau": tau, "te": "mean"}) {
				if r.Backfilled {
					n++
				}
			}
		}
		return n
	}
	lo, mid, hi := count("0.05"), count("0.2"), count("0.6")
	if !(lo <= mid && mid <= hi) || lo == hi {
		t.Errorf("backfills for tau 0.05, 0.2, 0.6: %d, %d, %d", lo, mid, hi)
	}
}

func TestBadParams(t *testing.T) {
	jobs, plat := synthetic(t, 1)
	for _, params := range []map[string]string{{"tau": "1.5"}, {"tau": "-0.1"}, {"lambda": "-1"}, {"te": "guess"}} {
		if _, err := sim.Run(context.Background(), Plugin(), sim.Config{Platform: plat, Jobs: jobs, Params: params}); err == nil {
			t.Errorf("%v: no error", params)
		}
	}
}

// TestNFLimits: the N&F variant is FCFS at tau = 0 and greedy at tau = 1,
// and orders backfills by tau in between.
func TestNFLimits(t *testing.T) {
	for seed := range uint64(3) {
		jobs, plat := synthetic(t, seed)
		if got, want := run(t, NF(), jobs, plat, map[string]string{"tau": "0"}), run(t, backfill.FCFS(), jobs, plat, nil); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: tau = 0 differs from FCFS", seed)
		}
		if got, want := run(t, NF(), jobs, plat, map[string]string{"tau": "1"}), run(t, greedy(), jobs, plat, nil); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: tau = 1 differs from greedy backfilling", seed)
		}
	}
	count := func(tau string) int {
		n := 0
		for seed := range uint64(5) {
			jobs, plat := synthetic(t, seed)
			for _, r := range run(t, NF(), jobs, plat, map[string]string{"tau": tau}) {
				if r.Backfilled {
					n++
				}
			}
		}
		return n
	}
	lo, hi := count("0.05"), count("0.5")
	if !(lo < hi) {
		t.Errorf("backfills for tau 0.05 and 0.5: %d, %d", lo, hi)
	}
}

// TestNFHand: the history says every job runs exactly 100 s. A (8 of 10
// processors) started at 0; at 50, B (needs 10) waits and C (2
// processors, walltime 200) could be backfilled. A surely ends at 100 and
// frees 8: the head is short of 10-2 = 8, so it would start at 100, but
// with C running only 8 < 10 are free: C delays it with probability 1 if
// it runs past 100 (certain: it runs 100 s from 50), so it is not
// backfilled for any tau < 1.
func TestNFHand(t *testing.T) {
	var jobs []policytest.Job
	// Five completed 100-s jobs of user -1 teach the history.
	for k := range int64(5) {
		jobs = append(jobs, policytest.Job{ID: k + 1, Submit: 0, Runtime: 100, Walltime: 200, Procs: 1})
	}
	jobs = append(jobs,
		policytest.Job{ID: 10, Submit: 150, Runtime: 100, Walltime: 200, Procs: 8}, // A
		policytest.Job{ID: 11, Submit: 160, Runtime: 10, Walltime: 200, Procs: 10}, // B, the head
		policytest.Job{ID: 12, Submit: 200, Runtime: 100, Walltime: 200, Procs: 2}, // C
	)
	recs, err := policytest.Simulate(NF(), policytest.Scenario{Procs: 10, Jobs: jobs, Params: map[string]string{"tau": "0.9"}})
	if err != nil {
		t.Fatal(err)
	}
	if recs[12].Start < recs[11].Start {
		t.Errorf("C backfilled at %d before the head (starts %d): it certainly delays it", recs[12].Start, recs[11].Start)
	}
	if recs[11].Start != 250 {
		t.Errorf("head starts at %d, want 250 when A ends", recs[11].Start)
	}
}
