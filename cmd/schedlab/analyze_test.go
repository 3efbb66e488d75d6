package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/browsercheck"
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
		// k = 2 for user and for group on KTH, and queue has one value:
		// one ECDF figure per clustered factor, and no cluster for queue.
		if !strings.Contains(out, "clusters: k = 2") {
			t.Errorf("KTH no longer clusters in 2:\n%s", out)
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
		check(t, "analyze-sacct", page, []string{"Overview", "By app", "By nodes", "Efficiency by node count", "Provenance"},
			[]string{"K_ef2 and K_ef1 by node-count group"}, 0)
	})
}
