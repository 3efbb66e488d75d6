package broker

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/grid"
	"github.com/schedlab/schedlab/sdk/plan"
)

// Greedy is the plugin of the EGEE WMS "greedy" mode (the paper's section
// 7): there is no global queue; each global job is shipped on arrival to
// the cluster it fits on with the fewest jobs in its local queue, where it
// waits at a fixed priority among the local jobs.
func Greedy() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "grid-greedy",
			Version:     "0.1.0",
			Description: "EGEE WMS greedy mode: each global job shipped on arrival to the cluster with the shortest local queue",
			Params: []sdk.Param{{Name: "priority", Type: sdk.Float, Default: "1",
				Doc: "the priority of a global job in the local queue it is shipped to (local jobs have the workload's)"}},
		},
		New: func() sdk.Policy { return &toQueue{name: "grid-greedy"} },
	}
}

// FixedPriority is the plugin of grid jobs submitted to the local batch
// systems at a fixed priority (the paper's section 4.2): like Greedy, each
// global job is shipped on arrival to the cluster with the shortest local
// queue, at a priority below every local job's (low: it may wait for ever)
// or above (high: it may starve the local jobs).
func FixedPriority() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "grid-fixed-priority",
			Version:     "0.1.0",
			Description: "global jobs in the local queues at a fixed priority, below (low) or above (high) every local job",
			Params: []sdk.Param{{Name: "level", Type: sdk.String, Default: "low", Choices: []string{"low", "high"},
				Doc: "low: after every local job; high: before every local job"}},
		},
		New: func() sdk.Policy { return &toQueue{name: "grid-fixed-priority"} },
	}
}

// toQueue is Greedy and FixedPriority: global jobs join a local queue.
type toQueue struct {
	base
	name     string
	priority float64
}

func (p *toQueue) Init(env sdk.Env) error {
	if err := p.init(p.name, env); err != nil {
		return err
	}
	switch p.name {
	case "grid-greedy":
		p.priority = env.Params.Float("priority")
	case "grid-fixed-priority":
		p.priority = math.Inf(-1)
		if env.Params.String("level") == "high" {
			p.priority = math.Inf(1)
		}
	}
	return nil
}

func (p *toQueue) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if err := p.begin(s, p.priority); err != nil {
		return nil, err
	}
	for _, j := range p.global {
		c, ok := p.shortestQueue(s, j)
		if !ok {
			p.reject(j)
			continue
		}
		p.out = append(p.out, sdk.Ship(j, c))
		p.shipped[j.Index] = arrival{cluster: c, at: s.Now + j.Transfer}
		// It counts in the queue it joined for the jobs after it.
		p.local[c] = append(p.local[c], grid.Entry{Job: j, Priority: p.priority, From: s.Now + j.Transfer})
	}
	p.runLocal(s, nil)
	return p.out, nil
}

// Lazy is the plugin of the EGEE WMS "lazy" mode (first in AliEn; the
// paper's section 7): global jobs wait in a global queue, and a cluster
// whose local queue is empty pulls from it, in order of payment, every job
// that fits on its free processors, which are reserved for the job from
// its arrival.
func Lazy() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "grid-lazy",
			Version:     "0.1.0",
			Description: "EGEE WMS lazy mode: a cluster with an empty local queue pulls global jobs that fit its free processors",
		},
		New: func() sdk.Policy { return &lazy{} },
	}
}

type lazy struct{ base }

func (p *lazy) Init(env sdk.Env) error { return p.init("grid-lazy", env) }

func (p *lazy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if err := p.begin(s, 0); err != nil {
		return nil, err
	}
	byPayment(p.global, false)
	waiting := p.global[:0]
	for _, j := range p.global {
		if !p.fitsSomewhere(j) {
			p.reject(j)
			continue
		}
		pulled := false
		for c := range p.local {
			if len(p.local[c]) == 0 && p.plat.Serves(c, j) && j.Request[0] <= s.Free[c][0] && p.book.Fits(s, j, c, s.Now+j.Transfer) {
				pulled = p.reserve(s, j, c, s.Now+j.Transfer, -1)
				break
			}
		}
		if !pulled {
			waiting = append(waiting, j)
		}
	}
	p.global = waiting
	p.runLocal(s, nil)
	return p.out, nil
}

