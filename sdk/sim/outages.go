package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/sdk"
)

// OnFailure says what becomes of a job running on a node when the node
// fails (or enters maintenance under MaintenanceSoft).
type OnFailure uint8

// The rules for jobs on a failing node.
const (
	// FailKill ends the job for good: its record says Interrupted.
	FailKill OnFailure = iota
	// FailRequeue puts the job back in the queue, to start again from its
	// beginning; its record counts the attempts lost.
	FailRequeue
	// FailCheckpoint puts the job back in the queue, to start again from
	// its last checkpoint (Faults.Checkpoint): the work done up to it is
	// kept.
	FailCheckpoint
)

// MaintenanceRule says whether a job may run into a maintenance window.
type MaintenanceRule uint8

// The maintenance rules.
const (
	// MaintenanceHard refuses a start when a maintenance window begins on
	// one of the job's nodes before its requested walltime is over, as
	// Slurm refuses a job that would overlap a maintenance reservation;
	// the engine's own placement leaves such nodes out.
	MaintenanceHard MaintenanceRule = iota
	// MaintenanceSoft lets jobs start; those still running when a window
	// begins on one of their nodes are ended as a failure ends them
	// (Faults.OnFailure).
	MaintenanceSoft
)

// Faults are the rules of a run whose platform has outages.
type Faults struct {
	OnFailure OnFailure
	// LosePlace sends a requeued job to the end of the queue; without it
	// the job takes back its place by submission (Job.Submit, then Index).
	LosePlace   bool
	Maintenance MaintenanceRule
	// Checkpoint is how jobs checkpoint under FailCheckpoint.
	Checkpoint Checkpoint
}

// IntervalRule says how the interval between a job's checkpoints is set.
type IntervalRule uint8

// The interval rules.
const (
	// IntervalFixed checkpoints every Checkpoint.Interval seconds of work.
	IntervalFixed IntervalRule = iota
	// IntervalYoung is Young's first-order optimum (1974), sqrt(2 C M),
	// where C is the checkpoint's cost and M the mean time between
	// failures of the job's nodes, Checkpoint.MTBF over their number.
	IntervalYoung
	// IntervalDaly is Daly's higher-order estimate (2006),
	// sqrt(2 C M) (1 + sqrt(C / 2M) / 3 + (C / 2M) / 9) - C for C < 2M,
	// and M otherwise.
	IntervalDaly
)

// Checkpoint is the checkpointing of jobs under FailCheckpoint. A job of
// work W (its runtime) checkpoints after every Interval seconds of work,
// each checkpoint taking Cost seconds, but not when its work is done: a
// run that starts with w seconds of work to do lasts w + Cost x
// floor((w-1) / Interval) seconds, plus Restart seconds first when it
// resumes from a checkpoint (an earlier run saved some work; a run after
// one that saved none starts afresh, without a restart), and is killed at
// its requested walltime. An outage that ends a run keeps the work of the
// checkpoints the run completed.
type Checkpoint struct {
	Rule     IntervalRule
	Interval int64
	Cost     int64
	Restart  int64
	// MTBF is the mean time between failures of one node, in seconds,
	// for IntervalYoung and IntervalDaly.
	MTBF float64
}

// IntervalFor returns the interval, in whole seconds of work (at least 1),
// between the checkpoints of a job running on nodes nodes.
func (c *Checkpoint) IntervalFor(nodes int) int64 {
	if c.Rule == IntervalFixed {
		return max(1, c.Interval)
	}
	cost, m := float64(c.Cost), c.MTBF/float64(max(1, nodes))
	tau := math.Sqrt(2 * cost * m)
	if c.Rule == IntervalDaly {
		if cost < 2*m {
			x := cost / (2 * m)
			tau = tau*(1+math.Sqrt(x)/3+x/9) - cost
		} else {
			tau = m
		}
	}
	return max(1, int64(math.Round(tau)))
}

// RunLength returns how long a run of a checkpointing job lasts that
// starts with work seconds of work to do, every tau seconds of work, a
// restart first when resumed.
func (c *Checkpoint) RunLength(work, tau int64, resumed bool) int64 {
	d := work + c.Cost*((work-1)/tau)
	if resumed {
		d += c.Restart
	}
	return d
}

// Saved returns the work a run of a checkpointing job keeps when it is
// ended after elapsed seconds: that of the checkpoints it completed, the
// k-th completing at (a restart first when resumed) k x (tau + Cost),
// none after its work is done.
func (c *Checkpoint) Saved(work, tau int64, resumed bool, elapsed int64) int64 {
	if resumed {
		elapsed -= c.Restart
	}
	if elapsed <= 0 {
		return 0
	}
	k := min(elapsed/(tau+c.Cost), (work-1)/tau)
	return k * tau
}

