package burstbuffer_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/plugins/burstbuffer"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	bbmodel "github.com/schedlab/schedlab/workload/burstbuffer"
)

// kthPlatform is the paper's machine: 96 compute nodes and 12 burst-buffer
// nodes of 40 GB.
func kthPlatform() *sdk.Platform {
	units := make([]int64, 12)
	for i := range units {
		units[i] = 40_000_000_000
	}
	return &sdk.Platform{Name: "kth-bb", Resources: []string{sdk.Processors, "bb"},
		Clusters: []sdk.Cluster{{Name: "kth", Capacity: sdk.Vector{96, 480_000_000_000},
			Units: []sdk.Units{{Resource: 1, PiecesBy: 0, Capacity: units}}}}}
}

// kthJobs is the shipped KTH-SP2 log on 96 nodes (28,453 jobs) with the
// paper's burst-buffer requests drawn from seed.
func kthJobs(tb testing.TB, seed uint64) []sim.Input {
	w, err := workload.LoadSWF(filepath.Join("..", "..", "experiments", "data", "KTH-SP2-1996-2.1-cln.swf.gz"), 96, workload.Clean{})
	if err != nil {
		tb.Fatal(err)
	}
	p := kthPlatform()
	for i := range w.Jobs {
		w.Jobs[i].Job.Request = sdk.Vector{w.Jobs[i].Job.Request[0], 0}
	}
	t, err := bbmodel.TargetOf(p, "bb")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := bbmodel.Default().Apply(w.Jobs, t, rand.New(rand.NewPCG(seed, 0))); err != nil {
		tb.Fatal(err)
	}
	return w.Jobs
}

// BenchmarkKTH runs each policy on the whole of KTH-SP2 with burst buffers
// (engine only, in-process), reporting the mean wait as a check that the
// runs are the expected ones.
func BenchmarkKTH(b *testing.B) {
	jobs := kthJobs(b, 1)
	for _, tc := range []struct {
		name   string
		p      sdk.Plugin
		params map[string]string
	}{
		{"fcfs-bb", burstbuffer.EASY(), nil},
		{"sjf-bb", burstbuffer.EASYSJF(), nil},
		{"filler", burstbuffer.Filler(), nil},
		{"plan-2", burstbuffer.Plan(), map[string]string{"alpha": "2"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var res *sim.Result
			for b.Loop() {
				var err error
				if res, err = sim.Run(context.Background(), tc.p, sim.Config{Platform: kthPlatform(), Jobs: jobs, Params: tc.params, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
			var wait float64
			for i, r := range res.Records {
				wait += float64(r.Start - jobs[i].Job.Submit)
			}
			b.ReportMetric(wait/float64(len(jobs)), "mean-wait-s")
			b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}

// kthIOJobs is kthJobs with the compute times shortened by the data the
// jobs move, as burst-buffer-io does, for a run with kthIO.
func kthIOJobs(tb testing.TB, seed uint64) []sim.Input {
	jobs := kthJobs(tb, seed)
	t, err := bbmodel.TargetOf(kthPlatform(), "bb")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := bbmodel.DefaultShortening().Shorten(jobs, t); err != nil {
		tb.Fatal(err)
	}
	return jobs
}

// kthIO is the authors' I/O-aware machine (io.toml): the file system's
// 5,000 MB/s, each node's 1,250 MB/s, split each way, their sizes and
// phases.
func kthIO() *sdk.IO {
	return &sdk.IO{Resource: 1, FSBandwidth: 5e9, UnitBandwidth: 1.25e9, NodeBandwidth: 1.25e9, SplitDuplex: true,
		StageIn: 1, Checkpoint: 0.5, StageOut: 1, Drain: true, PhaseSeconds: 3600, MaxPhases: 10}
}

// BenchmarkIO runs EASY with burst buffers and plan-2 on the whole of
// KTH-SP2, allocation only and with the I/O model (the requests' compute
// times shortened as burst-buffer-io does), side by side in one run:
// the cost of the model is the ratio of the pairs' times.
//
//	go test -run '^$' -bench BenchmarkIO -benchtime 1x ./plugins/burstbuffer
func BenchmarkIO(b *testing.B) {
	alloc, withIO := kthJobs(b, 1), kthIOJobs(b, 1)
	for _, tc := range []struct {
		name   string
		p      sdk.Plugin
		params map[string]string
	}{
		{"fcfs-bb", burstbuffer.EASY(), nil},
		{"plan-2", burstbuffer.Plan(), map[string]string{"alpha": "2"}},
	} {
		for _, model := range []string{"alloc", "io"} {
			b.Run(tc.name+"/"+model, func(b *testing.B) {
				cfg := sim.Config{Platform: kthPlatform(), Jobs: alloc, Params: tc.params, Seed: 1}
				if model == "io" {
					cfg.Jobs, cfg.IO = withIO, kthIO()
				}
				var res *sim.Result
				for b.Loop() {
					var err error
					if res, err = sim.Run(context.Background(), tc.p, cfg); err != nil {
						b.Fatal(err)
					}
				}
				var wait float64
				for i, r := range res.Records {
					wait += float64(r.Start - cfg.Jobs[i].Job.Submit)
				}
				b.ReportMetric(wait/float64(len(cfg.Jobs)), "mean-wait-s")
				b.ReportMetric(float64(res.Stats.PolicyCalls), "calls")
				b.ReportMetric(float64(res.Stats.Events), "events")
				b.ReportMetric(float64(len(cfg.Jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
			})
		}
	}
}
