package backfill

import (
	"fmt"

	"github.com/schedlab/schedlab/sdk"
)

// Picker is EASY's machinery for an agent that picks which waiting job
// starts next, as the Gymnasium environment's agent does: a picked job
// that fits starts now; one that does not gets EASY's reservation, and
// the waiting jobs that do not delay it start meanwhile (Backfill). Its
// fits, placements and shadow times are easy's, on a pool or on nodes
// under either reading of the reservation, nodes out of service (and
// their known returns to service) and a power cap included; maintenance
// windows ahead are not planned around (the agent does not, and its runs
// take the soft maintenance rule).
type Picker struct {
	e   easy
	now int64
}

// NewPicker returns the picker of a run in env, backfilling under the
// reading reservation (ReservationCount or ReservationBatsched).
func NewPicker(env sdk.Env, reservation string) (*Picker, error) {
	p := &Picker{}
	e := &p.e
	if reservation != ReservationCount && reservation != ReservationBatsched {
		return nil, fmt.Errorf("reservation %q is not %s or %s", reservation, ReservationCount, ReservationBatsched)
	}
	e.orderer = makeOrderer(OrderSubmit)
	e.room = newRoom(env.Platform)
	e.room.setPower(env.Power, env.Platform)
	e.room.ignoreWindows = true
	e.dims = env.Platform.Dims()
	e.batsched = reservation == ReservationBatsched
	if e.batsched && !env.Platform.HasNodes() {
		return nil, fmt.Errorf("reservation = %s holds nodes; platform %q has none (use %s)", ReservationBatsched, env.Platform.Name, ReservationCount)
	}
	// Nothing is kept from one call to the next: a picker's shadows are
	// of any job the agent picks, and a cursor kept across calls would
	// need the jobs that ended given back (cursorSync), which a picker
	// does not do.
	e.fresh = true
	return p, supported("the environment's agent", env.Platform)
}

// Begin makes the picker what s shows, at the start of a call.
func (p *Picker) Begin(s *sdk.State) {
	p.e.begin(s)
	p.now = s.Now
}

// Fits reports whether j fits what is free now (on nodes, where the
// cluster's placement rule places it).
func (p *Picker) Fits(j *sdk.Job) bool { return p.e.room.fits(j) }

// Start starts j, which the last call of Fits (of j) said fits: it goes
// where Fits placed it.
func (p *Picker) Start(j *sdk.Job) { p.e.start(p.now, j, nil) }

// Backfill gives head, which does not fit now, EASY's reservation and
// starts the jobs of waiting (in their order; head among them or not;
// none started in this call) that fit now and do not delay it. When head would not fit even once
// every running job has ended (nodes out of service hold what it needs),
// it gets no reservation and every job that fits starts, as easy does.
func (p *Picker) Backfill(s *sdk.State, head *sdk.Job, waiting []*sdk.Job) {
	e := &p.e
	shadow := e.shadow(s, head)
	for _, j := range waiting {
		switch {
		case j == head:
		case shadow < 0:
			if j.Request.Fits(e.room.free) && e.room.fits(j) {
				e.start(s.Now, j, nil)
			}
		default:
			e.backfill(s, j, shadow)
		}
	}
}

// Decisions returns the starts of the call so far, in order (the
// picker's own slice, valid until the next Begin).
func (p *Picker) Decisions() []sdk.Decision { return p.e.out }

// Started reports how many jobs started in the call so far.
func (p *Picker) Started() int { return len(p.e.now) }

// Free returns the free totals after the starts of the call so far (the
// picker's own; not to be changed).
func (p *Picker) Free() sdk.Vector { return p.e.room.free }

// Nodes returns what each node has free after the starts of the call so
// far (the picker's own; not to be changed), or nil on a pool.
func (p *Picker) Nodes() *sdk.Nodes {
	if p.e.room.nodes == nil {
		return nil
	}
	return &p.e.room.nodes.Nodes
}
