package report

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/browsercheck"
	"github.com/schedlab/schedlab/runner/campaign"
	"github.com/schedlab/schedlab/runner/manifest"
)

// TestReportInBrowser writes the reports of the quickstart campaign (run
// here, in-process, from experiments/quickstart.toml) and of a replicated
// campaign, opens each in headless Chromium and checks what a reader gets:
// no console or page error, no request, every figure's SVG rendered with
// content, the expected figure titles, a non-empty screenshot.
// SCHEDLAB_SCREENSHOTS=DIR keeps the screenshots there, for a person to
// look at.
func TestReportInBrowser(t *testing.T) {
	open := browsercheck.Report(t)
	shots := t.TempDir()
	if d := os.Getenv("SCHEDLAB_SCREENSHOTS"); d != "" {
		shots = d
	}
	check := func(t *testing.T, name, dir string, opts Options, want []string) {
		page := filepath.Join(t.TempDir(), name+".html")
		f, err := os.Create(page)
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(f, dir, opts); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		shot := filepath.Join(shots, name+".png")
		r := open(page, shot)
		if len(r.ConsoleErrors) > 0 || len(r.PageErrors) > 0 {
			t.Errorf("console errors %q, page errors %q", r.ConsoleErrors, r.PageErrors)
		}
		if len(r.Requests) > 0 {
			t.Errorf("a self-contained page requested %q", r.Requests)
		}
		if r.SVGs != len(want) || r.NonEmptySVGs != len(want) {
			t.Errorf("%d SVGs, %d of them rendered with content; want %d", r.SVGs, r.NonEmptySVGs, len(want))
		}
		var titles []string
		for _, fig := range r.Figures {
			titles = append(titles, fig.Title)
			// A plot has at least its title, axis labels, ticks and data.
			if fig.SVGChildren < 30 || fig.SVGTexts < 6 || fig.Width < 300 || fig.Height < 200 {
				t.Errorf("figure %q looks empty: %d elements, %d texts, %dx%d px", fig.Title, fig.SVGChildren, fig.SVGTexts, fig.Width, fig.Height)
			}
			if !strings.Contains(fig.Caption, ". "+fig.Title+". ") {
				t.Errorf("figure %q: caption %q does not lead with the title", fig.Title, fig.Caption)
			}
		}
		if !slices.Equal(titles, want) {
			t.Errorf("figure titles:\n%s\nwant:\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
		}
		pf, err := os.Open(shot)
		if err != nil {
			t.Fatal(err)
		}
		defer pf.Close()
		cfg, err := png.DecodeConfig(pf)
		if err != nil || r.Screenshot.Bytes < 50_000 || cfg.Width < 1000 || cfg.Height < 3000 {
			t.Errorf("screenshot %s: %d bytes, %dx%d, %v; want a full page", shot, r.Screenshot.Bytes, cfg.Width, cfg.Height, err)
		}
	}

	t.Run("quickstart", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs the quickstart campaign; skipped with -short")
		}
		m, err := manifest.Load(filepath.Join("..", "..", "experiments", "quickstart.toml"))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		rep, err := campaign.Run(context.Background(), m, campaign.Options{Dir: dir, InProcess: true})
		if err != nil || rep.Done != 12 {
			t.Fatalf("quickstart campaign: %v, %+v", err, rep)
		}
		check(t, "quickstart", dir, Options{Axis: "policy", Baseline: "easy"}, []string{
			"mean_wait by policy", "mean_bsld by policy", "ECDF of job wait", "ECDF of job bounded slowdown",
			"Utilisation over time, workload=kth, param_order=submit",
			"Queue length over time, workload=kth, param_order=submit",
		})
	})
	t.Run("replicates", func(t *testing.T) {
		check(t, "replicates", fakeCampaign(t, 5), Options{Baseline: "fifo", Resamples: 2000}, []string{
			"mean_wait by policy", "mean_wait ratio to fifo per pair", "mean_bsld by policy", "mean_bsld ratio to fifo per pair",
			"mean_wait against depth", "mean_bsld against depth", "mean_wait over replicates", "mean_bsld over replicates", "ECDF of job wait", "ECDF of job bounded slowdown",
			"Utilisation over time, workload=small, param_depth=1", "Queue length over time, workload=small, param_depth=1",
		})
	})
}
