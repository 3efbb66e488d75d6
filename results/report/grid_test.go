package report

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
)

// fakeGridCampaign writes a campaign of two policies, a and b, with two
// replicates each, on a grid of clusters kth and nasa. Every run has the
// same jobs: local jobs waiting 100 s (home kth) and 300 s (home nasa);
// global jobs G1 on kth (1 processor, 100 s, payment 10, charged 4, wait
// 600 s), G2 on nasa (2 x 100 s, payment 20, charged 0, wait 1,200 s)
// and G3 on nasa (2 x 100 s, payment 30, no charge, wait 0), which
// policy b rejects.
func fakeGridCampaign(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, results.JobsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	cols := []results.Column{
		{Name: "run_index", Kind: results.Int64}, {Name: "run_key", Kind: results.String},
		{Name: "label", Kind: results.String}, {Name: "status", Kind: results.String},
		{Name: "error", Kind: results.String}, {Name: "policy", Kind: results.String},
		{Name: "replicate", Kind: results.Int64}, {Name: "mean_wait", Kind: results.Float64},
		{Name: "mean_bsld", Kind: results.Float64}, {Name: "local_mean_wait", Kind: results.Float64},
		{Name: "global_mean_wait", Kind: results.Float64}, {Name: "local_mean_bsld", Kind: results.Float64},
		{Name: "global_mean_bsld", Kind: results.Float64}, {Name: "bsld_tau", Kind: results.Int64},
		{Name: "policy_ref", Kind: results.String}, {Name: "policy_sha256", Kind: results.String},
		{Name: "workload_sha256", Kind: results.String}, {Name: "procs", Kind: results.Int64},
	}
	f := func(x float64) *float64 { return &x }
	platform := `{"name":"grid","resources":["procs"],"clusters":[{"name":"kth","capacity":[4]},{"name":"nasa","capacity":[4]}]}`
	var rows [][]any
	n := 0
	for _, p := range []string{"a", "b"} {
		for rep := range 2 {
			key := fmt.Sprintf("%064x", n+1)
			type j struct {
				wait, procs, cluster, home int64
				payment, cost              *float64
			}
			var jobs []results.JobRow
			var grid []results.GridRow
			for i, x := range []j{{100, 1, 0, 0, nil, nil}, {300, 1, 1, 1, nil, nil},
				{600, 1, 0, -1, f(10), f(4)}, {1200, 2, 1, -1, f(20), f(0)}, {0, 2, 1, -1, f(30), nil}} {
				g := results.GridRow{Home: x.home, Payment: x.payment, Cost: x.cost}
				if x.home >= 0 {
					g.Priority = f(1)
				}
				row := results.JobRow{JobID: int64(i + 1), Submit: int64(i), Start: int64(i) + x.wait, End: int64(i) + x.wait + 100,
					Wait: x.wait, Runtime: 100, Walltime: 100, Procs: x.procs, Cluster: x.cluster, User: -1, Group: -1, App: -1, Queue: -1, Partition: -1}
				if p == "b" && i == 4 {
					g.Rejected, row.Cluster, row.Start, row.End, row.Wait, row.Runtime = true, -1, row.Submit, row.Submit, 0, 0
				}
				jobs, grid = append(jobs, row), append(grid, g)
			}
			if err := results.WriteJobsWith(results.CampaignJobsPath(dir, key), jobs, results.JobExtras{Grid: grid},
				results.Metadata{"run.key": key, "platform": platform}); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, []any{int64(n), key, fmt.Sprintf("policy=%s replicate=%d", p, rep), "ok", nil, p, int64(rep),
				440.0 + float64(n), 2.0, 200.0, 600.0 + float64(n), 1.5, 3.0 + float64(n), int64(10), p, "ab", "cd", int64(8)})
			n++
		}
	}
	meta := results.Metadata{results.AxesKey: `["policy"]`, "campaign.name": "grid", "campaign.seed": "1",
		"metrics.bsld_tau": "10", "campaign.runs": fmt.Sprint(n)}
	if err := results.WriteTable(filepath.Join(dir, results.RunsFile), cols, rows, meta); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pageText is a page's text without its tags, spaces collapsed.
func pageText(page string) string {
	s := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(page, " ")
	return strings.Join(strings.Fields(html.UnescapeString(s)), " ")
}

// TestGridReport: a grid campaign is compared by its local and global
// metrics by default, and its page has the local and global jobs apart and
// where the global jobs ran, worked by hand from fakeGridCampaign; a
// campaign that is not a grid has neither.
func TestGridReport(t *testing.T) {
	page := write(t, fakeGridCampaign(t), Options{Resamples: 100})
	body := pageText(page)
	for _, want := range []string{
		"local_mean_wait, global_mean_wait, local_mean_bsld, global_mean_bsld compared against policy=a",
		`id="grid"`,
		// policy, runs, local jobs, mean, p95, max, rejected, global jobs, mean, p95, max, rejected
		"a 2 4 200 300 300 0 6 600 1200 1200 0",
		"b 2 4 200 300 300 0 4 900 1200 1200 2",
		// policy, runs, cluster, jobs, share of jobs, of work, mean offered, mean charged, charged > 0
		"a 2 kth 2 33.3% 20.0% 10 4 2",
		"a 2 nasa 4 66.7% 80.0% 25 0 0",
		"b 2 kth 2 50.0% 33.3% 10 4 2",
		"b 2 nasa 2 50.0% 66.7% 20 0 0",
	} {
		src := body
		if strings.HasPrefix(want, "id=") {
			src = page
		}
		if !strings.Contains(src, want) {
			t.Errorf("the grid report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("page text: %s", body)
	}
	plain := write(t, fakeCampaign(t, 2), Options{Resamples: 100})
	if strings.Contains(plain, `id="grid"`) || !strings.Contains(plain, "mean_wait, mean_bsld compared") {
		t.Error("a campaign without grid columns has a grid section or other default metrics")
	}
}
