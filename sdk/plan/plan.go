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
// The profile merges adjacent equal steps, so its size is bounded by the
// number of distinct event times it was told about, not by how many
// operations were applied. It keeps its steps in time order in chunks of at
// most 64, so that finding the step of a time costs O(log steps) and
// inserting or deleting a breakpoint moves at most one chunk, however long
// the profile. Queries are linear in the steps they look at; releases in
// time order (as [FromState] does) cost O(resources) each. A policy should
// keep one Profile and either call [Profile.ResetFromState] at every Schedule
// call, or keep it up to date across calls with [Profile.Advance],
// [Profile.Unreserve] (for jobs that end before their walltime) and
// [Profile.Move]: after the first calls the profile reuses its memory and
// allocates nothing.
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

// chunkCap is the most steps a chunk holds: inserting or deleting a step
// moves at most this many, whatever the size of the profile, while the list
// of chunks stays short enough to search and shift cheaply.
const chunkCap = 64

// Profile is the free capacity of one cluster from Now on; the zero value is
// empty and must be filled by Reset or ResetFromState before use.
type Profile struct {
	dims int
	// chunks cuts the steps, in time order, into runs of 1 to chunkCap
	// consecutive steps. Breakpoints are strictly increasing across them,
	// the first is Now, and a step lasts until the next breakpoint (the
	// last until +inf).
	chunks []chunk
	// times and free are the chunks' storage: the chunk in slot s keeps its
	// breakpoints at times[s*chunkCap:] and the free amounts of its steps
	// at free[s*chunkCap*dims:], dims per step. They are flat so that a step
	// costs no allocation of its own.
	times []int64
	free  []int64
	// spare lists the slots no chunk uses.
	spare []int32
	// steps counts the steps of all chunks.
	steps int
	// tmp holds a step's amounts while the step it was copied from moves.
	tmp []int64
	// layout counts the changes to where steps are stored (insertions,
	// removals, Advance, Reset). hint is the step find returned last, still
	// where it was while layout is hintLayout: consecutive lookups are often
	// of the same or a close time, which it answers without a search.
	layout     uint64
	hint       pos
	hintLayout uint64
	// neg is set once a negative amount was given (to Reset, Release,
	// Unreserve or Move), after which a free amount may be negative; until
	// then none is, which lets Move skip checking the steps where its two
	// reservations overlap.
	neg bool
}

// chunk is a run of consecutive steps stored in one slot.
type chunk struct {
	first int64 // the breakpoint of its first step, to search chunks by time
	slot  int32
	n     int32
}

// pos names a step: the c-th chunk, its i-th step.
type pos struct{ c, i int }

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
	p.chunks = p.chunks[:0]
	p.spare = p.spare[:0]
	p.times = p.times[:0]
	p.free = p.free[:0]
	s := p.alloc()
	p.times[int(s)*chunkCap] = now
	copy(p.free[int(s)*chunkCap*p.dims:], free)
	p.chunks = append(p.chunks, chunk{first: now, slot: s, n: 1})
	p.steps = 1
	p.neg = hasNegative(free)
	p.layout++
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

// Advance moves the start of the profile to now, forgetting the steps that
// end at or before it; a now not after Now changes nothing. A policy that
// keeps one profile across Schedule calls, updating it as jobs start and end
// instead of rebuilding it with ResetFromState, calls it first at every call.
func (p *Profile) Advance(now int64) {
	if now <= p.Now() {
		return
	}
	at := p.find(now)
	p.layout++
	for _, ch := range p.chunks[:at.c] {
		p.spare = append(p.spare, ch.slot)
		p.steps -= int(ch.n)
	}
	// Copy down rather than reslice, so that the slice keeps its capacity
	// at the front and a warm profile allocates nothing.
	p.chunks = p.chunks[:copy(p.chunks, p.chunks[at.c:])]
	ch := &p.chunks[0]
	if at.i > 0 {
		b, d := int(ch.slot)*chunkCap, p.dims
		copy(p.times[b:b+int(ch.n)-at.i], p.times[b+at.i:b+int(ch.n)])
		copy(p.free[b*d:(b+int(ch.n)-at.i)*d], p.free[(b+at.i)*d:(b+int(ch.n))*d])
		ch.n -= int32(at.i)
		p.steps -= at.i
	}
	p.times[int(ch.slot)*chunkCap] = now
	ch.first = now
	p.joinChunks(0)
}

