package backfill

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// The readings of EASY's reservation on a platform of nodes, the values of
// easy's reservation parameter.
const (
	// ReservationCount counts: the head's shadow time is the first
	// expected end at which it fits, and the capacity free then beyond
	// what it holds is the extra capacity, which long backfilled jobs
	// consume (Lifka 1995; Mu'alem and Feitelson 2001). On a pool, and on
	// exclusive nodes all alike, it is the classic rule.
	ReservationCount = "count"
	// ReservationBatsched holds nodes: the head's reservation is its
	// placement at the shadow time (by the cluster's rule: the
	// lowest-numbered nodes free then, under first fit), and a job that
	// does not end by the shadow time may start only on what that
	// reservation leaves, as Batsim's batsched easy_bf does (its profile
	// holds the head's machines from the shadow time on).
	ReservationBatsched = "batsched"
)

// EASY is the plugin of EASY backfilling (Lifka 1995; Mu'alem and Feitelson
// 2001). Jobs start in queue order while they fit. The first job that does not
// fit (the head) gets a reservation at the shadow time, the earliest time at
// which enough running jobs will have reached their walltime for it to fit;
// the capacity free at that time beyond the head's request is the extra
// capacity. Later jobs, in queue order, are backfilled when they fit now and
// either end by the shadow time or need no more than the extra capacity,
// which they then consume. On a platform of nodes, a job fits when the
// cluster's placement rule places it, and the reservation parameter says
// which of the field's two readings of "no more than the extra capacity"
// applies (ReservationCount, ReservationBatsched).
func EASY() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "easy",
			Version:     "1.1.0",
			Description: "EASY backfilling: one reservation, for the first job in queue order that does not fit; on pools and on nodes",
			Params:      []sdk.Param{orderParam(), reservationParam(), windowsParam(), idleOffParam(), drainAheadParam()},
		},
		New: func() sdk.Policy { return &easy{} },
	}
}

// reservationParam is EASY's reading of its reservation on nodes, which
// multifactor shares.
func reservationParam() sdk.Param {
	return sdk.Param{Name: "reservation", Type: sdk.String, Default: ReservationCount,
		Doc: "on nodes, what the head's reservation holds: count (the capacity free at the shadow time beyond the head's, " +
			"which long backfilled jobs consume; the classic rule) or batsched (the nodes the head is placed on at the " +
			"shadow time, which long backfilled jobs must leave, as Batsim's batsched easy_bf)",
		Choices: []string{ReservationCount, ReservationBatsched}}
}

type easy struct {
	orderer
	room        room
	batsched    bool
	avail       sdk.Vector
	extra       sdk.Vector
	now         []release // jobs started in this call, by expected end
	heldSlab    []int64   // what they hold (release.held), dims each
	nodesArena  []int32   // their allocations on nodes (release.alloc)
	tasksArena  []int32
	dims        int
	out         []sdk.Decision
	future      sdk.Sandbox // on nodes, the nodes at the shadow time
	reservation sdk.Alloc   // on nodes, the head's placement then
	// watch follows whether the head fits, as running jobs give their
	// nodes back one after the other (given, in that order).
	watch sdk.Watch
	given []release
	// On nodes, the count reading counts the extra capacity on the nodes
	// of the head's partition only (extraNodes): a job elsewhere cannot
	// delay the head, and one partly there consumes what it holds there.
	extraNodes sdk.Amount
	headPart   int32
	// last is what the previous call left that the next may reuse: the
	// head it computed the shadow of, and that shadow; valid when that
	// call started nothing and, with outages, drained nothing.
	last struct {
		valid  bool
		head   int
		shadow int64
		fenced bool // fencedAtShadow then
	}
	// seen is the outages the last call saw: a shadow computed while
	// nodes are out of service holds as long as they stay the same.
	seen outageMemo
	// fresh turns every reuse off: of the previous call's shadow, of
	// the cursor, of failed shapes beyond the exact shape (tests compare
	// the two); computed and
	// reused count the calls that computed a shadow and that reused one.
	fresh            bool
	computed, reused int
	reusedOut        int // of reused, the calls with outages
	// cur is what the nodes will have free at the last shadow time, on
	// nodes (cursor); cursored counts the shadows computed from it.
	cur      cursor
	cursored int
	// saver switches nodes off and on (idle_off); nil when the run does
	// not. head is the head of the last call, nil when every job started.
	saver *saver
	head  *sdk.Job
	// Under a power cap the head's reservation holds power too: capped
	// says a cap is in effect in this call, extraW is the power left at
	// the shadow time beyond what the head's cores will draw, which the
	// jobs backfilled past the shadow time consume (shadowAt).
	capped   bool
	extraW   float64
	shadowAt int64
	// gate holds the jobs a limit holds (multifactor's limits); nil for
	// none. A held job is skipped: it neither starts nor is the head.
	gate *limiter
	// ahead is what the shadow computation knows of the nodes' future
	// beyond the running jobs' ends (outages, aheadOf): set in a call
	// whose state shows maintenance windows ahead or nodes out of
	// service until a known time; fencedAtShadow says that some nodes
	// are withheld from the head at its shadow time (p.watch.Withheld).
	ahead          outlook
	fencedAtShadow bool
	// drains drains the nodes of the windows ahead itself (drain_ahead);
	// nil when it does not, and always for multifactor.
	drains *drainer
	// arrived marks the jobs calls have seen in the queue, and queued is
	// the queue's length when the last call returned: a call whose queue
	// is that many jobs and its unmarked tail knows the jobs new since
	// (newOnly). scannedNew counts the calls that read only those.
	arrived    arrivals
	queued     int
	newBuf     []*sdk.Job
	scannedNew int
	// kinds keeps the waiting jobs by kind, for backfilling a long queue.
	kinds kinds
}

