// Package groupsel is the group-selection policy of Minukhin & Ganzha
// (2010): at each scheduling point it starts the set of waiting jobs, among
// the first window jobs of the queue, that maximises a value within the
// free capacity of every resource of the platform, found exactly by
// sdk/groupsel (the rank approach or the branch and bound, which give the
// same set).
//
// With reserve (the default), jobs start in queue order while they fit, as
// in EASY, and the first that does not (the head) gets a reservation at its
// shadow time; the selection then chooses among the jobs after it, in the
// window, that fit now, those that would still run at the shadow time
// using together no more than the capacity the head leaves then (the
// Reservation_DP of Shmueli & Feitelson's lookahead backfilling, LOS, JPDC
// 2005). With exact estimates the head's promise is kept. Without reserve
// the selection chooses among the whole window, the paper's method: no job
// is promised anything, and a job the selection keeps passing over may
// wait for long.
//
// Each call's search has a limit counted in steps (max_paths for the rank
// approach, max_nodes for the branch and bound), never in time, so that a
// run gives the same records on any machine. A call whose search reaches
// it starts what the fallback says (best: the best selection the search
// found, always feasible; order: the candidates in queue order while they
// fit; fail: the run fails), and the policy counts such calls in the run's
// records (Counts).
//
// On a platform of nodes a job fits when the cluster's placement rule
// places it (beside nodes out of service, maintenance windows ahead and a
// power cap, as fcfs and easy do), the head's shadow time is where it
// would be placed once running jobs reach their walltimes, out of the
// maintenance windows ahead and of nodes out of service (Room.Shadow,
// easy's), and the selection is made within the free totals, each
// candidate placed on its own: the selected jobs then start in queue
// order where the rule places them, and one that no longer finds room
// beside those before it waits (counted: placement_misses). The head's
// reservation is counted in totals, as easy's count reading counts it.
package groupsel

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/groupsel"
)

// The values a selection maximises (the value parameter).
const (
	// ValueCount counts the jobs started (the paper: as many jobs as
	// possible).
	ValueCount = "count"
	// ValuePriority sums the jobs' declared priorities (the paper's
	// objective, where the workload has priorities; a job of priority 0
	// adds nothing, so ties of resource use then leave it waiting).
	ValuePriority = "priority"
	// ValueProcs sums the processors (utilisation now).
	ValueProcs = "procs"
	// ValueArea sums processors times requested walltime.
	ValueArea = "area"
)

// The fallbacks at a call whose search reaches its limit (the fallback
// parameter).
const (
	// FallbackBest starts the best selection the search found before it
	// stopped (feasible, of value within the gap the solver proves), or
	// the queue-order selection of FallbackOrder where that comes first in
	// the order of solutions (groupsel.Better): never less than order.
	FallbackBest = "best"
	// FallbackOrder starts the candidates in queue order while they fit
	// every constraint, ignoring the search, as first fit would.
	FallbackOrder = "order"
	// FallbackFail fails the run, naming the call.
	FallbackFail = "fail"
)

// The names of the policy's counts (Counts).
const (
	// CountSolves counts the calls that ran a search (not those where
	// every candidate fits at once).
	CountSolves = "solves"
	// CountLimitHits counts the searches stopped at their limit, each
	// decided by the fallback.
	CountLimitHits = "limit_hits"
	// CountLimitGapZero counts the stopped searches whose started
	// selection was proved of optimal value all the same (its value equals
	// the search's bound).
	CountLimitGapZero = "limit_gap_zero"
	// CountLimitGapMax is the largest gap of a stopped search, the bound
	// less the value of the selection started, rounded up to an integer,
	// in units of the value (jobs for count).
	CountLimitGapMax = "limit_gap_max"
	// CountPlacementMisses counts, on a platform of nodes, the selected
	// jobs that did not start because the jobs selected before them
	// took the room the placement rule would have given them.
	CountPlacementMisses = "placement_misses"
)

