package burstbuffer_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/plugins/burstbuffer"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// TestReuseChangesNothing runs the EASY burst-buffer policies going on
// from the previous call where it started nothing (easy.keeps) and making
// every call afresh, on KTH-SP2 with the paper's burst-buffer requests
// (allocation only, and with the authors' I/O model) and on random
// workloads, and compares every record; the calls that go on from the
// previous call's profile (easy.goesOn) compare it with the profile
// rebuilt from the state. It checks that calls were reused and went on.
func TestReuseChangesNothing(t *testing.T) {
	alloc, withIO := kthJobs(t, 1), kthIOJobs(t, 1)
	type run struct {
		name string
		cfg  sim.Config
	}
	runs := []run{
		{"KTH-SP2", sim.Config{Platform: kthPlatform(), Jobs: alloc, Seed: 1}},
		{"KTH-SP2 with I/O", sim.Config{Platform: kthPlatform(), Jobs: withIO, IO: kthIO(), Seed: 1}},
	}
	for seed := range uint64(20) {
		sc := randomScenario(seed, seed%2 == 0)
		runs = append(runs, run{"random", sim.Config{Platform: sc.Platform, Jobs: sc.Inputs(), Seed: seed, ExactEstimates: sc.Exact}})
	}
	for _, p := range []sdk.Plugin{burstbuffer.EASY(), burstbuffer.EASYSJF(), burstbuffer.EASYProcs()} {
		fresh, reusing, counts := burstbuffer.Fresh(p)
		total, carried := 0, 0
		for _, r := range runs {
			a, err := sim.Run(context.Background(), reusing, r.cfg)
			if err != nil {
				t.Fatalf("%s %s: %v", p.Info.Name, r.name, err)
			}
			n, c := counts()
			total, carried = total+n, carried+c
			b, err := sim.Run(context.Background(), fresh, r.cfg)
			if err != nil {
				t.Fatalf("%s %s: %v", p.Info.Name, r.name, err)
			}
			if !reflect.DeepEqual(a.Records, b.Records) || !reflect.DeepEqual(a.Units, b.Units) {
				t.Errorf("%s %s: going on from the previous call changes the schedule", p.Info.Name, r.name)
			}
		}
		t.Logf("%s: %d calls reused, %d went on from the previous call's profile", p.Info.Name, total, carried)
		if total < 1000 || carried < 1000 {
			t.Errorf("%s: %d calls reused, %d went on: the test tests too little", p.Info.Name, total, carried)
		}
	}
}