// outlook is what EASY's shadow computation knows in advance of the
// nodes' future: the nodes that come back into service at a known time
// (the end of the drains and maintenance windows in effect), and the
// maintenance windows ahead, each of which makes its nodes unusable for
// the head at every time t at which it would overlap the head's run
// [t, t + walltime).
type outlook struct {
	on bool
	// backs are the nodes out of service now that come back, by time;
	// pend is what running jobs hold on each of them (what the node does
	// not have free when it comes back), less what those that end before
	// give back.
	backs    []nodeBack
	nextBack int
	pend     []sdk.Amount
	// A window ahead withholds its nodes from the head from Start -
	// walltime + 1 (a run starting then reaches it) to End: room.windows[:
	// nextIn] (by start, so in the order they begin to reach the head)
	// have begun to; leaves are the indexes in room.windows by end, of
	// which leaves[:nextUp] have stopped.
	leaves         []int
	nextIn, nextUp int
	v              sdk.Vector
}

type nodeBack struct {
	at int64
	k  int32
}

// release is what a job holds and gives back at a time.
type release struct {
	at    int64
	idx   int
	held  sdk.Vector
	tasks *sdk.Tasks
	alloc sdk.Alloc
}

func (p *easy) Init(env sdk.Env) error {
	var err error
	if p.saver, err = newSaver("easy", env); err != nil {
		return err
	}
	if p.drains, err = newDrainer(env); err != nil {
		return err
	}
	if err := p.init("easy", env, newOrderer(env)); err != nil {
		return err
	}
	if p.drains != nil {
		p.room.lead = p.drains.lead
	}
	return nil
}

// init prepares EASY over the queue order o; name is the policy's, for
// errors. multifactor runs EASY over its priorities this way.
func (p *easy) init(name string, env sdk.Env, o orderer) error {
	p.orderer = o
	p.room = newRoom(env.Platform)
	p.room.exactOnly = p.fresh
	p.room.setPower(env.Power, env.Platform)
	p.room.ignoreWindows = env.Params.String("windows") == WindowsIgnore
	p.dims = env.Platform.Dims()
	p.batsched = env.Params.String("reservation") == ReservationBatsched
	if p.batsched && !env.Platform.HasNodes() {
		return fmt.Errorf("%s: reservation = %s holds nodes; platform %q has none (use %s)", name, ReservationBatsched, env.Platform.Name, ReservationCount)
	}
	return supported(name, env.Platform)
}

func (p *easy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	out, err := p.schedule(s)
	if p.saver != nil && err == nil {
		p.out = p.saver.decide(s, &p.room, p.head, out)
		return p.out, nil
	}
	return out, err
}

