package grid

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// hop is the case of issue 34 (paper 003, point 4), worked by hand: a
// cluster of 2 processors at time 10 whose forecast puts local job S (1
// processor, priority 3) on [0, 100) and local job T (1 processor,
// priority 3) on [50, 300); C = 1, F = 1, idle processors free. S and T
// overlap on [50, 100), so on computers they are on two different ones,
// whatever the rule that places them: here S on computer 0, T on 1.
func hop() (*sdk.Platform, []Forecast) {
	plat := &sdk.Platform{Name: "g", Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{{Name: "a", Capacity: sdk.Vector{2}}}}
	s := Slot{Job: job(1, 1, 100, 3), Start: 0, End: 100, Priority: 3}
	t := Slot{Job: job(2, 1, 250, 3), Start: 50, End: 300, Priority: 3}
	return plat, []Forecast{{At: 0, Slots: []Slot{s, t}}}
}

// TestPoolAgainstComputers prices a global job of 1 processor for 200 s in
// the case hop under both readings.
//
// As a pool, at every moment the cheapest processor: idle on [0, 50) (T
// has not begun), 3 per second on [50, 100) (S and T both there), idle on
// [100, 200) (S is over): 150 for a start at 0. The job "hops": from the
// processor T will take to the one S leaves.
//
// On computers the job holds one computer for its 200 s: S's costs 3 x 100
// = 300, T's 3 x 150 = 450. Any placement of S and T puts them apart, so
// 300 is the least a start at 0 can cost on computers, twice the pool's
// price. Paying 150, the job starts at 0 on the pool; on computers not
// before S's computer costs 150, 3 x (100 - s) <= 150 at s = 50.
func TestPoolAgainstComputers(t *testing.T) {
	plat, fs := hop()
	pr := Prices{C: []float64{1}}
	pool, err := NewMarketOf(plat, fs, pr, SlotsPool)
	if err != nil {
		t.Fatal(err)
	}
	comp, err := NewMarketOf(plat, fs, pr, SlotsComputer)
	if err != nil {
		t.Fatal(err)
	}
	var ops int64
	if c, _, ok := pool.clusters[0].cost(1, 200, 0, &ops); !ok || c != 150 {
		t.Errorf("pool: a start at 0 costs %v (%v), want 150", c, ok)
	}
	for k, want := range []float64{300, 450} {
		if c, ok := comp.computers[0].cost(k, 0, 200, &ops); !ok || c != want {
			t.Errorf("computer %d: a start at 0 costs %v (%v), want %v", k, c, ok, want)
		}
	}
	g := job(9, 1, 200, 0)
	for _, tc := range []struct {
		m         *Market
		payment   float64
		wantStart int64
		wantCost  float64
		wantComp  []int
	}{
		{pool, 150, 0, 150, nil},
		{comp, 150, 50, 150, []int{0}},
		{comp, 300, 0, 300, []int{0}},
		// On the pool a start s costs 150 on [0, 50], 3 x (100 - s) on
		// [50, 100]: 149 buys s = 51, at 147.
		{pool, 149, 51, 147, nil},
	} {
		a, ok := tc.m.Search(g, 0, tc.payment)
		if !ok || a.Start != tc.wantStart || a.Cost != tc.wantCost || !slices.Equal(a.Computers, tc.wantComp) {
			t.Errorf("%s paying %v: %+v %v, want a start at %d costing %v on %v", tc.m.slots, tc.payment, a, ok, tc.wantStart, tc.wantCost, tc.wantComp)
		}
	}
}

// TestPrecededPerComputer checks the ship rule's condition (1) in the case
// hop at time 10, for the free allocation of a job of 1 processor for
// 200 s: at 100 under both readings (on computers computer 0's, after S).
// On the pool, T starting at 50 counts against it: not preceded. On
// computers only S does, on the allocation's computer, and it started at 0:
// preceded.
func TestPrecededPerComputer(t *testing.T) {
	plat, fs := hop()
	fs[0].At = 10
	for _, tc := range []struct {
		slots Slots
		want  bool
		comps []int
	}{{SlotsPool, false, nil}, {SlotsComputer, true, []int{0}}} {
		m, err := NewMarketOf(plat, fs, Prices{C: []float64{1}}, tc.slots)
		if err != nil {
			t.Fatal(err)
		}
		a, ok := m.Search(job(9, 1, 200, 0), 10, 0)
		if !ok || a.Start != 100 || a.Cost != 0 || !slices.Equal(a.Computers, tc.comps) {
			t.Fatalf("%s: %+v %v, want a start at 100 costing 0 on %v", tc.slots, a, ok, tc.comps)
		}
		if got := m.Preceded(a, fs[0].Slots, 10); got != tc.want {
			t.Errorf("%s: preceded %v, want %v", tc.slots, got, tc.want)
		}
		// Taken, the allocation leaves a second such job nothing before
		// 300, when T ends (and on computers computer 0 is free too).
		m.Take(a, 1)
		if b, ok := m.Search(job(10, 1, 200, 0), 10, 0); !ok || b.Start != 300 {
			t.Errorf("%s: after Take %+v %v, want a start at 300", tc.slots, b, ok)
		}
	}
	if _, err := NewMarketOf(plat, fs, Prices{C: []float64{1}}, "nodes"); err == nil {
		t.Error("an unknown reading is accepted")
	}
}

