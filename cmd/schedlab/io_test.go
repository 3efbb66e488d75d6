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

// TestIOWithPowerCampaign: the I/O model and a power model on one
// platform of nodes with a burst buffer, bb-easy on KTH-SP2's jobs given
// data to move (burst-buffer-io), in process and through the plugin: the
// host recomputes every end under the I/O model and the energy from the
// records, and the two runs tables have the same energy.
func TestIOWithPowerCampaign(t *testing.T) {
	dir := t.TempDir()
	src := `[campaign]
seed = 5
out = "OUT"
[platforms.bb]
[platforms.bb.nodes.n]
count = 50
cores = 2
[platforms.bb.resources.bb]
units = 12
unit_capacity = 40_000_000_000
[platforms.bb.io]
fs_bandwidth = "5000 MB/s"
unit_bandwidth = "1250 MB/s"
[platforms.bb.power]
idle = 95
full = 190
[workloads.kth]
trace = "KTH"
sha256 = "SHA"
transform = "burst-buffer-io"
[policies.fcfs-bb]
ref = "bb-easy"
[matrix]
workload = ["kth"]
platform = ["bb"]
policy = ["fcfs-bb"]
`
	energy := map[string]float64{}
	for _, mode := range []string{"in-process", "plugin"} {
		out := filepath.Join(dir, mode)
		manifestPath := filepath.Join(dir, mode+".toml")
		trace, err := filepath.Abs(kth)
		if err != nil {
			t.Fatal(err)
		}
		m := strings.NewReplacer("OUT", out, "KTH", trace, "SHA", kthSHA).Replace(src)
		if err := os.WriteFile(manifestPath, []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"run", manifestPath}
		if mode == "in-process" {
			args = append(args, "--in-process")
		}
		if o, err := run(t, args...); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, o)
		}
		cols, rows, _, err := results.ReadTable(filepath.Join(out, campaign.RunsFile))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]any{}
		for i, c := range cols {
			got[c.Name] = rows[0][i]
		}
		// Most of KTH-SP2's jobs move data, few of them past their
		// walltime.
		moved, killed := got["io_jobs"], got["io_killed"]
		if n, ok := moved.(int64); !ok || n < 20_000 {
			t.Errorf("%s: io_jobs %v of 28,453 jobs", mode, moved)
		}
		if n, ok := killed.(int64); !ok || n > 1_000 {
			t.Errorf("%s: io_killed %v", mode, killed)
		}
		energy[mode], _ = got["energy"].(float64)
	}
	if energy["in-process"] <= 0 || energy["in-process"] != energy["plugin"] {
		t.Errorf("energy in process %v, through the plugin %v", energy["in-process"], energy["plugin"])
	}
}