// schedule makes EASY's starts and promise of a call.
func (p *easy) schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.begin(s)
	p.cursorSync(s)
	arrivedNow := p.arrived.take(s.Queue)
	whole := len(s.Queue) == p.queued+len(arrivedNow)
	defer func() { p.queued = len(s.Queue) }()
	if p.drains != nil {
		p.out = p.drains.decide(s, &p.room, p.out)
	}
	q := p.sorted(s)
	useKinds := p.kindsOK(s, len(q))
	if useKinds {
		p.kinds.sync(p, q, arrivedNow)
	} else {
		p.kinds.valid = false
	}
	i := 0
	// The kept order must not change while q is read: the started jobs
	// are dropped from it when the call returns.
	defer func() { p.drop(p.out) }()
	for ; i < len(q); i++ {
		if p.gate != nil && p.gate.held(q[i]) {
			continue
		}
		if !p.room.fits(q[i]) {
			break
		}
		p.start(s.Now, q[i], nil)
	}
	if i == len(q) {
		p.last.valid = false
		return p.out, nil
	}
	head := q[i]
	p.head = head
	// The shadow depends on the running jobs, the jobs started in this
	// call and the head only. When the previous call started nothing, no
	// job has ended since and this call starts none before the same head
	// (a submission while the head waits, the commonest call in a busy
	// log), it is the previous call's, and so are the extra capacity and
	// the nodes at the shadow time, which only starts change: computing
	// it again walked the running jobs and, on nodes, every node
	// (BenchmarkEngineEASYNodes).
	var shadow int64
	scan, onlyNew := q[i+1:], false
	// Outages of nodes change what is free without a job ending: the
	// shadow is reused only while they are the outages the last call saw
	// (none, or the same nodes out of service and the same windows, none
	// begun since), and before the time it names (it is a job's expected
	// end or an outage's end, at which the engine calls again).
	if p.last.valid && !p.fresh && len(p.now) == 0 && len(s.Completed) == 0 && s.Power == nil && p.last.head == head.Index &&
		s.Now < p.last.shadow && p.seen.same(s) {
		shadow = p.last.shadow
		p.fencedAtShadow = p.last.fenced
		p.reused++
		if len(s.Outages) > 0 {
			p.reusedOut++
		}
		if whole && p.gate == nil && p.drains == nil && p.saver == nil && p.monotone() {
			scan, onlyNew = p.newOnly(arrivedNow), true
		}
	} else {
		shadow = p.shadow(s, head)
		p.computed++
	}
	// Easy's own drains (drain_ahead) change the nodes as the call
	// decides: a shadow computed beside them is not kept.
	defer func() {
		p.last.valid = len(p.now) == 0 && shadow >= 0 && (len(s.Outages) == 0 || p.drains == nil)
		p.last.head, p.last.shadow, p.last.fenced = head.Index, shadow, p.fencedAtShadow
		if p.last.valid {
			p.seen.keep(s)
		}
	}()
	if shadow < 0 {
		// The head does not fit even once every running job has ended:
		// nodes out of service hold what it needs, until a repair no
		// running job's end tells. It gets no reservation, as Slurm gives
		// none to a job waiting for nodes, and every job that fits now
		// starts; the next call after the repair reserves again.
		for _, j := range q[i+1:] {
			if j.Request.Fits(p.room.free) && (p.gate == nil || !p.gate.held(j)) && p.room.fits(j) {
				p.start(s.Now, j, nil)
			}
		}
		return p.out, nil
	}
	p.out = append(p.out, sdk.Promise(head, shadow))
	p.shadowAt = shadow
	if useKinds && !onlyNew && p.kinds.pays(len(scan), p.room.nodes == nil) {
		p.kinds.served++
		p.kinds.first(p, head)
		for len(p.kinds.heap) > 0 {
			at := p.kinds.pop(p)
			started, retry := p.backfill(s, at.job, shadow)
			if retry {
				p.kinds.retried++
			}
			if started || retry {
				p.kinds.push(p, at.kind, at.at+1, head)
			}
		}
		return p.out, nil
	}
	pool := p.room.nodes == nil
	for _, j := range scan {
		// Most jobs of a long queue fail the totals, and on a pool most
		// of the others that would run past the shadow time fail the
		// extra capacity: those tests are made here, without a call.
		if j.Request.Fits(p.room.free) && (!pool || s.Now+j.Walltime <= shadow || j.Request.Fits(p.extra)) {
			p.backfill(s, j, shadow)
		}
	}
	return p.out, nil
}

