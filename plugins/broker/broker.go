// Package broker holds the policies of a grid of clusters with local and
// global job streams (Kovalenko, Kovalenko, Koryagin and Lyubimsky 2006):
// grid-lookahead, the paper's method, and the baselines it argues against,
// grid-greedy, grid-fixed-priority, grid-lazy and grid-static.
//
// Each policy plays every cluster's batch system too, and all play it the
// same way (sdk/grid's Plan: priorities with backfilling, around the held
// reservations), so that they differ only in how they place the global
// stream. Local jobs (sdk.Job.Home) run at home; global jobs are shipped
// to a cluster (sdk.Ship), arriving Job.Transfer seconds later; a global
// job's payment is its Job.Priority.
package broker

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/grid"
	"github.com/schedlab/schedlab/sdk/plan"
)

// Plugins returns the grid policies.
func Plugins() []sdk.Plugin {
	return []sdk.Plugin{Lookahead(), Greedy(), FixedPriority(), Lazy(), Static()}
}

// base is what every grid policy keeps of a run.
type base struct {
	name string
	plat *sdk.Platform
	book grid.Book
	// shipped holds, for each job shipped to a cluster's queue without a
	// reservation, its cluster and arrival (grid-greedy, grid-fixed-priority).
	shipped map[int]arrival
	// expected are the jobs whose last reservation the book refused: the
	// engine must refuse the same ones, and no other.
	expected map[int]bool
	profile  *plan.Profile
	local    [][]grid.Entry
	global   []*sdk.Job
	out      []sdk.Decision
	slots    []grid.Slot
	// features says that the platform's clusters have features; unmatched
	// counts the global jobs rejected because no cluster large enough has
	// the features they require (the count rejected_unmatched).
	features  bool
	unmatched int64
}

type arrival struct {
	cluster int
	at      int64
}

func (b *base) init(name string, env sdk.Env) error {
	if env.Platform.HasNodes() {
		return fmt.Errorf("%s schedules a pool of processors; platform %q is made of nodes: use fcfs, easy or conservative there", name, env.Platform.Name)
	}
	b.name, b.plat = name, env.Platform
	b.shipped, b.expected = map[int]arrival{}, map[int]bool{}
	b.features, b.unmatched = len(env.Platform.ClusterFeatures()) > 0, 0
	for _, c := range env.Platform.Clusters {
		if len(env.Platform.Resources) != 1 || len(c.Units) > 0 {
			return fmt.Errorf("%s: the grid policies schedule processors only; platform %q has %v", name, env.Platform.Name, env.Platform.Resources)
		}
	}
	b.local = make([][]grid.Entry, len(env.Platform.Clusters))
	return nil
}

// begin starts a call: it syncs the book, checks the engine's refusals
// against the book's, and sorts the queue into the local queues (local
// jobs, with their priority, and the jobs shipped to a cluster's queue,
// with queuePriority) and the global jobs not yet shipped.
func (b *base) begin(s *sdk.State, queuePriority float64) error {
	b.out = b.out[:0]
	for _, r := range s.Refused {
		if !b.expected[r.Job.Index] {
			return fmt.Errorf("%s: t=%d: the engine refused the reservation of job id %d at %d, which the book accepted", b.name, s.Now, r.Job.ID, r.At)
		}
	}
	clear(b.expected)
	b.book.Sync(s)
	for c := range b.local {
		b.local[c] = b.local[c][:0]
	}
	b.global = b.global[:0]
	for _, j := range s.Queue {
		if c, ok := j.HomeCluster(); ok {
			b.local[c] = append(b.local[c], grid.Entry{Job: j, Priority: j.Priority, From: j.Submit})
			continue
		}
		if a, ok := b.shipped[j.Index]; ok {
			b.local[a.cluster] = append(b.local[a.cluster], grid.Entry{Job: j, Priority: queuePriority, From: a.at})
			continue
		}
		if _, ok := b.book.Of(j); ok {
			continue
		}
		b.global = append(b.global, j)
	}
	return nil
}

