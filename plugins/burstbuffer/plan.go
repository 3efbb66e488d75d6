package burstbuffer

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// Plan is the plugin of bb-plan, plan-based scheduling (the paper's
// Algorithm 2). At every call it searches the orders of the queue for the
// one whose execution plan scores best, and starts the jobs that plan starts
// now. The plan of an order gives each job in turn its earliest allocation
// of processors and burst-buffer pieces that does not overlap the jobs
// before it (running jobs end at their walltime); the score is the sum over
// jobs of W^alpha, W being the planned wait (planned start minus submit
// time), so alpha > 1 punishes starving a job. Queues of at most
// "exhaustive" jobs are searched exhaustively. Longer ones start from the
// best of nine orders (submit; processors, burst buffer per processor,
// burst buffer per processor divided by processors, and walltime, each
// increasing and decreasing: startOrders), then
// simulated annealing: "outer" rounds of "inner" moves, a move swapping two
// random positions, accepted when it scores better or with probability
// exp((S - S') / T); T starts at the spread of the nine scores and is
// multiplied by "cooling" after every round, never below "t_min" (as the
// authors' code and the seed article's Algorithm 2 read as lowering it at the
// end of each outer iteration; the article's text says every N
// iterations: docs/reproductions/kopanski2021.md, "When the temperature
// falls"). The best
// order seen is kept. The search is bounded by these counts, not by a
// clock, so results do not depend on the machine's speed. No job is
// promised a start: the plan is made again at the next event.
func Plan() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{Name: "bb-plan", Version: "1.1.1",
			Description: "plan-based scheduling with simulated annealing over queue orders (plan-alpha); on pools and on nodes",
			Params: params(
				sdk.Param{Name: "alpha", Type: sdk.Float, Default: "2", Doc: "exponent of the planned waits in the score (1, 2 or 3 in the paper)"},
				sdk.Param{Name: "exhaustive", Type: sdk.Int, Default: "5", Doc: "queues of at most this many jobs are searched exhaustively"},
				sdk.Param{Name: "outer", Type: sdk.Int, Default: "30", Doc: "annealing rounds"},
				sdk.Param{Name: "inner", Type: sdk.Int, Default: "6", Doc: "moves (swaps of two random positions) per round"},
				sdk.Param{Name: "cooling", Type: sdk.Float, Default: "0.9", Doc: "factor applied to the temperature after every round"},
				sdk.Param{Name: "t_min", Type: sdk.Float, Default: "1", Doc: "lowest temperature"},
			),
		},
		New: func() sdk.Policy { return &planner{} },
	}
}

type planner struct {
	base
	alpha               float64
	exhaustive          int
	outer, inner        int
	cooling, tMin       float64
	rng                 *rand.Rand
	work                plan.Profile
	cur, best, try, ord []*sdk.Job
	pl                  []int32
	perm                []int
	// from holds, on nodes, by job index, the earliest time a waiting
	// job may start in a plan this call (earliest).
	from []int64
}

func (p *planner) Init(env sdk.Env) error {
	if err := p.init("bb-plan", env); err != nil {
		return err
	}
	p.alpha = env.Params.Float("alpha")
	p.exhaustive = int(env.Params.Int("exhaustive"))
	p.outer, p.inner = int(env.Params.Int("outer")), int(env.Params.Int("inner"))
	p.cooling, p.tMin = env.Params.Float("cooling"), env.Params.Float("t_min")
	switch {
	case p.alpha <= 0:
		return fmt.Errorf("bb-plan: alpha %g must be positive", p.alpha)
	case p.exhaustive < 0 || p.exhaustive > 8:
		return fmt.Errorf("bb-plan: exhaustive %d must be in 0..8 (8! orders)", p.exhaustive)
	case p.outer < 0 || p.inner < 0:
		return fmt.Errorf("bb-plan: outer %d and inner %d must not be negative", p.outer, p.inner)
	case p.cooling <= 0 || p.cooling > 1:
		return fmt.Errorf("bb-plan: cooling %g must be in (0, 1]", p.cooling)
	case p.tMin <= 0:
		return fmt.Errorf("bb-plan: t_min %g must be positive", p.tMin)
	}
	p.rng = env.Rand
	p.pl = make([]int32, p.units.Count())
	return nil
}