// backfill starts j, a job after the head, if it fits now and leaves the
// head's reservation (ending by the shadow time, or in the extra
// capacity), and reports whether it did. When it did not, retry reports
// that a later job of its kind (kinds) might still: it was refused for
// what its placement holds on the nodes of the head's partition.
func (p *easy) backfill(s *sdk.State, j *sdk.Job, shadow int64) (started, retry bool) {
	// The cheap tests come first: a placement on nodes is tried only for
	// a job the totals admit.
	if !j.Request.Fits(p.room.free) || p.gate != nil && p.gate.held(j) {
		return false, false
	}
	if p.capped && s.Now+j.Walltime > shadow && p.leastWatts(j) > p.extraW {
		return false, false // it would take power the head holds at the shadow time
	}
	switch {
	case s.Now+j.Walltime <= shadow:
		if p.room.fits(j) {
			p.start(s.Now, j, nil)
			return true, false
		}
	case p.batsched:
		// It must leave what the head holds at the shadow time: its
		// room is the lesser of what is free now and then.
		fenced := p.room.fenceOff(s.Now + p.room.reach(j.Walltime))
		ok := p.room.nodes.PlaceWithin(j.Tasks, p.room.rule, &p.room.alloc, &p.future.Nodes)
		if fenced {
			p.room.unfence()
		}
		if ok && p.room.underCap(j, p.room.alloc) {
			p.future.Take(j.Tasks, p.room.alloc)
			p.start(s.Now, j, &p.room.alloc)
			return true, false
		}
	case p.room.nodes != nil:
		return p.backfillCounted(s.Now, j)
	case !j.Request.Fits(p.extra):
		// It needs more than the extra capacity.
	default:
		p.extra.Sub(j.Request)
		p.start(s.Now, j, nil)
		return true, false
	}
	return false, false
}

// monotone reports whether a job after the head that the previous call
// did not start cannot start now either, all else being as it was, once
// new jobs are tried before it: in the queue's order new jobs come after
// every old one, and on a pool or under the batsched reading a start
// only leaves less room. Under the count reading on nodes in another
// order, a new job ranked before an old one refused for what its
// placement held on the head's partition may fill those nodes and send
// it elsewhere, where it starts (TestEASYNewJobAheadOfRefused).
func (p *easy) monotone() bool {
	return p.order == OrderSubmit || p.room.nodes == nil || p.batsched
}

// newOnly returns, in the queue's order, the jobs of arrivedNow (the
// jobs submitted since the previous call), which are all a call that
// reuses the previous call's shadow needs to try after its head. That
// call started nothing and no job has ended since, nor have the outages
// changed, so what is free now, and at the shadow time, is what it was
// then: every job it tried and did not start fails again, later (its
// walltime reaching further past the shadow time and into the windows
// ahead), where starts only leave less room (monotone). Reading the
// whole queue again at every submission was most of EASY's time on a
// long queue (RICC, BenchmarkEngineEASYNodes).
func (p *easy) newOnly(arrivedNow []*sdk.Job) []*sdk.Job {
	p.scannedNew++
	if p.order == OrderSubmit {
		return arrivedNow
	}
	p.newBuf = append(p.newBuf[:0], arrivedNow...)
	slices.SortFunc(p.newBuf, p.compare)
	return p.newBuf
}

// backfillCounted starts j, which does not end by the shadow time, when
// what it holds on the nodes of the head's partition fits the extra
// capacity there (and its other resources the extra totals), which it
// then consumes.
func (p *easy) backfillCounted(now int64, j *sdk.Job) (started, retry bool) {
	l := p.room.nodes.Layout
	if j.Tasks.Partition == p.headPart && p.room.holdsRequest(j) && !p.fencedAtShadow {
		// It would hold its request there: cheap to refuse without a
		// placement.
		if d := p.room.demand(j); !amountFits(d, p.extraNodes) {
			return false, false
		}
	}
	if !p.room.fits(j) {
		return false, false
	}
	var in sdk.Amount
	for k, n := range p.room.alloc.Nodes {
		// What it holds on a node a window withholds from the head at
		// the shadow time does not delay the head.
		if l.InPartition(p.headPart, n) && !(p.fencedAtShadow && p.watch.Withheld(n)) {
			h := l.Held(j.Tasks, n, p.room.alloc.Tasks[k])
			in.Cores, in.Memory, in.GPUs = in.Cores+h.Cores, in.Memory+h.Memory, in.GPUs+h.GPUs
		}
	}
	if !p.room.othersFit(j.Request, p.extra) {
		return false, false
	}
	if !amountFits(in, p.extraNodes) {
		// Placed elsewhere, as other jobs fill these nodes, a job of
		// its kind may hold less here.
		return false, true
	}
	p.extraNodes = sdk.Amount{Cores: p.extraNodes.Cores - in.Cores, Memory: p.extraNodes.Memory - in.Memory, GPUs: p.extraNodes.GPUs - in.GPUs}
	p.room.subOthers(p.extra, j.Request)
	p.start(now, j, nil)
	return true, false
}

