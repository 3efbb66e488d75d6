package report

import (
	"context"
	"fmt"
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
// content, the expected figure titles, a full-page screenshot (the checks
// every page must pass are browsercheck.Page's).
// SCHEDLAB_SCREENSHOTS=DIR keeps the screenshots there, for a person to
// look at.
func TestReportInBrowser(t *testing.T) {
	open := browsercheck.Page(t, 3000)
	check := func(t *testing.T, name, dir string, opts Options, want []string) browsercheck.Result {
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
		r := open(t, name, page)
		if r.SVGs != len(want) {
			t.Errorf("%d SVGs; want %d", r.SVGs, len(want))
		}
		var titles []string
		for _, fig := range r.Figures {
			titles = append(titles, fig.Title)
		}
		if !slices.Equal(titles, want) {
			t.Errorf("figure titles:\n%s\nwant:\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
		}
		// Every page: the maxima beside the quantiles of the job-level
		// table, and one drawn swatch per value compared, each of its own
		// colour, the colour its name gives.
		var heads []string
		var swatches []browsercheck.Swatch
		for _, tb := range r.Tables {
			heads = append(heads, tb.Head...)
			swatches = append(swatches, tb.Swatches...)
		}
		for _, h := range []string{"wait max", "bsld max"} {
			if !slices.Contains(heads, h) {
				t.Errorf("no table has a %q column", h)
			}
		}
		colours := map[string]bool{}
		for _, sw := range swatches {
			c := valueColours([]string{sw.Label})[sw.Label]
			if want := fmt.Sprintf("rgb(%d, %d, %d)", c.R, c.G, c.B); !sw.Drawn || sw.Color != want {
				t.Errorf("the swatch of %s: drawn %v, colour %s, want %s", sw.Label, sw.Drawn, sw.Color, want)
			}
			colours[sw.Color] = true
		}
		if len(swatches) == 0 || len(colours) != len(swatches) {
			t.Errorf("%d swatches, %d colours: %+v", len(swatches), len(colours), swatches)
		}
		return r
	}
	// The swatch of a policy in a page, as drawn.
	swatch := func(t *testing.T, r browsercheck.Result, label string) string {
		t.Helper()
		for _, tb := range r.Tables {
			for _, sw := range tb.Swatches {
				if sw.Label == label {
					return sw.Color
				}
			}
		}
		t.Fatalf("no swatch of %s", label)
		return ""
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
			"Queue length over time, workload=kth, param_order=submit", "Queued work over time, workload=kth, param_order=submit",
		})
	})
	// EASY is drawn in one colour in the reports of two campaigns that
	// hold it among other policies, in other orders.
	t.Run("colours", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs two campaigns; skipped with -short")
		}
		first := smallCampaign(t, [][2]string{{"fcfs", `ref = "fcfs"`}, {"easy", `ref = "easy"`}, {"conservative", `ref = "conservative"`}})
		second := smallCampaign(t, [][2]string{{"easy-shortest", "ref = \"easy\"\nparams = { order = \"shortest\" }"}, {"fcfs", `ref = "fcfs"`}, {"easy", `ref = "easy"`}})
		series := []string{"mean_wait by policy", "mean_bsld by policy", "ECDF of job wait", "ECDF of job bounded slowdown",
			"Utilisation over time, all runs", "Queue length over time, all runs", "Queued work over time, all runs"}
		a := check(t, "first", first, Options{Baseline: "fcfs", Resamples: 100}, series)
		b := check(t, "second", second, Options{Baseline: "easy-shortest", Resamples: 100}, series)
		if ca, cb := swatch(t, a, "easy"), swatch(t, b, "easy"); ca != cb {
			t.Errorf("easy is %s in one report, %s in the other", ca, cb)
		}
	})
	t.Run("replicates", func(t *testing.T) {
		check(t, "replicates", fakeCampaign(t, 5), Options{Baseline: "fifo", Resamples: 2000}, []string{
			"mean_wait by policy", "mean_wait ratio to fifo per pair", "mean_bsld by policy", "mean_bsld ratio to fifo per pair",
			"mean_wait against depth", "mean_bsld against depth", "mean_wait over replicates", "mean_bsld over replicates", "ECDF of job wait", "ECDF of job bounded slowdown",
			"Utilisation over time, workload=small, param_depth=1", "Queue length over time, workload=small, param_depth=1", "Queued work over time, workload=small, param_depth=1",
		})
	})
}
