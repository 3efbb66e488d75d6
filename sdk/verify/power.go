package verify

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// The checks of a run with a power model (sim.Config.Power) are written
// from the model, the records and the power events alone, apart from the
// engine's power code: each node's modes are replayed from its events,
// and the energy integrated node by node and job by job rather than from
// counts per group.

// ErrPower marks a run whose power events or energy break the model.
var ErrPower = errors.New("power")

// Span returns the span of a run over which its energy is counted: from
// its first submission to the end of its last job (both 0 without jobs).
func Span(jobs []sim.Input, recs []sim.Record) (from, to int64) {
	if len(jobs) == 0 {
		return 0, 0
	}
	from = jobs[0].Job.Submit
	to = from
	for i := range recs {
		if !recs[i].Rejected {
			to = max(to, recs[i].End)
		}
	}
	return from, to
}

// Power checks res, a run of jobs on platform p with power model m, and
// returns the energy it integrates on its own: every node's events in
// time order and following the modes (on to switching-off, to off after
// the group's OffSeconds, or at once when they are 0; off to
// switching-on, to on after OnSeconds); every job on nodes that are on
// for the whole of its run (so no node is switched off under a job); at
// every instant at which a job starts or a node is switched on, the
// committed draw (each switching node at the larger of its switching
// power and the power it switches to) within the cap; and the energy
// res.Power reports, by what draws it, within a relative 1e-9 of its own
// and its time over the cap equal. outs are the run's outages of nodes
// (sim.Config.Outages; none without): every run of a job that an outage
// ended (res.Attempts) draws as the job's last, and a node of a group
// whose model says sdk.DownOff draws its off power while on and under a
// failure or a maintenance window. res must have passed Result (and
// Outages, with outages).
func Power(p *sdk.Platform, m *sdk.Power, outs []sdk.Outage, jobs []sim.Input, res *sim.Result) (sim.Energy, error) {
	return power(p, m, outs, jobs, res, nil)
}

// PowerStep is the platform's draw over [From, To), in watts, by what
// draws it (the parts of sim.Energy), with the cap in effect (0: none),
// the nodes in each mode (Nodes[sdk.NodeOn] and so on) and the cores in
// use by jobs.
type PowerStep struct {
	From, To                        int64
	Static, Dynamic, Off, Switching float64
	Cap                             float64
	Nodes                           [4]int64
	Cores                           int64
}

// Watts returns the step's whole draw.
func (s *PowerStep) Watts() float64 { return s.Static + s.Dynamic + s.Off + s.Switching }

// PowerSeries is Power that also returns the draw over the run's span as
// steps in time order, one per interval between instants at which a job
// starts or ends, a node changes mode or the cap changes. Each part of the
// energy it returns is the sum, in step order, of the steps' watts times
// their seconds, computed as written here: integrating the steps gives the
// energy bit for bit.
func PowerSeries(p *sdk.Platform, m *sdk.Power, outs []sdk.Outage, jobs []sim.Input, res *sim.Result) (sim.Energy, []PowerStep, error) {
	var steps []PowerStep
	en, err := power(p, m, outs, jobs, res, func(s PowerStep) { steps = append(steps, s) })
	return en, steps, err
}

