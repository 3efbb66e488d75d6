package host

import (
	"errors"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// TestCallsRefuseFeatures: the call protocol (Python policies) does not
// carry sdk.Job.Requires, so jobs that require cluster features are
// refused it, and jobs without are not.
func TestCallsRefuseFeatures(t *testing.T) {
	jobs := []sim.Input{{Job: sdk.Job{ID: 1, Request: sdk.Vector{1}, Walltime: 1}, Runtime: 1}}
	if err := callsTakeJobs(jobs); err != nil {
		t.Fatalf("a job without requirements: %v", err)
	}
	jobs[0].Job.Requires = 1
	if err := callsTakeJobs(jobs); !errors.Is(err, ErrCallsFeatures) {
		t.Fatalf("a job requiring a feature: %v, want ErrCallsFeatures", err)
	}
}
