package probfill

import (
	"errors"
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
)

// NF returns the variant after Nissimov & Feitelson (2007): the probability
// that a backfill delays the head is computed from empirical runtime
// distributions, per user, by dynamic programming over the running jobs,
// instead of from the exponential model.
//
// Runtimes are learned from completed jobs (End - Start), per user; a user
// with fewer than min_history completed jobs borrows everyone's, and before
// any completion a job's runtime is taken as uniform on (0, walltime]. A
// runtime never exceeds the walltime (the engine kills the job there), so
// every distribution is cut at the job's walltime.
//
// At a decision, time ahead is cut into `steps` equal steps up to the
// longest walltime in play. For each running job, the probability that it
// has ended by step k given that it has run e seconds so far is
// P(R <= e + t_k | R > e) under its user's distribution; a dynamic
// programme over the running jobs gives the distribution of processors
// freed by each step, F_k. The head (short of cq processors) can start at
// the first step where F_k >= cq; backfilling a candidate of ci processors
// delays it when at that step F_k < cq + ci and the candidate is still
// running. With marginal distributions only, the probability is
//
//	sum_k [P(F_k >= cq) - P(F_{k-1} >= cq)] * P(F_k < cq+ci | F_k >= cq) * P(R_i > t_k),
//
// an approximation that treats the step at which the head's shortfall is
// covered and the amount freed by then as independent of how it got
// there. Processor counts above 4096 are counted in units of
// ceil(capacity/4096) so that the programme stays small. On a platform
// of nodes it places jobs and counts the head's shortfall as probfill
// does.
func NF() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "probfill-nf",
			Version:     "1.1.0",
			Description: "probabilistic backfilling with per-user empirical runtime distributions and dynamic programming (after Nissimov & Feitelson 2007); on pools and on nodes",
			Params: []sdk.Param{
				{Name: "tau", Type: sdk.Float, Default: "0.1", Doc: "backfill when the error probability is below this threshold, in [0, 1]"},
				{Name: "steps", Type: sdk.Int, Default: "64", Doc: "time steps of the horizon"},
				{Name: "min_history", Type: sdk.Int, Default: "5", Doc: "completed jobs a user needs before their own distribution is used"},
				backfill.WindowsParam(),
			},
		},
		New: func() sdk.Policy { return &nf{} },
	}
}

type nf struct {
	tau        float64
	steps      int
	minHistory int
	unit       int64
	// Completed runtimes, sorted, per user and for everyone.
	byUser map[int32][]int64
	all    []int64
	room   *backfill.Room
	out    []sdk.Decision
}

func (p *nf) Init(env sdk.Env) error {
	if len(env.Platform.Clusters) != 1 {
		return errors.New("probfill-nf: one cluster only")
	}
	if env.Platform.HasNodes() {
		// Its room places jobs on the nodes, not pieces on units.
		if err := backfill.Supported("probfill-nf", env.Platform); err != nil {
			return err
		}
	}
	p.room = backfill.NewRoom(env)
	p.tau = env.Params.Float("tau")
	if p.tau < 0 || p.tau > 1 {
		return fmt.Errorf("probfill-nf: tau = %v: want a probability in [0, 1]", p.tau)
	}
	p.steps = int(env.Params.Int("steps"))
	if p.steps < 1 || p.steps > 10_000 {
		return fmt.Errorf("probfill-nf: steps = %d: want 1 to 10000", p.steps)
	}
	p.minHistory = int(env.Params.Int("min_history"))
	p.unit = max(1, (env.Platform.Clusters[0].Capacity[0]+4095)/4096)
	p.byUser = map[int32][]int64{}
	return nil
}

func (p *nf) learn(done []sdk.Completion) {
	for _, c := range done {
		r := c.End - c.Start
		u := c.Job.User
		i, _ := slices.BinarySearch(p.byUser[u], r)
		p.byUser[u] = slices.Insert(p.byUser[u], i, r)
		i, _ = slices.BinarySearch(p.all, r)
		p.all = slices.Insert(p.all, i, r)
	}
}