// power is Power, calling emit (when not nil) with every step of the draw.
func power(p *sdk.Platform, m *sdk.Power, outs []sdk.Outage, jobs []sim.Input, res *sim.Result, emit func(PowerStep)) (sim.Energy, error) {
	var en sim.Energy
	if res.Power == nil {
		return en, fmt.Errorf("%w: a run with a power model has no power result", ErrPower)
	}
	if err := m.Validate(p); err != nil {
		return en, err
	}
	en.From, en.To = Span(jobs, res.Records)
	nodes := newPowerNodes(p, m)
	if err := nodes.replay(res.Power.Events, en.To); err != nil {
		return en, err
	}
	// The changes of the draw in time order: starts and ends of jobs on
	// each node, and the modes' changes.
	var ch []powerChange
	run := func(i int, c int, start, end int64, a sdk.Alloc) error {
		t := jobs[i].Job.Tasks
		for x, k := range a.Nodes {
			if err := nodes.onThroughout(c, k, start, end); err != nil {
				return fmt.Errorf("%w: job id %d: %w", ErrPower, jobs[i].Job.ID, err)
			}
			cores := int64(a.Tasks[x]) * int64(t.Cores)
			ch = append(ch, powerChange{at: start, c: int32(c), k: k, cores: cores, start: true}, powerChange{at: end, c: int32(c), k: k, cores: -cores})
		}
		return nil
	}
	for i := range res.Records {
		r := &res.Records[i]
		if r.Rejected || res.Allocs == nil {
			continue
		}
		if err := run(i, int(r.Cluster), r.Start, r.End, res.Allocs.Of(i)); err != nil {
			return en, err
		}
	}
	// The runs that outages ended, but a job's last when its record is
	// that run (it was killed: Interrupted).
	for x, a := range res.Attempts {
		r := &res.Records[a.Index]
		if r.Interrupted != 0 && a.Start == r.Start && a.End == r.End {
			continue
		}
		if err := run(int(a.Index), int(a.Cluster), a.Start, a.End, res.AttemptAllocs.Of(x)); err != nil {
			return en, err
		}
	}
	for _, ev := range res.Power.Events {
		ch = append(ch, powerChange{at: ev.At, c: ev.Cluster, k: ev.Node, mode: ev.Mode, isMode: true})
	}
	for _, o := range outs {
		if o.Kind != sdk.Failure && o.Kind != sdk.Maintenance || !p.Clusters[o.Cluster].HasNodes() {
			continue
		}
		for k := range o.All(int32(p.Clusters[o.Cluster].NodeCount())) {
			if nodes.model(int(o.Cluster), k).Down == sdk.DownOff {
				ch = append(ch, powerChange{at: o.Start, c: o.Cluster, k: k, dark: 1}, powerChange{at: o.End, c: o.Cluster, k: k, dark: -1})
			}
		}
	}
	// In time order, and at one instant the ends of jobs first, so that a
	// node's cores in use never exceed its cores in between.
	slices.SortStableFunc(ch, func(a, b powerChange) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.rank(), b.rank()))
	})
	if err := nodes.sweep(ch, &en, emit); err != nil {
		return en, err
	}
	got := res.Power.Energy
	for _, x := range []struct {
		name      string
		got, want float64
	}{{"static", got.Static, en.Static}, {"dynamic", got.Dynamic, en.Dynamic}, {"off", got.Off, en.Off}, {"switching", got.Switching, en.Switching}} {
		if math.Abs(x.got-x.want) > 1e-9*max(1, math.Abs(x.want)) {
			return en, fmt.Errorf("%w: %s energy %v J reported, %v J integrated from the records and events", ErrPower, x.name, x.got, x.want)
		}
	}
	if got.From != en.From || got.To != en.To || got.OverCap != en.OverCap {
		return en, fmt.Errorf("%w: span [%d, %d] and %d s over the cap reported; the records give [%d, %d] and %d s", ErrPower, got.From, got.To, got.OverCap, en.From, en.To, en.OverCap)
	}
	return en, nil
}

type powerChange struct {
	at     int64
	c, k   int32
	cores  int64
	mode   sdk.PowerMode
	isMode bool
	start  bool
	// dark is 1 where a failure or maintenance window begins on a node
	// of a group under sdk.DownOff, -1 where it ends; 0 otherwise.
	dark int32
}

// rank orders the changes of one instant: the ends of jobs (0) before
// the rest (1).
func (v *powerChange) rank() int {
	if !v.isMode && v.dark == 0 && v.cores < 0 {
		return 0
	}
	return 1
}

// powerNodes is the replay of each node's power modes.
type powerNodes struct {
	p    *sdk.Platform
	m    *sdk.Power
	info []*nodeInfo
	// spans[c][k] lists node k's periods off service (not on): from,
	// to (math.MaxInt64 while it lasts).
	spans [][][]span
}

type span struct{ from, to int64 }

func newPowerNodes(p *sdk.Platform, m *sdk.Power) *powerNodes {
	pn := &powerNodes{p: p, m: m, info: make([]*nodeInfo, len(p.Clusters)), spans: make([][][]span, len(p.Clusters))}
	for c := range p.Clusters {
		if p.Clusters[c].HasNodes() {
			pn.info[c] = newNodeInfo(p, &p.Clusters[c])
			pn.spans[c] = make([][]span, p.Clusters[c].NodeCount())
		}
	}
	return pn
}

// model returns node k of cluster c's model.
func (pn *powerNodes) model(c int, k int32) *sdk.NodePower {
	return &pn.m.Groups[c][pn.info[c].group[k]]
}

