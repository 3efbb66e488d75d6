package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// grid holds what the engine keeps of shipments and advance reservations,
// for the policies of a grid of clusters with local streams (jobs with a
// home cluster) and a global stream (jobs shipped with a transfer time).
type grid struct {
	// shippedTo is the cluster each job was shipped to, -1 for none.
	shippedTo []int32
	// active are the reservations not yet started, by cluster.
	active [][]reservation
	// refusedNext collects the refusals of the current call, which the
	// policy sees at its next one.
	refusedNext []sdk.Refusal
}

// reservation is an advance reservation of a job's request on a cluster
// over [at, end).
type reservation struct {
	idx     int32
	at, end int64
}

func (e *engine) gridState() *grid {
	if e.grid == nil {
		g := &grid{shippedTo: make([]int32, e.n), active: make([][]reservation, len(e.state.Free))}
		for i := range g.shippedTo {
			g.shippedTo[i] = -1
		}
		e.grid = g
	}
	return e.grid
}

// startRules checks that job i may start on cluster c now: a local job only
// at home; a job with a transfer time only on the cluster it was shipped
// to, once it has arrived; and, when the cluster has reservations, without
// taking what they hold.
func (e *engine) startRules(i int32, c int) error {
	j := &e.jobs[i]
	now := e.state.Now
	name := func(c int) string { return e.cfg.Platform.Clusters[c].Name }
	if home, ok := j.HomeCluster(); ok && home != c {
		return fmt.Errorf("start job id %d on cluster %q: it is a local job of cluster %q", j.ID, name(c), name(home))
	}
	if err := e.featureRule("start", j, c); err != nil {
		return err
	}
	to := int32(-1)
	if e.grid != nil {
		to = e.grid.shippedTo[i]
	}
	if to >= 0 && int(to) != c {
		return fmt.Errorf("start job id %d on cluster %q: it was shipped to cluster %q", j.ID, name(c), name(int(to)))
	} else if to < 0 && j.Transfer > 0 {
		return fmt.Errorf("start job id %d on cluster %q: it must be shipped there first (its transfer takes %d s)", j.ID, name(c), j.Transfer)
	}
	if j.Transfer > 0 {
		if arrives := e.rec[i].ShipTime + j.Transfer; now < arrives {
			return fmt.Errorf("start job id %d on cluster %q at %d: shipped at %d, it arrives at %d", j.ID, name(c), now, e.rec[i].ShipTime, arrives)
		}
	}
	return nil
}

// featureRule checks that cluster c has every feature job j requires, for
// a start, a shipment or a reservation there.
func (e *engine) featureRule(what string, j *sdk.Job, c int) error {
	if p := e.cfg.Platform; !p.Serves(c, j) {
		return fmt.Errorf("%s job id %d on cluster %q: it requires features %s, the cluster has %s", what, j.ID,
			p.Clusters[c].Name, p.FeatureList(j.Requires), p.FeatureList(p.FeatureMask(c)))
	}
	return nil
}

// reservedRule checks, once the job fits now, that starting job i on
// cluster c takes nothing a reservation of another job holds later.
func (e *engine) reservedRule(i int32, c int) error {
	if e.grid == nil || len(e.grid.active[c]) == 0 {
		return nil
	}
	j := &e.jobs[i]
	now := e.state.Now
	if t, k, ok := e.fits(c, now, now+j.Walltime, e.reqOf(i), i); !ok {
		return fmt.Errorf("start job id %d on cluster %q: it would take at %d the %s reserved for job id %d",
			j.ID, e.cfg.Platform.Clusters[c].Name, t, e.cfg.Platform.Resources[k], e.jobs[e.conflict(c, t, i)].ID)
	}
	return nil
}

