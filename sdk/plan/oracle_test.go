package plan

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// horizon is the length of the oracle's time grid in TestAgainstOracle.
// Random operations keep every breakpoint inside [now, now+horizon), so the
// oracle's last second stands for the profile's infinite last step.
const horizon = 40

// oracle is the naive model of a profile: one vector per second.
type oracle struct {
	now     int64
	dims    int
	horizon int64
	free    [][]int64 // free[t-now] for t in [now, now+horizon)
}

func newOracle(now int64, free sdk.Vector) *oracle { return newOracleH(now, free, horizon) }

func newOracleH(now int64, free sdk.Vector, h int64) *oracle {
	o := &oracle{now: now, dims: len(free), horizon: h, free: make([][]int64, h)}
	for i := range o.free {
		o.free[i] = slices.Clone(free)
	}
	return o
}

func (o *oracle) at(t int64) []int64 {
	i := min(max(t-o.now, 0), o.horizon-1)
	return o.free[i]
}

// advance moves the grid to start at now; the seconds that come in at the
// end repeat the tail.
func (o *oracle) advance(now int64) {
	for ; o.now < now; o.now++ {
		o.free = append(o.free[1:], slices.Clone(o.free[len(o.free)-1]))
	}
}

// freeSince is FreeSince on the grid.
func (o *oracle) freeSince(until, floor int64, amount sdk.Vector) int64 {
	lo := max(floor, o.now)
	t := until
	for t > lo && amount.Fits(o.at(t-1)) {
		t--
	}
	return t
}

// add adds sign*amount on [start, end), clipped to the grid; end beyond the
// grid means the tail too.
func (o *oracle) add(start, end int64, amount sdk.Vector, sign int64) {
	for t := max(start, o.now); t < end && t < o.now+o.horizon; t++ {
		for r, x := range amount {
			o.free[t-o.now][r] += sign * x
		}
	}
}

func (o *oracle) fits(start, d int64, amount sdk.Vector) bool {
	if start < o.now {
		return false
	}
	for t := start; t < start+d; t++ {
		if !amount.Fits(o.at(t)) {
			return false
		}
	}
	return true
}

func (o *oracle) earliest(from int64, amount sdk.Vector, d int64) int64 {
	return o.earliestWithin(from, math.MaxInt64, amount, d)
}

func (o *oracle) earliestWithin(from, until int64, amount sdk.Vector, d int64) int64 {
	// Windows starting at or after the last grid second all see the same
	// constant tail, so trying one of them is enough.
	from = max(from, o.now)
	for t := from; t <= min(until, max(from, o.now+o.horizon)); t++ {
		if o.fits(t, d, amount) {
			return t
		}
	}
	return -1
}

// steps counts the oracle's distinct steps, which the merged profile must
// match exactly.
func (o *oracle) steps() int {
	n := 1
	for i := 1; i < int(o.horizon); i++ {
		if !slices.Equal(o.free[i], o.free[i-1]) {
			n++
		}
	}
	return n
}

type reservation struct {
	start, d int64
	amount   sdk.Vector
}

func randVec(rng *rand.Rand, dims int, hi int64) sdk.Vector {
	v := make(sdk.Vector, dims)
	for i := range v {
		v[i] = rng.Int64N(hi + 1)
	}
	return v
}