// Now returns the time the profile starts at.
func (p *Profile) Now() int64 { return p.chunks[0].first }

// Steps returns the number of steps (breakpoints) of the profile, at least 1.
func (p *Profile) Steps() int { return p.steps }

// Release makes amount free from time at on, forever; a time before Now
// counts as Now, and math.MaxInt64 means never.
func (p *Profile) Release(at int64, amount sdk.Vector) {
	p.checkDims(amount)
	p.neg = p.neg || hasNegative(amount)
	// No breakpoint is ever at MaxInt64, the time that stands for +infinity,
	// so an interval ending there (see endOf) covers the whole tail.
	if isZero(amount) || at == math.MaxInt64 {
		return
	}
	at = max(at, p.Now())
	last := p.last()
	if at > p.tm(last) {
		// Fast path for releases in time order: a new last step.
		k := p.insert(pos{last.c, last.i + 1}, at, p.step(last))
		sdk.Vector(p.step(k)).Add(amount)
		return
	}
	k := p.split(at)
	for q, ok := k, true; ok; q, ok = p.next(q) {
		sdk.Vector(p.step(q)).Add(amount)
	}
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
	if start < p.Now() {
		return fmt.Errorf("plan: reserve at %d: before now (%d)", start, p.Now())
	}
	end := endOf(start, duration)
	if err := p.fitsOn(start, end, amount); err != nil {
		return err
	}
	p.apply(start, end, amount, -1)
	return nil
}

// Unreserve gives back amount on [start, start+duration), undoing a Reserve
// with the same arguments; the part of the interval before Now is ignored.
func (p *Profile) Unreserve(start, duration int64, amount sdk.Vector) {
	p.checkDims(amount)
	checkDuration(duration)
	p.neg = p.neg || hasNegative(amount)
	end := endOf(start, duration)
	start = max(start, p.Now())
	if end <= start {
		return
	}
	p.apply(start, end, amount, 1)
}

// Move moves a reservation of amount for duration from start from to start
// to. It has the effect of Unreserve(from, duration, amount) followed by
// Reserve(to, duration, amount), and fails like that Reserve, leaving p
// unchanged; but it touches only the steps where the two reservations
// differ, so that sliding a long reservation a little earlier costs little.
func (p *Profile) Move(from, to, duration int64, amount sdk.Vector) error {
	p.checkDims(amount)
	if duration < 1 {
		return fmt.Errorf("plan: move for %d s: duration must be at least 1", duration)
	}
	if to < p.Now() {
		return fmt.Errorf("plan: move to %d: before now (%d)", to, p.Now())
	}
	// The freed interval is the old one less what lies before Now, as for
	// Unreserve; it may be empty.
	fs, fe := max(from, p.Now()), endOf(from, duration)
	fe = max(fe, fs)
	ts, te := to, endOf(to, duration)
	// Where the new interval is not freed, amount must be free; where it
	// is, amount comes back first, so the free amounts must only not be
	// negative, which they cannot be unless a negative amount was given.
	if err := p.fitsOutside(ts, te, fs, fe, amount); err != nil {
		return err
	}
	if p.neg && max(ts, fs) < min(te, fe) {
		for q, ok := p.find(max(ts, fs)), true; ok && p.tm(q) < min(te, fe); q, ok = p.next(q) {
			if hasNegative(p.step(q)) {
				return fmt.Errorf("plan: move %v from %d to %d: a free amount is negative from %d: %w",
					[]int64(amount), from, to, max(p.tm(q), ts, fs), ErrNoCapacity)
			}
		}
	}
	p.neg = p.neg || hasNegative(amount)
	p.applyOutside(fs, fe, ts, te, amount, 1)
	p.applyOutside(ts, te, fs, fe, amount, -1)
	return nil
}

