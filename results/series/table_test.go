package series_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/results/layout"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/results/series"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
)

// TestTableIntegrates checks the series of EASY on KTH-SP2 (committed)
// against the run's summary: whatever the resolution, processors in use
// average to the utilisation and the queue length to the sum of the waits
// over the span, within rounding.
func TestTableIntegrates(t *testing.T) {
	w, err := workload.LoadSWF(filepath.Join("..", "..", "experiments", "data", "KTH-SP2-1996-2.1-cln.swf.gz"), 0, workload.DefaultClean())
	if err != nil {
		t.Fatal(err)
	}
	p := sdk.SingleCluster("KTH-SP2", w.Procs)
	res, err := sim.Run(t.Context(), backfill.EASY(), sim.Config{Platform: p, Jobs: w.Jobs})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := metrics.Compute(p, w.Jobs, res.Records, metrics.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	run := &layout.Run{Jobs: runner.JobRows(w.Jobs, res.Records), Platform: *p}
	from, to, _ := series.Span(run.Jobs)
	var waits float64
	for _, j := range run.Jobs {
		waits += float64(j.Start - j.Submit)
	}
	ss := series.OfRun(run)
	for _, step := range []int64{0, 60, 3600, 86400, 1 << 40} {
		cols, rows, err := series.Table(ss, from, to, step)
		if err != nil {
			t.Fatal(err)
		}
		idx := map[string]int{}
		for i, c := range cols {
			idx[c.Name] = i
		}
		var used, queued, span float64
		for k, r := range rows {
			d := float64(r[1].(int64) - r[0].(int64))
			if d <= 0 || (k > 0 && r[0].(int64) != rows[k-1][1].(int64)) {
				t.Fatalf("step %d: row %d spans [%d, %d)", step, k, r[0], r[1])
			}
			used += r[idx["procs_in_use_share"]].(float64) * d
			queued += r[idx["queue_length"]].(float64) * d
			span += d
		}
		if span != float64(to-from) {
			t.Errorf("step %d: rows cover %g s of %d", step, span, to-from)
		}
		if u := used / span; math.Abs(u-sum.Utilisation) > 1e-9 {
			t.Errorf("step %d: utilisation %.12f, the summary's %.12f", step, u, sum.Utilisation)
		}
		if q, want := queued/span, waits/float64(to-from); math.Abs(q-want) > 1e-9*want {
			t.Errorf("step %d: mean queue length %.12f, waits over the span %.12f", step, q, want)
		}
	}
	if _, _, err := series.Table(ss, from, from, 60); err == nil {
		t.Error("an empty span is accepted")
	}
	if _, _, err := series.Table(ss, from, to, -1); err == nil {
		t.Error("a negative step is accepted")
	}
}
