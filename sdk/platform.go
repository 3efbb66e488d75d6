package sdk

import (
	"errors"
	"fmt"
)

// Processors is the name of the resource at index 0 of every platform.
const Processors = "procs"

// Platform is the machine a run simulates: one or more clusters sharing one
// list of resource names.
type Platform struct {
	// Name identifies the platform in results.
	Name string
	// Resources names the resources, in the order of every Vector of the
	// run. Resources[0] is always Processors.
	Resources []string
	// Clusters lists the clusters; a job runs within exactly one.
	Clusters []Cluster
}

// Cluster is a set of resources that one job may use together.
type Cluster struct {
	// Name identifies the cluster in results.
	Name string
	// Capacity is the total amount of each resource.
	Capacity Vector
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
	}
	return nil
}

// Dims returns the number of resources.
func (p *Platform) Dims() int { return len(p.Resources) }
