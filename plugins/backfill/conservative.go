package backfill

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// Conservative is the plugin of conservative backfilling (Mu'alem and
// Feitelson 2001). Every waiting job holds a reservation, made in queue order
// at the earliest time it fits without moving any earlier reservation; a job
// starts when its reservation comes. When a job ends before its walltime, the
// reservations are compressed: each, in queue order, moves to the earliest
// time it now fits, which is never later than before. So no reservation is
// ever delayed, whatever the estimates.
//
// On a platform of nodes the reservations count (ReservationCount): they
// hold the job's request in the cluster's totals, and the job starts on the
// nodes the placement rule gives it when its reservation comes. On nodes
// all alike held whole (exclusive jobs of one size of node) a count that
// fits always places, and the schedule is that of a pool of nodes. Where
// it may not (shared nodes, memory, nodes of several sizes), a job whose
// reservation comes but that the rule cannot place is reserved again, at
// the earliest time it fits from the next expected end on: its promise is
// broken, and counted.
func Conservative() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "conservative",
			Version:     "1.2.1",
			Description: "conservative backfilling: every waiting job holds a reservation that is never delayed (on nodes, counted or held on nodes)",
			Params: []sdk.Param{orderParam(), {Name: "compress", Type: sdk.String, Default: CompressEarlyEnds,
				Doc:     "when reservations are compressed: early-ends (a job ended before its walltime; Mu'alem & Feitelson) or every-end (every termination, as pyss does)",
				Choices: []string{CompressEarlyEnds, CompressEveryEnd}},
				{Name: "reservation", Type: sdk.String, Default: ReservationCount,
					Doc:     "on nodes, what a reservation holds: count (the job's request in the cluster's totals; the job is placed when it starts) or nodes (its placement, nodes and tasks on each, for its whole interval; the job starts on them, and no promise breaks)",
					Choices: []string{ReservationCount, ReservationNodes}}},
		},
		New: func() sdk.Policy { return &conservative{} },
	}
}

// The values of conservative's compress parameter: when a compression pass
// runs. One pass in queue order does not reach a fixed point (a job may
// move after an earlier one was placed, leaving room the earlier one could
// have taken), so compressing also at on-time ends can move reservations
// earlier than compressing at early ends only.
const (
	// CompressEarlyEnds compresses when a job ended before its walltime,
	// the only time the profile gains capacity (Mu'alem & Feitelson 2001).
	CompressEarlyEnds = "early-ends"
	// CompressEveryEnd compresses at every termination, on-time ends and
	// kills included, as pyss does.
	CompressEveryEnd = "every-end"
)

// How it stays fast on long backlogs (RICC-2010-2 keeps thousands of jobs
// waiting for months), while giving exactly the schedule of the direct
// implementation that rebuilds everything at every call
// (conservative_ref_test.go checks this).
//
// The availability profile is kept across calls rather than rebuilt from the
// state: it holds the running jobs until their walltime and every waiting
// job's reservation. Between two calls it changes only when a job ends before
// its walltime (its capacity comes back from now until that walltime); a job
// that starts simply turns its reservation into the running job it describes.
//
// A compression pass must consider every reserved job in queue order, but
// most cannot move, and that is cheap to prove. A job reserved at r (later
// than now) for w seconds can move earlier exactly when it fits in a window
// that starts before r. Such a window either reaches r, and then it fits
// when the request is free from its start to r (past r it lies within the
// job's own reservation): a backward scan from r-1, usually of one step
// (Profile.FreeSince). Or it ends by r-1, before the reservation, where
// lifting the reservation changes nothing: it must fit in the profile as is.
// For those, jobs with the same request and walltime (a class; array jobs
// make long backlogs of few classes) share a lower bound on the earliest
// time they fit. Reservations only lower the profile, which cannot make a
// window appear, and an increase of the profile from time u on can only
// open windows that start after u-w; so the bound survives everything but
// increases, which are logged with their start times, and the profile is
// scanned only from the bound to r-1-w. A job of the same class and
// reservation as one just found unable to move, with no move since, is
// skipped outright: lifting either reservation leaves the same profile. A
// job that moves slides its reservation with Profile.Move, which touches
// only the steps where the old and new reservations differ.

