package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/campaign"
)

// writeSacct writes a Slurm accounting log of 40 jobs of 1 to 3 nodes,
// cores not always a multiple of the nodes, memory, GPUs on partition gpu
// and a ReqTRES that asks for less than the AllocTRES on some, and
// returns its path and sha256.
func writeSacct(t *testing.T, dir string) (string, string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("JobID|Partition|Submit|Start|End|Elapsed|Timelimit|ReqCPUS|AllocCPUS|NNodes|ReqTRES|AllocTRES|Constraints|State\n")
	for id := 1; id <= 40; id++ {
		n := 1 + id%3
		cpus := n * (2 + (id*5)%10)
		part, gpus := "cpu", 0
		if id%5 == 0 {
			part, gpus = "gpu", 2*n
		}
		alloc := cpus
		if id%4 == 0 {
			alloc = n * 16 // the allocation rounded to whole nodes
		}
		tres := func(c int) string {
			s := fmt.Sprintf("billing=%d,cpu=%d,mem=%dG,node=%d", c, c, n*(1+id%4), n)
			if gpus > 0 {
				s += fmt.Sprintf(",gres/gpu=%d", gpus)
			}
			return s
		}
		run := 5 + (id*7)%40
		fmt.Fprintf(&b, "%d|%s|2021-01-01T00:%02d:00|2021-01-01T00:%02d:30|2021-01-01T01:%02d:30|00:%02d:00|01:00:00|%d|%d|%d|%s|%s||COMPLETED\n",
			1000+id, part, id, id, id, run, cpus, alloc, n, tres(cpus), tres(alloc))
	}
	path := filepath.Join(dir, "cluster.sacct")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return path, hex.EncodeToString(sum[:])
}

// campaignJobsFile writes manifest src in dir, runs it in process (its
// out folder is dir/campaign) and returns the path of its one jobs file:
// what a `schedlab sim` test compares its own jobs file with.
func campaignJobsFile(t *testing.T, dir, src string) string {
	t.Helper()
	manifestPath := filepath.Join(dir, "m.toml")
	if err := os.WriteFile(manifestPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, "run", manifestPath, "--in-process"); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "campaign", campaign.JobsDir, "*.parquet"))
	if len(files) != 1 {
		t.Fatalf("%d jobs files", len(files))
	}
	return files[0]
}

// TestSimSacctAsCampaign runs a Slurm accounting log with `schedlab sim
// --format sacct` on shared nodes with memory and GPUs, the request taken
// from AllocTRES, and as a campaign's workload of format sacct on the
// same platform: the jobs files hold the same rows and the same mapping
// counts, and sim's summary says which TRES it read.
func TestSimSacctAsCampaign(t *testing.T) {
	dir := t.TempDir()
	log, sum := writeSacct(t, dir)
	src := fmt.Sprintf(`[campaign]
seed = 7
out = %q
[workloads.log]
trace = %q
sha256 = %q
format = "sacct"
tres = "allocated"
[policies.easy]
ref = "easy"
[platforms.n]
allocation = "shared"
[platforms.n.nodes.node]
count = 8
cores = 16
memory = "64GiB"
gpus = 4
[matrix]
workload = ["log"]
policy = ["easy"]
platform = ["n"]
`, filepath.Join(dir, "campaign"), log, sum)
	files := []string{campaignJobsFile(t, dir, src)}
	simJobs := filepath.Join(dir, "sim", "jobs.parquet")
	out, err := run(t, "sim", "--trace", log, "--format", "sacct", "--tres", "allocated", "--policy", "easy", "--in-process",
		"--nodes", "8", "--cores-per-node", "16", "--memory-per-node", "64GiB", "--gpus-per-node", "4", "--allocation", "shared", "--out", simJobs)
	if err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	}
	for _, want := range []string{"40 jobs on 128 processors", "tres allocated, constraints required", "tres-allocated 40"} {
		if !strings.Contains(out, want) {
			t.Errorf("sim's summary does not say %q:\n%s", want, out)
		}
	}
	cRows, _, cMeta, err := results.ReadJobsWith(files[0])
	if err != nil {
		t.Fatal(err)
	}
	sRows, _, sMeta, err := results.ReadJobsWith(simJobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(sRows) != 40 || !reflect.DeepEqual(cRows, sRows) {
		t.Errorf("sim's %d jobs differ from the campaign's %d", len(sRows), len(cRows))
	}
	if sMeta["nodes.counts"] == "" || sMeta["nodes.counts"] != cMeta["nodes.counts"] {
		t.Errorf("mapping counts: sim %s, campaign %s", sMeta["nodes.counts"], cMeta["nodes.counts"])
	}
}

