// Package burstbuffer holds the policies of Kopański and Rządca, "Plan-based
// job scheduling for supercomputers with shared burst buffers" (Euro-Par
// 2021): queue policies and EASY backfilling that account for a shared burst
// buffer, and plan-based scheduling by simulated annealing.
//
// Every policy here handles divided resources (sdk.Units): a job starts only
// where its pieces fit whole on units, and the policies choose the placement
// themselves (sdk.StartPlaced) from an availability profile that keeps each
// unit's free amount (plan.Units), so that what they plan is what the engine
// does. On a platform without divided resources they are the plain policies
// of the same names. They schedule one cluster.
//
// On a platform of nodes (a cluster of nodes beside a burst buffer divided
// into units), a job starts only where the cluster's placement rule also
// places it on the nodes now (beside nodes out of service, maintenance
// windows ahead and a power cap, as fcfs and easy place jobs), and what
// they plan ahead (reservations, plans) is counted in totals over the
// nodes, as easy's count reading counts the head's reservation, and
// exactly on the units.
//
// The policies, under their reference names (the paper's names in brackets):
//
//   - bb-fcfs [fcfs]: start jobs in submit order while the first fits.
//   - bb-filler [filler]: start every job that fits, in submit order; no
//     reservation.
//   - bb-easy-procs [fcfs-easy]: EASY backfilling whose reservation for the
//     first job that does not fit counts processors only, as Slurm's backfill
//     loop does; the burst buffer is taken by whoever fits first, which can
//     starve a job that needs much of it.
//   - bb-easy [fcfs-bb]: EASY backfilling reserving processors and burst
//     buffer together for the first job that does not fit (Algorithm 1 of
//     the paper).
//   - bb-easy-sjf [sjf-bb]: bb-easy with backfilling candidates taken by
//     increasing requested walltime.
//   - bb-plan [plan-alpha]: plan-based scheduling (Algorithm 2), with the
//     exponent alpha and the search as parameters.
package burstbuffer