// conservative is the state of one run. Job indexes are dense, so per-job
// state lives in slices indexed by sdk.Job.Index.
type conservative struct {
	orderer
	// pools are the profiles reservations are counted in, with the log of
	// each one's increases: one of the whole cluster, or, on a platform
	// of nodes whose partitions are disjoint, one per partition, of its
	// nodes (poolOf maps sdk.Tasks.Partition to it), so that a job of one
	// partition is never reserved against another's nodes.
	pools  []pool
	poolOf []int
	// ready reports that profile has been built from a state.
	ready bool
	// arrived marks the jobs seen so far.
	arrived arrivals
	// queue holds the waiting jobs in queue order, and possibly jobs already
	// started (resv == started), which are dropped lazily.
	queue []*sdk.Job
	dead  int // started jobs still in queue
	// resv is each job's reservation by job index: noReservation before the
	// job is placed, started once it is.
	resv []int64
	// class is each job's class (request and walltime) by job index.
	class []int32
	// classes holds, per class, a lower bound on the earliest time its jobs
	// fit in the profile.
	classes  []classBound
	classIDs map[string]int32
	key      []byte
	due      resvHeap
	fresh    []*sdk.Job // jobs submitted since the previous call
	jobs     []*sdk.Job // every job seen, by index
	check    sdk.Vector
	out      []sdk.Decision
	// everyEnd compresses at every termination (CompressEveryEnd).
	everyEnd bool
	// On a platform of nodes: what the nodes have free, the placement
	// rule, a placement, the cluster's capacity, and the expected ends of
	// the jobs started in this call; nodes is nil on a pool.
	nodes *sdk.Sandbox
	// byNodes is the state of ReservationNodes, nil under the count.
	byNodes  *nodeCons
	rule     sdk.Placement
	alloc    sdk.Alloc
	capacity sdk.Vector
	ends     []int64
	delayed  []int32
}

const (
	noReservation = -1
	started       = -2
)

// pool is a profile of reservations and the log of its increases.
type pool struct {
	profile plan.Profile
	incr    increases
	// capacity is the pool's (on a platform of nodes), free what the
	// engine will leave free of it once this call's starts are made.
	capacity, free sdk.Vector
}

// classBound is a lower bound on the earliest time at which the request and
// walltime of a class fit in the profile, valid when the increase log was at
// seq.
type classBound struct {
	lb  int64
	seq int64
}

func (p *conservative) Init(env sdk.Env) error {
	if env.Outages && env.Params.String("reservation") != ReservationNodes {
		return errConservativeOutages
	}
	if env.Power != nil && len(env.Power.Caps) > 0 {
		// Its reservations count resources only: a start on time could
		// take the draw over the cap, which the engine refuses.
		return errors.New("conservative does not keep its reservations under a power cap (use easy or fcfs)")
	}
	p.orderer = newOrderer(env)
	p.everyEnd = env.Params.String("compress") == CompressEveryEnd
	p.classIDs = make(map[string]int32)
	p.pools = make([]pool, 1)
	p.byNodes = nil
	if env.Params.String("reservation") == ReservationNodes {
		if !env.Platform.HasNodes() {
			return errors.New("conservative: reservation = nodes needs a platform of nodes")
		}
		if err := supported("conservative", env.Platform); err != nil {
			return err
		}
		p.byNodes = newNodeCons(env.Platform)
		return nil
	}
	if env.Platform.HasNodes() {
		p.nodes = new(sdk.Sandbox)
		p.rule = env.Platform.Clusters[0].PlacementRule()
		p.capacity = env.Platform.Clusters[0].Capacity.Clone()
		p.partitionPools(env.Platform)
	}
	return supported("conservative", env.Platform)
}

