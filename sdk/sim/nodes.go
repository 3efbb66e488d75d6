package sim

import (
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// Allocs holds each job's allocation on a cluster of nodes, in job index
// order: job i runs Tasks[k] tasks on node Nodes[k] for k in
// [Start[i], Start[i+1]). A job of a cluster without nodes, or rejected,
// has none.
type Allocs struct {
	Start []int32
	Nodes []int32
	Tasks []int32
}

// Of returns job i's allocation; it shares memory with a.
func (a *Allocs) Of(i int) sdk.Alloc {
	lo, hi := a.Start[i], a.Start[i+1]
	return sdk.Alloc{Nodes: a.Nodes[lo:hi:hi], Tasks: a.Tasks[lo:hi:hi]}
}

// Len returns the number of jobs of a.
func (a *Allocs) Len() int { return max(0, len(a.Start)-1) }

// nodeEngine is what the engine keeps of the clusters of nodes of a run.
type nodeEngine struct {
	// layouts and private are per cluster, nil for a cluster without
	// nodes; private is the engine's own state of the nodes, which it
	// checks starts against, and State.Nodes a copy shown to the policy,
	// kept equal node by node, so that a policy that writes into what it
	// is shown cannot change what the engine enforces.
	layouts []*sdk.Layout
	private []*sdk.Nodes
	// tasks is each job's private copy of its sdk.Tasks, shown the copy
	// its sdk.Job points to.
	tasks, shown []sdk.Tasks
	// allocs is each started job's allocation, which Running.Alloc
	// points to.
	allocs []sdk.Alloc
	// checked remembers the outcome of Layout.Check by request: jobs of
	// a workload have few distinct shapes, and checking one against an
	// empty machine costs a pass over its nodes.
	checked map[sdk.Tasks]error
	// The allocations of started jobs, in start order: job i's is
	// nodes[off[i]:off[i]+len[i]] and tasks[...] alike.
	off, cnt     []int32
	nodes, ntask []int32
	// expect is the least the loaded jobs' allocations add up to (a
	// job's node count, or one node), which the slabs are first made
	// to hold: growing them by half again, as append does, copied
	// several times their size on CEA-Curie.
	expect   int
	place    sdk.Alloc // the engine's placement, before it is stored
	mem, gpu int       // resource indexes of Memory and GPUs, or -1
	want     sdk.Vector
	names    []string // the clusters' names
	// svc says which nodes are out of service; nil when all always are
	// in service (no outages, no power model).
	svc *service
}

// newNodeEngine returns the node state of platform p for n jobs, or nil
// when no cluster of p has nodes.
func newNodeEngine(p *sdk.Platform, n int) *nodeEngine {
	if !p.HasNodes() {
		return nil
	}
	ne := &nodeEngine{
		layouts: make([]*sdk.Layout, len(p.Clusters)),
		private: make([]*sdk.Nodes, len(p.Clusters)),
		tasks:   make([]sdk.Tasks, n),
		shown:   make([]sdk.Tasks, n),
		allocs:  make([]sdk.Alloc, n),
		checked: map[sdk.Tasks]error{},
		off:     make([]int32, n),
		cnt:     make([]int32, n),
		mem:     p.Resource(sdk.Memory),
		gpu:     p.Resource(sdk.GPUs),
		want:    make(sdk.Vector, p.Dims()),
	}
	for c := range p.Clusters {
		ne.names = append(ne.names, p.Clusters[c].Name)
		if p.Clusters[c].HasNodes() {
			ne.layouts[c] = sdk.NewLayout(p, c)
			ne.private[c] = ne.layouts[c].NewNodes()
		}
	}
	return ne
}

// shownNodes returns the nodes shown to the policy, one copy per cluster.
func (ne *nodeEngine) shownNodes() []*sdk.Nodes {
	out := make([]*sdk.Nodes, len(ne.private))
	for c, n := range ne.private {
		if n != nil {
			out[c] = ne.layouts[c].NewNodes()
		}
	}
	return out
}

// load checks job i's tasks against every cluster of nodes, keeps a
// private copy of them, and points j at the copy shown to the policy.
func (ne *nodeEngine) load(i int, j *sdk.Job, req sdk.Vector) error {
	if !HasTasks(j) {
		return fmt.Errorf("sim: job id %d has no tasks on a platform of nodes", j.ID)
	}
	t := *j.Tasks
	for c, l := range ne.layouts {
		if l == nil {
			continue
		}
		err, ok := ne.checked[t]
		if !ok {
			err = l.Check(&t)
			ne.checked[t] = err
		}
		if err == nil {
			err = l.CheckWalltime(&t, j.Walltime)
		}
		if err != nil {
			return fmt.Errorf("sim: job id %d on cluster %q: %w", j.ID, ne.names[c], err)
		}
		want := append(ne.want[:0], req...)
		l.Request(&t, want)
		for k := range want {
			if want[k] != req[k] {
				return fmt.Errorf("sim: job id %d requests %v, its tasks %+v hold %v (sdk.Layout.Request) on cluster %q",
					j.ID, []int64(req), t, []int64(want), ne.names[c])
			}
		}
	}
	ne.tasks[i], ne.shown[i] = t, t
	j.Tasks = &ne.shown[i]
	ne.expect += int(max(1, t.Nodes))
	return nil
}

// HasTasks reports whether j has tasks: a nil Tasks and a zero one both
// mean none, as the protocol carries both alike.
func HasTasks(j *sdk.Job) bool { return j.Tasks != nil && *j.Tasks != (sdk.Tasks{}) }

// alloc returns job i's stored allocation.
func (ne *nodeEngine) alloc(i int32) sdk.Alloc {
	lo, hi := ne.off[i], ne.off[i]+ne.cnt[i]
	return sdk.Alloc{Nodes: ne.nodes[lo:hi:hi], Tasks: ne.ntask[lo:hi:hi]}
}

// start places job i on cluster c, by d.Alloc or the cluster's rule, takes
// what it holds from the private and shown nodes and from the free totals
// free (whose other resources the caller takes), and returns the stored
// allocation. It changes nothing when it fails.
func (e *engine) startNodes(i int32, c int, d *sdk.Decision, free sdk.Vector) (*sdk.Alloc, error) {
	ne := e.nodes
	priv := ne.private[c]
	j := &e.jobs[i]
	t := &ne.tasks[i]
	name := e.cfg.Platform.Clusters[c].Name
	if priv == nil {
		if d.Alloc != nil {
			return nil, fmt.Errorf("start job id %d on cluster %q: an allocation of nodes on a cluster without nodes", j.ID, name)
		}
		return nil, nil
	}
	now := e.state.Now
	hard := e.outs != nil && e.outs.faults.Maintenance == MaintenanceHard && e.outs.mfirst < len(e.outs.maint)
	var a sdk.Alloc
	if d.Alloc == nil {
		// Under the hard maintenance rule, the nodes a window reaches
		// within the job's walltime are not the engine's to choose.
		fenced := 0
		if hard {
			fenced = e.fenceOff(c, now, now+j.Walltime)
		}
		ok := priv.Place(t, ne.layouts[c].Rule(), &ne.place)
		if fenced > 0 {
			e.unfence(c)
		}
		if !ok {
			why := ""
			if fenced > 0 {
				why = fmt.Sprintf(" (%d of them fenced off by maintenance windows that begin within its walltime)", fenced)
			}
			if n := e.drainedCount(c); n > 0 {
				why += fmt.Sprintf(" (%d nodes drained by the policy)", n)
			}
			return nil, fmt.Errorf("start job id %d on cluster %q: its %d tasks of %d cores, %d bytes and %d GPUs (nodes %d, exclusive %v, partition %d) do not fit on the free nodes by %s%s",
				j.ID, name, t.Count, t.Cores, t.Memory, t.GPUs, t.Nodes, t.Exclusive, t.Partition, ne.layouts[c].Rule(), why)
		}
		a = ne.place
	} else if k, at, ok := e.drainedIn(c, d.Alloc.Nodes); ok {
		return nil, fmt.Errorf("start job id %d on cluster %q: node %d is drained by the policy (since %d)", j.ID, name, k, at)
	} else if err := priv.CheckAlloc(t, *d.Alloc); err != nil {
		return nil, fmt.Errorf("start job id %d on cluster %q: %w", j.ID, name, err)
	} else {
		a = *d.Alloc
		if hard {
			if at, k, ok := e.maintenanceBefore(c, a, now, now+j.Walltime); ok {
				return nil, fmt.Errorf("start job id %d on cluster %q: node %d enters maintenance at %d, before the job's walltime of %d s is over", j.ID, name, k, at, j.Walltime)
			}
		}
	}
	if e.pow != nil {
		if err := e.checkStart(c, t, a); err != nil {
			return nil, fmt.Errorf("start job id %d on cluster %q: %w", j.ID, name, err)
		}
	}
	if need := len(ne.nodes) + len(a.Nodes); need > cap(ne.nodes) {
		c := max(2*cap(ne.nodes), ne.expect, need)
		ne.nodes = slices.Grow(ne.nodes, c-len(ne.nodes))
		ne.ntask = slices.Grow(ne.ntask, c-len(ne.ntask))
	}
	ne.off[i], ne.cnt[i] = int32(len(ne.nodes)), int32(len(a.Nodes))
	ne.nodes = append(ne.nodes, a.Nodes...)
	ne.ntask = append(ne.ntask, a.Tasks...)
	ne.allocs[i] = ne.alloc(i)
	stored := &ne.allocs[i]
	held := priv.Take(t, *stored)
	if e.pow != nil {
		e.pow.jobPower(c, t, *stored, 1)
	}
	shown := e.state.Nodes[c]
	for _, k := range stored.Nodes {
		shown.SetFree(k, priv.Free[k])
	}
	ne.adjust(free, e.reqOf(i), held, -1)
	return stored, nil
}

// endNodes gives back what job i held on cluster c, to the nodes and to
// the free totals free (whose other resources the caller gives back).
func (e *engine) endNodes(i int32, c int, free sdk.Vector) {
	ne := e.nodes
	priv := ne.private[c]
	if priv == nil {
		return
	}
	a := ne.alloc(i)
	held := priv.Release(&ne.tasks[i], a)
	if e.pow != nil {
		e.pow.jobPower(c, &ne.tasks[i], a, -1)
	}
	shown := e.state.Nodes[c]
	for _, k := range a.Nodes {
		shown.SetFree(k, priv.Free[k])
	}
	ne.adjust(free, e.reqOf(i), held, 1)
}

// adjust corrects the free totals of the resources nodes hold, which the
// caller changed by the job's request req (sign -1 at a start, +1 at an
// end), to the amounts held: more than the request for an exclusive job.
func (ne *nodeEngine) adjust(free, req sdk.Vector, held sdk.Amount, sign int64) {
	free[0] += sign * (held.Cores - req[0])
	if ne.mem >= 0 {
		free[ne.mem] += sign * (held.Memory - req[ne.mem])
	}
	if ne.gpu >= 0 {
		free[ne.gpu] += sign * (held.GPUs - req[ne.gpu])
	}
}

// result returns the allocations of every job in index order.
func (ne *nodeEngine) result(rec []Record) *Allocs {
	out := &Allocs{Start: make([]int32, len(rec)+1), Nodes: make([]int32, 0, len(ne.nodes)), Tasks: make([]int32, 0, len(ne.nodes))}
	for i := range rec {
		if !rec[i].Rejected {
			a := ne.alloc(int32(i))
			out.Nodes = append(out.Nodes, a.Nodes...)
			out.Tasks = append(out.Tasks, a.Tasks...)
		}
		out.Start[i+1] = int32(len(out.Nodes))
	}
	return out
}
