package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// BenchmarkSmallRuns runs a campaign of many small runs, the common case of
// research sweeps: the KTH-SP2 log cut into 6 parts of 1,000 jobs (the
// job-ids cleaning setting), under FCFS, EASY and conservative backfilling,
// 10 replicates, 180 runs, with 1, 2 and 4 workers and each transport: policies
// in process, plugin processes reused across runs (the default), and a
// fresh plugin process per run. It reports runs/s; the ratios between the
// transports are what the plugin protocol and the processes cost, and
// "cores", the processor time per wall time, says how much of the machine a
// campaign kept busy (docs/performance.md).
func BenchmarkSmallRuns(b *testing.B) {
	var src strings.Builder
	fmt.Fprintf(&src, "[campaign]\nseed = 7\nreplicates = 10\n")
	var parts []string
	for k := range 6 {
		name := fmt.Sprintf("part%d", k+1)
		parts = append(parts, strconv.Quote(name))
		fmt.Fprintf(&src, "[workloads.%s]\ntrace = %q\nsha256 = %q\nclean = { job_ids = \"%d-%d\" }\n",
			name, filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz"), kthSHA, 1000*k+1, 1000*(k+1))
	}
	fmt.Fprintf(&src, "[policies.fcfs]\nref = \"fcfs\"\n[policies.easy]\nref = \"easy\"\n[policies.conservative]\nref = \"conservative\"\n")
	fmt.Fprintf(&src, "[matrix]\nworkload = [%s]\npolicy = [\"fcfs\", \"easy\", \"conservative\"]\n", strings.Join(parts, ", "))
	m := loadManifest(b, src.String())
	if os.Getenv("GOGC") == "" {
		// The collector as the schedlab command sets it (cmd/schedlab), not
		// a test binary's default, so that the figures are a user's.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	for _, workers := range []int{1, 2, 4} {
		for _, mode := range []string{"in-process", "reused", "fresh"} {
			b.Run(fmt.Sprintf("workers=%d/%s", workers, mode), func(b *testing.B) {
				res := testResolver(b)
				runs := 0
				cpu0 := cpuTime(b)
				for i := 0; b.Loop(); i++ {
					rep, err := Run(context.Background(), m, Options{
						Dir: filepath.Join(b.TempDir(), strconv.Itoa(i)), Workers: workers, Resolver: res,
						InProcess: mode == "in-process", FreshProcesses: mode == "fresh",
					})
					if err != nil || rep.Done != rep.Total {
						b.Fatalf("campaign: %v, %d of %d done", err, rep.Done, rep.Total)
					}
					runs += rep.Total
				}
				b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
				b.ReportMetric((cpuTime(b)-cpu0).Seconds()/b.Elapsed().Seconds(), "cores")
			})
		}
	}
}

// cpuTime is the processor time, user and system, of the benchmark process
// and of its children that have ended (the plugin processes of finished
// campaigns). Divided by the wall time it is how many cores a campaign
// kept busy, which bounds what a second worker can add.
func cpuTime(b *testing.B) time.Duration {
	var self, children syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		b.Fatal(err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children); err != nil {
		b.Fatal(err)
	}
	var d time.Duration
	for _, tv := range []syscall.Timeval{self.Utime, self.Stime, children.Utime, children.Stime} {
		d += time.Duration(tv.Nano())
	}
	return d
}