// partitionPools makes one pool a partition when the platform's partitions
// are disjoint, cover every node and its nodes hold all its resources;
// else it leaves one pool of the whole cluster.
func (p *conservative) partitionPools(plat *sdk.Platform) {
	l := sdk.NewLayout(plat, 0)
	parts := len(plat.Clusters[0].Partitions)
	p.poolOf = make([]int, l.Partitions())
	p.pools[0].capacity = p.capacity.Clone()
	if parts < 2 {
		return
	}
	mem, gpu := plat.Resource(sdk.Memory), plat.Resource(sdk.GPUs)
	for k := 1; k < plat.Dims(); k++ {
		if k != mem && k != gpu {
			return // a pooled resource, which partitions share
		}
	}
	owner := make([]int, l.Len())
	for i := range owner {
		owner[i] = -1
	}
	for part := 1; part <= parts; part++ {
		for _, k := range l.PartitionNodes(int32(part)) {
			if owner[k] >= 0 {
				return // partitions overlap
			}
			owner[k] = part
		}
	}
	if slices.Contains(owner, -1) {
		return
	}
	p.pools = make([]pool, parts)
	for part := 1; part <= parts; part++ {
		c := make(sdk.Vector, plat.Dims())
		for _, k := range l.PartitionNodes(int32(part)) {
			a := l.Cap(int(k))
			c[0] += a.Cores
			if mem >= 0 {
				c[mem] += a.Memory
			}
			if gpu >= 0 {
				c[gpu] += a.GPUs
			}
		}
		p.pools[part-1].capacity = c
		p.poolOf[part] = part - 1
	}
	// The default partition (Tasks.Partition 0) is one of them.
	def := l.PartitionNodes(0)[0]
	p.poolOf[0] = owner[def] - 1
}

// poolIndex returns the index of the pool of j's reservations.
func (p *conservative) poolIndex(j *sdk.Job) int {
	if p.poolOf == nil {
		return 0
	}
	return p.poolOf[j.Tasks.Partition]
}

// pool returns the pool of j's reservations.
func (p *conservative) pool(j *sdk.Job) *pool { return &p.pools[p.poolIndex(j)] }

// Counts returns, under reservation = nodes on a run with outages, the
// reservations planned again because an outage took their nodes
// (replanned); nil otherwise, so that other runs' records are unchanged.
func (p *conservative) Counts() map[string]int64 {
	if p.byNodes == nil {
		return nil
	}
	return p.byNodes.counts()
}

// errConservativeOutages is the error of conservative in a run with
// outages of nodes: its profiles count a constant capacity, which outages
// take away for spans it cannot plan by (a failed node's repair is not
// known).
var errConservativeOutages = errors.New("conservative counting reservations in totals does not plan around outages of nodes (failures, drains, maintenance): use reservation = nodes, or easy, fcfs or multifactor")

func (p *conservative) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if p.byNodes != nil {
		compress := false
		for i := range s.Completed {
			c := &s.Completed[i]
			compress = compress || p.everyEnd || c.End < c.Start+c.Job.Walltime
		}
		out, err := p.byNodes.schedule(s, p.orderer.sorted(s), compress)
		p.orderer.drop(out)
		return out, err
	}
	p.out = p.out[:0]
	now := s.Now
	p.orderer.now = now
	// A pass is due when a job ended before its walltime, whether or not
	// the capacity it gave back lies in the future: jobs may also move into
	// room left by jobs behind them in the previous pass.
	compress := false
	if !p.ready {
		p.reset(s)
		p.ready = true
	} else {
		for i := range p.pools {
			p.pools[i].profile.Advance(now)
		}
		for i := range s.Completed {
			c := &s.Completed[i]
			if end := c.Start + c.Job.Walltime; c.End < end {
				compress = true
				if end > now {
					pl := p.pool(c.Job)
					pl.profile.Unreserve(now, end-now, c.Job.Request)
					pl.incr.add(now)
				}
			}
		}
	}
	if p.everyEnd && len(s.Completed) > 0 {
		compress = true
	}
	for i := range p.pools {
		p.pools[i].incr.forget(now)
	}
	if err := p.takeNew(s); err != nil {
		return nil, err
	}
	if compress {
		if err := p.compress(now); err != nil {
			return nil, err
		}
	}
	for _, j := range p.fresh {
		c := p.bound(j, now)
		pl := p.pool(j)
		t := pl.profile.EarliestFitFrom(c.lb, j.Request, j.Walltime)
		if t < 0 {
			return nil, fmt.Errorf("conservative: job id %d does not fit the cluster", j.ID)
		}
		if err := pl.profile.Reserve(t, j.Walltime, j.Request); err != nil {
			return nil, fmt.Errorf("conservative: job id %d: %w", j.ID, err)
		}
		// t is the earliest fit before the reservation, and reserving
		// lowers the profile, so t stays a lower bound for the class.
		c.lb = t
		p.setReservation(j, t)
		p.out = append(p.out, sdk.Promise(j, t))
	}
	if err := p.startDue(s); err != nil {
		return nil, err
	}
	return p.out, nil
}

