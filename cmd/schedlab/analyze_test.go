package main

import (
	"image/png"
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
// rendered with content, a full-page screenshot. SCHEDLAB_SCREENSHOTS=DIR
// keeps the screenshots there, for a person to look at.
func TestWorkloadAnalyzeReport(t *testing.T) {
	open := browsercheck.Report(t)
	shots := t.TempDir()
	if d := os.Getenv("SCHEDLAB_SCREENSHOTS"); d != "" {
		shots = d
	}
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
		shot := filepath.Join(shots, name+".png")
		r := open(page, shot)
		if len(r.ConsoleErrors) > 0 || len(r.PageErrors) > 0 {
			t.Errorf("console errors %q, page errors %q", r.ConsoleErrors, r.PageErrors)
		}
		if len(r.Requests) > 0 {
			t.Errorf("a self-contained page requested %q", r.Requests)
		}
		if r.SVGs == 0 || r.NonEmptySVGs != r.SVGs || len(r.Figures) != r.SVGs {
			t.Errorf("%d SVGs, %d of them rendered with content, %d figures", r.SVGs, r.NonEmptySVGs, len(r.Figures))
		}
		titles := map[string]bool{}
		fits := 0
		for _, fig := range r.Figures {
			titles[fig.Title] = true
			if strings.HasPrefix(fig.Title, "ECDF against fitted laws, ") {
				fits++
			}
			if fig.SVGChildren < 30 || fig.SVGTexts < 6 || fig.Width < 300 || fig.Height < 200 {
				t.Errorf("figure %q looks empty: %d elements, %d texts, %dx%d px", fig.Title, fig.SVGChildren, fig.SVGTexts, fig.Width, fig.Height)
			}
			if !strings.Contains(fig.Caption, ". "+fig.Title+". ") {
				t.Errorf("figure %q: caption %q does not lead with the title", fig.Title, fig.Caption)
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
		pf, err := os.Open(shot)
		if err != nil {
			t.Fatal(err)
		}
		defer pf.Close()
		cfg, err := png.DecodeConfig(pf)
		if err != nil || r.Screenshot.Bytes < 50_000 || cfg.Width < 1000 || cfg.Height < 2000 {
			t.Errorf("screenshot %s: %d bytes, %dx%d, %v; want a full page", shot, r.Screenshot.Bytes, cfg.Width, cfg.Height, err)
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
