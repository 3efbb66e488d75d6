package plan

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

type v = sdk.Vector

// op is one mutation of a profile in a table case.
type op struct {
	kind    string // "release", "reserve" or "unreserve"
	t, d    int64
	amount  v
	wantErr error // for reserve: nil, ErrNoCapacity, or errBadArg
}

// errBadArg stands for a Reserve error that is not ErrNoCapacity.
var errBadArg = errors.New("bad argument")

func (o op) apply(t *testing.T, p *Profile) {
	t.Helper()
	switch o.kind {
	case "release":
		p.Release(o.t, o.amount)
	case "unreserve":
		p.Unreserve(o.t, o.d, o.amount)
	case "reserve":
		before := p.String()
		err := p.Reserve(o.t, o.d, o.amount)
		switch {
		case o.wantErr == nil && err != nil:
			t.Fatalf("Reserve(%d, %d, %v) on %s: %v", o.t, o.d, o.amount, before, err)
		case o.wantErr != nil && err == nil:
			t.Fatalf("Reserve(%d, %d, %v) on %s succeeded, want error", o.t, o.d, o.amount, before)
		case o.wantErr == ErrNoCapacity && !errors.Is(err, ErrNoCapacity),
			o.wantErr == errBadArg && errors.Is(err, ErrNoCapacity):
			t.Fatalf("Reserve(%d, %d, %v): error %q, want kind %v", o.t, o.d, o.amount, err, o.wantErr)
		}
		if err != nil && p.String() != before {
			t.Fatalf("failed Reserve changed the profile from %s to %s", before, p.String())
		}
	default:
		t.Fatalf("unknown op %q", o.kind)
	}
	checkInvariants(t, p)
}

func rel(at int64, amount ...int64) op { return op{kind: "release", t: at, amount: amount} }
func res(start, d int64, amount ...int64) op {
	return op{kind: "reserve", t: start, d: d, amount: amount}
}
func unres(start, d int64, amount ...int64) op {
	return op{kind: "unreserve", t: start, d: d, amount: amount}
}
func fail(o op, err error) op { o.wantErr = err; return o }

// checkInvariants verifies the representation: chunks of 1 to chunkCap
// steps in distinct slots, each knowing its first breakpoint, and no two
// neighbours that would fit in half a chunk together; breakpoints
// strictly increasing from Now; the step count right; and no two adjacent
// equal steps (so the profile is in its unique smallest form).
func checkInvariants(t *testing.T, p *Profile) {
	t.Helper()
	if len(p.chunks) == 0 || len(p.times)%chunkCap != 0 || len(p.free) != len(p.times)*p.dims {
		t.Fatalf("bad sizes: %d chunks, %d times, %d values, %d dims", len(p.chunks), len(p.times), len(p.free), p.dims)
	}
	used := map[int32]bool{}
	steps := 0
	for c, ch := range p.chunks {
		if ch.n < 1 || ch.n > chunkCap || used[ch.slot] || int(ch.slot)*chunkCap >= len(p.times) {
			t.Fatalf("chunk %d: bad chunk %+v", c, ch)
		}
		used[ch.slot] = true
		if c > 0 && p.chunks[c-1].n+ch.n <= chunkCap/2 {
			t.Fatalf("chunks %d and %d hold only %d steps together", c-1, c, p.chunks[c-1].n+ch.n)
		}
		if ch.first != p.tm(pos{c, 0}) {
			t.Fatalf("chunk %d: first %d, breakpoint %d", c, ch.first, p.tm(pos{c, 0}))
		}
		steps += int(ch.n)
	}
	for _, s := range p.spare {
		if used[s] {
			t.Fatalf("slot %d both spare and used", s)
		}
	}
	if steps != p.Steps() {
		t.Fatalf("%d steps in chunks, Steps() = %d", steps, p.Steps())
	}
	for q, ok := p.next(pos{}); ok; q, ok = p.next(q) {
		prev, _ := p.prev(q)
		if p.tm(q) <= p.tm(prev) {
			t.Fatalf("breakpoints not increasing: %s", p)
		}
		if slices.Equal(p.step(prev), p.step(q)) {
			t.Fatalf("adjacent equal steps not merged: %s", p)
		}
	}
}

func build(t *testing.T, now int64, free v, ops ...op) *Profile {
	t.Helper()
	p := New(now, free)
	for _, o := range ops {
		o.apply(t, p)
	}
	return p
}

