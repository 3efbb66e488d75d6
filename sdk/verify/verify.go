// Package verify replays a schedule returned by a policy against the workload
// the host sent, trusting nothing it can check: a plugin binary is code of
// unknown origin, and every metric is computed from records this package
// accepted.
package verify

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// maxProblems bounds the problems listed in one error.
const maxProblems = 10

// Records checks recs against jobs (sorted with sim.Sort) on platform p:
// every job exactly once and in index order, start >= submit, end = start +
// min(runtime, walltime), the killed and backfilled flags consistent, any
// promise not before submit, and no resource of any cluster over capacity at
// any instant (a job ending at t frees its resources for a job starting at t).
// It is Result for a run without placements, so it fails on a platform with
// divided resources.
func Records(p *sdk.Platform, jobs []sim.Input, recs []sim.Record) error {
	return Result(p, jobs, &sim.Result{Records: recs})
}

// Result checks res as Records checks its records, and, on a platform with
// divided resources (sdk.Units), each job's placement: as many pieces as it
// has, on units of its cluster, and no unit over its capacity at any instant.
func Result(p *sdk.Platform, jobs []sim.Input, res *sim.Result) error {
	c := NewChecker(p, jobs)
	c.Add(res.Records)
	return c.Finish(res.Units, res.Allocs)
}

// A Checker makes the checks of Result on records that arrive in pieces, in
// index order, as a plugin streams them: Add checks each record against its
// job when it arrives and sorts the piece's starts and ends for the capacity
// sweep, so that most of the work is done while the run is still going on and
// Finish has little left. Result is NewChecker, one Add of all records and
// Finish; the checks, and the errors, are the same however the records are
// cut into pieces.
type Checker struct {
	p        *sdk.Platform
	jobs     []sim.Input
	n        int // records added
	maxStart int64
	problems []string
	// clusters holds each added record's cluster, for the sweep and the
	// placements.
	clusters []int32
	rejected []bool
	// ch holds the starts and ends of the records added, in sorted runs
	// ending at the offsets in runs; runs are merged as they pile up.
	ch      []change
	runs    []int
	scratch []change
	keys    []int64 // sortChanges' buffer
	// fb holds what the checks of dependent jobs need; nil when no job
	// depends on another.
	fb *feedback
	// ot holds what the checks of a run with outages need (Expect); nil
	// for a run without.
	ot          *outageRun
	finalAllocs *sim.Allocs
	// io says that the run has an I/O model (ExpectIO).
	io bool
	// drains are the nodes the policy drained (SetDrains).
	drains []sim.PolicyDrain
}

// NewChecker returns a Checker of the records of a run of jobs (sorted with
// sim.Sort) on platform p. It allocates nothing big before the first Add,
// so that a host can make it before starting a run without delaying it.
func NewChecker(p *sdk.Platform, jobs []sim.Input) *Checker {
	c := &Checker{p: p, jobs: jobs}
	for k := range jobs {
		if jobs[k].After != 0 || jobs[k].Think != 0 {
			c.fb = &feedback{}
			break
		}
	}
	return c
}

func (c *Checker) add(format string, args ...any) bool {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
	return len(c.problems) < maxProblems
}

