package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// PowerEvent is a change of a node's power mode: node Node of cluster
// Cluster enters Mode at At.
type PowerEvent struct {
	At      int64
	Cluster int32
	Node    int32
	Mode    sdk.PowerMode
}

// Energy is the energy a run's nodes drew over [From, To], the run's span
// from its first event to the end of its last job, in joules, by what drew
// it: Static is the idle power of the nodes on, Dynamic what their cores
// in use add, Off the power of the nodes off and Switching that of the
// nodes switching. OverCap is the time, in seconds, during which the draw
// was over the cap in effect (which a cap lowered under the draw allows:
// the engine ends no job for it).
type Energy struct {
	From, To                        int64
	Static, Dynamic, Off, Switching float64
	OverCap                         int64
}

// Total returns the energy of the run.
func (en *Energy) Total() float64 { return en.Static + en.Dynamic + en.Off + en.Switching }

// PowerResult is what a run with a power model adds to its result.
type PowerResult struct {
	// Events lists the nodes' changes of power mode in the order they
	// happened; every node is on at the run's start.
	Events []PowerEvent
	Energy Energy
}

// The power modes a node counts in, for the draw: powMode by sdk.PowerMode.
const nModes = 4

// powEngine is what the engine keeps of a run with a power model.
type powEngine struct {
	model  *sdk.Power
	layout []*sdk.Layout
	// modes and until are the engine's own; shown is what the policy sees.
	modes [][]sdk.PowerMode
	until [][]int64
	shown sdk.PowerState
	// count[c][g][m] is the number of nodes of group g of cluster c in
	// mode m; busy[c][g] the cores in use on them.
	count [][][nModes]int64
	busy  [][]int64
	// For a group with a busy power table (sdk.NodePower.Busy), use[c][k]
	// is node k's cores in use and hist[c][g][u] the group's nodes with u
	// cores in use; nil for a group without.
	use  [][]int64
	hist [][][]int64
	// dark[c][k] counts the failures and maintenance windows in effect on
	// node k of a group whose nodes draw their off power then
	// (sdk.DownOff), and darkOn[c][g] the nodes of group g that are on
	// with one in effect; both nil when no group has that rule.
	dark   [][]int32
	darkOn [][]int64
	// switches holds the switches under way, by (end, cluster, node).
	switches heap[PowerEvent]
	events   []PowerEvent
	energy   Energy
	begun    bool
	// from is when the energy starts to count: the first submission
	// (math.MinInt64 without jobs: the first event; math.MaxInt64 until
	// the first job is loaded). Outages may make events before it, and a
	// policy switch nodes then.
	from int64
	last int64
}

// newPowEngine returns the power state of cfg, a run of n jobs, or nil
// without a power model.
func newPowEngine(cfg *Config, n int) (*powEngine, error) {
	m := cfg.Power
	if m == nil {
		return nil, nil
	}
	p := cfg.Platform
	if err := m.Validate(p); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	pe := &powEngine{
		model:  m,
		layout: make([]*sdk.Layout, len(p.Clusters)),
		modes:  make([][]sdk.PowerMode, len(p.Clusters)),
		until:  make([][]int64, len(p.Clusters)),
		count:  make([][][nModes]int64, len(p.Clusters)),
		busy:   make([][]int64, len(p.Clusters)),
		use:    make([][]int64, len(p.Clusters)),
		hist:   make([][][]int64, len(p.Clusters)),
		switches: heap[PowerEvent]{less: func(a, b PowerEvent) bool {
			if a.At != b.At {
				return a.At < b.At
			}
			if a.Cluster != b.Cluster {
				return a.Cluster < b.Cluster
			}
			return a.Node < b.Node
		}},
	}
	for c, gs := range m.Groups {
		for _, g := range gs {
			if g.Down == sdk.DownOff && pe.dark == nil {
				pe.dark, pe.darkOn = make([][]int32, len(p.Clusters)), make([][]int64, len(p.Clusters))
			}
		}
		if pe.dark != nil && p.Clusters[c].HasNodes() {
			pe.dark[c], pe.darkOn[c] = make([]int32, p.Clusters[c].NodeCount()), make([]int64, len(gs))
		}
	}
	// Until the first job is loaded (loadJobs sets from; a plugin's
	// engine streams its jobs in), nothing counts; a run without jobs
	// counts from its first event.
	pe.from = math.MaxInt64
	if n == 0 {
		pe.from = math.MinInt64
	}
	pe.shown.Modes = make([][]sdk.PowerMode, len(p.Clusters))
	pe.shown.Until = make([][]int64, len(p.Clusters))
	pe.shown.InUse = make([][]int64, len(p.Clusters))
	for c := range p.Clusters {
		cl := &p.Clusters[c]
		if !cl.HasNodes() {
			continue
		}
		pe.layout[c] = sdk.NewLayout(p, c)
		n := cl.NodeCount()
		pe.modes[c], pe.until[c] = make([]sdk.PowerMode, n), make([]int64, n)
		pe.shown.Modes[c], pe.shown.Until[c] = make([]sdk.PowerMode, n), make([]int64, n)
		pe.count[c] = make([][nModes]int64, len(cl.Nodes))
		pe.busy[c] = make([]int64, len(cl.Nodes))
		pe.hist[c] = make([][]int64, len(cl.Nodes))
		for g, ng := range cl.Nodes {
			pe.count[c][g][sdk.NodeOn] = int64(ng.Count)
			if m.Groups[c][g].Busy != nil {
				pe.hist[c][g] = make([]int64, ng.Cores+1)
				pe.hist[c][g][0] = int64(ng.Count)
				if pe.use[c] == nil {
					pe.use[c], pe.shown.InUse[c] = make([]int64, n), make([]int64, n)
				}
			}
		}
	}
	return pe, nil
}