// fitsOutside checks that amount is free on [s, e) outside [xs, xe).
func (p *Profile) fitsOutside(s, e, xs, xe int64, amount sdk.Vector) error {
	if xs >= xe {
		return p.fitsOn(s, e, amount)
	}
	if err := p.fitsOn(s, min(e, xs), amount); err != nil {
		return err
	}
	return p.fitsOn(max(s, xe), e, amount)
}

// fitsOn checks that amount is free throughout [s, e), s being at least Now.
func (p *Profile) fitsOn(s, e int64, amount sdk.Vector) error {
	if s >= e {
		return nil
	}
	for q, ok := p.find(s), true; ok && p.tm(q) < e; q, ok = p.next(q) {
		f := p.step(q)
		for r, x := range amount {
			if x > f[r] {
				return fmt.Errorf("plan: reserve %v on [%d, %d): resource %d has %d free from %d: %w",
					[]int64(amount), s, e, r, f[r], max(p.tm(q), s), ErrNoCapacity)
			}
		}
	}
	return nil
}

// applyOutside adds sign*amount on [s, e) outside [xs, xe).
func (p *Profile) applyOutside(s, e, xs, xe int64, amount sdk.Vector, sign int64) {
	if xs >= xe {
		p.apply(s, e, amount, sign)
		return
	}
	p.apply(s, min(e, xs), amount, sign)
	p.apply(max(s, xe), e, amount, sign)
}

// FreeAt returns the free capacity at time t (Now for a time before Now),
// appended to dst[:0] so that a caller can reuse one vector.
func (p *Profile) FreeAt(t int64, dst sdk.Vector) sdk.Vector {
	return append(dst[:0], p.step(p.find(max(t, p.Now())))...)
}

// Fits reports whether amount is free throughout [start, start+duration),
// that is, whether Reserve with the same arguments would succeed.
func (p *Profile) Fits(start, duration int64, amount sdk.Vector) bool {
	p.checkDims(amount)
	checkDuration(duration)
	if start < p.Now() {
		return false
	}
	end := endOf(start, duration)
	for q, ok := p.find(start), true; ok && p.tm(q) < end; q, ok = p.next(q) {
		if !p.fits(q, amount) {
			return false
		}
	}
	return true
}

// FreeSince returns the earliest time t, no earlier than floor or Now, such
// that amount is free throughout [t, until). It is until itself when amount
// is not free just before until or until is not after floor and Now. It
// scans backwards from until, so it costs only the steps of the answer.
func (p *Profile) FreeSince(until, floor int64, amount sdk.Vector) int64 {
	p.checkDims(amount)
	lo := max(floor, p.Now())
	if until <= lo {
		return until
	}
	// The first step starts at Now, which is at most lo, so the scan ends
	// there at the latest. The loops run over one chunk's storage at a time.
	d := p.dims
	t := until
	q := p.find(until - 1)
	for c, i := q.c, q.i; ; c = c - 1 {
		ch := p.chunks[c]
		b := int(ch.slot) * chunkCap
		ts := p.times[b : b+int(ch.n)]
		fr := p.free[b*d : (b+int(ch.n))*d]
		if c != q.c {
			i = len(ts) - 1
		}
		for ; i >= 0; i-- {
			if !fitsIn(fr[i*d:(i+1)*d], amount) {
				return t
			}
			if t = ts[i]; t <= lo {
				return lo
			}
		}
	}
}

// EarliestFit returns the earliest time t >= Now at which amount is free
// throughout [t, t+duration), or -1 if there is none, which can only happen
// when amount does not fit in the last step (for a profile from FromState
// plus finite reservations, when the job is larger than the cluster).
func (p *Profile) EarliestFit(amount sdk.Vector, duration int64) int64 {
	return p.EarliestFitFrom(p.Now(), amount, duration)
}

