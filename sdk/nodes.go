package sdk

import (
	"errors"
	"fmt"
	"slices"
)

// The names of the resources a cluster of nodes may have besides
// processors (its cores, Processors): memory, in bytes, and GPUs.
const (
	Memory = "mem"
	GPUs   = "gpus"
)

// NodeGroup is a set of identical nodes of a cluster.
type NodeGroup struct {
	// Name identifies the group in partitions and results.
	Name string `json:"name"`
	// Count is the number of nodes.
	Count int `json:"count"`
	// Cores, Memory (bytes) and GPUs are what each node has.
	Cores  int64 `json:"cores"`
	Memory int64 `json:"memory,omitempty"`
	GPUs   int64 `json:"gpus,omitempty"`
	// Features are the node's tags, which a job may require (Tasks.Features).
	Features []string `json:"features,omitempty"`
}

// Partition is a named set of a cluster's nodes, with limits on the jobs
// that run in it. Partitions may overlap.
type Partition struct {
	Name string `json:"name"`
	// Groups names the node groups whose nodes the partition holds.
	Groups []string `json:"groups"`
	// MaxWalltime is the longest walltime a job of the partition may
	// request, in seconds; 0 for no limit.
	MaxWalltime int64 `json:"max_walltime,omitempty"`
	// MaxNodes is the most nodes a job of the partition may run on; 0 for
	// no limit.
	MaxNodes int `json:"max_nodes,omitempty"`
	// Default makes it the partition of jobs that name none
	// (Tasks.Partition 0); without one, the first partition is.
	Default bool `json:"default,omitempty"`
}

// Placement names a rule by which the engine places a job's tasks on
// nodes when the policy leaves the choice to it (see Nodes.Place).
type Placement string

// The placement rules.
const (
	// FirstFit takes the eligible nodes in index order.
	FirstFit Placement = "first-fit"
	// BestFit takes the eligible nodes with the fewest free cores first
	// (ties to the lower index), so that whole nodes stay whole.
	BestFit Placement = "best-fit"
	// Contiguous takes a run of consecutive nodes, the lowest that holds
	// the job.
	Contiguous Placement = "contiguous"
)

// Placements lists the placement rules, the default first.
func Placements() []Placement { return []Placement{FirstFit, BestFit, Contiguous} }

// Tasks says how a job's request lies on the nodes of a cluster of nodes:
// Count tasks of Cores cores, Memory bytes and GPUs GPUs each, every task
// within one node. It is zero for a job of a platform without nodes.
type Tasks struct {
	Count  int32
	Cores  int32
	Memory int64
	GPUs   int32
	// Nodes, when positive, is exactly the number of nodes the job runs
	// on, each holding at least one of its tasks; 0 lets the placement
	// choose. An exclusive job always names it.
	Nodes int32
	// Exclusive jobs hold their nodes whole: no other job shares them.
	Exclusive bool
	// Partition is 1 + the index of the job's partition in
	// Cluster.Partitions, or 0 for the cluster's default partition.
	Partition int32
	// Features is the set of node features every node of the job must
	// have, as a mask over Cluster.FeatureNames (bit k for name k).
	Features uint64
}

// Alloc says where a job runs on a cluster of nodes: Tasks[k] of its tasks
// on node Nodes[k], nodes in increasing index order. Nodes are numbered
// from 0 in the order of Cluster.Nodes' groups.
type Alloc struct {
	Nodes []int32
	Tasks []int32
}

// Len returns the number of nodes of a.
func (a Alloc) Len() int { return len(a.Nodes) }

// HasNodes reports whether c is made of nodes.
func (c *Cluster) HasNodes() bool { return len(c.Nodes) > 0 }

// NodeCount returns the number of nodes of c.
func (c *Cluster) NodeCount() int {
	n := 0
	for _, g := range c.Nodes {
		n += g.Count
	}
	return n
}

