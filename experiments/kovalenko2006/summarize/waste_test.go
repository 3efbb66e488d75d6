package main

import (
	"math"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
)

// TestMeasureWaste checks the waste on runs worked by hand.
func TestMeasureWaste(t *testing.T) {
	type job struct {
		submit, start, end, procs, cluster, home int64
		rejected                                 bool
	}
	for _, c := range []struct {
		name string
		caps []int64
		jobs []job
		want waste
		err  string
	}{
		{name: "busy cluster, nothing wasted", caps: []int64{4},
			jobs: []job{{0, 0, 10, 4, 0, 0, false}, {0, 10, 20, 2, 0, 0, false}}},
		// 2 idle processors for 10 s while a local job of 2 waits: 20 of
		// 4 x 20 processor-seconds.
		{name: "a local job waits beside idle processors", caps: []int64{4},
			jobs: []job{{0, 0, 10, 2, 0, 0, false}, {0, 10, 20, 2, 0, 0, false}}, want: waste{local: 0.25, any: 0.25}},
		// Idle 1, the waiting job needs 2: it could not use them.
		{name: "too wide to use the idle processors", caps: []int64{4},
			jobs: []job{{0, 0, 10, 3, 0, 0, false}, {0, 10, 20, 2, 0, 0, false}}},
		// The global job waits from 300 (submit + transfer) to 400; cluster
		// 1 is idle (2 processors) and it needs 1: 100 of 4 x 500.
		{name: "a global job waits while another cluster idles", caps: []int64{2, 2},
			jobs: []job{{0, 0, 500, 2, 0, 0, false}, {0, 400, 500, 1, 1, -1, false}}, want: waste{global: 0.05, any: 0.05}},
		// The local job of cluster 0 cannot use cluster 1's idle processors.
		{name: "a local job only counts at home", caps: []int64{2, 2},
			jobs: []job{{0, 0, 100, 2, 0, 0, false}, {0, 100, 200, 1, 0, 0, false}}},
		{name: "a rejected job never waits", caps: []int64{2},
			jobs: []job{{0, 0, 100, 1, 0, 0, false}, {0, 50, 50, 1, -1, -1, true}}},
		{name: "a global job before its transfer", caps: []int64{2},
			jobs: []job{{0, 100, 200, 1, 0, -1, false}}, err: "before submit + transfer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var jobs []results.JobRow
			var grid []results.GridRow
			for i, j := range c.jobs {
				jobs = append(jobs, results.JobRow{JobID: int64(i + 1), Submit: j.submit, Start: j.start, End: j.end,
					Wait: j.start - j.submit, Runtime: j.end - j.start, Procs: j.procs, Cluster: j.cluster})
				grid = append(grid, results.GridRow{Home: j.home, Rejected: j.rejected})
			}
			got, err := measureWaste(jobs, grid, c.caps, paperTransfer)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.global-c.want.global) > 1e-12 || math.Abs(got.local-c.want.local) > 1e-12 || math.Abs(got.any-c.want.any) > 1e-12 {
				t.Errorf("waste %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestPlatformCaps reads the clusters' processors from the provenance.
func TestPlatformCaps(t *testing.T) {
	for _, c := range []struct {
		platform string
		want     []int64
		err      bool
	}{
		{`{"name":"grid","resources":["procs"],"clusters":[{"name":"kth","capacity":[100]},{"name":"nasa","capacity":[128]}]}`, []int64{100, 128}, false},
		{`{"name":"grid","clusters":[]}`, nil, true},
		{`not json`, nil, true},
	} {
		got, err := platformCaps(results.Metadata{"platform": c.platform})
		if (err != nil) != c.err || len(got) != len(c.want) || len(got) == 2 && (got[0] != 100 || got[1] != 128) {
			t.Errorf("platformCaps(%s) = %v, %v", c.platform, got, err)
		}
	}
}

// TestVaryingAxes: the axes whose values differ between completed runs,
// or the policy when none does.
func TestVaryingAxes(t *testing.T) {
	cols := []results.Column{{Name: "status"}, {Name: "workload"}, {Name: "policy"}, {Name: "param_ship"}}
	meta := results.Metadata{results.AxesKey: `["workload","policy","param_ship"]`}
	for _, c := range []struct {
		name string
		rows [][]any
		meta results.Metadata
		want string
		err  bool
	}{
		{"policy and a parameter vary", [][]any{{"ok", "w", "a", "x"}, {"ok", "w", "b", "y"}}, meta, "policy param_ship", false},
		// The failed run's other workload does not count.
		{"only completed runs count", [][]any{{"ok", "w", "a", "x"}, {"failed", "v", "b", "x"}, {"ok", "w", "b", "x"}}, meta, "policy", false},
		{"nothing varies", [][]any{{"ok", "w", "a", "x"}, {"ok", "w", "a", "x"}}, meta, "policy", false},
		{"no axes key", [][]any{{"ok", "w", "a", "x"}}, results.Metadata{}, "", true},
		{"an axis without a column", [][]any{{"ok", "w", "a", "x"}}, results.Metadata{results.AxesKey: `["platform"]`}, "", true},
	} {
		got, err := varyingAxes(cols, c.rows, c.meta)
		if (err != nil) != c.err || strings.Join(got, " ") != c.want {
			t.Errorf("%s: %v, %v; want %q", c.name, got, err, c.want)
		}
	}
}
