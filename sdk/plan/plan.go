// Package plan gives scheduling policies an availability profile: the free
// capacity of one cluster over future time, with earliest-fit queries. It is
// the common tool of backfilling (EASY, conservative) and plan-based policies.
//
// # Model
//
// A [Profile] is a step function from time to an [sdk.Vector] of free
// amounts, one per platform resource. It starts at [Profile.Now] and its last
// step extends to +infinity. Every interval is half-open, [start, end): a job
// that runs for d seconds from t holds its resources on [t, t+d), so a job
// that ends at t frees its resources for a job that starts at t.
//
// A profile is usually built from the policy's view of the system with
// [FromState]: the capacity free now, plus every running job's request given
// back at its expected end (start + walltime). Walltimes are upper bounds, so
// jobs may end earlier than the profile says; capacity then only grows, and a
// start time found in the profile stays feasible. The policy then places
// queued jobs one by one with [Profile.EarliestFit] and [Profile.Reserve].
//
// # Cost
//
// The profile keeps its breakpoints in two flat slices and merges adjacent
// equal steps, so its size is bounded by the number of distinct event times
// it was told about, not by how many operations were applied. Queries are
// linear in the number of steps; releases in time order (as [FromState]
// does) cost O(resources) each. A policy should keep one Profile and call
// [Profile.ResetFromState] at every Schedule call: after the first calls the
// profile reuses its memory and allocates nothing.
//
// A profile copies the vectors it is given, so callers may reuse them, and
// it is not safe for concurrent use.
package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/sdk"
)

// ErrNoCapacity is wrapped by the error Reserve returns when the amount is
// not free throughout the interval, so callers can tell it from bad arguments.
var ErrNoCapacity = errors.New("not enough free capacity")

// Profile is the free capacity of one cluster from Now on; the zero value is
// empty and must be filled by Reset or ResetFromState before use.
type Profile struct {
	dims int
	// times holds the breakpoints: times[0] is Now, times are strictly
	// increasing, and step i covers [times[i], times[i+1]) (the last step
	// covers [times[n-1], +inf)).
	times []int64
	// free holds the free amounts of step i at free[i*dims : (i+1)*dims]. It
	// is flat rather than a slice of Vectors so that a step costs no
	// allocation of its own.
	free []int64
}

// New returns a profile that starts at now with free capacity free, forever.
func New(now int64, free sdk.Vector) *Profile {
	p := &Profile{}
	p.Reset(now, free)
	return p
}

// Reset makes p a profile that starts at now with free capacity free,
// forever, reusing p's memory.
func (p *Profile) Reset(now int64, free sdk.Vector) {
	p.dims = len(free)
	p.times = append(p.times[:0], now)
	p.free = append(p.free[:0], free...)
}

// FromState returns the profile of one cluster of s: its free capacity now,
// plus the request of every job running on it, released at its ExpectedEnd.
func FromState(s *sdk.State, cluster int) *Profile {
	p := &Profile{}
	p.ResetFromState(s, cluster)
	return p
}

// ResetFromState makes p the profile FromState(s, cluster) would return,
// reusing p's memory.
func (p *Profile) ResetFromState(s *sdk.State, cluster int) {
	p.Reset(s.Now, s.Free[cluster])
	// State.Running is ordered by ExpectedEnd, so each Release appends or
	// adds to the last step in O(resources).
	for i := range s.Running {
		r := &s.Running[i]
		if r.Cluster == cluster {
			p.Release(r.ExpectedEnd, r.Job.Request)
		}
	}
}

// Now returns the time the profile starts at.
func (p *Profile) Now() int64 { return p.times[0] }

// Steps returns the number of steps (breakpoints) of the profile, at least 1.
func (p *Profile) Steps() int { return len(p.times) }