// TestAgainstOracle builds random profiles from random releases,
// reservations and unreservations and compares every query with the naive
// per-second model.
func TestAgainstOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var p Profile // reused across iterations, as a policy would
	dst := sdk.Vector(nil)
	for iter := range 3000 {
		dims := 1 + rng.IntN(2)
		now := rng.Int64N(11) - 5
		free := randVec(rng, dims, 6)
		p.Reset(now, free)
		o := newOracle(now, free)
		var held []reservation
		nops := rng.IntN(16)
		for range nops {
			switch k := rng.IntN(10); {
			case k < 4:
				at := now - 3 + rng.Int64N(horizon+2)
				amount := randVec(rng, dims, 3)
				p.Release(at, amount)
				o.add(at, now+horizon, amount, 1)
			case k < 8:
				start := now - 2 + rng.Int64N(28)
				d := 1 + rng.Int64N(12)
				amount := randVec(rng, dims, 5)
				before := p.String()
				err := p.Reserve(start, d, amount)
				want := o.fits(start, d, amount)
				switch {
				case want && err != nil:
					t.Fatalf("iter %d: Reserve(%d, %d, %v) on %s: %v, oracle says it fits", iter, start, d, amount, before, err)
				case !want && err == nil:
					t.Fatalf("iter %d: Reserve(%d, %d, %v) on %s succeeded, oracle says no", iter, start, d, amount, before)
				case err != nil && errors.Is(err, ErrNoCapacity) != (start >= now):
					t.Fatalf("iter %d: Reserve(%d, %d, %v): wrong error kind: %v", iter, start, d, amount, err)
				case err != nil && p.String() != before:
					t.Fatalf("iter %d: failed Reserve changed %s into %s", iter, before, p.String())
				case err == nil:
					o.add(start, start+d, amount, -1)
					held = append(held, reservation{start, d, amount})
				}
			default:
				if len(held) == 0 {
					continue
				}
				i := rng.IntN(len(held))
				r := held[i]
				held = slices.Delete(held, i, i+1)
				p.Unreserve(r.start, r.d, r.amount)
				o.add(r.start, r.start+r.d, r.amount, 1)
			}
			checkInvariants(t, &p)
			compare(t, iter, &p, o, &dst)
		}
		// Queries on the final profile.
		for range 30 {
			from := now - 3 + rng.Int64N(horizon+6)
			d := 1 + rng.Int64N(15)
			amount := randVec(rng, dims, 8)
			if got, want := p.EarliestFitFrom(from, amount, d), o.earliest(from, amount, d); got != want {
				t.Fatalf("iter %d: EarliestFitFrom(%d, %v, %d) on %s = %d, oracle %d", iter, from, amount, d, &p, got, want)
			}
			if got, want := p.EarliestFit(amount, d), o.earliest(now, amount, d); got != want {
				t.Fatalf("iter %d: EarliestFit(%v, %d) on %s = %d, oracle %d", iter, amount, d, &p, got, want)
			}
			if got, want := p.Fits(from, d, amount), o.fits(from, d, amount); got != want {
				t.Fatalf("iter %d: Fits(%d, %d, %v) on %s = %v, oracle %v", iter, from, d, amount, &p, got, want)
			}
		}
		// Undoing every reservation leaves only the releases.
		for _, r := range held {
			p.Unreserve(r.start, r.d, r.amount)
			o.add(r.start, r.start+r.d, r.amount, 1)
		}
		checkInvariants(t, &p)
		compare(t, iter, &p, o, &dst)
	}
}

func compare(t *testing.T, iter int, p *Profile, o *oracle, dst *sdk.Vector) {
	t.Helper()
	if p.Now() != o.now {
		t.Fatalf("iter %d: Now() = %d, want %d", iter, p.Now(), o.now)
	}
	if got, want := p.Steps(), o.steps(); got != want {
		t.Fatalf("iter %d: %s has %d steps, oracle %d", iter, p, got, want)
	}
	for tt := o.now - 2; tt < o.now+o.horizon+2; tt++ {
		*dst = p.FreeAt(tt, *dst)
		if !slices.Equal(*dst, o.at(tt)) {
			t.Fatalf("iter %d: FreeAt(%d) on %s = %v, oracle %v", iter, tt, p, *dst, o.at(tt))
		}
	}
}

