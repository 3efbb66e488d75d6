package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
)

// TestFeatureTable, by hand: one run of a local job and four global jobs,
// of which the stream report says 2 required the feature. Global job 2 (2
// processors x 100 s, waited 360 s) and job 3 (1 x 200 s, waited 0) ran on
// kth, job 4 (4 x 100 s, waited 720 s) on nasa, job 5 was rejected (one
// unmatched): kth's share of the global work is 400 / 800 = 0.5, its
// global jobs waited 0.05 h on average, nasa's 0.2 h.
func TestFeatureTable(t *testing.T) {
	jobs := []results.JobRow{
		{JobID: 1, Procs: 8, Runtime: 1000, Cluster: 0, Wait: 99999},
		{JobID: 2, Procs: 2, Runtime: 100, Cluster: 0, Wait: 360},
		{JobID: 3, Procs: 1, Runtime: 200, Cluster: 0, Wait: 0},
		{JobID: 4, Procs: 4, Runtime: 100, Cluster: 1, Wait: 720},
		{JobID: 5, Procs: 4, Runtime: 100, Cluster: -1, Wait: 0},
	}
	grid := []results.GridRow{{Home: 0}, {Home: -1}, {Home: -1}, {Home: -1}, {Home: -1, Rejected: true}}
	meta := results.Metadata{"workload.streams": `[{"home":"","required":2},{"home":"kth"}]`}
	r := runOf{group: "light-25 lookahead", metrics: map[string]float64{"global_jobs": 4, "global_mean_wait": 360,
		"global_max_wait": 720, "local_mean_wait": 0, "utilisation_kth": 0.5, "utilisation_nasa": 0.25},
		counts: map[string]int64{"rejected_unmatched": 1}}
	if err := r.readFeatures(jobs, grid, meta); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	featureTable(&b, "load-share, policy", []runOf{r})
	want := "| light-25 lookahead | 1 | 0.500 | 0.10 | 0.2 | 0.00 | 0.500 | 0.05 / 0.20 | 0.500 / 0.250 | 1 |"
	if !strings.Contains(b.String(), want) {
		t.Errorf("the table lacks\n%s\n%s", want, b.String())
	}
}
