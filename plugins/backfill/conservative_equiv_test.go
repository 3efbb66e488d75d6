package backfill

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// sameSchedule runs Conservative and the reference implementation on cfg and
// fails unless both give the same records, policy calls and decisions.
func sameSchedule(t *testing.T, name string, cfg sim.Config) {
	t.Helper()
	t0 := time.Now()
	got, err := sim.Run(context.Background(), Conservative(), cfg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	fast := time.Since(t0)
	t0 = time.Now()
	want, err := sim.Run(context.Background(), refConservative(), cfg)
	if err != nil {
		t.Fatalf("%s: reference: %v", name, err)
	}
	ref := time.Since(t0)
	if err := verify.Records(cfg.Platform, cfg.Jobs, got.Records); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for i := range want.Records {
		if got.Records[i] != want.Records[i] {
			t.Fatalf("%s: job id %d: got %+v, reference %+v", name, cfg.Jobs[i].Job.ID, got.Records[i], want.Records[i])
		}
	}
	if len(got.Records) != len(want.Records) {
		t.Fatalf("%s: %d records, reference %d", name, len(got.Records), len(want.Records))
	}
	g, w := got.Stats, want.Stats
	if g.Events != w.Events || g.PolicyCalls != w.PolicyCalls || g.Decisions != w.Decisions {
		t.Fatalf("%s: stats %+v, reference %+v", name, g, w)
	}
	t.Logf("%s: %d jobs, identical; %.3f s, reference %.3f s", name, len(cfg.Jobs), fast.Seconds(), ref.Seconds())
}

// TestConservativeMatchesReference checks that conservative backfilling gives
// exactly the schedule of the straightforward implementation, which rebuilds
// its profile and compresses every reservation at each call
// (conservative_ref_test.go), on random backlogs with every queue order, one
// or two resources and both kinds of estimates.
func TestConservativeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	iters := 25
	if testing.Short() {
		iters = 5
	}
	for it := range iters {
		dims := 1 + it%2
		procs := 4 + rng.Int64N(60)
		plat := sdk.SingleCluster("random", procs)
		if dims == 2 {
			plat.Resources = append(plat.Resources, "bb")
			plat.Clusters[0].Capacity = sdk.Vector{procs, 10}
		}
		jobs := policytest.Random{Jobs: 100 + rng.IntN(400), Platform: plat}.Scenario(rng.Uint64()).Inputs()
		for _, order := range []string{OrderSubmit, OrderShortest, OrderSmallest, OrderLargest} {
			for _, exact := range []bool{false, true} {
				cfg := sim.Config{Platform: plat, Jobs: jobs, Params: map[string]string{"order": order}, ExactEstimates: exact}
				sameSchedule(t, fmt.Sprintf("random %d, order %s, exact %v", it, order, exact), cfg)
			}
		}
	}
}

// TestConservativeMatchesReferenceInEveryOrder does the same for the
// orders of the literature (priority.go), on fewer backlogs. The reference
// ranks the whole queue at every call in every order, so for the timed
// orders (wfp3, unicep) it checks that ranking the fresh jobs and the
// queue at compressions only, as Conservative does, is the same schedule.
func TestConservativeMatchesReferenceInEveryOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	iters := 6
	if testing.Short() {
		iters = 2
	}
	for it := range iters {
		procs := 4 + rng.Int64N(60)
		plat := sdk.SingleCluster("random", procs)
		jobs := policytest.Random{Jobs: 100 + rng.IntN(300), Platform: plat}.Scenario(rng.Uint64()).Inputs()
		for _, order := range orderParam().Choices[4:] {
			for _, exact := range []bool{false, true} {
				cfg := sim.Config{Platform: plat, Jobs: jobs, Params: map[string]string{"order": order}, ExactEstimates: exact}
				sameSchedule(t, fmt.Sprintf("random %d, order %s, exact %v", it, order, exact), cfg)
			}
		}
	}
}

// TestConservativeMatchesReferenceOnTraces compares the two on the KTH-SP2
// trace shipped with the repository and on the first jobs of every shared
// trace (SCHEDLAB_CONSERVATIVE_JOBS of them, 3,000 by default).
func TestConservativeMatchesReferenceOnTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the reference implementation on real traces; skipped with -short")
	}
	limit := 3000
	if s := os.Getenv("SCHEDLAB_CONSERVATIVE_JOBS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("SCHEDLAB_CONSERVATIVE_JOBS: %v", err)
		}
		limit = n
	}
	paths := []string{"../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz"}
	if _, err := tracedata.Dir(); err == nil {
		for _, s := range tracedata.SourcesForTest(t) {
			p, err := tracedata.Path(s.File)
			if err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
	}
	for _, path := range paths {
		w, err := workload.LoadSWF(path, 0, workload.DefaultClean())
		if err != nil {
			t.Fatal(err)
		}
		jobs := w.Jobs
		if len(jobs) > limit && path != paths[0] {
			jobs = jobs[:limit]
		}
		for _, order := range []string{OrderSubmit, OrderShortest} {
			cfg := sim.Config{Platform: sdk.SingleCluster(w.Path, w.Procs), Jobs: jobs, Params: map[string]string{"order": order}}
			sameSchedule(t, fmt.Sprintf("%s order %s", w.Path, order), cfg)
		}
	}
}
