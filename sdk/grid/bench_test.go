package grid

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// BenchmarkCycle times the allocation search of one scheduling cycle on a
// cluster of N processors whose forecast has 2 one-processor slots per
// processor (the paper's truncated schedules for one-processor jobs: two
// slots per computer, section 6.1), for a queue of N/10 global jobs
// (Nz x Ns = N^2/5), and reports the time per pair of a job and a slot,
// the unit of the paper's cycle cost CP = A1 * Nz * Ns (A1 estimated there
// at 10 µs), and the steps Market.Search visits (its own count,
// Market.Ops). The paper's CP grows as N^2 at a constant time per pair:
// go test -run XXX -bench '^BenchmarkCycle$' -benchtime 10x ./sdk/grid.
func BenchmarkCycle(b *testing.B) {
	for _, n := range []int{250, 500, 1000, 2000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { benchCycle(b, n, 2, n/10) })
	}
}

// BenchmarkCyclePaperConstants is BenchmarkCycle at the paper's constants
// (section 6.1): Nz = C2 x N global jobs and Ns = C3 x N slots with
// C2 = C3 = 5, the bounds the paper's estimate uses (CP < A1 x 25 x N^2,
// 250 s at N = 1,000), that is 5 one-processor slots per processor and 5N
// jobs, 125 times the pairs of BenchmarkCycle. A cycle at N = 1,000 takes
// tens of seconds, so one is enough:
// go test -run XXX -bench PaperConstants -benchtime 1x ./sdk/grid.
func BenchmarkCyclePaperConstants(b *testing.B) {
	for _, n := range []int{250, 500, 1000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { benchCycle(b, n, 5, 5*n) })
	}
}

// benchCycle times one cycle on n processors with depth one-processor
// forecast slots per processor, planned depth deep, and nz global jobs.
func benchCycle(b *testing.B, n, depth, nz int) {
	r := rand.New(rand.NewPCG(1, 2))
	plat := &sdk.Platform{Name: "g", Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{{Name: "a", Capacity: sdk.Vector{int64(n)}}}}
	s := &sdk.State{Platform: plat, Free: []sdk.Vector{{int64(n)}}}
	// depth x N one-processor local jobs planned depth deep on N
	// processors.
	var slots []Slot
	for k := range depth * n {
		start := int64(k/n)*3600 + r.Int64N(1800)
		slots = append(slots, Slot{Job: job(k, 1, 1800, 1), Start: start, End: start + 1800, Priority: float64(1 + r.IntN(3))})
	}
	jobs := make([]*sdk.Job, nz)
	for i := range jobs {
		jobs[i] = job(i, 1+r.Int64N(16), 600+r.Int64N(3000), 0)
		jobs[i].Priority = r.Float64() * float64(jobs[i].Request[0]*jobs[i].Walltime)
	}
	var ops int64
	b.ResetTimer()
	for b.Loop() {
		m, err := NewMarket(s.Platform, []Forecast{{At: s.Now, Slots: slots}}, Prices{C: []float64{1}})
		if err != nil {
			b.Fatal(err)
		}
		for _, j := range jobs {
			if a, ok := m.Search(j, 0, j.Priority); ok {
				m.Take(a, j.Request[0])
			}
		}
		ops += m.Ops
	}
	pairs := float64(len(jobs)) * float64(len(slots)) * float64(b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/pairs, "ns/job-slot")
	b.ReportMetric(float64(ops)/float64(b.N), "steps/cycle")
}
