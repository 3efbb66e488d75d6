package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/manifest"
)

// gridManifest is a grid of two clusters on the shipped logs: the first
// week of KTH-SP2 as cluster kth's local stream, the first week of
// NASA-iPSC as cluster nasa's, and KTH-SP2's third week as the global
// stream; the lookahead broker and the greedy one.
func gridManifest(t *testing.T) *manifest.Manifest {
	t.Helper()
	return loadManifest(t, gridSource())
}

// gridSource is gridManifest's text.
func gridSource() string {
	return fmt.Sprintf(`[campaign]
seed = 2006
[platforms.grid.clusters.kth]
procs = 100
[platforms.grid.clusters.nasa]
procs = 128
price_factor = 2
[workloads.kth]
trace = %q
sha256 = %q
[workloads.nasa]
trace = %q
sha256 = %q
clean = { missing_walltime = "runtime" }
[workloads.grid.streams.kth]
home = "kth"
window = [0, 604800]
priority = [1, 3]
[workloads.grid.streams.nasa]
home = "nasa"
window = [0, 604800]
[workloads.grid.streams.global]
workload = "kth"
window = [1209600, 1814400]
payment = [0, 2]
transfer = 300
[policies.lookahead]
ref = "grid-lookahead"
[policies.greedy]
ref = "grid-greedy"
[matrix]
workload = ["grid"]
platform = ["grid"]
policy = ["lookahead", "greedy"]
`, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA, filepath.Join(dataDir, "NASA-iPSC-1993-3.1-cln.swf.gz"), nasaSHA)
}

// TestStreamMinRuntime: with min_runtime on the global stream, its jobs
// that run less are left out and counted (short); the kept ones and the
// short ones make up the window's jobs, as a run without the setting
// finds them; the local streams are untouched.
func TestStreamMinRuntime(t *testing.T) {
	base := strings.Replace(gridSource(), `policy = ["lookahead", "greedy"]`, `policy = ["greedy"]`, 1)
	cut := strings.Replace(base, "transfer = 300\n", "transfer = 300\nmin_runtime = 600\n", 1)
	if cut == base {
		t.Fatal("no transfer line in the grid manifest")
	}
	streamsOf := func(src string) ([]StreamReport, []results.JobRow) {
		dir := t.TempDir()
		rep := run(t, loadManifest(t, src), Options{Dir: dir, Workers: 1})
		if rep.Done != 1 {
			t.Fatalf("%d of 1 runs completed: %+v", rep.Done, rep.Runs)
		}
		jobs, _, meta, err := results.ReadJobsWith(JobsPath(dir, rep.Runs[0].Key))
		if err != nil {
			t.Fatal(err)
		}
		var streams []StreamReport
		if err := json.Unmarshal([]byte(meta["workload.streams"]), &streams); err != nil {
			t.Fatal(err)
		}
		return streams, jobs
	}
	all, _ := streamsOf(base)
	kept, jobs := streamsOf(cut)
	if kept[0].Name != "global" || kept[0].Short == 0 || kept[0].Kept+kept[0].Short != all[0].Kept || all[0].Short != 0 {
		t.Errorf("global stream: kept %d short %d, without min_runtime kept %d", kept[0].Kept, kept[0].Short, all[0].Kept)
	}
	for k := 1; k < 3; k++ {
		if !reflect.DeepEqual(kept[k], all[k]) {
			t.Errorf("stream %s changed: %+v, was %+v", kept[k].Name, kept[k], all[k])
		}
	}
	for _, j := range jobs {
		if j.JobID/StreamIDBase == 1 && j.Runtime < 600 {
			t.Errorf("global job %d runs %d s", j.JobID, j.Runtime)
		}
	}
}

