package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/campaign"
)

// TestIOGenerated: jobs that move data from a model: the Lublin-Feitelson
// generator's jobs, given requests and shortened compute times by
// burst-buffer-io, run under the I/O model, recomputed by the host.
func TestIOGenerated(t *testing.T) {
	dir := t.TempDir()
	src := `[campaign]
seed = 5
out = "` + filepath.Join(dir, "out") + `"
[platforms.bb]
procs = 96
[platforms.bb.resources.bb]
units = 12
unit_capacity = 40_000_000_000
[platforms.bb.io]
fs_bandwidth = "5000 MB/s"
unit_bandwidth = "1250 MB/s"
[workloads.lublin]
generator = "lublin-feitelson"
params = { jobs = 500 }
procs = 96
transform = "burst-buffer-io"
[policies.fcfs-bb]
ref = "bb-easy"
[matrix]
workload = ["lublin"]
platform = ["bb"]
policy = ["fcfs-bb"]
`
	manifestPath := filepath.Join(dir, "m.toml")
	if err := os.WriteFile(manifestPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, "run", manifestPath, "--in-process"); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, "out", campaign.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for i, c := range cols {
		if c.Name == "io_jobs" {
			found = true
			if n := rows[0][i].(int64); n < 400 {
				t.Errorf("io_jobs %d of about 500 generated jobs", n)
			}
		}
		if strings.HasPrefix(c.Name, "transform_shortened") && rows[0][i].(int64) == 0 {
			t.Error("the transform shortened no generated job")
		}
	}
	if !found {
		t.Error("runs.parquet has no io_jobs column")
	}
}