// Plugin returns the policy's plugin.
func Plugin() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:    "groupsel",
			Version: "1.2.0",
			Description: "group selection (Minukhin & Ganzha 2010): start the set of waiting jobs in a window that maximises a value " +
				"within the free capacity of every resource, optionally keeping the head's EASY reservation (LOS); on pools and on nodes",
			Params: []sdk.Param{
				{Name: "window", Type: sdk.Int, Default: "20", Doc: "waiting jobs considered, from the head of the queue (submit order)"},
				{Name: "value", Type: sdk.String, Default: ValueCount, Doc: "what a selection maximises: count, priority, procs or area",
					Choices: []string{ValueCount, ValuePriority, ValueProcs, ValueArea}},
				{Name: "reserve", Type: sdk.Bool, Default: "true", Doc: "start jobs in queue order while they fit and reserve for the first that does not (EASY), selecting among the jobs after it; false selects among the whole window"},
				{Name: "method", Type: sdk.String, Default: string(groupsel.MethodBnB), Doc: "solver: bnb or rank (the paper's); both give the same set",
					Choices: []string{string(groupsel.MethodBnB), string(groupsel.MethodRank)}},
				{Name: "use", Type: sdk.String, Default: string(groupsel.UseMaxShare),
					Doc:     "among sets of equal value, the one using less: max-share (the largest share of a resource's free capacity), sum or lex",
					Choices: []string{string(groupsel.UseMaxShare), string(groupsel.UseSum), string(groupsel.UseLex)}},
				{Name: "max_paths", Type: sdk.Int, Default: "4194304", Doc: "the rank approach's limit per call, in paths kept; past it the fallback decides"},
				{Name: "max_nodes", Type: sdk.Int, Default: "16777216", Doc: "the branch and bound's limit per call, in nodes (2^24, about a second); past it the fallback decides"},
				{Name: "fallback", Type: sdk.String, Default: FallbackBest,
					Doc:     "at a call whose search reaches its limit: best (start the best selection found), order (the candidates in queue order while they fit) or fail (the run fails); such calls are counted (limit_hits)",
					Choices: []string{FallbackBest, FallbackOrder, FallbackFail}},
				backfill.WindowsParam(),
			},
		},
		New: func() sdk.Policy { return &policy{} },
	}
}

type policy struct {
	window   int
	value    string
	reserve  bool
	method   groupsel.Method
	opts     groupsel.Options
	fallback string
	dims     int
	// solves, hits, gapZero and gapMax are the counts (Counts), and
	// misses on nodes.
	solves, hits, gapZero, gapMax, misses int64
	onNodes                               bool
	room                                  *backfill.Room
	// Scratch reused between calls.
	vars  []*sdk.Job
	avail sdk.Vector
	inst  groupsel.Instance
}

func (p *policy) Init(env sdk.Env) error {
	if n := len(env.Platform.Clusters); n != 1 {
		return fmt.Errorf("groupsel schedules one cluster, the platform has %d", n)
	}
	p.onNodes = env.Platform.HasNodes()
	if p.onNodes {
		// Its selection counts a burst buffer in totals: the engine
		// could not always place the pieces of what it selects.
		if err := backfill.Supported("groupsel", env.Platform); err != nil {
			return err
		}
	}
	p.room = backfill.NewRoom(env)
	p.window = int(env.Params.Int("window"))
	if p.window < 1 {
		return fmt.Errorf("window %d: want at least 1", p.window)
	}
	p.value = env.Params.String("value")
	p.reserve = env.Params.Bool("reserve")
	p.method = groupsel.Method(env.Params.String("method"))
	p.opts = groupsel.Options{Use: groupsel.UseRule(env.Params.String("use")),
		MaxPaths: int(env.Params.Int("max_paths")), MaxNodes: env.Params.Int("max_nodes")}
	if p.opts.MaxPaths < 1 || p.opts.MaxNodes < 1 {
		// 0 would mean the SDK's default, not what the user wrote.
		return fmt.Errorf("max_paths %d, max_nodes %d: want at least 1", p.opts.MaxPaths, p.opts.MaxNodes)
	}
	p.fallback = env.Params.String("fallback")
	if p.method == groupsel.MethodRank && p.window > 64 {
		return fmt.Errorf("window %d: the rank approach takes at most 64 jobs", p.window)
	}
	p.dims = env.Platform.Dims()
	return nil
}