// Release makes amount free from time at on, forever; a time before Now
// counts as Now, and math.MaxInt64 means never.
func (p *Profile) Release(at int64, amount sdk.Vector) {
	p.checkDims(amount)
	// No breakpoint is ever at MaxInt64, the time that stands for +infinity,
	// so an interval ending there (see endOf) covers the whole tail.
	if isZero(amount) || at == math.MaxInt64 {
		return
	}
	at = max(at, p.times[0])
	last := len(p.times) - 1
	if at > p.times[last] {
		// Fast path for releases in time order: a new last step.
		p.times = append(p.times, at)
		p.free = append(p.free, p.step(last)...)
		sdk.Vector(p.step(last + 1)).Add(amount)
		return
	}
	k := p.split(at)
	p.add(k, len(p.times), amount, 1)
	p.mergeAt(k)
}

// Reserve occupies amount on [start, start+duration), or fails and leaves p
// unchanged when start is before Now, duration is below 1, or amount is not
// free throughout the interval (the error then wraps ErrNoCapacity).
func (p *Profile) Reserve(start, duration int64, amount sdk.Vector) error {
	p.checkDims(amount)
	if duration < 1 {
		return fmt.Errorf("plan: reserve for %d s: duration must be at least 1", duration)
	}
	if start < p.times[0] {
		return fmt.Errorf("plan: reserve at %d: before now (%d)", start, p.times[0])
	}
	end := endOf(start, duration)
	for i := p.index(start); i < len(p.times) && p.times[i] < end; i++ {
		f := p.step(i)
		for r, x := range amount {
			if x > f[r] {
				return fmt.Errorf("plan: reserve %v on [%d, %d): resource %d has %d free from %d: %w",
					[]int64(amount), start, end, r, f[r], max(p.times[i], start), ErrNoCapacity)
			}
		}
	}
	p.apply(start, end, amount, -1)
	return nil
}

// Unreserve gives back amount on [start, start+duration), undoing a Reserve
// with the same arguments; the part of the interval before Now is ignored.
func (p *Profile) Unreserve(start, duration int64, amount sdk.Vector) {
	p.checkDims(amount)
	checkDuration(duration)
	end := endOf(start, duration)
	start = max(start, p.times[0])
	if end <= start {
		return
	}
	p.apply(start, end, amount, 1)
}

// FreeAt returns the free capacity at time t (Now for a time before Now),
// appended to dst[:0] so that a caller can reuse one vector.
func (p *Profile) FreeAt(t int64, dst sdk.Vector) sdk.Vector {
	return append(dst[:0], p.step(p.index(max(t, p.times[0])))...)
}

// Fits reports whether amount is free throughout [start, start+duration),
// that is, whether Reserve with the same arguments would succeed.
func (p *Profile) Fits(start, duration int64, amount sdk.Vector) bool {
	p.checkDims(amount)
	checkDuration(duration)
	if start < p.times[0] {
		return false
	}
	end := endOf(start, duration)
	for i := p.index(start); i < len(p.times) && p.times[i] < end; i++ {
		if !p.fits(i, amount) {
			return false
		}
	}
	return true
}

// EarliestFit returns the earliest time t >= Now at which amount is free
// throughout [t, t+duration), or -1 if there is none, which can only happen
// when amount does not fit in the last step (for a profile from FromState
// plus finite reservations, when the job is larger than the cluster).
func (p *Profile) EarliestFit(amount sdk.Vector, duration int64) int64 {
	return p.EarliestFitFrom(p.times[0], amount, duration)
}

// EarliestFitFrom is EarliestFit for start times no earlier than from; a
// from before Now counts as Now.
func (p *Profile) EarliestFitFrom(from int64, amount sdk.Vector, duration int64) int64 {
	p.checkDims(amount)
	checkDuration(duration)
	t := max(from, p.times[0])
	end := endOf(t, duration)
	n := len(p.times)
	// Slide a window [t, end) over the steps. A step that lacks capacity
	// rules out every start up to its end, so the next candidate is the
	// start of the following step, and no step is looked at twice.
	for i := p.index(t); i < n && p.times[i] < end; i++ {
		if !p.fits(i, amount) {
			if i+1 == n {
				return -1
			}
			t = p.times[i+1]
			end = endOf(t, duration)
		}
	}
	return t
}

