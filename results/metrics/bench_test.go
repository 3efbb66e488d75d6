package metrics_test

import (
	"errors"
	"testing"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// BenchmarkCompute times the summary metrics of EASY on CEA-Curie (shared
// data; skipped when absent), the largest cost of a verified run after the
// engine; BackfillErrors alone beside it.
func BenchmarkCompute(b *testing.B) {
	path, err := tracedata.Path("CEA-Curie-2011-2.1-cln.swf.gz")
	if errors.Is(err, tracedata.ErrNotFound) {
		b.Skipf("CEA-Curie not available, skipping: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	w, err := workload.LoadSWF(path, 0, workload.DefaultClean())
	if err != nil {
		b.Fatal(err)
	}
	p := sdk.SingleCluster("CEA-Curie", w.Procs)
	res, err := sim.Run(b.Context(), backfill.EASY(), sim.Config{Platform: p, Jobs: w.Jobs})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Compute", func(b *testing.B) {
		for b.Loop() {
			if _, err := metrics.Compute(p, w.Jobs, res.Records, metrics.DefaultSettings()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("BackfillErrors", func(b *testing.B) {
		for b.Loop() {
			metrics.BackfillErrors(w.Procs, 1, w.Jobs, res.Records)
		}
	})
}
