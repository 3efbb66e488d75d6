package backfill

import (
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// Room is what the reference policies know to be free during one Schedule
// call, for policies of other packages that start jobs one after the other
// as these do (probfill, groupsel, the bb-* policies): the free totals and,
// on a platform of nodes, what each node has free, the nodes out of
// service, the maintenance windows ahead and the power cap. A job it
// starts goes where the engine places it, or on the allocation it found
// when windows are ahead. It looks at resources divided into units in
// totals only and places no piece on them: a policy that needs them
// placed (the bb-* policies) places the pieces itself.
//
// It is easy's own: its starts and its shadow times are EASY's, windows,
// outages and power cap included.
type Room struct {
	e   easy
	now int64
}

// WindowsParam is the windows parameter of the reference policies: what a
// policy does with the maintenance windows ahead (WindowsAvoid or
// WindowsIgnore).
func WindowsParam() sdk.Param { return windowsParam() }

// NewRoom returns the room of a run in env. The policy must declare
// WindowsParam, which says what to do with maintenance windows.
func NewRoom(env sdk.Env) *Room {
	r := &Room{}
	e := &r.e
	e.orderer = makeOrderer(OrderSubmit)
	e.room = newRoom(env.Platform)
	e.room.setPower(env.Power, env.Platform)
	e.room.ignoreWindows = env.Params.String("windows") == WindowsIgnore
	e.dims = env.Platform.Dims()
	// A room's shadows are asked of any job at any time: none is kept
	// from one call to the next.
	e.fresh = true
	return r
}

// Supported returns an error naming policy name when platform p is one a
// Room does not schedule alone: several clusters, or resources divided
// into units, whose pieces it does not place.
func Supported(name string, p *sdk.Platform) error { return supported(name, p) }

// Reset makes the room what s shows, at the start of a call.
func (r *Room) Reset(s *sdk.State) {
	r.e.begin(s)
	r.now = s.Now
}

// Start reports whether j fits what is free now and, when it does, takes
// what it holds and returns the decision that starts it.
func (r *Room) Start(j *sdk.Job) (sdk.Decision, bool) {
	if !r.e.room.fits(j) {
		return sdk.Decision{}, false
	}
	r.e.start(r.now, j, nil)
	return r.e.out[len(r.e.out)-1], true
}

// StartInOrder starts the jobs of q in order while they fit, appending
// their decisions to out; it returns out and how many started.
func (r *Room) StartInOrder(q []*sdk.Job, out []sdk.Decision) ([]sdk.Decision, int) {
	for i, j := range q {
		d, ok := r.Start(j)
		if !ok {
			return out, i
		}
		out = append(out, d)
	}
	return out, len(q)
}

// HeldBeyond writes into dst[:dims] what running job run holds beyond its
// request on the nodes (a job held whole on nodes larger than the least
// of its partition, by which its request counts them), and reports
// whether it holds anything beyond.
func (r *Room) HeldBeyond(run *sdk.Running, dst sdk.Vector) bool {
	if r.e.room.nodes == nil || run.Alloc == nil || !run.Job.Tasks.Exclusive {
		return false // a shared job holds what it asks for
	}
	held := r.e.room.heldBy(run.Job, *run.Alloc)
	some := false
	for k, x := range run.Job.Request {
		dst[k] = held[k] - x
		some = some || dst[k] != 0
	}
	return some
}

// Fits reports whether j fits what is free now, without taking it.
func (r *Room) Fits(j *sdk.Job) bool { return r.e.room.fits(j) }

// Alloc returns where the last job Start started (or Fits placed) lies on
// the nodes: the room's own, valid until the next Start or Fits; empty on
// a platform without nodes.
func (r *Room) Alloc() sdk.Alloc { return r.e.room.alloc }

// Free returns the free totals after the starts of the call so far; the
// vector is the room's and must not be changed.
func (r *Room) Free() sdk.Vector { return r.e.room.free }

// Nodes returns what each node has free after the starts of the call so
// far (the room's own; not to be changed), or nil on a platform without
// nodes.
func (r *Room) Nodes() *sdk.Nodes {
	if r.e.room.nodes == nil {
		return nil
	}
	return &r.e.room.nodes.Nodes
}

// Shadow returns head's shadow time as easy computes it: the earliest time
// head fits (on nodes, where the cluster's placement rule places it, out
// of the maintenance windows ahead and of nodes out of service, under the
// power cap) once the running jobs of s and those Start started in this
// call reach their walltimes, with what is free then beyond what it would
// hold, in totals (on nodes, in the totals of its partition's nodes, as
// easy's count reading counts them). It returns -1 and nil when head
// would not fit even then (nodes out of service hold what it needs).
func (r *Room) Shadow(s *sdk.State, head *sdk.Job) (int64, sdk.Vector) {
	e := &r.e
	at := e.shadow(s, head)
	if at < 0 {
		return -1, nil
	}
	extra := slices.Clone(e.extra)
	if e.room.nodes != nil {
		e.room.setHeld(extra, e.extraNodes)
	}
	return at, extra
}
