package grid

import (
	"math"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

func job(idx int, procs, walltime int64, prio float64) *sdk.Job {
	return &sdk.Job{Index: idx, ID: int64(idx + 1), Walltime: walltime, Request: sdk.Vector{procs}, Priority: prio}
}

// twoClusters is a grid of clusters a (4 processors) and b (4, price
// factor fb) at time 0. On a, a job of 2 processors runs until 100, and the
// forecast puts a local job of 4 processors and priority 2 on [100, 300).
func twoClusters(fb float64) (*sdk.State, [][]Slot) {
	plat := &sdk.Platform{Name: "g", Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{
		{Name: "a", Capacity: sdk.Vector{4}}, {Name: "b", Capacity: sdk.Vector{4}, PriceFactor: fb}}}
	run := job(0, 2, 100, 0)
	s := &sdk.State{Now: 0, Platform: plat, Free: []sdk.Vector{{2}, {4}},
		Running: []sdk.Running{{Job: run, Cluster: 0, Start: 0, ExpectedEnd: 100}}}
	local := job(1, 4, 200, 2)
	return s, [][]Slot{{{Job: local, Start: 100, End: 300, Priority: 2}}, nil}
}

// TestSearch checks allocations against prices worked by hand; where the
// case says priceB 1e9, b is kept out of the search.
func TestSearch(t *testing.T) {
	for _, tc := range []struct {
		name          string
		procs, wall   int64
		payment       float64
		from          int64
		wantStart     int64
		wantCost      float64
		wantCluster   int
		wantFound     bool
		take          *Allocation // taken before the search
		takeProcs     int64
		priceB, idleP float64
	}{
		// Two idle processors on a until 100: free at once.
		{name: "idle now", procs: 2, wall: 100, payment: 0, wantStart: 0, wantCost: 0, wantFound: true, priceB: 1e9},
		// Three processors: none before 100 on a (2 free); on [100, 300)
		// they cost 3 x 2 per second, 600 for 100 s. The cost of a start t
		// in [200, 300] is 6 (300 - t): at most 250 from t = 258.33, so
		// 259 (cost 246).
		{name: "crossing", procs: 3, wall: 100, payment: 250, wantStart: 259, wantCost: 246, wantFound: true, priceB: 1e9},
		// Paying 600 buys the slot at 100.
		{name: "pay the slot", procs: 3, wall: 100, payment: 600, wantStart: 100, wantCost: 600, wantFound: true, priceB: 1e9},
		// b is idle and free: the same job starts at once there.
		{name: "other cluster", procs: 3, wall: 100, payment: 0, wantStart: 0, wantCost: 0, wantCluster: 1, wantFound: true, priceB: 1},
		// Idle processors cost 1 x 1 on b (factor 3: 3 per processor-second
		// with idle price 1) and 1 on a: a job of 2 for 100 s that may
		// start on both at 0 goes to a (200 < 600).
		{name: "cheaper cluster", procs: 2, wall: 100, payment: 1000, wantStart: 0, wantCost: 200, wantFound: true, priceB: 3, idleP: 1},
		// After 2 processors of a are taken on [0, 100), a job of 2 for 50 s
		// paying nothing waits for the end of the local slot.
		{name: "taken", procs: 2, wall: 50, payment: 0, wantStart: 300, wantCost: 0, wantFound: true, priceB: 1e9,
			take: &Allocation{Cluster: 0, Start: 0, End: 100}, takeProcs: 2},
		// A job of 5 fits nowhere.
		{name: "too wide", procs: 5, wall: 10, payment: 1e9, wantFound: false, priceB: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, fc := twoClusters(tc.priceB)
			fs := []Forecast{{At: s.Now, Running: s.Running, Slots: fc[0]}, {At: s.Now, Slots: fc[1]}}
			m, err := NewMarket(s.Platform, fs, Prices{C: []float64{1, 1}, Idle: tc.idleP})
			if err != nil {
				t.Fatal(err)
			}
			if tc.priceB == 1e9 {
				// Keep b out: all its processors held for ever.
				m.clusters[1].avail[0] = 0
			}
			if tc.take != nil {
				m.Take(*tc.take, tc.takeProcs)
			}
			a, ok := m.Search(job(9, tc.procs, tc.wall, tc.payment), tc.from, tc.payment)
			if ok != tc.wantFound {
				t.Fatalf("found %v, want %v (%+v)", ok, tc.wantFound, a)
			}
			if ok && (a.Start != tc.wantStart || math.Abs(a.Cost-tc.wantCost) > 1e-9 || a.Cluster != tc.wantCluster || a.End != a.Start+tc.wall) {
				t.Errorf("allocation %+v, want cluster %d at %d costing %v", a, tc.wantCluster, tc.wantStart, tc.wantCost)
			}
			if ok && m.Ops == 0 {
				t.Error("no matching operation counted")
			}
		})
	}
}