// Attempt is a run of a job that an outage ended.
type Attempt struct {
	Index      int32
	Cluster    int32
	Start, End int64
	// Cause is the kind of the outage that ended it, on node Node.
	Cause sdk.OutageKind
	Node  int32
	// Saved is the work, in seconds, that its checkpoints kept
	// (FailCheckpoint); 0 otherwise.
	Saved int64
}

// outEngine is what the engine keeps of a run with outages.
type outEngine struct {
	// qbase is the queue's array from a start at or before the queue's
	// first job, kept by insertQueued to find room before that job.
	qbase  []*sdk.Job
	outs   []sdk.Outage
	faults Faults
	next   int            // outs[next:] have not begun
	ends   heap[endEvent] // the outages in effect, by (end, index in outs)
	size   []int32        // per cluster: its node count (0 without nodes)
	maint  []int32        // the maintenance windows, indexes in outs, by start
	active []int32        // the failures and drains in effect, indexes in outs
	fence  []fenced       // nodes fenced off by startNodes, to restore
	shown  []sdk.Outage   // State.Outages
	shownN [][]int32      // the nodes of each outage shown, copies
	atts   []Attempt      // the attempts outages ended
	aoff   []int32        // their allocations' offsets in nodeEngine.nodes
	acnt   []int32        // and lengths
	victim []int32        // scratch: jobs to interrupt
	mark   []bool         // scratch: the nodes of the outage interrupting them
	last   []*sdk.Job     // jobs requeued to the end of the queue, maybe started since
	mfirst int            // maint[:mfirst] have begun
	// work, tau and limit are, under FailCheckpoint, each job's work
	// still to do, its current run's checkpoint interval and its requested
	// walltime (which exact estimates hide from the policy); nil
	// otherwise.
	work, tau, limit, total []int64
}

type fenced struct {
	k    int32
	free sdk.Amount
}

// newOutEngine returns the outage state of cfg, or nil without outages.
func newOutEngine(cfg *Config, n int) (*outEngine, error) {
	if len(cfg.Outages) == 0 {
		return nil, nil
	}
	p := cfg.Platform
	if err := sdk.CheckOutages(p, cfg.Outages); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	if p.UnitStride() > 0 {
		// A requeued job's placement on units would replace the one of
		// the run an outage ended, which the records must keep.
		return nil, fmt.Errorf("sim: outages on a platform with divided resources (sdk.Units) are not supported")
	}
	f := cfg.Faults
	if f.OnFailure > FailCheckpoint || f.Maintenance > MaintenanceSoft {
		return nil, fmt.Errorf("sim: unknown fault rules %+v", f)
	}
	if c := f.Checkpoint; f.OnFailure == FailCheckpoint && (c.Rule > IntervalDaly || c.Cost < 0 || c.Restart < 0 || c.Cost > MaxTime || c.Restart > MaxTime ||
		c.Rule == IntervalFixed && (c.Interval < 1 || c.Interval > MaxTime) || c.Rule != IntervalFixed && !(c.MTBF > 0 && c.MTBF <= MaxTime)) {
		return nil, fmt.Errorf("sim: checkpointing %+v: an interval of 1 s to sim.MaxTime (or Young's or Daly's rule with a positive MTBF), costs of 0 to sim.MaxTime", c)
	}
	if cfg.ExactEstimates && f.OnFailure == FailCheckpoint {
		// The duration shown would leave out the checkpoints' cost, and
		// the hard maintenance rule would let runs reach windows.
		return nil, fmt.Errorf("sim: exact estimates and checkpointing: the durations shown would leave out the checkpoints' cost; not supported together")
	}
	// Private copies: a policy writing into what it is shown (or a caller
	// into what it gave) cannot change what the engine enforces.
	outs := make([]sdk.Outage, len(cfg.Outages))
	shown := make([][]int32, len(cfg.Outages))
	for i, out := range cfg.Outages {
		out.Nodes = slices.Clone(out.Nodes)
		outs[i] = out
		shown[i] = slices.Clone(out.Nodes)
	}
	o := &outEngine{
		outs:   outs,
		shownN: shown,
		faults: cfg.Faults,
		ends:   heap[endEvent]{less: func(a, b endEvent) bool { return a.at < b.at || (a.at == b.at && a.idx < b.idx) }},
		size:   make([]int32, len(p.Clusters)),
	}
	for c := range p.Clusters {
		if n := p.Clusters[c].NodeCount(); p.Clusters[c].HasNodes() {
			o.size[c] = int32(n)
		}
	}
	for i := range o.outs {
		if o.outs[i].Kind == sdk.Maintenance {
			o.maint = append(o.maint, int32(i))
		}
	}
	if f.OnFailure == FailCheckpoint {
		// Filled as the jobs are loaded (load).
		o.work, o.tau, o.limit, o.total = make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	}
	return o, nil
}

