package campaign

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/internal/pyenv"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/layout"
	"github.com/schedlab/schedlab/sdk"
)

// TestPolicyDrainsRecorded runs a Python policy that drains and resumes
// nodes (runner/testdata/rotdrain.py) and fcfs on NASA-iPSC, on 130
// one-core nodes: the drains are in the policy's run's status and jobs
// file provenance, their count agreeing, and fcfs's run, which drains
// nothing, has none of these keys.
func TestPolicyDrainsRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a Python policy over a whole trace")
	}
	pyenv.ForTest(t, "grpc")
	py, err := filepath.Abs(filepath.Join("..", "testdata", "rotdrain.py"))
	if err != nil {
		t.Fatal(err)
	}
	m := loadManifest(t, fmt.Sprintf(`[campaign]
seed = 1
[workloads.nasa]
trace = %q
sha256 = %q
[platforms.ones]
[platforms.ones.nodes.n]
count = 130
cores = 1
[policies.fcfs]
ref = "fcfs"
[policies.rot]
ref = %q
[matrix]
workload = ["nasa"]
platform = ["ones"]
policy = ["fcfs", "rot"]
`, filepath.Join(dataDir, "NASA-iPSC-1993-3.1-cln.swf.gz"), nasaSHA, py))
	dir := t.TempDir()
	rep := run(t, m, Options{Dir: dir, InProcess: true})
	if rep.Done != 2 {
		t.Fatalf("%d of 2 runs done: %+v", rep.Done, rep.Runs)
	}
	for _, r := range rep.Runs {
		meta, err := results.ReadMetadata(JobsPath(dir, r.Key))
		if err != nil {
			t.Fatal(err)
		}
		count, list := meta["stats.policy_drains"], meta["policy_drains"]
		if r.Axes["policy"] == "fcfs" {
			if count != "" || list != "" || r.PolicyDrains != 0 {
				t.Errorf("fcfs drained nothing, yet its records say %q, %q, %d", count, list, r.PolicyDrains)
			}
			continue
		}
		ds, err := results.DecodePolicyDrains(list, 0)
		if err != nil {
			t.Fatalf("policy_drains %q: %v", list, err)
		}
		if n, _ := strconv.Atoi(count); n < 100 || n != len(ds) || int64(n) != r.PolicyDrains {
			t.Errorf("stats.policy_drains %q, %d drains listed, status %d: want one count of 100 or more", count, len(ds), r.PolicyDrains)
		}
		// What schedlab gantt draws: every drain, over its node's row.
		run, err := layout.Read(JobsPath(dir, r.Key))
		if err != nil {
			t.Fatal(err)
		}
		if drawn := len(slices.DeleteFunc(run.Outages, func(o sdk.Outage) bool { return o.Kind != sdk.PolicyDrain })); drawn != len(ds) {
			t.Errorf("the chart's run has %d policy drains, the file %d", drawn, len(ds))
		}
		t.Logf("%s drains of nodes recorded", count)
	}
}
