// Package grid holds what the policies of a grid of clusters share
// (Kovalenko, Kovalenko, Koryagin and Lyubimsky 2006, "lookahead
// scheduling"): each cluster runs its own batch system over a local stream
// of jobs (sdk.Job.Home), while a grid broker places a global stream.
//
//   - Book mirrors the advance reservations a policy holds, and the
//     engine's rule for accepting one, so that a policy knows within a call
//     whether a reservation holds.
//   - Plan is the local batch system: it plans a cluster's queue in
//     priority order, each job at the earliest time it fits beside the
//     running jobs (to their walltimes), the held reservations and the jobs
//     planned before it. Its plan is also the cluster's forecast, the
//     paper's local schedule.
//   - Market turns forecasts into prices, PR(t) = C * P(t) * F(R) per
//     processor-second, and finds for a global job the earliest allocation
//     whose price is within its payment: on each cluster as one pool of
//     processors, or per computer as the paper does (Slots).
//   - ShipNow says when to reserve and ship: the paper's two conditions
//     as written (ShipEither) or one of our readings of them.
//
// Everything here counts processors (resource 0) only, as the paper does:
// grid platforms have no other resource.
package grid

import (
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// Hold is an advance reservation a policy holds: Job's request on Cluster
// over [At, End).
type Hold struct {
	Job     *sdk.Job
	Cluster int
	At, End int64
}

// Book is a policy's copy of the reservations it holds. The engine shows
// refusals only at the next call; Book applies the engine's rule itself
// (sdk.ActionReserve), so a policy that reserves through it knows at once
// whether the reservation holds, and can plan the cluster around it in the
// same call. Its zero value holds nothing.
type Book struct {
	holds  []Hold
	queued map[int]bool
}

// Sync forgets the reservations of jobs that are no longer waiting (they
// started, or were rejected) and those that lapsed: a reservation whose
// time passed without its job starting holds nothing in the engine either.
// Call it first at every Schedule call.
func (b *Book) Sync(s *sdk.State) {
	if b.queued == nil {
		b.queued = map[int]bool{}
	}
	clear(b.queued)
	for _, j := range s.Queue {
		b.queued[j.Index] = true
	}
	kept := b.holds[:0]
	for _, h := range b.holds {
		if b.queued[h.Job.Index] && h.At >= s.Now {
			kept = append(kept, h)
		}
	}
	clear(b.holds[len(kept):])
	b.holds = kept
}

// Holds returns the reservations held on cluster c, appended to dst.
func (b *Book) Holds(c int, dst []Hold) []Hold {
	for _, h := range b.holds {
		if h.Cluster == c {
			dst = append(dst, h)
		}
	}
	return dst
}

// Of returns the reservation job j holds, if any.
func (b *Book) Of(j *sdk.Job) (Hold, bool) {
	for _, h := range b.holds {
		if h.Job == j {
			return h, true
		}
	}
	return Hold{}, false
}

// Fits reports whether the engine would accept a reservation of j on
// cluster c at time at: whether j's processors are free throughout
// [at, at+walltime) beside the jobs running on c (each to its walltime) and
// the reservations held there, j's own left out. It checks capacity only:
// what the engine takes for an error rather than a refusal (a time before
// now, before the job can arrive or past the run's horizon, a cluster with
// divided resources) is the caller's to avoid. It reads s.Running as the
// call began, so a policy reserves before it starts jobs in a call.
func (b *Book) Fits(s *sdk.State, j *sdk.Job, c int, at int64) bool {
	end := at + j.Walltime
	capacity := s.Platform.Clusters[c].Capacity[0]
	use := func(t int64) int64 {
		u := j.Request[0]
		for _, r := range s.Running {
			if r.Cluster == c && r.ExpectedEnd > t {
				u += r.Job.Request[0]
			}
		}
		for _, h := range b.holds {
			if h.Cluster == c && h.Job != j && h.At <= t && t < h.End {
				u += h.Job.Request[0]
			}
		}
		return u
	}
	// Use only grows where a reservation starts.
	if use(at) > capacity {
		return false
	}
	for _, h := range b.holds {
		if h.Cluster == c && h.Job != j && h.At > at && h.At < end && use(h.At) > capacity {
			return false
		}
	}
	return true
}

// Reserve returns the decision reserving j on cluster c at time at, and
// whether the engine will accept it (Fits); an accepted reservation
// replaces the one j held. A refused one is still worth sending: the
// engine records the refusal.
func (b *Book) Reserve(s *sdk.State, j *sdk.Job, c int, at int64) (sdk.Decision, bool) {
	d := sdk.Reserve(j, c, at)
	if !b.Fits(s, j, c, at) {
		return d, false
	}
	b.holds = removeHold(b.holds, j)
	b.holds = append(b.holds, Hold{Job: j, Cluster: c, At: at, End: at + j.Walltime})
	return d, true
}

func removeHold(hs []Hold, j *sdk.Job) []Hold {
	for i, h := range hs {
		if h.Job == j {
			return append(hs[:i], hs[i+1:]...)
		}
	}
	return hs
}

// Profile returns the availability of cluster c as the engine sees it:
// its free processors now, each running job's released at its walltime,
// and each held reservation taken. It reuses p when not nil.
func (b *Book) Profile(s *sdk.State, c int, p *plan.Profile) *plan.Profile {
	if p == nil {
		p = plan.FromState(s, c)
	} else {
		p.ResetFromState(s, c)
	}
	for _, h := range b.holds {
		if h.Cluster == c && h.End > s.Now {
			// Accepted reservations fit (Fits), so this cannot fail.
			_ = p.Reserve(max(h.At, s.Now), h.End-max(h.At, s.Now), h.Job.Request)
		}
	}
	return p
}