// begin starts a call: nothing decided or started yet, the room as s
// shows it.
func (p *easy) begin(s *sdk.State) {
	p.out = p.out[:0]
	p.head = nil
	p.capped, p.shadowAt = false, -1
	// Set by shadow when it withholds nodes; a call that reuses the
	// previous shadow withholds what that one did.
	p.fencedAtShadow = false
	p.now = p.now[:0]
	p.heldSlab = p.heldSlab[:0]
	p.nodesArena, p.tasksArena = p.nodesArena[:0], p.tasksArena[:0]
	p.room.reset(s)
}

// leastWatts returns the least power j's cores in use can add: its cores
// times the least a core adds on any node (exact on nodes all alike).
func (p *easy) leastWatts(j *sdk.Job) float64 {
	return float64(int64(j.Tasks.Count)*int64(j.Tasks.Cores)) * p.room.coreW
}

// mostWatts returns the most j's cores in use can add: its cores times the
// most a core adds on any node, whatever the node has in use.
func (p *easy) mostWatts(j *sdk.Job) float64 {
	return float64(int64(j.Tasks.Count)*int64(j.Tasks.Cores)) * p.room.coreMostW
}

func amountFits(a, free sdk.Amount) bool {
	return a.Cores <= free.Cores && a.Memory <= free.Memory && a.GPUs <= free.GPUs
}

// start starts j, which fits (its placement in p.room.alloc), and notes
// what it holds until its expected end. A nil placement leaves it to the
// engine, which places it by the cluster's rule as p.room did; else the
// start names it.
func (p *easy) start(now int64, j *sdk.Job, placed *sdk.Alloc) {
	p.kinds.started(j)
	r := release{at: now + j.Walltime, idx: j.Index, held: j.Request, tasks: j.Tasks}
	if p.room.nodes != nil {
		a := p.room.alloc
		n := len(p.nodesArena)
		p.nodesArena = append(p.nodesArena, a.Nodes...)
		p.tasksArena = append(p.tasksArena, a.Tasks...)
		r.alloc = sdk.Alloc{Nodes: p.nodesArena[n:len(p.nodesArena):len(p.nodesArena)], Tasks: p.tasksArena[n:len(p.tasksArena):len(p.tasksArena)]}
		k := len(p.heldSlab)
		p.heldSlab = append(p.heldSlab, p.room.heldBy(j, a)...)
		r.held = p.heldSlab[k : k+p.dims : k+p.dims]
	}
	if p.capped && p.shadowAt >= 0 && now+j.Walltime > p.shadowAt {
		p.extraW -= p.room.boundWatts(j.Tasks, p.room.alloc, true)
	}
	p.room.take(j, p.room.alloc)
	if p.gate != nil {
		p.gate.took(j)
	}
	if placed != nil || len(p.room.windows) > 0 {
		// The engine's placement may differ from the room's where the
		// room set nodes aside for a maintenance window (room.start).
		p.out = append(p.out, sdk.StartAlloc(j, 0, r.alloc))
	} else {
		p.out = append(p.out, sdk.Start(j))
	}
	p.cursorStarted(&r)
	p.now = append(p.now, r)
}

