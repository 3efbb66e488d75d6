package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
		if !strings.Contains(out, "programs by number of jobs, K_ef over completed jobs (K_ef1 > 0.5 flagged):") ||
			!strings.Contains(out, "on jobs_share, nodes, req_time, k_wall") {
			t.Errorf("sacct by app: no table of programs, or not clustered on nodes:\n%s", out)
		}
		check(t, "analyze-sacct", page, []string{"Overview", "By app", "By nodes", "Efficiency by node count", "Provenance"},
			[]string{"K_ef2 and K_ef1 by node-count group", "K_ef2 by node-count group per program"}, 0)
		// The paper's table of programs is in the page too.
		if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "K_ef1 above 0.5 is flagged") {
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
