package plan

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// Shadow answers, on a cluster of nodes, the question of EASY backfilling
// for job j: the earliest time j fits by the cluster's placement rule once
// the running jobs of s reach their expected ends (its shadow time), where
// the rule would place it then, and what is free then beyond what j would
// hold (the extra capacity, in the cluster's totals). Every release at the
// shadow time counts. It looks at the nodes a release touches, not at every
// node for every release (sdk.Watch). ok is false when the cluster has no
// nodes, or j would not fit even with every running job ended.
func Shadow(s *sdk.State, cluster int, j *sdk.Job) (at int64, place sdk.Alloc, extra sdk.Vector, ok bool) {
	n := s.Nodes[cluster]
	if n == nil {
		return 0, sdk.Alloc{}, nil, false
	}
	rule := n.Layout.Rule()
	var w sdk.Watch
	w.View(n, j.Tasks, rule)
	avail := s.Free[cluster].Clone()
	held := make(sdk.Vector, len(avail))
	mem, gpu := s.Platform.Resource(sdk.Memory), s.Platform.Resource(sdk.GPUs)
	var given []sdk.Running
	run := slices.Clone(s.Running)
	slices.SortStableFunc(run, func(a, b sdk.Running) int { return cmp.Compare(a.ExpectedEnd, b.ExpectedEnd) })
	at = -1
	if j.Request.Fits(avail) && w.Fits() {
		at = s.Now
	}
	for _, r := range run {
		if r.Cluster != cluster || r.Alloc == nil {
			continue
		}
		if at >= 0 && r.ExpectedEnd > at {
			break
		}
		w.Release(r.Job.Tasks, *r.Alloc)
		copy(held, r.Job.Request)
		var h sdk.Amount
		for k, node := range r.Alloc.Nodes {
			x := n.Layout.Held(r.Job.Tasks, node, r.Alloc.Tasks[k])
			h.Cores, h.Memory, h.GPUs = h.Cores+x.Cores, h.Memory+x.Memory, h.GPUs+x.GPUs
		}
		setHeld(held, h, mem, gpu)
		avail.Add(held)
		given = append(given, r)
		if at < 0 && j.Request.Fits(avail) && w.Fits() {
			at = r.ExpectedEnd
		}
	}
	if at < 0 {
		return 0, sdk.Alloc{}, nil, false
	}
	then := &sdk.Nodes{}
	then.CopyFrom(n)
	for _, r := range given {
		then.Release(r.Job.Tasks, *r.Alloc)
	}
	if !then.Place(j.Tasks, rule, &place) {
		return 0, sdk.Alloc{}, nil, false
	}
	h := then.Take(j.Tasks, place)
	copy(held, j.Request)
	setHeld(held, h, mem, gpu)
	avail.Sub(held)
	return at, place, avail, true
}

func setHeld(v sdk.Vector, h sdk.Amount, mem, gpu int) {
	v[0] = h.Cores
	if mem >= 0 {
		v[mem] = h.Memory
	}
	if gpu >= 0 {
		v[gpu] = h.GPUs
	}
}
