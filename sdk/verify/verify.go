// Package verify replays a schedule returned by a policy against the workload
// the host sent, trusting nothing it can check: a plugin binary is code of
// unknown origin, and every metric is computed from records this package
// accepted.
package verify

import (
	"cmp"
	"errors"
	"fmt"
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
	recs := res.Records
	var problems []string
	add := func(format string, args ...any) bool {
		problems = append(problems, fmt.Sprintf(format, args...))
		return len(problems) < maxProblems
	}
	if len(recs) != len(jobs) {
		return fmt.Errorf("verify: %d records for %d jobs", len(recs), len(jobs))
	}
	var maxStart int64
	for i := range recs {
		r, in := &recs[i], &jobs[i]
		j := &in.Job
		ok := true
		switch {
		case int(r.Index) != i:
			ok = add("record %d is for job index %d: each job must appear exactly once, in index order", i, r.Index)
		case r.Cluster < 0 || int(r.Cluster) >= len(p.Clusters):
			ok = add("job id %d: cluster %d does not exist", j.ID, r.Cluster)
		case !j.Request.Fits(p.Clusters[r.Cluster].Capacity):
			ok = add("job id %d: request %v exceeds cluster %q", j.ID, []int64(j.Request), p.Clusters[r.Cluster].Name)
		case r.Start < j.Submit:
			ok = add("job id %d: starts at %d before its submission at %d", j.ID, r.Start, j.Submit)
		case r.End != r.Start+min(in.Runtime, j.Walltime):
			ok = add("job id %d: ends at %d, expected start %d + min(runtime %d, walltime %d)", j.ID, r.End, r.Start, in.Runtime, j.Walltime)
		case r.Killed != (in.Runtime > j.Walltime):
			ok = add("job id %d: killed flag %v, but runtime %d and walltime %d", j.ID, r.Killed, in.Runtime, j.Walltime)
		case r.HasPromise && r.Promised < j.Submit:
			ok = add("job id %d: promised start %d before its submission at %d", j.ID, r.Promised, j.Submit)
		case r.Backfilled != (i > 0 && maxStart > r.Start):
			ok = add("job id %d: backfilled flag %v, but the latest start of earlier jobs is %d and it starts at %d", j.ID, r.Backfilled, maxStart, r.Start)
		}
		if !ok {
			break
		}
		if i == 0 || r.Start > maxStart {
			// Not max(0, ...): start times may be negative.
			maxStart = r.Start
		}
	}
	if len(problems) == 0 {
		if err := placements(p, jobs, res); err != nil {
			return err
		}
		return capacity(p, jobs, res)
	}
	return errors.New("verify: " + strings.Join(problems, "; "))
}

// placements checks that every job's placement holds its pieces on units of
// its own cluster.
func placements(p *sdk.Platform, jobs []sim.Input, res *sim.Result) error {
	stride := p.UnitStride()
	if want := stride * len(jobs); len(res.Units) != want {
		return fmt.Errorf("verify: %d placement entries for %d jobs on a platform of %d units", len(res.Units), len(jobs), stride)
	}
	for i := range res.Records {
		c := &p.Clusters[res.Records[i].Cluster]
		pl := res.Units[i*stride : (i+1)*stride]
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

// capacity sweeps starts and ends in time order, ends before starts at equal
// times, and checks every cluster's usage of every resource.
func capacity(p *sdk.Platform, jobs []sim.Input, res *sim.Result) error {
	recs := res.Records
	ch := make([]change, 0, 2*len(recs))
	for i := range recs {
		ch = append(ch, change{recs[i].Start, 1, int32(i)}, change{recs[i].End, -1, int32(i)})
	}
	slices.SortFunc(ch, func(a, b change) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta)
	})
	used := make([]sdk.Vector, len(p.Clusters))
	usedUnits := make([][]int64, len(p.Clusters))
	for c := range used {
		used[c] = make(sdk.Vector, p.Dims())
		usedUnits[c] = make([]int64, p.Clusters[c].UnitCount())
	}
	stride := p.UnitStride()
	for _, c := range ch {
		r := &recs[c.idx]
		u := used[r.Cluster]
		req := jobs[c.idx].Job.Request
		cl := &p.Clusters[r.Cluster]
		if c.delta < 0 {
			u.Sub(req)
		} else {
			u.Add(req)
		}
		off := 0
		for _, un := range cl.Units {
			_, size, _ := un.Pieces(req) // checked by placements
			for x, capa := range un.Capacity {
				uu := &usedUnits[r.Cluster][off+x]
				*uu += int64(c.delta) * int64(res.Units[int(c.idx)*stride+off+x]) * size
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
