package sdk

import (
	"cmp"
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
		l.partGroups = append(l.partGroups, groups)
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
	return &Nodes{Layout: l, Free: slices.Clone(l.caps)}
}

// Nodes is the state of a cluster's nodes: what each has free. The engine
// shows one per cluster of nodes (State.Nodes); a policy that looks ahead
// keeps a copy of its own (CopyFrom) and takes and releases allocations
// on it. Its methods are not safe for concurrent use.
type Nodes struct {
	Layout *Layout
	// Free is what each node has free, by node index.
	Free []Amount
	// cand and fits are scratch space for placements.
	cand []int32
	fits []int64
	// limit, while PlaceWithin runs, bounds the room of every node.
	limit *Nodes
	// changed logs the nodes SetFree changed since ClearChanged, marked
	// in logged; epoch counts the calls of ClearChanged.
	changed []int32
	logged  []bool
	epoch   uint64
}

// SetFree sets what node k has free and logs the change (see Changed).
// The engine changes the nodes it shows this way.
func (n *Nodes) SetFree(k int32, a Amount) {
	n.Free[k] = a
	if n.logged == nil {
		n.logged = make([]bool, len(n.Free))
	}
	if !n.logged[k] {
		n.logged[k] = true
		n.changed = append(n.changed, k)
	}
}

// Changed returns the nodes SetFree changed since the last ClearChanged:
// on the nodes the engine shows, those changed since the previous
// Schedule call. The caller must not change it.
func (n *Nodes) Changed() []int32 { return n.changed }

// ClearChanged empties the log of changed nodes. The engine calls it on
// the nodes it shows when a Schedule call returns.
func (n *Nodes) ClearChanged() {
	for _, k := range n.changed {
		n.logged[k] = false
	}
	n.changed = n.changed[:0]
	n.epoch++
}

// CopyFrom makes n a copy of what m has free, reusing n's memory (its log
// of changes is not copied).
func (n *Nodes) CopyFrom(m *Nodes) {
	n.Layout = m.Layout
	n.Free = append(n.Free[:0], m.Free...)
}

// fit is Fit, bounded by limit's Fit while PlaceWithin runs.
func (n *Nodes) fit(t *Tasks, k int32) int64 {
	x := n.Fit(t, k)
	if n.limit != nil && x > 0 {
		x = min(x, n.limit.Fit(t, k))
	}
	return x
}

// PlaceWithin is Place on nodes whose room is the lesser of what n and
// limit (nodes of the same layout) have free: where a job may run now
// without taking what a reservation holds later, when limit is the nodes
// as they will be then.
func (n *Nodes) PlaceWithin(t *Tasks, rule Placement, dst *Alloc, limit *Nodes) bool {
	n.limit = limit
	defer func() { n.limit = nil }()
	return n.Place(t, rule, dst)
}

// Fit returns how many tasks of t node k can take now: 0 when the node
// lacks a feature of t, or when t is exclusive and the node not wholly
// free. It does not look at partitions.
func (n *Nodes) Fit(t *Tasks, k int32) int64 {
	l := n.Layout
	if l.feat[k]&t.Features != t.Features {
		return 0
	}
	f := n.Free[k]
	if t.Exclusive && f != l.caps[k] {
		return 0
	}
	x := f.Cores
	if t.Cores != 1 {
		x /= int64(t.Cores)
	}
	if t.Memory > 0 {
		x = min(x, f.Memory/t.Memory)
	}
	if t.GPUs > 0 {
		x = min(x, f.GPUs/int64(t.GPUs))
	}
	return x
}

// Fits reports whether tasks t can be placed now by the cluster's
// placement rule (Place would succeed).
func (n *Nodes) Fits(t *Tasks) bool { return n.Place(t, n.Layout.Rule(), nil) }