// shadow returns the earliest time at which head fits once running jobs (and
// the jobs started in this call) reach their expected ends, and leaves in
// p.extra the capacity free at that time beyond what head holds. Every
// release at the shadow time counts, not just the one that made head fit.
// On nodes, a Watch follows whether head fits as jobs give nodes back;
// the nodes at the shadow time are made in p.future, head placed on them,
// only when what it holds there may depend on where (an exclusive job on
// nodes of several sizes) or when its reservation holds them
// (ReservationBatsched).
func (p *easy) shadow(s *sdk.State, head *sdk.Job) int64 {
	slices.SortFunc(p.now, func(a, b release) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	})
	// The cursor pays where giving back a running job costs a pass over
	// its nodes: for a head that shares nodes. Giving back exclusive
	// jobs costs little (sdk.Watch counts them by group), and keeping
	// the cursor would cost a pass over the nodes of every job started
	// and ended (BenchmarkEngineEASYNodes: CEA-Curie, held whole, ran
	// 1.6 times slower on it; RICC, shared, 4.3 times faster).
	if p.cursorOK(s) && p.room.holdsRequest(head) && !head.Tasks.Exclusive {
		return p.shadowOnCursor(s, head)
	}
	p.cur.valid = false
	p.avail = append(p.avail[:0], p.room.free...)
	nodes := p.room.nodes != nil
	if nodes {
		p.watch.View(&p.room.nodes.Nodes, head.Tasks, p.room.rule)
		p.given = p.given[:0]
	}
	run, started := s.Running, p.now
	shadow := int64(-1)
	p.fencedAtShadow = false
	ah := &p.ahead
	ah.on = nodes && p.aheadOf(s, head)
	// The jobs given back are needed after the loop only to make the
	// nodes at the shadow time (below) from the nodes now.
	keepGiven := nodes && !ah.on && (p.batsched || !p.room.holdsRequest(head))
	// Under a cap, the head fits when its cores' power also fits what
	// the cap leaves once the jobs ended by then give theirs back.
	p.capped = nodes && p.room.cap > 0 && p.room.power != nil
	var availW, headW float64
	if p.capped {
		availW = p.room.cap*(1+sdk.CapSlack) - p.room.committed
		headW = p.leastWatts(head)
	}
	for len(run) > 0 || len(started) > 0 || ah.on && ah.more() {
		fromRun := len(started) == 0 || (len(run) > 0 && run[0].ExpectedEnd <= started[0].at)
		var t int64
		switch {
		case len(run) == 0 && len(started) == 0:
			t = math.MaxInt64
		case fromRun:
			t = run[0].ExpectedEnd
		default:
			t = started[0].at
		}
		ends := true
		if ah.on {
			// A node coming back or a window no longer in the way may be
			// what makes the head fit, between two ends of jobs.
			if u := ah.next(p.room.windows); u < t {
				t, ends = u, false
			}
		}
		if shadow >= 0 && t > shadow {
			break
		}
		if ah.on {
			p.advance(t, p.room.reach(head.Walltime))
		}
		if !ends {
			if shadow < 0 && head.Request.Fits(p.avail) && p.watch.Fits() && (!p.capped || headW <= availW) {
				shadow = t
			}
			continue
		}
		var held sdk.Vector
		if fromRun {
			r := &run[0]
			held = r.Job.Request
			if nodes {
				// What it holds on nodes out of service then does not
				// come back when it ends.
				a := p.room.inService(*r.Alloc, t)
				whole := len(a.Nodes) == len(r.Alloc.Nodes)
				if ah.on && !whole {
					ah.ended(&p.room, r, t)
				}
				// A job that holds its request gives it back, unless
				// nodes it holds are out of service then.
				if !whole || !p.room.holdsRequest(r.Job) {
					held = p.room.heldBy(r.Job, a)
				}
				p.watch.Release(r.Job.Tasks, a)
				if keepGiven {
					p.given = append(p.given, release{tasks: r.Job.Tasks, alloc: a})
				}
				if p.capped {
					availW += p.room.boundWatts(r.Job.Tasks, *r.Alloc, false)
				}
			}
			run = run[1:]
		} else {
			held = started[0].held
			if nodes {
				p.watch.Release(started[0].tasks, started[0].alloc)
				if keepGiven {
					p.given = append(p.given, started[0])
				}
				if p.capped {
					availW += p.room.boundWatts(started[0].tasks, started[0].alloc, false)
				}
			}
			started = started[1:]
		}
		p.avail.Add(held)
		if shadow < 0 && head.Request.Fits(p.avail) && (!nodes || p.watch.Fits()) && (!p.capped || headW <= availW) {
			shadow = t
		}
	}
	if p.capped && p.room.inUse != nil {
		// Under a busy power table the head's cores may add far more
		// than their least: the power held for it at the shadow time is
		// the most they can add, whatever the nodes then have in use.
		headW = p.mostWatts(head)
	}
	p.extraW = availW - headW
	// The engine admits only jobs that fit the cluster, so head fits once
	// everything has ended and shadow is set, unless nodes are out of
	// service (then there is no reservation to leave room for).
	if shadow < 0 {
		return shadow
	}
	p.extra = append(p.extra[:0], p.avail...)
	if !nodes {
		p.extra.Sub(head.Request)
		return shadow
	}
	p.headPart = head.Tasks.Partition
	p.extraNodes = p.watch.FreeInPartition()
	l := p.room.nodes.Layout
	if ah.on {
		for k := range int32(l.Len()) {
			p.fencedAtShadow = p.fencedAtShadow || p.watch.Withheld(k)
		}
	}
	held := l.Demand(head.Tasks)
	if p.batsched || !p.room.holdsRequest(head) {
		p.future.Sync(s.Nodes[0])
		switch {
		case ah.on:
			// The watch has the nodes at the shadow time, nodes back
			// in service counted; those a window withholds from the
			// head are free to others, once the head is placed.
			for k := range int32(l.Len()) {
				if f := p.watch.Free(k); p.watch.Withheld(k) {
					p.future.SetFree(k, sdk.Amount{})
				} else if f != p.future.Free[k] {
					p.future.SetFree(k, f)
				}
			}
		default:
			for _, r := range p.now {
				p.future.Take(r.tasks, r.alloc)
			}
			for _, r := range p.given {
				p.future.Release(r.tasks, r.alloc)
			}
		}
		p.future.Place(head.Tasks, p.room.rule, &p.reservation)
		if ah.on {
			for k := range int32(l.Len()) {
				if p.watch.Withheld(k) {
					p.future.SetFree(k, p.watch.Free(k))
				}
			}
		}
		held = sdk.Amount{}
		for k, n := range p.reservation.Nodes {
			h := l.Held(head.Tasks, n, p.reservation.Tasks[k])
			held.Cores, held.Memory, held.GPUs = held.Cores+h.Cores, held.Memory+h.Memory, held.GPUs+h.GPUs
		}
		if p.batsched {
			p.future.Take(head.Tasks, p.reservation)
		}
	}
	p.extraNodes = sdk.Amount{Cores: p.extraNodes.Cores - held.Cores, Memory: p.extraNodes.Memory - held.Memory, GPUs: p.extraNodes.GPUs - held.GPUs}
	p.room.subOthers(p.extra, head.Request)
	return shadow
}

