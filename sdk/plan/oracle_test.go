package plan

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// horizon is the length of the oracle's time grid. Random operations keep
// every breakpoint inside [now, now+horizon), so the oracle's last second
// stands for the profile's infinite last step.
const horizon = 40

// oracle is the naive model of a profile: one vector per second.
type oracle struct {
	now  int64
	dims int
	free [][]int64 // free[t-now] for t in [now, now+horizon)
}

func newOracle(now int64, free sdk.Vector) *oracle {
	o := &oracle{now: now, dims: len(free), free: make([][]int64, horizon)}
	for i := range o.free {
		o.free[i] = slices.Clone(free)
	}
	return o
}

func (o *oracle) at(t int64) []int64 {
	i := min(max(t-o.now, 0), horizon-1)
	return o.free[i]
}

// add adds sign*amount on [start, end), clipped to the grid; end beyond the
// grid means the tail too.
func (o *oracle) add(start, end int64, amount sdk.Vector, sign int64) {
	for t := max(start, o.now); t < end && t < o.now+horizon; t++ {
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
	// Windows starting at or after the last grid second all see the same
	// constant tail, so trying one of them is enough.
	from = max(from, o.now)
	for t := from; t <= max(from, o.now+horizon); t++ {
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
	for i := 1; i < horizon; i++ {
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
	for tt := o.now - 2; tt < o.now+horizon+2; tt++ {
		*dst = p.FreeAt(tt, *dst)
		if !slices.Equal(*dst, o.at(tt)) {
			t.Fatalf("iter %d: FreeAt(%d) on %s = %v, oracle %v", iter, tt, p, *dst, o.at(tt))
		}
	}
}
