package metrics

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// NodeKeys returns the JSON names of the metrics of a run on a platform of
// nodes (Summary.Nodes), left out of every other run's summary.
func NodeKeys() []string {
	return []string{"task_core_utilisation", "held_core_utilisation", "memory_utilisation", "gpu_utilisation",
		"node_utilisation", "fragmentation"}
}

// AddNodes fills the metrics of a run on a platform of nodes into sum
// (computed by Compute from the same records), from each job's allocation
// (sim.Result.Allocs), over the span of Utilisation (the makespan):
//
//   - task_core_utilisation: the cores the jobs' tasks use, times their
//     runtimes, over the cores times the makespan;
//   - held_core_utilisation: likewise with the cores the jobs hold (a node
//     whole for an exclusive job);
//   - memory_utilisation and gpu_utilisation: the memory and GPUs held,
//     where the nodes have them (else null);
//   - node_utilisation: the node-seconds during which a node holds at
//     least one job, over the nodes times the makespan;
//   - fragmentation: the idle cores of nodes partly busy (some job on them,
//     some cores free), averaged over the makespan, as a share of the
//     cores: capacity no job of more cores than such a node has left can
//     use.
//
// It does nothing on a platform without nodes.
func AddNodes(sum *Summary, p *sdk.Platform, jobs []sim.Input, recs []sim.Record, allocs *sim.Allocs) {
	if !p.HasNodes() || allocs == nil || len(recs) == 0 || sum.Makespan <= 0 {
		return
	}
	sum.Nodes = true
	l := sdk.NewLayout(p, 0)
	total := l.Total()
	span := float64(sum.Makespan)
	type change struct {
		at    int64
		start bool
		node  int32
		held  sdk.Amount
	}
	var ch []change
	var taskCores float64
	var heldCores, heldMem, heldGPUs float64
	for i := range recs {
		r := &recs[i]
		t := jobs[i].Job.Tasks
		if r.Rejected || t == nil {
			continue
		}
		run := float64(r.End - r.Start)
		taskCores += float64(int64(t.Count)*int64(t.Cores)) * run
		a := allocs.Of(i)
		for k, n := range a.Nodes {
			h := l.Held(t, n, a.Tasks[k])
			heldCores += float64(h.Cores) * run
			heldMem += float64(h.Memory) * run
			heldGPUs += float64(h.GPUs) * run
			ch = append(ch, change{r.Start, true, n, h}, change{r.End, false, n, h})
		}
	}
	sum.TaskCoreUtil = taskCores / (float64(total.Cores) * span)
	sum.HeldCoreUtil = heldCores / (float64(total.Cores) * span)
	if total.Memory > 0 {
		v := heldMem / (float64(total.Memory) * span)
		sum.MemoryUtil = &v
	}
	if total.GPUs > 0 {
		v := heldGPUs / (float64(total.GPUs) * span)
		sum.GPUUtil = &v
	}
	// A sweep of the node changes in time order, ends before starts at one
	// instant: the busy nodes and the idle cores of partly busy ones are
	// step functions of time, integrated exactly.
	slices.SortFunc(ch, func(a, b change) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		if a.start != b.start {
			if a.start {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.node, b.node)
	})
	used := make([]int64, l.Len())
	busy, partIdle := int64(0), int64(0)
	var busyArea, idleArea float64
	prev := jobs[0].Job.Submit
	for _, c := range ch {
		dt := float64(c.at - prev)
		busyArea += float64(busy) * dt
		idleArea += float64(partIdle) * dt
		prev = c.at
		capa := l.Cap(int(c.node)).Cores
		before := used[c.node]
		if c.start {
			used[c.node] += c.held.Cores
		} else {
			used[c.node] -= c.held.Cores
		}
		after := used[c.node]
		busy += b2i(after > 0) - b2i(before > 0)
		partIdle += idleOf(after, capa) - idleOf(before, capa)
	}
	sum.NodeUtil = busyArea / (float64(l.Len()) * span)
	sum.Fragmentation = idleArea / (float64(total.Cores) * span)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// idleOf is the idle cores a node with used cores of capa counts towards
// fragmentation: its free cores when it is partly busy, else none.
func idleOf(used, capa int64) int64 {
	if used > 0 && used < capa {
		return capa - used
	}
	return 0
}
