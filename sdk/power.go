package sdk

import (
	"errors"
	"fmt"
	"math"
)

// PowerMode is the power state of a node.
type PowerMode uint8

// The power modes. A node is in service only when on; one switching or
// off has nothing free (State.Nodes), as a node out of service for an
// outage has not.
const (
	NodeOn PowerMode = iota
	NodeOff
	NodeSwitchingOn
	NodeSwitchingOff
)

// String returns the mode's name as results spell it.
func (m PowerMode) String() string {
	switch m {
	case NodeOn:
		return "on"
	case NodeOff:
		return "off"
	case NodeSwitchingOn:
		return "switching-on"
	case NodeSwitchingOff:
		return "switching-off"
	}
	return fmt.Sprintf("power mode %d", uint8(m))
}

// NodePower is the power model of the nodes of a node group, in watts and
// joules. A node that is on draws Idle plus (Full - Idle) / cores for each
// of its cores in use by a job (a job's tasks' cores; an exclusive job's
// idle cores are not in use), or, with a Busy table, Busy[u-1] with u
// cores in use (Idle with none); Off when off, and while it switches
// OnJoules / OnSeconds (switching on) or OffJoules / OffSeconds
// (switching off). A switch of 0 seconds is instantaneous and costs
// nothing.
type NodePower struct {
	Off        float64 `json:"off"`
	Idle       float64 `json:"idle"`
	Full       float64 `json:"full"`
	OnSeconds  int64   `json:"on_seconds,omitempty"`
	OnJoules   float64 `json:"on_joules,omitempty"`
	OffSeconds int64   `json:"off_seconds,omitempty"`
	OffJoules  float64 `json:"off_joules,omitempty"`
	// Busy, when not nil, is a node's power with 1, 2, ... cores in use,
	// one entry per core of the group's nodes, instead of the line from
	// Idle to Full; Full is then its last entry.
	Busy []float64 `json:"busy,omitempty"`
	// Down is what a node that is on draws while out of service for a
	// failure or a maintenance window (sdk.Outage): DownIdle or DownOff.
	Down string `json:"down,omitempty"`
}

// The values of NodePower.Down. A node out of service has no job on it
// (the outage ended them), so it draws no more than idle; a drained node
// keeps running its jobs and draws as any node on.
const (
	// DownIdle: it stays on and idle, and draws its idle power.
	DownIdle = ""
	// DownOff: it draws its off power, as if switched off at the
	// outage's start and on at its end at no cost; the committed draw
	// still counts it at idle, so that its return cannot take the draw
	// over a cap.
	DownOff = "off"
)

// BusyWatts returns what a node of cores cores that is on draws with
// inUse of its cores in use.
func (n *NodePower) BusyWatts(inUse, cores int64) float64 {
	switch {
	case inUse == 0:
		return n.Idle
	case n.Busy != nil:
		return n.Busy[inUse-1]
	}
	return n.Idle + float64(inUse)*n.CoreWatts(cores)
}

// SwitchOnWatts returns the power a node draws while it switches on.
func (n *NodePower) SwitchOnWatts() float64 {
	if n.OnSeconds == 0 {
		return n.Idle
	}
	return n.OnJoules / float64(n.OnSeconds)
}

// SwitchOffWatts returns the power a node draws while it switches off.
func (n *NodePower) SwitchOffWatts() float64 {
	if n.OffSeconds == 0 {
		return n.Off
	}
	return n.OffJoules / float64(n.OffSeconds)
}

// CoreWatts returns the power one core in use adds to a node of cores
// cores under the line from Idle to Full.
func (n *NodePower) CoreWatts(cores int64) float64 { return (n.Full - n.Idle) / float64(cores) }

// AddWatts returns what more cores in use add to the draw of a node of
// cores cores that has from in use.
func (n *NodePower) AddWatts(from, more, cores int64) float64 {
	if n.Busy == nil {
		return float64(more) * n.CoreWatts(cores)
	}
	return n.BusyWatts(from+more, cores) - n.BusyWatts(from, cores)
}