// draws returns the power drawn now by what draws it (static, dynamic,
// off, switching) and the committed draw the cap is checked against.
// They are sums over node groups of counts, not running sums, so that
// no rounding accumulates however long the run.
func (pe *powEngine) draws() (static, dynamic, off, switching, committed float64) {
	for c, groups := range pe.count {
		for g := range groups {
			m := &pe.model.Groups[c][g]
			n := &groups[g]
			cores := pe.layout[c].Groups()[g].Cores
			var dark int64 // nodes on that draw their off power (sdk.DownOff)
			if pe.darkOn != nil {
				dark = pe.darkOn[c][g]
			}
			static += float64(n[sdk.NodeOn]-dark) * m.Idle
			if h := pe.hist[c][g]; h != nil {
				// A table: what each node's cores in use add to its idle
				// power, by how many nodes have that many in use.
				for u := 1; u < len(h); u++ {
					dynamic += float64(h[u]) * (m.Busy[u-1] - m.Idle)
				}
			} else {
				dynamic += float64(pe.busy[c][g]) * m.CoreWatts(cores)
			}
			off += float64(n[sdk.NodeOff]+dark) * m.Off
			on, offw := m.SwitchOnWatts(), m.SwitchOffWatts()
			switching += float64(n[sdk.NodeSwitchingOn])*on + float64(n[sdk.NodeSwitchingOff])*offw
			committed += float64(n[sdk.NodeSwitchingOn])*max(on, m.Idle) + float64(n[sdk.NodeSwitchingOff])*max(offw, m.Off)
			committed += float64(dark) * (m.Idle - m.Off)
		}
	}
	committed += static + dynamic + off
	return
}

// advance integrates the power drawn since the last event up to now.
func (pe *powEngine) advance(now int64) {
	if !pe.begun {
		if now < pe.from {
			return
		}
		start := pe.from
		if start == math.MinInt64 {
			start = now
		}
		pe.begun, pe.last, pe.energy.From = true, start, start
	}
	dt := now - pe.last
	if dt <= 0 {
		return
	}
	s, d, o, sw, _ := pe.draws()
	en := &pe.energy
	f := float64(dt)
	en.Static += s * f
	en.Dynamic += d * f
	en.Off += o * f
	en.Switching += sw * f
	if len(pe.model.Caps) > 0 {
		en.OverCap += pe.overCap(s+d+o+sw, pe.last, now)
	}
	pe.last = now
}

// overCap returns how long within [from, to) a draw of w is over the
// cap, which may change within.
func (pe *powEngine) overCap(w float64, from, to int64) int64 {
	var over int64
	caps := pe.model.Caps
	for i := range caps {
		lo := max(from, caps[i].From)
		hi := to
		if i+1 < len(caps) {
			hi = min(hi, caps[i+1].From)
		}
		if lo < hi && !sdk.UnderCap(w, caps[i].Watts) {
			over += hi - lo
		}
	}
	return over
}

