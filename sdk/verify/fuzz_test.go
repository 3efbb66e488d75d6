package verify_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// bytesSource draws values from fuzz input, 0 once it is used up.
type bytesSource []byte

func (b *bytesSource) byte() byte {
	if len(*b) == 0 {
		return 0
	}
	x := (*b)[0]
	*b = (*b)[1:]
	return x
}

// time draws a time: mostly small, sometimes one of the extremes where
// arithmetic overflows.
func (b *bytesSource) time() int64 {
	extremes := [...]int64{math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, sim.MaxTime, sim.MaxTime + 1, -sim.MaxTime - 1,
		2 * sim.Horizon(4), 2*sim.Horizon(4) + 1, math.MaxInt64 / 2}
	x := b.byte()
	if x >= 240 {
		return extremes[int(x-240)%len(extremes)]
	}
	return int64(x % 40)
}

// oracle says whether the records are a valid schedule of the jobs on one
// cluster of capacity procs, rule by rule and the slow way, with no
// arithmetic that can overflow.
func oracle(procs int64, jobs []sim.Input, recs []sim.Record) bool {
	if len(recs) != len(jobs) {
		return false
	}
	h := sim.Horizon(len(jobs))
	maxStart := int64(math.MinInt64)
	for i, r := range recs {
		in, j := jobs[i], jobs[i].Job
		if in.Runtime > sim.MaxTime || j.Walltime > sim.MaxTime || j.Submit > sim.MaxTime || j.Submit < -sim.MaxTime {
			return false
		}
		dur := min(in.Runtime, j.Walltime)
		switch {
		case int(r.Index) != i, r.Cluster != 0, j.Request[0] > procs, r.Start < j.Submit, r.Start > 2*h,
			r.End-r.Start != dur, // no overflow: |Start| <= 2h, |End| checked below
			r.End < r.Start,
			r.Killed != (in.Runtime > j.Walltime),
			r.HasPromise && (r.Promised < j.Submit || r.Promised > h),
			r.Backfilled != (i > 0 && maxStart > r.Start):
			return false
		}
		maxStart = max(maxStart, r.Start)
	}
	for i := range recs {
		var used int64
		for k := range recs {
			if recs[k].Start <= recs[i].Start && recs[i].Start < recs[k].End {
				used += jobs[k].Job.Request[0]
			}
		}
		if used > procs {
			return false
		}
	}
	return true
}

// FuzzRecords checks the host's verification against the oracle on
// schedules drawn from fuzz input: small workloads, records either made
// valid or tampered with, times at the extremes.
func FuzzRecords(f *testing.F) {
	f.Add([]byte{4, 3, 1, 5, 5, 2, 3, 7, 7, 4, 0, 9, 9, 1})
	f.Add([]byte{2, 2, 0, 250, 250, 1, 1, 3, 3, 1, 255, 0, 0, 0})
	f.Add(binary.LittleEndian.AppendUint64([]byte{8, 4}, math.MaxUint64))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := bytesSource(data)
		procs := int64(1 + b.byte()%8)
		n := 1 + int(b.byte()%5)
		jobs := make([]sim.Input, n)
		for i := range jobs {
			submit, rt, wt := b.time(), b.time()+1, b.time()+1
			if rt <= 0 { // an extreme wrapped: keep it extreme and positive
				rt = math.MaxInt64
			}
			if wt <= 0 {
				wt = math.MaxInt64
			}
			jobs[i] = in(int64(i+1), submit, rt, wt, 1+int64(b.byte())%procs)
		}
		sim.Sort(jobs)
		// A schedule: jobs one after another from a start (valid when
		// the workload is), then tampered with as the input says.
		recs := make([]sim.Record, n)
		t0 := int64(0)
		for i, in := range jobs {
			t0 = max(t0, in.Job.Submit)
			dur := min(in.Runtime, in.Job.Walltime)
			end := t0 + dur
			if dur > sim.MaxTime || end < t0 {
				end = t0 + 1
			}
			recs[i] = sim.Record{Index: int32(i), Start: t0, End: end, Killed: in.Runtime > in.Job.Walltime}
			t0 = end
		}
		for op := b.byte() % 8; op > 0 && len(b) > 0; op-- {
			r := &recs[int(b.byte())%n]
			switch b.byte() % 7 {
			case 0:
				r.Start = b.time()
			case 1:
				r.End = b.time()
			case 2:
				r.HasPromise, r.Promised = true, b.time()
			case 3:
				r.Killed = !r.Killed
			case 4:
				r.Backfilled = !r.Backfilled
			case 5:
				r.Index = int32(b.byte() % 8)
			case 6:
				d := r.End - r.Start
				r.Start = b.time()
				r.End = r.Start + d
			}
		}
		p := sdk.SingleCluster("m", procs)
		err := verify.Records(p, jobs, recs)
		if want := oracle(procs, jobs, recs); (err == nil) != want {
			t.Fatalf("verify says %v, the oracle says valid=%v\njobs %+v\nrecords %+v", err, want, jobs, recs)
		}
	})
}