func (p *planner) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.begin(s)
	q := s.Queue
	if p.room != nil {
		p.earliest(s)
	}
	// A greedy pass in queue order: when it starts no job, no job fits now
	// and no plan can start one; when it starts them all, queue order is a
	// best plan (every wait is as short as it can be). Either way there is
	// nothing to search, which is most calls on a busy machine.
	n := 0
	p.work.CopyFrom(&p.prof)
	for _, j := range q {
		if p.startFrom(s, j) == s.Now && p.units.FitsAt(&p.work, s.Now, j.Request, j.Walltime, p.pl) {
			_ = p.work.Reserve(s.Now, j.Walltime, p.units.Amount(j.Request, p.pl))
			n++
		}
	}
	if n == 0 {
		return p.out, nil
	}
	p.best = append(p.best[:0], q...)
	switch {
	case n == len(q) || len(q) == 1:
	case len(q) <= p.exhaustive:
		p.searchAll(s)
	default:
		p.anneal(s)
	}
	// Start what the best plan starts now, placed as planned.
	for _, j := range p.best {
		pl := p.placement()
		t := p.fit(&p.prof, s, j, pl)
		if t < 0 {
			p.placements = p.placements[:len(p.placements)-len(pl)]
			continue // see score
		}
		if t == s.Now {
			// On nodes, a job the plan starts now but that the
			// placement rule does not place (the plan counts totals),
			// or whose nodes held whole hold more than the plan left
			// free, waits, and what the plan would have held for it
			// is free to the jobs after it.
			started, err := p.startHeld(t, j, pl)
			if err != nil {
				return nil, fmt.Errorf("bb-plan: job id %d: %w", j.ID, err)
			}
			if !started {
				t = -1
			}
		} else if err := p.prof.Reserve(t, j.Walltime, p.units.Amount(j.Request, pl)); err != nil {
			return nil, fmt.Errorf("bb-plan: job id %d: %w", j.ID, err)
		}
		if t != s.Now {
			p.placements = p.placements[:len(p.placements)-len(pl)]
		}
	}
	return p.out, nil
}

// earliest notes, on nodes, the earliest time each waiting job may start
// in a plan of this call: now when the placement rule places it now, else
// its shadow time on the nodes as running jobs end (Room.Shadow), which
// the plan's totals do not see, or -1 when it would not fit them even
// then (nodes out of service). The plans then count totals from there.
func (p *planner) earliest(s *sdk.State) {
	for _, j := range s.Queue {
		for j.Index >= len(p.from) {
			p.from = append(p.from, 0)
		}
		at := s.Now
		if !p.room.Fits(j) {
			at, _ = p.room.Shadow(s, j)
		}
		p.from[j.Index] = at
	}
}

// startFrom returns the earliest time job j may start in a plan of this
// call: now, or on nodes what earliest noted.
func (p *planner) startFrom(s *sdk.State, j *sdk.Job) int64 {
	if p.room == nil {
		return s.Now
	}
	return p.from[j.Index]
}

// fit returns the earliest time j fits prof from its start, writing its
// placement on units into pl, or -1 when it never does.
func (p *planner) fit(prof *plan.Profile, s *sdk.State, j *sdk.Job, pl []int32) int64 {
	from := p.startFrom(s, j)
	if from < 0 {
		return -1
	}
	return p.units.EarliestFit(prof, from, j.Request, j.Walltime, pl)
}

// score returns the score of the plan of order, or a value of at least
// limit as soon as its partial sum reaches limit (waits are never negative,
// so the sum only grows): the searches need only know that it lost.
func (p *planner) score(s *sdk.State, order []*sdk.Job, limit float64) float64 {
	p.work.CopyFrom(&p.prof)
	var sum float64
	for _, j := range order {
		t := p.fit(&p.work, s, j, p.pl)
		if t < 0 {
			// On nodes with some out of service, a job may not fit the
			// profile in any order: it adds the same nothing to each.
			continue
		}
		_ = p.work.Reserve(t, j.Walltime, p.units.Amount(j.Request, p.pl))
		w := float64(t - j.Submit)
		switch p.alpha {
		case 1:
			sum += w
		case 2:
			sum += w * w
		case 3:
			sum += w * w * w
		default:
			sum += math.Pow(w, p.alpha)
		}
		if sum >= limit {
			return sum
		}
	}
	return sum
}