// TestComputersNeverCheaper checks, on random forecasts, what holds
// whatever the placement: an allocation on computers is available only
// where the pool has its processors and costs at least the pool's price at
// the same start, so the earliest start a payment buys on computers is
// never before the pool's.
func TestComputersNeverCheaper(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		capacity := 2 + r.Int64N(7)
		plat := &sdk.Platform{Name: "g", Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{{Name: "a", Capacity: sdk.Vector{capacity}}}}
		f := Forecast{At: 0}
		// A feasible forecast: plan random jobs on the cluster's profile,
		// some running now, some held, the others local slots.
		b := &Book{}
		s := &sdk.State{Now: 0, Platform: plat, Free: []sdk.Vector{{capacity}}}
		var q []Entry
		n := 4 + r.IntN(10)
		kinds := make([]int, n)
		for i := range kinds {
			kinds[i] = r.IntN(4)
		}
		slices.Sort(kinds) // running jobs first, then reservations
		for i, kind := range kinds {
			j := job(i, 1+r.Int64N(capacity), 10+r.Int64N(200), float64(r.IntN(4)))
			switch kind {
			case 0:
				if s.Free[0][0] >= j.Request[0] {
					s.Running = append(s.Running, sdk.Running{Job: j, ExpectedEnd: 1 + r.Int64N(150)})
					s.Free[0][0] -= j.Request[0]
					continue
				}
			case 1:
				if at := r.Int64N(300); b.Fits(s, j, 0, at) {
					b.holds = append(b.holds, Hold{Job: j, At: at, End: at + j.Walltime})
					continue
				}
			}
			q = append(q, Entry{Job: j, Priority: j.Priority, From: r.Int64N(200)})
		}
		f.Running, f.Holds = s.Running, b.Holds(0, nil)
		f.Slots = Plan(b.Profile(s, 0, nil), q, nil)
		pr := Prices{C: []float64{1}, Idle: float64(r.IntN(2)) / 2}
		pool, err := NewMarketOf(plat, []Forecast{f}, pr, SlotsPool)
		if err != nil {
			t.Fatal(err)
		}
		comp, err := NewMarketOf(plat, []Forecast{f}, pr, SlotsComputer)
		if err != nil {
			t.Fatal(err)
		}
		var ops int64
		for range 20 {
			procs, w, t0 := 1+r.Int64N(capacity), 1+r.Int64N(300), r.Int64N(400)
			_, cc, cok := comp.computers[0].at(procs, t0, w, &ops)
			pc, _, pok := pool.clusters[0].cost(procs, w, t0, &ops)
			if cok && (!pok || cc < pc-1e-9) {
				t.Fatalf("seed %d: %d processors for %d s at %d: computers %v, pool %v (%v)", seed, procs, w, t0, cc, pc, pok)
			}
			pay := r.Float64() * float64(procs*w) * 3
			g := job(99, procs, w, pay)
			pa, pok := pool.Search(g, 0, pay)
			ca, cok := comp.Search(g, 0, pay)
			if cok && (!pok || ca.Start < pa.Start) {
				t.Fatalf("seed %d: paying %v, computers start at %d (%+v), pool at %d (%v)", seed, pay, ca.Start, ca, pa.Start, pok)
			}
			if cok {
				// The allocation found is affordable, on distinct
				// computers each available throughout, and no second
				// before it is.
				if ca.Cost > pay+1e-9 || int64(len(ca.Computers)) != procs {
					t.Fatalf("seed %d: %+v paying %v", seed, ca, pay)
				}
				sum := 0.0
				for _, k := range ca.Computers {
					c, ok := comp.computers[0].cost(k, ca.Start, w, &ops)
					if !ok {
						t.Fatalf("seed %d: computer %d not available for %+v", seed, k, ca)
					}
					sum += c
				}
				if d := sum - ca.Cost; d > 1e-6 || d < -1e-6 {
					t.Fatalf("seed %d: %+v: its computers cost %v", seed, ca, sum)
				}
				for t1 := int64(0); t1 < ca.Start; t1++ {
					if _, c, ok := comp.computers[0].at(procs, t1, w, &ops); ok && c <= pay {
						t.Fatalf("seed %d: paying %v, %+v, but %d costs %v", seed, pay, ca, t1, c)
					}
				}
			}
		}
	}
}