import (
	"fmt"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// Plugins returns every policy of the package.
func Plugins() []sdk.Plugin {
	return []sdk.Plugin{FCFS(), Filler(), EASYProcs(), EASY(), EASYSJF(), Plan()}
}

// base is what every policy here shares: the unit layout of the cluster, a
// profile rebuilt at every call, and the decisions of the call.
type base struct {
	units *plan.Units
	prof  plan.Profile
	out   []sdk.Decision
	// placements holds this call's placements; decisions point into it.
	placements []int32
	// room places jobs on the nodes now, on a platform of nodes (nil
	// without nodes); beyond is scratch of heldBeyond (its entries past
	// the platform's resources, the units', stay 0).
	room   *backfill.Room
	beyond sdk.Vector
}

func (b *base) init(name string, env sdk.Env) error {
	if len(env.Platform.Clusters) != 1 {
		return fmt.Errorf("%s schedules one cluster; platform %q has %d", name, env.Platform.Name, len(env.Platform.Clusters))
	}
	b.units = plan.NewUnits(env.Platform, 0)
	if env.Platform.HasNodes() {
		b.room = backfill.NewRoom(env)
		b.beyond = make(sdk.Vector, b.units.Dims())
	}
	return nil
}

// params are the parameters of a policy here: its own, then the windows
// parameter, which says what to do with maintenance windows ahead on
// nodes.
func params(own ...sdk.Param) []sdk.Param {
	return append(own, backfill.WindowsParam())
}

// begin starts a call: the profile of the cluster now, with the running
// jobs' resources and pieces given back at their expected ends.
func (b *base) begin(s *sdk.State) {
	b.out = b.out[:0]
	b.placements = b.placements[:0]
	b.units.ResetFromState(&b.prof, s, 0)
	if b.room != nil {
		b.room.Reset(s)
		b.heldBeyond(s)
	}
}

// heldBeyond gives back in the profile, at each running job's expected
// end, what a job held whole holds beyond its request (on nodes larger
// than the least of its partition, by which its request counts them):
// without it the profile would never come back to what the cluster has.
func (b *base) heldBeyond(s *sdk.State) {
	for i := range s.Running {
		r := &s.Running[i]
		if b.room.HeldBeyond(r, b.beyond) {
			b.prof.Release(r.ExpectedEnd, b.beyond)
		}
	}
}

// reserveFrom returns the earliest time the head's reservation may begin:
// now on a pool; on nodes, the head's shadow time there (Room.Shadow),
// which the profile's totals do not see, or -1 when the head would not
// fit the nodes even once every running job has ended (nodes out of
// service): it then gets no reservation.
func (b *base) reserveFrom(s *sdk.State, head *sdk.Job) int64 {
	if b.room == nil {
		return s.Now
	}
	at, _ := b.room.Shadow(s, head)
	return at
}

// placement returns room for one placement in this call's arena.
func (b *base) placement() []int32 {
	n := b.units.Count()
	if n == 0 {
		return nil
	}
	b.placements = append(b.placements, make([]int32, n)...)
	return b.placements[len(b.placements)-n:]
}

// tryStart starts j now if it fits in the profile for its whole walltime,
// reserving it there, and reports whether it did.
func (b *base) tryStart(s *sdk.State, j *sdk.Job) bool {
	pl := b.placement()
	if b.units.FitsAt(&b.prof, s.Now, j.Request, j.Walltime, pl) {
		started, err := b.startHeld(s.Now, j, pl)
		if err != nil {
			// The fit was checked on this very profile.
			panic(fmt.Sprintf("burstbuffer: job id %d fitted but cannot be reserved: %v", j.ID, err))
		}
		if started {
			return true
		}
	}
	b.placements = b.placements[:len(b.placements)-len(pl)]
	return false
}

// startHeld starts j now with pieces placed by pl, which fit the profile
// for its request, and reserves there what it holds (held); it reports
// false, deciding and reserving nothing, when the room does not place j
// or the profile lacks what it holds beyond its request.
func (b *base) startHeld(now int64, j *sdk.Job, pl []int32) (bool, error) {
	amt, beyond, ok := b.held(j, pl)
	if !ok || beyond && !b.prof.Fits(now, j.Walltime, amt) || !b.startNow(j, pl) {
		return false, nil
	}
	return true, b.prof.Reserve(now, j.Walltime, amt)
}

// held returns what j, started now with pieces placed by pl, holds in the
// profile: its request and pieces and, on nodes, when the room places it
// on nodes held whole that are larger than its request counts (the least
// of its partition), the rest of those nodes too (beyond is then true).
// Counting the request alone would leave the jobs after j in the call
// room that is not there, and let them delay a reservation. It reports
// false when the room does not place j now. The vector is the units'
// scratch, valid until their next use.
func (b *base) held(j *sdk.Job, pl []int32) (amt sdk.Vector, beyond, ok bool) {
	if b.room == nil || j.Tasks == nil || !j.Tasks.Exclusive {
		return b.units.Amount(j.Request, pl), false, true
	}
	if !b.room.Fits(j) {
		return nil, false, false
	}
	alloc := b.room.Alloc()
	beyond = b.room.HeldBeyond(&sdk.Running{Job: j, Alloc: &alloc}, b.beyond)
	amt = b.units.Amount(j.Request, pl)
	if beyond {
		amt.Add(b.beyond)
	}
	return amt, beyond, true
}

// startNow adds the decision that starts j now with pieces placed by pl
// and, on nodes, where the room places it, taking it from the room. It
// reports false, deciding nothing, when the room does not place j.
func (b *base) startNow(j *sdk.Job, pl []int32) bool {
	if b.room == nil {
		b.out = append(b.out, sdk.StartPlaced(j, 0, pl))
		return true
	}
	d, ok := b.room.Start(j)
	if !ok {
		return false
	}
	d.Units = pl
	b.out = append(b.out, d)
	return true
}

// FCFS is the plugin of bb-fcfs.
func FCFS() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{Name: "bb-fcfs", Version: "1.1.0", Params: params(),
			Description: "FCFS with burst buffers: jobs start in submit order while the first one's processors and burst-buffer pieces fit; on pools and on nodes"},
		New: func() sdk.Policy { return &fcfs{} },
	}
}

type fcfs struct{ base }

func (p *fcfs) Init(env sdk.Env) error { return p.init("bb-fcfs", env) }

func (p *fcfs) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.begin(s)
	for _, j := range s.Queue {
		if !p.tryStart(s, j) {
			break
		}
	}
	return p.out, nil
}

// Filler is the plugin of bb-filler.
func Filler() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{Name: "bb-filler", Version: "1.1.0", Params: params(),
			Description: "filler: every job that fits now starts, in submit order, with no reservation; on pools and on nodes"},
		New: func() sdk.Policy { return &filler{} },
	}
}

type filler struct{ base }

func (p *filler) Init(env sdk.Env) error { return p.init("bb-filler", env) }

func (p *filler) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.begin(s)
	for _, j := range s.Queue {
		p.tryStart(s, j)
	}
	return p.out, nil
}
