package plan

import (
	"math"

	"github.com/schedlab/schedlab/sdk"
)

// MinFree returns, appended to dst[:0], the least free amount of each
// resource over [start, start+duration); a start before Now counts as Now.
func (p *Profile) MinFree(start, duration int64, dst sdk.Vector) sdk.Vector {
	checkDuration(duration)
	start = max(start, p.Now())
	end := endOf(start, duration)
	q := p.find(start)
	dst = append(dst[:0], p.step(q)...)
	for q, ok := p.next(q); ok && p.tm(q) < end; q, ok = p.next(q) {
		for r, x := range p.step(q) {
			dst[r] = min(dst[r], x)
		}
	}
	return dst
}

// NextChange returns the first breakpoint of the profile after t, or
// math.MaxInt64 when the free amounts never change after t.
func (p *Profile) NextChange(t int64) int64 {
	q, ok := p.next(p.find(max(t, p.Now())))
	if !ok {
		return math.MaxInt64
	}
	return p.tm(q)
}

// Units lays out a profile for a cluster with divided resources (sdk.Units):
// its amounts are the cluster's resources followed by the free amount of
// each unit, in State.FreeUnits's order, so that reserving a job with its
// placement keeps every unit's future free amount and a later job's pieces
// can be placed where they will really fit. On a cluster without units the
// layout is the plain one and its methods are the profile's.
//
// A Units keeps scratch space: it is not safe for concurrent use.
type Units struct {
	units   []sdk.Units
	dims    int
	count   int
	amount  sdk.Vector
	minFree sdk.Vector
}

// NewUnits returns the layout of cluster c of platform p.
func NewUnits(p *sdk.Platform, c int) *Units {
	cl := &p.Clusters[c]
	n := cl.UnitCount()
	return &Units{units: cl.Units, dims: p.Dims(), count: n, amount: make(sdk.Vector, p.Dims()+n)}
}

// Count returns the number of units, the length of a placement.
func (u *Units) Count() int { return u.count }

// Dims returns the number of amounts of a profile in this layout: the
// platform's resources plus the units.
func (u *Units) Dims() int { return u.dims + u.count }

// ResetFromState makes prof the profile of cluster c of s in this layout:
// the free amounts now, plus every running job's request and placement
// given back at its expected end.
func (u *Units) ResetFromState(prof *Profile, s *sdk.State, c int) {
	free := append(u.amount[:0], s.Free[c]...)
	if u.count > 0 {
		free = append(free, s.FreeUnits[c]...)
	}
	prof.Reset(s.Now, free)
	for i := range s.Running {
		r := &s.Running[i]
		if r.Cluster == c {
			prof.Release(r.ExpectedEnd, u.Amount(r.Job.Request, r.Units))
		}
	}
}

// Amount returns the profile amount of a job that requests req and is
// placed as placement (nil: no pieces on any unit). The vector is reused
// by the next call.
func (u *Units) Amount(req sdk.Vector, placement []int32) sdk.Vector {
	a := append(u.amount[:0], req...)
	if u.count == 0 {
		return a
	}
	a = a[:u.dims+u.count]
	clear(a[u.dims:])
	if placement == nil {
		return a
	}
	off := u.dims
	for _, d := range u.units {
		_, size, _ := d.Pieces(req)
		for k := range d.Capacity {
			a[off+k] = int64(placement[off-u.dims+k]) * size
		}
		off += len(d.Capacity)
	}
	return a
}

// EarliestFit returns the earliest time t >= from (and >= the profile's Now)
// at which a job requesting req fits for duration seconds, its pieces placed
// whole on units, and writes that placement (best fit on the least free
// amount of each unit over the interval, see sdk.PlacePieces) into
// placement, which must have Count entries. It returns -1 when the job never
// fits. A request that is not whole pieces (see sdk.Units.Pieces) never
// fits.
func (u *Units) EarliestFit(prof *Profile, from int64, req sdk.Vector, duration int64, placement []int32) int64 {
	amt := u.Amount(req, nil)
	if u.count == 0 {
		return prof.EarliestFitFrom(from, amt, duration)
	}
	// The totals are a necessary condition whose earliest fit the profile
	// finds quickly. Placing pieces is not a per-step condition, but the
	// least free amounts over [t, t+duration) only shrink as t grows between
	// breakpoints, so the next candidate after a failure is the next one.
	t := from
	for {
		if t = prof.EarliestFitFrom(t, amt, duration); t < 0 {
			return -1
		}
		u.minFree = prof.MinFree(t, duration, u.minFree)
		if u.place(req, u.minFree[u.dims:], placement) {
			return t
		}
		if t = prof.NextChange(t); t == math.MaxInt64 {
			return -1
		}
	}
}

// place writes a best-fit placement of req's pieces on units with free
// amounts free into placement and reports whether they all fit. Most calls
// from EarliestFit fail, so the cheap count comes before the placement.
func (u *Units) place(req sdk.Vector, free []int64, placement []int32) bool {
	off := 0
	for _, d := range u.units {
		n, size, err := d.Pieces(req)
		k := len(d.Capacity)
		if err != nil || !sdk.PiecesFit(free[off:off+k], n, size) {
			return false
		}
		off += k
	}
	off = 0
	for _, d := range u.units {
		n, size, _ := d.Pieces(req)
		k := len(d.Capacity)
		sdk.PlacePieces(placement[off:off+k], free[off:off+k], n, size)
		off += k
	}
	return true
}

// CopyFrom makes p an exact copy of q, reusing p's memory, so that a policy
// can try many plans from one base profile without rebuilding it.
func (p *Profile) CopyFrom(q *Profile) {
	p.dims = q.dims
	p.chunks = append(p.chunks[:0], q.chunks...)
	p.times = append(p.times[:0], q.times...)
	p.free = append(p.free[:0], q.free...)
	p.spare = append(p.spare[:0], q.spare...)
	p.steps = q.steps
	p.neg = q.neg
	p.layout++
}

// FitsAt reports whether a job requesting req fits for duration seconds
// from t, and writes its best-fit placement into placement (Count entries)
// when it does.
func (u *Units) FitsAt(prof *Profile, t int64, req sdk.Vector, duration int64, placement []int32) bool {
	amt := u.Amount(req, nil)
	if !prof.Fits(t, duration, amt) {
		return false
	}
	if u.count == 0 {
		return true
	}
	u.minFree = prof.MinFree(t, duration, u.minFree)
	return u.place(req, u.minFree[u.dims:], placement)
}