// checkGrid checks what a record says of the grid rules: a local job runs
// at home; a job that requires features runs and is reserved for only on
// a cluster that has them; a job with a transfer time was shipped, after its submission,
// and starts once it has arrived; a reservation is on a cluster that exists
// and not before the submission; a charge is a number between 0 and the
// job's payment.
func (c *Checker) checkGrid(j *sdk.Job, r *sim.Record) bool {
	p := c.p
	switch {
	case j.Home < 0 || int(j.Home) > len(p.Clusters):
		return c.add("job id %d: home %d is not a cluster of the platform", j.ID, j.Home)
	case j.Home > 0 && int(r.Cluster) != int(j.Home)-1:
		return c.add("job id %d: a local job of cluster %q runs on cluster %q", j.ID, p.Clusters[j.Home-1].Name, p.Clusters[r.Cluster].Name)
	case j.Requires != 0 && !p.Serves(int(r.Cluster), j):
		return c.add("job id %d: it requires features %s and runs on cluster %q, which has %s", j.ID,
			p.FeatureList(j.Requires), p.Clusters[r.Cluster].Name, p.FeatureList(p.FeatureMask(int(r.Cluster))))
	case j.Requires != 0 && r.Reserved && r.ReservedCluster >= 0 && int(r.ReservedCluster) < len(p.Clusters) && !p.Serves(int(r.ReservedCluster), j):
		return c.add("job id %d: it requires features %s and holds a reservation on cluster %q, which lacks them", j.ID,
			p.FeatureList(j.Requires), p.Clusters[r.ReservedCluster].Name)
	case j.Transfer > 0 && !r.Shipped:
		return c.add("job id %d: it needs a transfer of %d s but was never shipped", j.ID, j.Transfer)
	case r.Shipped && (r.ShipTime < j.Submit || r.ShipTime > r.Start):
		return c.add("job id %d: shipped at %d, outside its submission %d and start %d", j.ID, r.ShipTime, j.Submit, r.Start)
	case r.Shipped && r.Start-r.ShipTime < j.Transfer:
		return c.add("job id %d: starts at %d, shipped at %d with a transfer of %d s", j.ID, r.Start, r.ShipTime, j.Transfer)
	case r.Reserved && (r.ReservedCluster < 0 || int(r.ReservedCluster) >= len(p.Clusters) || r.ReservedAt < j.Submit ||
		r.ReservedAt > sim.Horizon(len(c.jobs))):
		return c.add("job id %d: a reservation on cluster %d at %d is not possible", j.ID, r.ReservedCluster, r.ReservedAt)
	case r.Refusals < 0:
		return c.add("job id %d: %d refusals", j.ID, r.Refusals)
	case r.Charged && !(r.Cost >= 0 && r.Cost <= j.Priority):
		return c.add("job id %d: charged %v, outside 0 and its payment %v", j.ID, r.Cost, j.Priority)
	}
	return true
}

// checkRejected checks the record of a job the policy rejected: it never
// ran, so it has no cluster and no duration, it was rejected while it
// waited, and it holds nothing a start gives.
func (c *Checker) checkRejected(j *sdk.Job, r *sim.Record) bool {
	switch {
	case r.Cluster != -1 || r.End != r.Start:
		return c.add("job id %d: rejected, yet on cluster %d from %d to %d", j.ID, r.Cluster, r.Start, r.End)
	case r.Start < j.Submit || r.Start > sim.Horizon(len(c.jobs)):
		return c.add("job id %d: rejected at %d, outside its submission %d and the run's horizon", j.ID, r.Start, j.Submit)
	case r.Killed || r.Backfilled:
		return c.add("job id %d: rejected, yet killed (%v) or backfilled (%v)", j.ID, r.Killed, r.Backfilled)
	case r.Shipped && (r.ShipTime < j.Submit || r.ShipTime > r.Start):
		return c.add("job id %d: shipped at %d, outside its submission %d and rejection %d", j.ID, r.ShipTime, j.Submit, r.Start)
	case r.Charged && !(r.Cost >= 0 && r.Cost <= j.Priority):
		return c.add("job id %d: charged %v, outside 0 and its payment %v", j.ID, r.Cost, j.Priority)
	}
	return true
}

