package outages

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// TestFailureHorizon draws failures (exponential up times of mean 300 s,
// repairs of 50 s) under each failure horizon and checks that they start
// within it and reach its end, the counts, and that the default draws
// what Build draws up to the jobs' horizon.
func TestFailureHorizon(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 1}}, nil, sdk.FirstFit)
	// Jobs submitted at 1000 and 1500, walltimes 400 and 2000: the jobs'
	// horizon is 3500.
	jobs := []sim.Input{{Job: sdk.Job{ID: 1, Submit: 1000, Walltime: 400}}, {Job: sdk.Job{ID: 2, Submit: 1500, Walltime: 2000}}}
	for _, tc := range []struct {
		name    string
		horizon int64
		// lastBefore is the bound every failure starts before; wantTo the
		// FailureHorizon count.
		lastBefore, wantTo int64
	}{
		{"jobs", 0, 3500, 0},
		{"shorter", 1000, 2000, 2000},
		{"longer", 10000, 11000, 11000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Settings{Model: "exponential", MTBF: 300, Repair: "fixed", MTTR: 50, Horizon: tc.horizon}
			if err := s.Check(2); err != nil {
				t.Fatal(err)
			}
			outs, c, err := ForJobs(s, p, jobs, rand.New(rand.NewPCG(7, 8)))
			if err != nil {
				t.Fatal(err)
			}
			last := int64(0)
			var nodeSecs int64
			for _, o := range outs {
				if o.Start < 1000 || o.Start >= tc.lastBefore {
					t.Errorf("failure %+v outside [1000, %d)", o, tc.lastBefore)
				}
				last = max(last, o.Start)
				nodeSecs += min(o.End, tc.lastBefore) - o.Start
			}
			// With a mean up time of 300 s, the last failure of two nodes
			// falls within a few thousand seconds of the horizon's end.
			if last < tc.lastBefore-3000 {
				t.Errorf("last failure at %d, horizon %d", last, tc.lastBefore)
			}
			if c.ModelFailures != len(outs) || c.FailureHorizon != tc.wantTo || c.FailureNodeSeconds != nodeSecs {
				t.Errorf("counts %+v, want %d failures, horizon %d, %d node-seconds", c, len(outs), tc.wantTo, nodeSecs)
			}
			if tc.horizon == 0 {
				// The default is Build up to the jobs' horizon, as before.
				want, _, err := Build(s, p, nil, rand.New(rand.NewPCG(7, 8)), 1000, 3500)
				if err != nil || len(want) != len(outs) {
					t.Fatalf("Build to 3500: %d failures (%v), ForJobs %d", len(want), err, len(outs))
				}
				for i := range want {
					if want[i].Start != outs[i].Start || want[i].End != outs[i].End {
						t.Errorf("failure %d: %+v, Build's %+v", i, outs[i], want[i])
					}
				}
			}
		})
	}
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{Horizon: 60}, "failure_horizon is a setting of a failure_model"},
		{Settings{Model: "exponential", MTBF: 1, Repair: "fixed", MTTR: 1, Horizon: -1}, "failure_horizon must be"},
	} {
		if err := tc.s.Check(2); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.s, err, tc.want)
		}
	}
}
