package sacct_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/sacct"
)

func TestResources(t *testing.T) {
	cases := []struct {
		in   string
		want workload.Resources
	}{
		{"billing=12,cpu=12,mem=33600M,node=1", workload.Resources{Known: true, CPUs: 12, Nodes: 1, Memory: 33600 << 20, GPUs: -1}},
		{"cpu=2,gres/gpu=2,gres/gpu:v100=2,mem=4000M", workload.Resources{Known: true, CPUs: 2, Nodes: -1, Memory: 4000 << 20, GPUs: 2}},
		// Typed GPUs without the untyped total: their sum.
		{"cpu=8,gres/gpu:a100=2,gres/gpu:v100=1,mem=1T,node=2", workload.Resources{Known: true, CPUs: 8, Nodes: 2, Memory: 1 << 40, GPUs: 3}},
		{"cpu=4,mem=512K,node=1", workload.Resources{Known: true, CPUs: 4, Nodes: 1, Memory: 512 << 10, GPUs: -1}},
		{"mem=1G,node=1", workload.Resources{CPUs: -1, Nodes: 1, Memory: 1 << 30, GPUs: -1}},
		{"", workload.Resources{CPUs: -1, Nodes: -1, Memory: -1, GPUs: -1}},
	}
	for _, c := range cases {
		tres, err := sacct.ParseTRES(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := sacct.Resources(tres); got != c.want {
			t.Errorf("Resources(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestCheckNodeTRES(t *testing.T) {
	cases := []struct {
		in, err string // err: a part of the message, "" for none
	}{
		{"billing=12,cpu=12,mem=33600M,node=1", ""},
		{"cpu=2,gres/gpu:v100=2,mem=1.5G", ""},
		{"mem=0,cpu=1", ""},
		{"energy=1.5,cpu=1", ""}, // other keys are not checked
		{"", ""},
		{"cpu=1,mem=16X", `unknown memory unit "X"`},
		{"cpu=1,mem=16MB", `unknown memory unit "MB"`},
		{"cpu=1,mem=4000", "no unit"},
		{"cpu=1,mem=G", "not a number"},
		{"cpu=1.5", "not a whole number"},
		{"cpu=2,gres/gpu=two", "not a whole number"},
		{"cpu=2,node=-1", "not a whole number"},
		{"cpu=2,node", "want key=value"},
		{"cpu=2,=3", "want key=value"},
	}
	for _, c := range cases {
		err := sacct.CheckNodeTRES(c.in)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("CheckNodeTRES(%q) = %v, want nil", c.in, err)
		case c.err != "" && (!errors.Is(err, sacct.ErrValue) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("CheckNodeTRES(%q) = %v, want ErrValue saying %q", c.in, err, c.err)
		}
	}
}

// logHeader is the header of the hand-written logs of the tests.
const logHeader = "JobID|Partition|Submit|Start|End|Elapsed|Timelimit|ReqCPUS|AllocCPUS|NNodes|ReqTRES|AllocTRES|Constraints|State"

func writeLog(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log.sacct")
	if err := os.WriteFile(path, []byte(logHeader+"\n"+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadWorkload reads a log of three jobs, one with steps and one of
// two het components, and checks each job's request against the lines.
func TestLoadWorkload(t *testing.T) {
	path := writeLog(t,
		"10|general|2021-01-01T00:00:00|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|12|16|2|cpu=12,mem=24G,node=2|cpu=16,mem=32G,node=2|intel&ib|COMPLETED",
		"10.batch||2021-01-01T00:00:00|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00||8|8|1||cpu=8,mem=16G,node=1||COMPLETED",
		"11+0|gpu|2021-01-01T00:02:00|2021-01-01T00:03:00|2021-01-01T00:08:00|00:05:00|01:00:00|4|4|1|cpu=4,gres/gpu:v100=2,mem=8G,node=1||a|b|CANCELLED by 5",
		"11+1|gpu|2021-01-01T00:02:00|2021-01-01T00:03:00|2021-01-01T00:08:00|00:05:00|01:00:00|2|2|1|cpu=2,gres/gpu:v100=1,mem=4G,node=1|||CANCELLED by 5",
		"12|debug|2021-01-01T00:04:00|2021-01-01T00:05:00|2021-01-01T00:06:00|00:01:00|00:05:00|3|3|||||FAILED",
	)
	w, err := sacct.LoadWorkload(path, 64, workload.DefaultClean(), workload.Feedback{}, sacct.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := workload.SHA256(path)
	if err != nil || w.SHA256 != sum {
		t.Errorf("SHA256 %s, want the log's %s (%v)", w.SHA256, sum, err)
	}
	read := map[string]int64{"lines": 6, "blank-lines": 0, "records": 5, "jobs": 3, "steps-folded": 1, "het-components-folded": 1,
		"duplicate-ids": 0, "orphan-steps": 0, "repaired-records": 1, "skipped-records": 0}
	if w.Format != sacct.Format || !maps.Equal(w.ReadCounts, read) {
		t.Errorf("format %q, read counts %v; want %q, %v", w.Format, w.ReadCounts, sacct.Format, read)
	}
	none := workload.Resources{CPUs: -1, Nodes: -1, Memory: -1, GPUs: -1}
	want := map[int64]workload.NodeRequest{
		1: {Requested: workload.Resources{Known: true, CPUs: 12, Nodes: 2, Memory: 24 << 30, GPUs: -1},
			Allocated: workload.Resources{Known: true, CPUs: 16, Nodes: 2, Memory: 32 << 30, GPUs: -1},
			Nodes:     2, Partition: "general", Constraints: "intel&ib", Line: 2},
		// The het job's components add up; "a|b" is its constraint
		// (Constraints is the only free-text field).
		2: {Requested: workload.Resources{Known: true, CPUs: 6, Nodes: 2, Memory: 12 << 30, GPUs: 3}, Allocated: none,
			Nodes: 2, Partition: "gpu", Constraints: "a|b", Line: 4},
		3: {Requested: none, Allocated: none, Nodes: -1, Partition: "debug", Line: 6},
	}
	if len(w.Jobs) != len(want) || len(w.Requests) != len(w.Jobs) {
		t.Fatalf("%d jobs, %d requests; want %d", len(w.Jobs), len(w.Requests), len(want))
	}
	for i, in := range w.Jobs {
		if got := w.Requests[i]; got != want[in.Job.ID] {
			t.Errorf("job %d: request\n%+v, want\n%+v", in.Job.ID, got, want[in.Job.ID])
		}
	}
}

// TestLoadWorkloadBadInput: a malformed TRES or memory unit fails,
// naming the file, the line and the field.
func TestLoadWorkloadBadInput(t *testing.T) {
	good := "10|general|2021-01-01T00:00:00|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|1|1|1|cpu=1,mem=1G,node=1|cpu=1,mem=1G,node=1||COMPLETED"
	cases := []struct {
		name, line, want string
	}{
		{"unknown unit", "11|general|2021-01-01T00:00:00|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|1|1|1|cpu=1,mem=16X,node=1|||COMPLETED",
			`line 3: field ReqTRES: malformed value: TRES mem="16X": unknown unit "X"`},
		{"no unit", "11|general|2021-01-01T00:00:00|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|1|1|1||cpu=1,mem=4000,node=1||COMPLETED",
			`line 3: field AllocTRES: malformed value: TRES mem="4000": no unit`},
		{"fractional cpu", "11|general|2021-01-01T00:00:00|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|1|1|1|cpu=1.5,node=1|||COMPLETED",
			`line 3: field ReqTRES: malformed value: TRES cpu="1.5" is not a whole number`},
		{"item without value", "11|general|2021-01-01T00:00:00|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|1|1|1|cpu=1,node|||COMPLETED",
			`line 3: field ReqTRES: malformed value: TRES item "node"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeLog(t, good, c.line)
			_, err := sacct.LoadWorkload(path, 64, workload.DefaultClean(), workload.Feedback{}, sacct.Options{})
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one naming %s and saying %q", err, path, c.want)
			}
		})
	}
}

// TestLoadWorkloadGroups: with Groups = account each job's group is its
// Slurm account, numbered in order of first appearance (an empty account
// gives no group), and counted; by default it is the Unix group.
func TestLoadWorkloadGroups(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.sacct")
	log := "JobID|User|Group|Account|Submit|Start|End|Elapsed|Timelimit|ReqCPUS|AllocCPUS|State\n" +
		"1|ann|staff|physics|2021-01-01T00:00:00|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|4|4|COMPLETED\n" +
		"2|bob|staff|chem|2021-01-01T00:02:00|2021-01-01T00:03:00|2021-01-01T00:13:00|00:10:00|00:30:00|4|4|COMPLETED\n" +
		"3|cat|lab|physics|2021-01-01T00:04:00|2021-01-01T00:05:00|2021-01-01T00:15:00|00:10:00|00:30:00|4|4|COMPLETED\n" +
		"4|dan|lab||2021-01-01T00:06:00|2021-01-01T00:07:00|2021-01-01T00:17:00|00:10:00|00:30:00|4|4|COMPLETED\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		groups string
		want   []int32 // by job id; -1 for none
		counts map[string]int64
	}{
		{"", []int32{1, 1, 2, 2}, nil},
		{sacct.GroupsGroup, []int32{1, 1, 2, 2}, nil},
		{sacct.GroupsAccount, []int32{1, 2, 1, -1}, map[string]int64{"groups-from-account": 3, "groups-no-account": 1}},
	} {
		w, err := sacct.LoadWorkload(path, 64, workload.DefaultClean(), workload.Feedback{}, sacct.Options{Groups: tc.groups})
		if err != nil {
			t.Fatal(err)
		}
		var got []int32
		for _, in := range w.Jobs {
			got = append(got, in.Job.Group)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("groups %q: %v, want %v", tc.groups, got, tc.want)
		}
		for k, v := range tc.counts {
			if w.ReadCounts[k] != v {
				t.Errorf("groups %q: %s %d, want %d", tc.groups, k, w.ReadCounts[k], v)
			}
		}
		if _, ok := w.ReadCounts["groups-from-account"]; ok != (tc.counts != nil) {
			t.Errorf("groups %q: read counts %v", tc.groups, w.ReadCounts)
		}
	}
	if _, err := sacct.LoadWorkload(path, 64, workload.DefaultClean(), workload.Feedback{}, sacct.Options{Groups: "qos"}); err == nil || !strings.Contains(err.Error(), `groups "qos"`) {
		t.Errorf("groups qos: %v", err)
	}
}

// TestLoadWorkloadPriority: the log's Priority is read only when asked
// for (Options.Priority): a value that is not a count leaves a read
// without it as before, and fails one with it, naming the field.
func TestLoadWorkloadPriority(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.sacct")
	log := "JobID|Priority|Submit|Start|End|Elapsed|Timelimit|ReqCPUS|AllocCPUS|State\n" +
		"1|4294901759|2021-01-01T00:00:00|2021-01-01T00:01:00|2021-01-01T00:11:00|00:10:00|00:30:00|4|4|COMPLETED\n" +
		"2|N/A|2021-01-01T00:02:00|2021-01-01T00:03:00|2021-01-01T00:13:00|00:10:00|00:30:00|4|4|COMPLETED\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := sacct.LoadWorkload(path, 64, workload.DefaultClean(), workload.Feedback{}, sacct.Options{})
	if err != nil {
		t.Fatalf("without the option: %v", err)
	}
	if p := w.Jobs[0].Job.Priority; p != 0 {
		t.Errorf("without the option, priority %v", p)
	}
	if _, err := sacct.LoadWorkload(path, 64, workload.DefaultClean(), workload.Feedback{}, sacct.Options{Priority: true}); err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "field Priority") {
		t.Errorf("with it: %v", err)
	}
}