func (p *policy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.room.Reset(s)
	window := s.Queue[:min(len(s.Queue), p.window)]
	var out []sdk.Decision
	shadow := int64(-1)
	var extra sdk.Vector
	if p.reserve {
		// Jobs start in queue order while they fit; the first that does
		// not is the head and gets its reservation, which the selection
		// among the jobs after it must not delay.
		var n int
		out, n = p.room.StartInOrder(window, out)
		window = window[n:]
		if len(window) == 0 {
			return out, nil
		}
		head := window[0]
		if p.onNodes {
			shadow, extra = p.room.Shadow(s, head)
		} else {
			shadow, extra = p.shadow(s, head, out)
		}
		if shadow >= 0 || !p.onNodes {
			out = append(out, sdk.Promise(head, shadow))
		}
		window = window[1:]
	}
	p.vars = p.vars[:0]
	for _, j := range window {
		if p.room.Fits(j) {
			p.vars = append(p.vars, j)
		}
	}
	if len(p.vars) == 0 {
		return out, nil
	}
	sel, err := p.choose(s.Now, p.room.Free(), shadow, extra)
	if err != nil {
		return nil, fmt.Errorf("groupsel at t=%d over %d candidates: %w", s.Now, len(p.vars), err)
	}
	for _, i := range sel {
		d, ok := p.room.Start(p.vars[i])
		if !ok {
			// On nodes only: within the totals, the selection may not
			// place beside the jobs selected before it.
			p.misses++
			continue
		}
		out = append(out, d)
	}
	return out, nil
}