// FeatureNames returns the distinct features of c's node groups, sorted:
// the bits of Tasks.Features.
func (c *Cluster) FeatureNames() []string {
	var names []string
	for _, g := range c.Nodes {
		names = append(names, g.Features...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// PlacementRule returns c's placement rule, FirstFit when unset.
func (c *Cluster) PlacementRule() Placement {
	if c.Placement == "" {
		return FirstFit
	}
	return c.Placement
}

// HasNodes reports whether some cluster of p is made of nodes.
func (p *Platform) HasNodes() bool {
	for i := range p.Clusters {
		if p.Clusters[i].HasNodes() {
			return true
		}
	}
	return false
}

// Resource returns the index of the named resource in p.Resources, or -1.
func (p *Platform) Resource(name string) int { return slices.Index(p.Resources, name) }

// maxFeatures bounds the features of a cluster: a job's are a 64-bit mask.
const maxFeatures = 64

// ErrNodes is wrapped by the errors of Platform.Validate about a cluster's
// nodes, partitions or placement rule.
var ErrNodes = errors.New("invalid nodes")

// validateNodes checks the nodes, partitions and placement rule of a
// cluster of p.
func (p *Platform) validateNodes(c *Cluster) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrNodes, fmt.Sprintf(format, args...))
	}
	if !c.HasNodes() {
		if len(c.Partitions) > 0 || c.Placement != "" {
			return bad("partitions or a placement rule without nodes")
		}
		return nil
	}
	if len(p.Clusters) != 1 {
		return bad("a platform of nodes has one cluster (this one of %d)", len(p.Clusters))
	}
	for _, u := range c.Units {
		// What nodes hold is theirs to divide: units are of a resource
		// beside them (a burst buffer on storage nodes of its own). An
		// index out of range is validateUnits' to report.
		if u.Resource > 0 && u.Resource < len(p.Resources) && (p.Resources[u.Resource] == Memory || p.Resources[u.Resource] == GPUs) {
			return bad("%s is held by the nodes and cannot be divided into units too", p.Resources[u.Resource])
		}
	}
	if !slices.Contains(Placements(), c.PlacementRule()) {
		return bad("placement %q is not one of %v", c.Placement, Placements())
	}
	mem, gpu := p.Resource(Memory), p.Resource(GPUs)
	var cores, memory, gpus int64
	groups := make(map[string]bool, len(c.Nodes))
	nodes := 0
	for _, g := range c.Nodes {
		switch {
		case g.Name == "" || groups[g.Name]:
			return bad("node group name %q is empty or repeated", g.Name)
		case g.Count < 1 || g.Count > 1<<24:
			return bad("node group %q: %d nodes; want 1 to %d", g.Name, g.Count, 1<<24)
		case g.Cores < 1 || g.Cores > 1<<20:
			return bad("node group %q: %d cores a node; want 1 to %d", g.Name, g.Cores, 1<<20)
		case g.Memory < 0 || g.GPUs < 0 || g.GPUs > 1<<20:
			return bad("node group %q: negative memory or GPUs, or too many GPUs", g.Name)
		case g.Memory > 0 && mem < 0:
			return bad("node group %q has memory, the platform no resource %q", g.Name, Memory)
		case g.GPUs > 0 && gpu < 0:
			return bad("node group %q has GPUs, the platform no resource %q", g.Name, GPUs)
		case g.Memory > (1<<62)/int64(g.Count):
			return bad("node group %q: memory %d a node overflows", g.Name, g.Memory)
		}
		groups[g.Name] = true
		seen := map[string]bool{}
		for _, f := range g.Features {
			if f == "" || seen[f] {
				return bad("node group %q: feature %q is empty or repeated", g.Name, f)
			}
			seen[f] = true
		}
		nodes += g.Count
		if nodes > 1<<24 {
			return bad("more than %d nodes", 1<<24)
		}
		cores += int64(g.Count) * g.Cores
		memory += int64(g.Count) * g.Memory
		gpus += int64(g.Count) * g.GPUs
		if memory < 0 {
			return bad("total memory overflows")
		}
	}
	if n := len(c.FeatureNames()); n > maxFeatures {
		return bad("%d features, at most %d", n, maxFeatures)
	}
	if c.Capacity[0] != cores {
		return bad("capacity of %d %s, the nodes have %d cores", c.Capacity[0], Processors, cores)
	}
	if mem >= 0 && c.Capacity[mem] != memory {
		return bad("capacity of %d %s, the nodes have %d", c.Capacity[mem], Memory, memory)
	}
	if gpu >= 0 && c.Capacity[gpu] != gpus {
		return bad("capacity of %d %s, the nodes have %d", c.Capacity[gpu], GPUs, gpus)
	}
	parts := make(map[string]bool, len(c.Partitions))
	defaults := 0
	for _, pt := range c.Partitions {
		switch {
		case pt.Name == "" || parts[pt.Name]:
			return bad("partition name %q is empty or repeated", pt.Name)
		case len(pt.Groups) == 0:
			return bad("partition %q has no node group", pt.Name)
		case pt.MaxWalltime < 0 || pt.MaxNodes < 0:
			return bad("partition %q: negative limit", pt.Name)
		}
		parts[pt.Name] = true
		in := map[string]bool{}
		for _, g := range pt.Groups {
			if !groups[g] || in[g] {
				return bad("partition %q: node group %q is unknown or repeated", pt.Name, g)
			}
			in[g] = true
		}
		if pt.Default {
			defaults++
		}
	}
	if defaults > 1 {
		return bad("%d default partitions", defaults)
	}
	return nil
}

// NodesPlatform returns a platform of one cluster of the given node groups
// and partitions, with the resources its nodes need (memory and GPUs only
// when some group has them) and the capacities they add up to.
func NodesPlatform(name string, groups []NodeGroup, parts []Partition, rule Placement) *Platform {
	p := &Platform{Name: name, Resources: []string{Processors}}
	var cores, memory, gpus int64
	for _, g := range groups {
		cores += int64(g.Count) * g.Cores
		memory += int64(g.Count) * g.Memory
		gpus += int64(g.Count) * g.GPUs
	}
	capa := Vector{cores}
	if memory > 0 {
		p.Resources = append(p.Resources, Memory)
		capa = append(capa, memory)
	}
	if gpus > 0 {
		p.Resources = append(p.Resources, GPUs)
		capa = append(capa, gpus)
	}
	p.Clusters = []Cluster{{Name: name, Capacity: capa, Nodes: groups, Partitions: parts, Placement: rule}}
	return p
}
