package sdk

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// Amount is an amount of a node's resources: cores, memory (bytes), GPUs.
type Amount struct {
	Cores, Memory, GPUs int64
}

func (a *Amount) add(b Amount) {
	a.Cores, a.Memory, a.GPUs = a.Cores+b.Cores, a.Memory+b.Memory, a.GPUs+b.GPUs
}
func (a *Amount) sub(b Amount) {
	a.Cores, a.Memory, a.GPUs = a.Cores-b.Cores, a.Memory-b.Memory, a.GPUs-b.GPUs
}

// times returns c times a.
func (a Amount) times(c int64) Amount { return Amount{c * a.Cores, c * a.Memory, c * a.GPUs} }

// Layout is what placing jobs needs to know of a cluster's nodes, computed
// once from the cluster: each node's capacity, group and features, each
// partition's nodes and limits. It never changes, so the engine, its
// verification and every policy of a run may share one.
type Layout struct {
	cluster  *Cluster
	caps     []Amount
	group    []int32
	feat     []uint64
	features []string
	// parts holds the nodes of each partition, in index order, by
	// Tasks.Partition: parts[0] is the default partition, parts[k] is
	// Cluster.Partitions[k-1]. A cluster without partitions has parts[0]
	// only, every node.
	parts      [][]int32
	partBits   [][]uint64 // parts as bitsets of nodes
	uniform    []bool     // by partition: its nodes are all alike
	partGroups [][]int32
	first      []int32 // each group's first node
	maxNodes   []int32
	maxWall    []int64
	maxCap     Amount // the largest of each amount over the nodes
	total      Amount
	mem, gpu   int // indexes of Memory and GPUs in Platform.Resources, or -1
}

// NewLayout returns the layout of cluster c of p, which must be valid (see
// Platform.Validate) and made of nodes.
func NewLayout(p *Platform, c int) *Layout {
	cl := &p.Clusters[c]
	l := &Layout{cluster: cl, features: cl.FeatureNames(), mem: p.Resource(Memory), gpu: p.Resource(GPUs)}
	n := cl.NodeCount()
	l.caps = make([]Amount, 0, n)
	l.group = make([]int32, 0, n)
	l.feat = make([]uint64, 0, n)
	first := make([]int32, len(cl.Nodes)+1)
	l.first = first
	for gi, g := range cl.Nodes {
		var mask uint64
		for _, f := range g.Features {
			k, _ := slices.BinarySearch(l.features, f)
			mask |= 1 << k
		}
		a := Amount{Cores: g.Cores, Memory: g.Memory, GPUs: g.GPUs}
		for range g.Count {
			l.caps = append(l.caps, a)
			l.group = append(l.group, int32(gi))
			l.feat = append(l.feat, mask)
		}
		first[gi+1] = first[gi] + int32(g.Count)
		l.maxCap = Amount{max(l.maxCap.Cores, a.Cores), max(l.maxCap.Memory, a.Memory), max(l.maxCap.GPUs, a.GPUs)}
		l.total.add(Amount{int64(g.Count) * a.Cores, int64(g.Count) * a.Memory, int64(g.Count) * a.GPUs})
	}
	groupIndex := func(name string) int32 {
		return int32(slices.IndexFunc(cl.Nodes, func(g NodeGroup) bool { return g.Name == name }))
	}
	addPart := func(groups []int32, maxNodes int, maxWall int64) {
		slices.Sort(groups)
		var nodes []int32
		for _, gi := range groups {
			for k := first[gi]; k < first[gi+1]; k++ {
				nodes = append(nodes, k)
			}
		}
		l.parts = append(l.parts, nodes)
		set := make([]uint64, (n+63)/64)
		for _, k := range nodes {
			set[k/64] |= 1 << (k % 64)
		}
		l.partBits = append(l.partBits, set)
		l.partGroups = append(l.partGroups, groups)
		same := true
		for _, gi := range groups {
			g, g0 := cl.Nodes[gi], cl.Nodes[groups[0]]
			same = same && g.Cores == g0.Cores && g.Memory == g0.Memory && g.GPUs == g0.GPUs
		}
		l.uniform = append(l.uniform, same)
		l.maxNodes = append(l.maxNodes, int32(min(maxNodes, 1<<30)))
		l.maxWall = append(l.maxWall, maxWall)
	}
	if len(cl.Partitions) == 0 {
		all := make([]int32, len(cl.Nodes))
		for gi := range all {
			all[gi] = int32(gi)
		}
		addPart(all, 0, 0)
		return l
	}
	def := max(0, slices.IndexFunc(cl.Partitions, func(pt Partition) bool { return pt.Default }))
	for k := -1; k < len(cl.Partitions); k++ {
		pt := cl.Partitions[max(k, 0)]
		if k < 0 {
			pt = cl.Partitions[def]
		}
		groups := make([]int32, len(pt.Groups))
		for i, g := range pt.Groups {
			groups[i] = groupIndex(g)
		}
		addPart(groups, pt.MaxNodes, pt.MaxWalltime)
	}
	return l
}