func TestOps(t *testing.T) {
	tests := []struct {
		name string
		now  int64
		free v
		ops  []op
		want string
	}{
		{"new", 0, v{4}, nil, "[0: [4]]"},
		{"release in order", 0, v{0}, []op{rel(10, 2), rel(20, 1)}, "[0: [0], 10: [2], 20: [3]]"},
		{"release out of order", 0, v{0}, []op{rel(20, 1), rel(10, 2)}, "[0: [0], 10: [2], 20: [3]]"},
		{"release same time twice", 0, v{0}, []op{rel(10, 1), rel(10, 1)}, "[0: [0], 10: [2]]"},
		{"release before now counts from now", 100, v{1}, []op{rel(50, 2)}, "[100: [3]]"},
		{"release at now", 100, v{1}, []op{rel(100, 2), rel(120, 1)}, "[100: [3], 120: [4]]"},
		{"release zero is a no-op", 0, v{1}, []op{rel(10, 0)}, "[0: [1]]"},
		{"release fills a reservation's dip", 0, v{4}, []op{res(10, 10, 2), rel(10, 2)}, "[0: [4], 20: [6]]"},
		{"multi-resource release and reserve", 0, v{2, 100},
			[]op{rel(10, 2, 50), res(10, 10, 3, 120)},
			"[0: [2 100], 10: [1 30], 20: [4 150]]"},
		{"overlapping reservations", 0, v{10}, []op{res(0, 10, 4), res(5, 10, 4)},
			"[0: [6], 5: [2], 10: [6], 15: [10]]"},
		{"adjacent reservations merge", 0, v{10}, []op{res(0, 5, 3), res(5, 5, 3)}, "[0: [7], 10: [10]]"},
		{"reservation up to a release merges", 0, v{2}, []op{rel(10, 3), res(10, 5, 3)}, "[0: [2], 15: [5]]"},
		{"reservation ending at a release", 0, v{4}, []op{rel(10, 2), res(0, 10, 4)}, "[0: [0], 10: [6]]"},
		{"reserve exactly all", 0, v{3, 7}, []op{res(0, 5, 3, 7)}, "[0: [0 0], 5: [3 7]]"},
		{"reserve zero is a no-op", 0, v{3}, []op{res(2, 5, 0)}, "[0: [3]]"},
		{"reserve too much fails", 0, v{10}, []op{res(5, 10, 6), fail(res(0, 8, 5), ErrNoCapacity)},
			"[0: [10], 5: [4], 15: [10]]"},
		{"reserve fails on one resource only", 0, v{8, 100},
			[]op{res(5, 10, 0, 90), fail(res(0, 20, 1, 20), ErrNoCapacity)},
			"[0: [8 100], 5: [8 10], 15: [8 100]]"},
		{"reserve before now fails", 10, v{8}, []op{fail(res(9, 5, 1), errBadArg)}, "[10: [8]]"},
		{"reserve of zero duration fails", 10, v{8}, []op{fail(res(10, 0, 1), errBadArg)}, "[10: [8]]"},
		{"reserve forever", 0, v{8}, []op{res(5, math.MaxInt64, 3)}, "[0: [8], 5: [5]]"},
		{"unreserve restores", 0, v{10}, []op{res(5, 10, 4), unres(5, 10, 4)}, "[0: [10]]"},
		{"unreserve merges back to a release's step", 0, v{2},
			[]op{rel(10, 3), rel(30, 1), res(10, 5, 3), res(12, 10, 2), unres(10, 5, 3), unres(12, 10, 2)},
			"[0: [2], 10: [5], 30: [6]]"},
		{"unreserve out of order", 0, v{10},
			[]op{res(0, 10, 4), res(5, 10, 4), res(3, 4, 2), unres(0, 10, 4), unres(3, 4, 2), unres(5, 10, 4)},
			"[0: [10]]"},
		{"unreserve before now is clipped", 10, v{4}, []op{unres(5, 10, 1)}, "[10: [5], 15: [4]]"},
		{"unreserve entirely before now", 10, v{4}, []op{unres(0, 10, 1)}, "[10: [4]]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, tc.now, tc.free, tc.ops...)
			if got := p.String(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// Profiles shared by the query tables below.
var (
	// stairs: 2 free now, 4 from 10, 8 from 20.
	stairs = func(t *testing.T) *Profile { return build(t, 0, v{2}, rel(10, 2), rel(20, 4)) }
	// dip: 10 free except 2 on [5, 15).
	dip = func(t *testing.T) *Profile { return build(t, 0, v{10}, res(5, 10, 8)) }
	// hole: 2 free on [0, 10), 10 on [10, 13), 2 on [13, 23), 10 after.
	hole = func(t *testing.T) *Profile { return build(t, 0, v{10}, res(0, 10, 8), res(13, 10, 8)) }
	// buffer: 8 procs always; 10 burst-buffer units until 20, then 100.
	buffer = func(t *testing.T) *Profile { return build(t, 0, v{8, 100}, res(0, 20, 0, 90)) }
	// shrink: 10 free until 5, then 2 forever (an open-ended reservation).
	shrink = func(t *testing.T) *Profile { return build(t, 0, v{10}, res(5, math.MaxInt64, 8)) }
)

func TestEarliestFit(t *testing.T) {
	tests := []struct {
		name    string
		profile func(*testing.T) *Profile
		from    int64
		amount  v
		d       int64
		want    int64
	}{
		{"fits now", stairs, 0, v{2}, 100, 0},
		{"waits for first release", stairs, 0, v{3}, 100, 10},
		{"waits for second release", stairs, 0, v{5}, 100, 20},
		{"needs all of the final capacity", stairs, 0, v{8}, 1, 20},
		{"never fits", stairs, 0, v{9}, 1, -1},
		{"from inside a step", stairs, 5, v{1}, 1, 5},
		{"from inside a step, must wait", stairs, 5, v{3}, 1, 10},
		{"from before now", stairs, -10, v{1}, 1, 0},
		{"from after the last breakpoint", stairs, 50, v{8}, 1, 50},
		{"ends exactly when the dip starts", dip, 0, v{5}, 5, 0},
		{"one second too long for before the dip", dip, 0, v{5}, 6, 15},
		{"small enough for the dip", dip, 0, v{2}, 100, 0},
		{"inside the dip", dip, 7, v{2}, 3, 7},
		{"hole fits exactly", hole, 0, v{5}, 3, 10},
		{"hole too short", hole, 0, v{5}, 4, 23},
		{"hole skipped by from", hole, 11, v{5}, 3, 23},
		{"burst buffer is the bottleneck", buffer, 0, v{1, 50}, 5, 20},
		{"burst buffer is enough", buffer, 0, v{8, 10}, 50, 0},
		{"procs never enough", buffer, 0, v{9, 0}, 1, -1},
		{"zero request fits now", buffer, 3, v{0, 0}, 1, 3},
		{"fits before the last step only", shrink, 0, v{5}, 5, 0},
		{"too long for before the last step", shrink, 0, v{5}, 6, -1},
		{"from inside the last step", shrink, 7, v{2}, 1 << 62, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.profile(t)
			if got := p.EarliestFitFrom(tc.from, tc.amount, tc.d); got != tc.want {
				t.Errorf("EarliestFitFrom(%d, %v, %d) on %s = %d, want %d", tc.from, tc.amount, tc.d, p, got, tc.want)
			}
			if tc.from <= p.Now() {
				if got := p.EarliestFit(tc.amount, tc.d); got != tc.want {
					t.Errorf("EarliestFit(%v, %d) on %s = %d, want %d", tc.amount, tc.d, p, got, tc.want)
				}
			}
			if tc.want >= 0 && !p.Fits(tc.want, tc.d, tc.amount) {
				t.Errorf("Fits(%d, %d, %v) = false at the earliest fit", tc.want, tc.d, tc.amount)
			}
		})
	}
}

func TestFits(t *testing.T) {
	tests := []struct {
		name    string
		profile func(*testing.T) *Profile
		start   int64
		amount  v
		d       int64
		want    bool
	}{
		{"before now", stairs, -1, v{1}, 1, false},
		{"at now", stairs, 0, v{2}, 1000, true},
		{"across a rise", stairs, 5, v{3}, 10, false},
		{"after a rise", stairs, 10, v{3}, 10, true},
		{"ends at the dip", dip, 0, v{10}, 5, true},
		{"one second into the dip", dip, 0, v{10}, 6, false},
		{"starts when the dip ends", dip, 15, v{10}, 1, true},
		{"last second of the dip", dip, 14, v{3}, 1, false},
		{"within the dip", dip, 5, v{2}, 10, true},
		{"hole exactly", hole, 10, v{10}, 3, true},
		{"hole overrun", hole, 10, v{10}, 4, false},
		{"second resource", buffer, 19, v{0, 11}, 1, false},
		{"second resource after", buffer, 20, v{8, 100}, 1 << 62, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.profile(t)
			if got := p.Fits(tc.start, tc.d, tc.amount); got != tc.want {
				t.Errorf("Fits(%d, %d, %v) on %s = %v, want %v", tc.start, tc.d, tc.amount, p, got, tc.want)
			}
			// Fits must predict Reserve.
			err := p.Reserve(tc.start, tc.d, tc.amount)
			if (err == nil) != tc.want {
				t.Errorf("Reserve(%d, %d, %v) = %v, but Fits = %v", tc.start, tc.d, tc.amount, err, tc.want)
			}
		})
	}
}

func TestFreeAt(t *testing.T) {
	p := build(t, 10, v{1, 5}, rel(20, 1, 0), res(30, 5, 2, 5))
	tests := []struct {
		t    int64
		want v
	}{
		{0, v{1, 5}}, {10, v{1, 5}}, {19, v{1, 5}}, {20, v{2, 5}}, {29, v{2, 5}},
		{30, v{0, 0}}, {34, v{0, 0}}, {35, v{2, 5}}, {1 << 62, v{2, 5}},
	}
	dst := make(sdk.Vector, 0, 2)
	for _, tc := range tests {
		dst = p.FreeAt(tc.t, dst)
		if !slices.Equal(dst, tc.want) {
			t.Errorf("FreeAt(%d) = %v, want %v", tc.t, dst, tc.want)
		}
	}
	if got := p.FreeAt(20, nil); !slices.Equal(got, v{2, 5}) {
		t.Errorf("FreeAt(20, nil) = %v", got)
	}
	// The returned vector must not alias the profile.
	got := p.FreeAt(20, nil)
	got[0] = 99
	if p.FreeAt(20, nil)[0] != 2 {
		t.Error("writing to FreeAt's result changed the profile")
	}
}

func TestFromState(t *testing.T) {
	job := func(req ...int64) *sdk.Job { return &sdk.Job{Walltime: 1, Request: req} }
	s := &sdk.State{
		Now:  100,
		Free: []sdk.Vector{{2, 10}, {7, 7}},
		Running: []sdk.Running{
			{Job: job(1, 0), Cluster: 0, ExpectedEnd: 110},
			{Job: job(5, 5), Cluster: 1, ExpectedEnd: 110},
			{Job: job(2, 20), Cluster: 0, ExpectedEnd: 150},
			{Job: job(1, 0), Cluster: 0, ExpectedEnd: 150},
			{Job: job(4, 0), Cluster: 0, ExpectedEnd: 200},
		},
	}
	want0 := "[100: [2 10], 110: [3 10], 150: [6 30], 200: [10 30]]"
	want1 := "[100: [7 7], 110: [12 12]]"
	p := FromState(s, 0)
	if got := p.String(); got != want0 {
		t.Errorf("cluster 0: got %s, want %s", got, want0)
	}
	if p.Now() != 100 || p.Steps() != 4 {
		t.Errorf("Now() = %d, Steps() = %d", p.Now(), p.Steps())
	}
	// Reusing a profile for another cluster forgets the first one.
	p.ResetFromState(s, 1)
	if got := p.String(); got != want1 {
		t.Errorf("cluster 1: got %s, want %s", got, want1)
	}
	// Out of order running jobs (not what the engine sends) give the same
	// profile, only slower.
	slices.Reverse(s.Running)
	p.ResetFromState(s, 0)
	if got := p.String(); got != want0 {
		t.Errorf("reversed: got %s, want %s", got, want0)
	}
}

func TestZeroValueAndReset(t *testing.T) {
	var p Profile
	p.Reset(5, v{1, 2, 3})
	if got := p.String(); got != "[5: [1 2 3]]" {
		t.Errorf("zero value after Reset: %s", got)
	}
	p.Release(9, v{1, 1, 1})
	p.Reset(0, v{4}) // fewer resources than before
	if got := p.String(); got != "[0: [4]]" {
		t.Errorf("after Reset: %s", got)
	}
}

func TestPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func(p *Profile)
	}{
		{"release with wrong dims", func(p *Profile) { p.Release(1, v{1, 2}) }},
		{"reserve with wrong dims", func(p *Profile) { _ = p.Reserve(1, 1, v{}) }},
		{"fits with zero duration", func(p *Profile) { p.Fits(1, 0, v{1}) }},
		{"earliest fit with negative duration", func(p *Profile) { p.EarliestFit(v{1}, -1) }},
		{"unreserve with zero duration", func(p *Profile) { p.Unreserve(1, 0, v{1}) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tc.f(New(0, v{4}))
		})
	}
}