// reserve reserves j on cluster c at time at through the book and, when
// the reservation holds, ships j there; cost >= 0 is charged.
func (b *base) reserve(s *sdk.State, j *sdk.Job, c int, at int64, cost float64) bool {
	d, ok := b.book.Reserve(s, j, c, at)
	b.out = append(b.out, d)
	if !ok {
		b.expected[j.Index] = true
		return false
	}
	b.out = append(b.out, sdk.Ship(j, c))
	if cost >= 0 {
		b.out = append(b.out, sdk.Charge(j, cost))
	}
	return true
}

// runLocal plays every cluster's batch system: it starts the reserved
// jobs whose time has come, then plans each local queue around what the
// cluster holds (capacity less keep, for grid-static) and starts what the
// plan starts now.
func (b *base) runLocal(s *sdk.State, keep func(c int) *plan.Profile) {
	var holds []grid.Hold
	for c := range b.local {
		holds = b.book.Holds(c, holds[:0])
		for _, h := range holds {
			if h.At == s.Now {
				b.out = append(b.out, sdk.StartOn(h.Job, c))
			}
		}
		p := b.profileOf(s, c, keep)
		b.slots = grid.Plan(p, b.local[c], b.slots[:0])
		b.out = grid.Starts(b.slots, c, s.Now, b.out)
	}
}

// profileOf returns cluster c's profile for its local queue: the book's,
// or keep's when keep is not nil.
func (b *base) profileOf(s *sdk.State, c int, keep func(c int) *plan.Profile) *plan.Profile {
	if keep != nil {
		return keep(c)
	}
	b.profile = b.book.Profile(s, c, b.profile)
	return b.profile
}

// fitsSomewhere reports whether j fits on an empty cluster of the platform
// that has every feature j requires.
func (b *base) fitsSomewhere(j *sdk.Job) bool {
	serves, _ := grid.Serves(b.plat, j)
	return serves
}

// reject rejects global job j, which no cluster will take, counting it as
// unmatched when a cluster has its processors but none of those its
// features.
func (b *base) reject(j *sdk.Job) {
	if serves, fits := grid.Serves(b.plat, j); fits && !serves {
		b.unmatched++
	}
	b.out = append(b.out, sdk.Reject(j))
}

// Counts returns, on a platform whose clusters have features, the global
// jobs rejected because no cluster large enough has the features they
// require (rejected_unmatched); nil elsewhere, so that runs without
// features keep their records.
func (b *base) Counts() map[string]int64 {
	if !b.features {
		return nil
	}
	return map[string]int64{"rejected_unmatched": b.unmatched}
}

// byPayment sorts global jobs by payment, highest first, then by
// submission and index; with perSecond, by payment per processor-second
// of walltime.
func byPayment(js []*sdk.Job, perSecond bool) {
	key := func(j *sdk.Job) float64 {
		if perSecond {
			return j.Priority / (float64(j.Request[0]) * float64(j.Walltime))
		}
		return j.Priority
	}
	slices.SortFunc(js, func(a, b *sdk.Job) int {
		if c := cmp.Compare(key(b), key(a)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Submit, b.Submit); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
}

// shortestQueue returns the cluster j fits on, among those with the
// features it requires, with the fewest jobs in its local queue, ties to
// the most free processors, then the first.
func (b *base) shortestQueue(s *sdk.State, j *sdk.Job) (int, bool) {
	best := -1
	for c := range b.local {
		if j.Request[0] > b.plat.Clusters[c].Capacity[0] || !b.plat.Serves(c, j) {
			continue
		}
		if best < 0 || len(b.local[c]) < len(b.local[best]) ||
			(len(b.local[c]) == len(b.local[best]) && s.Free[c][0] > s.Free[best][0]) {
			best = c
		}
	}
	return best, best >= 0
}

// nextCycle returns the first multiple of period after now.
func nextCycle(now, period int64) int64 {
	t := now - now%period // towards zero
	if t <= now {
		t += period
	}
	return t
}