// AddWattsRange returns the least and the most that more cores in use
// add to the draw of a node of cores cores, whatever it has in use (0 to
// cores - more): both AddWatts without a Busy table. A policy planning
// ahead, which does not know what the nodes will have in use, bounds a
// start's power by them.
func (n *NodePower) AddWattsRange(more, cores int64) (least, most float64) {
	if n.Busy == nil || more == 0 {
		w := n.AddWatts(0, more, cores)
		return w, w
	}
	least, most = math.Inf(1), math.Inf(-1)
	for from := int64(0); from+more <= cores; from++ {
		w := n.AddWatts(from, more, cores)
		least, most = min(least, w), max(most, w)
	}
	return least, most
}

// CapStep sets the platform's power cap from time From on: Watts, or no
// cap when Watts is 0.
type CapStep struct {
	From  int64   `json:"from"`
	Watts float64 `json:"watts"`
}

// Power is the power model of a run on a platform of nodes: each node
// group's NodePower and the platform's power cap.
type Power struct {
	// Groups is the model of each cluster's node groups, Groups[c][g]
	// for group g of cluster c (Cluster.Nodes order); nil for a cluster
	// without nodes.
	Groups [][]NodePower `json:"groups"`
	// Caps is the cap as steps in increasing order of From; none means no
	// cap. The engine refuses a start or a power-on that would take the
	// draw, counting each switching node at the larger of its switching
	// power and the power it switches to, over the cap in effect.
	Caps []CapStep `json:"caps,omitempty"`
}

// CapAt returns the power cap in effect at time t, 0 for none.
func (p *Power) CapAt(t int64) float64 {
	w := 0.0
	for _, s := range p.Caps {
		if s.From > t {
			break
		}
		w = s.Watts
	}
	return w
}

// HasBusy reports whether some node group of p (nil: none) has a busy
// power table.
func (p *Power) HasBusy() bool {
	if p == nil {
		return false
	}
	for _, gs := range p.Groups {
		for _, g := range gs {
			if g.Busy != nil {
				return true
			}
		}
	}
	return false
}

// Model returns the model of node k of cluster c of platform pl.
func (p *Power) Model(l *Layout, c, k int) *NodePower { return &p.Groups[c][l.Group(k)] }

// IdleWatts returns what every node of pl draws when all are on and idle.
func (p *Power) IdleWatts(pl *Platform) float64 {
	w := 0.0
	for c := range pl.Clusters {
		for g, ng := range pl.Clusters[c].Nodes {
			w += float64(ng.Count) * p.Groups[c][g].Idle
		}
	}
	return w
}

// ErrPower marks an invalid power model.
var ErrPower = errors.New("invalid power model")