// TestNoAllocs checks the promise made to policies: once warm, rebuilding a
// profile, planning a queue and keeping the plan up to date allocate nothing.
func TestNoAllocs(t *testing.T) {
	s := &sdk.State{Now: 0, Free: []sdk.Vector{{4, 100}}}
	for i := range 200 {
		s.Running = append(s.Running, sdk.Running{
			Job:         &sdk.Job{Request: v{1, int64(i % 3)}},
			ExpectedEnd: int64(1 + i*7),
		})
	}
	var p Profile
	req := v{3, 50}
	dst := make(sdk.Vector, 2)
	run := func() {
		p.ResetFromState(s, 0)
		for k := range 100 {
			d := int64(10 + k%17*13)
			t0 := p.EarliestFit(req, d)
			if err := p.Reserve(t0, d, req); err != nil {
				t.Fatal(err)
			}
			if k%10 == 0 {
				p.Unreserve(t0, d, req)
			}
		}
		dst = p.FreeAt(100, dst)
		_ = p.Fits(5, 5, req)
		// Keeping the profile across calls: move reservations earlier,
		// then advance.
		for k := range 50 {
			d := int64(10 + k%13*7)
			t0 := p.EarliestFitFrom(500, req, d)
			if err := p.Reserve(t0, d, req); err != nil {
				t.Fatal(err)
			}
			if t1 := p.FreeSince(t0, t0-d, req); t1 < t0 {
				if err := p.Move(t0, t1, d, req); err != nil {
					t.Fatal(err)
				}
			}
			_ = p.EarliestFitWithin(0, t0, req, d)
		}
		p.Advance(300)
	}
	run() // grow the slices once
	if n := testing.AllocsPerRun(20, run); n != 0 {
		t.Errorf("%v allocations per run, want 0", n)
	}
}