// Len returns the number of nodes.
func (l *Layout) Len() int { return len(l.caps) }

// Cap returns what node k has.
func (l *Layout) Cap(k int) Amount { return l.caps[k] }

// Group returns the index in Cluster.Nodes of node k's group.
func (l *Layout) Group(k int) int { return int(l.group[k]) }

// Groups returns the cluster's node groups.
func (l *Layout) Groups() []NodeGroup { return l.cluster.Nodes }

// Features returns the names of the feature bits of Tasks.Features.
func (l *Layout) Features() []string { return l.features }

// Rule returns the cluster's placement rule.
func (l *Layout) Rule() Placement { return l.cluster.PlacementRule() }

// Partitions returns the number of values Tasks.Partition may take: 1 +
// the number of partitions declared (the default partition is 0).
func (l *Layout) Partitions() int { return len(l.parts) }

// PartitionNodes returns the nodes of partition p (as Tasks.Partition
// numbers it), in index order. The caller must not change them.
func (l *Layout) PartitionNodes(p int32) []int32 { return l.parts[p] }

// Uniform reports whether the nodes of partition p (as Tasks.Partition
// numbers it) are all alike: an exclusive job there holds the same on any
// of them, Demand exactly.
func (l *Layout) Uniform(p int32) bool { return l.uniform[p] }

// InPartition reports whether node k is of partition p (as Tasks.Partition
// numbers it).
func (l *Layout) InPartition(p int32, k int32) bool { return l.partBits[p][k/64]&(1<<(k%64)) != 0 }

// Total returns what all the nodes add up to.
func (l *Layout) Total() Amount { return l.total }

// Held returns what a job of tasks t holds on a node k where it runs n
// tasks: the whole node for an exclusive job, n tasks' worth otherwise.
func (l *Layout) Held(t *Tasks, k int32, n int32) Amount {
	if t.Exclusive {
		return l.caps[k]
	}
	return Amount{int64(n) * int64(t.Cores), int64(n) * t.Memory, int64(n) * int64(t.GPUs)}
}

// HeldOn returns what a job of tasks t holds in all on allocation a (whose
// nodes are in increasing order): Held summed over its nodes, at the cost
// of the groups an exclusive job's nodes fall in rather than of its nodes.
func (l *Layout) HeldOn(t *Tasks, a Alloc) Amount {
	var all Amount
	if t.Exclusive {
		for g, c := range l.groupRuns(a.Nodes) {
			all.add(l.caps[l.first[g]].times(c))
		}
		return all
	}
	var n int64
	for _, x := range a.Tasks {
		n += int64(x)
	}
	return Amount{int64(t.Cores), t.Memory, int64(t.GPUs)}.times(n)
}

// groupRuns yields, for the nodes of sorted (in increasing order), each
// group they fall in and how many of them do: groups are runs of
// consecutive nodes, found by binary search.
func (l *Layout) groupRuns(sorted []int32) func(yield func(int32, int64) bool) {
	return func(yield func(int32, int64) bool) {
		for i := 0; i < len(sorted); {
			g := l.group[sorted[i]]
			end := l.first[g+1]
			j := i + 1
			switch {
			case sorted[len(sorted)-1] < end:
				j = len(sorted) // the rest are of g: the common case
			case j < len(sorted) && sorted[j] < end:
				j, _ = slices.BinarySearch(sorted[i:], end)
				j += i
			}
			if !yield(g, int64(j-i)) {
				return
			}
			i = j
		}
	}
}

