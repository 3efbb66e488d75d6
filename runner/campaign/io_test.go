package campaign

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
)

// ioManifest runs the first 3,000 jobs of the shipped KTH-SP2 log on
// paper 004's machine (96 processors, a burst buffer of 12 units of 40 GB)
// with the authors' I/O model and workload transform, under EASY with
// burst buffers, in submit order and shortest first.
func ioManifest() string {
	return fmt.Sprintf(`[campaign]
seed = 2021
[platforms.kth-bb]
procs = 96
[platforms.kth-bb.resources.bb]
units = 12
unit_capacity = 40_000_000_000
[platforms.kth-bb.io]
fs_bandwidth = "5000 MB/s"
unit_bandwidth = "1250 MB/s"
node_bandwidth = "1250 MB/s"
split_duplex = true
[workloads.kth]
trace = %q
sha256 = %q
procs = 96
transform = "burst-buffer-io"
clean = { job_ids = "1-3014" }
[policies.fcfs-bb]
ref = "bb-easy"
[policies.sjf-bb]
ref = "bb-easy-sjf"
[matrix]
workload = ["kth"]
platform = ["kth-bb"]
policy = ["fcfs-bb", "sjf-bb"]
`, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA)
}

// TestIOCampaign runs the I/O manifest end to end as plugin processes and
// in process (each run recomputed by the host, verify.IO), and checks:
// identical jobs files either way; the model and the transform's counts in
// provenance; and against the same manifest without the io table, whose
// jobs run for their (shortened) compute time alone: no job that
// completed ran shorter with its data to move, and most ran longer.
func TestIOCampaign(t *testing.T) {
	m := loadManifest(t, ioManifest())
	dir, inproc := t.TempDir(), t.TempDir()
	if rep := run(t, m, Options{Dir: dir, Workers: 2}); rep.Done != 2 {
		for _, r := range rep.Runs {
			t.Logf("%s: %s %s", r.Label, r.Status, r.Error)
		}
		t.Fatalf("%d of 2 runs completed", rep.Done)
	}
	if rep := run(t, m, Options{Dir: inproc, Workers: 1, InProcess: true}); rep.Done != 2 {
		t.Fatalf("in process: %d of 2 runs completed", rep.Done)
	}
	noIO := t.TempDir()
	src := ioManifest()
	src = src[:strings.Index(src, "[platforms.kth-bb.io]")] + src[strings.Index(src, "[workloads.kth]"):]
	if rep := run(t, loadManifest(t, src), Options{Dir: noIO, Workers: 2}); rep.Done != 2 {
		t.Fatalf("without the model: %d of 2 runs completed", rep.Done)
	}
	plainCols, plain, _, err := results.ReadTable(filepath.Join(noIO, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	pidx := map[string]int{}
	for i, c := range plainCols {
		pidx[c.Name] = i
	}
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	if _, ok := pidx["io_jobs"]; ok {
		t.Error("runs.parquet of a campaign without an I/O model has its metrics")
	}
	for _, c := range []string{"transform_shortened", "transform_seconds_cut", "io_jobs", "io_killed", "io_seconds_mean", "io_bytes", "io_unfit"} {
		if _, ok := idx[c]; !ok {
			t.Fatalf("runs.parquet has no column %s", c)
		}
	}
	for _, r := range rows {
		label := r[idx["label"]]
		if r[idx["transform_shortened"]].(int64) < 1000 {
			t.Errorf("%s: %v jobs shortened by the transform", label, r[idx["transform_shortened"]])
		}
		if r[idx["io_jobs"]].(int64) < 2000 || !(r[idx["io_seconds_mean"]].(float64) > 0) || !(r[idx["io_bytes"]].(float64) > 0) {
			t.Errorf("%s: io_jobs %v, io_seconds_mean %v, io_bytes %v", label, r[idx["io_jobs"]], r[idx["io_seconds_mean"]], r[idx["io_bytes"]])
		}
		key := r[idx["run_key"]].(string)
		jobs, x, meta, err := results.ReadJobsWith(JobsPath(dir, key))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(meta["io.model"], `"fs_bandwidth":5000000000`) || !strings.Contains(meta["workload.transform.counts"], `"shortened"`) {
			t.Errorf("%s: io.model %q, transform counts %q", label, meta["io.model"], meta["workload.transform.counts"])
		}
		b, y, _, err := results.ReadJobsWith(JobsPath(inproc, key))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(jobs, b) || !reflect.DeepEqual(x, y) {
			t.Errorf("%s: the in-process run's jobs file differs from the plugin's", label)
		}
		var plainKey string
		for _, q := range plain {
			if q[pidx["policy"]] == r[idx["policy"]] {
				plainKey = q[pidx["run_key"]].(string)
			}
		}
		compute, _, _, err := results.ReadJobsWith(JobsPath(noIO, plainKey))
		if err != nil {
			t.Fatal(err)
		}
		longer := 0
		for k, j := range jobs {
			c := compute[k]
			if j.JobID != c.JobID {
				t.Fatalf("%s: job %d is %d without the model", label, j.JobID, c.JobID)
			}
			switch {
			case !j.Killed && j.End-j.Start < c.End-c.Start:
				t.Errorf("%s: job %d ran %d s with its data to move, %d s without", label, j.JobID, j.End-j.Start, c.End-c.Start)
			case j.End-j.Start > c.End-c.Start:
				longer++
			}
		}
		if longer < len(jobs)/2 {
			t.Errorf("%s: %d of %d jobs ran longer with their data to move", label, longer, len(jobs))
		}
	}
}