// Validate reports the first inconsistency of p with platform pl: a
// model per node group of every cluster of nodes (and none elsewhere),
// no negative or non-finite power, a full power below idle, negative
// switch durations or energies, an energy without a duration, caps out of
// order or under the machine's idle draw.
func (p *Power) Validate(pl *Platform) error {
	if len(p.Groups) != len(pl.Clusters) {
		return fmt.Errorf("%w: models for %d clusters, the platform has %d", ErrPower, len(p.Groups), len(pl.Clusters))
	}
	for c := range pl.Clusters {
		cl := &pl.Clusters[c]
		if len(p.Groups[c]) != len(cl.Nodes) {
			return fmt.Errorf("%w: cluster %q: models for %d node groups, it has %d", ErrPower, cl.Name, len(p.Groups[c]), len(cl.Nodes))
		}
		for g, m := range p.Groups[c] {
			err := m.validate()
			if err == nil && m.Busy != nil {
				err = m.validateBusy(cl.Nodes[g].Cores)
			}
			if err != nil {
				return fmt.Errorf("%w: cluster %q, node group %q: %w", ErrPower, cl.Name, cl.Nodes[g].Name, err)
			}
		}
	}
	if !pl.HasNodes() {
		return fmt.Errorf("%w: the platform has no nodes", ErrPower)
	}
	idle := p.IdleWatts(pl)
	for i, s := range p.Caps {
		switch {
		case i > 0 && s.From <= p.Caps[i-1].From:
			return fmt.Errorf("%w: cap step %d from %d, not after the step before (from %d)", ErrPower, i+1, s.From, p.Caps[i-1].From)
		case !finite(s.Watts) || s.Watts < 0:
			return fmt.Errorf("%w: cap step %d of %v W", ErrPower, i+1, s.Watts)
		case s.Watts > 0 && s.Watts < idle:
			return fmt.Errorf("%w: cap step %d of %v W is below the machine's idle draw of %v W", ErrPower, i+1, s.Watts, idle)
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func (m NodePower) validate() error {
	for _, x := range []struct {
		name string
		v    float64
	}{{"off", m.Off}, {"idle", m.Idle}, {"full", m.Full}, {"on_joules", m.OnJoules}, {"off_joules", m.OffJoules}} {
		if !finite(x.v) || x.v < 0 {
			return fmt.Errorf("%s power or energy of %v: want a finite number >= 0", x.name, x.v)
		}
	}
	switch {
	case m.Full < m.Idle:
		return fmt.Errorf("full power %v W below idle power %v W", m.Full, m.Idle)
	case m.OnSeconds < 0 || m.OffSeconds < 0:
		return fmt.Errorf("switch durations of %d s and %d s: want >= 0", m.OnSeconds, m.OffSeconds)
	case m.OnSeconds == 0 && m.OnJoules > 0 || m.OffSeconds == 0 && m.OffJoules > 0:
		return errors.New("a switch of 0 s with an energy: give it a duration")
	case m.Down != DownIdle && m.Down != DownOff:
		return fmt.Errorf("down power %q: want %q (idle) or %q", m.Down, DownIdle, DownOff)
	}
	return nil
}

// validateBusy checks a Busy table for nodes of cores cores: one entry a
// core, none negative, below idle or not finite, the last equal to Full.
func (m NodePower) validateBusy(cores int64) error {
	if int64(len(m.Busy)) != cores {
		return fmt.Errorf("busy power table of %d entries for nodes of %d cores: want one a core", len(m.Busy), cores)
	}
	for i, w := range m.Busy {
		if !finite(w) || w < m.Idle {
			return fmt.Errorf("busy power with %d cores in use of %v W: want a finite number >= the idle power %v W", i+1, w, m.Idle)
		}
	}
	if m.Full != m.Busy[len(m.Busy)-1] {
		return fmt.Errorf("full power %v W with a busy power table ending at %v W: they are the same power", m.Full, m.Busy[len(m.Busy)-1])
	}
	return nil
}

// PowerState is what a policy sees of the power of a run with a power
// model (State.Power).
type PowerState struct {
	// Modes is each node's power mode, Modes[c][k] for node k of cluster
	// c; nil for a cluster without nodes. The engine updates it in place.
	Modes [][]PowerMode
	// Until is, for a switching node, when its switch ends.
	Until [][]int64
	// InUse is, for a cluster with a node group that has a busy power
	// table (NodePower.Busy), each node's cores in use by jobs' tasks
	// (an exclusive job's idle cores are not), InUse[c][k]; entries of
	// nodes of groups without a table are 0, and a cluster without a
	// table has nil. What a start adds under a table depends on it
	// (StartWattsOn). The engine updates it in place.
	InUse [][]int64
	// Draw is the platform's power now, in watts.
	Draw float64
	// Committed is Draw with each switching node counted at the larger of
	// its switching power and the power it switches to: what the cap is
	// checked against.
	Committed float64
	// Cap is the power cap in effect now, in watts; 0 for none.
	Cap float64
	// changed[c] lists the nodes of cluster c whose mode SetMode changed
	// since the last ClearChanged, each once; logged[c][k] says node k is
	// listed.
	changed [][]int32
	logged  [][]bool
}

// SetMode puts node k of cluster c in mode m until until (0 unless it
// switches) and logs it among the nodes changed (Changed), so that a
// policy served in another process is sent the nodes that changed rather
// than every node at every call.
func (p *PowerState) SetMode(c int, k int32, m PowerMode, until int64) {
	p.Modes[c][k], p.Until[c][k] = m, until
	if p.logged == nil {
		p.logged = make([][]bool, len(p.Modes))
		p.changed = make([][]int32, len(p.Modes))
	}
	if p.logged[c] == nil {
		p.logged[c] = make([]bool, len(p.Modes[c]))
	}
	if !p.logged[c][k] {
		p.logged[c][k] = true
		p.changed[c] = append(p.changed[c], k)
	}
}

// Changed returns the nodes of cluster c whose mode SetMode changed since
// the last ClearChanged, in the order of their first change: on the power
// the engine shows, those changed since the previous Schedule call. The
// caller must not change it.
func (p *PowerState) Changed(c int) []int32 {
	if c >= len(p.changed) {
		return nil
	}
	return p.changed[c]
}

// ClearChanged empties the log of changed nodes. The engine calls it on
// the power it shows when a Schedule call returns.
func (p *PowerState) ClearChanged() {
	for c, ks := range p.changed {
		for _, k := range ks {
			p.logged[c][k] = false
		}
		p.changed[c] = ks[:0]
	}
}

// CapSlack is the relative slack with which the engine checks the cap:
// a draw within Cap x (1 + CapSlack) is under it, so that sums of
// floating-point watts taken in another order do not decide a start.
const CapSlack = 1e-9

// UnderCap reports whether a committed draw of w watts is within cap (0:
// no cap).
func UnderCap(w, cap float64) bool { return cap == 0 || w <= cap*(1+CapSlack) }

// StartWatts returns the power that a job of tasks t would add on
// allocation a of cluster c under the line from idle to full power: for
// each node, its cores in use times the node's CoreWatts. It is what the
// start adds on nodes without a busy power table; StartWattsOn is exact
// on every node.
func (p *Power) StartWatts(l *Layout, c int, t *Tasks, a Alloc) float64 {
	w := 0.0
	for i, k := range a.Nodes {
		m := p.Model(l, c, int(k))
		w += float64(int64(a.Tasks[i])*int64(t.Cores)) * m.CoreWatts(l.Cap(int(k)).Cores)
	}
	return w
}

// StartWattsOn returns the power that a job of tasks t would add on
// allocation a of cluster c, node k having inUse[k] cores in use
// (PowerState.InUse[c], which may be nil when no node group of c has a
// busy power table): what the engine checks a start against the cap with.
func (p *Power) StartWattsOn(l *Layout, c int, t *Tasks, a Alloc, inUse []int64) float64 {
	if inUse == nil {
		return p.StartWatts(l, c, t, a)
	}
	w := 0.0
	for i, k := range a.Nodes {
		m := p.Model(l, c, int(k))
		w += m.AddWatts(inUse[k], int64(a.Tasks[i])*int64(t.Cores), l.Cap(int(k)).Cores)
	}
	return w
}

// PowerOnWatts returns what switching node k of cluster c on adds to the
// committed draw.
func (p *Power) PowerOnWatts(l *Layout, c, k int) float64 {
	m := p.Model(l, c, k)
	return max(m.SwitchOnWatts(), m.Idle) - m.Off
}

// PowerOn switches the given nodes of cluster c on (see ActionPowerOn).
func PowerOn(c int, nodes []int32) Decision {
	return Decision{Action: ActionPowerOn, Cluster: c, Nodes: nodes}
}

// PowerOff switches the given nodes of cluster c off (see ActionPowerOff).
func PowerOff(c int, nodes []int32) Decision {
	return Decision{Action: ActionPowerOff, Cluster: c, Nodes: nodes}
}