// fits reports whether req fits on cluster c at every instant of [from, to)
// beside the running jobs (each to its walltime) and the reservations
// still to start, job skip's own left out; when not, it says when and which
// resource.
func (e *engine) fits(c int, from, to int64, req sdk.Vector, skip int32) (int64, int, bool) {
	capacity := e.cfg.Platform.Clusters[c].Capacity
	use := make(sdk.Vector, len(capacity))
	check := func(t int64) (int, bool) {
		clear(use)
		use.Add(req)
		for _, r := range e.state.Running {
			if r.Cluster == c && r.ExpectedEnd > t {
				use.Add(e.reqOf(int32(r.Job.Index)))
			}
		}
		for _, r := range e.grid.active[c] {
			if r.idx != skip && r.at <= t && t < r.end && r.at >= e.state.Now {
				use.Add(e.reqOf(r.idx))
			}
		}
		for k, x := range use {
			if x > capacity[k] {
				return k, false
			}
		}
		return 0, true
	}
	// Usage only grows where a reservation starts: the instants to look at.
	if k, ok := check(from); !ok {
		return from, k, false
	}
	for _, r := range e.grid.active[c] {
		if r.idx != skip && r.at > from && r.at < to {
			if k, ok := check(r.at); !ok {
				return r.at, k, false
			}
		}
	}
	return 0, 0, true
}

// conflict names a reservation of cluster c that holds time t (one that
// has not lapsed).
func (e *engine) conflict(c int, t int64, skip int32) int32 {
	for _, r := range e.grid.active[c] {
		if r.idx != skip && r.at >= e.state.Now && r.at <= t && t < r.end {
			return r.idx
		}
	}
	return skip
}

// reservedOn returns the cluster job i holds a reservation on, if any.
func (g *grid) reservedOn(i int32) (int, bool) {
	for c, rs := range g.active {
		for _, r := range rs {
			if r.idx == i {
				return c, true
			}
		}
	}
	return 0, false
}

// release ends job i's reservation, when it starts.
func (g *grid) release(i int32) {
	for c := range g.active {
		g.active[c] = slices.DeleteFunc(g.active[c], func(r reservation) bool { return r.idx == i })
	}
}