// TestSimSacctBadInput: each mistake in the flags of a sacct log exits 2
// naming the flag, or the log and its line, and creates no output.
func TestSimSacctBadInput(t *testing.T) {
	dir := t.TempDir()
	log, _ := writeSacct(t, dir)
	outDir := filepath.Join(dir, "out")
	nodes := []string{"--nodes", "8", "--cores-per-node", "16", "--memory-per-node", "64GiB", "--gpus-per-node", "4"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown format", []string{"--format", "xml"}, `--format "xml": want swf or sacct`},
		{"tres on an SWF trace", []string{"--trace", kth, "--tres", "allocated"}, "--tres applies to a sacct log only"},
		{"unknown tres", append([]string{"--format", "sacct", "--tres", "billing"}, nodes...), `tres = "billing": want one of [requested allocated]`},
		{"partitions not a table", append([]string{"--format", "sacct", "--partitions", "cpu"}, nodes...), `--partitions "cpu": want NAME=PARTITION`},
		{"partition not of the platform", append([]string{"--format", "sacct", "--partitions", "cpu=batch"}, nodes...), `log partition "cpu" maps to "batch", not a partition`},
		{"unknown partition an error", append([]string{"--format", "sacct", "--unknown-partition", "error"}, nodes...), log + ` line 2: job id 1: partition "cpu" is not in the workload's partitions table`},
		{"a pool without a size", []string{"--format", "sacct"}, "platform size 0"},
		{"groups on an SWF trace", []string{"--trace", kth, "--groups", "account"}, "--groups applies to a sacct log only"},
		{"unknown groups", append([]string{"--format", "sacct", "--groups", "qos"}, nodes...), `--groups "qos": want group or account`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"sim", "--trace", log, "--policy", "easy", "--in-process", "--out", filepath.Join(outDir, "jobs.parquet")}
			args = append(args, tc.args...)
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

// TestSimSacctGroups: a sacct log whose Slurm accounts cut across its Unix
// groups, under multifactor with fair share between groups as accounts
// (AutoAccounts = group) on 8 processors: with --groups account the
// schedule is another than with each job's Unix group, and the same as a
// campaign's with groups = "account", which the jobs files' provenance
// says, with the jobs the setting touched.
func TestSimSacctGroups(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("JobID|User|Group|Account|Submit|Start|End|Elapsed|Timelimit|ReqCPUS|AllocCPUS|State\n")
	// Users a and b in group g1, c and d in g2; a and c charge account
	// x, b and d account y. User a submits long jobs first.
	users := []struct{ user, group, account string }{{"a", "g1", "x"}, {"b", "g1", "y"}, {"c", "g2", "x"}, {"d", "g2", "y"}}
	for id := 1; id <= 60; id++ {
		u := users[(id*7/3)%4]
		if id <= 8 {
			u = users[0]
		}
		run := 10 + (id*13)%50
		fmt.Fprintf(&b, "%d|%s|%s|%s|2021-01-01T%02d:%02d:00|2021-01-01T00:00:00|2021-01-01T00:00:00|00:%02d:00|01:00:00|%d|%d|COMPLETED\n",
			id, u.user, u.group, u.account, id/60, id%60, run, 2+id%5, 2+id%5)
	}
	log := filepath.Join(dir, "acct.sacct")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(b.String()))
	params := []string{"--param", "PriorityWeightFairshare=10000", "--param", "AutoAccounts=group", "--param", "PriorityCalcPeriod=1"}
	args := append([]string{"--trace", log, "--format", "sacct", "--policy", "multifactor", "--in-process", "--procs", "8"}, params...)
	byGroup, gMeta := simJobsFile(t, filepath.Join(dir, "group"), args...)
	byAccount, aMeta := simJobsFile(t, filepath.Join(dir, "account"), append(args, "--groups", "account")...)
	if reflect.DeepEqual(byGroup, byAccount) {
		t.Error("the same schedule with accounts as with Unix groups: the test tells nothing")
	}
	if aMeta["workload.groups"] != "account" || gMeta["workload.groups"] != "" ||
		!strings.Contains(aMeta["workload.read.counts"], `"groups-from-account":60`) || strings.Contains(gMeta["workload.read.counts"], "groups-") {
		t.Errorf("provenance: %q, %q; %q, %q", aMeta["workload.groups"], aMeta["workload.read.counts"], gMeta["workload.groups"], gMeta["workload.read.counts"])
	}
	src := fmt.Sprintf(`[campaign]
seed = 7
out = %q
[workloads.log]
trace = %q
sha256 = %q
format = "sacct"
procs = 8
groups = "account"
[policies.mf]
ref = "multifactor"
params = { PriorityWeightFairshare = 10000, AutoAccounts = "group", PriorityCalcPeriod = 1 }
[matrix]
workload = ["log"]
policy = ["mf"]
`, filepath.Join(dir, "campaign"), log, hex.EncodeToString(sum[:]))
	cRows, _, cMeta, err := results.ReadJobsWith(campaignJobsFile(t, dir, src))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cRows, byAccount) || cMeta["workload.groups"] != "account" || cMeta["workload.read.counts"] != aMeta["workload.read.counts"] {
		t.Errorf("the campaign's jobs or provenance differ from sim's with --groups account")
	}
}

