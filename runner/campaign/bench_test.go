package campaign

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkCampaign runs the quickstart matrix (2 traces x 3 policies x 2
// orders) with 4 replicates, 48 runs of one plugin process each, with 1
// and 2 workers, and reports runs/s and Parquet job rows written per
// second. The ratio of the two is the campaign's parallel speed-up
// (docs/performance.md).
func BenchmarkCampaign(b *testing.B) {
	m := quickstart(b, "", allPolicies)
	m.Campaign.Replicates = 4
	for _, workers := range []int{1, 2} {
		b.Run("workers="+strconv.Itoa(workers), func(b *testing.B) {
			res := testResolver(b)
			var runs, rows int
			for i := 0; b.Loop(); i++ {
				rep, err := Run(context.Background(), m, Options{
					Dir: filepath.Join(b.TempDir(), strconv.Itoa(i)), Workers: workers, Resolver: res,
				})
				if err != nil || rep.Done != rep.Total {
					b.Fatalf("campaign: %v, %d of %d done", err, rep.Done, rep.Total)
				}
				for _, r := range rep.Runs {
					rows += r.WorkloadJob
				}
				runs += rep.Total
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