// Add checks the next records, which must continue those added before: the
// first record of the first call is that of job index 0. It keeps no
// reference to recs. Problems are reported by Finish.
func (c *Checker) Add(recs []sim.Record) {
	first := c.n
	c.n += len(recs)
	if c.n > len(c.jobs) || len(c.problems) >= maxProblems {
		// Finish reports the count, which comes first; past maxProblems
		// Result stops looking.
		return
	}
	p := c.p
	for k := range recs {
		i := first + k
		r, in := &recs[k], &c.jobs[i]
		j := &in.Job
		ok := true
		if c.fb != nil {
			// A dependent job's submission is its predecessor's end plus
			// its think time: every check below is against it.
			if j, ok = c.submitted(i, j, r); !ok {
				break
			}
		}
		if c.ot != nil {
			c.ot.recs = append(c.ot.recs, *r)
			c.ot.submit = append(c.ot.submit, j.Submit)
		}
		switch {
		case in.Runtime > sim.MaxTime || j.Walltime > sim.MaxTime || j.Submit > sim.MaxTime || j.Submit < -sim.MaxTime:
			ok = c.add("job id %d: submit %d, runtime %d or walltime %d beyond sim.MaxTime: the workload itself is invalid", j.ID, j.Submit, in.Runtime, j.Walltime)
		case int(r.Index) != i:
			ok = c.add("record %d is for job index %d: each job must appear exactly once, in index order", i, r.Index)
		case r.Rejected:
			ok = c.checkRejected(j, r)
		case r.Cluster < 0 || int(r.Cluster) >= len(p.Clusters):
			ok = c.add("job id %d: cluster %d does not exist", j.ID, r.Cluster)
		case !j.Request.Fits(p.Clusters[r.Cluster].Capacity):
			ok = c.add("job id %d: request %v exceeds cluster %q", j.ID, []int64(j.Request), p.Clusters[r.Cluster].Name)
		case r.Start < j.Submit:
			ok = c.add("job id %d: starts at %d before its submission at %d", j.ID, r.Start, j.Submit)
		case r.Start > 2*sim.Horizon(len(c.jobs)):
			// Past any schedule the engine can make; also keeps the
			// arithmetic below from overflowing.
			ok = c.add("job id %d: starts at %d, after twice the run's horizon %d (sim.Horizon)", j.ID, r.Start, sim.Horizon(len(c.jobs)))
		case c.ot != nil && r.Interrupted != 0:
			ok = c.interruptedOK(j, in, r)
		case r.Interrupted != 0 || r.Attempts != 0 && c.ot == nil:
			ok = c.add("job id %d: %d attempts, the last ended by an outage of kind %d, in a run without outages", j.ID, r.Attempts, r.Interrupted)
		case c.io:
			ok = c.ioBoundsOK(j, in, r)
		case !c.checkpointing() && r.End != r.Start+min(in.Runtime, j.Walltime):
			ok = c.add("job id %d: ends at %d, expected start %d + min(runtime %d, walltime %d)", j.ID, r.End, r.Start, in.Runtime, j.Walltime)
		case !c.checkpointing() && r.Killed != (in.Runtime > j.Walltime):
			ok = c.add("job id %d: killed flag %v, but runtime %d and walltime %d", j.ID, r.Killed, in.Runtime, j.Walltime)
		case r.HasPromise && r.Promised < j.Submit:
			ok = c.add("job id %d: promised start %d before its submission at %d", j.ID, r.Promised, j.Submit)
		case r.HasPromise && r.Promised > sim.Horizon(len(c.jobs)):
			ok = c.add("job id %d: promised start %d after the run's horizon %d (sim.Horizon)", j.ID, r.Promised, sim.Horizon(len(c.jobs)))
		case c.fb == nil && c.ot == nil && r.Backfilled != (i > 0 && c.maxStart > r.Start):
			// With dependencies, submit order is not index order, and with
			// outages a requeued job waits again: Finish checks the flag
			// (feedback.checkBackfilled, outageBackfilled).
			ok = c.add("job id %d: backfilled flag %v, but the latest start of earlier jobs is %d and it starts at %d", j.ID, r.Backfilled, c.maxStart, r.Start)
		default:
			ok = c.checkGrid(j, r)
		}
		if !ok {
			break
		}
		if i == 0 || r.Start > c.maxStart {
			// Not max(0, ...): start times may be negative.
			c.maxStart = r.Start
		}
	}
	if len(c.problems) > 0 {
		// The sweep is not made when a record is wrong.
		return
	}
	if c.ch == nil {
		c.clusters = make([]int32, 0, len(c.jobs))
		c.rejected = make([]bool, 0, len(c.jobs))
		c.ch = make([]change, 0, 2*len(c.jobs))
	}
	base := len(c.ch)
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for k := range recs {
		i := int32(first + k)
		c.clusters = append(c.clusters, recs[k].Cluster)
		c.rejected = append(c.rejected, recs[k].Rejected)
		if recs[k].Rejected {
			// It never held anything.
			continue
		}
		c.ch = append(c.ch, change{recs[k].Start, 1, i}, change{recs[k].End, -1, i})
		// End > Start: the end was checked above and runtimes are >= 1.
		lo, hi = min(lo, recs[k].Start), max(hi, recs[k].End)
	}
	c.keys = sortChanges(c.ch[base:], lo, hi, len(c.jobs), c.keys, true)
	c.runs = append(c.runs, len(c.ch))
	// Merge while a run is no longer than the one after it: run lengths then
	// at least double towards the bottom, so that every change is moved
	// O(log pieces) times in all.
	for len(c.runs) >= 2 && c.runLen(len(c.runs)-2) <= c.runLen(len(c.runs)-1) {
		c.mergeTop()
	}
}

