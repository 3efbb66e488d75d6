package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// outagesManifest runs the shipped KTH-SP2 log on its machine (100
// one-core nodes) with failures drawn from a model (exponential, a mean of
// 20 days between failures of a node, repairs of 6 hours on average), a
// weekly maintenance window of 4 hours from day 3 and a
// drain, under FCFS and EASY, the jobs an outage ends requeued; and on the
// same machine, the failures of a file, jobs checkpointing every 30
// minutes of work.
func outagesManifest(t *testing.T, failures string) string {
	t.Helper()
	return fmt.Sprintf(`[campaign]
seed = 7
[platforms.kth]
machine = "KTH-SP2"
[platforms.kth.outages]
on_failure = "requeue"
maintenance = "hard"
failure_model = "exponential"
mtbf = "20d"
repair = "exponential"
mttr = "6h"
[[platforms.kth.outages.windows]]
start = "3d"
duration = "4h"
every = "7d"
[[platforms.kth.outages.drains]]
start = "10d"
end = "12d"
nodes = ["0-9"]
[platforms.ckpt]
machine = "KTH-SP2"
[platforms.ckpt.outages]
on_failure = "checkpoint"
checkpoint_interval = "30m"
checkpoint_cost = "2m"
restart_cost = "5m"
failures_file = %q
[workloads.kth]
trace = %q
sha256 = %q
[policies.fcfs]
ref = "fcfs"
[policies.easy]
ref = "easy"
[matrix]
workload = ["kth"]
platform = ["kth", "ckpt"]
policy = ["fcfs", "easy"]
`, failures, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA)
}

// TestOutagesCampaign runs the outages manifest end to end as plugin
// processes and in process, and checks: every run completes, with the same
// failures for both policies (one outage seed per platform, workload and
// replicate); runs.parquet has the outage metrics and counts; the jobs
// files' outage columns add up to them; and, swept from the files alone
// against the outages made again from the manifest, no job's last run
// overlaps a failure or a window of its nodes, none starts on a draining
// node, and each run an outage ended ends when an outage of its node
// begins. The in-process records are the plugins'.
func TestOutagesCampaign(t *testing.T) {
	failures := filepath.Join(t.TempDir(), "failures.csv")
	// 60 failures of an hour, a node every 5 hours.
	text := "node,down,up\n"
	for i := range 60 {
		text += fmt.Sprintf("%d,%d,%d\n", (7*i)%100, 18000*(i+1), 18000*(i+1)+3600)
	}
	if err := os.WriteFile(failures, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m := loadManifest(t, outagesManifest(t, failures))
	dir, inproc := t.TempDir(), t.TempDir()
	rep := run(t, m, Options{Dir: dir, Workers: 2})
	if rep.Done != 4 {
		for _, r := range rep.Runs {
			t.Logf("%s: %s %s", r.Label, r.Status, r.Error)
		}
		t.Fatalf("%d of 4 runs completed", rep.Done)
	}
	if rep := run(t, m, Options{Dir: inproc, Workers: 1, InProcess: true}); rep.Done != 4 {
		t.Fatalf("in process: %d of 4 runs completed", rep.Done)
	}
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	for _, c := range []string{"attempts", "interrupted_jobs", "lost_core_seconds", "availability", "goodput", "requeue_wait_mean",
		"outages_model_failures", "outages_file_failures", "outages_windows", "outages_drains"} {
		if _, ok := idx[c]; !ok {
			t.Fatalf("runs.parquet has no column %s", c)
		}
	}
	drawn := map[string][]any{}
	saved := int64(0)
	for _, r := range rows {
		p := r[idx["platform"]].(string)
		drawn[p] = append(drawn[p], r[idx["outages_model_failures"]])
		if n := r[idx["outages_file_failures"]]; p == "ckpt" && n != int64(60) {
			t.Errorf("%v failures from the file, want 60", n)
		}
	}
	if f := drawn["kth"]; len(f) != 2 || f[0] != f[1] || f[0].(int64) < 10 {
		t.Errorf("model failures %v: the policies must meet the same failures, and some", f)
	}
	for _, r := range rows {
		pl := m.Platforms[r[idx["platform"]].(string)]
		key := r[idx["run_key"]].(string)
		jobs, x, meta, err := results.ReadJobsWith(JobsPath(dir, key))
		if err != nil {
			t.Fatal(err)
		}
		if x.Outages == nil || meta["outages.settings"] == "" || meta["outages.counts"] == "" {
			t.Fatalf("%s: the jobs file has no outage columns or metadata", r[idx["label"]])
		}
		var attempts, lost int64
		for _, o := range x.Outages {
			attempts += int64(o.Attempts)
			lost += o.LostCoreSeconds
			for _, s := range o.AttemptSaved {
				saved += s
			}
		}
		if attempts != r[idx["attempts"]].(int64) || attempts == 0 || float64(lost) != r[idx["lost_core_seconds"]].(float64) {
			t.Errorf("%s: jobs file %d attempts, %d core-seconds lost; runs.parquet %v, %v", r[idx["label"]], attempts, lost, r[idx["attempts"]], r[idx["lost_core_seconds"]])
		}
		if av := r[idx["availability"]].(float64); !(av > 0.9 && av < 1) {
			t.Errorf("%s: availability %v", r[idx["label"]], av)
		}
		// The outages again, from the manifest and the run's seed.
		plat, in := sweepInputs(t, jobs, x)
		outs, _, err := runOutages(pl, plat, in, outageSeed(t, m, pl.Name))
		if err != nil {
			t.Fatal(err)
		}
		sweepOutages(t, outs, jobs, x)
		// In process, the same records.
		b, y, _, err := results.ReadJobsWith(JobsPath(inproc, key))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(jobs, b) || !reflect.DeepEqual(x.Outages, y.Outages) || !reflect.DeepEqual(x.Nodes, y.Nodes) {
			t.Errorf("%s: the in-process run's jobs file differs from the plugin's", r[idx["label"]])
		}
	}
	if saved == 0 {
		t.Error("no checkpoint kept any work")
	}
	docQueries(t, dir, "outages", "out/outages-kth")
}

// outageSeed returns the outage seed of the manifest's runs on platform,
// which share their workload and replicate.
func outageSeed(t *testing.T, m *manifest.Manifest, platform string) uint64 {
	t.Helper()
	runs, err := m.Expand()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Platform == platform {
			return r.Seeds(m).Outages
		}
	}
	t.Fatalf("no run on %s", platform)
	return 0
}

