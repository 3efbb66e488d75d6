package backfill

import "github.com/schedlab/schedlab/sdk"

// Room is what the reference policies know to be free during one Schedule
// call, for policies of other packages that start jobs one after the other
// as these do (probfill): the free totals and, on a platform of nodes, what
// each node has free, the nodes out of service, the maintenance windows
// ahead and the power cap. A job it starts goes where the engine places
// it, or on the allocation it found when windows are ahead.
type Room struct{ r room }

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
func (r *Room) Reset(s *sdk.State) { r.r.reset(s) }

// Start reports whether j fits what is free now and, when it does, takes
// what it holds and returns the decision that starts it.
func (r *Room) Start(j *sdk.Job) (sdk.Decision, bool) {
	if !r.r.fits(j) {
		return sdk.Decision{}, false
	}
	d := r.r.start(j)
	r.r.take(j, r.r.alloc)
	return d, true
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
