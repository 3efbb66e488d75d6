package calls

import (
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// arrived returns the jobs of s's queue not shown before, in queue order.
// Without outages they are the queue's tail; with outages a job that an
// outage put back at the end of the queue (sim.Faults.LosePlace) may
// follow them, so the tail is read past the jobs requeued since the
// previous call.
func (e *Encoder) arrived(s *sdk.State) []*sdk.Job {
	q := s.Queue
	k := len(q)
	if !e.outages {
		for k > 0 && !e.known(q[k-1].Index) {
			k--
		}
		return q[k:]
	}
	clear(e.requeued)
	for _, c := range s.Completed {
		if c.Requeued {
			e.requeued[int32(c.Job.Index)] = true
		}
	}
	fresh := 0
	for k > 0 && (!e.known(q[k-1].Index) || e.requeued[int32(q[k-1].Index)]) {
		if !e.known(q[k-1].Index) {
			fresh++
		}
		k--
	}
	if fresh == len(q)-k {
		return q[k:]
	}
	out := make([]*sdk.Job, 0, fresh)
	for _, j := range q[k:] {
		if !e.known(j.Index) {
			out = append(out, j)
		}
	}
	return out
}

// known reports whether the job of index i was shown to the policy side.
func (e *Encoder) known(i int) bool { return i >= 0 && i < len(e.jobs) && e.jobs[i] != nil }

// appendOutages appends the outages section of a State frame: how the
// list of outages the policy side holds becomes s.Outages, and where the
// jobs requeued since the previous call stand in the queue. It is,
// little-endian:
//
//	removed, added u32 counts
//	removed:  position i32 each, in the list as last sent, increasing
//	added:    per outage {position i32 in the new list, cluster i32,
//	          start i64, end i64, kind u8, nodes u32, node i32 each}, by
//	          increasing position
//	requeued: u32 count, then per job {index i32, position i32 in the
//	          queue}, by increasing position
//
// The policy side deletes the removed outages, then inserts each added
// one at its position; it appends the arrived jobs to its queue, then
// inserts each requeued job at its position. Both lists are sorted
// (sdk.CompareOutages), so the difference is one merge over them: the
// bytes are those of what changed.
func (e *Encoder) appendOutages(b []byte, s *sdk.State) ([]byte, error) {
	old, cur := e.shown, s.Outages
	var removed []int32
	var added []int
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		c := 0
		switch {
		case i == len(old):
			c = 1
		case j == len(cur):
			c = -1
		default:
			c = sdk.CompareOutages(old[i], cur[j])
		}
		switch {
		case c == 0:
			i++
			j++
		case c < 0:
			removed = append(removed, int32(i))
			i++
		default:
			added = append(added, j)
			j++
		}
	}
	b = appendI32(b, int32(len(removed)))
	b = appendI32(b, int32(len(added)))
	for _, x := range removed {
		b = appendI32(b, x)
	}
	for _, x := range added {
		o := &cur[x]
		b = appendI32(b, int32(x))
		b = appendI32(b, o.Cluster)
		b = appendI64(b, o.Start)
		b = appendI64(b, o.End)
		b = append(b, byte(o.Kind))
		b = appendI32(b, int32(len(o.Nodes)))
		for _, k := range o.Nodes {
			b = appendI32(b, k)
		}
	}
	if len(removed) > 0 || len(added) > 0 {
		// The engine reuses its slices: keep copies.
		sh := e.shown[:0]
		for _, o := range cur {
			o.Nodes = slices.Clone(o.Nodes)
			sh = append(sh, o)
		}
		e.shown = sh
	}
	type pos struct{ idx, at int32 }
	var req []pos
	if len(e.requeued) > 0 {
		for k, j := range s.Queue {
			if e.requeued[int32(j.Index)] {
				req = append(req, pos{int32(j.Index), int32(k)})
			}
		}
		if len(req) != len(e.requeued) {
			return nil, fmt.Errorf("calls: %d jobs requeued, %d of them in the queue", len(e.requeued), len(req))
		}
	}
	b = appendI32(b, int32(len(req)))
	for _, r := range req {
		b = appendI32(b, r.idx)
		b = appendI32(b, r.at)
	}
	return b, nil
}
