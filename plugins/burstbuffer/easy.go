package burstbuffer

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/sdk"
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
// reservation counts totals.
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
}

func (p *easy) Init(env sdk.Env) error {
	if err := p.init(p.name, env); err != nil {
		return err
	}
	p.procs = make(sdk.Vector, p.units.Dims())
	return nil
}

func (p *easy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if p.keeps(s) {
		return p.scheduleNew(s), nil
	}
	p.last.valid = false
	p.begin(s)
	q := s.Queue
	i := 0
	for i < len(q) && p.tryStart(s, q[i]) {
		i++
	}
	if i == len(q) {
		return p.out, nil
	}
	head := q[i]
	// On a pool the engine checked when loading that the head fits the
	// empty cluster, so a time exists; on nodes, the head may fit no
	// node until some come back into service (at < 0): it then gets no
	// reservation, and every job that fits starts.
	at := p.reserveFrom(s, head)
	switch {
	case at < 0:
	case p.procsOnly:
		p.procs[0] = head.Procs()
		at = p.prof.EarliestFitFrom(at, p.procs, head.Walltime)
		_ = p.prof.Reserve(at, head.Walltime, p.procs)
	default:
		pl := p.placement()
		at = p.units.EarliestFit(&p.prof, at, head.Request, head.Walltime, pl)
		_ = p.prof.Reserve(at, head.Walltime, p.units.Amount(head.Request, pl))
	}
	if at >= 0 {
		p.out = append(p.out, sdk.Promise(head, at))
	}
	for _, j := range p.candidates(q[i+1:]) {
		p.tryStart(s, j)
	}
	p.leave(s, head, at)
	return p.out, nil
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
	p.leave(s, p.last.head, p.last.at)
	return p.out
}