// EarliestFitFrom is EarliestFit for start times no earlier than from; a
// from before Now counts as Now.
func (p *Profile) EarliestFitFrom(from int64, amount sdk.Vector, duration int64) int64 {
	return p.EarliestFitWithin(from, math.MaxInt64, amount, duration)
}

// EarliestFitWithin is EarliestFitFrom for start times no later than until:
// it returns -1 when amount is free for duration from no time in
// [max(from, Now), until]. It looks at no step that begins at or after
// until+duration, so a caller that only needs to know whether a job could
// start before some time pays only for the steps up to then.
func (p *Profile) EarliestFitWithin(from, until int64, amount sdk.Vector, duration int64) int64 {
	p.checkDims(amount)
	checkDuration(duration)
	t := max(from, p.Now())
	if t > until {
		return -1
	}
	end := endOf(t, duration)
	// Slide a window [t, end) over the steps. A step that lacks capacity
	// rules out every start up to its end, so the next candidate is the
	// start of the following step, and no step is looked at twice. The
	// loops run over one chunk's storage at a time.
	d := p.dims
	q := p.find(t)
	for c, i := q.c, q.i; c < len(p.chunks); c, i = c+1, 0 {
		ch := p.chunks[c]
		b := int(ch.slot) * chunkCap
		ts := p.times[b : b+int(ch.n)]
		fr := p.free[b*d : (b+int(ch.n))*d]
		for ; i < len(ts); i++ {
			if ts[i] >= end {
				return t
			}
			if !fitsIn(fr[i*d:(i+1)*d], amount) {
				switch {
				case i+1 < len(ts):
					t = ts[i+1]
				case c+1 < len(p.chunks):
					t = p.chunks[c+1].first
				default:
					return -1
				}
				if t > until {
					return -1
				}
				end = endOf(t, duration)
			}
		}
	}
	return t
}

// String formats the profile as its steps, "[t0: v0, t1: v1, ...]", for
// debugging and test failures.
func (p *Profile) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for q, ok := (pos{}), true; ok; q, ok = p.next(q) {
		if q != (pos{}) {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d: %v", p.tm(q), p.step(q))
	}
	b.WriteByte(']')
	return b.String()
}

// tm returns the breakpoint of step q.
func (p *Profile) tm(q pos) int64 {
	return p.times[int(p.chunks[q.c].slot)*chunkCap+q.i]
}

// step returns the free amounts of step q, aliasing p.free.
func (p *Profile) step(q pos) []int64 {
	k := (int(p.chunks[q.c].slot)*chunkCap + q.i) * p.dims
	return p.free[k : k+p.dims : k+p.dims]
}

// next returns the step after q, and false when q is the last.
func (p *Profile) next(q pos) (pos, bool) {
	if q.i+1 < int(p.chunks[q.c].n) {
		return pos{q.c, q.i + 1}, true
	}
	if q.c+1 < len(p.chunks) {
		return pos{q.c + 1, 0}, true
	}
	return q, false
}

// prev returns the step before q, and false when q is the first.
func (p *Profile) prev(q pos) (pos, bool) {
	if q.i > 0 {
		return pos{q.c, q.i - 1}, true
	}
	if q.c > 0 {
		return pos{q.c - 1, int(p.chunks[q.c-1].n) - 1}, true
	}
	return q, false
}

// last returns the last step.
func (p *Profile) last() pos {
	c := len(p.chunks) - 1
	return pos{c, int(p.chunks[c].n) - 1}
}

// find returns the step that contains t, which must be at least Now.
func (p *Profile) find(t int64) pos {
	var q pos
	if c := p.hint.c; p.hintLayout == p.layout && p.chunks[c].first <= t &&
		(c+1 == len(p.chunks) || t < p.chunks[c+1].first) {
		// Lookups are often of the same time as the last one, or a close
		// one: the last answer is tried, then its chunk is searched.
		ch := p.chunks[c]
		b := int(ch.slot)*chunkCap + p.hint.i
		if i := p.hint.i; p.times[b] <= t && (i+1 == int(ch.n) || t < p.times[b+1]) {
			return p.hint
		}
		q = pos{c, p.searchChunk(c, t)}
	} else {
		q = p.search(t)
	}
	p.hint, p.hintLayout = q, p.layout
	return q
}

