package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/workload/swf"
)

// TestGanttAndExport draws and exports a run of sim, and checks that bad
// options exit 2 before anything is written.
func TestGanttAndExport(t *testing.T) {
	tmp := t.TempDir()
	jobs := filepath.Join(tmp, "kth.parquet")
	if out, err := run(t, "sim", "--trace", kth, "--policy", "easy", "--out", jobs); err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	}
	if out, err := run(t, "gantt", jobs, "--svg", filepath.Join(tmp, "w.svg"), "--from", "600000", "--to", "700000"); err != nil {
		t.Fatalf("gantt: %v\n%s", err, out)
	}
	if out, err := run(t, "gantt", jobs); err != nil || !strings.Contains(out, "kth.gantt.html") {
		t.Fatalf("gantt: %v\n%s", err, out)
	}
	for _, f := range []string{"w.svg", "kth.gantt.html"} {
		if st, err := os.Stat(filepath.Join(tmp, f)); err != nil || st.Size() < 10_000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	csv := filepath.Join(tmp, "jobs.csv")
	if out, err := run(t, "export", jobs, "--out", csv); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	f, err := os.Open(csv)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		if lines == 0 && !strings.HasPrefix(sc.Text(), "job_id,workload_name,profile,") {
			t.Errorf("header %q", sc.Text())
		}
		lines++
	}
	if lines != 28467+1 {
		t.Errorf("%d lines, want a header and 28,467 jobs", lines)
	}
	// The SWF export read back by our own reader: every job's simulated
	// wait and run time, and its status.
	swfPath := filepath.Join(tmp, "kth.swf")
	if out, err := run(t, "export", jobs, "--format", "swf", "--out", swfPath); err != nil {
		t.Fatalf("export swf: %v\n%s", err, out)
	}
	rows, _, err := results.ReadJobs(jobs)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := swf.Open(swfPath)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for i := 0; ; i++ {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			if i != len(rows) {
				t.Errorf("%d records, want %d", i, len(rows))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		j := rows[i]
		if rec.JobNumber != j.JobID || rec.Submit != j.Submit || rec.Wait != j.Wait || rec.RunTime != j.Runtime || (rec.Status == 0) != j.Killed {
			t.Fatalf("record %d: %+v, the jobs file's %+v", i, rec, j)
		}
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"gantt", jobs, "--colour", "mood", "--html", filepath.Join(tmp, "bad1.html")}, "want one of decision, none, user"},
		{[]string{"gantt", jobs, "--from", "0", "--to", "1000", "--html", filepath.Join(tmp, "bad2.html")}, "outside the run, which spans [599850, 29363626)"},
		{[]string{"gantt", jobs, "--run", "3", "--html", filepath.Join(tmp, "bad3.html")}, "is a jobs file, not a campaign folder"},
		{[]string{"export", jobs, "--resources", "gpus", "--out", filepath.Join(tmp, "bad4.csv")}, "want hosts or lanes"},
	} {
		out, err := run(t, tc.args...)
		if exitCode(err) != exitBadInput || !strings.Contains(out, tc.says) {
			t.Errorf("%v: exit %d, want %d saying %q:\n%s", tc.args, exitCode(err), exitBadInput, tc.says, out)
		}
	}
	for _, f := range []string{"bad1.html", "bad2.html", "bad3.html", "bad4.csv"} {
		if _, err := os.Stat(filepath.Join(tmp, f)); err == nil {
			t.Errorf("bad input created %s", f)
		}
	}
}

// TestSeries writes a run's hourly series as CSV and its changes as
// Parquet.
func TestSeries(t *testing.T) {
	tmp := t.TempDir()
	jobs := filepath.Join(tmp, "kth.parquet")
	if out, err := run(t, "sim", "--trace", kth, "--policy", "fcfs", "--out", jobs); err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	}
	out, err := run(t, "series", jobs, "--step", "86400")
	if err != nil || !strings.HasPrefix(out, "time,until,procs_in_use,procs_in_use_share,running_jobs,queue_length,queued_work\n599850,686250,") {
		t.Fatalf("series: %v\n%.300s", err, out)
	}
	// Days from the first submit to the last end, the last one short.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := strings.Split(lines[len(lines)-1], ",")
	end, _ := strconv.ParseInt(last[1], 10, 64)
	if days := (end - 599850 + 86399) / 86400; int64(len(lines)) != 1+days || end <= 599850 {
		t.Errorf("%d lines ending at %d, want a header and %d days", len(lines), end, days)
	}
	if out, err := run(t, "series", jobs, "--step", "0", "--out", filepath.Join(tmp, "s.parquet")); err != nil || !strings.Contains(out, "rows written to") {
		t.Fatalf("series --step 0: %v\n%s", err, out)
	}
	if out, err := run(t, "series", jobs, "--step", "-5"); exitCode(err) != exitBadInput {
		t.Errorf("--step -5: exit %d\n%s", exitCode(err), out)
	}
}

// TestGanttOnNodes lays out a run on shared nodes of 4 cores (KTH-SP2 as
// 25 nodes), which replays every job's cores on its nodes: no node ever
// holds more than its cores.
func TestGanttOnNodes(t *testing.T) {
	tmp := t.TempDir()
	jobs := filepath.Join(tmp, "nodes.parquet")
	if out, err := run(t, "sim", "--trace", kth, "--policy", "easy", "--nodes", "25", "--cores-per-node", "4", "--allocation", "shared", "--out", jobs); err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	}
	svg := filepath.Join(tmp, "n.svg")
	if out, err := run(t, "gantt", jobs, "--svg", svg, "--from", "600000", "--to", "900000", "--colour", "node_partition"); err != nil {
		t.Fatalf("gantt: %v\n%s", err, out)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "25 nodes (cores down each row)") || strings.Count(string(b), `<line x1="110"`) != 24 {
		t.Errorf("the SVG lacks 25 node rows")
	}
	for _, res := range []string{"hosts", "lanes"} {
		out, err := run(t, "export", jobs, "--resources", res)
		if err != nil || !strings.HasPrefix(out, "job_id,") {
			t.Fatalf("export --resources %s: %v\n%.300s", res, err, out)
		}
	}
}
