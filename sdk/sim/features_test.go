package sim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// featureClusters is twoClusters with features: a has "big", b has "gpu"
// and "big" (bits: big 0, gpu 1).
func featureClusters() *sdk.Platform {
	p := twoClusters()
	p.Clusters[0].Features = []string{"big"}
	p.Clusters[1].Features = []string{"gpu", "big"}
	return p
}

// requiring returns jobs with job index k requiring the features of mask.
func requiring(in []sim.Input, k int, mask uint64) []sim.Input {
	in[k].Job.Requires = mask
	return in
}

// TestFeatureRules checks by hand that the engine refuses every decision
// that would put a job on a cluster lacking a feature it requires (a
// start, a shipment, a reservation), refuses jobs whose requirements
// cannot be read, and takes the same decisions on a cluster that has them.
func TestFeatureRules(t *testing.T) {
	run := func(p *sdk.Platform, in []sim.Input, fn func(s *sdk.State, call int) ([]sdk.Decision, error)) error {
		_, err := sim.Run(context.Background(), plugin(&scripted{fn: fn}), sim.Config{Platform: p, Jobs: in})
		return err
	}
	startOn := func(c int) func(s *sdk.State, _ int) ([]sdk.Decision, error) {
		return func(s *sdk.State, _ int) ([]sdk.Decision, error) {
			return []sdk.Decision{sdk.StartOn(s.Queue[0], c)}, nil
		}
	}
	shipThenStart := func(c int) func(s *sdk.State, call int) ([]sdk.Decision, error) {
		return func(s *sdk.State, call int) ([]sdk.Decision, error) {
			if call == 1 {
				return []sdk.Decision{sdk.Ship(s.Queue[0], c), sdk.WakeAt(5)}, nil
			}
			return []sdk.Decision{sdk.StartOn(s.Queue[0], c)}, nil
		}
	}
	reserveThenStart := func(c int) func(s *sdk.State, call int) ([]sdk.Decision, error) {
		return func(s *sdk.State, call int) ([]sdk.Decision, error) {
			if call == 1 {
				return []sdk.Decision{sdk.Reserve(s.Queue[0], c, 5), sdk.Ship(s.Queue[0], c)}, nil
			}
			return []sdk.Decision{sdk.StartOn(s.Queue[0], c)}, nil
		}
	}
	for _, c := range []struct {
		name string
		plat *sdk.Platform
		jobs []sim.Input
		fn   func(s *sdk.State, call int) ([]sdk.Decision, error)
		want string // "" for a run that must succeed
	}{
		{"a start without the feature", featureClusters(), requiring(gridJobs([6]int64{1, 0, 10, 1, 0, 0}), 0, 2), startOn(0),
			`start job id 1 on cluster "a": it requires features [gpu], the cluster has [big]`},
		{"a start with it", featureClusters(), requiring(gridJobs([6]int64{1, 0, 10, 1, 0, 0}), 0, 2), startOn(1), ""},
		{"a start needing two features, one missing", featureClusters(), requiring(gridJobs([6]int64{1, 0, 10, 1, 0, 0}), 0, 3), startOn(0),
			`start job id 1 on cluster "a": it requires features [big gpu], the cluster has [big]`},
		{"a feature both have", featureClusters(), requiring(gridJobs([6]int64{1, 0, 10, 1, 0, 0}), 0, 1), startOn(0), ""},
		{"a shipment without the feature", featureClusters(), requiring(gridJobs([6]int64{1, 0, 10, 1, 0, 5}), 0, 2), shipThenStart(0),
			`ship job id 1 on cluster "a": it requires features [gpu], the cluster has [big]`},
		{"a shipment with it", featureClusters(), requiring(gridJobs([6]int64{1, 0, 10, 1, 0, 5}), 0, 2), shipThenStart(1), ""},
		{"a reservation without the feature", featureClusters(), requiring(gridJobs([6]int64{1, 0, 10, 1, 0, 5}), 0, 2), reserveThenStart(0),
			`reserve for job id 1 on cluster "a": it requires features [gpu], the cluster has [big]`},
		{"a reservation with it", featureClusters(), requiring(gridJobs([6]int64{1, 0, 10, 1, 0, 5}), 0, 2), reserveThenStart(1), ""},
		{"a requirement beyond the platform's features", featureClusters(), requiring(gridJobs([6]int64{1, 0, 10, 1, 0, 0}), 0, 4), startOn(1),
			`sim: job id 1 requires features [bit 2]; the platform's clusters have 2 ([big gpu])`},
		{"a requirement on a platform without features", twoClusters(), requiring(gridJobs([6]int64{1, 0, 10, 1, 0, 0}), 0, 1), startOn(1),
			`sim: job id 1 requires features [bit 0]; the platform's clusters have 0 ([])`},
		{"a local job requiring what its home lacks", featureClusters(), requiring(gridJobs([6]int64{1, 0, 10, 1, 1, 0}), 0, 2), startOn(0),
			`sim: job id 1 requires features [gpu] that its home cluster "a" lacks`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := run(c.plat, c.jobs, c.fn)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestFeaturesValidate checks the platform rules of cluster features.
func TestFeaturesValidate(t *testing.T) {
	for _, c := range []struct {
		name     string
		features []string
		nodes    bool
		want     string
	}{
		{"named once each", []string{"gpu", "big"}, false, ""},
		{"repeated", []string{"gpu", "gpu"}, false, `feature "gpu" is empty or repeated`},
		{"empty", []string{""}, false, `feature "" is empty or repeated`},
		{"on a cluster of nodes", []string{"gpu"}, true, "a cluster of nodes has its features on its node groups"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := twoClusters()
			if c.nodes {
				p = sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "g", Count: 2, Cores: 2}}, nil, "")
			}
			p.Clusters[0].Features = c.features
			err := p.Validate()
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}
