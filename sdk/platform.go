package sdk

import (
	"errors"
	"fmt"
	"math"
)

// Processors is the name of the resource at index 0 of every platform.
const Processors = "procs"

// Platform is the machine a run simulates: one or more clusters sharing one
// list of resource names. Its JSON form, with the keys its tags spell, is
// the one results record in provenance; the plugin protocol has a schema of
// its own.
type Platform struct {
	// Name identifies the platform in results.
	Name string `json:"name"`
	// Resources names the resources, in the order of every Vector of the
	// run. Resources[0] is always Processors.
	Resources []string `json:"resources"`
	// Clusters lists the clusters; a job runs within exactly one.
	Clusters []Cluster `json:"clusters"`
}

// Cluster is a set of resources that one job may use together.
type Cluster struct {
	// Name identifies the cluster in results.
	Name string `json:"name"`
	// Capacity is the total amount of each resource.
	Capacity Vector `json:"capacity"`
	// Units lists the resources of the cluster that are made of separate
	// units (empty when every resource is one pool).
	Units []Units `json:"units,omitempty"`
	// PriceFactor is what a processor of the cluster is worth to a grid's
	// price function, the F(R) of a price C * P(t) * F(R) per processor-
	// second (Kovalenko et al. 2006); 0 means unset, read as 1 (Price).
	PriceFactor float64 `json:"price_factor,omitempty"`
	// Nodes, when not empty, makes the cluster a machine of nodes: its
	// Capacity is then what the nodes add up to (cores as processors,
	// memory and GPUs as the resources Memory and GPUs), and every job
	// says with Job.Tasks how its request lies on them.
	Nodes []NodeGroup `json:"nodes,omitempty"`
	// Partitions are named sets of the nodes; without any, one partition
	// holds every node.
	Partitions []Partition `json:"partitions,omitempty"`
	// Placement is the rule by which the engine places a job whose start
	// leaves the choice of nodes to it; empty means FirstFit.
	Placement Placement `json:"placement,omitempty"`
	// Features are the tags of a cluster of a grid (a pool of processors),
	// which a job may require (Job.Requires, Platform.Serves): the
	// resources a job requests beyond processors, such as an accelerator.
	Features []string `json:"features,omitempty"`
}

// Price returns c's price factor: PriceFactor, or 1 when it is unset.
func (c *Cluster) Price() float64 {
	if c.PriceFactor == 0 {
		return 1
	}
	return c.PriceFactor
}

// Units declares a resource made of separate units, such as a shared burst
// buffer spread over storage nodes: a job's request of the resource comes in
// equal pieces, one per unit of another resource it requests (one per
// processor, usually: a compute node's burst-buffer space), and each piece
// must lie whole within one unit. The total is still accounted in
// Cluster.Capacity and Job.Request, so a policy that ignores units sees a
// necessary condition; the engine also checks and records the placement.
type Units struct {
	// Resource is the index in Platform.Resources of the divided resource.
	Resource int `json:"resource"`
	// PiecesBy is the index of the resource whose requested amount is the
	// number of pieces (0: one piece per processor).
	PiecesBy int `json:"pieces_by"`
	// Capacity is each unit's capacity; they add up to the cluster's
	// Capacity[Resource].
	Capacity []int64 `json:"capacity"`
}

// Pieces returns how job request req divides on u: n pieces of size bytes
// (or whatever the resource counts). A request of zero is zero pieces. It
// fails when the request is not n equal whole pieces.
func (u Units) Pieces(req Vector) (n, size int64, err error) {
	total, n := req[u.Resource], req[u.PiecesBy]
	switch {
	case total == 0:
		return 0, 0, nil
	case n <= 0:
		return 0, 0, fmt.Errorf("requests %d of a divided resource in %d pieces", total, n)
	case total%n != 0:
		return 0, 0, fmt.Errorf("requests %d of a divided resource, not a multiple of its %d pieces", total, n)
	}
	return n, total / n, nil
}

// UnitCount returns the number of units of all of c's divided resources:
// the length of a placement on c (see Running.Units).
func (c *Cluster) UnitCount() int {
	n := 0
	for _, u := range c.Units {
		n += len(u.Capacity)
	}
	return n
}

// PiecesFit reports whether n pieces of the given size fit in units whose
// free amounts are free, each piece within one unit.
func PiecesFit(free []int64, n, size int64) bool {
	if n == 0 {
		return true
	}
	for _, f := range free {
		if f >= size {
			if n -= f / size; n <= 0 {
				return true
			}
		}
	}
	return false
}

