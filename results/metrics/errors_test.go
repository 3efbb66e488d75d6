package metrics

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// sched is a schedule given by hand: submit, start, end, procs per job, in
// submit order; backfilled is derived as the engine does.
type sched struct{ submit, start, end, procs int64 }

func build(js []sched) ([]sim.Input, []sim.Record) {
	in := make([]sim.Input, len(js))
	recs := make([]sim.Record, len(js))
	for i, j := range js {
		in[i] = sim.Input{Job: sdk.Job{Index: i, ID: int64(i + 1), Submit: j.submit, Walltime: j.end - j.start,
			Request: sdk.Vector{j.procs}}, Runtime: j.end - j.start}
		recs[i] = sim.Record{Index: int32(i), Start: j.start, End: j.end}
		for k := range i {
			if js[k].start > j.start { // an earlier job still waits
				recs[i].Backfilled = true
			}
		}
	}
	return in, recs
}

func TestBackfillErrorsByHand(t *testing.T) {
	for _, tc := range []struct {
		name     string
		capacity int64
		jobs     []sched
		want     int
	}{
		{"C delays B: when A ends, B would fit without C", 10,
			[]sched{{0, 0, 10, 6}, {1, 20, 30, 8}, {2, 2, 20, 4}}, 1},
		{"C ends before A: no harm", 10,
			[]sched{{0, 0, 10, 6}, {1, 10, 20, 8}, {2, 2, 9, 4}}, 0},
		{"room for both when A ends", 14,
			[]sched{{0, 0, 10, 6}, {1, 10, 20, 8}, {2, 2, 20, 4}}, 0},
		{"E blocks B as well: C alone is not to blame", 10,
			[]sched{{0, 0, 10, 6}, {0, 0, 30, 2}, {1, 30, 40, 10}, {2, 2, 20, 2}}, 0},
		{"C ends exactly when A ends: not running after it", 10,
			[]sched{{0, 0, 10, 6}, {1, 10, 20, 8}, {2, 2, 10, 4}}, 0},
		{"two backfills, only the long one delays", 10,
			[]sched{{0, 0, 10, 6}, {1, 25, 30, 8}, {2, 2, 5, 2}, {3, 3, 25, 2}}, 1},
	} {
		in, recs := build(tc.jobs)
		if got := BackfillErrors(tc.capacity, 1, in, recs); got != tc.want {
			t.Errorf("%s: %d errors, want %d", tc.name, got, tc.want)
		}
	}
	if got := BackfillErrors(10, 2, nil, nil); got != -1 {
		t.Errorf("two clusters: %d, want -1", got)
	}
}

// naiveErrors is the definition computed the slow way, for random
// schedules.
func naiveErrors(capacity int64, js []sched, recs []sim.Record) int {
	errs := 0
	for i := range js {
		if !recs[i].Backfilled {
			continue
		}
		si := js[i].start
		h := -1
		for k := range i {
			if js[k].submit <= si && js[k].start > si {
				h = k
				break
			}
		}
		if h < 0 {
			continue
		}
		until := min(js[i].end, js[h].start)
		for _, e := range js {
			t := e.end
			if t <= si || t >= until {
				continue
			}
			var busy int64 // running across t: started before t, ending after t
			for _, x := range js {
				if x.start < t && x.end > t {
					busy += x.procs
				}
			}
			if capacity-busy+js[i].procs >= js[h].procs {
				errs++
				break
			}
		}
	}
	return errs
}

func TestBackfillErrorsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	total := 0
	for it := range 3000 {
		// A random greedy schedule: jobs start in any order that fits.
		const capacity = 16
		n := 3 + rng.IntN(12)
		js := make([]sched, n)
		for i := range js {
			js[i] = sched{submit: int64(rng.IntN(20)), procs: 1 + int64(rng.IntN(capacity)), end: 1 + int64(rng.IntN(15))}
		}
		// Sort by submit, then schedule each job at a random feasible time.
		for i := 1; i < n; i++ {
			for k := i; k > 0 && js[k].submit < js[k-1].submit; k-- {
				js[k], js[k-1] = js[k-1], js[k]
			}
		}
		var placed []sched
		for i := range js {
			d := js[i].end
			for s := js[i].submit + int64(rng.IntN(10)); ; s++ {
				ok := true
				for tt := s; tt < s+d && ok; tt++ {
					var busy int64
					for _, p := range placed {
						if p.start <= tt && tt < p.end {
							busy += p.procs
						}
					}
					ok = busy+js[i].procs <= capacity
				}
				if ok {
					js[i].start, js[i].end = s, s+d
					break
				}
			}
			placed = append(placed, js[i])
		}
		in, recs := build(js)
		// The packed sort and the comparison sort give the same profile.
		e1, f1 := freeAfterEnds(capacity, in, recs, true)
		e2, f2 := freeAfterEnds(capacity, in, recs, false)
		if !slices.Equal(e1, e2) || !slices.Equal(f1, f2) {
			t.Fatalf("iteration %d: packed %v %v, compared %v %v", it, e1, f1, e2, f2)
		}
		if b1, b2 := backfilledByStart(recs, true), backfilledByStart(recs, false); !slices.Equal(b1, b2) {
			t.Fatalf("iteration %d: backfilled packed %v, compared %v", it, b1, b2)
		}
		if got, want := BackfillErrors(capacity, 1, in, recs), naiveErrors(capacity, js, recs); got != want {
			t.Fatalf("iteration %d: %d errors, naive %d\n%v", it, got, want, js)
		} else {
			total += got
		}
	}
	if total < 50 {
		t.Errorf("only %d errors in 3000 random schedules: the test exercises too little", total)
	}
}