// replay checks each node's events and keeps its periods off service.
func (pn *powerNodes) replay(evs []sim.PowerEvent, to int64) error {
	type nodeState struct {
		mode  sdk.PowerMode
		since int64
	}
	st := make([][]nodeState, len(pn.spans))
	for c := range st {
		st[c] = make([]nodeState, len(pn.spans[c]))
	}
	last := int64(math.MinInt64)
	for x, ev := range evs {
		c, k := int(ev.Cluster), ev.Node
		if c < 0 || c >= len(st) || k < 0 || int(k) >= len(st[c]) {
			return fmt.Errorf("%w: event %d names node %d of cluster %d, not a node of the platform", ErrPower, x+1, k, c)
		}
		if ev.At < last {
			return fmt.Errorf("%w: event %d at %d, before the event before it (%d)", ErrPower, x+1, ev.At, last)
		}
		last = ev.At
		m := pn.model(c, k)
		s := &st[c][k]
		ok := false
		switch ev.Mode {
		case sdk.NodeSwitchingOff:
			ok = s.mode == sdk.NodeOn && m.OffSeconds > 0
		case sdk.NodeOff:
			ok = s.mode == sdk.NodeOn && m.OffSeconds == 0 || s.mode == sdk.NodeSwitchingOff && ev.At-s.since == m.OffSeconds
		case sdk.NodeSwitchingOn:
			ok = s.mode == sdk.NodeOff && m.OnSeconds > 0
		case sdk.NodeOn:
			ok = s.mode == sdk.NodeOff && m.OnSeconds == 0 || s.mode == sdk.NodeSwitchingOn && ev.At-s.since == m.OnSeconds
		}
		if !ok {
			return fmt.Errorf("%w: node %d of cluster %d: %s at %d after %s since %d", ErrPower, k, c, ev.Mode, ev.At, s.mode, s.since)
		}
		if s.mode == sdk.NodeOn {
			pn.spans[c][k] = append(pn.spans[c][k], span{ev.At, math.MaxInt64})
		} else if ev.Mode == sdk.NodeOn {
			sp := pn.spans[c][k]
			sp[len(sp)-1].to = ev.At
		}
		s.mode, s.since = ev.Mode, ev.At
	}
	// A switch still under way at the run's end ends after it.
	for c := range st {
		for k, s := range st[c] {
			m := pn.model(c, int32(k))
			if s.mode == sdk.NodeSwitchingOff && s.since+m.OffSeconds <= to || s.mode == sdk.NodeSwitchingOn && s.since+m.OnSeconds <= to {
				return fmt.Errorf("%w: node %d of cluster %d: %s since %d, not ended by the run's end at %d", ErrPower, k, c, s.mode, s.since, to)
			}
		}
	}
	return nil
}

// onThroughout reports an error unless node k of cluster c is on for the
// whole of [from, to).
func (pn *powerNodes) onThroughout(c int, k int32, from, to int64) error {
	// The spans are in time order and apart: only the first that ends
	// after from can overlap [from, to).
	sp := pn.spans[c][k]
	x, _ := slices.BinarySearchFunc(sp, from, func(s span, t int64) int {
		if s.to <= t {
			return -1
		}
		return 1
	})
	if x < len(sp) && sp[x].from < to {
		return fmt.Errorf("it runs on node %d of cluster %d over [%d, %d), and the node is not on over [%d, %d)", k, c, from, to, sp[x].from, min(sp[x].to, to))
	}
	return nil
}