// reset makes the pools' profiles of the state: on a pool of processors
// the cluster's free capacity with every running job's request given back
// at its expected end; on nodes each pool's capacity, less what its running
// jobs request until their expected ends.
func (p *conservative) reset(s *sdk.State) {
	if p.nodes == nil {
		p.pools[0].profile.ResetFromState(s, 0)
		return
	}
	for i := range p.pools {
		p.pools[i].profile.Reset(s.Now, p.pools[i].capacity)
	}
	for i := range s.Running {
		r := &s.Running[i]
		pl := p.pool(r.Job)
		if err := pl.profile.Reserve(s.Now, max(1, r.ExpectedEnd-s.Now), r.Job.Request); err != nil {
			// The engine admitted these jobs, so they fit: a bookkeeping
			// error, which startDue's check reports.
			continue
		}
	}
}

// takeNew records the jobs submitted since the previous call in p.fresh, in
// queue order, and inserts them into p.queue. They are at the end of the
// engine's queue, which is in submit order.
func (p *conservative) takeNew(s *sdk.State) error {
	p.fresh = p.fresh[:0]
	p.fresh = append(p.fresh, p.arrived.take(s.Queue)...)
	if len(p.fresh) == 0 {
		return nil
	}
	for len(p.resv) < len(p.arrived.seen) {
		p.resv = append(p.resv, noReservation)
		p.class = append(p.class, 0)
		p.jobs = append(p.jobs, nil)
	}
	for _, j := range p.fresh {
		p.jobs[j.Index] = j
		if p.resv[j.Index] != noReservation {
			return fmt.Errorf("conservative: job id %d is new to the queue but already placed", j.ID)
		}
		p.class[j.Index] = p.classOf(j)
	}
	if p.order == OrderSubmit {
		p.queue = append(p.queue, p.fresh...)
		return nil
	}
	if p.scoring.timed {
		// Reserved in their order now; compress ranks the whole queue
		// again at its own time.
		p.rank(p.fresh)
		p.queue = append(p.queue, p.fresh...)
		return nil
	}
	slices.SortFunc(p.fresh, p.compare)
	for _, j := range p.fresh {
		i, _ := slices.BinarySearchFunc(p.queue, j, p.compare)
		p.queue = slices.Insert(p.queue, i, j)
	}
	return nil
}

// classOf returns the class of j's request and walltime, making one if it
// is new.
func (p *conservative) classOf(j *sdk.Job) int32 {
	p.key = binary.AppendVarint(p.key[:0], j.Walltime)
	for _, x := range j.Request {
		p.key = binary.AppendVarint(p.key, x)
	}
	if len(p.pools) > 1 {
		p.key = binary.AppendVarint(p.key, int64(p.poolIndex(j)))
	}
	if id, ok := p.classIDs[string(p.key)]; ok {
		return id
	}
	id := int32(len(p.classes))
	p.classIDs[string(p.key)] = id
	p.classes = append(p.classes, classBound{lb: math.MinInt64, seq: p.pool(j).incr.seq})
	return id
}

