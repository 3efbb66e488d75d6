// Package layout places the jobs of a run on lanes, the processors of a
// pool or the cores of nodes, so that a Gantt chart can draw them and an
// export can name the resources each job held.
//
// A pool's jobs file says how many processors a job held, not which: the
// layout gives each job, at its start, the lowest-numbered processors free
// then, as evalys lays out a pool. On a platform of nodes the file names
// the nodes and the number of cores on each; the layout picks the lowest
// free cores of each node. Either way the layout replays the schedule, so
// it also checks it: a job that finds fewer free lanes than it holds is an
// error, never an overlap drawn.
package layout

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/sdk"
)

// ErrOverlap is matched (errors.Is) by the error of a schedule that holds
// more lanes than the platform has at some instant.
var ErrOverlap = errors.New("more held than the platform has")

// Span is a run of consecutive lanes, [Lo, Lo+N).
type Span struct {
	Lo, N int32
}

// Row is a band of lanes drawn as one row: a node of a platform of nodes,
// a cluster of a pool.
type Row struct {
	Name  string
	Lo, N int32
}

// Layout is where each job of a run ran.
type Layout struct {
	// Unit names a lane: "processor" on a pool, "core" on nodes.
	Unit string
	// Lanes is the number of lanes, the sum of the rows' N.
	Lanes int32
	// Rows are the nodes, or the clusters of a pool, in lane order.
	Rows []Row
	// Spans holds each job's lanes, in row order of the jobs file, lowest
	// first; nil for a job that held none (no runtime, or rejected).
	Spans [][]Span
}

// Of lays out the jobs of a run on plat, with the node columns x of the
// jobs file on a platform of nodes.
func Of(jobs []results.JobRow, x results.JobExtras, plat *sdk.Platform) (*Layout, error) {
	if len(plat.Clusters) == 0 {
		return nil, fmt.Errorf("layout: the platform has no cluster")
	}
	if len(plat.Clusters[0].Nodes) > 0 {
		if len(plat.Clusters) > 1 {
			return nil, fmt.Errorf("layout: a platform of nodes with %d clusters", len(plat.Clusters))
		}
		if len(x.Nodes) != len(jobs) {
			return nil, fmt.Errorf("layout: a platform of nodes, but the jobs file has no node columns")
		}
		return ofNodes(jobs, x.Nodes, plat.Clusters[0].Nodes)
	}
	return ofPool(jobs, plat.Clusters)
}

// holds reports whether a job held lanes at all: it ran for some time on
// some cluster. A job of zero runtime holds nothing, as in the engine's
// utilisation.
func holds(j results.JobRow) bool { return j.End > j.Start && j.Cluster >= 0 }

// order returns the indexes of the jobs that hold lanes as events: each
// job's end (2i+1) and start (2i), by time, ends before starts at one
// instant (a job ending at t frees its lanes for one starting at t, as the
// engine does), then by row.
func order(jobs []results.JobRow) []int {
	ev := make([]int, 0, 2*len(jobs))
	for i, j := range jobs {
		if holds(j) {
			ev = append(ev, 2*i, 2*i+1)
		}
	}
	at := func(e int) int64 {
		if e%2 == 1 {
			return jobs[e/2].End
		}
		return jobs[e/2].Start
	}
	slices.SortFunc(ev, func(a, b int) int {
		if c := cmp.Compare(at(a), at(b)); c != 0 {
			return c
		}
		if c := cmp.Compare(b%2, a%2); c != 0 { // ends first
			return c
		}
		return cmp.Compare(a, b)
	})
	return ev
}

func ofPool(jobs []results.JobRow, clusters []sdk.Cluster) (*Layout, error) {
	l := &Layout{Unit: "processor", Spans: make([][]Span, len(jobs))}
	free := make([]freeSet, len(clusters))
	for c, cl := range clusters {
		if len(cl.Capacity) == 0 {
			return nil, fmt.Errorf("layout: cluster %d has no capacity", c)
		}
		n := cl.Capacity[0]
		if n < 0 || int64(l.Lanes)+n > 1<<31-1 {
			return nil, fmt.Errorf("layout: cluster %d: %d processors", c, n)
		}
		name := cl.Name
		if name == "" {
			name = "cluster " + strconv.Itoa(c)
		}
		l.Rows = append(l.Rows, Row{Name: name, Lo: l.Lanes, N: int32(n)})
		free[c] = freeSet{{Lo: l.Lanes, N: int32(n)}}
		l.Lanes += int32(n)
	}
	for _, e := range order(jobs) {
		i := e / 2
		j := jobs[i]
		if j.Cluster >= int64(len(clusters)) {
			return nil, fmt.Errorf("layout: job %d (row %d): cluster %d, the platform has %d", j.JobID, i+1, j.Cluster, len(clusters))
		}
		f := &free[j.Cluster]
		if e%2 == 1 {
			for _, s := range l.Spans[i] {
				f.put(s)
			}
			continue
		}
		spans, ok := f.take(j.Procs)
		if !ok {
			return nil, fmt.Errorf("layout: job %d (row %d) starts at %d on %d processors of cluster %d, with %d free: %w",
				j.JobID, i+1, j.Start, j.Procs, j.Cluster, f.count(), ErrOverlap)
		}
		l.Spans[i] = spans
	}
	return l, nil
}

