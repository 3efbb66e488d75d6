package grid

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// BenchmarkCycle times the allocation search of one scheduling cycle on a
// cluster of N processors whose forecast has 2 one-processor slots per
// processor (the paper's truncated schedules: C3 = 2), for a queue of N/10
// global jobs, and reports the time per pair of a job and a slot, the unit
// of the paper's cycle cost CP = A1 * Nz * Ns (A1 estimated there at
// 10 µs), and the steps Market.Search visits (its own count, Market.Ops).
// The paper's CP grows as N^2 at a constant time per pair:
// go test -run XXX -bench Cycle -benchtime 10x ./sdk/grid.
func BenchmarkCycle(b *testing.B) {
	for _, n := range []int{250, 500, 1000, 2000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { benchCycle(b, n) })
	}
}

func benchCycle(b *testing.B, n int) {
	r := rand.New(rand.NewPCG(1, 2))
	plat := &sdk.Platform{Name: "g", Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{{Name: "a", Capacity: sdk.Vector{int64(n)}}}}
	s := &sdk.State{Platform: plat, Free: []sdk.Vector{{int64(n)}}}
	// 2N one-processor local jobs planned two deep on N processors.
	var slots []Slot
	for k := range 2 * n {
		start := int64(k/n)*3600 + r.Int64N(1800)
		slots = append(slots, Slot{Job: job(k, 1, 1800, 1), Start: start, End: start + 1800, Priority: float64(1 + r.IntN(3))})
	}
	jobs := make([]*sdk.Job, n/10)
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