// TestFloor checks the bound below which no payment buys a job.
func TestFloor(t *testing.T) {
	s, _ := twoClusters(3)
	pr := Prices{C: []float64{2, 1}, Idle: 0.5}
	// a: 2 x 1 x 0.5 per processor-second, b: 1 x 3 x 0.5; 2 processors,
	// 10 s: 20 on a, 30 on b.
	if f, ok := Floor(s.Platform, pr, job(0, 2, 10, 0)); !ok || f != 20 {
		t.Errorf("floor %v %v, want 20", f, ok)
	}
	if _, ok := Floor(s.Platform, pr, job(0, 5, 10, 0)); ok {
		t.Error("a job wider than every cluster has a floor")
	}
}

func TestShipRules(t *testing.T) {
	// Tc = 1000, the next cycle at 1060, transfer 100: within the transfer
	// time when the allocation starts before 1100, near before 1160.
	for _, tc := range []struct {
		start    int64
		preceded bool
		want     map[ShipRule]bool
	}{
		{1099, false, map[ShipRule]bool{ShipEither: true, ShipEitherNext: true, ShipBothNext: false, ShipTransferNext: true, ShipImmediate: true}},
		{1100, false, map[ShipRule]bool{ShipEither: false, ShipEitherNext: true, ShipBothNext: false, ShipTransferNext: true, ShipImmediate: true}},
		{1159, false, map[ShipRule]bool{ShipEither: false, ShipEitherNext: true, ShipBothNext: false, ShipTransferNext: true, ShipImmediate: true}},
		{1160, false, map[ShipRule]bool{ShipEither: false, ShipEitherNext: false, ShipBothNext: false, ShipTransferNext: false, ShipImmediate: true}},
		{5000, true, map[ShipRule]bool{ShipEither: true, ShipEitherNext: true, ShipBothNext: false, ShipTransferNext: false, ShipImmediate: true}},
		{1100, true, map[ShipRule]bool{ShipEither: true, ShipEitherNext: true, ShipBothNext: true, ShipTransferNext: true, ShipImmediate: true}},
	} {
		l := Lead{Now: 1000, Start: tc.start, Transfer: 100, Period: 60, Preceded: tc.preceded}
		for r, want := range tc.want {
			if got, err := r.ShipNow(l); err != nil || got != want {
				t.Errorf("%s at %d (preceded %v): %v %v, want %v", r, tc.start, tc.preceded, got, err, want)
			}
		}
	}
	// The names before issue 34 are gone, not aliases: no committed
	// manifest or record uses them.
	for _, old := range []ShipRule{"paper", "paper-and", "transfer"} {
		if _, err := old.ShipNow(Lead{}); err == nil {
			t.Errorf("the old rule name %q is accepted", old)
		}
	}
	if _, err := ShipRule("soon").ShipNow(Lead{}); err == nil {
		t.Error("an unknown rule is accepted")
	}
	fc := []Slot{{Start: 50}, {Start: 200}}
	if !PrecededAll(fc, 50, 200) || PrecededAll(fc, 49, 200) || PrecededAll(fc, 50, 201) {
		t.Error("PrecededAll: a slot strictly between now and the start must count, and only that")
	}
}