// sweepInputs returns the machine and, for the failure model's horizon,
// the jobs (submit and walltime) as the jobs file gives them.
func sweepInputs(t *testing.T, jobs []results.JobRow, x results.JobExtras) (*sdk.Platform, []sim.Input) {
	t.Helper()
	plat := sdk.NodesPlatform("kth", []sdk.NodeGroup{{Name: "n", Count: 100, Cores: 1}}, nil, sdk.FirstFit)
	in := make([]sim.Input, len(jobs))
	for i, j := range jobs {
		in[i] = sim.Input{Job: sdk.Job{Submit: j.Submit, Walltime: j.Walltime}}
	}
	return plat, in
}

// sweepOutages checks the jobs file's runs against the outages, node by
// node: last runs (on alloc_nodes) overlap no failure or window and start
// on no draining node; each attempt ends when a failure or window of its
// node begins.
func sweepOutages(t *testing.T, outs []sdk.Outage, jobs []results.JobRow, x results.JobExtras) {
	t.Helper()
	for i, j := range jobs {
		for _, k := range x.Nodes[i].AllocNodes {
			for _, o := range outs {
				if !o.Covers(k) {
					continue
				}
				switch {
				case o.Kind == sdk.Drain && j.Start >= o.Start && j.Start < o.End:
					t.Fatalf("job id %d starts at %d on node %d, draining from %d to %d", j.JobID, j.Start, k, o.Start, o.End)
				case o.Kind != sdk.Drain && o.Start < j.End && o.End > j.Start:
					t.Fatalf("job id %d runs from %d to %d on node %d, out of service from %d to %d", j.JobID, j.Start, j.End, k, o.Start, o.End)
				case o.Kind == sdk.Maintenance && o.Start > j.Start && o.Start < j.Start+j.Walltime:
					t.Fatalf("job id %d starts at %d on node %d with a walltime reaching the window at %d", j.JobID, j.Start, k, o.Start)
				}
			}
		}
		row := x.Outages[i]
		for a := range row.AttemptEnds {
			found := false
			for _, o := range outs {
				if o.Start == row.AttemptEnds[a] && o.Covers(row.AttemptNodes[a]) && o.Kind.String() == row.AttemptCauses[a] {
					found = true
				}
			}
			if !found || row.AttemptStarts[a] >= row.AttemptEnds[a] {
				t.Fatalf("job id %d: an attempt from %d to %d on node %d that no %s ended", j.JobID, row.AttemptStarts[a], row.AttemptEnds[a], row.AttemptNodes[a], row.AttemptCauses[a])
			}
		}
	}
}
