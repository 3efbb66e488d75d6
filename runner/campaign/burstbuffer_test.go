package campaign

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/duckcheck"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/manifest"
)

// bbManifest is the paper-004 setup on the shipped KTH-SP2 log: 96
// processors and 12 burst-buffer units of 40 GB, burst-buffer requests from
// the transform, two policies that place pieces on units and two
// replicates.
func bbManifest(t *testing.T) *manifest.Manifest {
	t.Helper()
	src := fmt.Sprintf(`[campaign]
seed = 2021
replicates = 2
[platforms.kth-bb]
procs = 96
[platforms.kth-bb.resources.bb]
units = 12
unit_capacity = 40_000_000_000
[workloads.kth]
trace = %q
sha256 = %q
transform = "burst-buffer-lognormal"
[policies.fcfs]
ref = "bb-fcfs"
[policies.filler]
ref = "bb-filler"
[matrix]
workload = ["kth"]
platform = ["kth-bb"]
policy = ["fcfs", "filler"]
`, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA)
	return loadManifest(t, src)
}

// TestBurstBufferCampaign runs the burst-buffer manifest end to end as
// plugin processes (placements cross the wire) and checks: every run verified; runs.parquet's
// transform columns; the jobs files' req_bb and units columns (every
// policy of a replicate sees the same requests, the replicates differ,
// every placement holds the job's pieces); the transform's provenance; a
// rerun from the lock file, in-process, is identical; DuckDB reads it all and runs the
// burst-buffer queries of docs/results.md.
func TestBurstBufferCampaign(t *testing.T) {
	m := bbManifest(t)
	dir := t.TempDir()
	rep := run(t, m, Options{Dir: dir, Workers: 2})
	if rep.Done != 4 {
		for _, r := range rep.Runs {
			t.Logf("%s: %s %s", r.Label, r.Status, r.Error)
		}
		t.Fatalf("%d of 4 runs completed", rep.Done)
	}
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	for _, c := range []string{"transform", "transform_jobs", "transform_clamped_low", "transform_clamped_high",
		"transform_reduced_to_fit", "transform_short", "transform_drawn", "transform_no_pieces", "transform_total_bytes"} {
		if _, ok := idx[c]; !ok {
			t.Errorf("runs.parquet has no column %s", c)
		}
	}
	reqs := map[int][]int64{} // by replicate
	counts := map[int]string{}
	for i, row := range rows {
		r := rep.Runs[i]
		if row[idx["transform"]] != manifest.TransformBurstBuffer || row[idx["transform_jobs"]] != int64(28453) || row[idx["workload_jobs"]] != int64(28453) {
			t.Errorf("%s: transform %v on %v of %v jobs", r.Label, row[idx["transform"]], row[idx["transform_jobs"]], row[idx["workload_jobs"]])
		}
		jobs, x, meta, err := results.ReadJobsWith(JobsPath(dir, r.Key))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(x.Resources, []string{"bb"}) || !x.HasUnits || len(x.Units) != len(jobs) {
			t.Fatalf("%s: extras %v units %t", r.Label, x.Resources, x.HasUnits)
		}
		for j, job := range jobs {
			bb := x.Requests[0][j]
			if bb <= 0 || bb%job.Procs != 0 || bb/job.Procs > 40_000_000_000 {
				t.Fatalf("%s: job %d requests %d bytes on %d processors", r.Label, job.JobID, bb, job.Procs)
			}
			var pieces int64
			parts := strings.Split(x.Units[j], ",")
			for _, p := range parts {
				n, err := strconv.ParseInt(p, 10, 64)
				if err != nil {
					t.Fatalf("%s: job %d: units %q", r.Label, job.JobID, x.Units[j])
				}
				pieces += n
				if n*(bb/job.Procs) > 40_000_000_000 {
					t.Fatalf("%s: job %d: %d pieces of %d on one unit", r.Label, job.JobID, n, bb/job.Procs)
				}
			}
			if len(parts) != 12 || pieces != job.Procs {
				t.Fatalf("%s: job %d on %d processors placed as %q", r.Label, job.JobID, job.Procs, x.Units[j])
			}
		}
		if prev, ok := reqs[r.Replicate]; ok && !slices.Equal(prev, x.Requests[0]) {
			t.Errorf("%s: requests differ from another policy's of the same replicate", r.Label)
		}
		reqs[r.Replicate] = x.Requests[0]
		if meta["workload.transform"] != manifest.TransformBurstBuffer || !strings.Contains(meta["workload.transform.params"], `"resource":"bb"`) ||
			meta["workload.transform.seed"] != strconv.FormatUint(manifest.DeriveSeed(2021, manifest.StreamWorkload, "kth", strconv.Itoa(r.Replicate), "transform"), 10) {
			t.Errorf("%s: provenance %q %q %q", r.Label, meta["workload.transform"], meta["workload.transform.params"], meta["workload.transform.seed"])
		}
		var c map[string]int64
		if err := json.Unmarshal([]byte(meta["workload.transform.counts"]), &c); err != nil || c["jobs"] != 28453 || c["short"] == 0 {
			t.Errorf("%s: counts %q", r.Label, meta["workload.transform.counts"])
		}
		if prev, ok := counts[r.Replicate]; ok && prev != meta["workload.transform.counts"] {
			t.Errorf("%s: counts %s, another policy of the replicate %s", r.Label, meta["workload.transform.counts"], prev)
		}
		counts[r.Replicate] = meta["workload.transform.counts"]
		if !strings.Contains(meta["platform"], `"units":[{"resource":1,"pieces_by":0,"capacity":[40000000000,`) {
			t.Errorf("%s: platform %s", r.Label, meta["platform"])
		}
	}
	differ := 0
	for j := range reqs[0] {
		if reqs[0][j] != reqs[1][j] {
			differ++
		}
	}
	if differ < len(reqs[0])/2 {
		t.Errorf("replicates 0 and 1: only %d of %d requests differ", differ, len(reqs[0]))
	}

	// A rerun from the lock file gives identical jobs files, extras
	// included.
	again := t.TempDir()
	rerunIdentical(t, dir, again)
	// Compare sees a change of one placement.
	path := JobsPath(again, rep.Runs[0].Key)
	jobs, x, meta, err := results.ReadJobsWith(path)
	if err != nil {
		t.Fatal(err)
	}
	x.Units[3] = "9" + x.Units[3]
	if err := results.WriteJobsWith(path, jobs, x, meta); err != nil {
		t.Fatal(err)
	}
	if diffs, err := Compare(dir, again); err != nil || diffs[0].Identical || !strings.Contains(diffs[0].What, fmt.Sprintf("job %d: units", jobs[3].JobID)) {
		t.Errorf("changed placement: %v %+v", err, diffs[0])
	}

	duckCheck(t, dir, 4, 4, 0)
	docQueries(t, dir, "burst-buffer", "out/kopanski2021-kth")
}

// docQueries runs the ```sql TAG blocks of docs/results.md with DuckDB
// against the campaign folder dir (they are written for the folder
// written, which is replaced by dir).
func docQueries(t *testing.T, dir, tag, written string) {
	t.Helper()
	root, err := duckcheck.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sql "+regexp.QuoteMeta(tag)+"\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) == 0 {
		t.Fatalf("docs/results.md has no ```sql %s block", tag)
	}
	var md strings.Builder
	for _, b := range blocks {
		md.WriteString("```sql\n" + strings.ReplaceAll(b[1], written, dir) + "```\n")
	}
	path := filepath.Join(t.TempDir(), "queries.md")
	if err := os.WriteFile(path, []byte(md.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := duckcheck.Script(t, "campaign.mjs")(dir, "--sql", path)
	var got struct{ Queries int }
	if err := json.Unmarshal(out, &got); err != nil || got.Queries == 0 {
		t.Errorf("campaign.mjs: %v %s", err, out)
	}
}
