package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"

	"github.com/schedlab/schedlab/internal/browsercheck"
	"github.com/schedlab/schedlab/workload/analysis"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// TestWorkloadAnalyzeReport writes the HTML report of `workload analyze`
// for the shipped KTH log (by default next to the Parquet files of --out)
// and for a Slurm accounting fixture (--report), opens each in headless
// Chromium and checks what a reader gets: no console or page error, no
// request, the expected section and figure titles, every figure's SVG
// rendered with content, a full-page screenshot (browsercheck.Page).
// SCHEDLAB_SCREENSHOTS=DIR keeps the screenshots there, for a person to
// look at.
func TestWorkloadAnalyzeReport(t *testing.T) {
	open := browsercheck.Page(t, 2000)
	check := func(t *testing.T, name, page string, sections, figures []string, fitFigures int) {
		t.Helper()
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		html := string(b)
		for _, s := range sections {
			if !strings.Contains(html, "<h2>"+s+"</h2>") {
				t.Errorf("%s: no section %q", name, s)
			}
		}
		r := open(t, name, page)
		if r.SVGs == 0 {
			t.Errorf("%s: no SVG", name)
		}
		titles := map[string]bool{}
		fits := 0
		for _, fig := range r.Figures {
			titles[fig.Title] = true
			if strings.HasPrefix(fig.Title, "ECDF against fitted laws, ") {
				fits++
			}
		}
		for _, want := range figures {
			if !titles[want] {
				t.Errorf("%s: no figure %q (have %v)", name, want, titles)
			}
		}
		if fits != fitFigures {
			t.Errorf("%s: %d ECDF-against-fits figures, want %d", name, fits, fitFigures)
		}
	}

	t.Run("kth", func(t *testing.T) {
		dir := t.TempDir()
		out, err := run(t, "workload", "analyze", kth, "--by", "user,group,queue", "--resamples", "19", "--report-clusters", "1", "--out", dir)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		page := filepath.Join(dir, "report.html")
		if !strings.Contains(out, "wrote "+page) {
			t.Errorf("output does not name the report:\n%s", out)
		}
		// User and group cluster on KTH, on the paper's features (share
		// of jobs, processors: SWF has no nodes), and queue has one value:
		// one ECDF figure per clustered factor, and no cluster for queue.
		if n := strings.Count(out, "), sizes "); n != 2 || strings.Count(out, "on jobs_share, procs, req_time, k_wall") != 2 {
			t.Errorf("KTH: %d clusterings, want 2, on the paper's features:\n%s", n, out)
		}
		check(t, "analyze-kth", page, []string{"Overview", "By user", "By group", "By queue", "Provenance"},
			[]string{"Clusters of user values", "Clusters of group values"}, 2)
	})
	t.Run("sacct", func(t *testing.T) {
		page := filepath.Join(t.TempDir(), "sub", "sacct.html")
		out, err := run(t, "workload", "analyze", filepath.Join(tracedata.SacctDirForTest(t), "sacct_dump2101.log"),
			"--by", "app,nodes", "--resamples", "19", "--report", page)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		// The paper's table of programs, and R1 as nodes: sacct records them.
		if !strings.Contains(out, "programs by number of jobs, K_ef over completed jobs (K_ef2 above 0.5 or K_ef1 above 0.5 flagged: --kef2-alarm, --kef1-alarm):") ||
			!strings.Contains(out, "on jobs_share, nodes, req_time, k_wall") {
			t.Errorf("sacct by app: no table of programs, or not clustered on nodes:\n%s", out)
		}
		check(t, "analyze-sacct", page, []string{"Overview", "By app", "By nodes", "Efficiency by node count", "Provenance"},
			[]string{"K_ef2 and K_ef1 by node-count group", "K_ef2 by node-count group per program"}, 0)
		// The paper's table of programs is in the page too.
		if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "K_ef2 above 0.5 or K_ef1 above 0.5 is flagged") {
			t.Errorf("sacct report: no table of programs (%v)", err)
		}
	})
}

// TestClusteringSettings: --activity and --resource of analyze and fit.
// Bad values exit 2 before anything is written; a model records the
// features its classes were clustered on.
func TestClusteringSettings(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"analyze, unknown activity", []string{"analyze", kth, "--by", "user", "--activity", "cpu", "--out", filepath.Join(dir, "a")}, exitBadInput, `activity "cpu"`},
		{"analyze, unknown resource", []string{"analyze", kth, "--by", "user", "--resource", "gpus", "--out", filepath.Join(dir, "b")}, exitBadInput, `resource "gpus"`},
		{"fit, unknown activity", []string{"fit", kth, "--activity", "cpu", "-o", filepath.Join(dir, "c.toml")}, exitBadInput, `activity "cpu"`},
		{"fit, nodes of an SWF log", []string{"fit", kth, "--resource", "nodes", "-o", filepath.Join(dir, "d.toml")}, exitBadInput, "record processors, not nodes"},
		{"analyze, work and processors", []string{"analyze", kth, "--by", "user", "--resamples", "0", "--activity", "work", "--resource", "procs"}, exitOK,
			"on work_share, procs, req_time, k_wall"},
		{"analyze, nodes of an SWF log", []string{"analyze", kth, "--by", "user", "--resource", "nodes", "--out", filepath.Join(dir, "f")}, exitBadInput, "records processors, not nodes"},
		{"fit, unknown K_wall", []string{"fit", kth, "--k-wall", "beta", "-o", filepath.Join(dir, "g.toml")}, exitBadInput, `--k-wall "beta"`},
		{"fit, the paper's features", []string{"fit", kth, "-o", filepath.Join(dir, "e.toml")}, exitOK, "on jobs_share, procs, req_time, k_wall"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, append([]string{"workload"}, c.args...)...)
			if code := exitCode(err); code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, out)
			}
			if !strings.Contains(out, c.contains) {
				t.Errorf("output lacks %q:\n%.2000s", c.contains, out)
			}
		})
	}
	for _, name := range []string{"a", "b", "c.toml", "d.toml", "f", "g.toml"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s exists after bad input (%v)", name, err)
		}
	}
	m, err := analysis.ReadModel(filepath.Join(dir, "e.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"jobs_share", "procs", "req_time", "k_wall"}; !slices.Equal(m.Clustering, want) {
		t.Errorf("model clustered on %v, want %v", m.Clustering, want)
	}
}

