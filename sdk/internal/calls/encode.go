package calls

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// Encoder writes the host's State frames and reads the policy's Decisions
// frames of one run, keeping what the policy side was told: which jobs it
// has seen, and which its previous decisions took out of the queue.
//
// A State payload is, little-endian:
//
//	now i64
//	arrived, left, completed, refused, nodes: u32 counts
//	free: i64 per cluster per resource
//	free units: i64 per unit of each cluster with units, in cluster order
//	left:      per job {index i32, cluster i32 (-1: rejected), start i64,
//	           units u32, i32 each, alloc u32, node i32 each, tasks i32 each}
//	completed: per job {index i32, cluster i32, start i64, end i64, killed u8}
//	refused:   per reservation {index i32, cluster i32, at i64}
//	nodes:     per node changed {cluster i32, node i32, cores i64, memory i64, gpus i64}
//	arrived:   per job {index i32, id i64, submit i64, walltime i64,
//	           user, group, app, queue, partition i32, priority f64, home i32,
//	           transfer i64, request i64 per resource,
//	           and on a platform of nodes: count i32, cores i32, memory i64,
//	           gpus i32, nodes i32, exclusive u8, partition i32, features u64}
//	power, on a run with a power model only (InitDoc.Power):
//	           draw f64, committed f64, cap f64, changed u32,
//	           per node changed {cluster i32, node i32, mode u8, until i64}
//	outages, on a run with outages of nodes only (InitDoc.Outages):
//	           see appendOutages
//	io, on a run with an I/O model only (InitDoc.IO): running u32, then
//	           per running job, in State.Running's order, {index i32,
//	           phase u8, done u32, phases u32, bytes f64, at f64}
//	           (sdk.IOView's Phase and Left)
//
// On a run with outages of nodes, each completed job also has
// {interrupted u8 (an sdk.OutageKind, 0: none), requeued u8} after its
// killed byte, and the jobs that arrived are those not shown before, not
// only the queue's tail: a job requeued to the end of the queue may
// follow them.
//
// Left lists, in the order of the decisions, the jobs the previous call
// started (with their placement: the engine chose it where the decision
// did not) or rejected; the policy side moves them out of its queue.
// Power lists the nodes whose power mode changed since the previous call
// (sdk.PowerState.Changed), with the mode and the end of a switch: the
// policy side starts with every node on, as the engine does. A run
// without a power model sends no power section, so that its frames are
// those of a host that knows no power.
type Encoder struct {
	platform *sdk.Platform
	dims     int
	nodes    bool
	power    bool
	outages  bool
	// IO, when set, adds the io section to every State: the run has an
	// I/O model (InitDoc.IO).
	IO bool
	// shown is the list of outages the policy side holds, deep copies of
	// State.Outages as last sent; requeued the jobs the current State
	// puts back in the queue.
	shown    []sdk.Outage
	requeued map[int32]bool
	jobs     []*sdk.Job // by index, the jobs shown so far (nil: not yet)
	left     []left     // what the previous call's decisions took out of the queue
	prevNow  int64
	out      []byte
	ds       []sdk.Decision
	allocs   []sdk.Alloc
	arena    []int32
}

type left struct {
	idx     int32
	cluster int32 // -1: rejected
}

// NewEncoder returns the encoder of a run on platform p, with a power
// section in each State when power is set (a run with a power model) and
// an outages section when outages is (a run with outages of nodes).
func NewEncoder(p *sdk.Platform, power, outages bool) *Encoder {
	e := &Encoder{platform: p, dims: p.Dims(), nodes: p.HasNodes(), power: power, outages: outages}
	if outages {
		e.requeued = map[int32]bool{}
	}
	return e
}

// JobSize returns the bytes of a job in a State frame on a platform of dims
// resources, with or without nodes.
func JobSize(dims int, nodes bool) int {
	n := 4 + 8 + 8 + 8 + 5*4 + 8 + 4 + 8 + 8*dims
	if nodes {
		n += 4 + 4 + 8 + 4 + 4 + 1 + 4 + 8
	}
	return n
}

