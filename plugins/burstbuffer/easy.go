package burstbuffer

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// EASYProcs is the plugin of bb-easy-procs (the paper's fcfs-easy).
func EASYProcs() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{Name: "bb-easy-procs", Version: "1.1.1", Params: params(),
			Description: "EASY backfilling whose reservation counts processors only (fcfs-easy): burst buffers go to whoever fits first; on pools and on nodes"},
		New: func() sdk.Policy { return &easy{name: "bb-easy-procs", procsOnly: true} },
	}
}

// EASY is the plugin of bb-easy (the paper's fcfs-bb).
func EASY() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{Name: "bb-easy", Version: "1.1.1", Params: params(),
			Description: "EASY backfilling reserving processors and burst buffer for the first job that does not fit (fcfs-bb); on pools and on nodes"},
		New: func() sdk.Policy { return &easy{name: "bb-easy"} },
	}
}

// EASYSJF is the plugin of bb-easy-sjf (the paper's sjf-bb).
func EASYSJF() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{Name: "bb-easy-sjf", Version: "1.1.1", Params: params(),
			Description: "bb-easy with backfilling candidates by increasing requested walltime (sjf-bb); on pools and on nodes"},
		New: func() sdk.Policy { return &easy{name: "bb-easy-sjf", sjf: true} },
	}
}

// easy is EASY backfilling on the profile: jobs start in submit order while
// they fit; the first that does not (the head) is reserved at the earliest
// time it fits; later jobs start now when they fit in the profile for their
// whole walltime, which the head's reservation is part of, so none delays
// it. This is the classic rule (end by the shadow time or use only the
// extra capacity), stated on the profile so that it covers burst-buffer
// pieces on units as well as processors. On nodes the head is reserved
// no earlier than its shadow time on the nodes (Room.Shadow), and the
// reservation counts totals. On a pool a call goes on from the previous
// call's profile (goOn) instead of rebuilding it from the state, the
// largest part of bb-easy's call in BenchmarkIO's profile.
type easy struct {
	base
	name      string
	procsOnly bool // reserve the head's processors only (fcfs-easy)
	sjf       bool // backfill by increasing walltime (sjf-bb)
	cand      []*sdk.Job
	procs     sdk.Vector
	// last is what a call leaves the next when it started nothing, on a
	// pool: the head, its reservation (in prof, kept), and the queue's
	// length and last job then. fresh turns that reuse off (tests);
	// reused counts the calls it served.
	last struct {
		valid  bool
		head   *sdk.Job
		at     int64
		queued int
		tail   *sdk.Job
	}
	fresh  bool
	reused int
	// carry is what a call leaves the next on a pool to go on from its
	// profile (goesOn): the head's reservation in it, to take back; placed
	// holds the placements of the jobs running, by index, to give back
	// what each holds from the moment it ends early. carried counts the
	// calls that went on; check makes each of them compare its profile
	// with the one rebuilt from the state (tests).
	carry struct {
		valid    bool
		reserved bool
		at, wt   int64
		amt      sdk.Vector
	}
	placed  map[int][]int32
	spare   [][]int32 // placements of jobs that ended, to reuse
	carried int
	check   bool
}

func (p *easy) Init(env sdk.Env) error {
	if err := p.init(p.name, env); err != nil {
		return err
	}
	p.procs = make(sdk.Vector, p.units.Dims())
	p.placed = map[int][]int32{}
	return nil
}

func (p *easy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if p.keeps(s) {
		return p.scheduleNew(s), nil
	}
	p.last.valid = false
	if err := p.open(s); err != nil {
		return nil, err
	}
	q := s.Queue
	i := 0
	for i < len(q) && p.tryStart(s, q[i]) {
		i++
	}
	if i == len(q) {
		p.close(nil, 0, nil)
		p.noteStarts()
		return p.out, nil
	}
	head := q[i]
	// On a pool the engine checked when loading that the head fits the
	// empty cluster, so a time exists; on nodes, the head may fit no
	// node until some come back into service (at < 0): it then gets no
	// reservation, and every job that fits starts.
	at := p.reserveFrom(s, head)
	var held sdk.Vector // the head's reservation, when it has one
	switch {
	case at < 0:
	case p.procsOnly:
		p.procs[0] = head.Procs()
		at = p.prof.EarliestFitFrom(at, p.procs, head.Walltime)
		if p.prof.Reserve(at, head.Walltime, p.procs) == nil {
			held = p.procs
		}
	default:
		pl := p.placement()
		at = p.units.EarliestFit(&p.prof, at, head.Request, head.Walltime, pl)
		if amt := p.units.Amount(head.Request, pl); p.prof.Reserve(at, head.Walltime, amt) == nil {
			held = amt
		}
	}
	if at >= 0 {
		p.out = append(p.out, sdk.Promise(head, at))
	}
	p.close(held, at, head)
	for _, j := range p.candidates(q[i+1:]) {
		p.tryStart(s, j)
	}
	p.noteStarts()
	p.leave(s, head, at)
	return p.out, nil
}