// show updates the power the policy sees.
func (pe *powEngine) show(now int64, st *sdk.State) {
	s, d, o, sw, com := pe.draws()
	pe.shown.Draw, pe.shown.Committed = s+d+o+sw, com
	pe.shown.Cap = pe.model.CapAt(now)
	st.Power = &pe.shown
}

// darken counts a failure or maintenance window beginning (d = 1) or
// ending (-1) on node k of cluster c, for the nodes that draw their off
// power while one is in effect.
func (pe *powEngine) darken(c int, k int32, d int32) {
	if pe.dark == nil {
		return
	}
	g := pe.layout[c].Group(int(k))
	if pe.model.Groups[c][g].Down != sdk.DownOff {
		return
	}
	was := pe.dark[c][k] > 0
	pe.dark[c][k] += d
	if is := pe.dark[c][k] > 0; is != was && pe.modes[c][k] == sdk.NodeOn {
		if is {
			pe.darkOn[c][g]++
		} else {
			pe.darkOn[c][g]--
		}
	}
}

// setMode puts node k of cluster c in mode m now, until a switch's end.
func (pe *powEngine) setMode(now int64, c int, k int32, m sdk.PowerMode, until int64) {
	g := pe.layout[c].Group(int(k))
	if pe.dark != nil && pe.dark[c][k] > 0 {
		if pe.modes[c][k] == sdk.NodeOn {
			pe.darkOn[c][g]--
		}
		if m == sdk.NodeOn {
			pe.darkOn[c][g]++
		}
	}
	pe.count[c][g][pe.modes[c][k]]--
	pe.count[c][g][m]++
	pe.modes[c][k], pe.until[c][k] = m, until
	pe.shown.SetMode(c, k, m, until)
	pe.events = append(pe.events, PowerEvent{At: now, Cluster: int32(c), Node: k, Mode: m})
}

// nextAt returns the end of the next switch under way.
func (pe *powEngine) nextAt() (int64, bool) {
	if pe.switches.len() == 0 {
		return 0, false
	}
	return pe.switches.top().At, true
}

// switchEnds ends the switches due at now, by cluster then node: a node
// switched on comes back in service. It reports whether any ended.
func (e *engine) switchEnds(now int64) bool {
	pe := e.pow
	any := false
	for pe.switches.len() > 0 && pe.switches.top().At == now {
		ev := pe.switches.pop()
		c, k := int(ev.Cluster), ev.Node
		pe.setMode(now, c, k, ev.Mode, 0)
		if ev.Mode == sdk.NodeOn {
			e.backInService(c, k)
		}
		any = true
	}
	return any
}

// jobPower counts in the draw the cores job i uses on allocation a of
// cluster c: sign +1 at its start, -1 at its end.
func (pe *powEngine) jobPower(c int, t *sdk.Tasks, a sdk.Alloc, sign int64) {
	l := pe.layout[c]
	for x, k := range a.Nodes {
		g := l.Group(int(k))
		n := sign * int64(a.Tasks[x]) * int64(t.Cores)
		pe.busy[c][g] += n
		if h := pe.hist[c][g]; h != nil {
			h[pe.use[c][k]]--
			pe.use[c][k] += n
			h[pe.use[c][k]]++
			pe.shown.InUse[c][k] = pe.use[c][k]
		}
	}
}

// checkStart refuses a start of a job of tasks t on allocation a of
// cluster c that would take the committed draw over the cap now.
func (e *engine) checkStart(c int, t *sdk.Tasks, a sdk.Alloc) error {
	pe := e.pow
	cp := pe.model.CapAt(e.state.Now)
	if cp == 0 {
		return nil
	}
	_, _, _, _, com := pe.draws()
	add := pe.model.StartWattsOn(pe.layout[c], c, t, a, pe.use[c])
	if !sdk.UnderCap(com+add, cp) {
		return fmt.Errorf("it would draw %.6g W more, %.6g W with the %.6g W committed, over the power cap of %.6g W", add, com+add, com, cp)
	}
	return nil
}

