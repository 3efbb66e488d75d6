package verify

import (
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// The checks of a run on a cluster of nodes are written from the platform
// alone, apart from the engine's placement code (sdk.Nodes), so that a
// mistake there is not repeated here.

// nodeInfo is what the checks know of one cluster's nodes.
type nodeInfo struct {
	caps  []sdk.Amount // by node
	group []int        // by node
	feat  [][]string   // by group: the group's features
	// parts holds, by sdk.Tasks.Partition, the groups of each partition
	// (0: the default one) and its limits.
	parts    []map[int]bool
	maxNodes []int
	maxWall  []int64
	features []string // the names of the feature bits
	mem, gpu int
}

func newNodeInfo(p *sdk.Platform, c *sdk.Cluster) *nodeInfo {
	in := &nodeInfo{features: c.FeatureNames(), mem: p.Resource(sdk.Memory), gpu: p.Resource(sdk.GPUs)}
	byName := map[string]int{}
	for gi, g := range c.Nodes {
		byName[g.Name] = gi
		in.feat = append(in.feat, g.Features)
		for range g.Count {
			in.caps = append(in.caps, sdk.Amount{Cores: g.Cores, Memory: g.Memory, GPUs: g.GPUs})
			in.group = append(in.group, gi)
		}
	}
	add := func(groups []string, maxNodes int, maxWall int64) {
		set := map[int]bool{}
		for _, g := range groups {
			set[byName[g]] = true
		}
		in.parts = append(in.parts, set)
		in.maxNodes = append(in.maxNodes, maxNodes)
		in.maxWall = append(in.maxWall, maxWall)
	}
	if len(c.Partitions) == 0 {
		all := make([]string, len(c.Nodes))
		for gi, g := range c.Nodes {
			all[gi] = g.Name
		}
		add(all, 0, 0)
		return in
	}
	def := 0
	for k, pt := range c.Partitions {
		if pt.Default {
			def = k
		}
	}
	add(c.Partitions[def].Groups, c.Partitions[def].MaxNodes, c.Partitions[def].MaxWalltime)
	for _, pt := range c.Partitions {
		add(pt.Groups, pt.MaxNodes, pt.MaxWalltime)
	}
	return in
}

// hasFeatures reports whether group gi has every feature of mask.
func (in *nodeInfo) hasFeatures(gi int, mask uint64) bool {
	for b, name := range in.features {
		if mask&(1<<b) != 0 && !slices.Contains(in.feat[gi], name) {
			return false
		}
	}
	return mask>>len(in.features) == 0
}

// held is what a job of tasks t holds on node k with n tasks there.
func (in *nodeInfo) held(t *sdk.Tasks, k int32, n int32) sdk.Amount {
	if t.Exclusive {
		return in.caps[k]
	}
	return sdk.Amount{Cores: int64(n) * int64(t.Cores), Memory: int64(n) * t.Memory, GPUs: int64(n) * int64(t.GPUs)}
}

// demand is the request a job of tasks t must carry: its tasks' worth, or
// for an exclusive job its node count times the least of each amount over
// the eligible groups of its partition.
func (in *nodeInfo) demand(t *sdk.Tasks) (sdk.Amount, bool) {
	if !t.Exclusive {
		return sdk.Amount{Cores: int64(t.Count) * int64(t.Cores), Memory: int64(t.Count) * t.Memory, GPUs: int64(t.Count) * int64(t.GPUs)}, true
	}
	var least sdk.Amount
	found := false
	for k, c := range in.caps {
		if !in.parts[t.Partition][in.group[k]] || !in.hasFeatures(in.group[k], t.Features) {
			continue
		}
		if !found {
			least, found = c, true
		}
		least = sdk.Amount{Cores: min(least.Cores, c.Cores), Memory: min(least.Memory, c.Memory), GPUs: min(least.GPUs, c.GPUs)}
	}
	n := int64(t.Nodes)
	return sdk.Amount{Cores: n * least.Cores, Memory: n * least.Memory, GPUs: n * least.GPUs}, found
}

// checkJob checks job j's allocation a, apart from the other jobs: on
// nodes of its partition that have its features, in a number the job and
// the partition allow, its tasks all placed, none on a node too small for
// its share; and its request equal to what its tasks hold.
func (in *nodeInfo) checkJob(j *sdk.Job, a sdk.Alloc) error {
	if !sim.HasTasks(j) {
		return fmt.Errorf("job id %d has no tasks on a platform of nodes", j.ID)
	}
	t := j.Tasks
	switch {
	case t.Count < 1 || t.Cores < 1 || t.Memory < 0 || t.GPUs < 0 || t.Nodes < 0 || t.Nodes > t.Count || (t.Exclusive && t.Nodes == 0):
		return fmt.Errorf("job id %d: malformed tasks %+v", j.ID, *t)
	case t.Partition < 0 || int(t.Partition) >= len(in.parts):
		return fmt.Errorf("job id %d: partition %d does not exist", j.ID, t.Partition)
	case in.maxWall[t.Partition] > 0 && j.Walltime > in.maxWall[t.Partition]:
		return fmt.Errorf("job id %d: walltime %d over its partition's limit %d", j.ID, j.Walltime, in.maxWall[t.Partition])
	case len(a.Nodes) == 0 || len(a.Nodes) != len(a.Tasks):
		return fmt.Errorf("job id %d: an allocation of %d nodes and %d task counts", j.ID, len(a.Nodes), len(a.Tasks))
	case t.Nodes > 0 && len(a.Nodes) != int(t.Nodes):
		return fmt.Errorf("job id %d: runs on %d nodes, it asked for %d", j.ID, len(a.Nodes), t.Nodes)
	case in.maxNodes[t.Partition] > 0 && len(a.Nodes) > in.maxNodes[t.Partition]:
		return fmt.Errorf("job id %d: runs on %d nodes, over its partition's limit %d", j.ID, len(a.Nodes), in.maxNodes[t.Partition])
	}
	d, ok := in.demand(t)
	if !ok {
		return fmt.Errorf("job id %d: no node of its partition has its features", j.ID)
	}
	if (in.mem < 0 && t.Memory != 0) || (in.gpu < 0 && t.GPUs != 0) {
		return fmt.Errorf("job id %d: its tasks need memory or GPUs, which the platform does not have", j.ID)
	}
	for _, w := range []struct {
		idx int
		v   int64
	}{{0, d.Cores}, {in.mem, d.Memory}, {in.gpu, d.GPUs}} {
		if w.idx >= 0 && j.Request[w.idx] != w.v {
			return fmt.Errorf("job id %d: requests %v, its tasks hold %d of resource %d", j.ID, []int64(j.Request), w.v, w.idx)
		}
	}
	var sum int64
	for x, k := range a.Nodes {
		if k < 0 || int(k) >= len(in.caps) || (x > 0 && k <= a.Nodes[x-1]) {
			return fmt.Errorf("job id %d: node %d out of range or out of order", j.ID, k)
		}
		n := a.Tasks[x]
		gi := in.group[k]
		switch {
		case n < 1:
			return fmt.Errorf("job id %d: %d tasks on node %d", j.ID, n, k)
		case !in.parts[t.Partition][gi]:
			return fmt.Errorf("job id %d: node %d is outside its partition", j.ID, k)
		case !in.hasFeatures(gi, t.Features):
			return fmt.Errorf("job id %d: node %d lacks a feature it requires", j.ID, k)
		}
		if h, c := (sdk.Amount{Cores: int64(n) * int64(t.Cores), Memory: int64(n) * t.Memory, GPUs: int64(n) * int64(t.GPUs)}), in.caps[k]; h.Cores > c.Cores || h.Memory > c.Memory || h.GPUs > c.GPUs {
			return fmt.Errorf("job id %d: %d tasks need %+v on node %d, which has %+v", j.ID, n, h, k, c)
		}
		sum += int64(n)
	}
	if sum != int64(t.Count) {
		return fmt.Errorf("job id %d: %d tasks placed, it has %d", j.ID, sum, t.Count)
	}
	return nil
}

// nodes checks the allocations of a run on a platform of nodes (allocs is
// sim.Result.Allocs): each job's on its own, then every node's usage over
// time, sweeping the changes ch (sorted by compareChanges).
func nodes(p *sdk.Platform, jobs []sim.Input, recs []bool, allocs *sim.Allocs, ch []change) error {
	if !p.HasNodes() {
		if allocs != nil && len(allocs.Nodes) > 0 {
			return fmt.Errorf("verify: %d node allocations on a platform without nodes", len(allocs.Nodes))
		}
		for i := range jobs {
			if sim.HasTasks(&jobs[i].Job) {
				return fmt.Errorf("verify: job id %d has tasks on a platform without nodes", jobs[i].Job.ID)
			}
		}
		return nil
	}
	if allocs == nil || allocs.Len() != len(jobs) {
		return fmt.Errorf("verify: node allocations of %d jobs for %d jobs", allocs.Len(), len(jobs))
	}
	if int(allocs.Start[0]) != 0 || int(allocs.Start[len(jobs)]) != len(allocs.Nodes) || len(allocs.Tasks) != len(allocs.Nodes) {
		return fmt.Errorf("verify: malformed node allocations")
	}
	for i := range len(jobs) {
		if allocs.Start[i+1] < allocs.Start[i] {
			return fmt.Errorf("verify: malformed node allocations at job index %d", i)
		}
	}
	// validateNodes allows nodes on a platform of one cluster only.
	in := newNodeInfo(p, &p.Clusters[0])
	for i := range jobs {
		a := allocs.Of(i)
		if recs[i] { // rejected
			if a.Len() > 0 {
				return fmt.Errorf("verify: job id %d was rejected, yet has an allocation", jobs[i].Job.ID)
			}
			continue
		}
		if err := in.checkJob(&jobs[i].Job, a); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
	}
	used := make([]sdk.Amount, len(in.caps))
	for _, c := range ch {
		t := jobs[c.idx].Job.Tasks
		a := allocs.Of(int(c.idx))
		for x, k := range a.Nodes {
			h := in.held(t, k, a.Tasks[x])
			u := &used[k]
			if c.delta < 0 {
				u.Cores, u.Memory, u.GPUs = u.Cores-h.Cores, u.Memory-h.Memory, u.GPUs-h.GPUs
				continue
			}
			u.Cores, u.Memory, u.GPUs = u.Cores+h.Cores, u.Memory+h.Memory, u.GPUs+h.GPUs
			if cp := in.caps[k]; u.Cores > cp.Cores || u.Memory > cp.Memory || u.GPUs > cp.GPUs {
				return fmt.Errorf("verify: at t=%d, starting job id %d makes node %d hold %+v of %+v (exclusive jobs hold their nodes whole)",
					c.at, jobs[c.idx].Job.ID, k, *u, cp)
			}
		}
	}
	return nil
}