func ofNodes(jobs []results.JobRow, rows []results.NodeRow, groups []sdk.NodeGroup) (*Layout, error) {
	l := &Layout{Unit: "core", Spans: make([][]Span, len(jobs))}
	var free []freeSet
	for _, g := range groups {
		for k := range g.Count {
			if int64(l.Lanes)+g.Cores > 1<<31-1 {
				return nil, fmt.Errorf("layout: more than 2^31 cores")
			}
			l.Rows = append(l.Rows, Row{Name: g.Name + "[" + strconv.Itoa(k) + "]", Lo: l.Lanes, N: int32(g.Cores)})
			free = append(free, freeSet{{Lo: l.Lanes, N: int32(g.Cores)}})
			l.Lanes += int32(g.Cores)
		}
	}
	// owner[i][k] is the node of job i's k-th span: a node's cores may
	// come in several spans, so spans and alloc_nodes do not pair up.
	owner := make([][]int32, len(jobs))
	for _, e := range order(jobs) {
		i := e / 2
		r := rows[i]
		if e%2 == 1 {
			for k, s := range l.Spans[i] {
				free[owner[i][k]].put(s)
			}
			continue
		}
		if len(r.AllocNodes) != len(r.AllocCores) {
			return nil, fmt.Errorf("layout: job %d (row %d): %d nodes but %d core counts", jobs[i].JobID, i+1, len(r.AllocNodes), len(r.AllocCores))
		}
		// One span per node: the cores a job holds on a node are drawn
		// together, the lowest free ones when they are consecutive.
		var spans []Span
		for k, n := range r.AllocNodes {
			if n < 0 || int(n) >= len(free) {
				return nil, fmt.Errorf("layout: job %d (row %d): node %d, the platform has %d", jobs[i].JobID, i+1, n, len(free))
			}
			got, ok := free[n].take(int64(r.AllocCores[k]))
			if !ok {
				return nil, fmt.Errorf("layout: job %d (row %d) starts at %d on %d cores of node %s, with %d free: %w",
					jobs[i].JobID, i+1, jobs[i].Start, r.AllocCores[k], l.Rows[n].Name, free[n].count(), ErrOverlap)
			}
			// take gives the lowest free cores, possibly in pieces: the
			// node's spans are kept in node order, one node's after another's.
			spans = append(spans, got...)
			for range got {
				owner[i] = append(owner[i], n)
			}
		}
		l.Spans[i] = spans
	}
	return l, nil
}

// freeSet is a set of free lanes as disjoint spans in increasing order,
// adjacent spans merged.
type freeSet []Span

// count is the number of free lanes.
func (f freeSet) count() int64 {
	var n int64
	for _, s := range f {
		n += int64(s.N)
	}
	return n
}

// take removes the n lowest free lanes and returns them as spans, or
// reports false, taking nothing, when fewer are free.
func (f *freeSet) take(n int64) ([]Span, bool) {
	if n <= 0 {
		return nil, true
	}
	var out []Span
	k := 0
	for ; k < len(*f); k++ {
		s := (*f)[k]
		if int64(s.N) > n {
			break
		}
		out = append(out, s)
		n -= int64(s.N)
		if n == 0 {
			*f = (*f)[k+1:]
			return out, true
		}
	}
	if k == len(*f) {
		return nil, false
	}
	s := (*f)[k]
	out = append(out, Span{Lo: s.Lo, N: int32(n)})
	(*f)[k] = Span{Lo: s.Lo + int32(n), N: s.N - int32(n)}
	*f = (*f)[k:]
	return out, true
}

// put returns the lanes of s to the set, merging it with its neighbours.
func (f *freeSet) put(s Span) {
	i, _ := slices.BinarySearchFunc(*f, s.Lo, func(a Span, lo int32) int { return cmp.Compare(a.Lo, lo) })
	left := i > 0 && (*f)[i-1].Lo+(*f)[i-1].N == s.Lo
	right := i < len(*f) && s.Lo+s.N == (*f)[i].Lo
	switch {
	case left && right:
		(*f)[i-1].N += s.N + (*f)[i].N
		*f = slices.Delete(*f, i, i+1)
	case left:
		(*f)[i-1].N += s.N
	case right:
		(*f)[i] = Span{Lo: s.Lo, N: s.N + (*f)[i].N}
	default:
		*f = slices.Insert(*f, i, s)
	}
}

// String writes spans as Batsim's interval sets do: "0-3 8 10-11".
func String(spans []Span) string {
	var b []byte
	for k, s := range spans {
		if k > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(s.Lo), 10)
		if s.N > 1 {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(s.Lo+s.N-1), 10)
		}
	}
	return string(b)
}