// bound returns j's class bound, brought up to date with the increases
// logged since it was last valid.
func (p *conservative) bound(j *sdk.Job, now int64) *classBound {
	c := &p.classes[p.class[j.Index]]
	incr := &p.pool(j).incr
	if u, ok := incr.minSince(c.seq); ok {
		// A window that now fits and did not must overlap an increase,
		// so it ends after u and starts after u-w.
		c.lb = min(c.lb, subSat(u, j.Walltime)+1)
	}
	c.seq = incr.seq
	c.lb = max(c.lb, now)
	return c
}

// compress moves every reserved job, in queue order, to the earliest time it
// now fits, dropping started jobs from the queue on the way.
//
// Under a timed order (wfp3, unicep) the queue order is that of the
// scores now: the jobs are ranked again first. The order only says which
// reservation moves first; a job whose priority rose never takes an
// earlier reservation's place, since no reservation is ever delayed.
func (p *conservative) compress(now int64) error {
	if p.scoring.timed {
		p.queue = slices.DeleteFunc(p.queue, func(j *sdk.Job) bool { return p.resv[j.Index] == started })
		p.dead = 0
		p.rank(p.queue)
	}
	kept := p.queue[:0]
	// same is the class and reservation of the last job found unable to
	// move, while no job has moved since. A job of the same class reserved
	// at the same time cannot move either: lifting its reservation or the
	// other's leaves the same profile. Array jobs make such runs common.
	same := struct {
		class int32
		r     int64
	}{-1, 0}
	for _, j := range p.queue {
		r := p.resv[j.Index]
		if r == started {
			continue
		}
		kept = append(kept, j)
		if r == noReservation || r == now {
			continue
		}
		if r < now {
			return fmt.Errorf("conservative: job id %d missed its reservation at %d", j.ID, r)
		}
		c := p.class[j.Index]
		if c == same.class && r == same.r {
			continue
		}
		moved, err := p.improve(j, r, now)
		if err != nil {
			return err
		}
		same.class, same.r = c, r
		if moved {
			same.class = -1
		}
	}
	clear(p.queue[len(kept):])
	p.queue = kept
	p.dead = 0
	return nil
}

// improve moves j, reserved at r > now, to the earliest time it fits once
// its own reservation is lifted, if that is earlier than r, and reports
// whether it did.
func (p *conservative) improve(j *sdk.Job, r, now int64) (bool, error) {
	w, a := j.Walltime, j.Request
	pl := p.pool(j)
	// A window that starts in [r-w, r) lies, past r, within j's own
	// reservation, so it fits exactly when a is free from its start to r.
	t := pl.profile.FreeSince(r, subSat(r, w), a)
	// An earlier window ends by r-1, before the reservation, where lifting
	// it changes nothing: it fits as it would in the profile as is.
	// Only a start before t is worth looking for.
	c := p.bound(j, now)
	if last := min(subSat(r-1, w), t-1); c.lb <= last {
		if e := pl.profile.EarliestFitWithin(c.lb, last, a, w); e >= 0 {
			c.lb, t = e, e
		} else {
			c.lb = last + 1
		}
	}
	if t == r {
		return false, nil
	}
	if err := pl.profile.Move(r, t, w, a); err != nil {
		return false, fmt.Errorf("conservative: job id %d: move from %d to %d: %w", j.ID, r, t, err)
	}
	p.setReservation(j, t)
	// The part of the old reservation the new one does not cover is free
	// again.
	pl.incr.add(max(r, addSat(t, w)))
	return true, nil
}

func (p *conservative) setReservation(j *sdk.Job, t int64) {
	p.resv[j.Index] = t
	p.due.push(t, int32(j.Index))
}

