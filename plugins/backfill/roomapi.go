package backfill

import (
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// Room is what the reference policies know to be free during one Schedule
// call, for policies of other packages that start jobs one after the other
// as these do (probfill, groupsel, the bb-* policies): the free totals and,
// on a platform of nodes, what each node has free, the nodes out of
// service, the maintenance windows ahead and the power cap. A job it
// starts goes where the engine places it, or on the allocation it found
// when windows are ahead.
type Room struct {
	r room
	// started holds, on nodes, the jobs Start started in this call,
	// running to their walltimes from now (Shadow).
	started []sdk.Running
	now     int64
}

// WindowsParam is the windows parameter of the reference policies: what a
// policy does with the maintenance windows ahead (WindowsAvoid or
// WindowsIgnore).
func WindowsParam() sdk.Param { return windowsParam() }

// NewRoom returns the room of a run in env, whose windows parameter (if
// the policy declares it) says what to do with maintenance windows.
func NewRoom(env sdk.Env) *Room {
	r := &Room{r: newRoom(env.Platform)}
	r.r.setPower(env.Power, env.Platform)
	r.r.ignoreWindows = env.Params.String("windows") == WindowsIgnore
	return r
}

// Supported returns an error naming policy name when env's platform is
// one no Room schedules: several clusters, or resources divided into units.
func Supported(name string, p *sdk.Platform) error { return supported(name, p) }

// Reset makes the room what s shows, at the start of a call.
func (r *Room) Reset(s *sdk.State) {
	r.r.reset(s)
	clear(r.started) // hold no job of the last call
	r.started, r.now = r.started[:0], s.Now
}

// Start reports whether j fits what is free now and, when it does, takes
// what it holds and returns the decision that starts it.
func (r *Room) Start(j *sdk.Job) (sdk.Decision, bool) {
	if !r.r.fits(j) {
		return sdk.Decision{}, false
	}
	d := r.r.start(j)
	r.r.take(j, r.r.alloc)
	if r.r.nodes != nil {
		a := r.r.alloc
		r.started = append(r.started, sdk.Running{Job: j, Start: r.now, ExpectedEnd: r.now + j.Walltime,
			Alloc: &sdk.Alloc{Nodes: slices.Clone(a.Nodes), Tasks: slices.Clone(a.Tasks)}})
	}
	return d, true
}

// Shadow returns, on a platform of nodes, head's shadow time: the earliest
// time the cluster's placement rule places it once the running jobs of s,
// and those Start started in this call, reach their walltimes, with what
// is free then beyond what it would hold, in totals (sdk/plan's Shadow on
// the nodes as the starts leave them). ok is false without nodes, or when
// head would not fit even then. Nodes out of service are not looked at: a
// job ending on one counts as giving back what it holds.
func (r *Room) Shadow(s *sdk.State, head *sdk.Job) (at int64, extra sdk.Vector, ok bool) {
	if r.r.nodes == nil {
		return 0, nil, false
	}
	now := *s
	now.Nodes = []*sdk.Nodes{&r.r.nodes.Nodes}
	now.Free = []sdk.Vector{r.r.free}
	now.Running = append(slices.Clip(s.Running), r.started...)
	at, _, extra, ok = plan.Shadow(&now, 0, head)
	return at, extra, ok
}

// Fits reports whether j fits what is free now, without taking it.
func (r *Room) Fits(j *sdk.Job) bool { return r.r.fits(j) }

// Alloc returns where the last job Start started (or Fits placed) lies on
// the nodes: the room's own, valid until the next Start or Fits; empty on
// a platform without nodes.
func (r *Room) Alloc() sdk.Alloc { return r.r.alloc }

// Free returns the free totals after the starts of the call so far; the
// vector is the room's and must not be changed.
func (r *Room) Free() sdk.Vector { return r.r.free }

// Nodes returns what each node has free after the starts of the call so
// far (the room's own; not to be changed), or nil on a platform without
// nodes.
func (r *Room) Nodes() *sdk.Nodes {
	if r.r.nodes == nil {
		return nil
	}
	return &r.r.nodes.Nodes
}