// Demand returns what a job of tasks t holds in all: for a shared job, its
// tasks' worth; for an exclusive job, its nodes whole, each counted at the
// least any eligible node of its partition has (exact on nodes all alike).
// A policy that compares it with the free totals (State.Free) has a
// necessary condition for the job to fit.
func (l *Layout) Demand(t *Tasks) Amount {
	if !t.Exclusive {
		return Amount{int64(t.Count) * int64(t.Cores), int64(t.Count) * t.Memory, int64(t.Count) * int64(t.GPUs)}
	}
	var least Amount
	found := false
	for _, gi := range l.partGroups[t.Partition] {
		k := l.first[gi]
		if l.feat[k]&t.Features != t.Features {
			continue
		}
		c := l.caps[k]
		if !found {
			least, found = c, true
			continue
		}
		least = Amount{min(least.Cores, c.Cores), min(least.Memory, c.Memory), min(least.GPUs, c.GPUs)}
	}
	n := int64(t.Nodes)
	return Amount{n * least.Cores, n * least.Memory, n * least.GPUs}
}

// Request writes Demand(t) into the resources of v that nodes hold
// (processors, and Memory and GPUs where the platform has them).
func (l *Layout) Request(t *Tasks, v Vector) {
	d := l.Demand(t)
	v[0] = d.Cores
	if l.mem >= 0 {
		v[l.mem] = d.Memory
	}
	if l.gpu >= 0 {
		v[l.gpu] = d.GPUs
	}
}

// ErrTasks is wrapped by the errors of Layout.Check.
var ErrTasks = errors.New("invalid tasks")

// CheckWalltime reports a walltime over the limit of the partition of
// tasks t (which Check accepted). It wraps ErrTasks.
func (l *Layout) CheckWalltime(t *Tasks, walltime int64) error {
	if w := l.maxWall[t.Partition]; w > 0 && walltime > w {
		return fmt.Errorf("%w: walltime %d s over the partition's limit of %d s", ErrTasks, walltime, w)
	}
	return nil
}

// Check reports what makes tasks t impossible on the cluster: a malformed
// request, an unknown partition or feature, the partition's node limit
// exceeded, or more than the partition's nodes hold when all are free. It
// wraps ErrTasks. See also CheckWalltime.
func (l *Layout) Check(t *Tasks) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrTasks, fmt.Sprintf(format, args...))
	}
	switch {
	case t.Count < 1 || t.Cores < 1 || t.Memory < 0 || t.GPUs < 0:
		return bad("%d tasks of %d cores, %d bytes and %d GPUs: want at least one task of at least one core", t.Count, t.Cores, t.Memory, t.GPUs)
	case t.Nodes < 0 || t.Nodes > t.Count:
		return bad("%d nodes for %d tasks", t.Nodes, t.Count)
	case t.Exclusive && t.Nodes == 0:
		return bad("an exclusive job names its number of nodes")
	case t.Partition < 0 || int(t.Partition) >= len(l.parts):
		return bad("partition %d of %d", t.Partition, len(l.parts)-1)
	case bits.Len64(t.Features) > len(l.features):
		return bad("feature bits %#x, the cluster has %d features", t.Features, len(l.features))
	case t.Memory > 0 && l.mem < 0:
		return bad("%d bytes of memory a task on a platform without %q", t.Memory, Memory)
	case t.GPUs > 0 && l.gpu < 0:
		return bad("%d GPUs a task on a platform without %q", t.GPUs, GPUs)
	case l.maxNodes[t.Partition] > 0 && t.Nodes > l.maxNodes[t.Partition]:
		return bad("%d nodes over the partition's limit of %d", t.Nodes, l.maxNodes[t.Partition])
	case int64(t.Count) > l.total.Cores || int64(t.Cores) > l.maxCap.Cores || t.Memory > l.maxCap.Memory ||
		int64(t.GPUs) > l.maxCap.GPUs || (t.Memory > 0 && t.Memory > l.total.Memory/int64(t.Count)):
		return bad("%d tasks of %d cores, %d bytes and %d GPUs: more than the nodes have", t.Count, t.Cores, t.Memory, t.GPUs)
	}
	empty := l.NewNodes()
	if !empty.Fits(t) {
		return bad("%d tasks of %d cores, %d bytes and %d GPUs (%d nodes, exclusive %v) do not fit partition %d even when every node is free",
			t.Count, t.Cores, t.Memory, t.GPUs, t.Nodes, t.Exclusive, t.Partition)
	}
	return nil
}

// NewNodes returns the nodes of l, all free.
func (l *Layout) NewNodes() *Nodes {
	n := &Nodes{Layout: l, Free: slices.Clone(l.caps)}
	n.reindex()
	return n
}