// State returns the State payload of s, valid until the next call.
func (e *Encoder) State(s *sdk.State) ([]byte, error) {
	b := e.out[:0]
	b = appendI64(b, s.Now)
	arrived := e.arrived(s)
	var err error
	nodesChanged := 0
	for _, n := range s.Nodes {
		if n != nil {
			nodesChanged += len(n.Changed())
		}
	}
	for _, v := range []int{len(arrived), len(e.left), len(s.Completed), len(s.Refused), nodesChanged} {
		b = appendI32(b, int32(v))
	}
	for c := range e.platform.Clusters {
		for _, x := range s.Free[c] {
			b = appendI64(b, x)
		}
	}
	for c := range e.platform.Clusters {
		if len(s.FreeUnits) > c {
			for _, x := range s.FreeUnits[c] {
				b = appendI64(b, x)
			}
		}
	}
	for _, l := range e.left {
		b = appendI32(b, l.idx)
		b = appendI32(b, l.cluster)
		b = appendI64(b, e.prevNow)
		var units []int32
		var alloc *sdk.Alloc
		if l.cluster >= 0 {
			var err error
			if units, alloc, err = e.placement(s, l); err != nil {
				return nil, err
			}
		}
		b = appendI32(b, int32(len(units)))
		for _, u := range units {
			b = appendI32(b, u)
		}
		if alloc == nil {
			b = appendI32(b, 0)
			continue
		}
		b = appendI32(b, int32(len(alloc.Nodes)))
		for _, n := range alloc.Nodes {
			b = appendI32(b, n)
		}
		for _, t := range alloc.Tasks {
			b = appendI32(b, t)
		}
	}
	for _, c := range s.Completed {
		b = appendI32(b, int32(c.Job.Index))
		b = appendI32(b, int32(c.Cluster))
		b = appendI64(b, c.Start)
		b = appendI64(b, c.End)
		b = append(b, boolByte(c.Killed))
		if e.outages {
			b = append(b, byte(c.Interrupted), boolByte(c.Requeued))
		}
	}
	for _, r := range s.Refused {
		b = appendI32(b, int32(r.Job.Index))
		b = appendI32(b, int32(r.Cluster))
		b = appendI64(b, r.At)
	}
	for c, n := range s.Nodes {
		if n == nil {
			continue
		}
		for _, k := range n.Changed() {
			f := n.Free[k]
			b = appendI32(b, int32(c))
			b = appendI32(b, k)
			b = appendI64(b, f.Cores)
			b = appendI64(b, f.Memory)
			b = appendI64(b, f.GPUs)
		}
	}
	for _, j := range arrived {
		// Jobs arrive by index, but for those submitted during the run
		// (a workload's feedback), which arrive when what they wait for
		// ends: the policy side keeps them by index too.
		if e.known(j.Index) {
			return nil, fmt.Errorf("calls: job index %d arrived twice", j.Index)
		}
		if j.Index >= len(e.jobs) {
			e.jobs = append(e.jobs, make([]*sdk.Job, j.Index+1-len(e.jobs))...)
		}
		e.jobs[j.Index] = j
		b = e.appendJob(b, j)
	}
	if e.power {
		if b, err = appendPower(b, s.Power); err != nil {
			return nil, err
		}
	}
	if e.outages {
		if b, err = e.appendOutages(b, s); err != nil {
			return nil, err
		}
	}
	if e.IO {
		if b, err = appendIO(b, s); err != nil {
			return nil, err
		}
	}
	e.left = e.left[:0]
	e.prevNow = s.Now
	e.out = b
	return b, nil
}

// appendIO appends the io section of a State frame: where each running
// job is in its data phases, as sdk.IOView shows it.
func appendIO(b []byte, s *sdk.State) ([]byte, error) {
	if s.IO == nil {
		return nil, fmt.Errorf("calls: a run with an I/O model shows no I/O")
	}
	b = appendI32(b, int32(len(s.Running)))
	for i := range s.Running {
		j := s.Running[i].Job
		phase, done, phases := s.IO.Phase(j)
		bytes, at := s.IO.Left(j)
		b = appendI32(b, int32(j.Index))
		b = append(b, byte(phase))
		b = appendI32(b, int32(done))
		b = appendI32(b, int32(phases))
		b = appendF64(b, bytes)
		b = appendF64(b, at)
	}
	return b, nil
}

// appendPower appends the power section of a State frame: the draws, the
// cap and the nodes whose mode changed since the previous call.
func appendPower(b []byte, p *sdk.PowerState) ([]byte, error) {
	if p == nil {
		return nil, fmt.Errorf("calls: a run with a power model shows no power")
	}
	b = appendF64(b, p.Draw)
	b = appendF64(b, p.Committed)
	b = appendF64(b, p.Cap)
	n := 0
	for c := range p.Modes {
		n += len(p.Changed(c))
	}
	b = appendI32(b, int32(n))
	for c := range p.Modes {
		for _, k := range p.Changed(c) {
			b = appendI32(b, int32(c))
			b = appendI32(b, k)
			b = append(b, byte(p.Modes[c][k]))
			b = appendI64(b, p.Until[c][k])
		}
	}
	return b, nil
}

func (e *Encoder) appendJob(b []byte, j *sdk.Job) []byte {
	b = appendI32(b, int32(j.Index))
	b = appendI64(b, j.ID)
	b = appendI64(b, j.Submit)
	b = appendI64(b, j.Walltime)
	for _, v := range []int32{j.User, j.Group, j.App, j.Queue, j.Partition} {
		b = appendI32(b, v)
	}
	b = appendF64(b, j.Priority)
	b = appendI32(b, j.Home)
	b = appendI64(b, j.Transfer)
	for r := range e.dims {
		b = appendI64(b, j.Request[r])
	}
	if e.nodes {
		t := j.Tasks
		if t == nil {
			t = &sdk.Tasks{}
		}
		b = appendI32(b, t.Count)
		b = appendI32(b, t.Cores)
		b = appendI64(b, t.Memory)
		b = appendI32(b, t.GPUs)
		b = appendI32(b, t.Nodes)
		b = append(b, boolByte(t.Exclusive))
		b = appendI32(b, t.Partition)
		b = appendI64(b, int64(t.Features))
	}
	return b
}