// survival returns P(R > t) for job j's runtime, cut at its walltime.
func (p *nf) survival(j *sdk.Job, t float64) float64 {
	if t >= float64(j.Walltime) {
		return 0
	}
	if t < 0 {
		return 1
	}
	hist := p.byUser[j.User]
	if len(hist) < p.minHistory {
		hist = p.all
	}
	if len(hist) == 0 {
		return 1 - t/float64(j.Walltime) // uniform on (0, walltime]
	}
	// Share of history above t; runtimes above the walltime are cut to it,
	// and the walltime case is handled above.
	n, _ := slices.BinarySearch(hist, int64(t)+1) // entries <= t
	return float64(len(hist)-n) / float64(len(hist))
}

func (p *nf) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	p.learn(s.Completed)
	p.room.Reset(s)
	q := s.Queue
	var i int
	p.out, i = p.room.StartInOrder(q, p.out)
	if i >= len(q)-1 || p.tau == 0 {
		return p.out, nil
	}
	head := q[i]
	var running []nfRunning
	horizon := 0.0
	for _, r := range s.Running {
		running = append(running, nfRunning{r.Job, float64(s.Now - r.Start)})
		horizon = max(horizon, float64(r.ExpectedEnd-s.Now))
	}
	for _, j := range q[:i] { // started in this call
		running = append(running, nfRunning{j, 0})
		horizon = max(horizon, float64(j.Walltime))
	}
	for _, j := range q[i+1:] {
		horizon = max(horizon, float64(j.Walltime))
	}
	dt := horizon / float64(p.steps)
	var dists [][]float64 // recomputed after each backfill, with cq
	var cq int64
	for _, j := range q[i+1:] {
		if !j.Request.Fits(p.room.Free()) {
			continue
		}
		if dists == nil {
			dists = p.freed(running, dt)
			cq = Shortfall(head, p.room.Free(), p.room.Nodes())
		}
		lo := int((cq + p.unit - 1) / p.unit)
		hi := int((cq + j.Request[0] + p.unit - 1) / p.unit)
		perr, prevAtLeast := 0.0, 0.0
		for k, dist := range dists {
			var atLeast, window float64
			for x := lo; x < len(dist); x++ {
				atLeast += dist[x]
				if x < hi {
					window += dist[x]
				}
			}
			if atLeast > prevAtLeast {
				perr += (atLeast - prevAtLeast) * (window / atLeast) * p.survival(j, dt*float64(k+1))
			}
			prevAtLeast = atLeast
		}
		if perr >= p.tau {
			continue
		}
		if d, ok := p.room.Start(j); ok {
			running = append(running, nfRunning{j, 0})
			dists = nil
			p.out = append(p.out, d)
		}
	}
	return p.out, nil
}

// nfRunning is a running job and how long it has run.
type nfRunning struct {
	job     *sdk.Job
	elapsed float64
}

// freed returns, for each step k (1..steps, time k*dt ahead), the
// distribution of the processors (in units) freed by then by the running
// jobs, each ending independently with its conditional probability.
func (p *nf) freed(running []nfRunning, dt float64) [][]float64 {
	out := make([][]float64, p.steps)
	for k := range out {
		t := dt * float64(k+1)
		dist := []float64{1}
		for _, r := range running {
			s0 := p.survival(r.job, r.elapsed)
			pe := 1.0
			if s0 > 0 {
				pe = 1 - p.survival(r.job, r.elapsed+t)/s0
			}
			c := int((r.job.Request[0] + p.unit - 1) / p.unit)
			next := make([]float64, len(dist)+c)
			for x, px := range dist {
				next[x] += px * (1 - pe)
				next[x+c] += px * pe
			}
			dist = next
		}
		out[k] = dist
	}
	return out
}