// TestGridCampaign runs a grid campaign as plugin processes and checks its
// files: each job's stream from its ID (StreamIDBase), its home, its
// priority or payment within the stream's range and its window; the same
// jobs for both policies; the provenance's stream report; the grid
// metrics in runs.parquet; and a rerun from the lock file, in-process,
// identical, grid columns included; and the ```sql grid queries of
// docs/results.md on its folder.
func TestGridCampaign(t *testing.T) {
	m := gridManifest(t)
	dir := t.TempDir()
	rep := run(t, m, Options{Dir: dir, Workers: 2})
	if rep.Done != 2 {
		for _, r := range rep.Runs {
			t.Logf("%s: %s %s", r.Label, r.Status, r.Error)
		}
		t.Fatalf("%d of 2 runs completed", rep.Done)
	}
	var first []results.JobRow
	var firstGrid []results.GridRow
	for _, r := range rep.Runs {
		jobs, x, meta, err := results.ReadJobsWith(JobsPath(dir, r.Key))
		if err != nil {
			t.Fatal(err)
		}
		if len(x.Grid) != len(jobs) {
			t.Fatalf("%s: %d grid rows for %d jobs", r.Label, len(x.Grid), len(jobs))
		}
		perStream := map[int64]int{}
		for i, j := range jobs {
			g, stream := x.Grid[i], j.JobID/StreamIDBase
			perStream[stream]++
			// Streams in name order: global, kth, nasa.
			wantHome := map[int64]int64{1: -1, 2: 0, 3: 1}[stream]
			switch {
			case g.Home != wantHome:
				t.Fatalf("%s: job %d of stream %d has home %d, want %d", r.Label, j.JobID, stream, g.Home, wantHome)
			case j.Submit < 0 || j.Submit >= 604800:
				t.Fatalf("%s: job %d submitted at %d, outside its week", r.Label, j.JobID, j.Submit)
			case stream == 1 && (g.Payment == nil || *g.Payment < 0 || *g.Payment > 2*float64(j.Procs*j.Walltime) || g.Priority != nil):
				t.Fatalf("%s: global job %d: payment %v priority %v", r.Label, j.JobID, g.Payment, g.Priority)
			case stream == 2 && (g.Priority == nil || *g.Priority < 1 || *g.Priority > 3 || g.Payment != nil):
				t.Fatalf("%s: kth job %d: priority %v", r.Label, j.JobID, g.Priority)
			case stream == 3 && (g.Priority == nil || *g.Priority != 1):
				t.Fatalf("%s: nasa job %d: priority %v", r.Label, j.JobID, g.Priority)
			case g.Home >= 0 && !g.Rejected && j.Cluster != g.Home:
				t.Fatalf("%s: local job %d ran on cluster %d", r.Label, j.JobID, j.Cluster)
			case g.Home < 0 && !g.Rejected && (g.ShipTime == nil || j.Start < *g.ShipTime+300):
				t.Fatalf("%s: global job %d started at %d, shipped at %v", r.Label, j.JobID, j.Start, g.ShipTime)
			case strings.Contains(r.Label, "lookahead") && g.Home < 0 && !g.Rejected && (g.ReservedAt == nil || *g.ReservedAt != j.Start || g.Cost == nil):
				t.Fatalf("%s: global job %d started at %d, reserved at %v, cost %v", r.Label, j.JobID, j.Start, g.ReservedAt, g.Cost)
			}
		}
		var streams []StreamReport
		if err := json.Unmarshal([]byte(meta["workload.streams"]), &streams); err != nil || len(streams) != 3 {
			t.Fatalf("%s: workload.streams %q: %v", r.Label, meta["workload.streams"], err)
		}
		for k, s := range streams {
			if s.Kept != perStream[int64(k+1)] || s.Kept == 0 || s.Kept >= s.Jobs {
				t.Errorf("%s: stream %s kept %d of %d, the jobs file has %d", r.Label, s.Name, s.Kept, s.Jobs, perStream[int64(k+1)])
			}
		}
		if first == nil {
			first, firstGrid = jobs, x.Grid
			continue
		}
		for i := range jobs {
			a, b := first[i], jobs[i]
			if a.JobID != b.JobID || a.Submit != b.Submit || a.Procs != b.Procs || a.Walltime != b.Walltime ||
				*orZero(firstGrid[i].Payment) != *orZero(x.Grid[i].Payment) {
				t.Fatalf("job %d: the two policies see different jobs", a.JobID)
			}
		}
	}
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range cols {
		names[c.Name] = true
	}
	if !names["utilisation_kth"] || !names["utilisation_nasa"] || !names["global_mean_wait"] {
		t.Errorf("runs.parquet lacks the grid columns: %v", names)
	}
	for i, c := range cols {
		if c.Name == "global_mean_wait" || c.Name == "local_jobs" || c.Name == "utilisation_kth" || c.Name == "utilisation_nasa" {
			for _, row := range rows {
				if row[i] == nil {
					t.Errorf("runs.parquet: %s is null", c.Name)
				}
			}
		}
	}

	rerunIdentical(t, dir, t.TempDir())
	// The grid queries of docs/results.md run on it.
	docQueries(t, dir, "grid", "out/kovalenko2006")
}

func orZero(p *float64) *float64 {
	if p == nil {
		return new(float64)
	}
	return p
}

// TestGridWindowsKeepNoJob: a grid whose stream windows keep no job of
// their workloads is bad input, reported at the workload's streams line
// before anything is created, not a run of no job.
func TestGridWindowsKeepNoJob(t *testing.T) {
	m := loadManifest(t, fmt.Sprintf(`[campaign]
seed = 2006
[platforms.grid.clusters.kth]
procs = 100
[workloads.kth]
trace = %q
sha256 = %q
[workloads.grid.streams.kth]
home = "kth"
window = [900000000, 900604800]
[workloads.grid.streams.global]
workload = "kth"
window = [900000000, 900604800]
[policies.greedy]
ref = "grid-greedy"
[matrix]
workload = ["grid"]
platform = ["grid"]
policy = ["greedy"]
`, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA))
	dir := filepath.Join(t.TempDir(), "c")
	_, err := Run(context.Background(), m, Options{Dir: dir, InProcess: true})
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "workloads.grid.streams: no job to simulate: the streams' windows keep no job (global 0 of 28467, kth 0 of 28467)") {
		t.Errorf("%v, want an input error saying the windows keep no job", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the campaign folder was created (%v)", err)
	}
}
