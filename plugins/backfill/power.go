package backfill

import (
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// idleOffParam is the parameter of the reference policies that switches
// idle nodes off, on a run with a power model.
func idleOffParam() sdk.Param {
	return sdk.Param{Name: "idle_off", Type: sdk.Int, Default: "-1",
		Doc: "on a run with a power model, switch a node off once it has been idle (on, in service, no job on it) this many " +
			"seconds, and switch off nodes on for the first waiting job that cannot start when what is on and switching on " +
			"cannot hold it; -1 never switches a node"}
}

// saver switches a cluster's idle nodes off after a timeout, and nodes
// on for the job at the head of the queue (the policy's first waiting
// job that it could not start). The rule for switching on: when the
// nodes on (what they have free once this call's starts are counted) and
// the nodes switching on could not hold the head's tasks now, the nodes
// off of its partition are switched on, lowest index first, until they
// could; and all of them when nothing runs and nothing switches on, so
// that the head cannot wait for ever. While the head waits, no idle node
// it could use is switched off: else a node switched on for it could go
// off again before the others it needs are on, and on again, for ever.
type saver struct {
	timeout int64
	model   *sdk.Power
	layout  *sdk.Layout
	full    *sdk.Nodes // every node wholly free: what a node switched on could take
	// since is, per node, when it became idle; -1 when it is not idle.
	// queue holds the idle nodes in the order they became idle (stale
	// entries are skipped), so that the next to time out is at its
	// front.
	since   []int64
	queue   []idleMark
	kept    []idleMark
	started bool
	offs    []int32
	ons     []int32
}

type idleMark struct {
	k     int32
	since int64
}

// newSaver returns the saver of a policy's run, or nil when it switches
// nothing (no power model, or idle_off = -1).
func newSaver(name string, env sdk.Env) (*saver, error) {
	t := env.Params.Int("idle_off")
	if t < -1 {
		return nil, fmt.Errorf("%s: idle_off = %d: want -1 (never) or a number of seconds >= 0", name, t)
	}
	if t < 0 || env.Power == nil {
		return nil, nil
	}
	l := sdk.NewLayout(env.Platform, 0)
	sv := &saver{timeout: t, model: env.Power, layout: l, full: l.NewNodes(), since: make([]int64, l.Len())}
	for k := range sv.since {
		sv.since[k] = -1
	}
	return sv, nil
}

// mark updates node k's idle time: idle now or not, after the changes
// shown by s.
func (sv *saver) mark(s *sdk.State, k int32) {
	idle := s.Power.Modes[0][k] == sdk.NodeOn && s.Nodes[0].Free[k] == sv.layout.Cap(int(k))
	switch {
	case idle && sv.since[k] < 0:
		sv.since[k] = s.Now
		sv.queue = append(sv.queue, idleMark{k, s.Now})
	case !idle:
		sv.since[k] = -1
	}
}

// decide appends to out the power decisions of a call, given the nodes
// free once the call's starts are counted (free) and the head, nil when
// every waiting job started.
func (sv *saver) decide(s *sdk.State, r *room, head *sdk.Job, out []sdk.Decision) []sdk.Decision {
	free := &r.nodes.Nodes
	if !sv.started {
		sv.started = true
		for k := range sv.since {
			sv.mark(s, int32(k))
		}
	} else {
		for _, k := range s.Nodes[0].Changed() {
			sv.mark(s, k)
		}
	}
	sv.offs, sv.kept = sv.offs[:0], sv.kept[:0]
	var wake int64 = -1
	q := sv.queue
	for len(q) > 0 {
		m := q[0]
		if sv.since[m.k] != m.since {
			q = q[1:] // stale: the node was busy since
			continue
		}
		if m.since+sv.timeout > s.Now {
			wake = m.since + sv.timeout
			break
		}
		q = q[1:]
		if head != nil && sv.layout.InPartition(head.Tasks.Partition, m.k) && sv.full.Fit(head.Tasks, m.k) > 0 {
			sv.kept = append(sv.kept, m) // the head may need it
			continue
		}
		if free.Free[m.k] != sv.layout.Cap(int(m.k)) {
			// Taken by a start of this call: it is busy from now.
			sv.since[m.k] = -1
			continue
		}
		sv.since[m.k] = -1
		sv.offs = append(sv.offs, m.k)
	}
	if len(sv.kept) > 0 {
		q = append(slices.Clone(sv.kept), q...)
	}
	sv.queue = q
	if len(sv.offs) > 0 {
		slices.Sort(sv.offs)
		out = append(out, sdk.PowerOff(0, slices.Clone(sv.offs)))
	}
	if ons := sv.wakeFor(s, r, head); len(ons) > 0 {
		out = append(out, sdk.PowerOn(0, ons))
	}
	if wake > s.Now {
		out = append(out, sdk.WakeAt(wake))
	}
	return out
}

// wakeFor returns the nodes to switch on for head (see saver).
func (sv *saver) wakeFor(s *sdk.State, r *room, head *sdk.Job) []int32 {
	if head == nil {
		return nil
	}
	free := &r.nodes.Nodes
	committed := r.committed
	modes := s.Power.Modes[0]
	t := head.Tasks
	var tasks, nodes int64
	switching := false
	anyOff := false
	part := sv.layout.PartitionNodes(t.Partition)
	for _, k := range part {
		var fit int64
		switch modes[k] {
		case sdk.NodeOn:
			// Most nodes of a busy machine have no core free, and take
			// nothing: told without Fit's divisions.
			if free.Free[k].Cores > 0 {
				fit = free.Fit(t, k)
			}
		case sdk.NodeSwitchingOn:
			fit = sv.full.Fit(t, k)
			switching = true
		case sdk.NodeOff:
			anyOff = true
		}
		if fit > 0 {
			tasks += fit
			nodes++
		}
	}
	enough := func() bool { return tasks >= int64(t.Count) && (t.Nodes == 0 || nodes >= int64(t.Nodes)) }
	if !anyOff || enough() && (len(s.Running) > 0 || switching) {
		return nil
	}
	// The counts say the head fits, yet it did not start, and nothing
	// runs or switches on that could change that: wake every node off.
	all := enough()
	sv.ons = sv.ons[:0]
	for _, k := range part {
		if modes[k] != sdk.NodeOff || len(r.down) > 0 && r.down[k] {
			continue // on, switching, or out of service for an outage: no use now
		}
		fit := sv.full.Fit(t, k)
		if fit == 0 && !all {
			continue
		}
		w := sv.model.PowerOnWatts(sv.layout, 0, int(k))
		if r.cap > 0 && !sdk.UnderCap(committed+w, r.cap) {
			break // the cap allows no more now
		}
		committed += w
		sv.ons = append(sv.ons, k)
		tasks += fit
		nodes++
		if !all && enough() {
			break
		}
	}
	return slices.Clone(sv.ons)
}