// TestFreeAfterEndsWide checks the profile where times are too wide to pack,
// so the comparison sort runs, against a hand-computed one.
func TestFreeAfterEndsWide(t *testing.T) {
	const big = int64(1) << 61
	cases := []struct {
		name       string
		js         []sched
		ends, free []int64
	}{
		// Capacity 10: A [0, 5) 4 procs, B [2, 7) 3 procs, C [5, 9) 6 procs.
		{"small", []sched{{0, 0, 5, 4}, {0, 2, 7, 3}, {0, 5, 9, 6}}, []int64{5, 7, 9}, []int64{7, 4, 10}},
		{"wide", []sched{{0, 0, 5, 4}, {0, 2, big, 3}, {0, 5, big + 9, 6}}, []int64{5, big, big + 9}, []int64{7, 4, 10}},
	}
	for _, c := range cases {
		in, recs := build(c.js)
		for _, pack := range []bool{true, false} {
			ends, free := freeAfterEnds(10, in, recs, pack)
			if !slices.Equal(ends, c.ends) || !slices.Equal(free, c.free) {
				t.Errorf("%s pack=%v: ends %v free %v, want %v %v", c.name, pack, ends, free, c.ends, c.free)
			}
		}
	}
}

// TestBackfilledByStartWide checks the order of the backfilled jobs, by
// start then index, where starts are too far apart to pack, so the
// comparison sort runs, and where they pack.
func TestBackfilledByStartWide(t *testing.T) {
	const big = int64(1) << 61
	for _, c := range []struct {
		name   string
		starts []int64 // of jobs 0..; -1: not backfilled
		want   []int
	}{
		{"small", []int64{7, -1, 3, 7, 0}, []int{4, 2, 0, 3}},
		{"wide", []int64{big, -1, 3, big, 0}, []int{4, 2, 0, 3}},
	} {
		recs := make([]sim.Record, len(c.starts))
		for i, s := range c.starts {
			recs[i] = sim.Record{Index: int32(i), Start: max(s, 0), Backfilled: s >= 0}
		}
		for _, pack := range []bool{true, false} {
			if got := backfilledByStart(recs, pack); !slices.Equal(got, c.want) {
				t.Errorf("%s pack=%v: %v, want %v", c.name, pack, got, c.want)
			}
		}
	}
}

// TestBackfillErrorsLarge checks the count on EASY's schedule of a few
// thousand random jobs, where the events and waits are many enough for the
// radix sort (sortKeys) that small schedules never reach: the packed and
// the compared sorts give the same profile and order, the count is the
// naive one, and the summary's wait quantiles are those of the waits
// sorted as floats.
func TestBackfillErrorsLarge(t *testing.T) {
	const capacity, n = 32, 5000
	rng := rand.New(rand.NewPCG(7, 8))
	jobs := make([]sim.Input, n)
	var submit int64
	for i := range jobs {
		submit += rng.Int64N(4)
		runtime := 1 + rng.Int64N(40)
		jobs[i] = sim.Input{Job: sdk.Job{ID: int64(i + 1), Submit: submit, Walltime: runtime + rng.Int64N(20),
			Request: sdk.Vector{1 + rng.Int64N(16)}}, Runtime: runtime}
	}
	sim.Sort(jobs)
	res, err := sim.Run(t.Context(), backfill.EASY(), sim.Config{Platform: sdk.SingleCluster("m", capacity), Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	js := make([]sched, n)
	for i, r := range res.Records {
		js[i] = sched{submit: jobs[i].Job.Submit, start: r.Start, end: r.End, procs: jobs[i].Job.Request[0]}
	}
	in, recs := build(js)
	if 2*n < radixMin {
		t.Fatalf("%d events do not reach the radix sort (%d)", 2*n, radixMin)
	}
	e1, f1 := freeAfterEnds(capacity, in, recs, true)
	e2, f2 := freeAfterEnds(capacity, in, recs, false)
	if !slices.Equal(e1, e2) || !slices.Equal(f1, f2) {
		t.Fatal("packed and compared profiles differ")
	}
	if b1, b2 := backfilledByStart(recs, true), backfilledByStart(recs, false); !slices.Equal(b1, b2) {
		t.Fatal("packed and compared backfill orders differ")
	}
	got, want := BackfillErrors(capacity, 1, in, recs), naiveErrors(capacity, js, recs)
	if got != want {
		t.Fatalf("%d errors, naive %d", got, want)
	}
	if want < 10 {
		t.Errorf("only %d errors: the schedule exercises too little", want)
	}
	t.Logf("%d jobs, %d backfilled, %d errors", n, len(backfilledByStart(recs, false)), got)

	sum, err := Compute(sdk.SingleCluster("m", capacity), jobs, res.Records, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	waits := make([]float64, n)
	for i, r := range res.Records {
		waits[i] = float64(r.Start - jobs[i].Job.Submit)
	}
	slices.Sort(waits)
	if n < radixMin {
		t.Fatalf("%d waits do not reach the radix sort (%d)", n, radixMin)
	}
	if sum.MedianWait != stat.Quantile(0.5, stat.Empirical, waits, nil) || sum.P95Wait != stat.Quantile(0.95, stat.Empirical, waits, nil) ||
		sum.MaxWait != waits[n-1] || sum.MaxWait == 0 {
		t.Errorf("wait quantiles %v %v %v, from the waits sorted as floats %v %v %v", sum.MedianWait, sum.P95Wait, sum.MaxWait,
			stat.Quantile(0.5, stat.Empirical, waits, nil), stat.Quantile(0.95, stat.Empirical, waits, nil), waits[n-1])
	}
}