// searchAll scores every order of the queue, in lexicographic order of
// positions, and keeps the first best.
func (p *planner) searchAll(s *sdk.State) {
	n := len(s.Queue)
	p.perm = p.perm[:0]
	for i := range n {
		p.perm = append(p.perm, i)
	}
	best := math.Inf(1)
	for {
		p.try = p.try[:0]
		for _, i := range p.perm {
			p.try = append(p.try, s.Queue[i])
		}
		if sc := p.score(s, p.try, best); sc < best {
			best = sc
			p.best = append(p.best[:0], p.try...)
		}
		if !nextPermutation(p.perm) {
			return
		}
	}
}

// nextPermutation advances a to the next permutation in lexicographic order
// and reports false after the last one.
func nextPermutation(a []int) bool {
	i := len(a) - 2
	for i >= 0 && a[i] >= a[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(a) - 1
	for a[j] <= a[i] {
		j--
	}
	a[i], a[j] = a[j], a[i]
	slices.Reverse(a[i+1:])
	return true
}

// startOrders are the starting orders after queue order, in the authors'
// order (which decides ties between equal scores): a key and whether it
// decreases. Ties within an order keep queue order.
var startOrders = []struct {
	key  func(j *sdk.Job) float64
	desc bool
}{
	{procs, true}, {bbPerProc, true}, {bbRatio, true}, {bbRatio, false},
	{procs, false}, {bbPerProc, false}, {walltime, false}, {walltime, true},
}

func procs(j *sdk.Job) float64    { return float64(j.Procs()) }
func walltime(j *sdk.Job) float64 { return float64(j.Walltime) }

// bbPerProc is what the job requests beyond processors (on the paper's
// platform, its burst buffer) per processor: per compute node.
func bbPerProc(j *sdk.Job) float64 {
	var x int64
	for _, v := range j.Request[1:] {
		x += v
	}
	return float64(x) / float64(max(1, j.Procs()))
}

// bbRatio is the burst buffer per processor divided by the processors: high
// for narrow jobs with much burst buffer each.
func bbRatio(j *sdk.Job) float64 { return bbPerProc(j) / float64(max(1, j.Procs())) }

func (p *planner) anneal(s *sdk.State) {
	sBest := p.score(s, s.Queue, math.Inf(1))
	sWorst := sBest
	for _, o := range startOrders {
		p.ord = append(p.ord[:0], s.Queue...)
		slices.SortStableFunc(p.ord, func(a, b *sdk.Job) int {
			if o.desc {
				return cmp.Compare(o.key(b), o.key(a))
			}
			return cmp.Compare(o.key(a), o.key(b))
		})
		sc := p.score(s, p.ord, math.Inf(1))
		sWorst = max(sWorst, sc)
		if sc < sBest {
			sBest = sc
			p.best = append(p.best[:0], p.ord...)
		}
	}
	if sWorst == sBest {
		// Nothing tells the orders apart: the authors do not anneal then.
		return
	}
	temp := max(sWorst-sBest, p.tMin)
	p.cur = append(p.cur[:0], p.best...)
	cur := sBest
	n := len(p.cur)
	for range p.outer {
		for range p.inner {
			// Two random positions, possibly the same (then the move
			// changes nothing and is accepted, as the authors' is).
			a, b := p.rng.IntN(n), p.rng.IntN(n)
			u := p.rng.Float64()
			// Accept S' when S' < S or u < exp((S - S')/T), that is when
			// S' < S - T ln u: a bound the score may stop at. Equal
			// scores are accepted (u < 1).
			limit := cur - temp*math.Log(u)
			p.cur[a], p.cur[b] = p.cur[b], p.cur[a]
			sc := p.score(s, p.cur, limit)
			if sc < limit {
				cur = sc
				if sc < sBest {
					sBest = sc
					p.best = append(p.best[:0], p.cur...)
				}
			} else {
				p.cur[a], p.cur[b] = p.cur[b], p.cur[a]
			}
		}
		temp = max(temp*p.cooling, p.tMin)
	}
}
