package backfill

import (
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// room is what a reference policy knows to be free during a Schedule call,
// as it decides starts one after the other: the free totals of the
// cluster and, on a platform of nodes, what each node has free. A job
// fits when its request fits the totals and, on nodes, the cluster's
// placement rule places it; the engine then places it the same way, on the
// same nodes, since it applies the starts in the same order.
type room struct {
	free sdk.Vector
	// nodes is nil on a platform without nodes.
	nodes *sdk.Sandbox
	rule  sdk.Placement
	// alloc is the placement fits found last.
	alloc    sdk.Alloc
	held     sdk.Vector
	mem, gpu int
	// The shapes (Tasks) the rule could not place since reset: what is
	// free only shrinks during a call, so they cannot fit again until
	// the next, and jobs of one shape (array jobs) are tried once. Each
	// job's shape is numbered once (shapeOf, by job index, plus one;
	// shapes), and failedAt holds, by shape, the call it failed in
	// (call): hashing a shape at every try cost a sixth of EASY's time
	// on RICC's backlog.
	shapeOf  []int32
	shapes   map[sdk.Tasks]int32
	failedAt []uint32
	call     uint32
	// worse holds shapes of shared jobs without a node count that failed
	// since reset (at most maxWorse): a job needing as many tasks or more,
	// each as large or larger, with the same partition and at least the
	// same features, fails too, since a node takes fewer of its tasks
	// and placing them succeeds only when the nodes take them all.
	// Telling it so spares a placement over the nodes for most of a
	// backlog that only fragmentation keeps waiting (RICC's jobs, with
	// their memory). exactOnly turns it off (tests compare).
	worse     []sdk.Tasks
	exactOnly bool
	// windows are the maintenance windows ahead (State.Outages), by
	// start; fence holds the nodes fits set aside for one job.
	now     int64
	windows []sdk.Outage
	fence   []fencedNode
	// ignoreWindows starts jobs as if no maintenance window were ahead
	// (the windows parameter).
	ignoreWindows bool
	// lead is easy's drain_ahead: a window keeps jobs off its nodes from
	// lead seconds before it (reach); -1 when the policy drains nothing.
	lead int64
	// down marks the nodes out of service now (failed, draining or in
	// maintenance): what a job ending there gives back does not come
	// back to the policy; nil when none is. until is, for each such node,
	// when it comes back into service as far as the policy knows: the
	// latest end of the drains and maintenance windows in effect on it,
	// or never (math.MaxInt64) under a failure, whose repair time is not
	// shown.
	down  []bool
	until []int64
	// power is the run's power model (nil without one); committed and
	// cap are the committed draw with the starts of this call, and the
	// cap in effect (0: none), which a start must stay under.
	power          *sdk.Power
	committed, cap float64
	// coreW is the least power a core in use adds on any node: a job's
	// cores times it bound its power from below, which refuses a job
	// over the cap before any placement is tried.
	coreW float64
	// With a busy power table on some node group: inUse is each node's
	// cores in use as the engine shows them (nil without a table), and
	// addUse what this call's starts add, on the nodes in touched. incW
	// is, per node group with a table, the least and the most n cores in
	// use add to a node (incW[g][n]), whatever it had in use: what the
	// planning of power ahead, which does not know that, is bounded by.
	inUse, addUse []int64
	touched       []int32
	incW          [][][2]float64
	// coreMostW is the most one core in use adds on any node, in any
	// state: a job's cores times it bound its power from above.
	coreMostW float64
}

type fencedNode struct {
	k    int32
	free sdk.Amount
}

// The choices of the windows parameter: what a policy does with the
// maintenance windows ahead (State.Outages).
const (
	// WindowsAvoid starts no job on a node whose window begins before the
	// job's walltime is over: the machine drains ahead, as Slurm's
	// maintenance reservations make it.
	WindowsAvoid = "avoid"
	// WindowsIgnore starts jobs as if no window were ahead: under the
	// engine's hard maintenance rule such a start is refused (the run
	// fails); under the soft rule the jobs running at a window are ended.
	WindowsIgnore = "ignore"
)

// windowsParam is the parameter that says what a policy does with the
// maintenance windows ahead.
func windowsParam() sdk.Param {
	return sdk.Param{Name: "windows", Type: sdk.String, Default: WindowsAvoid,
		Doc: "maintenance windows ahead (outages of nodes): avoid (start no job on a node whose window begins before its walltime " +
			"is over, draining ahead) or ignore (start as if none were ahead; under the engine's soft maintenance rule the jobs " +
			"running at a window are ended, under the hard rule such a start fails the run)",
		Choices: []string{WindowsAvoid, WindowsIgnore}}
}

func newRoom(p *sdk.Platform) room {
	r := room{mem: p.Resource(sdk.Memory), gpu: p.Resource(sdk.GPUs), lead: -1}
	if p.HasNodes() {
		r.nodes = new(sdk.Sandbox)
		r.rule = p.Clusters[0].PlacementRule()
		r.held = make(sdk.Vector, p.Dims())
		r.shapes = map[sdk.Tasks]int32{}
	}
	return r
}

// setPower gives r the run's power model (nil for none).
func (r *room) setPower(m *sdk.Power, p *sdk.Platform) {
	r.power = m
	if m == nil || r.nodes == nil {
		return
	}
	r.coreW = math.Inf(1)
	r.incW = make([][][2]float64, len(p.Clusters[0].Nodes))
	for g, ng := range p.Clusters[0].Nodes {
		np := &m.Groups[0][g]
		if np.Busy == nil {
			r.coreW = min(r.coreW, np.CoreWatts(ng.Cores))
			r.coreMostW = max(r.coreMostW, np.CoreWatts(ng.Cores))
			continue
		}
		r.incW[g] = make([][2]float64, ng.Cores+1)
		for n := range ng.Cores + 1 {
			least, most := np.AddWattsRange(n, ng.Cores)
			r.incW[g][n] = [2]float64{least, most}
		}
		r.coreW = min(r.coreW, r.incW[g][1][0])
		r.coreMostW = max(r.coreMostW, r.incW[g][1][1])
	}
	if m.HasBusy() {
		r.addUse = make([]int64, p.Clusters[0].NodeCount())
	}
}

// startWatts returns what j's tasks t add to the committed draw on
// allocation a, given what the nodes have in use with this call's starts.
func (r *room) startWatts(t *sdk.Tasks, a sdk.Alloc) float64 {
	if r.inUse == nil {
		return r.power.StartWatts(r.nodes.Layout, 0, t, a)
	}
	l := r.nodes.Layout
	w := 0.0
	for i, k := range a.Nodes {
		m := r.power.Model(l, 0, int(k))
		w += m.AddWatts(r.inUse[k]+r.addUse[k], int64(a.Tasks[i])*int64(t.Cores), l.Cap(int(k)).Cores)
	}
	return w
}

// boundWatts returns the least (most false) or the most (true) that
// tasks t on allocation a add to the draw, or give back at their end,
// whatever the nodes then have in use: StartWatts on nodes without a
// busy power table.
func (r *room) boundWatts(t *sdk.Tasks, a sdk.Alloc, most bool) float64 {
	if r.inUse == nil {
		return r.power.StartWatts(r.nodes.Layout, 0, t, a)
	}
	l := r.nodes.Layout
	x := 0
	if most {
		x = 1
	}
	w := 0.0
	for i, k := range a.Nodes {
		n := int64(a.Tasks[i]) * int64(t.Cores)
		if inc := r.incW[l.Group(int(k))]; inc != nil {
			w += inc[n][x]
			continue
		}
		w += float64(n) * r.power.Model(l, 0, int(k)).CoreWatts(l.Cap(int(k)).Cores)
	}
	return w
}

// reset makes r what s shows free.
func (r *room) reset(s *sdk.State) {
	r.free = append(r.free[:0], s.Free[0]...)
	if r.nodes != nil {
		r.nodes.Sync(s.Nodes[0])
		r.worse = r.worse[:0]
		if r.call++; r.call == 0 { // wrapped: no shape may look failed
			clear(r.failedAt)
			r.call = 1
		}
		r.now, r.windows = s.Now, r.windows[:0]
		clear(r.down)
		r.down = r.down[:0]
		if s.Power != nil {
			r.committed, r.cap = s.Power.Committed, s.Power.Cap
			if r.addUse != nil {
				r.inUse = s.Power.InUse[0]
				for _, k := range r.touched {
					r.addUse[k] = 0
				}
				r.touched = r.touched[:0]
			}
		}
		for _, o := range s.Outages {
			if o.Kind == sdk.PolicyDrain {
				// Only easy drains (drain_ahead), ahead of a window that
				// keeps the node from every start until it ends (reach),
				// after which easy resumes it: the window says when the
				// node is back.
				continue
			}
			if o.Kind == sdk.Maintenance && o.Start > s.Now {
				if !r.ignoreWindows {
					r.windows = append(r.windows, o)
				}
				continue
			}
			if len(r.down) == 0 {
				r.down = append(r.down, make([]bool, r.nodes.Layout.Len())...)
				r.until = append(r.until[:0], make([]int64, r.nodes.Layout.Len())...)
			}
			end := o.End
			if end < 0 {
				end = math.MaxInt64
			}
			for k := range o.All(int32(len(r.down))) {
				r.down[k] = true
				r.until[k] = max(r.until[k], end)
			}
		}
	}
}

// fits reports whether j fits now, and leaves its placement in r.alloc.
func (r *room) fits(j *sdk.Job) bool {
	if !j.Request.Fits(r.free) {
		return false
	}
	if r.nodes == nil {
		return true
	}
	shape := r.shape(j)
	if r.failedAt[shape] == r.call || r.worseThanFailed(j.Tasks) {
		return false
	}
	if r.cap > 0 && r.power != nil && !sdk.UnderCap(r.committed+float64(int64(j.Tasks.Count)*int64(j.Tasks.Cores))*r.coreW, r.cap) {
		return false
	}
	// A job does not start on a node whose maintenance window begins
	// before its walltime is over, whatever the run's maintenance rule:
	// Slurm keeps jobs out of a maintenance reservation alike.
	if r.fenceOff(r.now + r.reach(j.Walltime)) {
		ok := r.nodes.Place(j.Tasks, r.rule, &r.alloc)
		r.unfence()
		return ok && r.underCap(j, r.alloc)
	}
	if !r.nodes.Place(j.Tasks, r.rule, &r.alloc) {
		r.failedAt[shape] = r.call
		if !r.exactOnly && !j.Tasks.Exclusive && j.Tasks.Nodes == 0 && len(r.worse) < maxWorse {
			r.worse = append(r.worse, *j.Tasks)
		}
		return false
	}
	return r.underCap(j, r.alloc)
}

// maxWorse bounds room.worse, which each try scans.
const maxWorse = 16

// worseThanFailed reports whether t, shared and without a node count,
// needs at least what a shape that failed in this call needed (r.worse).
func (r *room) worseThanFailed(t *sdk.Tasks) bool {
	if t.Exclusive || t.Nodes != 0 {
		return false
	}
	for i := range r.worse {
		f := &r.worse[i]
		if t.Partition == f.Partition && t.Features&f.Features == f.Features &&
			t.Count >= f.Count && t.Cores >= f.Cores && t.Memory >= f.Memory && t.GPUs >= f.GPUs {
			return true
		}
	}
	return false
}

// shape returns the number of j's shape (its Tasks).
func (r *room) shape(j *sdk.Job) int32 {
	if j.Index >= len(r.shapeOf) {
		r.shapeOf = append(r.shapeOf, make([]int32, j.Index+1-len(r.shapeOf))...)
	}
	if x := r.shapeOf[j.Index]; x > 0 {
		return x - 1
	}
	x, ok := r.shapes[*j.Tasks]
	if !ok {
		x = int32(len(r.shapes))
		r.shapes[*j.Tasks] = x
		r.failedAt = append(r.failedAt, 0)
	}
	r.shapeOf[j.Index] = x + 1
	return x
}

// underCap reports whether starting j on allocation a keeps the committed
// draw under the power cap (true without a cap). What does not fit the
// cap now may fit it later in the same call, so it is not remembered in
// r.failed.
func (r *room) underCap(j *sdk.Job, a sdk.Alloc) bool {
	if r.cap == 0 || r.power == nil {
		return true
	}
	return sdk.UnderCap(r.committed+r.startWatts(j.Tasks, a), r.cap)
}

// fenceOff sets aside, in the sandbox, the nodes a maintenance window
// reaches before until, and reports whether it set any aside.
func (r *room) fenceOff(until int64) bool {
	r.fence = r.fence[:0]
	for i := range r.windows {
		o := &r.windows[i]
		if o.Start >= until {
			break
		}
		for k := range o.All(int32(r.nodes.Layout.Len())) {
			if f := r.nodes.Free[k]; f != (sdk.Amount{}) {
				r.fence = append(r.fence, fencedNode{k, f})
				r.nodes.SetFree(k, sdk.Amount{})
			}
		}
	}
	return len(r.fence) > 0
}

// inService returns the part of allocation a on nodes in service at t (as
// far as the policy knows: nodes out of service now and back by t count):
// a itself when all are (or no node is out of service), else a copy.
func (r *room) inService(a sdk.Alloc, t int64) sdk.Alloc {
	if len(r.down) == 0 {
		return a
	}
	some := false
	for _, k := range a.Nodes {
		some = some || r.down[k] && r.until[k] > t
	}
	if !some {
		return a
	}
	var out sdk.Alloc
	for x, k := range a.Nodes {
		if !r.down[k] || r.until[k] <= t {
			out.Nodes = append(out.Nodes, k)
			out.Tasks = append(out.Tasks, a.Tasks[x])
		}
	}
	return out
}

// start returns the decision that starts j where fits placed it: on that
// allocation when maintenance windows are ahead, since the engine's own
// placement may then differ (it sets aside only the nodes its maintenance
// rule makes it); else by the engine's placement, the same as fits's.
func (r *room) start(j *sdk.Job) sdk.Decision {
	if r.nodes == nil || len(r.windows) == 0 {
		return sdk.Start(j)
	}
	return sdk.StartAlloc(j, 0, sdk.Alloc{Nodes: slices.Clone(r.alloc.Nodes), Tasks: slices.Clone(r.alloc.Tasks)})
}

// unfence gives back what fenceOff set aside.
func (r *room) unfence() {
	for _, f := range r.fence {
		r.nodes.SetFree(f.k, f.free)
	}
}

// holdsRequest reports whether j holds its request wherever it is placed:
// on a pool, a shared job, or an exclusive job on nodes all alike.
func (r *room) holdsRequest(j *sdk.Job) bool {
	return r.nodes == nil || !j.Tasks.Exclusive || r.nodes.Layout.Uniform(j.Tasks.Partition)
}

// demand returns what j's tasks hold in all (Layout.Demand), read from its
// request, which the engine checked is exactly that: computing it again
// for every candidate of EASY's backfill walked the partition's node
// groups (CEA-Curie's three) each time.
func (r *room) demand(j *sdk.Job) sdk.Amount {
	d := sdk.Amount{Cores: j.Request[0]}
	if r.mem >= 0 {
		d.Memory = j.Request[r.mem]
	}
	if r.gpu >= 0 {
		d.GPUs = j.Request[r.gpu]
	}
	return d
}

// heldBy returns what j holds in all on allocation a: its request, with the
// amounts held on nodes in place of what its tasks need (more for an
// exclusive job); j.Request itself on a platform without nodes. The
// vector is r's until the next call.
func (r *room) heldBy(j *sdk.Job, a sdk.Alloc) sdk.Vector {
	if r.nodes == nil {
		return j.Request
	}
	copy(r.held, j.Request)
	r.setHeld(r.held, r.nodes.Layout.HeldOn(j.Tasks, a))
	return r.held
}

// othersFit reports whether the resources of req that nodes do not hold
// (pooled ones beside the nodes) fit free.
func (r *room) othersFit(req, free sdk.Vector) bool {
	for k := 1; k < len(req); k++ {
		if k != r.mem && k != r.gpu && req[k] > free[k] {
			return false
		}
	}
	return true
}

// subOthers takes the resources of req that nodes do not hold from free.
func (r *room) subOthers(free, req sdk.Vector) {
	for k := 1; k < len(req); k++ {
		if k != r.mem && k != r.gpu {
			free[k] -= req[k]
		}
	}
}

// setHeld writes the amounts h held on nodes into the resources of v.
func (r *room) setHeld(v sdk.Vector, h sdk.Amount) {
	v[0] = h.Cores
	if r.mem >= 0 {
		v[r.mem] = h.Memory
	}
	if r.gpu >= 0 {
		v[r.gpu] = h.GPUs
	}
}

// take takes what j holds on allocation a (r.alloc after fits) from r.
func (r *room) take(j *sdk.Job, a sdk.Alloc) {
	if r.nodes == nil {
		r.free.Sub(j.Request)
		return
	}
	r.free.Sub(r.heldBy(j, a))
	r.nodes.Take(j.Tasks, a)
	if r.power != nil {
		r.committed += r.startWatts(j.Tasks, a)
		if r.inUse != nil {
			for i, k := range a.Nodes {
				if r.addUse[k] == 0 {
					r.touched = append(r.touched, k)
				}
				r.addUse[k] += int64(a.Tasks[i]) * int64(j.Tasks.Cores)
			}
		}
	}
}

// supported rejects the platforms the reference queue policies do not
// handle: several clusters, and resources divided into units (which the
// bb-* policies place).
func supported(name string, p *sdk.Platform) error {
	if len(p.Clusters) != 1 {
		return fmt.Errorf("%s schedules one cluster; platform %q has %d", name, p.Name, len(p.Clusters))
	}
	if p.UnitStride() > 0 {
		// Its fits count totals only; the engine would refuse starts whose
		// pieces do not fit on units.
		return fmt.Errorf("%s does not place pieces on divided resources (platform %q); use the bb-* policies", name, p.Name)
	}
	return nil
}

// outageMemo keeps the outages a call saw, so that a later call can tell
// whether any node went out of or back into service since, or a window
// began: only then does a shadow computed beside outages change without a
// job starting or ending.
type outageMemo struct {
	outs  []keptOutage
	nodes []int32 // the outages' nodes, one after the other
	now   int64
}

// keptOutage is an outage whose nodes are nodes[from:to] of its memo.
type keptOutage struct {
	o        sdk.Outage // Nodes nil
	from, to int
}

// keep notes the outages of s.
func (m *outageMemo) keep(s *sdk.State) {
	m.outs, m.nodes, m.now = m.outs[:0], m.nodes[:0], s.Now
	for _, o := range s.Outages {
		k := keptOutage{o: o, from: len(m.nodes)}
		m.nodes = append(m.nodes, o.Nodes...)
		k.o.Nodes, k.to = nil, len(m.nodes)
		m.outs = append(m.outs, k)
	}
}

// same reports whether s shows the outages kept, each begun at s.Now as
// it was when kept (a maintenance window is shown before it begins; its
// nodes, withheld from the head until it ends either way, change hands
// from the windows ahead to the nodes down when it does).
func (m *outageMemo) same(s *sdk.State) bool {
	if len(s.Outages) != len(m.outs) {
		return false
	}
	for i := range s.Outages {
		a, b := &m.outs[i], &s.Outages[i]
		if a.o.Cluster != b.Cluster || a.o.Start != b.Start || a.o.End != b.End || a.o.Kind != b.Kind ||
			(b.Start <= m.now) != (b.Start <= s.Now) || !slices.Equal(m.nodes[a.from:a.to], b.Nodes) {
			return false
		}
	}
	return true
}