// String formats the profile as its steps, "[t0: v0, t1: v1, ...]", for
// debugging and test failures.
func (p *Profile) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, t := range p.times {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d: %v", t, p.step(i))
	}
	b.WriteByte(']')
	return b.String()
}

// step returns the free amounts of step i, aliasing p.free.
func (p *Profile) step(i int) []int64 {
	return p.free[i*p.dims : (i+1)*p.dims : (i+1)*p.dims]
}

// index returns the step that contains t, which must be at least Now.
func (p *Profile) index(t int64) int {
	// The last step is the usual answer for appends and late queries, so it
	// is tested before the binary search.
	last := len(p.times) - 1
	if t >= p.times[last] {
		return last
	}
	i, found := slices.BinarySearch(p.times, t)
	if found {
		return i
	}
	return i - 1
}

func (p *Profile) fits(i int, amount sdk.Vector) bool {
	f := p.step(i)
	for r, x := range amount {
		if x > f[r] {
			return false
		}
	}
	return true
}

// split makes t (at least Now) a breakpoint, copying the step that contained
// it, and returns its index.
func (p *Profile) split(t int64) int {
	i := p.index(t)
	if p.times[i] == t {
		return i
	}
	k := i + 1
	d := p.dims
	p.times = slices.Insert(p.times, k, t)
	// Grow free by one step without a temporary slice, then shift the tail.
	p.free = slices.Grow(p.free, d)[:len(p.free)+d]
	copy(p.free[(k+1)*d:], p.free[k*d:])
	copy(p.free[k*d:(k+1)*d], p.free[i*d:k*d])
	return k
}

// mergeAt removes breakpoint k when step k equals step k-1, keeping the
// profile in its smallest form.
func (p *Profile) mergeAt(k int) {
	if k <= 0 || k >= len(p.times) || !slices.Equal(p.step(k-1), p.step(k)) {
		return
	}
	d := p.dims
	p.times = slices.Delete(p.times, k, k+1)
	p.free = slices.Delete(p.free, k*d, (k+1)*d)
}

// add adds sign*amount to steps [from, to).
func (p *Profile) add(from, to int, amount sdk.Vector, sign int64) {
	for i := from; i < to; i++ {
		f := p.step(i)
		for r, x := range amount {
			f[r] += sign * x
		}
	}
}

// apply adds sign*amount on [start, end), start being at least Now.
func (p *Profile) apply(start, end int64, amount sdk.Vector, sign int64) {
	if isZero(amount) || start >= end {
		return
	}
	a := p.split(start)
	b := len(p.times)
	if end != math.MaxInt64 {
		b = p.split(end)
	}
	p.add(a, b, amount, sign)
	// Only the two ends can have become equal to a neighbour: steps inside
	// were distinct and all changed by the same amount. Merge b first so
	// that index a stays valid.
	p.mergeAt(b)
	p.mergeAt(a)
}

func (p *Profile) checkDims(amount sdk.Vector) {
	if len(amount) != p.dims {
		panic(fmt.Sprintf("plan: amount has %d resources, profile has %d", len(amount), p.dims))
	}
}

// checkDuration panics on a duration below 1: every job runs at least one
// second, so a shorter one is a bug in the caller, not an empty query.
func checkDuration(d int64) {
	if d < 1 {
		panic(fmt.Sprintf("plan: duration %d must be at least 1", d))
	}
}

// endOf returns start+duration, saturating at MaxInt64 so that a huge
// walltime means "forever" rather than wrapping into the past.
func endOf(start, duration int64) int64 {
	if start > math.MaxInt64-duration {
		return math.MaxInt64
	}
	return start + duration
}

func isZero(v sdk.Vector) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
