package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
)

// TestSimPowerAsCampaign runs one simulation with power flags (EASY
// switching idle nodes off after 10 minutes) and the campaign of a
// manifest with the same [platforms.NAME.power] table, and checks that
// both jobs files have the same rows, energies and power model, both
// power files the same steps, and that the summary prints the energy; and
// that sim without a power model writes no power file.
func TestSimPowerAsCampaign(t *testing.T) {
	dir := t.TempDir()
	trace, err := filepath.Abs(kth)
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`[campaign]
seed = 7
out = %q
[workloads.kth]
trace = %q
sha256 = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"
[policies.easy]
ref = "easy"
params = { idle_off = 600 }
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
[matrix]
workload = ["kth"]
policy = ["easy"]
platform = ["kth"]
`, filepath.Join(dir, "campaign"), trace)
	files := []string{campaignJobsFile(t, dir, src)}
	simJobs := filepath.Join(dir, "sim", "jobs.parquet")
	out, err := run(t, "sim", "--trace", kth, "--policy", "easy", "--param", "idle_off=600", "--in-process", "--machine", "KTH-SP2",
		"--power-off", "10", "--power-idle", "100", "--power-full", "200", "--power-switch-on", "2m", "--power-switch-on-energy", "24000",
		"--power-switch-off", "30", "--power-switch-off-energy", "1500", "--out", simJobs)
	if err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	}
	if !strings.Contains(out, "energy  ") || !strings.Contains(out, "nodes switched off") {
		t.Errorf("sim's summary does not give the energy:\n%s", out)
	}
	cRows, cx, cMeta, err := results.ReadJobsWith(files[0])
	if err != nil {
		t.Fatal(err)
	}
	sRows, sx, sMeta, err := results.ReadJobsWith(simJobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(sx.Power) != len(sRows) || !reflect.DeepEqual(cRows, sRows) || !reflect.DeepEqual(cx.Power, sx.Power) {
		t.Errorf("sim's jobs or energies differ from the campaign's (%d and %d rows, %d and %d energies)", len(sRows), len(cRows), len(sx.Power), len(cx.Power))
	}
	if sMeta["power.model"] == "" || sMeta["power.model"] != cMeta["power.model"] {
		t.Errorf("power.model: sim %q, campaign %q", sMeta["power.model"], cMeta["power.model"])
	}
	// The power files: sim's beside its jobs file, the campaign's in its
	// power folder, with the same steps.
	cSteps, _, err := results.ReadPowerSeries(results.PowerSeriesPath(files[0]))
	if err != nil {
		t.Fatal(err)
	}
	sSteps, _, err := results.ReadPowerSeries(filepath.Join(dir, "sim", "jobs.power.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sSteps) == 0 || !reflect.DeepEqual(cSteps, sSteps) {
		t.Errorf("sim's power file differs from the campaign's (%d and %d steps)", len(sSteps), len(cSteps))
	}
	// gantt finds the power file beside the jobs file and draws it, with
	// no cap: the model has none.
	svg := filepath.Join(dir, "sim", "chart.svg")
	if out, err := run(t, "gantt", simJobs, "--svg", svg); err != nil {
		t.Fatalf("gantt: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), `<path class="power"`) || strings.Contains(string(b), `class="cap"`) {
		t.Errorf("the Gantt chart of a run with power has no power panel, or a cap (%v)", err)
	}
	// Without a power model, sim writes its jobs file alone.
	bare := filepath.Join(dir, "bare", "jobs.parquet")
	if out, err := run(t, "sim", "--trace", kth, "--policy", "easy", "--in-process", "--machine", "KTH-SP2", "--out", bare); err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	}
	if got, _ := filepath.Glob(filepath.Join(dir, "bare", "*")); len(got) != 1 {
		t.Errorf("sim without a power model wrote %v", got)
	}
}

// TestSimPowerBusyTable runs one simulation on 25 nodes of 4 cores with a
// busy power table (130, 150, 180, 220 W with 1 to 4 cores in use, idle
// 100 W) and one on the line from 100 W to 220 W, and checks that the
// table is in the jobs file's power.model with the counts of the jobs it
// touched (power.counts, none on the line), that the jobs' energy column
// adds up to the summary's energy_jobs and the power file to the energy,
// and that the table, under the line at 2 and 3 cores, draws less.
func TestSimPowerBusyTable(t *testing.T) {
	dir := t.TempDir()
	summary := func(name string, flags ...string) (map[string]any, results.Metadata) {
		t.Helper()
		path := filepath.Join(dir, name, "jobs.parquet")
		args := append([]string{"sim", "--trace", kth, "--policy", "easy", "--in-process", "--nodes", "25", "--cores-per-node", "4",
			"--power-idle", "100", "--out", path}, flags...)
		if out, err := run(t, args...); err != nil {
			t.Fatalf("sim: %v\n%s", err, out)
		}
		_, x, meta, err := results.ReadJobsWith(path)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal([]byte(meta["summary"]), &s); err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, r := range x.Power {
			sum += r.Energy
		}
		if e := s["energy_jobs"].(float64); math.Abs(sum-e) > 1e-9*e {
			t.Errorf("%s: the energy column adds up to %v J, energy_jobs is %v J", name, sum, e)
		}
		steps, _, err := results.ReadPowerSeries(results.PowerSeriesPath(path))
		if err != nil {
			t.Fatal(err)
		}
		whole := 0.0
		for _, st := range steps {
			whole += st.Watts * float64(st.End-st.Start)
		}
		if e := s["energy"].(float64); math.Abs(whole-e) > 1e-12*e {
			t.Errorf("%s: the power file integrates to %v J, the energy is %v J", name, whole, e)
		}
		return s, meta
	}
	table, meta := summary("table", "--power-busy", "130,150,180,220")
	// On 50 nodes, under a cap between what the widest job (100 cores)
	// needs on the idle machine (5,000 + 3,000 W) and full power (11,000
	// W), the table's starts are held back: the draw never passes the
	// cap, and jobs wait longer.
	free, _ := summary("free", "--power-busy", "130,150,180,220", "--nodes", "50")
	capped, _ := summary("capped", "--power-busy", "130,150,180,220", "--nodes", "50", "--power-cap", "8500")
	steps, _, err := results.ReadPowerSeries(results.PowerSeriesPath(filepath.Join(dir, "capped", "jobs.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if st.Watts > 8500*(1+1e-9) || st.CapWatts == nil || *st.CapWatts != 8500 {
			t.Fatalf("capped: %v W under a cap of %v over [%d, %d)", st.Watts, st.CapWatts, st.Start, st.End)
		}
	}
	if w, w0 := capped["mean_wait"].(float64), free["mean_wait"].(float64); !(w > w0) {
		t.Errorf("mean wait %v under the cap, %v without", w, w0)
	}
	line, lineMeta := summary("line", "--power-full", "220")
	if model := meta["power.model"]; !strings.Contains(model, `"busy":[130,150,180,220],"full":220`) {
		t.Errorf("power.model %s lacks the table", model)
	}
	// The jobs the sharing rule touched: every job ran on table nodes;
	// jobs hold their nodes whole here, so none shares one.
	if c, ok := lineMeta["power.counts"]; ok || meta["power.counts"] != `{"table_jobs":28467,"table_shared_jobs":0}` {
		t.Errorf("power.counts %q with the table, %q on the line", meta["power.counts"], c)
	}
	if !(table["energy_dynamic"].(float64) < line["energy_dynamic"].(float64)) || table["energy_static"] != line["energy_static"] {
		t.Errorf("dynamic energy %v with the table, %v on the line; static %v and %v", table["energy_dynamic"], line["energy_dynamic"], table["energy_static"], line["energy_static"])
	}
}

// TestSimPowerBadInput: each mistake in the power flags exits 2 naming
// the flag, and creates no output.
func TestSimPowerBadInput(t *testing.T) {
	outDir := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a pool", []string{"--power-idle", "100", "--power-full", "200"}, "a power model is of nodes"},
		{"idle alone", []string{"--machine", "KTH-SP2", "--power-idle", "100"}, "--power-idle and --power-full (or --power-busy) give the model"},
		{"not a number", []string{"--machine", "KTH-SP2", "--power-idle", "lots", "--power-full", "200"}, `--power-idle: "lots" is not a number`},
		{"bad time", []string{"--machine", "KTH-SP2", "--power-idle", "100", "--power-full", "200", "--power-switch-on", "2 fortnights"}, "--power-switch-on:"},
		{"full below idle", []string{"--machine", "KTH-SP2", "--power-idle", "100", "--power-full", "50"}, "power settings:"},
		{"full and busy", []string{"--machine", "KTH-SP2", "--power-idle", "100", "--power-full", "200", "--power-busy", "150"}, "--power-full and --power-busy: give one"},
		{"busy not a number", []string{"--machine", "KTH-SP2", "--power-idle", "100", "--power-busy", "150,x"}, `--power-busy: entry 2, "x", is not a number`},
		{"busy of the wrong length", []string{"--machine", "KTH-SP2", "--power-idle", "100", "--power-busy", "150,200"}, "busy power table of 2 entries for nodes of 1 cores"},
		{"busy below idle", []string{"--machine", "KTH-SP2", "--power-idle", "100", "--power-busy", "50"}, "below idle power 100 W"},
		{"down rule", []string{"--machine", "KTH-SP2", "--power-idle", "100", "--power-full", "200", "--power-down", "dark"}, `--power-down: "dark": want idle or off`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"sim", "--trace", kth, "--policy", "easy", "--in-process", "--out", filepath.Join(outDir, "jobs.parquet")}, tc.args...)
			out, err := run(t, args...)
			if exitCode(err) != exitBadInput || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d\n%s\nwant exit 2 saying %q", exitCode(err), out, tc.want)
			}
		})
	}
	if _, err := os.Stat(outDir); err == nil {
		t.Errorf("bad input created %s", outDir)
	}
}