// applyGrid applies a shipment, a reservation, a charge or a rejection.
func (e *engine) applyGrid(i int32, d sdk.Decision) error {
	j := &e.jobs[i]
	now := e.state.Now
	r := &e.rec[i]
	validCluster := func(what string) error {
		if d.Cluster < 0 || d.Cluster >= len(e.state.Free) {
			return fmt.Errorf("%s job id %d on cluster %d: the platform has %d clusters", what, j.ID, d.Cluster, len(e.state.Free))
		}
		if home, ok := j.HomeCluster(); ok && home != d.Cluster {
			return fmt.Errorf("%s job id %d on cluster %q: it is a local job of cluster %q", what, j.ID,
				e.cfg.Platform.Clusters[d.Cluster].Name, e.cfg.Platform.Clusters[home].Name)
		}
		return e.featureRule(what, j, d.Cluster)
	}
	switch d.Action {
	case sdk.ActionShip:
		if st := e.status[i]; st != statusQueued {
			return fmt.Errorf("ship job id %d: it is %s, not waiting", j.ID, statusName(st))
		}
		if err := validCluster("ship"); err != nil {
			return err
		}
		g := e.gridState()
		if g.shippedTo[i] >= 0 {
			return fmt.Errorf("ship job id %d: it was shipped already, at %d", j.ID, r.ShipTime)
		}
		if c, ok := g.reservedOn(i); ok && c != d.Cluster {
			return fmt.Errorf("ship job id %d to cluster %q: it holds a reservation on cluster %q", j.ID,
				e.cfg.Platform.Clusters[d.Cluster].Name, e.cfg.Platform.Clusters[c].Name)
		}
		g.shippedTo[i] = int32(d.Cluster)
		r.Shipped, r.ShipTime = true, now
		if j.Transfer > 0 {
			// The policy is called when the job arrives.
			e.wakes.push(now + j.Transfer)
		}
	case sdk.ActionReserve:
		if st := e.status[i]; st != statusQueued {
			return fmt.Errorf("reserve for job id %d: it is %s, not waiting", j.ID, statusName(st))
		}
		if err := validCluster("reserve for"); err != nil {
			return err
		}
		if d.Time < now || d.Time > e.horizon {
			return fmt.Errorf("reserve for job id %d at %d: not between now (%d) and the run's horizon %d", j.ID, d.Time, now, e.horizon)
		}
		if e.cfg.Platform.Clusters[d.Cluster].HasNodes() {
			return fmt.Errorf("reserve for job id %d on cluster %q: advance reservations do not hold nodes yet", j.ID,
				e.cfg.Platform.Clusters[d.Cluster].Name)
		}
		if len(e.cfg.Platform.Clusters[d.Cluster].Units) > 0 {
			return fmt.Errorf("reserve for job id %d on cluster %q: reservations do not handle divided resources (units) yet", j.ID,
				e.cfg.Platform.Clusters[d.Cluster].Name)
		}
		g := e.gridState()
		if to := g.shippedTo[i]; to >= 0 && int(to) != d.Cluster {
			return fmt.Errorf("reserve for job id %d on cluster %q: it was shipped to cluster %q", j.ID,
				e.cfg.Platform.Clusters[d.Cluster].Name, e.cfg.Platform.Clusters[to].Name)
		}
		if j.Transfer > 0 {
			arrives := now + j.Transfer
			if r.Shipped {
				arrives = r.ShipTime + j.Transfer
			}
			if d.Time < arrives {
				return fmt.Errorf("reserve for job id %d at %d: it cannot arrive before %d", j.ID, d.Time, arrives)
			}
		}
		// fits leaves the job's own reservation out: a refused one keeps
		// the reservation the job holds, an accepted one replaces it.
		if _, _, ok := e.fits(d.Cluster, d.Time, d.Time+j.Walltime, e.reqOf(i), i); !ok {
			r.Refusals++
			g.refusedNext = append(g.refusedNext, sdk.Refusal{Job: j, Cluster: d.Cluster, At: d.Time})
			return nil
		}
		g.release(i)
		g.active[d.Cluster] = append(g.active[d.Cluster], reservation{idx: i, at: d.Time, end: d.Time + j.Walltime})
		r.Reserved, r.ReservedAt, r.ReservedCluster = true, d.Time, int32(d.Cluster)
		if d.Time > now {
			// The policy is called at the reservation's time.
			e.wakes.push(d.Time)
		}
		if !r.HasPromise {
			r.HasPromise, r.Promised = true, d.Time
		}
	case sdk.ActionCharge:
		if st := e.status[i]; st == statusPending || st == statusDone {
			return fmt.Errorf("charge job id %d: it is %s", j.ID, statusName(st))
		}
		if math.IsNaN(d.Cost) || math.IsInf(d.Cost, 0) || d.Cost < 0 {
			return fmt.Errorf("charge job id %d: cost %v is not a non-negative number", j.ID, d.Cost)
		}
		if !(d.Cost <= j.Priority) { // a NaN payment takes no charge, as the verification says
			return fmt.Errorf("charge job id %d: cost %v exceeds its payment %v", j.ID, d.Cost, j.Priority)
		}
		r.Charged, r.Cost = true, d.Cost
	case sdk.ActionReject:
		if st := e.status[i]; st != statusQueued {
			return fmt.Errorf("reject job id %d: it is %s, not waiting", j.ID, statusName(st))
		}
		if r.Attempts > 0 {
			// Its record would have to be both a rejection and runs.
			return fmt.Errorf("reject job id %d: it ran, until an outage of nodes ended its run; a job that ran is not rejected", j.ID)
		}
		e.status[i] = statusDone
		r.Index, r.Cluster, r.Start, r.End, r.Rejected = i, -1, now, now, true
		if e.grid != nil {
			e.grid.release(i)
		}
		if e.deps != nil {
			// Its user has the answer: what depends on it follows.
			e.deps.release(i, now)
		}
		// The queue drops it like a started job.
		e.started = append(e.started, i)
	}
	return nil
}