// choose returns the indices in p.vars of the jobs to start: the set the
// solver finds, built as a 0-1 problem with one variable per candidate (in
// queue order, so ties go to the earlier jobs) and one capacity per
// resource, plus, with a reservation, one per resource over the jobs that
// would still run at the shadow time.
func (p *policy) choose(now int64, free sdk.Vector, shadow int64, extra sdk.Vector) ([]int, error) {
	n := len(p.vars)
	in := &p.inst
	in.N, in.Sense = n, groupsel.Maximise
	in.Terms, in.Objective, in.Constraints = in.Terms[:0], in.Objective[:0], in.Constraints[:0]
	positive := true
	for i, j := range p.vars {
		in.Terms = append(in.Terms, []int{i})
		v := p.valueOf(j)
		positive = positive && v > 0
		in.Objective = append(in.Objective, v)
	}
	fitsAll := true
	capacity := func(bound sdk.Vector, late bool) {
		for g := range p.dims {
			c := groupsel.Constraint{Rel: groupsel.LE, Bound: float64(bound[g])}
			total := int64(0)
			for i, j := range p.vars {
				if late && now+j.Walltime <= shadow {
					continue // ends by the shadow time: the head's capacity is back by then
				}
				if r := j.Request[g]; r != 0 {
					c.Coefs = append(c.Coefs, groupsel.Coef{Term: i, Value: float64(r)})
					total += r
				}
			}
			fitsAll = fitsAll && total <= bound[g]
			if len(c.Coefs) > 0 {
				in.Constraints = append(in.Constraints, c)
			}
		}
	}
	capacity(free, false)
	if shadow >= 0 {
		capacity(extra, true)
	}
	if fitsAll && positive {
		// Every candidate fits at once and adds value: starting them all
		// is the one optimum, without a search.
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	p.solves++
	sol, err := groupsel.Solve(in, p.method, p.opts)
	if !errors.Is(err, groupsel.ErrBudget) {
		if err != nil {
			return nil, err
		}
		return sol.Selected, nil
	}
	p.hits++
	if p.fallback == FallbackFail {
		return nil, fmt.Errorf("%w (fallback=fail)", err)
	}
	sel := p.inOrder(in)
	if p.fallback == FallbackBest && sol != nil {
		// The incumbent may be the empty selection (the rank approach's
		// rank 0), which would leave every job waiting, and with nothing
		// running stall the run: the queue-order selection is kept when it
		// comes first in the order of solutions.
		better, err := groupsel.Better(in, p.opts.Use, sol.Selected, sel)
		if err != nil {
			return nil, err
		}
		if better {
			sel = sol.Selected
		}
	}
	if sol != nil {
		// The gap of what starts: how far its value may be from the
		// optimum, by the bound the search proved.
		value, _, _ := in.Evaluate(sel)
		gap := max(sol.Bound-value, 0)
		if gap == 0 {
			p.gapZero++
		}
		p.gapMax = max(p.gapMax, int64(math.Ceil(gap)))
	}
	return sel, nil
}

// inOrder returns the candidates that fit every constraint of the
// instance when taken in queue order, each kept if it still fits.
func (p *policy) inOrder(in *groupsel.Instance) []int {
	// Each candidate is its own term: term i holds variable i.
	lhs := make([]float64, len(in.Constraints))
	var sel []int
	for i := range in.N {
		fits := true
		for c, con := range in.Constraints {
			for _, k := range con.Coefs {
				if k.Term == i && lhs[c]+k.Value > con.Bound {
					fits = false
				}
			}
		}
		if !fits {
			continue
		}
		for c, con := range in.Constraints {
			for _, k := range con.Coefs {
				if k.Term == i {
					lhs[c] += k.Value
				}
			}
		}
		sel = append(sel, i)
	}
	return sel
}

// Counts returns the counts of the run so far (sdk.Counter): searches,
// those stopped at their limit, of which proved optimal in value, and the
// largest gap; on nodes, the selected jobs whose placement missed. They depend only on the run's inputs and parameters.
func (p *policy) Counts() map[string]int64 {
	c := map[string]int64{CountSolves: p.solves, CountLimitHits: p.hits,
		CountLimitGapZero: p.gapZero, CountLimitGapMax: p.gapMax}
	if p.onNodes {
		c[CountPlacementMisses] = p.misses
	}
	return c
}

func (p *policy) valueOf(j *sdk.Job) float64 {
	switch p.value {
	case ValuePriority:
		return j.Priority
	case ValueProcs:
		return float64(j.Procs())
	case ValueArea:
		return float64(j.Procs()) * float64(j.Walltime)
	}
	return 1
}

// shadow returns the earliest time at which head fits once running jobs,
// and those started in this call (out), reach their expected ends, and the
// capacity free then beyond head's request (every release at that time
// counted).
func (p *policy) shadow(s *sdk.State, head *sdk.Job, out []sdk.Decision) (int64, sdk.Vector) {
	type release struct {
		at  int64
		req sdk.Vector
	}
	var rel []release
	for _, r := range s.Running {
		rel = append(rel, release{r.ExpectedEnd, r.Job.Request})
	}
	for _, d := range out {
		rel = append(rel, release{s.Now + d.Job.Walltime, d.Job.Request})
	}
	slices.SortStableFunc(rel, func(a, b release) int { return cmp.Compare(a.at, b.at) })
	p.avail = append(p.avail[:0], p.room.Free()...)
	shadow := int64(-1)
	for _, r := range rel {
		if shadow >= 0 && r.at > shadow {
			break
		}
		p.avail.Add(r.req)
		if shadow < 0 && head.Request.Fits(p.avail) {
			shadow = r.at
		}
	}
	extra := slices.Clone(p.avail)
	extra.Sub(head.Request)
	return shadow, extra
}