// open starts a call: on a pool, going on from the previous call's
// profile where goesOn allows it, or else rebuilding it (base.begin).
func (p *easy) open(s *sdk.State) error {
	if !p.goesOn(s) {
		p.begin(s)
		p.forget(s)
		return nil
	}
	p.carried++
	p.out = p.out[:0]
	p.placements = p.placements[:0]
	p.goOn(s)
	p.forget(s)
	if p.check {
		var fresh plan.Profile
		p.units.ResetFromState(&fresh, s, 0)
		if got, want := p.prof.String(), fresh.String(); got != want {
			return fmt.Errorf("%s at %d: the profile gone on from the previous call is %s; rebuilt from the state, %s", p.name, s.Now, got, want)
		}
	}
	return nil
}

// goesOn reports whether this call may go on from the previous call's
// profile: on a pool, where the policy alone starts jobs and every start
// it decides is made (a start the engine refuses ends the run), what
// changes the free amounts between two calls is jobs ending, early or
// at their expected ends. Outages, a power model and refused
// reservations make the call rebuild it.
func (p *easy) goesOn(s *sdk.State) bool {
	return p.carry.valid && !p.fresh && p.room == nil && len(s.Outages) == 0 && s.Power == nil && len(s.Refused) == 0
}

// goOn makes the previous call's profile the one rebuilding it from s
// would give: without the head's reservation, from now on, and with what
// each job that ended holds given back from now to its expected end
// (the profile gave it back then). The profile keeps its smallest form,
// as a rebuilt one has, so the two are the same step for step.
func (p *easy) goOn(s *sdk.State) {
	c := &p.carry
	if c.reserved {
		p.prof.Unreserve(c.at, c.wt, c.amt)
	}
	p.prof.Advance(s.Now)
	for _, d := range s.Completed {
		if end := d.Start + d.Job.Walltime; end > s.Now {
			p.prof.Unreserve(s.Now, end-s.Now, p.units.Amount(d.Job.Request, p.placed[d.Job.Index]))
		}
	}
}

// forget drops the placements of the jobs that ended. Only a pool keeps
// them (goesOn).
func (p *easy) forget(s *sdk.State) {
	if p.room != nil {
		return
	}
	for _, d := range s.Completed {
		if pl, ok := p.placed[d.Job.Index]; ok {
			p.spare = append(p.spare, pl)
			delete(p.placed, d.Job.Index)
		}
	}
}

// close notes that this call's profile is there to go on from (goesOn
// says whether the next call may), once the head's reservation, of held
// at at (nil for none), is in it.
func (p *easy) close(held sdk.Vector, at int64, head *sdk.Job) {
	c := &p.carry
	c.valid, c.reserved = true, held != nil
	if c.reserved {
		c.at, c.wt, c.amt = at, head.Walltime, append(c.amt[:0], held...)
	}
}

// noteStarts keeps the placements of the jobs this call started, on a
// pool (goesOn): on nodes they would never be read.
func (p *easy) noteStarts() {
	if p.room != nil {
		return
	}
	for _, d := range p.out {
		if d.Action != sdk.ActionStart || d.Units == nil {
			continue
		}
		var pl []int32
		if n := len(p.spare); n > 0 {
			pl, p.spare = p.spare[n-1], p.spare[:n-1]
		}
		p.placed[d.Job.Index] = append(pl[:0], d.Units...)
	}
}

// candidates returns the jobs after the head in the order they are tried.
func (p *easy) candidates(cand []*sdk.Job) []*sdk.Job {
	if !p.sjf {
		return cand
	}
	p.cand = append(p.cand[:0], cand...)
	slices.SortFunc(p.cand, func(a, b *sdk.Job) int {
		if c := cmp.Compare(a.Walltime, b.Walltime); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	return p.cand
}

// leave notes what the next call may reuse: a call that started nothing
// on a pool, with a reservation for its head at at.
func (p *easy) leave(s *sdk.State, head *sdk.Job, at int64) {
	q := s.Queue
	p.last.valid = !p.fresh && p.room == nil && at >= 0 && len(p.out) == 1
	p.last.head, p.last.at, p.last.queued, p.last.tail = head, at, len(q), q[len(q)-1]
}

// keeps reports whether this call may go on from the previous one: that
// call started nothing, and since then no job has ended, no outage or
// power change has come, and jobs have only joined the end of the queue.
// What is free then is what it was over the interval that call read: no
// running job had an expected end before now (it would have ended), and
// the head's reservation begins no earlier than now (it would have fit).
// Every job that call tried fails again, its walltime reaching no time
// with more room; the profile, with the head's reservation, stands.
// Rebuilding the profile at every submission was most of bb-easy's time
// with the I/O model, whose phases add calls (BenchmarkIO).
func (p *easy) keeps(s *sdk.State) bool {
	l := &p.last
	q := s.Queue
	return l.valid && len(s.Completed) == 0 && len(s.Outages) == 0 && s.Power == nil && len(s.Refused) == 0 &&
		len(q) >= l.queued && q[0] == l.head && q[l.queued-1] == l.tail && s.Now < l.at
}

// scheduleNew is a call that keeps: the head's promise again, and the
// jobs new in the queue tried in their order.
func (p *easy) scheduleNew(s *sdk.State) []sdk.Decision {
	p.reused++
	p.out = p.out[:0]
	p.placements = p.placements[:0]
	p.out = append(p.out, sdk.Promise(p.last.head, p.last.at))
	for _, j := range p.candidates(s.Queue[p.last.queued:]) {
		p.tryStart(s, j)
	}
	p.noteStarts()
	p.leave(s, p.last.head, p.last.at)
	return p.out
}