// shadowOnCursor is shadow on nodes where nothing is known in advance of
// the nodes' future and the head holds its request on any nodes: the
// shadow time from the cursor, the extra capacity from the totals and
// the watch there.
func (p *easy) shadowOnCursor(s *sdk.State, head *sdk.Job) int64 {
	p.fencedAtShadow, p.capped, p.extraW, p.ahead.on = false, false, 0, false
	p.cursored++
	shadow := p.shadowByCursor(s, head)
	if shadow < 0 {
		return shadow
	}
	p.extra = append(p.extra[:0], p.avail...)
	p.headPart = head.Tasks.Partition
	held := p.room.nodes.Layout.Demand(head.Tasks)
	p.extraNodes = sdk.Amount{Cores: p.extraNodes.Cores - held.Cores, Memory: p.extraNodes.Memory - held.Memory, GPUs: p.extraNodes.GPUs - held.GPUs}
	p.room.subOthers(p.extra, head.Request)
	return shadow
}

// aheadOf prepares p.ahead for the shadow of head and reports whether
// there is anything to know in advance: maintenance windows ahead (which
// the room plans around unless the windows parameter ignores them) or
// nodes out of service until a known time. Without either, the shadow
// computation is the one of a machine without outages.
func (p *easy) aheadOf(s *sdk.State, head *sdk.Job) bool {
	r, o := &p.room, &p.ahead
	o.backs, o.leaves = o.backs[:0], o.leaves[:0]
	o.nextIn, o.nextUp, o.nextBack = 0, 0, 0
	for k, d := range r.down {
		if d && r.until[k] != math.MaxInt64 {
			o.backs = append(o.backs, nodeBack{r.until[k], int32(k)})
		}
	}
	if len(o.backs) == 0 && len(r.windows) == 0 {
		return false
	}
	slices.SortFunc(o.backs, func(a, b nodeBack) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.k, b.k)
	})
	if len(o.backs) > 0 {
		l := r.nodes.Layout
		o.pend = slices.Grow(o.pend[:0], l.Len())[:l.Len()]
		clear(o.pend)
		for _, run := range s.Running {
			for x, k := range run.Alloc.Nodes {
				if r.down[k] {
					h := l.Held(run.Job.Tasks, k, run.Alloc.Tasks[x])
					o.pend[k] = sdk.Amount{Cores: o.pend[k].Cores + h.Cores, Memory: o.pend[k].Memory + h.Memory, GPUs: o.pend[k].GPUs + h.GPUs}
				}
			}
		}
	}
	for i := range r.windows {
		o.leaves = append(o.leaves, i)
	}
	slices.SortStableFunc(o.leaves, func(a, b int) int { return cmp.Compare(r.windows[a].End, r.windows[b].End) })
	o.v = slices.Grow(o.v[:0], len(p.avail))[:len(p.avail)]
	return true
}