// load keeps what checkpointing needs of job i: its work and requested
// walltime.
func (o *outEngine) load(i int, in *Input) {
	if o.work != nil {
		o.work[i], o.limit[i], o.total[i] = in.Runtime, in.Job.Walltime, in.Runtime
	}
}

// resumes reports whether job i's run resumes from a checkpoint: whether
// an earlier run saved some of its work.
func (o *outEngine) resumes(i int32) bool { return o.work[i] < o.total[i] }

// startRun returns the end of job i's run starting now on nodes nodes,
// and whether it is killed at its walltime then, under FailCheckpoint.
func (e *engine) startRun(i int32, nodes int) (int64, bool) {
	o := e.outs
	c := &o.faults.Checkpoint
	o.tau[i] = c.IntervalFor(nodes)
	d := c.RunLength(o.work[i], o.tau[i], o.resumes(i))
	limit := o.limit[i]
	return e.state.Now + min(d, limit), d > limit
}

// nextAt returns the time of the next outage to begin or end.
func (o *outEngine) nextAt() (int64, bool) {
	at, ok := int64(0), false
	if o.next < len(o.outs) {
		at, ok = o.outs[o.next].Start, true
	}
	if o.ends.len() > 0 && (!ok || o.ends.top().at < at) {
		at, ok = o.ends.top().at, true
	}
	return at, ok
}

// outageEnds ends the outages due at now, giving their nodes back to
// service; it reports whether any ended.
func (e *engine) outageEnds(now int64) bool {
	o := e.outs
	any := false
	for o.ends.len() > 0 && o.ends.top().at == now {
		x := o.ends.pop().idx
		out := &o.outs[x]
		c := int(out.Cluster)
		dark := e.pow != nil && (out.Kind == sdk.Failure || out.Kind == sdk.Maintenance)
		for k := range out.All(o.size[c]) {
			e.backInService(c, k)
			if dark {
				e.pow.darken(c, k, -1)
			}
		}
		if out.Kind != sdk.Maintenance {
			o.active = slices.DeleteFunc(o.active, func(y int32) bool { return y == x })
		}
		any = true
	}
	if any {
		e.showOutages(now)
	}
	return any
}

// outageStarts begins the outages due at now: the jobs on the nodes of a
// failure (and of a maintenance window, under MaintenanceSoft) are ended
// by the rule of the run, and the nodes withdrawn; it reports whether any
// began.
func (e *engine) outageStarts(now int64) bool {
	o := e.outs
	any := false
	for o.next < len(o.outs) && o.outs[o.next].Start == now {
		x := int32(o.next)
		o.next++
		out := &o.outs[x]
		c := int(out.Cluster)
		if out.Kind == sdk.Failure || out.Kind == sdk.Maintenance {
			e.interruptOn(out)
		}
		dark := e.pow != nil && (out.Kind == sdk.Failure || out.Kind == sdk.Maintenance)
		for k := range out.All(o.size[c]) {
			e.outOfService(c, k)
			if dark {
				e.pow.darken(c, k, 1)
			}
		}
		o.ends.push(endEvent{at: out.End, idx: x})
		if out.Kind == sdk.Maintenance {
			o.mfirst++
		} else {
			o.active = append(o.active, x)
		}
		any = true
	}
	if any {
		e.showOutages(now)
	}
	return any
}

// interruptOn ends, by the run's rule, every job running on a node of out.
func (e *engine) interruptOn(out *sdk.Outage) {
	o := e.outs
	c := int(out.Cluster)
	// mark tells out's nodes from the others at one read each (a failure
	// is of one node, and the scan reads every running job's nodes); all
	// is an outage of the whole cluster.
	all := len(out.Nodes) == 0
	if len(o.mark) < int(o.size[c]) {
		o.mark = make([]bool, o.size[c])
	}
	for _, k := range out.Nodes {
		o.mark[k] = true
	}
	o.victim = o.victim[:0]
	for _, r := range e.state.Running {
		if r.Cluster != c || r.Alloc == nil {
			continue
		}
		for _, k := range r.Alloc.Nodes {
			if all || o.mark[k] {
				o.victim = append(o.victim, int32(r.Job.Index))
				break
			}
		}
	}
	// By index, so that the queue takes requeued jobs in a documented
	// order.
	slices.Sort(o.victim)
	for _, i := range o.victim {
		node := int32(-1)
		for _, k := range e.nodes.alloc(i).Nodes {
			if all || o.mark[k] {
				node = k
				break
			}
		}
		e.interrupt(i, out.Kind, node)
	}
	for _, k := range out.Nodes {
		o.mark[k] = false
	}
}

