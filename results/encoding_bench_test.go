package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// BenchmarkWriteJobsCurie writes the jobs file of EASY on CEA-Curie (shared
// data; skipped when absent), real rows that compress far less than
// BenchmarkWriteJobs's synthetic ones: with the column encodings of jobs
// files, and with every column plain, as schedlab-results 1.0.0 wrote them.
func BenchmarkWriteJobsCurie(b *testing.B) {
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
	res, err := sim.Run(b.Context(), backfill.EASY(), sim.Config{Platform: sdk.SingleCluster("CEA-Curie", w.Procs), Jobs: w.Jobs})
	if err != nil {
		b.Fatal(err)
	}
	rows := runner.JobRows(w.Jobs, res.Records)
	for _, tc := range []struct {
		name  string
		write func(string, []results.JobRow, results.Metadata) error
	}{{"encoded", results.WriteJobs}, {"plain", results.WritePlainJobs}} {
		b.Run(tc.name, func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "jobs.parquet")
			for b.Loop() {
				if err := tc.write(out, rows, nil); err != nil {
					b.Fatal(err)
				}
			}
			if st, err := os.Stat(out); err == nil {
				b.ReportMetric(float64(st.Size())/float64(len(rows)), "bytes/row")
			}
		})
	}
}
