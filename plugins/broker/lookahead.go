package broker

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/grid"
)

// Lookahead is the plugin of the paper's method (section 6). Every period
// seconds a scheduling cycle takes the global queue and every cluster's
// forecast (its local plan, sdk/grid's Plan), prices the forecasts
// (PR = C * P(t) * F(R) per processor-second) and builds, in order of
// payment, each global job's allocation: the earliest start on one
// cluster, no earlier than the job can arrive, whose processors cost at
// most its payment; an allocation leaves its processors to no other job of
// the cycle. An allocation the ship rule calls near is reserved and the
// job shipped and charged the allocation's cost; the others are built
// again at the next cycle. A job whose payment cannot buy its processors
// even on an idle cluster is rejected.
func Lookahead() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "grid-lookahead",
			Version:     "0.1.0",
			Description: "lookahead scheduling of a grid's global stream by priced forecasts and advance reservations (Kovalenko et al. 2006)",
			Params: []sdk.Param{
				{Name: "c", Type: sdk.Float, Default: "1", Doc: "the administrator's price coefficient C of every cluster"},
				{Name: "idle_price", Type: sdk.Float, Default: "0", Doc: "the P(t) of a processor the forecast leaves idle (the paper: free)"},
				{Name: "period", Type: sdk.Int, Default: "60", Doc: "seconds between two scheduling cycles"},
				{Name: "ship", Type: sdk.String, Default: string(grid.ShipPaper), Choices: grid.ShipRules(),
					Doc: "when to reserve and ship: paper (the preceding local job started, or the start is within the transfer time and one period), paper-and (both), transfer (the latter alone), immediate (at the first allocation)"},
				{Name: "order", Type: sdk.String, Default: "payment", Choices: []string{"payment", "rate"},
					Doc: "order of the global queue: payment, or payment per processor-second of walltime (rate); ties by submission"},
			},
		},
		New: func() sdk.Policy { return &lookahead{} },
	}
}

type lookahead struct {
	base
	prices    grid.Prices
	period    int64
	ship      grid.ShipRule
	rate      bool
	next      int64
	wake      int64
	started   bool
	forecasts [][]grid.Slot
}

func (p *lookahead) Init(env sdk.Env) error {
	if err := p.init("grid-lookahead", env); err != nil {
		return err
	}
	c := env.Params.Float("c")
	p.prices = grid.Prices{C: make([]float64, len(env.Platform.Clusters)), Idle: env.Params.Float("idle_price")}
	for i := range p.prices.C {
		p.prices.C[i] = c
	}
	p.period = env.Params.Int("period")
	if p.period < 1 {
		return fmt.Errorf("grid-lookahead: period must be at least 1 s, got %d", p.period)
	}
	if c < 0 || p.prices.Idle < 0 {
		return fmt.Errorf("grid-lookahead: c (%v) and idle_price (%v) must not be negative", c, p.prices.Idle)
	}
	p.ship = grid.ShipRule(env.Params.String("ship"))
	p.rate = env.Params.String("order") == "rate"
	p.forecasts = make([][]grid.Slot, len(env.Platform.Clusters))
	return nil
}

func (p *lookahead) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if err := p.begin(s, 0); err != nil {
		return nil, err
	}
	if !p.started || s.Now >= p.next {
		p.started = true
		p.next = nextCycle(s.Now, p.period)
		if err := p.cycle(s); err != nil {
			return nil, err
		}
	}
	p.runLocal(s, nil)
	if p.wake > s.Now && p.wake != math.MaxInt64 {
		p.out = append(p.out, sdk.WakeAt(p.wake))
	}
	return p.out, nil
}

// cycle is one scheduling cycle. It leaves in p.global the jobs still
// waiting for the next.
func (p *lookahead) cycle(s *sdk.State) error {
	for c := range p.forecasts {
		q := append([]grid.Entry(nil), p.local[c]...)
		p.forecasts[c] = grid.Plan(p.book.Profile(s, c, nil), q, p.forecasts[c][:0])
	}
	m, err := grid.NewMarket(s, &p.book, p.forecasts, p.prices)
	if err != nil {
		return err
	}
	byPayment(p.global, p.rate)
	waiting := p.global[:0]
	// Without a job ending or arriving, which calls the policy anyway,
	// nothing changes from cycle to cycle but how near each allocation
	// is: the policy wakes at the first cycle at which one becomes near.
	p.wake = math.MaxInt64
	for _, j := range p.global {
		if floor, ok := grid.Floor(p.plat, p.prices, j); !ok || j.Priority < floor {
			p.out = append(p.out, sdk.Reject(j))
			continue
		}
		a, ok := m.Search(j, s.Now+j.Transfer, j.Priority)
		if !ok {
			waiting = append(waiting, j)
			continue
		}
		m.Take(a, j.Request[0])
		lead := grid.Lead{Now: s.Now, Start: a.Start, Transfer: j.Transfer, Period: p.period,
			Preceded: grid.PrecededAll(p.forecasts[a.Cluster], s.Now, a.Start)}
		now, err := p.ship.ShipNow(lead)
		if err != nil {
			return err
		}
		if !now || !p.reserve(s, j, a.Cluster, a.Start, a.Cost) {
			waiting = append(waiting, j)
			p.wake = min(p.wake, max(p.next, nextCycle(a.Start-j.Transfer-p.period, p.period)))
		}
	}
	p.global = waiting
	return nil
}