// TestSimPowerOutagesAsCampaign runs EASY switching idle nodes off on
// KTH-SP2's machine with failures from a file and a weekly maintenance
// window, nodes out of service drawing their off power, as a campaign and
// through sim's flags: the jobs, their energies (every run counted) and
// the power files are equal; the jobs' energies add up to energy_jobs and
// the power file to the energy; and under the idle rule the same run
// draws more static and less off energy.
func TestSimPowerOutagesAsCampaign(t *testing.T) {
	dir := t.TempDir()
	failures := filepath.Join(dir, "failures.csv")
	if err := os.WriteFile(failures, []byte("node,down,up\n3,100000,200000\n50,2000000,2100000\n3,5000000,5003600\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace, err := filepath.Abs(kth)
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`[campaign]
seed = 7
out = %q
[workloads.kth]
trace = %q
sha256 = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"
[policies.easy]
ref = "easy"
params = { idle_off = 600 }
[platforms.kth]
machine = "KTH-SP2"
[platforms.kth.power]
off = 10
idle = 100
full = 200
switch_on = "2m"
switch_on_energy = 24000
down = "off"
[platforms.kth.outages]
on_failure = "requeue"
maintenance = "soft"
failures_file = %q
[[platforms.kth.outages.windows]]
start = "1d"
duration = "4h"
every = "7d"
[matrix]
workload = ["kth"]
policy = ["easy"]
platform = ["kth"]
`, filepath.Join(dir, "campaign"), trace, failures)
	campaign := campaignJobsFile(t, dir, src)
	sim := func(name string, down ...string) (string, map[string]any) {
		path := filepath.Join(dir, name, "jobs.parquet")
		args := append([]string{"sim", "--trace", kth, "--policy", "easy", "--param", "idle_off=600", "--in-process", "--machine", "KTH-SP2",
			"--power-off", "10", "--power-idle", "100", "--power-full", "200", "--power-switch-on", "2m", "--power-switch-on-energy", "24000",
			"--on-failure", "requeue", "--maintenance", "soft", "--failures-file", failures, "--maintenance-window", "1d,4h,7d", "--out", path}, down...)
		if out, err := run(t, args...); err != nil {
			t.Fatalf("sim: %v\n%s", err, out)
		}
		_, _, meta, err := results.ReadJobsWith(path)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal([]byte(meta["summary"]), &s); err != nil {
			t.Fatal(err)
		}
		return path, s
	}
	simJobs, dark := sim("off", "--power-down", "off")
	cRows, cx, cMeta, err := results.ReadJobsWith(campaign)
	if err != nil {
		t.Fatal(err)
	}
	sRows, sx, sMeta, err := results.ReadJobsWith(simJobs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cRows, sRows) || !reflect.DeepEqual(cx.Power, sx.Power) || !reflect.DeepEqual(cx.Outages, sx.Outages) {
		t.Errorf("sim's jobs, energies or outage columns differ from the campaign's")
	}
	if m := sMeta["power.model"]; m != cMeta["power.model"] || !strings.Contains(m, `"down":"off"`) {
		t.Errorf("power.model: sim %q, campaign %q", m, cMeta["power.model"])
	}
	cSteps, _, err := results.ReadPowerSeries(results.PowerSeriesPath(campaign))
	if err != nil {
		t.Fatal(err)
	}
	sSteps, _, err := results.ReadPowerSeries(results.PowerSeriesPath(simJobs))
	if err != nil {
		t.Fatal(err)
	}
	if len(sSteps) == 0 || !reflect.DeepEqual(cSteps, sSteps) {
		t.Errorf("sim's power file differs from the campaign's (%d and %d steps)", len(sSteps), len(cSteps))
	}
	attempts, sum, whole := 0, 0.0, 0.0
	for i, r := range sx.Outages {
		attempts += int(r.Attempts)
		sum += sx.Power[i].Energy
	}
	for _, st := range sSteps {
		whole += st.Watts * float64(st.End-st.Start)
	}
	if attempts == 0 {
		t.Error("no job met an outage")
	}
	if e := dark["energy_jobs"].(float64); math.Abs(sum-e) > 1e-9*e {
		t.Errorf("the energy column adds up to %v J, energy_jobs is %v J", sum, e)
	}
	if e := dark["energy"].(float64); math.Abs(whole-e) > 1e-12*e {
		t.Errorf("the power file integrates to %v J, the energy is %v J", whole, e)
	}
	_, idle := sim("idle")
	if !(idle["energy_static"].(float64) > dark["energy_static"].(float64)) || !(idle["energy_off"].(float64) < dark["energy_off"].(float64)) {
		t.Errorf("static %v and off %v J under the idle rule, %v and %v under the off rule", idle["energy_static"], idle["energy_off"], dark["energy_static"], dark["energy_off"])
	}
}