// interrupt ends job i's attempt now, for an outage of kind cause on
// node, and kills or requeues it.
func (e *engine) interrupt(i int32, cause sdk.OutageKind, node int32) {
	o := e.outs
	now := e.state.Now
	r := &e.rec[i]
	ne := e.nodes
	var saved int64
	if o.work != nil {
		saved = o.faults.Checkpoint.Saved(o.work[i], o.tau[i], o.resumes(i), now-r.Start)
		o.work[i] -= saved
	}
	o.atts = append(o.atts, Attempt{Index: i, Cluster: r.Cluster, Start: r.Start, End: now, Cause: cause, Node: node, Saved: saved})
	o.aoff = append(o.aoff, ne.off[i])
	o.acnt = append(o.acnt, ne.cnt[i])
	r.Attempts++
	r.End = now
	if o.faults.OnFailure == FailKill {
		r.Killed = false
		r.Interrupted = cause
		e.end(i)
		return
	}
	e.release(i, sdk.Completion{Job: &e.jobs[i], Cluster: int(r.Cluster), Start: r.Start, End: now, Interrupted: cause, Requeued: true})
	e.status[i] = statusQueued
	j := &e.jobs[i]
	q := e.state.Queue
	if o.faults.LosePlace {
		e.state.Queue = append(q, j)
		o.last = append(o.last, j)
		return
	}
	k, _ := slices.BinarySearchFunc(q, j, bySubmit)
	e.insertQueued(k, j)
}

// insertQueued puts job j at position k of the queue. A job requeued in
// place goes back near the front of a queue that may be long, so where
// the queue's array has room before its first job (the engine drops
// started jobs by reslicing) the k jobs before it move one place into that
// room, rather than every job after it one place back: O(k), not
// O(queue).
func (e *engine) insertQueued(k int, j *sdk.Job) {
	o := e.outs
	q := e.state.Queue
	if len(q) > 0 && k <= len(q)/2 {
		// q shares qbase's array when its first job is qbase[off].
		if off := cap(o.qbase) - cap(q); off > 0 && off < len(o.qbase) && &o.qbase[off] == &q[0] {
			nq := o.qbase[off-1 : off+len(q)]
			copy(nq, q[:k])
			nq[k] = j
			e.state.Queue = nq
			return
		}
	}
	q = slices.Insert(q, k, j)
	e.state.Queue = q
	o.qbase = q[:cap(q)]
}

// firstOfLast returns the job submitted first of first and the jobs
// requeued to the end of the queue that still wait, and forgets those
// that do not.
func (o *outEngine) firstOfLast(first *sdk.Job, status []uint8) *sdk.Job {
	kept := o.last[:0]
	for _, j := range o.last {
		if status[j.Index] != statusQueued {
			continue
		}
		kept = append(kept, j)
		if submittedBefore(j, first) {
			first = j
		}
	}
	clear(o.last[len(kept):])
	o.last = kept
	return first
}

// adjustFree changes the free totals free by sign x f.
func (ne *nodeEngine) adjustFree(free sdk.Vector, f sdk.Amount, sign int64) {
	free[0] += sign * f.Cores
	if ne.mem >= 0 {
		free[ne.mem] += sign * f.Memory
	}
	if ne.gpu >= 0 {
		free[ne.gpu] += sign * f.GPUs
	}
}

// fenceOff withholds, on the private nodes of cluster c, the nodes that a
// maintenance window reaches before until, so that a start there fails,
// and reports how many it fenced; unfence undoes it.
func (e *engine) fenceOff(c int, now, until int64) int {
	o := e.outs
	priv := e.nodes.private[c]
	o.fence = o.fence[:0]
	for _, x := range o.maint[o.mfirst:] {
		out := &o.outs[x]
		if out.Start >= until {
			break
		}
		if int(out.Cluster) != c || out.Start <= now {
			continue
		}
		for k := range out.All(o.size[c]) {
			if f := priv.Free[k]; f != (sdk.Amount{}) {
				o.fence = append(o.fence, fenced{k, f})
				priv.SetFree(k, sdk.Amount{})
			}
		}
	}
	return len(o.fence)
}

