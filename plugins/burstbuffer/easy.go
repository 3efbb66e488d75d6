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
}

func (p *easy) Init(env sdk.Env) error {
	if err := p.init(p.name, env); err != nil {
		return err
	}
	p.procs = make(sdk.Vector, p.units.Dims())
	return nil
}

func (p *easy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
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
	cand := q[i+1:]
	if p.sjf {
		p.cand = append(p.cand[:0], cand...)
		slices.SortFunc(p.cand, func(a, b *sdk.Job) int {
			if c := cmp.Compare(a.Walltime, b.Walltime); c != 0 {
				return c
			}
			return cmp.Compare(a.Index, b.Index)
		})
		cand = p.cand
	}
	for _, j := range cand {
		p.tryStart(s, j)
	}
	return p.out, nil
}
