package sdk

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
)

// OutageKind says why a node is out of service.
type OutageKind uint8

// The kinds of outages.
const (
	// Failure: the node fails at Start, ending every job on it, and is
	// repaired at End. A policy learns of a failure when it happens and
	// is not told when the node comes back (Outage.End is -1 in
	// State.Outages until then).
	Failure OutageKind = iota + 1
	// Drain: from Start to End the node takes no new job; the jobs on it
	// run to their end.
	Drain
	// Maintenance: from Start to End the node is out of service, known in
	// advance as a Slurm maintenance reservation is: State.Outages shows
	// every window from the run's start. What becomes of a job that would
	// still run at Start is the run's rule (sim.Faults.Maintenance).
	Maintenance
	// PolicyDrain: the policy drained the node (DrainNodes): it takes no
	// new job, the jobs on it run to their end, until the policy resumes
	// it (ResumeNodes). State.Outages shows it with End -1; a platform's
	// outages (sim.Config.Outages) cannot have this kind.
	PolicyDrain
)

// String returns the kind's name as results spell it.
func (k OutageKind) String() string {
	switch k {
	case Failure:
		return "failure"
	case Drain:
		return "drain"
	case Maintenance:
		return "maintenance"
	case PolicyDrain:
		return "policy_drain"
	}
	return fmt.Sprintf("outage kind %d", uint8(k))
}

// Outage is a span of time [Start, End) during which some nodes of a
// cluster of nodes are out of service.
type Outage struct {
	Cluster int32
	// Nodes are the nodes out of service, in increasing order; none means
	// every node of the cluster (a machine-wide maintenance).
	Nodes []int32
	Start int64
	End   int64
	Kind  OutageKind
}

// Covers reports whether node k is one of o's.
func (o *Outage) Covers(k int32) bool {
	if len(o.Nodes) == 0 {
		return true
	}
	_, ok := slices.BinarySearch(o.Nodes, k)
	return ok
}

// All yields o's nodes on a cluster of n nodes, in increasing order.
func (o *Outage) All(n int32) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		if len(o.Nodes) > 0 {
			for _, k := range o.Nodes {
				if !yield(k) {
					return
				}
			}
			return
		}
		for k := range n {
			if !yield(k) {
				return
			}
		}
	}
}

// CompareOutages orders outages by Start, then Cluster, Kind, End and
// Nodes: the order in which the engine applies those that begin at one
// instant.
func CompareOutages(a, b Outage) int {
	switch {
	case a.Start != b.Start:
		return cmp.Compare(a.Start, b.Start)
	case a.Cluster != b.Cluster:
		return cmp.Compare(a.Cluster, b.Cluster)
	case a.Kind != b.Kind:
		return cmp.Compare(a.Kind, b.Kind)
	case a.End != b.End:
		return cmp.Compare(a.End, b.End)
	}
	return slices.Compare(a.Nodes, b.Nodes)
}

// CheckOutages reports the first outage of outs that platform p cannot
// have: one out of order (CompareOutages), on a cluster without nodes or a
// node the cluster does not have, nodes not in increasing order, an
// unknown kind, an end not after the start, or two failures of one node
// that overlap (a node cannot fail while it is down). Drains and
// maintenance windows may overlap others.
func CheckOutages(p *Platform, outs []Outage) error {
	type key struct {
		c, k int32
		kind OutageKind
	}
	last := map[key]int64{}
	for i := range outs {
		o := &outs[i]
		switch {
		case i > 0 && CompareOutages(outs[i-1], *o) > 0:
			return fmt.Errorf("outage %d: not in order (sdk.CompareOutages)", i)
		case o.Cluster < 0 || int(o.Cluster) >= len(p.Clusters):
			return fmt.Errorf("outage %d: cluster %d of %d", i, o.Cluster, len(p.Clusters))
		case !p.Clusters[o.Cluster].HasNodes():
			return fmt.Errorf("outage %d: cluster %q has no nodes", i, p.Clusters[o.Cluster].Name)
		case o.Kind == PolicyDrain:
			return fmt.Errorf("outage %d: a %s is a policy's decision (DrainNodes), not an outage of the platform", i, o.Kind)
		case o.Kind < Failure || o.Kind > Maintenance:
			return fmt.Errorf("outage %d: unknown kind %d", i, o.Kind)
		case o.End <= o.Start:
			return fmt.Errorf("outage %d: a %s from %d to %d ends before it starts", i, o.Kind, o.Start, o.End)
		}
		n := int32(p.Clusters[o.Cluster].NodeCount())
		for x, k := range o.Nodes {
			switch {
			case k < 0 || k >= n:
				return fmt.Errorf("outage %d: node %d of cluster %q, which has %d", i, k, p.Clusters[o.Cluster].Name, n)
			case x > 0 && k <= o.Nodes[x-1]:
				return fmt.Errorf("outage %d: nodes not in increasing order (%d after %d)", i, k, o.Nodes[x-1])
			}
		}
		if o.Kind != Failure {
			continue
		}
		for k := range o.All(n) {
			key := key{o.Cluster, k, o.Kind}
			if end, ok := last[key]; ok && end > o.Start {
				return fmt.Errorf("outage %d: a %s of node %d from %d overlaps an earlier one, which ends at %d", i, o.Kind, k, o.Start, end)
			}
			last[key] = o.End
		}
	}
	return nil
}

// SortOutages sorts outs in the order CheckOutages requires.
func SortOutages(outs []Outage) { slices.SortFunc(outs, CompareOutages) }

// ParseOutageKind returns the kind named s ("failure", "drain" or
// "maintenance").
func ParseOutageKind(s string) (OutageKind, error) {
	for _, k := range []OutageKind{Failure, Drain, Maintenance} {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("outage kind %q: want failure, drain or maintenance", s)
}