// runLen returns the length of run k.
func (c *Checker) runLen(k int) int {
	if k == 0 {
		return c.runs[0]
	}
	return c.runs[k] - c.runs[k-1]
}

// mergeTop merges the last two runs into one.
func (c *Checker) mergeTop() {
	k := len(c.runs) - 2
	lo := 0
	if k > 0 {
		lo = c.runs[k-1]
	}
	mid, hi := c.runs[k], c.runs[k+1]
	left := append(c.scratch[:0], c.ch[lo:mid]...)
	c.scratch = left
	right := c.ch[mid:hi]
	out := c.ch[lo:hi]
	a, b, o := 0, 0, 0
	for a < len(left) && b < len(right) {
		if compareChanges(right[b], left[a]) < 0 {
			out[o] = right[b]
			b++
		} else {
			out[o] = left[a]
			a++
		}
		o++
	}
	// What is left of right is already in place.
	copy(out[o:], left[a:])
	c.runs = append(c.runs[:k], hi)
}

// Finish makes the checks that need every record: as many records as jobs,
// then the placements on divided resources (units is sim.Result.Units),
// then, on a platform of nodes, each job's allocation (allocs is
// sim.Result.Allocs) and every node's usage at every instant, then the
// capacity of every resource at every instant. It returns the problems
// found, nil for a valid schedule. A Checker is spent after Finish.
func (c *Checker) Finish(units []int32, allocs *sim.Allocs) error {
	if c.n != len(c.jobs) {
		return fmt.Errorf("verify: %d records for %d jobs", c.n, len(c.jobs))
	}
	if len(c.problems) > 0 {
		return errors.New("verify: " + strings.Join(c.problems, "; "))
	}
	if c.fb != nil && c.ot == nil {
		if err := c.fb.checkBackfilled(c.jobs); err != nil {
			return err
		}
	}
	if err := placements(c.p, c.jobs, c.clusters, units); err != nil {
		return err
	}
	for len(c.runs) > 1 {
		c.mergeTop()
	}
	if err := nodes(c.p, c.jobs, c.rejected, allocs, c.ch); err != nil {
		return err
	}
	if err := capacity(c.p, c.jobs, c.clusters, units, c.ch); err != nil {
		return err
	}
	if err := c.checkDrains(allocs); err != nil {
		return err
	}
	if c.ot != nil {
		c.finalAllocs = allocs
		return c.checkOutages()
	}
	return nil
}

// placements checks that every job's placement holds its pieces on units of
// its own cluster.
func placements(p *sdk.Platform, jobs []sim.Input, clusters []int32, units []int32) error {
	stride := p.UnitStride()
	if want := stride * len(jobs); len(units) != want {
		return fmt.Errorf("verify: %d placement entries for %d jobs on a platform of %d units", len(units), len(jobs), stride)
	}
	if stride == 0 {
		return nil // no cluster has units
	}
	for i, cl := range clusters {
		c := &p.Clusters[cl]
		pl := units[i*stride : (i+1)*stride]
		id := jobs[i].Job.ID
		off := 0
		for _, u := range c.Units {
			n, _, err := u.Pieces(jobs[i].Job.Request)
			if err != nil {
				return fmt.Errorf("verify: job id %d %s %s", id, err, p.Resources[u.Resource])
			}
			var sum int64
			for _, x := range pl[off : off+len(u.Capacity)] {
				if x < 0 {
					return fmt.Errorf("verify: job id %d: %d pieces on a unit of %s", id, x, p.Resources[u.Resource])
				}
				sum += int64(x)
			}
			if sum != n {
				return fmt.Errorf("verify: job id %d: placement of %d pieces of %s, the job has %d", id, sum, p.Resources[u.Resource], n)
			}
			off += len(u.Capacity)
		}
		for _, x := range pl[off:] {
			if x != 0 {
				return fmt.Errorf("verify: job id %d: pieces on units cluster %q does not have", id, c.Name)
			}
		}
	}
	return nil
}

