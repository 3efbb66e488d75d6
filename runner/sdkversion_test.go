package runner

import (
	"context"
	"errors"
	"os"
	"regexp"
	"testing"

	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
)

// TestSDKVersion checks that the laboratory requires the SDK at the version
// the SDK declares (sdk.Version, the tag sdk/vX.Y.Z of a release), so that
// provenance and go.mod never disagree.
func TestSDKVersion(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(sdk.Version) {
		t.Fatalf("sdk.Version %q is not X.Y.Z", sdk.Version)
	}
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	req := regexp.MustCompile(`(?m)^\s*github\.com/schedlab/schedlab/sdk (v\S+)`).FindSubmatch(mod)
	if req == nil || string(req[1]) != "v"+sdk.Version {
		t.Fatalf("go.mod requires the SDK at %q, sdk.Version is %s", req, sdk.Version)
	}
}

// TestInProcessCancel: an in-process run ends with its context, as a
// plugin run does, and says why.
func TestInProcessCancel(t *testing.T) {
	jobs, plat := smallWorkload()
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("interrupted by the user")
	cancel(stop)
	_, err := Execute(ctx, Spec{Policy: pluginResolved(t, "easy"), Platform: plat, Jobs: jobs,
		InProcess: true, Metrics: metrics.DefaultSettings()})
	if !errors.Is(err, stop) {
		t.Fatalf("in-process run under a cancelled context: %v", err)
	}
}