// TestSimSacctPriority: ten one-processor jobs of 60 s submitted at once
// on one processor, job N of priority N in the log (job 5's empty):
// under FCFS in priority order with the log's priorities (--priority log,
// or a campaign's priority = "log") they run from the highest down, job 5
// (priority 0) last; with every priority 0 they run in submit order.
func TestSimSacctPriority(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("JobID|Priority|Submit|Start|End|Elapsed|Timelimit|ReqCPUS|AllocCPUS|State\n")
	for id := 1; id <= 10; id++ {
		prio := strconv.Itoa(id)
		if id == 5 {
			prio = ""
		}
		fmt.Fprintf(&b, "%d|%s|2021-01-01T00:00:00|2021-01-01T00:00:00|2021-01-01T00:01:00|00:01:00|00:01:00|1|1|COMPLETED\n", id, prio)
	}
	log := filepath.Join(dir, "prio.sacct")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(b.String()))
	starts := func(rows []results.JobRow) map[int64]int64 {
		m := map[int64]int64{}
		for _, r := range rows {
			m[r.JobID] = r.Start
		}
		return m
	}
	args := []string{"--trace", log, "--format", "sacct", "--policy", "fcfs", "--param", "order=priority", "--in-process", "--procs", "1"}
	byLog, meta := simJobsFile(t, filepath.Join(dir, "log"), append(args, "--priority", "log")...)
	want := map[int64]int64{10: 0, 9: 60, 8: 120, 7: 180, 6: 240, 4: 300, 3: 360, 2: 420, 1: 480, 5: 540}
	if got := starts(byLog); !maps.Equal(got, want) {
		t.Errorf("starts %v, want %v", got, want)
	}
	if meta["workload.priority"] != "log" || !strings.Contains(meta["workload.read.counts"], `"priority-from-log":9,"priority-missing":1`) {
		t.Errorf("provenance %q, %q", meta["workload.priority"], meta["workload.read.counts"])
	}
	none, _ := simJobsFile(t, filepath.Join(dir, "none"), args...)
	for id, at := range starts(none) {
		if at != (id-1)*60 {
			t.Errorf("without the log's priorities job %d starts at %d, want %d", id, at, (id-1)*60)
		}
	}
	src := fmt.Sprintf(`[campaign]
seed = 7
out = %q
[workloads.log]
trace = %q
sha256 = %q
format = "sacct"
procs = 1
priority = "log"
[policies.fcfs]
ref = "fcfs"
params = { order = "priority" }
[matrix]
workload = ["log"]
policy = ["fcfs"]
`, filepath.Join(dir, "campaign"), log, hex.EncodeToString(sum[:]))
	cRows, _, cMeta, err := results.ReadJobsWith(campaignJobsFile(t, dir, src))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cRows, byLog) || cMeta["workload.priority"] != "log" {
		t.Errorf("the campaign's jobs or provenance differ from sim's with --priority log")
	}
}

// simJobsFile runs schedlab sim with args, its jobs file in dir, and
// returns the file's rows and footer.
func simJobsFile(t *testing.T, dir string, args ...string) ([]results.JobRow, results.Metadata) {
	t.Helper()
	path := filepath.Join(dir, "jobs.parquet")
	if out, err := run(t, append(append([]string{"sim"}, args...), "--out", path)...); err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	}
	rows, _, meta, err := results.ReadJobsWith(path)
	if err != nil {
		t.Fatal(err)
	}
	return rows, meta
}