// PlacePieces writes into dst (one count per unit, len(dst) == len(free)) a
// placement of n pieces of the given size on units with free amounts free,
// and reports whether all fit. The rule is best fit, which the engine uses
// whenever a policy does not choose: each piece goes to the unit with the
// least free amount that still holds it, ties to the lower unit index, so
// large free units stay whole for large pieces. Pieces being equal, that
// fills units in increasing order of free amount.
func PlacePieces(dst []int32, free []int64, n, size int64) bool {
	clear(dst)
	for n > 0 {
		best := -1
		for k, f := range free {
			if f-int64(dst[k])*size >= size && (best < 0 || f-int64(dst[k])*size < free[best]-int64(dst[best])*size) {
				best = k
			}
		}
		if best < 0 {
			return false
		}
		take := min(n, (free[best]-int64(dst[best])*size)/size)
		dst[best] += int32(take)
		n -= take
	}
	return true
}

// SingleCluster returns a platform of one cluster with the given number of
// processors and no other resource.
func SingleCluster(name string, procs int64) *Platform {
	return &Platform{
		Name:      name,
		Resources: []string{Processors},
		Clusters:  []Cluster{{Name: name, Capacity: Vector{procs}}},
	}
}

// Validate reports the first inconsistency in p.
func (p *Platform) Validate() error {
	if len(p.Resources) == 0 || p.Resources[0] != Processors {
		return fmt.Errorf("platform %q: first resource must be %q", p.Name, Processors)
	}
	seen := make(map[string]bool, len(p.Resources))
	for _, r := range p.Resources {
		if r == "" {
			return fmt.Errorf("platform %q: empty resource name", p.Name)
		}
		if seen[r] {
			return fmt.Errorf("platform %q: resource %q declared twice", p.Name, r)
		}
		seen[r] = true
	}
	if len(p.Clusters) == 0 {
		return errors.New("platform " + p.Name + ": no cluster")
	}
	for _, c := range p.Clusters {
		if len(c.Capacity) != len(p.Resources) {
			return fmt.Errorf("platform %q: cluster %q has %d capacities for %d resources",
				p.Name, c.Name, len(c.Capacity), len(p.Resources))
		}
		for i, x := range c.Capacity {
			if x < 0 {
				return fmt.Errorf("platform %q: cluster %q: negative capacity of %s", p.Name, c.Name, p.Resources[i])
			}
		}
		if f := c.PriceFactor; f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("platform %q: cluster %q: price factor %v is not a non-negative number", p.Name, c.Name, f)
		}
		if err := p.validateFeatures(&c); err != nil {
			return fmt.Errorf("platform %q: cluster %q: %w", p.Name, c.Name, err)
		}
		if err := p.validateNodes(&c); err != nil {
			return fmt.Errorf("platform %q: cluster %q: %w", p.Name, c.Name, err)
		}
		divided := make(map[int]bool, len(c.Units))
		for _, u := range c.Units {
			if err := p.validateUnits(c, u, divided); err != nil {
				return fmt.Errorf("platform %q: cluster %q: %w", p.Name, c.Name, err)
			}
		}
	}
	return p.validateAllFeatures()
}

func (p *Platform) validateUnits(c Cluster, u Units, divided map[int]bool) error {
	if u.Resource <= 0 || u.Resource >= len(p.Resources) {
		return fmt.Errorf("units of resource index %d: want 1..%d (processors cannot be divided)", u.Resource, len(p.Resources)-1)
	}
	name := p.Resources[u.Resource]
	if divided[u.Resource] {
		return fmt.Errorf("units of %s declared twice", name)
	}
	divided[u.Resource] = true
	if u.PiecesBy < 0 || u.PiecesBy >= len(p.Resources) || u.PiecesBy == u.Resource {
		return fmt.Errorf("units of %s: pieces counted by resource index %d", name, u.PiecesBy)
	}
	if len(u.Capacity) == 0 {
		return fmt.Errorf("units of %s: no unit", name)
	}
	var sum int64
	for k, x := range u.Capacity {
		if x <= 0 {
			return fmt.Errorf("units of %s: unit %d has capacity %d", name, k, x)
		}
		sum += x
	}
	if sum != c.Capacity[u.Resource] {
		return fmt.Errorf("units of %s add up to %d, the cluster has %d", name, sum, c.Capacity[u.Resource])
	}
	return nil
}

// UnitStride returns the largest UnitCount of p's clusters: the number of
// placement entries kept per job in results (sim.Result.Units).
func (p *Platform) UnitStride() int {
	n := 0
	for i := range p.Clusters {
		n = max(n, p.Clusters[i].UnitCount())
	}
	return n
}

// Dims returns the number of resources.
func (p *Platform) Dims() int { return len(p.Resources) }