// placement finds where the job l, started at the previous call, runs (or
// ran, if it has already ended): its pieces on units and its nodes.
func (e *Encoder) placement(s *sdk.State, l left) ([]int32, *sdk.Alloc, error) {
	j := e.jobs[l.idx]
	exp := e.prevNow + j.Walltime
	run := s.Running
	k, ok := slices.BinarySearchFunc(run, l.idx, func(r sdk.Running, idx int32) int {
		if c := cmp.Compare(r.ExpectedEnd, exp); c != 0 {
			return c
		}
		return cmp.Compare(int32(r.Job.Index), idx)
	})
	if ok {
		return run[k].Units, run[k].Alloc, nil
	}
	for _, c := range s.Completed {
		if c.Job.Index == int(l.idx) {
			// A completion keeps no placement on units: none is sent, and
			// the policy side never sees it running.
			return nil, c.Alloc, nil
		}
	}
	return nil, nil, fmt.Errorf("calls: job id %d, started at %d, is neither running nor completed", j.ID, e.prevNow)
}

// Decisions decodes a Decisions payload into the engine's decisions, valid
// until the next call, and notes which jobs they take out of the queue.
//
// A Decisions payload is, little-endian: a u32 count, then per decision
// {action u8, job i32 (-1: none), cluster i32, time i64, cost f64, units
// u32, i32 each, alloc u32, node i32 each, tasks i32 each}. A drain, a
// resume or a switch of power (sdk.ActionDrain, ActionResume,
// ActionPowerOn, ActionPowerOff) names no job and carries its nodes where
// a start carries its units: the layout is the same for every action, so
// a policy side that never drains nor switches sends what it sent before.
func (e *Encoder) Decisions(p []byte) ([]sdk.Decision, error) {
	r := reader{b: p}
	n := r.count(29)
	e.ds = e.ds[:0]
	e.allocs = e.allocs[:0]
	e.arena = e.arena[:0]
	e.left = e.left[:0]
	// Allocations point into allocs and arena: size them first so that
	// appending never moves what an earlier decision points to.
	type span struct{ units, nodes, at int }
	spans := make([]span, 0, n)
	for range n {
		d := sdk.Decision{Action: sdk.Action(r.u8())}
		idx := r.i32()
		d.Cluster = int(r.i32())
		d.Time = r.i64()
		d.Cost = r.f64()
		sp := span{at: len(e.arena)}
		sp.units = r.count(4)
		for range sp.units {
			e.arena = append(e.arena, r.i32())
		}
		sp.nodes = r.count(8)
		for range 2 * sp.nodes {
			e.arena = append(e.arena, r.i32())
		}
		if r.err != nil {
			return nil, r.err
		}
		if idx >= 0 {
			if !e.known(int(idx)) {
				return nil, fmt.Errorf("decision %d names job index %d, which the policy was never shown", len(e.ds)+1, idx)
			}
			d.Job = e.jobs[idx]
		} else if d.Action != sdk.ActionWake && !onNodes(d.Action) {
			return nil, fmt.Errorf("decision %d (action %d) names no job", len(e.ds)+1, d.Action)
		}
		e.ds = append(e.ds, d)
		spans = append(spans, sp)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the decisions", ErrFrame, len(r.b))
	}
	for i := range e.ds {
		d, sp := &e.ds[i], spans[i]
		if sp.units > 0 {
			x := e.arena[sp.at : sp.at+sp.units : sp.at+sp.units]
			if onNodes(d.Action) {
				d.Nodes = x
			} else {
				d.Units = x
			}
		}
		if sp.nodes > 0 {
			at := sp.at + sp.units
			e.allocs = append(e.allocs, sdk.Alloc{
				Nodes: e.arena[at : at+sp.nodes : at+sp.nodes],
				Tasks: e.arena[at+sp.nodes : at+2*sp.nodes : at+2*sp.nodes],
			})
		}
	}
	a := 0
	for i := range e.ds {
		d := &e.ds[i]
		if spans[i].nodes > 0 {
			d.Alloc = &e.allocs[a]
			a++
		}
		switch d.Action {
		case sdk.ActionStart:
			e.left = append(e.left, left{idx: int32(d.Job.Index), cluster: int32(d.Cluster)})
		case sdk.ActionReject:
			e.left = append(e.left, left{idx: int32(d.Job.Index), cluster: -1})
		}
	}
	return e.ds, nil
}

// onNodes reports whether action a names nodes rather than a job (its
// nodes travel where a start's units do).
func onNodes(a sdk.Action) bool {
	switch a {
	case sdk.ActionDrain, sdk.ActionResume, sdk.ActionPowerOn, sdk.ActionPowerOff:
		return true
	}
	return false
}

func boolByte(x bool) byte {
	if x {
		return 1
	}
	return 0
}