// unfence gives back what fenceOff withheld.
func (e *engine) unfence(c int) {
	priv := e.nodes.private[c]
	for _, f := range e.outs.fence {
		priv.SetFree(f.k, f.free)
	}
	e.outs.fence = e.outs.fence[:0]
}

// maintenanceBefore returns the start of a maintenance window that
// reaches a node of a before until, if one does.
func (e *engine) maintenanceBefore(c int, a sdk.Alloc, now, until int64) (int64, int32, bool) {
	o := e.outs
	for _, x := range o.maint[o.mfirst:] {
		out := &o.outs[x]
		if out.Start >= until {
			break
		}
		if int(out.Cluster) != c || out.Start <= now {
			continue
		}
		for _, k := range a.Nodes {
			if out.Covers(k) {
				return out.Start, k, true
			}
		}
	}
	return 0, 0, false
}

// showOutages rebuilds State.Outages.
func (e *engine) showOutages(now int64) {
	o := e.outs
	sh := o.shown[:0]
	for _, x := range o.active {
		out := o.outs[x]
		out.Nodes = o.shownN[x]
		if out.Kind == sdk.Failure {
			out.End = -1
		}
		sh = append(sh, out)
	}
	for _, x := range o.maint {
		if out := o.outs[x]; out.End > now {
			out.Nodes = o.shownN[x]
			sh = append(sh, out)
		}
	}
	if e.drains != nil {
		sh = append(sh, e.drains.shown...)
	}
	slices.SortFunc(sh, sdk.CompareOutages)
	o.shown = sh
	e.state.Outages = sh
}

// result returns the attempts outages ended, and their allocations.
func (o *outEngine) result(ne *nodeEngine) ([]Attempt, *Allocs) {
	a := &Allocs{Start: make([]int32, len(o.atts)+1)}
	for x := range o.atts {
		lo, hi := o.aoff[x], o.aoff[x]+o.acnt[x]
		a.Nodes = append(a.Nodes, ne.nodes[lo:hi]...)
		a.Tasks = append(a.Tasks, ne.ntask[lo:hi]...)
		a.Start[x+1] = int32(len(a.Nodes))
	}
	return o.atts, a
}

// liveEnd reports whether end event ev is still the end of its job: an
// outage may have ended the job's run before it.
func (e *engine) liveEnd(ev endEvent) bool {
	return e.status[ev.idx] == statusRunning && e.rec[ev.idx].End == ev.at
}

// dropStaleEnds pops the end events that are no longer ends, so that the
// next event time is a real one.
func (e *engine) dropStaleEnds() {
	for e.ends.len() > 0 && !e.liveEnd(e.ends.top()) {
		e.ends.pop()
	}
}

// The names of the rules, as manifests and results spell them, by value.
var (
	onFailureNames   = []string{"kill", "requeue", "checkpoint"}
	maintenanceNames = []string{"hard", "soft"}
	intervalNames    = []string{"fixed", "young", "daly"}
)

// name returns the name of rule v in names, or what is named when v is
// not a rule.
func name[T ~uint8](v T, names []string, what string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s %d", what, uint8(v))
}

// parse returns the rule named s in names; key names the setting in the
// error.
func parse[T ~uint8](s string, names []string, key string) (T, error) {
	for v, n := range names {
		if n == s {
			return T(v), nil
		}
	}
	return 0, fmt.Errorf("%s %q: want %s", key, s, strings.Join(names, ", "))
}

// String returns the rule's name as manifests and results spell it.
func (f OnFailure) String() string { return name(f, onFailureNames, "on-failure rule") }

// String returns the rule's name as manifests and results spell it.
func (m MaintenanceRule) String() string { return name(m, maintenanceNames, "maintenance rule") }

// String returns the rule's name as manifests and results spell it.
func (r IntervalRule) String() string { return name(r, intervalNames, "interval rule") }

// ParseOnFailure returns the rule named s ("kill", "requeue" or
// "checkpoint").
func ParseOnFailure(s string) (OnFailure, error) {
	return parse[OnFailure](s, onFailureNames, "on_failure")
}

// ParseMaintenance returns the rule named s ("hard" or "soft").
func ParseMaintenance(s string) (MaintenanceRule, error) {
	return parse[MaintenanceRule](s, maintenanceNames, "maintenance")
}

// ParseIntervalRule returns the rule named s ("fixed", "young" or "daly").
func ParseIntervalRule(s string) (IntervalRule, error) {
	return parse[IntervalRule](s, intervalNames, "checkpoint interval rule")
}
