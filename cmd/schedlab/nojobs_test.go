package main

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner/campaign"
)

// TestNoJobTrace: a trace that leaves no job (an empty file, a header
// alone, every record dropped by the cleaning) is bad input for run,
// expand and sim: exit 2 naming the file, the manifest's line and what the
// cleaning dropped, and nothing created.
func TestNoJobTrace(t *testing.T) {
	dir := t.TempDir()
	header := "; Version: 2.2\n; MaxProcs: 8\n"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "no job to simulate: it has no job record (an empty file, or a header alone)"},
		{"header", header, "no job to simulate: it has no job record"},
		{"dropped", header + "1 0 1 -1 4 -1 -1 4 200 -1 1 1 1 -1 1 1 -1 -1\n2 9 1 50 16 -1 -1 16 200 -1 1 1 1 -1 1 1 -1 -1\n",
			"no job to simulate: the cleaning dropped all 2 job records (1 by nonpositive-runtime=drop, 1 by oversize=drop; on 8 processors)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trace := filepath.Join(dir, tc.name+".swf")
			if err := os.WriteFile(trace, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			m := filepath.Join(dir, tc.name+".toml")
			out := filepath.Join(dir, tc.name+"-out")
			src := fmt.Sprintf("[campaign]\nseed = 1\nout = %q\n[workloads.w]\ntrace = %q\nprocs = 8\nsha256 = %q\n[policies.easy]\nref = \"easy\"\n[matrix]\nworkload = [\"w\"]\npolicy = [\"easy\"]\n",
				out, trace, fmt.Sprintf("%x", sha256.Sum256([]byte(tc.text)))) // the right hash: the trace is what is wrong
			if err := os.WriteFile(m, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"run", m}, {"expand", m}, {"sim", "--trace", trace, "--procs", "8", "--policy", "easy", "--out", filepath.Join(out, "j.parquet")}} {
				text, err := run(t, args...)
				if exitCode(err) != exitBadInput || !strings.Contains(text, trace+": "+tc.want) {
					t.Errorf("%s: exit %d, want %d and %q\n%s", args[0], exitCode(err), exitBadInput, tc.want, text)
				}
				if args[0] != "sim" && !strings.Contains(text, m+":5: workloads.w.trace: ") {
					t.Errorf("%s: the error does not name the manifest's trace line\n%s", args[0], text)
				}
				if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: %s was created", args[0], out)
				}
			}
		})
	}
}

// TestNullStatistics: a run whose jobs are all trimmed by warm-up completes,
// and its wait and slowdown statistics are null, in the console's table and
// in runs.parquet, never 0; its utilisation, which stands on every job, is
// there. A run with measured jobs beside it has every statistic.
func TestNullStatistics(t *testing.T) {
	m := writeManifest(t, "", `policy = ["easy"]`)
	src, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	// 18,066 NASA-iPSC jobs and 28,467 KTH-SP2 jobs: warm-up leaves NASA none.
	text := strings.Replace(string(src), "[workloads.kth]", "[metrics]\nwarmup_jobs = 20000\n[workloads.kth]", 1)
	if err := os.WriteFile(m, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "c")
	out, err := run(t, "run", m, "--out", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var nasa, kth string
	for _, line := range strings.Split(out, "\n") {
		switch f := strings.Fields(line); {
		case len(f) > 0 && f[0] == "nasa":
			nasa = line
		case len(f) > 0 && f[0] == "kth":
			kth = line
		}
	}
	if f := strings.Fields(nasa); len(f) != 7 || f[1] != "18066" || f[2] != "null" || f[3] != "null" || f[4] != "null" || f[5] == "null" {
		t.Errorf("NASA's row %q, want null mean wait, p95 wait and bounded slowdown, and a utilisation", nasa)
	}
	if strings.Contains(kth, "null") || kth == "" {
		t.Errorf("KTH's row %q, want every statistic", kth)
	}
	cols, rows, _, err := results.ReadTable(filepath.Join(dir, campaign.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c.Name] = i
	}
	for _, row := range rows {
		wl := row[idx["workload"]]
		for _, k := range []string{"mean_wait", "median_wait", "p95_wait", "max_wait", "mean_bsld", "max_bsld", "mean_turnaround",
			"users", "user_mean_bsld_min", "user_mean_bsld_max", "user_bsld_jain"} {
			if v := row[idx[k]]; (v == nil) != (wl == "nasa") {
				t.Errorf("%s: %s = %v, want null for nasa only", wl, k, v)
			}
		}
		if row[idx["measured_jobs"]] != int64(map[any]int{"nasa": 0, "kth": 28467 - 20000}[wl]) || row[idx["utilisation"]] == nil || row[idx["makespan"]] == nil {
			t.Errorf("%s: measured %v, utilisation %v, makespan %v", wl, row[idx["measured_jobs"]], row[idx["utilisation"]], row[idx["makespan"]])
		}
	}
}

// TestTruncatedTrace: a gzip trace cut short is bad input that says so,
// not a malformed last line: exit 2 from run and sim, nothing created.
func TestTruncatedTrace(t *testing.T) {
	data, err := os.ReadFile(kth)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	trace := filepath.Join(dir, "cut.swf.gz")
	if err := os.WriteFile(trace, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	m := filepath.Join(dir, "m.toml")
	src := fmt.Sprintf("[campaign]\nseed = 1\nout = %q\n[workloads.kth]\ntrace = %q\nsha256 = %q\n[policies.easy]\nref = \"easy\"\n[matrix]\nworkload = [\"kth\"]\npolicy = [\"easy\"]\n",
		out, trace, kthSHA)
	if err := os.WriteFile(m, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"run", m}, {"sim", "--trace", trace, "--policy", "easy", "--out", filepath.Join(out, "j.parquet")}} {
		text, err := run(t, args...)
		if exitCode(err) != exitBadInput || !strings.Contains(text, "gzip: the compressed stream ends early (is the file truncated?): unexpected EOF") ||
			strings.Contains(text, "wrong number of fields") {
			t.Errorf("%s: exit %d, want %d and the gzip error\n%s", args[0], exitCode(err), exitBadInput, text)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %s was created", args[0], out)
		}
	}
}
