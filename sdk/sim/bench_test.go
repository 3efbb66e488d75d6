package sim_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// Engine-only benchmarks: sim.Run with the policy linked in, no verification,
// no metrics, no plugin. docs/performance.md gives the commands and figures.

// benchEngine times sim.Run of p on jobs and reports jobs/s and events/s.
func benchEngine(b *testing.B, p sdk.Plugin, plat *sdk.Platform, jobs []sim.Input) {
	b.Helper()
	cfg := sim.Config{Platform: plat, Jobs: jobs}
	b.ReportAllocs()
	var iters, events int64
	for b.Loop() {
		res, err := sim.Run(context.Background(), p, cfg)
		if err != nil {
			b.Fatal(err)
		}
		iters++
		events += res.Stats.Events
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(len(jobs))*float64(iters)/sec, "jobs/s")
	b.ReportMetric(float64(events)/sec, "events/s")
}

// firstFit starts every waiting job that fits, in queue order, reusing its
// buffers so that the benchmark measures the engine's allocations.
type firstFit struct {
	free sdk.Vector
	out  []sdk.Decision
}

func (p *firstFit) Init(sdk.Env) error { return nil }

func (p *firstFit) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	p.free = append(p.free[:0], s.Free[0]...)
	for _, j := range s.Queue {
		if j.Request.Fits(p.free) {
			p.free.Sub(j.Request)
			p.out = append(p.out, sdk.Start(j))
		}
	}
	return p.out, nil
}

// syntheticJobs makes n jobs for a procs-processor cluster from a fixed
// seed: Poisson arrivals (mean gap meanGap s), power-of-two sizes up to
// procs, runtimes uniform in [1, 3600] s, and walltimes that overestimate
// the runtime by up to 3 times, with one job in ten killed at its walltime.
func syntheticJobs(n int, procs int64, meanGap float64) []sim.Input {
	r := rand.New(rand.NewPCG(2024, 7))
	var sizes []int64
	for s := int64(1); s <= procs; s *= 2 {
		sizes = append(sizes, s)
	}
	jobs := make([]sim.Input, n)
	t := 0.0
	for i := range jobs {
		t += r.ExpFloat64() * meanGap
		runtime := 1 + r.Int64N(3600)
		walltime := runtime + r.Int64N(2*runtime+1)
		if r.IntN(10) == 0 {
			walltime = max(1, runtime/2)
		}
		jobs[i] = sim.Input{
			Job: sdk.Job{ID: int64(i + 1), Submit: int64(t), Walltime: walltime,
				Request: sdk.Vector{sizes[r.IntN(len(sizes))]}},
			Runtime: runtime,
		}
	}
	sim.Sort(jobs)
	return jobs
}

// BenchmarkEngineSynthetic runs 100,000 generated jobs on 128 processors
// under first-fit, independent of any trace. The offered load is about 0.8
// (mean size 255/8 procs x mean duration about 1,700 s / 128 procs / 530 s).
func BenchmarkEngineSynthetic(b *testing.B) {
	jobs := syntheticJobs(100_000, 128, 530)
	p := sdk.Plugin{Info: sdk.Info{Name: "first-fit"}, New: func() sdk.Policy { return &firstFit{} }}
	benchEngine(b, p, sdk.SingleCluster("synthetic", 128), jobs)
}
