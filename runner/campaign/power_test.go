package campaign

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner"
)

// powerManifest runs the shipped KTH-SP2 log on its machine (100 one-core
// nodes) with a power model (off 10 W, idle 100 W, full 200 W; switching
// on in 2 minutes for 24 kJ, off in 30 s for 1.5 kJ) under EASY, with
// and without switching idle nodes off after 10 minutes.
func powerManifest() string {
	return fmt.Sprintf(`[campaign]
seed = 7
[platforms.kth]
machine = "KTH-SP2"
[platforms.kth.power]
off = 10
idle = 100
full = 200
switch_on = "2m"
switch_on_energy = 24000
switch_off = 30
switch_off_energy = 1500
[workloads.kth]
trace = %q
sha256 = %q
[policies.easy]
ref = "easy"
[policies.easy-off]
ref = "easy"
params = { idle_off = 600 }
[matrix]
workload = ["kth"]
platform = ["kth"]
policy = ["easy", "easy-off"]
`, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA)
}

// TestPowerCampaign runs the power manifest end to end as plugin processes
// and in process, and checks: both runs complete, with identical files
// either way; runs.parquet has the energy metrics, the jobs' energy and the
// idle energy adding up to the nodes' static and dynamic energy; the jobs
// files' energy column adds up to the jobs' energy; each run's power file
// integrates to its energy metrics (checkPowerFile); without switching,
// the energy is what the jobs file gives by hand (every node idle over
// the span, 100 W more per core in use); and switching idle nodes off
// draws less energy and makes jobs wait longer.
func TestPowerCampaign(t *testing.T) {
	m := loadManifest(t, powerManifest())
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
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	f := func(r []any, c string) float64 {
		t.Helper()
		k, ok := idx[c]
		if !ok {
			t.Fatalf("runs.parquet has no column %s", c)
		}
		switch v := r[k].(type) {
		case float64:
			return v
		case int64:
			return float64(v)
		}
		t.Fatalf("column %s: %v", c, r[k])
		return 0
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	by := map[string][]any{}
	for _, r := range rows {
		by[r[idx["policy"]].(string)] = r
		label := r[idx["label"]]
		if !near(f(r, "energy"), f(r, "energy_static")+f(r, "energy_dynamic")+f(r, "energy_off")+f(r, "energy_switching")) ||
			!near(f(r, "energy_jobs")+f(r, "energy_idle"), f(r, "energy_static")+f(r, "energy_dynamic")) {
			t.Errorf("%s: the energies do not add up", label)
		}
		key := r[idx["run_key"]].(string)
		jobs, x, meta, err := results.ReadJobsWith(JobsPath(dir, key))
		if err != nil {
			t.Fatal(err)
		}
		if x.Power == nil || meta["power.model"] == "" {
			t.Fatalf("%s: the jobs file has no energy column or power metadata", label)
		}
		sum, dynamic := 0.0, 0.0
		first, last := jobs[0].Submit, int64(0)
		for i, j := range jobs {
			sum += x.Power[i].Energy
			dynamic += 100 * float64(j.Procs) * float64(j.End-j.Start)
			last = max(last, j.End)
		}
		if !near(sum, f(r, "energy_jobs")) {
			t.Errorf("%s: the jobs file's energy adds up to %v, runs.parquet says %v", label, sum, f(r, "energy_jobs"))
		}
		if r[idx["policy"]] == "easy" {
			static := 100 * 100 * float64(last-first)
			if !near(f(r, "energy_static"), static) || !near(f(r, "energy_dynamic"), dynamic) || f(r, "switch_offs") != 0 {
				t.Errorf("easy: static %v dynamic %v, by hand %v and %v", f(r, "energy_static"), f(r, "energy_dynamic"), static, dynamic)
			}
		}
		checkPowerFile(t, dir, inproc, key, label, func(c string) float64 { return f(r, c) })
		b, y, _, err := results.ReadJobsWith(JobsPath(inproc, key))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(jobs, b) || !reflect.DeepEqual(x.Power, y.Power) {
			t.Errorf("%s: the in-process run's jobs file differs from the plugin's", label)
		}
	}
	// A damaged power file makes a resume run its run again, and the
	// file comes back the same.
	key := by["easy"][idx["run_key"]].(string)
	want, err := os.ReadFile(PowerPath(inproc, key))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(PowerPath(inproc, key), 100); err != nil {
		t.Fatal(err)
	}
	// Resumed from the manifest; cmd/schedlab's TestLockKeepsCommittedManifests
	// checks that a lock keeps the nodes and the power model too.
	var rerun []string
	run(t, m, Options{Dir: inproc, Resume: true, InProcess: true, Progress: func(p Progress) {
		if !p.Last.Reused {
			rerun = append(rerun, p.Last.Key)
		}
	}})
	if got, err := os.ReadFile(PowerPath(inproc, key)); err != nil || !bytes.Equal(got, want) || !reflect.DeepEqual(rerun, []string{key}) {
		t.Errorf("resume after a damaged power file: ran again %v, want [%s]; the file is back the same: %t (%v)", rerun, key[:12], bytes.Equal(got, want), err)
	}
	on, off := by["easy"], by["easy-off"]
	if !(f(off, "energy") < f(on, "energy")) || f(off, "switch_offs") == 0 || !(f(off, "mean_wait") >= f(on, "mean_wait")) {
		t.Errorf("switching off: energy %v against %v, %v switches off, mean wait %v against %v",
			f(off, "energy"), f(on, "energy"), f(off, "switch_offs"), f(off, "mean_wait"), f(on, "mean_wait"))
	}
	docQueries(t, dir, "power", "out/power-kth")
	t.Logf("energy %.4g J -> %.4g J, mean wait %.0f s -> %.0f s, %v switches off",
		f(on, "energy"), f(off, "energy"), f(on, "mean_wait"), f(off, "mean_wait"), f(off, "switch_offs"))
}

// checkPowerFile checks the power file of run key of the campaign in dir:
// where readers look for it, its steps one after the other over the span,
// each part of the draw integrating in row order to its energy metric of
// runs.parquet bit for bit (metric gives it by column name) and the whole
// draw within rounding; its sha256 in the status file; and the same bytes
// as the in-process campaign's (other).
func checkPowerFile(t *testing.T, dir, other, key string, label any, metric func(string) float64) {
	t.Helper()
	path := PowerPath(dir, key)
	if got := results.PowerSeriesPath(JobsPath(dir, key)); got != path {
		t.Fatalf("%s: the jobs file's power file is %s, the campaign writes %s", label, got, path)
	}
	steps, meta, err := results.ReadPowerSeries(path)
	if err != nil {
		t.Fatal(err)
	}
	if meta["run.key"] != key || meta["power.model"] == "" {
		t.Errorf("%s: the power file's footer has run.key %q and power.model %q", label, meta["run.key"], meta["power.model"])
	}
	var parts [4]float64
	whole := 0.0
	at := steps[0].Start
	for i, s := range steps {
		if s.Start != at || s.End <= s.Start {
			t.Fatalf("%s: step %d is [%d, %d), after a step ending at %d", label, i, s.Start, s.End, at)
		}
		at = s.End
		d := float64(s.End - s.Start)
		parts[0] += s.StaticWatts * d
		parts[1] += s.DynamicWatts * d
		parts[2] += s.OffWatts * d
		parts[3] += s.SwitchingWatts * d
		whole += s.Watts * d
		if s.NodesOn+s.NodesOff+s.NodesSwitchingOn+s.NodesSwitchingOff != 100 || s.CapWatts != nil {
			t.Fatalf("%s: step %d: %+v", label, i, s)
		}
	}
	for x, c := range []string{"energy_static", "energy_dynamic", "energy_off", "energy_switching"} {
		if parts[x] != metric(c) {
			t.Errorf("%s: the power file integrates to %v J of %s, runs.parquet says %v", label, parts[x], c, metric(c))
		}
	}
	if e := metric("energy"); parts[0]+parts[1]+parts[2]+parts[3] != e || math.Abs(whole-e) > 1e-12*e {
		t.Errorf("%s: the power file integrates to %v J (its parts) and %v J (watts), the energy is %v J", label, parts[0]+parts[1]+parts[2]+parts[3], whole, e)
	}
	st, ok := readStatus(dir, key)
	if sum, err := runner.FileSHA256(path); !ok || err != nil || st.PowerSHA256 != sum {
		t.Errorf("%s: the status records the power file's sha256 %q, the file has %q (%v)", label, st.PowerSHA256, sum, err)
	}
	a, errA := os.ReadFile(path)
	b, errB := os.ReadFile(PowerPath(other, key))
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("%s: the in-process run's power file differs from the plugin's (%v, %v)", label, errA, errB)
	}
}
