package sdk

import "iter"

// WindowNodes yields the nodes of cluster c that a maintenance window ahead
// in s.Outages (one that begins after s.Now) reaches before a job starting
// now with walltime walltime would end: the nodes a policy sets aside for
// that job, as the engine's hard maintenance rule requires (a node under
// several such windows comes once for each).
func WindowNodes(s *State, c int, walltime int64) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		if c < 0 || c >= len(s.Nodes) || s.Nodes[c] == nil {
			return
		}
		n := int32(s.Nodes[c].Layout.Len())
		for i := range s.Outages {
			o := &s.Outages[i]
			if o.Kind != Maintenance || int(o.Cluster) != c || o.Start <= s.Now || o.Start >= s.Now+walltime {
				continue
			}
			for k := range o.All(n) {
				if !yield(k) {
					return
				}
			}
		}
	}
}
