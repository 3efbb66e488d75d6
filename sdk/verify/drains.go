package verify

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// SetDrains gives c the nodes the policy drained (sim.Result.Drains),
// which Finish checks: each a node of a cluster of nodes, listed by
// start, the drains of one node one after the other, and no run of a job
// (its last, and those outages ended) started on a node while the policy
// had it drained. A start at the very instant of a drain is accepted: the
// policy may have started the job before it drained the node in that
// call, an order the records do not keep. Call it before Finish.
func (c *Checker) SetDrains(drains []sim.PolicyDrain) { c.drains = drains }

// Drains checks res as Result does (or Outages, for a run with outages
// outs under rules f, exact saying whether it showed exact estimates),
// with the nodes the policy drained (SetDrains).
func Drains(p *sdk.Platform, jobs []sim.Input, outs []sdk.Outage, f sim.Faults, exact bool, res *sim.Result) error {
	c := NewChecker(p, jobs)
	c.Expect(outs, f, exact)
	c.Add(res.Records)
	c.SetAttempts(res.Attempts, res.AttemptAllocs)
	c.SetDrains(res.Drains)
	return c.Finish(res.Units, res.Allocs)
}

// checkDrains makes the checks of SetDrains, on the jobs' allocations
// allocs.
func (c *Checker) checkDrains(allocs *sim.Allocs) error {
	p := c.p
	type key struct{ c, k int32 }
	byNode := map[key][]int{}
	for x, d := range c.drains {
		switch {
		case d.Cluster < 0 || int(d.Cluster) >= len(p.Clusters) || !p.Clusters[d.Cluster].HasNodes():
			return fmt.Errorf("verify: drain %d on cluster %d, not a cluster of nodes", x, d.Cluster)
		case d.Node < 0 || int(d.Node) >= p.Clusters[d.Cluster].NodeCount():
			return fmt.Errorf("verify: drain %d of node %d of cluster %q, which has %d", x, d.Node, p.Clusters[d.Cluster].Name, p.Clusters[d.Cluster].NodeCount())
		case d.End != -1 && d.End < d.Start:
			return fmt.Errorf("verify: drain %d of node %d resumed at %d, before its start at %d", x, d.Node, d.End, d.Start)
		case x > 0 && d.Start < c.drains[x-1].Start:
			return fmt.Errorf("verify: drain %d starts at %d, before the one listed before it (%d)", x, d.Start, c.drains[x-1].Start)
		}
		kk := key{d.Cluster, d.Node}
		if prev := byNode[kk]; len(prev) > 0 {
			if e := c.drains[prev[len(prev)-1]].End; e == -1 || e > d.Start {
				return fmt.Errorf("verify: node %d of cluster %q drained again at %d, while drained (to %d)", d.Node, p.Clusters[d.Cluster].Name, d.Start, e)
			}
		}
		byNode[kk] = append(byNode[kk], x)
	}
	if len(c.drains) == 0 {
		return nil
	}
	if allocs == nil {
		return fmt.Errorf("verify: %d drains, and no allocations on nodes", len(c.drains))
	}
	// drainedAt returns the drain of node k of cluster cl in effect at a
	// start at s, if any.
	drainedAt := func(cl, k int32, s int64) (sim.PolicyDrain, bool) {
		xs := byNode[key{cl, k}]
		// The last drain that began before s.
		n, _ := slices.BinarySearchFunc(xs, s, func(x int, s int64) int { return cmp.Compare(c.drains[x].Start, s) })
		if n == 0 {
			return sim.PolicyDrain{}, false
		}
		d := c.drains[xs[n-1]]
		return d, d.End == -1 || d.End > s
	}
	check := func(i int, cl int32, s int64, a sdk.Alloc) error {
		for _, k := range a.Nodes {
			if d, ok := drainedAt(cl, k, s); ok {
				return fmt.Errorf("verify: job id %d starts at %d on node %d of cluster %q, which the policy drained from %d to %d",
					c.jobs[i].Job.ID, s, k, p.Clusters[cl].Name, d.Start, d.End)
			}
		}
		return nil
	}
	// The starts of the jobs' last runs, from the sweep's changes.
	for _, x := range c.ch {
		if x.delta > 0 {
			if err := check(int(x.idx), c.clusters[x.idx], x.at, allocs.Of(int(x.idx))); err != nil {
				return err
			}
		}
	}
	if c.ot != nil && c.ot.allocs != nil {
		for x, a := range c.ot.atts {
			if err := check(int(a.Index), a.Cluster, a.Start, c.ot.allocs.Of(x)); err != nil {
				return fmt.Errorf("%w (an attempt an outage ended)", err)
			}
		}
	}
	return nil
}