// startDue starts the jobs whose reservation is now, asks for a wake-up at
// the next reservation, and checks that the profile agrees with the engine.
func (p *conservative) startDue(s *sdk.State) error {
	now := s.Now
	if p.nodes == nil {
		p.pools[0].free = append(p.pools[0].free[:0], s.Free[0]...)
	} else {
		// The profiles count requests, which an exclusive job may hold
		// more than on nodes of several sizes: the free amounts they must
		// agree with are counted the same way, pool by pool.
		for i := range p.pools {
			p.pools[i].free = append(p.pools[i].free[:0], p.pools[i].capacity...)
		}
		for i := range s.Running {
			p.pool(s.Running[i].Job).free.Sub(s.Running[i].Job.Request)
		}
		p.nodes.Sync(s.Nodes[0])
		p.ends, p.delayed = p.ends[:0], p.delayed[:0]
	}
	for p.due.len() > 0 {
		r, idx := p.due.top()
		if p.resv[idx] != r {
			p.due.pop() // moved or started since
			continue
		}
		if r > now {
			break
		}
		p.due.pop()
		job := p.jobs[idx]
		if r < now {
			return fmt.Errorf("conservative: job id %d missed its reservation at %d", job.ID, r)
		}
		if p.nodes != nil {
			if !p.nodes.Place(job.Tasks, p.rule, &p.alloc) {
				// Reserved again below; until then no reservation, so
				// that another entry of the job at now is stale.
				p.resv[idx] = noReservation
				p.delayed = append(p.delayed, idx)
				continue
			}
			p.nodes.Take(job.Tasks, p.alloc)
			p.ends = append(p.ends, addSat(now, job.Walltime))
		}
		p.resv[idx] = started
		p.dead++
		p.pool(job).free.Sub(job.Request)
		p.out = append(p.out, sdk.Start(job))
	}
	if err := p.reserveAgain(s); err != nil {
		return err
	}
	for p.due.len() > 0 {
		r, idx := p.due.top()
		if p.resv[idx] != r {
			p.due.pop() // moved or started since
			continue
		}
		// A reservation normally falls on a job's end, which is an event
		// anyway; the wake-up makes sure the policy is called then in
		// every case.
		p.out = append(p.out, sdk.WakeAt(r))
		break
	}
	if p.dead > len(p.queue)/2 {
		kept := p.queue[:0]
		for _, j := range p.queue {
			if p.resv[j.Index] != started {
				kept = append(kept, j)
			}
		}
		clear(p.queue[len(kept):])
		p.queue = kept
		p.dead = 0
	}
	p.due.compact(p.resv, len(p.queue)-p.dead)
	// What the profile leaves free now must be what the engine will leave
	// free once these jobs start; anything else is a bookkeeping error that
	// would silently change the schedule.
	for i := range p.pools {
		pl := &p.pools[i]
		if p.check = pl.profile.FreeAt(now, p.check); !slices.Equal(p.check, pl.free) {
			return fmt.Errorf("conservative: t=%d: the profile of pool %d has %v free now, the engine will have %v", now, i, p.check, pl.free)
		}
	}
	return nil
}

// reserveAgain moves the reservation of each job whose reservation came
// but that the nodes could not hold (p.delayed) to the earliest time its
// request fits from the next expected end on (of a running job, or of one
// started now), when the nodes it waits for may be free.
func (p *conservative) reserveAgain(s *sdk.State) error {
	now := s.Now
	for _, idx := range p.delayed {
		j := p.jobs[idx]
		next := int64(math.MaxInt64)
		for i := range s.Running {
			if e := s.Running[i].ExpectedEnd; e > now {
				next = min(next, e)
			}
		}
		for _, e := range p.ends {
			next = min(next, e)
		}
		if next == math.MaxInt64 {
			return fmt.Errorf("conservative: t=%d: job id %d does not fit the free nodes, and no job runs", now, j.ID)
		}
		pl := p.pool(j)
		pl.profile.Unreserve(now, j.Walltime, j.Request)
		pl.incr.add(now)
		t := pl.profile.EarliestFitFrom(next, j.Request, j.Walltime)
		if t < 0 {
			return fmt.Errorf("conservative: job id %d does not fit the cluster", j.ID)
		}
		if err := pl.profile.Reserve(t, j.Walltime, j.Request); err != nil {
			return fmt.Errorf("conservative: job id %d: %w", j.ID, err)
		}
		p.setReservation(j, t)
	}
	return nil
}

// Walltimes may be huge (a job with no limit), so sums and differences with
// them saturate rather than wrap around.
func subSat(a, b int64) int64 {
	if b > 0 && a < math.MinInt64+b {
		return math.MinInt64
	}
	return a - b
}

func addSat(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