type change struct {
	at    int64
	delta int8 // -1 for an end, +1 for a start: ends sort first
	idx   int32
}

// sortChanges sorts ch, whose times lie in [lo, hi] and job indices below
// n, by compareChanges, and returns keys, a buffer for the next call.
// Packed into one int64 each (time from lo, then ends before starts, then
// the index), the changes sort with slices.Sort, about three times faster
// than with a comparison function (600,000 changes on CEA-Curie); pack
// false, or times too far apart to pack, take the comparison sort.
func sortChanges(ch []change, lo, hi int64, n int, keys []int64, pack bool) []int64 {
	ib := bits.Len(uint(n))
	if !pack || len(ch) == 0 || hi-lo < 0 || bits.Len64(uint64(hi-lo))+ib+1 > 63 {
		slices.SortFunc(ch, compareChanges)
		return keys
	}
	keys = keys[:0]
	for _, x := range ch {
		var start int64 // ends (delta -1) sort before starts
		if x.delta > 0 {
			start = 1
		}
		keys = append(keys, (x.at-lo)<<(ib+1)|start<<ib|int64(x.idx))
	}
	slices.Sort(keys)
	for k, key := range keys {
		ch[k] = change{at: key>>(ib+1) + lo, delta: int8(2*(key>>ib&1) - 1), idx: int32(key & (1<<ib - 1))}
	}
	return keys
}

// compareChanges orders changes by time, ends before starts, then by job
// index, so that the order, and the job an error names, does not depend on
// how the records were cut into pieces.
func compareChanges(a, b change) int {
	if c := cmp.Compare(a.at, b.at); c != 0 {
		return c
	}
	if c := cmp.Compare(a.delta, b.delta); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// capacity sweeps the changes ch, sorted by compareChanges, and checks every
// cluster's usage of every resource.
func capacity(p *sdk.Platform, jobs []sim.Input, clusters []int32, units []int32, ch []change) error {
	used := make([]sdk.Vector, len(p.Clusters))
	usedUnits := make([][]int64, len(p.Clusters))
	for c := range used {
		used[c] = make(sdk.Vector, p.Dims())
		usedUnits[c] = make([]int64, p.Clusters[c].UnitCount())
	}
	stride := p.UnitStride()
	for _, c := range ch {
		rc := clusters[c.idx]
		u := used[rc]
		req := jobs[c.idx].Job.Request
		cl := &p.Clusters[rc]
		if c.delta < 0 {
			u.Sub(req)
		} else {
			u.Add(req)
		}
		off := 0
		for _, un := range cl.Units {
			_, size, _ := un.Pieces(req) // checked by placements
			for x, capa := range un.Capacity {
				uu := &usedUnits[rc][off+x]
				*uu += int64(c.delta) * int64(units[int(c.idx)*stride+off+x]) * size
				if *uu > capa {
					return fmt.Errorf("verify: at t=%d, starting job id %d makes unit %d of %s of cluster %q hold %d of %d",
						c.at, jobs[c.idx].Job.ID, x, p.Resources[un.Resource], cl.Name, *uu, capa)
				}
			}
			off += len(un.Capacity)
		}
		if c.delta < 0 {
			continue
		}
		for k := range u {
			if u[k] > cl.Capacity[k] {
				return fmt.Errorf("verify: at t=%d, starting job id %d makes cluster %q use %d %s of %d",
					c.at, jobs[c.idx].Job.ID, cl.Name, u[k], p.Resources[k], cl.Capacity[k])
			}
		}
	}
	return nil
}
