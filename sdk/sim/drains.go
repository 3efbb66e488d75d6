package sim

import (
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// PolicyDrain is a node that the policy drained (sdk.DrainNodes): from
// Start it took no new job, until the policy resumed it (sdk.ResumeNodes)
// at End, or to the run's end when End is -1.
type PolicyDrain struct {
	Cluster, Node int32
	Start, End    int64
}

// drainEngine is what the engine keeps of the policy's drains; nil until
// the policy drains a node, so that a run without drains pays nothing and
// shows and records what it did before drains existed.
type drainEngine struct {
	// open is, per cluster of nodes and node, 1 + the index in list of
	// the node's drain in effect, 0 when the policy has not drained it.
	open [][]int32
	// list holds every drain, in the order the decisions made them.
	list []PolicyDrain
	// nodes holds each drain's node as the one-node slice State.Outages
	// shows; a policy that writes into it changes nothing the engine
	// enforces, which reads open.
	nodes [][]int32
	// shown is the part of State.Outages the drains in effect make,
	// rebuilt at each drain or resume.
	shown []sdk.Outage
}

// applyDrain applies a DrainNodes or ResumeNodes decision. It checks every
// node before it changes any, so that a refused decision leaves the run
// as it was.
func (e *engine) applyDrain(d sdk.Decision) error {
	drain := d.Action == sdk.ActionDrain
	verb := "resume"
	if drain {
		verb = "drain"
	}
	c := d.Cluster
	p := e.cfg.Platform
	if c < 0 || c >= len(p.Clusters) {
		return fmt.Errorf("%s on cluster %d: the platform has %d clusters", verb, c, len(p.Clusters))
	}
	name := p.Clusters[c].Name
	if e.nodes == nil || e.nodes.private[c] == nil {
		return fmt.Errorf("%s on cluster %q: a pool of resources has no nodes to %s (only a cluster of nodes has)", verb, name, verb)
	}
	if len(d.Nodes) == 0 {
		return fmt.Errorf("%s on cluster %q: no node", verb, name)
	}
	n := int32(e.nodes.layouts[c].Len())
	de := e.drains
	for x, k := range d.Nodes {
		switch {
		case k < 0 || k >= n:
			return fmt.Errorf("%s node %d of cluster %q, which has %d", verb, k, name, n)
		case x > 0 && k <= d.Nodes[x-1]:
			return fmt.Errorf("%s on cluster %q: nodes not in increasing order (%d after %d)", verb, name, k, d.Nodes[x-1])
		case drain && de != nil && de.open[c][k] != 0:
			return fmt.Errorf("drain node %d of cluster %q: the policy drained it already, at %d", k, name, de.list[de.open[c][k]-1].Start)
		case !drain && (de == nil || de.open[c][k] == 0):
			return fmt.Errorf("resume node %d of cluster %q: the policy has not drained it (a resume undoes only the policy's own drain)", k, name)
		}
	}
	if de == nil {
		de = &drainEngine{open: make([][]int32, len(p.Clusters))}
		for c := range p.Clusters {
			if e.nodes.private[c] != nil {
				de.open[c] = make([]int32, e.nodes.layouts[c].Len())
			}
		}
		e.drains = de
	}
	if e.nodes.svc == nil {
		// Every node was in service until now: nothing is withheld yet.
		e.nodes.svc = newService(p)
	}
	now := e.state.Now
	for _, k := range d.Nodes {
		if drain {
			de.list = append(de.list, PolicyDrain{Cluster: int32(c), Node: k, Start: now, End: -1})
			de.nodes = append(de.nodes, []int32{k})
			de.open[c][k] = int32(len(de.list))
			e.outOfService(c, k)
			continue
		}
		de.list[de.open[c][k]-1].End = now
		de.open[c][k] = 0
		e.backInService(c, k)
	}
	if drain {
		e.stats.PolicyDrains += int64(len(d.Nodes))
	}
	de.show()
	if e.outs != nil {
		e.showOutages(now)
	} else {
		e.state.Outages = de.shown
	}
	return nil
}

// drainedIn returns the first of nodes of cluster c that the policy has
// drained, and since when.
func (e *engine) drainedIn(c int, nodes []int32) (int32, int64, bool) {
	de := e.drains
	if de == nil {
		return 0, 0, false
	}
	for _, k := range nodes {
		if k >= 0 && int(k) < len(de.open[c]) && de.open[c][k] != 0 {
			return k, de.list[de.open[c][k]-1].Start, true
		}
	}
	return 0, 0, false
}

// drainedCount returns the number of nodes of cluster c the policy has
// drained now.
func (e *engine) drainedCount(c int) int {
	n := 0
	if e.drains != nil {
		for _, x := range e.drains.open[c] {
			if x != 0 {
				n++
			}
		}
	}
	return n
}

// show rebuilds de.shown from the drains in effect, in sdk.CompareOutages
// order.
func (de *drainEngine) show() {
	sh := de.shown[:0]
	for c, open := range de.open {
		for _, x := range open {
			if x == 0 {
				continue
			}
			d := &de.list[x-1]
			sh = append(sh, sdk.Outage{Cluster: int32(c), Nodes: de.nodes[x-1], Start: d.Start, End: -1, Kind: sdk.PolicyDrain})
		}
	}
	slices.SortFunc(sh, sdk.CompareOutages)
	de.shown = sh
}

// result returns the drains of the run; nil when the policy drained none.
func (de *drainEngine) result() []PolicyDrain {
	if de == nil {
		return nil
	}
	return slices.Clip(de.list)
}