// Place finds room for tasks t on the free nodes of its partition by rule
// and, when dst is not nil, writes it there (reusing dst's slices); it
// reports whether the tasks fit. It does not change n.
//
// Without a node count, the rule's nodes take, one after the other, as
// many tasks as fit on them until all are placed. With a node count N,
// the tasks are balanced: Count mod N nodes take ceil(Count/N) tasks, the
// others floor(Count/N), and the rule's nodes take the larger share while
// it is due and they hold it. FirstFit goes in node order; BestFit in
// increasing order of free cores, ties by index; Contiguous takes the
// run of consecutive nodes that starts lowest. Under a partition's
// MaxNodes, when the rule's nodes would be too many, the MaxNodes nodes
// with the most room take the tasks (ties in the rule's order). Each rule
// places the job whenever some placement of its kind exists (any nodes,
// balanced shares with a node count, consecutive nodes for Contiguous).
func (n *Nodes) Place(t *Tasks, rule Placement, dst *Alloc) bool {
	l := n.Layout
	part := l.parts[t.Partition]
	maxNodes := l.maxNodes[t.Partition]
	if maxNodes == 0 {
		maxNodes = 1 << 30
	}
	if dst != nil {
		dst.Nodes, dst.Tasks = dst.Nodes[:0], dst.Tasks[:0]
	}
	if t.Nodes > maxNodes {
		return false
	}
	switch rule {
	case Contiguous:
		return n.placeContiguous(t, part, maxNodes, dst)
	case BestFit:
		if dst == nil && maxNodes == 1<<30 {
			// Whether the tasks fit does not depend on the order then.
			return n.placeInOrder(t, part, maxNodes, nil)
		}
		return n.placeBestFit(t, part, maxNodes, dst)
	default:
		return n.placeInOrder(t, part, maxNodes, dst)
	}
}

// placeInOrder places t on the nodes of order, in that order. Without a
// node count, each node takes what fits of what is left; when that needs
// more than maxNodes nodes, the maxNodes nodes with the most room take
// the tasks instead (ties in order), so that a placement within the limit
// is found whenever one exists.
func (n *Nodes) placeInOrder(t *Tasks, order []int32, maxNodes int32, dst *Alloc) bool {
	if t.Nodes > 0 {
		return n.placeBalanced(t, order, dst)
	}
	rem := int64(t.Count)
	used := int32(0)
	for _, k := range order {
		x := n.fit(t, k)
		if x == 0 {
			continue
		}
		if used++; used > maxNodes {
			return n.placeCapped(t, order, maxNodes, dst)
		}
		take := min(x, rem)
		if dst != nil {
			dst.Nodes = append(dst.Nodes, k)
			dst.Tasks = append(dst.Tasks, int32(take))
		}
		if rem -= take; rem == 0 {
			return true
		}
	}
	return false
}

// placeCapped places t, which has no node count, on at most maxNodes of
// the nodes of order: those with the most room (ties in order), filled in
// order.
func (n *Nodes) placeCapped(t *Tasks, order []int32, maxNodes int32, dst *Alloc) bool {
	type room struct {
		pos int
		x   int64
	}
	var best []room
	for pos, k := range order {
		if x := n.fit(t, k); x > 0 {
			best = append(best, room{pos, x})
		}
	}
	slices.SortStableFunc(best, func(a, b room) int { return cmp.Compare(b.x, a.x) })
	best = best[:min(len(best), int(maxNodes))]
	var sum int64
	for _, r := range best {
		sum += r.x
	}
	if sum < int64(t.Count) {
		return false
	}
	if dst == nil {
		return true
	}
	slices.SortFunc(best, func(a, b room) int { return cmp.Compare(a.pos, b.pos) })
	dst.Nodes, dst.Tasks = dst.Nodes[:0], dst.Tasks[:0]
	rem := int64(t.Count)
	for _, r := range best {
		if rem == 0 {
			break
		}
		take := min(r.x, rem)
		dst.Nodes = append(dst.Nodes, order[r.pos])
		dst.Tasks = append(dst.Tasks, int32(take))
		rem -= take
	}
	if !slices.IsSorted(dst.Nodes) {
		sortAlloc(dst)
	}
	return true
}

