package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runner/campaign"
)

// TestPrintReportGrid: the table `schedlab run` prints has the local and
// global jobs apart when the runs are of a grid, and the whole's columns
// otherwise; a failed run's row keeps the columns aligned.
func TestPrintReportGrid(t *testing.T) {
	plain := map[string]any{"jobs": 10.0, "mean_wait": 12.5, "p95_wait": 40.0, "mean_bsld": 1.5, "utilisation": 0.5}
	grid := map[string]any{"jobs": 10.0, "mean_wait": 12.5, "p95_wait": 40.0, "mean_bsld": 1.5, "utilisation": 0.5,
		"local_jobs": 6.0, "global_jobs": 4.0, "local_mean_wait": 20.0, "global_mean_wait": 1.25, "global_max_wait": 5.0,
		"global_rejected": 1.0, "local_mean_bsld": 2.0, "global_mean_bsld": 1.1}
	for _, c := range []struct {
		name    string
		metrics map[string]any
		head    string
		row     string
	}{
		{"not a grid", plain, "jobs mean wait (s) p95 wait (s) mean bsld utilisation seconds", "a 10 12.5 40 1.50 0.5000 0.25"},
		{"a grid", grid, "jobs local mean wait (s) global mean wait (s) global max wait (s) global rejected local mean bsld global mean bsld utilisation seconds",
			"a 10 20.0 1.2 5 1 2.00 1.10 0.5000 0.25"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := &campaign.Report{Dir: "out/x", Total: 2, Done: 1, Failed: 1, Runs: []campaign.RunResult{
				{Axes: map[string]string{"policy": "a"}, Status: campaign.StatusOK, Metrics: c.metrics, WallSeconds: 0.25},
				{Axes: map[string]string{"policy": "b"}, Status: campaign.StatusFailed, Error: "boom", WallSeconds: 0.5},
			}}
			var b bytes.Buffer
			printReport(&b, rep, func(campaign.RunResult) string { return "" })
			lines := strings.Split(b.String(), "\n")
			space := regexp.MustCompile(`\s+`)
			var head, row, failed string
			for i, l := range lines {
				l = strings.TrimSpace(space.ReplaceAllString(l, " "))
				switch {
				case strings.HasPrefix(l, "policy jobs"):
					head = strings.TrimPrefix(l, "policy ")
				case strings.HasPrefix(l, "a "):
					row = l
				case strings.HasPrefix(l, "b failed"):
					failed = lines[i]
				}
			}
			if head != c.head || row != c.row {
				t.Errorf("head %q row %q, want %q and %q:\n%s", head, row, c.head, c.row, b.String())
			}
			// Right-aligned columns: the failed run's seconds end where
			// the completed run's do.
			var okLine string
			for _, l := range lines {
				if strings.HasPrefix(strings.TrimSpace(l), "a ") {
					okLine = l
				}
			}
			if len(strings.TrimRight(failed, " ")) != len(strings.TrimRight(okLine, " ")) {
				t.Errorf("the failed run's row is not aligned:\n%s", b.String())
			}
		})
	}
}