// sweep integrates the energy over the span [en.From, en.To] and checks
// the cap at every instant a job starts or a node is switched on; it calls
// emit (when not nil) with each step of the draw.
func (pn *powerNodes) sweep(ch []powerChange, en *sim.Energy, emit func(PowerStep)) error {
	mode := make([][]sdk.PowerMode, len(pn.spans))
	// count[c][g][mode] and busy[c][g] are integers, kept node by node
	// as the changes come, so that the draw is a fresh sum over groups
	// at every instant, with no rounding carried along.
	count := make([][][4]int64, len(pn.spans))
	busy := make([][]int64, len(pn.spans))
	// With a busy power table, each node's cores in use (use[c][k]) and
	// the nodes of the group by cores in use (nodesBy[c][g][u]).
	use := make([][]int64, len(pn.spans))
	nodesBy := make([][][]int64, len(pn.spans))
	// Under sdk.DownOff, the failures and maintenance windows in effect
	// on each node (dark[c][k]), and the nodes on with one (darkOn[c][g]).
	dark := make([][]int32, len(pn.spans))
	darkOn := make([][]int64, len(pn.spans))
	for c := range mode {
		mode[c] = make([]sdk.PowerMode, len(pn.spans[c]))
		dark[c] = make([]int32, len(pn.spans[c]))
		darkOn[c] = make([]int64, len(pn.m.Groups[c]))
		count[c] = make([][4]int64, len(pn.m.Groups[c]))
		busy[c] = make([]int64, len(pn.m.Groups[c]))
		nodesBy[c] = make([][]int64, len(pn.m.Groups[c]))
		for g, m := range pn.m.Groups[c] {
			if m.Busy != nil {
				nodesBy[c][g] = make([]int64, len(m.Busy)+1)
				use[c] = make([]int64, len(pn.spans[c]))
			}
		}
		for k := range mode[c] {
			g := pn.info[c].group[k]
			count[c][g][sdk.NodeOn]++
			if nodesBy[c][g] != nil {
				nodesBy[c][g][0]++
			}
		}
	}
	var static, dynamic, off, switching, committed float64
	var nodes [4]int64
	var cores int64
	draw := func() {
		static, dynamic, off, switching, committed = 0, 0, 0, 0, 0
		nodes, cores = [4]int64{}, 0
		for c := range count {
			for g, n := range count[c] {
				m := &pn.m.Groups[c][g]
				nc := pn.p.Clusters[c].Nodes[g].Cores
				d := darkOn[c][g]
				static += float64(n[sdk.NodeOn]-d) * m.Idle
				if nb := nodesBy[c][g]; nb != nil {
					for u := 1; u < len(nb); u++ {
						dynamic += float64(nb[u]) * (m.Busy[u-1] - m.Idle)
					}
				} else {
					dynamic += float64(busy[c][g]) * m.CoreWatts(nc)
				}
				off += float64(n[sdk.NodeOff]+d) * m.Off
				son, soff := float64(n[sdk.NodeSwitchingOn]), float64(n[sdk.NodeSwitchingOff])
				switching += son*m.SwitchOnWatts() + soff*m.SwitchOffWatts()
				committed += son*max(m.SwitchOnWatts(), m.Idle) + soff*max(m.SwitchOffWatts(), m.Off)
				// A dark node comes back idle: the cap counts it so.
				committed += float64(d) * (m.Idle - m.Off)
				for x := range nodes {
					nodes[x] += n[x]
				}
				cores += busy[c][g]
			}
		}
		committed += static + dynamic + off
	}
	draw()
	at := en.From
	// integrate adds the draw over [at, to), split where the cap changes
	// so that each step has one cap.
	integrate := func(to int64) {
		for at < to {
			cp, next := 0.0, to
			for _, s := range pn.m.Caps {
				if s.From > at {
					next = min(next, s.From)
					break
				}
				cp = s.Watts
			}
			f := float64(next - at)
			en.Static += static * f
			en.Dynamic += dynamic * f
			en.Off += off * f
			en.Switching += switching * f
			if !sdk.UnderCap(static+dynamic+off+switching, cp) {
				en.OverCap += next - at
			}
			if emit != nil {
				emit(PowerStep{From: at, To: next, Static: static, Dynamic: dynamic, Off: off, Switching: switching,
					Cap: cp, Nodes: nodes, Cores: cores})
			}
			at = next
		}
	}
	for x := 0; x < len(ch); {
		t := ch[x].at
		if t > en.To {
			break
		}
		integrate(t)
		check := false
		for ; x < len(ch) && ch[x].at == t; x++ {
			v := ch[x]
			if v.dark != 0 {
				g := pn.info[v.c].group[v.k]
				was := dark[v.c][v.k] > 0
				dark[v.c][v.k] += v.dark
				if is := dark[v.c][v.k] > 0; is != was && mode[v.c][v.k] == sdk.NodeOn {
					darkOn[v.c][g] += int64(v.dark)
				}
				continue
			}
			if v.isMode {
				if v.mode == sdk.NodeSwitchingOn || v.mode == sdk.NodeOn && mode[v.c][v.k] == sdk.NodeOff {
					check = true
				}
				g := pn.info[v.c].group[v.k]
				if dark[v.c][v.k] > 0 {
					if mode[v.c][v.k] == sdk.NodeOn {
						darkOn[v.c][g]--
					}
					if v.mode == sdk.NodeOn {
						darkOn[v.c][g]++
					}
				}
				count[v.c][g][mode[v.c][v.k]]--
				count[v.c][g][v.mode]++
				mode[v.c][v.k] = v.mode
				continue
			}
			g := pn.info[v.c].group[v.k]
			busy[v.c][g] += v.cores
			if nb := nodesBy[v.c][g]; nb != nil {
				u := &use[v.c][v.k]
				nb[*u]--
				*u += v.cores
				if *u < 0 || *u >= int64(len(nb)) {
					return fmt.Errorf("%w: node %d of cluster %d with %d cores in use", ErrPower, v.k, v.c, *u)
				}
				nb[*u]++
			}
			check = check || v.start
		}
		draw()
		if cp := pn.m.CapAt(t); check && !sdk.UnderCap(committed, cp) {
			return fmt.Errorf("%w: at %d a start or power-on takes the committed draw to %v W, over the cap of %v W", ErrPower, t, committed, cp)
		}
	}
	integrate(en.To)
	return nil
}