// placeBalanced places t, which has a node count, on the nodes of order in
// that order: each takes ceil(Count/Nodes) tasks while such shares are
// due and it holds one, floor(Count/Nodes) otherwise.
func (n *Nodes) placeBalanced(t *Tasks, order []int32, dst *Alloc) bool {
	q := int64(t.Count / t.Nodes)
	hi, lo := t.Count%t.Nodes, t.Nodes-t.Count%t.Nodes
	for _, k := range order {
		x := n.fit(t, k)
		var take int64
		switch {
		case x < q:
			continue
		case hi > 0 && x > q:
			take = q + 1
			hi--
		case lo > 0:
			take = q
			lo--
		default:
			continue
		}
		if dst != nil {
			dst.Nodes = append(dst.Nodes, k)
			dst.Tasks = append(dst.Tasks, int32(take))
		}
		if hi == 0 && lo == 0 {
			return true
		}
	}
	return false
}

// placeBestFit places t on the nodes of part in increasing order of free
// cores (ties by index), and sorts the allocation by node.
func (n *Nodes) placeBestFit(t *Tasks, part []int32, maxNodes int32, dst *Alloc) bool {
	n.cand = n.cand[:0]
	for _, k := range part {
		if n.fit(t, k) > 0 {
			n.cand = append(n.cand, k)
		}
	}
	slices.SortFunc(n.cand, func(a, b int32) int {
		if c := cmp.Compare(n.Free[a].Cores, n.Free[b].Cores); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	if !n.placeInOrder(t, n.cand, maxNodes, dst) {
		return false
	}
	if dst != nil {
		sortAlloc(dst)
	}
	return true
}

// placeContiguous places t on the lowest-starting run of consecutive
// nodes of part that holds it.
func (n *Nodes) placeContiguous(t *Tasks, part []int32, maxNodes int32, dst *Alloc) bool {
	// Runs of consecutive nodes that take at least one task (at least
	// the smaller share, with a node count) are gathered in cand, with
	// what each takes in fits, and tried once complete.
	need := int64(1)
	if t.Nodes > 0 {
		need = int64(t.Count / t.Nodes)
	}
	n.cand, n.fits = n.cand[:0], n.fits[:0]
	for i, k := range part {
		if x := n.fit(t, k); x >= need {
			if len(n.cand) > 0 && n.cand[len(n.cand)-1] != k-1 {
				if n.tryRun(t, maxNodes, dst) {
					return true
				}
				n.cand, n.fits = n.cand[:0], n.fits[:0]
			}
			n.cand = append(n.cand, k)
			n.fits = append(n.fits, x)
			if i < len(part)-1 {
				continue
			}
		}
		if n.tryRun(t, maxNodes, dst) {
			return true
		}
		n.cand, n.fits = n.cand[:0], n.fits[:0]
	}
	return false
}

// tryRun places t on the run of consecutive nodes in n.cand (what each
// takes in n.fits): the window that starts lowest.
func (n *Nodes) tryRun(t *Tasks, maxNodes int32, dst *Alloc) bool {
	run, fits := n.cand, n.fits
	if t.Nodes > 0 {
		w := int(t.Nodes)
		q := int64(t.Count / t.Nodes)
		hiNeed := int(t.Count % t.Nodes)
		his := 0 // nodes of the window that hold the larger share
		for b := range run {
			if fits[b] > q {
				his++
			}
			if b >= w && fits[b-w] > q {
				his--
			}
			if b >= w-1 && his >= hiNeed {
				if dst != nil {
					return n.placeBalanced(t, run[b-w+1:b+1], dst)
				}
				return true
			}
		}
		return false
	}
	rem := int64(t.Count)
	var sum int64
	b := 0
	for a := range run {
		for b < len(run) && sum < rem {
			sum += fits[b]
			b++
		}
		if sum < rem {
			return false
		}
		if int32(b-a) <= maxNodes {
			if dst != nil {
				for i := a; i < b; i++ {
					take := min(fits[i], rem)
					dst.Nodes = append(dst.Nodes, run[i])
					dst.Tasks = append(dst.Tasks, int32(take))
					rem -= take
				}
			}
			return true
		}
		sum -= fits[a]
	}
	return false
}

// sortAlloc orders an allocation by node.
func sortAlloc(a *Alloc) {
	for i := 1; i < len(a.Nodes); i++ {
		for j := i; j > 0 && a.Nodes[j] < a.Nodes[j-1]; j-- {
			a.Nodes[j], a.Nodes[j-1] = a.Nodes[j-1], a.Nodes[j]
			a.Tasks[j], a.Tasks[j-1] = a.Tasks[j-1], a.Tasks[j]
		}
	}
}

// CheckAlloc reports why a job of tasks t cannot start now on allocation
// a: nodes out of order or outside its partition, a node count other than
// the job's or over the partition's limit, tasks that do not add up, or a
// node without room for its share. Nil means Take may follow.
func (n *Nodes) CheckAlloc(t *Tasks, a Alloc) error {
	l := n.Layout
	part := l.parts[t.Partition]
	switch {
	case len(a.Nodes) == 0 || len(a.Nodes) != len(a.Tasks):
		return fmt.Errorf("an allocation of %d nodes and %d task counts", len(a.Nodes), len(a.Tasks))
	case t.Nodes > 0 && len(a.Nodes) != int(t.Nodes):
		return fmt.Errorf("an allocation of %d nodes for a job of %d", len(a.Nodes), t.Nodes)
	case l.maxNodes[t.Partition] > 0 && len(a.Nodes) > int(l.maxNodes[t.Partition]):
		return fmt.Errorf("an allocation of %d nodes, over the partition's limit of %d", len(a.Nodes), l.maxNodes[t.Partition])
	}
	var sum int64
	for i, k := range a.Nodes {
		switch {
		case k < 0 || int(k) >= len(l.caps):
			return fmt.Errorf("node %d of %d", k, len(l.caps))
		case i > 0 && k <= a.Nodes[i-1]:
			return fmt.Errorf("nodes not in increasing order (%d after %d)", k, a.Nodes[i-1])
		case a.Tasks[i] < 1:
			return fmt.Errorf("%d tasks on node %d", a.Tasks[i], k)
		}
		if _, in := slices.BinarySearch(part, k); !in {
			return fmt.Errorf("node %d is not in the job's partition", k)
		}
		if x := n.Fit(t, k); int64(a.Tasks[i]) > x {
			return fmt.Errorf("%d tasks on node %d, which has room for %d (free %d cores, %d bytes, %d GPUs; exclusive %v)",
				a.Tasks[i], k, x, n.Free[k].Cores, n.Free[k].Memory, n.Free[k].GPUs, t.Exclusive)
		}
		sum += int64(a.Tasks[i])
	}
	if sum != int64(t.Count) {
		return fmt.Errorf("an allocation of %d tasks for a job of %d", sum, t.Count)
	}
	return nil
}

// Take takes what a job of tasks t holds on allocation a from the free
// nodes, and returns the total taken. It does not check (see CheckAlloc).
func (n *Nodes) Take(t *Tasks, a Alloc) Amount {
	var all Amount
	for i, k := range a.Nodes {
		h := n.Layout.Held(t, k, a.Tasks[i])
		n.Free[k].sub(h)
		all.add(h)
	}
	return all
}

// Release gives back what a job of tasks t holds on allocation a, and
// returns the total given back.
func (n *Nodes) Release(t *Tasks, a Alloc) Amount {
	var all Amount
	for i, k := range a.Nodes {
		h := n.Layout.Held(t, k, a.Tasks[i])
		n.Free[k].add(h)
		all.add(h)
	}
	return all
}
