package metrics

import (
	"math"
	"math/bits"
	"slices"

	"github.com/schedlab/schedlab/sdk/sim"
)

// BackfillErrors counts the backfilled jobs that delayed the job at the
// head of the queue, the "errors" of probabilistic backfilling (Nissimov &
// Feitelson 2007; Mazalov & Nikitina 2012), judged from the schedule alone.
//
// A job i started at time s_i is backfilled when a job submitted before it
// is still waiting at s_i (sim.Record.Backfilled). Its head h is the
// earliest-submitted job waiting at s_i (submit_h <= s_i < start_h, lowest
// index). Backfilling i was an error when, at some time t with
// s_i < t < min(end_i, start_h) at which jobs end, h would have fitted had
// i not been running: the processors free just after the jobs ending at t
// (before any job starting at t takes them) plus i's processors reach h's
// request. That is the paper's event: a completion frees enough for the
// head, but not for the head and the backfilled job together.
//
// Only processors (resource 0) count, and only one cluster: on a platform
// of several clusters the count is -1 (not defined).
func BackfillErrors(capacity int64, clusters int, jobs []sim.Input, recs []sim.Record) int {
	if clusters != 1 || slices.ContainsFunc(recs, func(r sim.Record) bool { return r.Rejected }) {
		return -1
	}
	n := len(recs)
	// The free processors after each end and the backfilled jobs in start
	// order are independent: compute them side by side.
	var endTimes, freeAt []int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		endTimes, freeAt = freeAfterEnds(capacity, jobs, recs, true)
	}()
	backfilled := backfilledByStart(recs, true)
	<-done

	// The head at each backfilled start is the lowest index submitted by
	// then and not yet started. The starts of the backfilled jobs only grow,
	// and a job started by one of them is started by every later one, so
	// the head never moves back: one pass over the jobs finds them all.
	h, next := 0, 0 // jobs are in submit order: next is the first not yet submitted
	errs := 0
	for _, i := range backfilled {
		si := recs[i].Start
		for next < n && jobs[next].Job.Submit <= si {
			next++
		}
		for h < next && recs[h].Start <= si {
			h++
		}
		if h == next {
			continue // nothing waits
		}
		if h >= i {
			continue
		}
		need := jobs[h].Job.Request[0] - jobs[i].Job.Request[0]
		until := min(recs[i].End, recs[h].Start)
		k, _ := slices.BinarySearch(endTimes, si+1)
		for ; k < len(endTimes) && endTimes[k] < until; k++ {
			if freeAt[k] >= need {
				errs++
				break
			}
		}
	}
	return errs
}

// backfilledByStart returns the indices of the backfilled jobs ordered by
// start time, then index. Packed into one int64 each (start from the
// earliest, then the index) they sort with sortKeys, several times
// faster than a comparison function; pack false, or starts too far apart
// to pack, take the comparison sort.
func backfilledByStart(recs []sim.Record, pack bool) []int {
	var backfilled []int
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range recs {
		if recs[i].Backfilled {
			backfilled = append(backfilled, i)
			lo, hi = min(lo, recs[i].Start), max(hi, recs[i].Start)
		}
	}
	ib := bits.Len64(uint64(len(recs)))
	if pack && len(backfilled) > 0 && lo >= 0 && bits.Len64(uint64(hi-lo))+ib <= 63 {
		keys := make([]int64, len(backfilled))
		for k, i := range backfilled {
			keys[k] = (recs[i].Start-lo)<<ib | int64(i)
		}
		sortKeys(keys)
		for k, key := range keys {
			backfilled[k] = int(key & (1<<ib - 1))
		}
		return backfilled
	}
	slices.SortFunc(backfilled, func(a, b int) int {
		if c := cmpInt(recs[a].Start, recs[b].Start); c != 0 {
			return c
		}
		return a - b
	})
	return backfilled
}

// freeAfterEnds returns the times at which jobs end, in increasing order,
// and the processors free just after the ends at each (before any start at
// that time takes them).
//
// Starts and ends must be sorted by time. Packed into one int64 each (time
// from the earliest, then the processors, then whether it is an end), they
// sort with sortKeys (a radix sort, about four times faster than
// slices.Sort, itself about three times faster than a comparison function
// on CEA-Curie's 600,000 events); pack false, or times and processors too wide
// to pack, take the comparison sort.
func freeAfterEnds(capacity int64, jobs []sim.Input, recs []sim.Record, pack bool) (endTimes, freeAt []int64) {
	n := len(recs)
	lo, hi, pmax := int64(math.MaxInt64), int64(math.MinInt64), int64(0)
	for i := range recs {
		lo, hi, pmax = min(lo, recs[i].Start), max(hi, recs[i].End), max(pmax, jobs[i].Job.Request[0])
	}
	// Bits: the time since lo, the processors, one for the kind.
	pb := bits.Len64(uint64(pmax))
	if !pack || n == 0 || lo < 0 || bits.Len64(uint64(hi-lo))+pb+1 > 63 {
		return freeAfterEndsCompared(capacity, jobs, recs)
	}
	keys := make([]int64, 0, 2*n)
	for i := range recs {
		p := jobs[i].Job.Request[0]
		keys = append(keys, (recs[i].Start-lo)<<(pb+1)|p<<1, (recs[i].End-lo)<<(pb+1)|p<<1|1)
	}
	sortKeys(keys)
	endTimes, freeAt = make([]int64, 0, n), make([]int64, 0, n)
	free := capacity
	for k := 0; k < len(keys); {
		at := keys[k] >> (pb + 1)
		var freed, taken int64
		for ; k < len(keys) && keys[k]>>(pb+1) == at; k++ {
			if p := keys[k] >> 1 & (1<<pb - 1); keys[k]&1 == 1 {
				freed += p
			} else {
				taken += p
			}
		}
		if freed > 0 {
			endTimes = append(endTimes, at+lo)
			freeAt = append(freeAt, free+freed)
		}
		free += freed - taken
	}
	return endTimes, freeAt
}

// freeAfterEndsCompared is freeAfterEnds with a comparison sort, for times
// and processors too wide to pack.
func freeAfterEndsCompared(capacity int64, jobs []sim.Input, recs []sim.Record) (endTimes, freeAt []int64) {
	type ev struct {
		at    int64
		delta int64 // + for an end (processors come back), - for a start
	}
	evs := make([]ev, 0, 2*len(recs))
	for i := range recs {
		p := jobs[i].Job.Request[0]
		evs = append(evs, ev{recs[i].Start, -p}, ev{recs[i].End, p})
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmpInt(a.at, b.at) })
	free := capacity
	for k := 0; k < len(evs); {
		t := evs[k].at
		var freed, taken int64
		for ; k < len(evs) && evs[k].at == t; k++ {
			if evs[k].delta > 0 {
				freed += evs[k].delta
			} else {
				taken -= evs[k].delta
			}
		}
		if freed > 0 {
			endTimes = append(endTimes, t)
			freeAt = append(freeAt, free+freed)
		}
		free += freed - taken
	}
	return endTimes, freeAt
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