// Static is the plugin of static partitioning (the paper's section 4.2):
// a share of each cluster's processors serves global jobs only, the rest
// local jobs only; a job wider than its part is rejected. Global jobs are planned in order of payment over the
// global parts, each at the earliest time it fits and can arrive, and
// reserved and shipped when they must leave to start then.
func Static() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "grid-static",
			Version:     "0.1.0",
			Description: "static partitioning: a share of every cluster for global jobs, the rest for local jobs",
			Params: []sdk.Param{{Name: "share", Type: sdk.Float, Default: "0.5",
				Doc: "the share of each cluster's processors kept for global jobs (rounded down)"}},
		},
		New: func() sdk.Policy { return &static{} },
	}
}

type static struct {
	base
	grid  []int64 // each cluster's processors for global jobs
	parts []*plan.Profile
}

func (p *static) Init(env sdk.Env) error {
	if err := p.init("grid-static", env); err != nil {
		return err
	}
	share := env.Params.Float("share")
	if !(share >= 0 && share <= 1) {
		return fmt.Errorf("grid-static: share must be between 0 and 1, got %v", share)
	}
	for _, c := range env.Platform.Clusters {
		p.grid = append(p.grid, int64(math.Floor(share*float64(c.Capacity[0]))))
	}
	p.parts = make([]*plan.Profile, len(env.Platform.Clusters))
	return nil
}

func (p *static) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if err := p.begin(s, 0); err != nil {
		return nil, err
	}
	for c := range p.local {
		// A local job wider than the local part is refused, as a batch
		// system refuses a job beyond its partition's limits.
		kept := p.local[c][:0]
		for _, e := range p.local[c] {
			if e.Job.Request[0] > p.plat.Clusters[c].Capacity[0]-p.grid[c] {
				p.out = append(p.out, sdk.Reject(e.Job))
				continue
			}
			kept = append(kept, e)
		}
		p.local[c] = kept
	}
	// Each cluster's global part: running global jobs to their walltimes
	// and the held reservations.
	for c := range p.parts {
		p.parts[c] = p.part(s, c, true)
		for _, h := range p.book.Holds(c, nil) {
			// Held reservations fit in the part: they were planned there.
			_ = p.parts[c].Reserve(max(h.At, s.Now), h.End-max(h.At, s.Now), h.Job.Request)
		}
	}
	byPayment(p.global, false)
	wake := int64(math.MaxInt64)
	for _, j := range p.global {
		best, at := -1, int64(-1)
		for c, part := range p.parts {
			if !p.plat.Serves(c, j) {
				continue
			}
			if t := part.EarliestFitFrom(s.Now+j.Transfer, j.Request, j.Walltime); t >= 0 && (best < 0 || t < at) {
				best, at = c, t
			}
		}
		if best < 0 {
			p.reject(j)
			continue
		}
		_ = p.parts[best].Reserve(at, j.Walltime, j.Request)
		if at-j.Transfer > s.Now {
			wake = min(wake, at-j.Transfer)
			continue
		}
		if !p.reserve(s, j, best, at, -1) {
			return nil, fmt.Errorf("grid-static: t=%d: the reservation of job id %d on cluster %q at %d does not hold", s.Now, j.ID, p.plat.Clusters[best].Name, at)
		}
	}
	p.runLocal(s, func(c int) *plan.Profile { return p.part(s, c, false) })
	if wake != math.MaxInt64 {
		p.out = append(p.out, sdk.WakeAt(wake))
	}
	return p.out, nil
}

// part returns the profile of cluster c's global part (global) or local
// part: its processors less those of the running jobs of its kind, each
// released at its walltime.
func (p *static) part(s *sdk.State, c int, global bool) *plan.Profile {
	size := p.grid[c]
	if !global {
		size = p.plat.Clusters[c].Capacity[0] - p.grid[c]
	}
	free := sdk.Vector{size}
	for _, r := range s.Running {
		if _, local := r.Job.HomeCluster(); r.Cluster == c && local != global {
			free[0] -= r.Job.Request[0]
		}
	}
	pr := plan.New(s.Now, free)
	for _, r := range s.Running {
		if _, local := r.Job.HomeCluster(); r.Cluster == c && local != global {
			pr.Release(r.ExpectedEnd, r.Job.Request)
		}
	}
	return pr
}
