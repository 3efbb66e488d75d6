package series

import (
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/layout"
)

// Named is one series of a run, with the capacity it is a share of (0: a
// count, no share).
type Named struct {
	Name     string
	Unit     string
	Step     Step
	Capacity float64
}

// OfRun returns the series of a run: processors in use (the jobs' procs),
// jobs running, jobs waiting and the work waiting; on a platform of nodes
// also the cores held (a node whole for an exclusive job), and the memory
// and GPUs held where the nodes have them.
func OfRun(r *layout.Run) []Named {
	var procs float64
	for _, c := range r.Platform.Clusters {
		if len(c.Capacity) > 0 {
			procs += float64(c.Capacity[0])
		}
	}
	out := []Named{
		{Name: "procs_in_use", Unit: "processors", Step: ProcsInUse(r.Jobs), Capacity: procs},
		{Name: "running_jobs", Unit: "jobs", Step: RunningJobs(r.Jobs)},
		{Name: "queue_length", Unit: "jobs", Step: QueueLength(r.Jobs)},
		{Name: "queued_work", Unit: "processor-seconds", Step: QueuedWork(r.Jobs)},
	}
	nodes := r.Extras.Nodes
	if nodes == nil || len(r.Platform.Clusters) != 1 {
		return out
	}
	var cores, mem, gpus float64
	for _, g := range r.Platform.Clusters[0].Nodes {
		cores += float64(g.Count) * float64(g.Cores)
		mem += float64(g.Count) * float64(g.Memory)
		gpus += float64(g.Count) * float64(g.GPUs)
	}
	sum32 := func(xs []int32) float64 {
		var s float64
		for _, x := range xs {
			s += float64(x)
		}
		return s
	}
	out = append(out, Named{Name: "cores_held", Unit: "cores", Capacity: cores,
		Step: Held(r.Jobs, func(i int) float64 { return sum32(nodes[i].AllocCores) })})
	if r.Extras.NodeCols.Memory && mem > 0 {
		out = append(out, Named{Name: "memory_held", Unit: "bytes", Capacity: mem, Step: Held(r.Jobs, func(i int) float64 {
			var s float64
			for _, x := range nodes[i].AllocMemory {
				s += float64(x)
			}
			return s
		})})
	}
	if r.Extras.NodeCols.GPUs && gpus > 0 {
		out = append(out, Named{Name: "gpus_held", Unit: "GPUs", Capacity: gpus,
			Step: Held(r.Jobs, func(i int) float64 { return sum32(nodes[i].AllocGPUs) })})
	}
	return out
}

// Table lays the series out as rows over [from, to): with step > 0, one row
// per bin of step seconds (the last one shorter when step does not divide
// the span), each value the series' time average over the bin; with step
// 0, one row per instant at which some series changes, each value the one
// that holds from that instant to the next row. A series with a capacity
// gets a second column, NAME_share, its value over the capacity.
func Table(ss []Named, from, to, step int64) ([]results.Column, [][]any, error) {
	if to <= from {
		return nil, nil, fmt.Errorf("series: empty span [%d, %d)", from, to)
	}
	if step < 0 {
		return nil, nil, fmt.Errorf("series: step %d: want 0 (every change) or more", step)
	}
	cols := []results.Column{{Name: "time", Kind: results.Int64}, {Name: "until", Kind: results.Int64}}
	for _, s := range ss {
		cols = append(cols, results.Column{Name: s.Name, Kind: results.Float64})
		if s.Capacity > 0 {
			cols = append(cols, results.Column{Name: s.Name + "_share", Kind: results.Float64})
		}
	}
	var bounds []int64
	if step > 0 {
		for t := from; t < to; t += step {
			bounds = append(bounds, t)
		}
	} else {
		bounds = append(bounds, from)
		for _, s := range ss {
			for _, t := range s.Step.T {
				if t > from && t < to {
					bounds = append(bounds, t)
				}
			}
		}
		slices.Sort(bounds)
		bounds = slices.Compact(bounds)
	}
	bounds = append(bounds, to)
	area := make([]func(float64) float64, len(ss))
	for i, s := range ss {
		area[i] = s.Step.Integral()
	}
	rows := make([][]any, 0, len(bounds)-1)
	for k := 0; k+1 < len(bounds); k++ {
		lo, hi := bounds[k], bounds[k+1]
		row := []any{lo, hi}
		for i, s := range ss {
			v := s.Step.At(lo)
			if step > 0 {
				v = (area[i](float64(hi)) - area[i](float64(lo))) / float64(hi-lo)
			}
			row = append(row, v)
			if s.Capacity > 0 {
				row = append(row, v/s.Capacity)
			}
		}
		rows = append(rows, row)
	}
	return cols, rows, nil
}