// TestAgainstOracleLong drives one profile through long random sequences of
// every operation, including Advance and Move, on a grid wide enough for
// hundreds of steps, so that chunks fill, split, dwindle and merge, and
// compares it with the per-second model after every operation.
func TestAgainstOracleLong(t *testing.T) {
	const h = 1500
	rng := rand.New(rand.NewPCG(3, 4))
	var p Profile
	dst := sdk.Vector(nil)
	iters := 12
	if testing.Short() {
		iters = 3
	}
	for iter := range iters {
		dims := 1 + iter%2
		now := rng.Int64N(100)
		free := randVec(rng, dims, 30)
		p.Reset(now, free)
		o := newOracleH(now, free, h)
		var held []reservation
		for step := range 3000 {
			// Keep breakpoints inside the grid: times stay below
			// now+h-1-maxDuration.
			span := int64(h / 2)
			switch k := rng.IntN(20); {
			case k < 3:
				at := o.now - 3 + rng.Int64N(span)
				amount := randVec(rng, dims, 3)
				p.Release(at, amount)
				o.add(at, o.now+h, amount, 1)
			case k < 11:
				start := o.now + rng.Int64N(span)
				d := 1 + rng.Int64N(300)
				amount := randVec(rng, dims, 6)
				if rng.IntN(2) == 0 {
					// Mostly where it fits, as a scheduler does.
					if e := p.EarliestFitFrom(start, amount, d); e >= 0 && e < o.now+span {
						start = e
					}
				}
				err := p.Reserve(start, d, amount)
				if want := o.fits(start, d, amount); want != (err == nil) {
					t.Fatalf("iter %d step %d: Reserve(%d, %d, %v) = %v, oracle fits %v", iter, step, start, d, amount, err, want)
				}
				if err == nil {
					o.add(start, start+d, amount, -1)
					held = append(held, reservation{start, d, amount})
				}
			case k < 15:
				if len(held) == 0 {
					continue
				}
				i := rng.IntN(len(held))
				r := held[i]
				to := max(o.now, r.start-rng.Int64N(200))
				if rng.IntN(3) == 0 {
					to = o.now + rng.Int64N(span)
				}
				o.add(r.start, r.start+r.d, r.amount, 1)
				want := o.fits(to, r.d, r.amount)
				before := p.String()
				err := p.Move(r.start, to, r.d, r.amount)
				if want != (err == nil) {
					t.Fatalf("iter %d step %d: Move(%d, %d, %d, %v) on %s = %v, oracle fits %v", iter, step, r.start, to, r.d, r.amount, before, err, want)
				}
				if err != nil {
					o.add(r.start, r.start+r.d, r.amount, -1)
					if p.String() != before {
						t.Fatalf("iter %d step %d: failed Move changed the profile", iter, step)
					}
				} else {
					o.add(to, to+r.d, r.amount, -1)
					held[i].start = to
				}
			case k < 17:
				if len(held) == 0 {
					continue
				}
				i := rng.IntN(len(held))
				r := held[i]
				held = slices.Delete(held, i, i+1)
				p.Unreserve(r.start, r.d, r.amount)
				o.add(r.start, r.start+r.d, r.amount, 1)
			case k < 18:
				to := o.now + rng.Int64N(40)
				p.Advance(to)
				o.advance(to)
			default:
				for range 5 {
					from := o.now - 3 + rng.Int64N(span)
					until := from + rng.Int64N(400)
					d := 1 + rng.Int64N(300)
					amount := randVec(rng, dims, 12)
					if got, want := p.EarliestFitWithin(from, until, amount, d), o.earliestWithin(from, until, amount, d); got != want {
						t.Fatalf("iter %d step %d: EarliestFitWithin(%d, %d, %v, %d) = %d, oracle %d", iter, step, from, until, amount, d, got, want)
					}
					if got, want := p.EarliestFitFrom(from, amount, d), o.earliest(from, amount, d); got != want {
						t.Fatalf("iter %d step %d: EarliestFitFrom(%d, %v, %d) = %d, oracle %d", iter, step, from, amount, d, got, want)
					}
					floor := until - rng.Int64N(500)
					if got, want := p.FreeSince(until, floor, amount), o.freeSince(until, floor, amount); got != want {
						t.Fatalf("iter %d step %d: FreeSince(%d, %d, %v) = %d, oracle %d", iter, step, until, floor, amount, got, want)
					}
				}
			}
			checkInvariants(t, &p)
			if step%50 == 0 {
				compare(t, iter, &p, o, &dst)
			}
		}
		compare(t, iter, &p, o, &dst)
	}
}