// applyPower applies a PowerOn or PowerOff decision.
func (e *engine) applyPower(d sdk.Decision) error {
	pe := e.pow
	on := d.Action == sdk.ActionPowerOn
	verb := "power off"
	if on {
		verb = "power on"
	}
	if pe == nil {
		return fmt.Errorf("%s: the run has no power model", verb)
	}
	c := d.Cluster
	if c < 0 || c >= len(pe.modes) || pe.modes[c] == nil {
		return fmt.Errorf("%s on cluster %d: not a cluster of nodes of the platform", verb, c)
	}
	name := e.cfg.Platform.Clusters[c].Name
	if len(d.Nodes) == 0 {
		return fmt.Errorf("%s on cluster %q: no node", verb, name)
	}
	l := pe.layout[c]
	add := 0.0
	for x, k := range d.Nodes {
		switch {
		case k < 0 || int(k) >= len(pe.modes[c]):
			return fmt.Errorf("%s node %d of cluster %q, which has %d", verb, k, name, len(pe.modes[c]))
		case x > 0 && k <= d.Nodes[x-1]:
			return fmt.Errorf("%s on cluster %q: nodes not in increasing order (%d after %d)", verb, name, k, d.Nodes[x-1])
		case on && pe.modes[c][k] != sdk.NodeOff:
			return fmt.Errorf("power on node %d of cluster %q: it is %s, not off", k, name, pe.modes[c][k])
		case !on && pe.modes[c][k] != sdk.NodeOn:
			return fmt.Errorf("power off node %d of cluster %q: it is %s, not on", k, name, pe.modes[c][k])
		case !on && !e.nodes.inService(c, k):
			return fmt.Errorf("power off node %d of cluster %q: it is out of service", k, name)
		case !on && e.nodes.private[c].Free[k] != l.Cap(int(k)):
			return fmt.Errorf("power off node %d of cluster %q: a job holds part of it", k, name)
		}
		m := pe.model.Model(l, c, int(k))
		if on {
			add += pe.model.PowerOnWatts(l, c, int(k))
		} else {
			add += max(m.SwitchOffWatts(), m.Off) - m.Idle
		}
	}
	now := e.state.Now
	if cp := pe.model.CapAt(now); cp > 0 && add > 0 {
		if _, _, _, _, com := pe.draws(); !sdk.UnderCap(com+add, cp) {
			return fmt.Errorf("%s %d nodes of cluster %q: they would draw %.6g W more, %.6g W committed, over the power cap of %.6g W", verb, len(d.Nodes), name, add, com+add, cp)
		}
	}
	for _, k := range d.Nodes {
		m := pe.model.Model(l, c, int(k))
		if on {
			if m.OnSeconds == 0 {
				pe.setMode(now, c, k, sdk.NodeOn, 0)
				e.backInService(c, k)
				continue
			}
			pe.setMode(now, c, k, sdk.NodeSwitchingOn, now+m.OnSeconds)
			pe.switches.push(PowerEvent{At: now + m.OnSeconds, Cluster: int32(c), Node: k, Mode: sdk.NodeOn})
			continue
		}
		e.outOfService(c, k)
		if m.OffSeconds == 0 {
			pe.setMode(now, c, k, sdk.NodeOff, 0)
			continue
		}
		pe.setMode(now, c, k, sdk.NodeSwitchingOff, now+m.OffSeconds)
		pe.switches.push(PowerEvent{At: now + m.OffSeconds, Cluster: int32(c), Node: k, Mode: sdk.NodeOff})
	}
	return nil
}

// result returns the run's power events and energy, the span ending at
// to.
func (pe *powEngine) result(to int64) *PowerResult {
	pe.advance(to)
	en := pe.energy
	en.To = to
	if !pe.begun {
		en.From = to
	}
	return &PowerResult{Events: slices.Clip(pe.events), Energy: en}
}

// allDone reports whether every job of the run has ended (or was
// rejected), next being the next job of the trace to submit.
func (e *engine) allDone(next int) bool {
	if next < e.n || len(e.state.Queue) > 0 || len(e.state.Running) > 0 {
		return false
	}
	if e.deps != nil {
		if _, ok := e.deps.nextSub(); ok {
			return false
		}
	}
	return true
}