// more reports whether a node is still to come back or a window still to
// stop reaching the head's run.
func (o *outlook) more() bool { return o.nextBack < len(o.backs) || o.nextUp < len(o.leaves) }

// next returns the time of the next node back or window end
// (math.MaxInt64 for none): the times, besides the ends of jobs, at which
// the head may come to fit.
func (o *outlook) next(windows []sdk.Outage) int64 {
	t := int64(math.MaxInt64)
	if o.nextBack < len(o.backs) {
		t = o.backs[o.nextBack].at
	}
	if o.nextUp < len(o.leaves) {
		t = min(t, windows[o.leaves[o.nextUp]].End)
	}
	return t
}

// ended notes that running job run, which holds some nodes out of service
// at t, ends at t: what it holds on those that come back later is then
// free when they do.
func (o *outlook) ended(r *room, run *sdk.Running, t int64) {
	if len(o.backs) == 0 {
		return
	}
	l := r.nodes.Layout
	for x, k := range run.Alloc.Nodes {
		if r.down[k] && r.until[k] > t && r.until[k] != math.MaxInt64 {
			h := l.Held(run.Job.Tasks, k, run.Alloc.Tasks[x])
			o.pend[k] = sdk.Amount{Cores: o.pend[k].Cores - h.Cores, Memory: o.pend[k].Memory - h.Memory, GPUs: o.pend[k].GPUs - h.GPUs}
		}
	}
}

// advance brings the watch to time t for a head of walltime w: the
// windows that reach a run of the head starting at t (Start < t + w)
// withhold their nodes, those over by t (End <= t) give them back, and
// the nodes back in service by t have what the jobs still running there
// leave free.
func (p *easy) advance(t, w int64) {
	r, o := &p.room, &p.ahead
	n := int32(r.nodes.Layout.Len())
	for ; o.nextIn < len(r.windows) && r.windows[o.nextIn].Start < t+w; o.nextIn++ {
		for k := range r.windows[o.nextIn].All(n) {
			p.watch.Withhold(k)
		}
	}
	// A window ends after it begins to reach the head (End > Start >
	// Start - w), so every window leaving here has entered.
	for ; o.nextUp < len(o.leaves) && r.windows[o.leaves[o.nextUp]].End <= t; o.nextUp++ {
		for k := range r.windows[o.leaves[o.nextUp]].All(n) {
			p.watch.Restore(k)
		}
	}
	for ; o.nextBack < len(o.backs) && o.backs[o.nextBack].at <= t; o.nextBack++ {
		k := o.backs[o.nextBack].k
		f := r.nodes.Layout.Cap(int(k))
		f = sdk.Amount{Cores: f.Cores - o.pend[k].Cores, Memory: f.Memory - o.pend[k].Memory, GPUs: f.GPUs - o.pend[k].GPUs}
		p.watch.SetFree(k, f)
		clear(o.v)
		r.setHeld(o.v, f)
		p.avail.Add(o.v)
	}
}
