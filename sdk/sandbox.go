package sdk

// Sandbox is a policy's own copy of a cluster's nodes, which it changes at
// will during a Schedule call (trying starts, giving back what running
// jobs hold to look ahead) and brings back to what the engine shows at the
// next call. Bringing it back costs the nodes changed since, by the policy
// or the engine, not a copy of every node: on a machine of thousands of
// nodes, where a call usually changes a few, that is what keeps a policy
// fast.
//
//	func (p *myPolicy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
//		p.nodes.Sync(s.Nodes[0])
//		for _, j := range s.Queue {
//			if p.nodes.Place(j.Tasks, p.nodes.Layout.Rule(), &p.alloc) {
//				p.nodes.Take(j.Tasks, p.alloc)
//				...
//
// Its zero value is ready for Sync.
type Sandbox struct {
	Nodes
	base  *Nodes
	epoch uint64
	dirty []int32
	mark  []bool
}

// Sync makes s what base has free, base being what the engine shows
// (State.Nodes). When s was synced with base at this call or the previous
// one, it copies only the nodes changed since, by s or by the engine;
// otherwise it copies every node.
func (s *Sandbox) Sync(base *Nodes) {
	if s.base != base || len(s.Free) != len(base.Free) || (base.epoch != s.epoch && base.epoch != s.epoch+1) {
		s.CopyFrom(base)
		s.base = base
		s.mark = make([]bool, len(base.Free))
		s.dirty = s.dirty[:0]
		s.epoch = base.epoch
		return
	}
	for _, k := range s.dirty {
		s.copyNode(base, k)
		s.mark[k] = false
	}
	s.dirty = s.dirty[:0]
	for _, k := range base.changed {
		s.copyNode(base, k)
	}
	s.epoch = base.epoch
}

// SetFree is Nodes.SetFree, recorded for the next Sync.
func (s *Sandbox) SetFree(k int32, a Amount) {
	s.Touch(k)
	s.Nodes.Free[k] = a
	s.index(k)
}

// Touch records that node k changed, so that the next Sync brings it back.
func (s *Sandbox) Touch(k int32) {
	if !s.mark[k] {
		s.mark[k] = true
		s.dirty = append(s.dirty, k)
	}
}

// Take is Nodes.Take, recorded for the next Sync.
func (s *Sandbox) Take(t *Tasks, a Alloc) Amount {
	for _, k := range a.Nodes {
		s.Touch(k)
	}
	return s.Nodes.Take(t, a)
}

// Release is Nodes.Release, recorded for the next Sync.
func (s *Sandbox) Release(t *Tasks, a Alloc) Amount {
	for _, k := range a.Nodes {
		s.Touch(k)
	}
	return s.Nodes.Release(t, a)
}