func TestAdvance(t *testing.T) {
	tests := []struct {
		name string
		now  int64
		want string
	}{
		{"not after now", -5, "[0: [2], 10: [4], 20: [8]]"},
		{"inside the first step", 5, "[5: [2], 10: [4], 20: [8]]"},
		{"onto a breakpoint", 10, "[10: [4], 20: [8]]"},
		{"inside a later step", 15, "[15: [4], 20: [8]]"},
		{"past the last breakpoint", 50, "[50: [8]]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := stairs(t)
			p.Advance(tc.now)
			checkInvariants(t, p)
			if got := p.String(); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	// Reservations and queries go on from the new now.
	p := hole(t)
	p.Advance(11)
	if got := p.EarliestFit(v{5}, 2); got != 11 {
		t.Errorf("EarliestFit after Advance(11) = %d, want 11", got)
	}
	if err := p.Reserve(10, 1, v{1}); err == nil {
		t.Error("Reserve before the new now succeeded")
	}
}

func TestMove(t *testing.T) {
	tests := []struct {
		name     string
		p        func(*testing.T) *Profile
		from, to int64
		d        int64
		amount   v
		wantErr  error
		want     string
	}{
		{"slide earlier, overlapping", func(t *testing.T) *Profile { return build(t, 0, v{10}, res(10, 10, 4)) },
			10, 5, 10, v{4}, nil, "[0: [10], 5: [6], 15: [10]]"},
		{"jump earlier, disjoint", func(t *testing.T) *Profile { return build(t, 0, v{10}, res(20, 5, 4)) },
			20, 0, 5, v{4}, nil, "[0: [6], 5: [10]]"},
		{"later", func(t *testing.T) *Profile { return build(t, 0, v{10}, res(0, 5, 4)) },
			0, 3, 5, v{4}, nil, "[0: [10], 3: [6], 8: [10]]"},
		{"in place", func(t *testing.T) *Profile { return build(t, 0, v{10}, res(2, 5, 4)) },
			2, 2, 5, v{4}, nil, "[0: [10], 2: [6], 7: [10]]"},
		{"needs its own freed capacity", func(t *testing.T) *Profile { return build(t, 0, v{10}, res(5, 10, 8)) },
			5, 3, 10, v{8}, nil, "[0: [10], 3: [2], 13: [10]]"},
		{"not free outside the old interval", func(t *testing.T) *Profile {
			return build(t, 0, v{10}, res(0, 5, 8), res(10, 10, 4))
		}, 10, 3, 10, v{4}, ErrNoCapacity, "[0: [2], 5: [10], 10: [6], 20: [10]]"},
		{"to before now", func(t *testing.T) *Profile { return build(t, 5, v{10}, res(5, 10, 4)) },
			5, 4, 10, v{4}, errBadArg, "[5: [6], 15: [10]]"},
		{"from partly before now", func(t *testing.T) *Profile {
			p := build(t, 0, v{10}, res(5, 10, 4))
			p.Advance(10)
			return p
		}, 5, 12, 10, v{4}, nil, "[10: [10], 12: [6], 22: [10]]"},
		{"negative free amount in the overlap", func(t *testing.T) *Profile {
			// Unreserving a negative amount drives [5, 10) below zero, so
			// the moved reservation does not fit there even though it is
			// given back first.
			return build(t, 0, v{5}, res(0, 20, 3), unres(5, 5, -4))
		}, 0, 2, 20, v{3}, ErrNoCapacity, "[0: [2], 5: [-2], 10: [2], 20: [5]]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p(t)
			before := p.String()
			err := p.Move(tc.from, tc.to, tc.d, tc.amount)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("Move on %s: %v", before, err)
			case tc.wantErr != nil && err == nil:
				t.Fatalf("Move on %s succeeded, want an error", before)
			case tc.wantErr == ErrNoCapacity && !errors.Is(err, ErrNoCapacity),
				tc.wantErr == errBadArg && errors.Is(err, ErrNoCapacity):
				t.Fatalf("Move: error %q, want kind %v", err, tc.wantErr)
			}
			checkInvariants(t, p)
			if got := p.String(); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			// Unreserve then Reserve must agree, on a copy built the same way.
			q := tc.p(t)
			q.Unreserve(tc.from, tc.d, tc.amount)
			if rerr := q.Reserve(tc.to, tc.d, tc.amount); (rerr == nil) != (err == nil) {
				t.Errorf("Move error %v, Unreserve+Reserve error %v", err, rerr)
			} else if err == nil && q.String() != p.String() {
				t.Errorf("Move gives %s, Unreserve+Reserve %s", p, q)
			}
		})
	}
}