// search is find by binary search, over the chunks, then within one.
func (p *Profile) search(t int64) pos {
	// The last chunk is the usual answer for appends and late queries, so it
	// is tested first.
	c := len(p.chunks) - 1
	if t < p.chunks[c].first {
		lo, hi := 0, c // the answer is in [lo, hi): the last chunk with first <= t
		for hi-lo > 1 {
			m := int(uint(lo+hi) >> 1)
			if p.chunks[m].first <= t {
				lo = m
			} else {
				hi = m
			}
		}
		c = lo
	}
	return pos{c, p.searchChunk(c, t)}
}

// searchChunk returns the last step of chunk c that starts at or before t,
// which must be at least the chunk's first breakpoint.
func (p *Profile) searchChunk(c int, t int64) int {
	ch := p.chunks[c]
	b := int(ch.slot) * chunkCap
	ts := p.times[b : b+int(ch.n)]
	// Branch-free halving suits the short, unpredictable searches inside a
	// chunk.
	i, n := 0, len(ts)
	for n > 1 {
		half := n / 2
		if ts[i+half] <= t {
			i += half
		}
		n -= half
	}
	return i
}

func (p *Profile) fits(q pos, amount sdk.Vector) bool {
	return fitsIn(p.step(q), amount)
}

// fitsIn reports whether amount is at most f in every resource.
func fitsIn(f []int64, amount sdk.Vector) bool {
	if len(amount) == 1 {
		// The common processors-only platform, without the loop.
		return amount[0] <= f[0]
	}
	for r, x := range amount {
		if x > f[r] {
			return false
		}
	}
	return true
}

// alloc returns an unused slot, growing the storage when none is spare.
func (p *Profile) alloc() int32 {
	if k := len(p.spare); k > 0 {
		s := p.spare[k-1]
		p.spare = p.spare[:k-1]
		return s
	}
	s := int32(len(p.times) / chunkCap)
	p.times = grow(p.times, chunkCap)
	p.free = grow(p.free, chunkCap*p.dims)
	return s
}

// grow extends s by k elements, allocating only when its capacity is short.
func grow(s []int64, k int) []int64 {
	s = slices.Grow(s, k)
	return s[:len(s)+k]
}

// insert makes a step at t with amounts v the step at q, shifting the steps
// from q on within the chunk, and returns where it ended up. q.i may be the
// chunk's length (append to the chunk); v may alias the profile.
func (p *Profile) insert(q pos, t int64, v []int64) pos {
	p.layout++
	p.tmp = append(p.tmp[:0], v...)
	if p.chunks[q.c].n == chunkCap {
		// Split the full chunk in two halves; the upper one gets a slot of
		// its own and a place in chunks right after it.
		ch := &p.chunks[q.c]
		half := int32(chunkCap / 2)
		s := p.alloc()
		src, dst, d := int(ch.slot)*chunkCap, int(s)*chunkCap, p.dims
		copy(p.times[dst:dst+int(half)], p.times[src+int(half):src+chunkCap])
		copy(p.free[dst*d:(dst+int(half))*d], p.free[(src+int(half))*d:(src+chunkCap)*d])
		ch.n = half
		p.chunks = slices.Insert(p.chunks, q.c+1, chunk{first: p.times[dst], slot: s, n: half})
		if q.i > int(half) {
			q = pos{q.c + 1, q.i - int(half)}
		}
	}
	ch := &p.chunks[q.c]
	b, d, n := int(ch.slot)*chunkCap, p.dims, int(ch.n)
	copy(p.times[b+q.i+1:b+n+1], p.times[b+q.i:b+n])
	copy(p.free[(b+q.i+1)*d:(b+n+1)*d], p.free[(b+q.i)*d:(b+n)*d])
	p.times[b+q.i] = t
	copy(p.free[(b+q.i)*d:(b+q.i+1)*d], p.tmp)
	ch.n++
	if q.i == 0 {
		ch.first = t
	}
	p.steps++
	return q
}

