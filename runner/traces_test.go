package runner

import (
	"context"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// realTraces loads every trace listed in the shared data's SOURCES.md, or
// skips when the shared data is absent (a plain clone, not CI).
func realTraces(t *testing.T) []*workload.Workload {
	t.Helper()
	srcs := tracedata.SourcesForTest(t)
	var out []*workload.Workload
	for _, s := range srcs {
		path, err := tracedata.Path(s.File)
		if err != nil {
			t.Fatal(err)
		}
		w, err := workload.LoadSWF(path, 0, workload.DefaultClean())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, w)
	}
	return out
}

// TestRealTraceInvariants runs every reference policy on every shipped trace,
// in-process, in a fresh plugin process and in a plugin process that served
// the runs before (on the other traces and settings), and checks what must
// hold whatever the trace: replay verification (inside Execute), identical
// records on the three paths, FCFS starting jobs in submit order, EASY
// keeping its head's reservation with exact estimates, and conservative
// never delaying a reservation.
func TestRealTraceInvariants(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every policy on every real trace; skipped with -short")
	}
	procs := &Processes{}
	defer procs.Close()
	reused := 0
	for _, w := range realTraces(t) {
		plat := sdk.SingleCluster(w.Path, w.Procs)
		for _, tc := range []struct {
			policy string
			exact  bool
			check  func(*testing.T, []sim.Input, []sim.Record)
		}{
			{"fcfs", false, submitOrder},
			{"easy", true, promisesKept},
			{"easy", false, nil},
			{"conservative", false, promisesKept},
		} {
			jobs := w.Jobs
			spec := Spec{Policy: pluginResolved(t, tc.policy), Platform: plat, Jobs: jobs,
				ExactEstimates: tc.exact, Metrics: metrics.DefaultSettings()}
			viaPlugin, err := Execute(context.Background(), spec)
			if err != nil {
				t.Fatalf("%s %s exact=%v: %v", w.Path, tc.policy, tc.exact, err)
			}
			spec.Processes = procs
			viaReused, err := Execute(context.Background(), spec)
			if err != nil {
				t.Fatalf("%s %s exact=%v, reused process: %v", w.Path, tc.policy, tc.exact, err)
			}
			if viaReused.ProcessRun > 1 {
				reused++
			}
			spec.Processes, spec.InProcess = nil, true
			linked, err := Execute(context.Background(), spec)
			if err != nil {
				t.Fatalf("%s %s in-process: %v", w.Path, tc.policy, err)
			}
			if !reflect.DeepEqual(viaPlugin.Records, linked.Records) {
				t.Errorf("%s %s exact=%v: plugin and in-process records differ", w.Path, tc.policy, tc.exact)
			}
			if !reflect.DeepEqual(viaReused.Records, linked.Records) {
				t.Errorf("%s %s exact=%v: the records of a reused plugin process (its run %d) differ", w.Path, tc.policy, tc.exact, viaReused.ProcessRun)
			}
			if tc.check != nil {
				tc.check(t, jobs, linked.Records)
			}
			t.Logf("%s %s exact=%v: mean wait %.1f s, %d backfilled, %d of %d promises broken, %d jobs in %.3f s",
				w.Path, tc.policy, tc.exact, linked.Summary.MeanWait, linked.Summary.Backfilled,
				linked.Summary.PromisesBroken, linked.Summary.Promised, len(jobs), float64(linked.Stats.WallNanos)/1e9)
		}
	}
	if reused == 0 {
		t.Error("no run was served by a reused process: the comparison tested nothing")
	}
}

// submitOrder checks that start times never decrease in submit order.
func submitOrder(t *testing.T, jobs []sim.Input, recs []sim.Record) {
	t.Helper()
	if err := policytest.StartsInSubmitOrder().Check(jobs, recs); err != nil {
		t.Errorf("fcfs: %v", err)
	}
}

// promisesKept checks that no job starts after the first start it was
// promised, and that some promises were made at all.
func promisesKept(t *testing.T, jobs []sim.Input, recs []sim.Record) {
	t.Helper()
	if err := policytest.PromisesKept().Check(jobs, recs); err != nil {
		t.Error(err)
	}
	for _, r := range recs {
		if r.HasPromise {
			return
		}
	}
	t.Errorf("no promise made on %d jobs: the check tested nothing", len(recs))
}