// TestWorkloadAnalyzeRules: the rules on how jobs ended, through the
// command. On the sacct fixture 2101, user005's 5 jobs are in state
// TIMEOUT (killed), user003's 6 jobs were cancelled before they ran
// (runtime 0; a "wait" of 964,703 s on average from submission to
// cancellation under --never-ran keep), and JobName002's K_ef2 of 0.792
// is flagged. Bad settings exit 2 naming the flag, and nothing is written.
func TestWorkloadAnalyzeRules(t *testing.T) {
	fixture := filepath.Join(tracedata.SacctDirForTest(t), "sacct_dump2101.log")
	dir := t.TempDir()
	out, err := run(t, "workload", "analyze", fixture, "--by", "user,app", "--resamples", "0", "--out", filepath.Join(dir, "ok"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	user003 := regexp.MustCompile(`(?m)^ +user003 +6 +0\.500 +0\.000 +12\.0 +172800 +NaN +NaN +NaN +0 +6 `)
	for _, want := range []string{
		"killed at their limit (censored): 5 of 12 jobs: of 12 with a state, 5 in state TIMEOUT (--killed-by state; 0 in another state reach their limit, not counted)",
		"never ran (T_run = 0): 6 jobs, left out of runtime, K_wall and wait (--never-ran exclude)",
		"JobName002     1          1       0.792       0.249  alarming (K_ef2)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !user003.MatchString(out) {
		t.Errorf("user003: not 6 jobs that never ran, without runtime, wait or K_wall:\n%s", out)
	}
	_, _, meta, err := results.ReadTable(filepath.Join(dir, "ok", "factors.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"rules.killed_by": "state", "rules.killed.timeout": "5", "rules.never_ran": "exclude",
		"rules.never_ran.jobs": "6", "rules.limit_tolerance": "60", "alarms.kef2": "0.5"} {
		if meta[k] != v {
			t.Errorf("factors.parquet: %s = %q, want %q", k, meta[k], v)
		}
	}
	// Kept, the jobs that never ran wait from submission to cancellation.
	out, err = run(t, "workload", "analyze", fixture, "--by", "user", "--resamples", "0", "--never-ran", "keep")
	if err != nil || !regexp.MustCompile(`(?m)^ +user003 +6 .* 964703 +0\.000 +0 +0 `).MatchString(out) {
		t.Errorf("--never-ran keep: %v\n%s", err, out)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"analyze", fixture, "--limit-tolerance", "-5"}, "limit-tolerance -5"},
		{[]string{"analyze", fixture, "--killed-by", "exit"}, `killed-by "exit"`},
		{[]string{"analyze", fixture, "--never-ran", "drop"}, `never-ran "drop"`},
		{[]string{"analyze", fixture, "--kef2-alarm", "1.5"}, "kef2-alarm 1.5"},
		{[]string{"analyze", fixture, "--kef1-alarm", "abc"}, `"abc"`},
		{[]string{"fit", kth, "--tolerance-min-limit", "-1"}, "tolerance-min-limit -1"},
		{[]string{"fit", kth, "--killed-by", "runtime"}, "unknown flag: --killed-by"},
	}
	for i, c := range cases {
		o := filepath.Join(dir, fmt.Sprint("bad", i))
		flag := "--out"
		if c.args[0] == "fit" {
			flag = "-o"
		}
		out, err := run(t, append(append([]string{"workload"}, c.args...), flag, o)...)
		if exitCode(err) != exitBadInput || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want %d naming %q:\n%s", c.args, exitCode(err), exitBadInput, c.want, out)
		}
		if _, err := os.Stat(o); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%v: %s written (%v)", c.args, o, err)
		}
	}
}

// TestWorkloadFitRules: a fitted model records its rules and the jobs
// they touched; a model file with a bad rule is refused, naming the file
// and the key.
func TestWorkloadFitRules(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.toml")
	out, err := run(t, "workload", "fit", kth, "-o", model, "--limit-tolerance", "0")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// No tolerance: only KTH's 513 jobs at or past their limit.
	if !strings.Contains(out, "killed at their limit (censored): 513 of 28476 jobs: 513 with T_run >= T_lim, 0 more") {
		t.Errorf("output:\n%s", out)
	}
	m, err := analysis.ReadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	if m.Rules == nil || m.Endings == nil || m.Rules.LimitTolerance != 0 || m.Endings.Killed != 513 || m.Endings.NeverRan != 8 || m.Jobs != 28468 {
		t.Errorf("model: rules %+v, endings %+v, %d jobs", m.Rules, m.Endings, m.Jobs)
	}
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(b), `never_ran = "exclude"`, `never_ran = "drop"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, "workload", "gen", bad)
	if exitCode(err) != exitBadInput || !strings.Contains(out, bad) || !strings.Contains(out, `[rules]: analysis: never-ran "drop"`) {
		t.Errorf("bad model: exit %d\n%s", exitCode(err), out)
	}
}
