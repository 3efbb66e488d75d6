package sim

import "github.com/schedlab/schedlab/sdk"

// service counts, per cluster and node, the reasons a node is out of
// service (outages in effect, a power mode other than on) and keeps what
// it withholds meanwhile: what it has free, and what the jobs on it give
// back. Nil on a run where every node is always in service.
type service struct {
	away [][]int32
	held [][]sdk.Amount
}

// newService returns the service state of the nodes of platform p.
func newService(p *sdk.Platform) *service {
	s := &service{away: make([][]int32, len(p.Clusters)), held: make([][]sdk.Amount, len(p.Clusters))}
	for c := range p.Clusters {
		if p.Clusters[c].HasNodes() {
			n := p.Clusters[c].NodeCount()
			s.away[c] = make([]int32, n)
			s.held[c] = make([]sdk.Amount, n)
		}
	}
	return s
}

// inService reports whether node k of cluster c is in service.
func (ne *nodeEngine) inService(c int, k int32) bool {
	return ne.svc == nil || ne.svc.away[c][k] == 0
}

// outOfService adds a reason for node k of cluster c to be out of
// service, withdrawing it at the first.
func (e *engine) outOfService(c int, k int32) {
	s := e.nodes.svc
	if s.away[c][k]++; s.away[c][k] == 1 {
		e.withdrawNode(c, k)
	}
}

// backInService removes a reason for node k of cluster c to be out of
// service, restoring it at the last.
func (e *engine) backInService(c int, k int32) {
	s := e.nodes.svc
	if s.away[c][k]--; s.away[c][k] == 0 {
		e.restoreNode(c, k)
	}
}

// withdrawNode takes node k of cluster c out of service: what it has free
// is withheld, from it and from the cluster's free totals.
func (e *engine) withdrawNode(c int, k int32) {
	priv := e.nodes.private[c]
	f := priv.Free[k]
	h := &e.nodes.svc.held[c][k]
	h.Cores += f.Cores
	h.Memory += f.Memory
	h.GPUs += f.GPUs
	e.nodes.adjustFree(e.state.Free[c], f, -1)
	priv.SetFree(k, sdk.Amount{})
	e.state.Nodes[c].SetFree(k, sdk.Amount{})
}

// restoreNode puts node k of cluster c back in service.
func (e *engine) restoreNode(c int, k int32) {
	h := e.nodes.svc.held[c][k]
	e.nodes.svc.held[c][k] = sdk.Amount{}
	priv := e.nodes.private[c]
	f := priv.Free[k]
	f.Cores, f.Memory, f.GPUs = f.Cores+h.Cores, f.Memory+h.Memory, f.GPUs+h.GPUs
	priv.SetFree(k, f)
	e.state.Nodes[c].SetFree(k, f)
	e.nodes.adjustFree(e.state.Free[c], h, 1)
}

// rewithhold withdraws again what a job that ended gave back to the nodes
// of allocation a that are out of service.
func (e *engine) rewithhold(c int, a sdk.Alloc) {
	for _, k := range a.Nodes {
		if !e.nodes.inService(c, k) {
			e.withdrawNode(c, k)
		}
	}
}