func TestFreeSince(t *testing.T) {
	tests := []struct {
		name         string
		profile      func(*testing.T) *Profile
		until, floor int64
		amount       v
		want         int64
	}{
		{"back to a release", stairs, 30, 0, v{3}, 10},
		{"stopped by floor", stairs, 30, 15, v{3}, 15},
		{"back to now", stairs, 30, -5, v{2}, 0},
		{"not free just before until", stairs, 10, 0, v{3}, 10},
		{"until not after floor", stairs, 5, 7, v{1}, 5},
		{"never free", stairs, 25, 0, v{9}, 25},
		{"the hole of hole", hole, 13, 0, v{5}, 10},
		{"inside the dip", dip, 12, 0, v{2}, 0},
		{"burst buffer limits", buffer, 30, 0, v{1, 50}, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.profile(t).FreeSince(tc.until, tc.floor, tc.amount); got != tc.want {
				t.Errorf("FreeSince(%d, %d, %v) = %d, want %d", tc.until, tc.floor, tc.amount, got, tc.want)
			}
		})
	}
}

func TestEarliestFitWithin(t *testing.T) {
	tests := []struct {
		name        string
		profile     func(*testing.T) *Profile
		from, until int64
		amount      v
		d           int64
		want        int64
	}{
		{"the fit is just after until", hole, 0, 9, v{5}, 3, -1},
		{"the fit is at until", hole, 0, 10, v{5}, 3, 10},
		{"fits at from", stairs, 12, 15, v{3}, 1, 12},
		{"from after until", stairs, 12, 11, v{1}, 1, -1},
		{"never fits", stairs, 0, 1 << 40, v{9}, 1, -1},
		{"until far off", shrink, 0, 1 << 40, v{2}, 1 << 50, 0},
		{"too long for before the last step", shrink, 0, 1 << 40, v{5}, 6, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.profile(t).EarliestFitWithin(tc.from, tc.until, tc.amount, tc.d); got != tc.want {
				t.Errorf("EarliestFitWithin(%d, %d, %v, %d) = %d, want %d", tc.from, tc.until, tc.amount, tc.d, got, tc.want)
			}
		})
	}
}