// remove deletes step q, which must not be the first step of the profile.
func (p *Profile) remove(q pos) {
	p.layout++
	ch := &p.chunks[q.c]
	b, d, n := int(ch.slot)*chunkCap, p.dims, int(ch.n)
	copy(p.times[b+q.i:b+n-1], p.times[b+q.i+1:b+n])
	copy(p.free[(b+q.i)*d:(b+n-1)*d], p.free[(b+q.i+1)*d:(b+n)*d])
	ch.n--
	p.steps--
	if ch.n == 0 {
		p.spare = append(p.spare, ch.slot)
		p.chunks = slices.Delete(p.chunks, q.c, q.c+1)
		p.joinChunks(q.c - 1)
		return
	}
	if q.i == 0 {
		ch.first = p.times[b]
	}
	p.joinChunks(q.c)
	p.joinChunks(q.c - 1)
}

// joinChunks moves chunk c+1 into chunk c when both fit in half a chunk. Done
// for the pairs that a removal made smaller, it keeps every two neighbouring
// chunks above half a chunk together, so there are fewer than 2*steps/32+1
// chunks whatever the order of insertions and removals.
func (p *Profile) joinChunks(c int) {
	if c < 0 || c+1 >= len(p.chunks) || p.chunks[c].n+p.chunks[c+1].n > chunkCap/2 {
		return
	}
	ch, nx, d := &p.chunks[c], p.chunks[c+1], p.dims
	src, dst := int(nx.slot)*chunkCap, int(ch.slot)*chunkCap+int(ch.n)
	copy(p.times[dst:dst+int(nx.n)], p.times[src:src+int(nx.n)])
	copy(p.free[dst*d:(dst+int(nx.n))*d], p.free[src*d:(src+int(nx.n))*d])
	ch.n += nx.n
	p.spare = append(p.spare, nx.slot)
	p.chunks = slices.Delete(p.chunks, c+1, c+2)
}

// split makes t (at least Now) a breakpoint, copying the step that contained
// it, and returns where it is.
func (p *Profile) split(t int64) pos {
	q := p.find(t)
	if p.tm(q) == t {
		return q
	}
	return p.insert(pos{q.c, q.i + 1}, t, p.step(q))
}

// mergeAt removes step q when it equals the step before it, keeping the
// profile in its smallest form.
func (p *Profile) mergeAt(q pos) {
	prev, ok := p.prev(q)
	if ok && slices.Equal(p.step(prev), p.step(q)) {
		p.remove(q)
	}
}

// apply adds sign*amount on [start, end), start being at least Now.
func (p *Profile) apply(start, end int64, amount sdk.Vector, sign int64) {
	if isZero(amount) || start >= end {
		return
	}
	a := p.split(start)
	b := pos{-1, 0} // no step at end: the interval runs to +inf
	if end != math.MaxInt64 {
		chunks := len(p.chunks)
		b = p.split(end)
		if len(p.chunks) != chunks {
			// Inserting the step at end, after a, moved only steps after
			// it, unless it split a full chunk, which can move a too.
			a = p.search(start)
		}
	}
	for q, ok := a, true; ok && q != b; q, ok = p.next(q) {
		f := p.step(q)
		for r, x := range amount {
			f[r] += sign * x
		}
	}
	// Only the two ends can have become equal to a neighbour: steps inside
	// were distinct and all changed by the same amount. Removing the step at
	// b moves only steps after it, unless chunks are joined, which can move
	// a too.
	if b.c >= 0 {
		chunks := len(p.chunks)
		p.mergeAt(b)
		if len(p.chunks) != chunks {
			a = p.search(start)
		}
	}
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

func hasNegative(v []int64) bool {
	for _, x := range v {
		if x < 0 {
			return true
		}
	}
	return false
}

func isZero(v sdk.Vector) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
