// Package sim is schedlab's discrete-event simulation engine. It owns all
// state of a run, calls the policy at scheduling points and checks every
// decision it returns.
//
// Event order. Time advances to the earliest pending event. At one instant the
// engine first ends the outages of nodes due (Config.Outages), then ends
// every job whose end time has come (ties by job index), then begins the
// outages due (each ending the jobs on its nodes, by the run's Faults),
// then queues every job submitted at that instant (in index order, which is
// submit order with ties broken by trace ID; a job that depends on another,
// Input.After, is submitted its think time after that job's end, and joins
// the jobs of the trace submitted at that instant in index order), then drops
// the wake-ups due, and finally calls the policy once, if at least one job
// waits. Jobs started by
// that call begin at the same instant. A job ends at
// start + min(runtime, requested walltime); a job whose runtime exceeds its
// requested walltime is killed then.
//
// The same engine runs in-process (Run) and inside a plugin process (package
// sdk/serve), so both give identical records.
package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/internal/stream"
)

// Input is one job of a workload as the engine needs it: what the policy may
// see, and the actual runtime it may not.
type Input struct {
	Job sdk.Job
	// Runtime is the job's actual runtime in seconds (at least 1). The job
	// runs min(Runtime, Job.Walltime) seconds.
	Runtime int64
	// After, when not 0, makes the job depend on another, as a user who
	// waits for a result before submitting more: After is 1 + the index of
	// that job, which comes before this one (After <= Index), and this job
	// is submitted Think seconds after that job ends (or is rejected), not at
	// Job.Submit, which stays the trace's submit time. Job.Submit, as the
	// policy sees it, is the simulated submission.
	After int32
	// Think is the think time of a job with After, in seconds, 0 to
	// MaxTime.
	Think int64
}

// Config is one simulation run.
type Config struct {
	Platform *sdk.Platform
	// Jobs is the workload, sorted by (Submit, ID); see Sort. Job.Index must
	// equal the position in the slice.
	Jobs []Input
	// Params are the policy's parameter values, checked against its Info.
	Params map[string]string
	// Seed seeds the policy's random stream.
	Seed uint64
	// ExactEstimates shows the policy each job's actual duration,
	// min(Runtime, Walltime), in place of the requested walltime.
	ExactEstimates bool
	// Outages are the outages of nodes of the run, sorted by
	// sdk.CompareOutages (sdk.SortOutages), and Faults the rules for the
	// jobs they reach. Outages need a platform of nodes.
	Outages []sdk.Outage
	Faults  Faults
	// Power is the power model of the nodes, nil for none: with one, the
	// engine keeps each node's power mode, takes the policy's PowerOn
	// and PowerOff decisions, enforces the cap and integrates the energy
	// drawn (Result.Power), and calls the policy at every instant at
	// which something happened, even with no job waiting, so that it can
	// switch idle nodes off.
	Power *sdk.Power
	// IO is the run's model of jobs that move data through the burst
	// buffer, nil for none: with one, a job's runtime is its compute
	// time, and its data phases, whose transfers share bandwidth, make
	// its duration (sdk.IO).
	IO *sdk.IO
	// Dependencies says that some jobs may depend on others (Input.After).
	// A streamed workload (a plugin's) must say so, because the engine then
	// loads every job before it starts: a job's think time must be known
	// when the job it depends on ends, however far in the workload it is.
	// In process, where every job is given, the engine finds out by itself.
	Dependencies bool
}

// Record is the outcome of one job.
type Record struct {
	// Index is the job's index in Config.Jobs.
	Index   int32
	Cluster int32
	Start   int64
	End     int64
	// Promised is the first start time promised by the policy, valid when
	// HasPromise is set.
	Promised   int64
	HasPromise bool
	// Killed reports that the job reached its requested walltime before its
	// runtime.
	Killed bool
	// Backfilled reports that the job started while a job submitted before it
	// was still waiting.
	Backfilled bool
	// ShipTime is when the job was shipped to its cluster (sdk.Ship), valid
	// when Shipped.
	ShipTime int64
	Shipped  bool
	// ReservedAt and ReservedCluster are the job's last advance reservation
	// (sdk.Reserve), valid when Reserved; Refusals counts the reservations
	// the engine refused. Broken says whether the job missed its
	// reservation.
	ReservedAt      int64
	ReservedCluster int32
	Reserved        bool
	Refusals        int32
	// Cost is what the policy charged for the job's allocation
	// (sdk.Charge), valid when Charged.
	Cost    float64
	Charged bool
	// Rejected reports that the policy took the job out of the queue
	// unstarted (sdk.Reject): it never ran, Start and End are the time of
	// the rejection and Cluster is -1.
	Rejected bool
	// Attempts counts the job's runs that an outage ended (Result.Attempts
	// lists them). Interrupted, when not 0, is the kind of outage that
	// ended its last run, Start to End, for good (FailKill); otherwise the
	// job ran to its end from Start.
	Attempts    int32
	Interrupted sdk.OutageKind
}

// Broken reports whether the job had a reservation and did not start at
// its time on its cluster.
func (r *Record) Broken() bool {
	return r.Reserved && (r.Start != r.ReservedAt || r.Cluster != r.ReservedCluster)
}

// Stats describes how a run went inside the engine.
type Stats struct {
	// Events counts the distinct event times processed.
	Events int64 `json:"events"`
	// PolicyCalls counts Schedule calls.
	PolicyCalls int64 `json:"policy_calls"`
	// Decisions counts the decisions applied.
	Decisions int64 `json:"decisions"`
	// PolicyNanos is the wall time spent inside Schedule, in nanoseconds. The
	// engine runs on one goroutine, so it approximates the policy's CPU time.
	PolicyNanos int64 `json:"policy_nanos"`
	// WallNanos is the wall time of the whole run, in nanoseconds; for a
	// workload streamed to a plugin, waits for jobs included.
	WallNanos int64 `json:"wall_nanos"`
	// PolicyCounts holds the counts of a policy that implements
	// sdk.Counter, by name; nil for any other.
	PolicyCounts map[string]int64 `json:"policy_counts,omitempty"`
	// PolicyDrains counts the nodes the policy drained (sdk.DrainNodes),
	// each drain of a node once; Result.Drains lists them.
	PolicyDrains int64 `json:"policy_drains,omitempty"`
}

// Result is the outcome of a run: one record per job, in index order.
type Result struct {
	Records []Record
	// Units holds each job's placement on its cluster's divided resources
	// (sdk.Units): Platform.UnitStride() counts per job, in index order, the
	// first Cluster.UnitCount() of them used. It is nil when no cluster has
	// divided resources.
	Units []int32
	// Allocs holds each job's allocation on a cluster of nodes; nil when
	// no cluster has nodes.
	Allocs *Allocs
	// Attempts lists the runs of jobs that outages ended, in the order
	// they ended (ties by job index), and AttemptAllocs their allocations,
	// one per attempt; both nil on a run without outages.
	Attempts      []Attempt
	AttemptAllocs *Allocs
	// Power holds the power events and energy of a run with a power
	// model; nil otherwise.
	Power *PowerResult
	// Drains lists the nodes the policy drained (sdk.DrainNodes), in the
	// order it drained them; nil when it drained none.
	Drains []PolicyDrain
	// Notes are the policy's values per job (sdk.Noter), checked against
	// the records; nil for a policy that keeps none.
	Notes *sdk.Notes
	Stats Stats
}

// Sort orders jobs by (Submit, ID), keeping the order of equal pairs, and sets
// each Job.Index to its position. It is the order Run requires.
func Sort(jobs []Input) {
	slices.SortStableFunc(jobs, func(a, b Input) int {
		if c := cmp.Compare(a.Job.Submit, b.Job.Submit); c != 0 {
			return c
		}
		return cmp.Compare(a.Job.ID, b.Job.ID)
	})
	for i := range jobs {
		jobs[i].Job.Index = i
	}
}

// maxIdleCalls bounds the policy calls in a row that change nothing (no job
// started, ended or arrived), so that a policy waking itself forever fails
// instead of hanging.
const maxIdleCalls = 1_000_000

// MaxTime bounds the times of a workload, in seconds (about 1,089 years):
// the engine refuses a job whose submit time is outside [-MaxTime,
// MaxTime], or whose requested walltime or runtime exceeds MaxTime. Real
// traces are far inside it, and so no time of a run can overflow: see
// Horizon.
const MaxTime = 1 << 35

// Horizon returns the latest time a run of n jobs may promise a start or
// ask to be woken at: MaxTime x (n+1), the last submission followed by
// every job, one after the other, at the longest runtime, saturated at
// about a quarter of the int64 range. A job can then still start after a
// wake-up at the horizon and run, and jobs after it, but every start is
// before 2 x Horizon and every end before 2 x Horizon + MaxTime, which
// cannot overflow. The engine refuses promises and wake-ups past the
// horizon; the host's verification refuses records that start after
// 2 x Horizon.
func Horizon(n int) int64 {
	const most = math.MaxInt64/4 - MaxTime
	if n < 0 || int64(n) >= most/MaxTime-1 {
		return most
	}
	return MaxTime * (int64(n) + 1)
}

// ctxEvery is how many events pass between two looks at the run's context:
// often enough to stop within a millisecond, rarely enough to cost nothing
// measurable.
const ctxEvery = 1024

const (
	statusPending uint8 = iota
	statusQueued
	statusRunning
	statusDone
)

type endEvent struct {
	at  int64
	idx int32
}

type engine struct {
	cfg     *Config
	horizon int64 // Horizon(n)
	ctx     context.Context
	hooks   stream.Hooks[Input, Record]
	policy  sdk.Policy
	name    string
	dims    int
	n       int // jobs in the workload
	loaded  int // jobs [0, loaded) were checked and copied
	jobs    []sdk.Job
	req     []int64 // private copy of every request, dims per job
	shown   []int64 // the requests policies see (Job.Request), dims per job
	runtime []int64 // min(Runtime, requested walltime)
	killed  []bool
	status  []uint8
	rec     []Record
	stride  int     // placement entries per job (Platform.UnitStride)
	place   []int32 // placements, stride per job
	state   sdk.State
	ends    heap[endEvent]
	wakes   heap[int64]
	started []int32
	// grid holds the advance reservations and shipments; nil until a
	// policy ships or reserves.
	grid *grid
	// nodes holds the state of the clusters of nodes; nil when no cluster
	// has nodes, so that a platform of pooled resources pays nothing.
	nodes   *nodeEngine
	emitted int // records [0, emitted) were given to hooks.Emit
	// deps holds the dependencies between jobs (Input.After); nil when no
	// job depends on another, so that a replay pays nothing.
	deps *deps
	// outs holds the outages of nodes; nil on a run without any.
	outs *outEngine
	// pow holds the power of the nodes; nil on a run without a power
	// model. powered says that a decision of the current call changed a
	// power mode.
	pow     *powEngine
	powered bool
	// io holds the data phases of running jobs; nil on a run without an
	// I/O model.
	io *ioEngine
	// drains holds the nodes the policy drained; nil until it drains one.
	drains *drainEngine
	stats  Stats
	// begin is when Run began. Policy time is measured as offsets from it,
	// with time.Since, which reads the clock once where time.Now reads it
	// twice: two reads per policy call instead of three.
	begin time.Time
}

// Run simulates cfg under the policy made by p.New and returns a record per
// job. It fails on invalid input, on an error from the policy, and on the
// first infeasible decision, with a message naming the time, job and rule.
//
// A panic of the policy fails the run with an error that holds the panic's
// value and stack, and leaves nothing running. Run also ends, with ctx's
// error, once ctx is done; it checks ctx between scheduling events, so a
// policy call that never returns is not interrupted (a plugin host kills
// such a plugin's process instead).
func Run(ctx context.Context, p sdk.Plugin, cfg Config) (res *Result, err error) {
	begin := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sim: %w", context.Cause(ctx))
	}
	var e *engine // nil until New and Init have returned
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, panicError(p.Info.Name, v, e)
		}
	}()
	e, err = newEngine(ctx, p, &cfg)
	if err != nil {
		return nil, err
	}
	e.begin = begin
	if err := e.loop(); err != nil {
		return nil, err
	}
	res = &Result{Records: e.rec, Units: e.place}
	if e.nodes != nil {
		res.Allocs = e.nodes.result(e.rec)
	}
	if e.outs != nil {
		res.Attempts, res.AttemptAllocs = e.outs.result(e.nodes)
	}
	if e.pow != nil {
		res.Power = e.pow.result(e.state.Now)
	}
	res.Drains = e.drains.result()
	e.stats.WallNanos = time.Since(begin).Nanoseconds()
	if c, ok := e.policy.(sdk.Counter); ok {
		e.stats.PolicyCounts = maps.Clone(c.Counts())
	}
	if nt, ok := e.policy.(sdk.Noter); ok {
		if res.Notes = nt.Notes(); res.Notes != nil {
			res.Notes.Pad(len(e.rec))
			if err := CheckNotes(res.Notes, e.rec, func(i int) int64 { return e.jobs[i].Submit }); err != nil {
				return nil, fmt.Errorf("sim: policy %q: %w", p.Info.Name, err)
			}
		}
	}
	res.Stats = e.stats
	return res, nil
}

func newEngine(ctx context.Context, p sdk.Plugin, cfg *Config) (*engine, error) {
	if cfg.Platform == nil {
		return nil, errors.New("sim: no platform")
	}
	if err := cfg.Platform.Validate(); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	if p.New == nil {
		return nil, fmt.Errorf("sim: plugin %q has no constructor", p.Info.Name)
	}
	params, err := sdk.ResolveParams(p.Info.Params, cfg.Params)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", p.Info.Name, err)
	}
	dims := cfg.Platform.Dims()
	n := len(cfg.Jobs)
	var hooks stream.Hooks[Input, Record]
	if h := stream.From[Input, Record](ctx); h != nil {
		hooks = *h
	}
	if hooks.More != nil {
		if hooks.Total < n {
			return nil, fmt.Errorf("sim: a streamed workload of %d jobs, %d of them given", hooks.Total, n)
		}
		n = hooks.Total
	}
	e := &engine{
		cfg:     cfg,
		horizon: Horizon(n),
		ctx:     ctx,
		hooks:   hooks,
		name:    p.Info.Name,
		dims:    dims,
		n:       n,
		jobs:    make([]sdk.Job, n),
		req:     make([]int64, n*dims),
		shown:   make([]int64, n*dims),
		runtime: make([]int64, n),
		killed:  make([]bool, n),
		status:  make([]uint8, n),
		rec:     make([]Record, n),
		ends:    heap[endEvent]{less: func(a, b endEvent) bool { return a.at < b.at || (a.at == b.at && a.idx < b.idx) }},
		wakes:   heap[int64]{less: func(a, b int64) bool { return a < b }},
	}
	if e.stride = cfg.Platform.UnitStride(); e.stride > 0 {
		e.place = make([]int32, n*e.stride)
	}
	e.nodes = newNodeEngine(cfg.Platform, n)
	if e.outs, err = newOutEngine(cfg, n); err != nil {
		return nil, err
	}
	if e.pow, err = newPowEngine(cfg, n); err != nil {
		return nil, err
	}
	if e.io, err = newIOEngine(cfg, n); err != nil {
		return nil, err
	}
	if e.outs != nil || e.pow != nil {
		e.nodes.svc = newService(cfg.Platform)
	}
	if cfg.Dependencies || hooks.More == nil && anyAfter(cfg.Jobs) {
		e.deps = newDeps(n)
	}
	if err := e.loadJobs(cfg.Jobs); err != nil {
		return nil, err
	}
	if e.deps != nil {
		if err := e.loadAll(); err != nil {
			return nil, err
		}
	}
	free := make([]sdk.Vector, len(cfg.Platform.Clusters))
	var units [][]int64
	if e.stride > 0 {
		units = make([][]int64, len(free))
	}
	for i, c := range cfg.Platform.Clusters {
		free[i] = c.Capacity.Clone()
		for _, u := range c.Units {
			units[i] = append(units[i], u.Capacity...)
		}
	}
	e.state = sdk.State{Platform: cfg.Platform, Free: free, FreeUnits: units}
	if e.nodes != nil {
		e.state.Nodes = e.nodes.shownNodes()
	}
	if e.outs != nil {
		e.showOutages(math.MinInt64)
	}
	if e.io != nil {
		e.state.IO = e.io
	}
	e.policy = p.New()
	env := sdk.Env{
		Platform:       cfg.Platform,
		Params:         params,
		Seed:           cfg.Seed,
		Rand:           rand.New(rand.NewPCG(cfg.Seed, 0x5eed_0f_7011c7)),
		ExactEstimates: cfg.ExactEstimates,
		Outages:        len(cfg.Outages) > 0,
		Power:          cfg.Power,
	}
	if err := e.policy.Init(env); err != nil {
		return nil, fmt.Errorf("policy %s: init: %w", e.name, err)
	}
	return e, nil
}

func (e *engine) loop() error {
	next := 0 // next job to submit
	idle := 0
	for {
		if next == e.loaded && next < e.n {
			if err := e.pull(); err != nil {
				return err
			}
		}
		if e.deps != nil {
			next = e.deps.skip(next)
		}
		if e.pow != nil && e.allDone(next) {
			// The run's span ends with its last job: what the policy
			// would switch after it is outside every run's energy alike.
			break
		}
		now := int64(math.MaxInt64)
		if next < e.loaded {
			now = e.jobs[next].Submit
		}
		if e.deps != nil {
			if at, ok := e.deps.nextSub(); ok && at < now {
				now = at
			}
		}
		if e.outs != nil {
			e.dropStaleEnds()
		}
		if e.ends.len() > 0 && e.ends.top().at < now {
			now = e.ends.top().at
		}
		if e.wakes.len() > 0 && e.wakes.top() < now {
			now = e.wakes.top()
		}
		if e.outs != nil {
			// Outages after the last job are of no interest, unless jobs
			// wait for nodes to come back.
			if at, ok := e.outs.nextAt(); ok && at < now && (now != math.MaxInt64 || len(e.state.Queue) > 0) {
				now = at
			}
		}
		if e.pow != nil {
			if at, ok := e.pow.nextAt(); ok && at < now {
				now = at
			}
		}
		// An instant at which only transfers or compute phases inside
		// the I/O model end calls no policy unless a job ends with them.
		ioOnly := false
		if e.io != nil {
			if at, ok := e.io.nextAt(); ok && at < now {
				now, ioOnly = at, true
			}
		}
		if now == math.MaxInt64 {
			break
		}
		if e.pow != nil {
			e.pow.advance(now)
		}
		if e.io != nil {
			e.io.advance(now, func(i int32, killed bool) {
				r := &e.rec[i]
				r.End, r.Killed = now, killed || e.killed[i]
				e.ends.push(endEvent{at: now, idx: i})
			})
		}
		e.state.Now = now
		if e.stats.Events++; e.stats.Events%ctxEvery == 0 && e.ctx.Err() != nil {
			return fmt.Errorf("t=%d: sim: %w", now, context.Cause(e.ctx))
		}
		if p := e.hooks.Progress; p != nil {
			p.Now.Store(now)
			p.Events.Store(e.stats.Events)
		}
		changed := false
		if e.outs != nil && e.outageEnds(now) {
			changed = true
		}
		if e.pow != nil && e.switchEnds(now) {
			changed = true
		}
		for e.ends.len() > 0 && e.ends.top().at == now {
			if ev := e.ends.pop(); e.outs == nil || e.liveEnd(ev) {
				e.end(ev.idx)
				changed = true
			}
		}
		if e.outs != nil && e.outageStarts(now) {
			changed = true
		}
		if ioOnly && !changed {
			continue
		}
		for {
			if next == e.loaded && next < e.n {
				if err := e.pull(); err != nil {
					return err
				}
			}
			if e.deps != nil {
				// The trace's submissions and those released by ends, in
				// index order.
				next = e.deps.skip(next)
				trace := next < e.loaded && e.jobs[next].Submit == now
				if at, ok := e.deps.nextSub(); ok && at == now && (!trace || int(e.deps.subs.top().idx) < next) {
					k := e.deps.subs.pop().idx
					e.jobs[k].Submit = now
					e.status[k] = statusQueued
					e.state.Queue = append(e.state.Queue, &e.jobs[k])
					changed = true
					continue
				}
			}
			if next == e.loaded || e.jobs[next].Submit != now {
				break
			}
			e.status[next] = statusQueued
			e.state.Queue = append(e.state.Queue, &e.jobs[next])
			next++
			changed = true
		}
		woke := false
		for e.wakes.len() > 0 && e.wakes.top() <= now {
			e.wakes.pop()
			woke = true
		}
		if len(e.state.Queue) == 0 && (e.pow == nil || !changed && !woke) {
			continue
		}
		queued := len(e.state.Queue)
		if err := e.call(); err != nil {
			return err
		}
		if len(e.state.Queue) != queued || e.powered {
			changed = true
		}
		if changed {
			idle = 0
		} else if idle++; idle > maxIdleCalls {
			return fmt.Errorf("t=%d: policy %s: %d calls in a row started no job while nothing else changed", now, e.name, maxIdleCalls)
		}
		if e.hooks.Emit != nil && e.outs == nil && e.io == nil {
			// (With outages a record is final only when the run is: a
			// job that ran may be requeued.)
			// Every job before the first waiting one, and before the next
			// to be submitted, has started: their records are final.
			final := next
			if e.deps != nil {
				final = e.deps.finalUpTo(e.status)
			} else if len(e.state.Queue) > 0 {
				final = min(final, e.state.Queue[0].Index)
			}
			if err := e.emit(final); err != nil {
				return err
			}
		}
	}
	if len(e.state.Queue) > 0 {
		j := e.state.Queue[0]
		return fmt.Errorf("t=%d: policy %s left %d jobs waiting with no job running and no wake-up pending (first: job id %d)",
			e.state.Now, e.name, len(e.state.Queue), j.ID)
	}
	if e.hooks.Emit != nil {
		return e.emit(e.n)
	}
	return nil
}

// emit gives hooks.Emit the records from e.emitted up to final, if there
// are at least hooks.EmitAtLeast of them or they are the last.
func (e *engine) emit(final int) error {
	if final <= e.emitted || (final-e.emitted < e.hooks.EmitAtLeast && final < e.n) {
		return nil
	}
	recs := e.rec[e.emitted:final:final]
	e.emitted = final
	if err := e.hooks.Emit(recs); err != nil {
		return fmt.Errorf("sim: emitting records: %w", err)
	}
	return nil
}

// end ends job i for good at its record's End.
func (e *engine) end(i int32) {
	r := &e.rec[i]
	e.status[i] = statusDone
	c := sdk.Completion{Job: &e.jobs[i], Cluster: int(r.Cluster), Start: r.Start, End: r.End, Killed: r.Killed, Interrupted: r.Interrupted}
	e.release(i, c)
	if e.deps != nil {
		e.deps.release(i, r.End)
	}
}

// release gives back what job i holds and tells the policy of its end
// (c, to which it adds the allocation).
func (e *engine) release(i int32, c sdk.Completion) {
	r := &e.rec[i]
	e.state.Free[r.Cluster].Add(e.reqOf(i))
	if e.nodes != nil {
		e.endNodes(i, int(r.Cluster), e.state.Free[r.Cluster])
		if e.nodes.svc != nil && e.nodes.private[r.Cluster] != nil {
			e.rewithhold(int(r.Cluster), e.nodes.alloc(i))
		}
	}
	if e.stride > 0 {
		e.releaseUnits(i, int(r.Cluster))
	}
	// Running is ordered by (ExpectedEnd, Index): find the job by binary search.
	exp := r.Start + e.jobs[i].Walltime
	run := e.state.Running
	k, _ := slices.BinarySearchFunc(run, i, func(x sdk.Running, idx int32) int {
		if c := cmp.Compare(x.ExpectedEnd, exp); c != 0 {
			return c
		}
		return cmp.Compare(int32(x.Job.Index), idx)
	})
	e.state.Running = slices.Delete(run, k, k+1)
	if e.nodes != nil && e.nodes.private[r.Cluster] != nil {
		c.Alloc = &e.nodes.allocs[i]
	}
	e.state.Completed = append(e.state.Completed, c)
}

func (e *engine) reqOf(i int32) sdk.Vector {
	return sdk.Vector(e.req[int(i)*e.dims : (int(i)+1)*e.dims])
}

// call runs the policy once and applies its decisions.
func (e *engine) call() error {
	if e.pow != nil {
		e.pow.show(e.state.Now, &e.state)
		e.powered = false
	}
	t0 := time.Since(e.begin)
	ds, err := e.policy.Schedule(&e.state)
	e.stats.PolicyNanos += (time.Since(e.begin) - t0).Nanoseconds()
	if e.pow != nil {
		// As for the nodes below: the switches of this call's decisions
		// are the next call's changes.
		e.pow.shown.ClearChanged()
	}
	if e.nodes != nil {
		// What changes from now on, the decisions of this call first, is
		// what the next call's Sandbox.Sync copies.
		for _, n := range e.state.Nodes {
			if n != nil {
				n.ClearChanged()
			}
		}
	}
	e.stats.PolicyCalls++
	now := e.state.Now
	if err != nil {
		return fmt.Errorf("t=%d: policy %s: %w", now, e.name, err)
	}
	e.started = e.started[:0]
	for k, d := range ds {
		if err := e.apply(d); err != nil {
			return fmt.Errorf("t=%d: policy %s: decision %d of %d: %w", now, e.name, k+1, len(ds), err)
		}
	}
	e.stats.Decisions += int64(len(ds))
	e.state.Completed = e.state.Completed[:0]
	if e.grid != nil {
		e.state.Refused = e.grid.refusedNext
		e.grid.refusedNext = nil
	}
	if len(e.started) == 0 {
		return nil
	}
	// Started jobs usually form a prefix of the queue (always under FCFS):
	// drop it by reslicing, and compact only what follows a started job
	// further back, so long backlogs do not cost O(queue) per start.
	q := e.state.Queue
	k := 0
	for k < len(q) && e.status[q[k].Index] != statusQueued {
		k++
	}
	if len(e.started) > k {
		from := e.firstLeft(q, k)
		kept := q[:from]
		for _, j := range q[from:] {
			if e.status[j.Index] == statusQueued {
				kept = append(kept, j)
			}
		}
		clear(q[len(kept):])
		q = kept
	}
	q = q[k:]
	e.state.Queue = q
	if len(q) == 0 {
		return nil
	}
	first := q[0]
	switch {
	case e.outs != nil && e.deps != nil:
		// Jobs submitted during the run and requeued jobs: the queue is
		// not in submission order.
		for _, j := range q[1:] {
			if submittedBefore(j, first) {
				first = j
			}
		}
	case e.deps != nil:
		first = e.deps.firstSubmitted(q)
	case e.outs != nil && len(e.outs.last) > 0:
		// Requeued in place, a job takes its place by submission; sent
		// to the end of the queue, it is among those.
		first = e.outs.firstOfLast(first, e.status)
	}
	for _, i := range e.started {
		e.rec[i].Backfilled = submittedBefore(first, &e.jobs[i]) && !e.rec[i].Rejected
	}
	return nil
}

// job returns the index of the job a decision names, checking that the
// pointer is one the engine handed out.
func (e *engine) job(d sdk.Decision) (int32, error) {
	j := d.Job
	if j == nil {
		return 0, errors.New("decision names no job")
	}
	if j.Index < 0 || j.Index >= e.n || j != &e.jobs[j.Index] {
		return 0, fmt.Errorf("decision names job id %d, which is not a job the engine showed", j.ID)
	}
	return int32(j.Index), nil
}

func (e *engine) apply(d sdk.Decision) error {
	now := e.state.Now
	switch d.Action {
	case sdk.ActionStart:
		i, err := e.job(d)
		if err != nil {
			return err
		}
		j := &e.jobs[i]
		if st := e.status[i]; st != statusQueued {
			return fmt.Errorf("start job id %d: it is %s, not waiting", j.ID, statusName(st))
		}
		if d.Cluster < 0 || d.Cluster >= len(e.state.Free) {
			return fmt.Errorf("start job id %d on cluster %d: the platform has %d clusters", j.ID, d.Cluster, len(e.state.Free))
		}
		if err := e.startRules(i, d.Cluster); err != nil {
			return err
		}
		free := e.state.Free[d.Cluster]
		req := e.reqOf(i)
		for k, x := range req {
			if x > free[k] {
				return fmt.Errorf("start job id %d on cluster %q: it needs %d %s, %d are free",
					j.ID, e.cfg.Platform.Clusters[d.Cluster].Name, x, e.cfg.Platform.Resources[k], free[k])
			}
		}
		if err := e.reservedRule(i, d.Cluster); err != nil {
			return err
		}
		var units []int32
		if e.stride > 0 || len(d.Units) > 0 {
			var err error
			if units, err = e.placeUnits(i, d); err != nil {
				return err
			}
		}
		var alloc *sdk.Alloc
		if e.nodes != nil {
			if alloc, err = e.startNodes(i, d.Cluster, &d, free); err != nil {
				if units != nil {
					e.releaseUnits(i, d.Cluster)
				}
				return err
			}
		} else if d.Alloc != nil {
			return fmt.Errorf("start job id %d: an allocation of nodes on a platform without nodes", j.ID)
		}
		free.Sub(req)
		e.status[i] = statusRunning
		r := &e.rec[i]
		r.Index, r.Cluster, r.Start = i, int32(d.Cluster), now
		r.Backfilled = false // a requeued job's flag is its last start's
		if e.grid != nil {
			e.grid.release(i)
		}
		if e.outs != nil && e.outs.work != nil {
			r.End, r.Killed = e.startRun(i, alloc.Len())
		} else if e.io != nil {
			e.startIO(i, d.Cluster, now)
		} else {
			r.End = now + e.runtime[i]
			r.Killed = e.killed[i]
		}
		if e.io == nil {
			e.ends.push(endEvent{at: r.End, idx: i})
		}
		e.insertRunning(sdk.Running{Job: j, Cluster: d.Cluster, Start: now, ExpectedEnd: now + j.Walltime, Units: units, Alloc: alloc})
		e.started = append(e.started, i)
	case sdk.ActionPromise:
		i, err := e.job(d)
		if err != nil {
			return err
		}
		j := &e.jobs[i]
		if st := e.status[i]; st != statusQueued {
			return fmt.Errorf("promise job id %d: it is %s, not waiting", j.ID, statusName(st))
		}
		if d.Time < now {
			return fmt.Errorf("promise job id %d a start at %d, which is in the past", j.ID, d.Time)
		}
		if d.Time > e.horizon {
			return fmt.Errorf("promise job id %d a start at %d, past the run's horizon %d (sim.Horizon)", j.ID, d.Time, e.horizon)
		}
		if r := &e.rec[i]; !r.HasPromise {
			r.HasPromise, r.Promised = true, d.Time
		}
	case sdk.ActionShip, sdk.ActionReserve, sdk.ActionCharge, sdk.ActionReject:
		i, err := e.job(d)
		if err != nil {
			return err
		}
		return e.applyGrid(i, d)
	case sdk.ActionPowerOn, sdk.ActionPowerOff:
		if err := e.applyPower(d); err != nil {
			return err
		}
		e.powered = true
	case sdk.ActionDrain, sdk.ActionResume:
		// Not a change that ends a run of idle calls: a policy that
		// drains and resumes forever, starting nothing, still fails.
		return e.applyDrain(d)
	case sdk.ActionWake:
		if d.Time <= now {
			return fmt.Errorf("wake-up at %d is not after now", d.Time)
		}
		if d.Time > e.horizon {
			return fmt.Errorf("wake-up at %d is past the run's horizon %d (sim.Horizon)", d.Time, e.horizon)
		}
		e.wakes.push(d.Time)
	default:
		return fmt.Errorf("unknown action %d", d.Action)
	}
	return nil
}

func (e *engine) insertRunning(r sdk.Running) {
	run := e.state.Running
	k, _ := slices.BinarySearchFunc(run, r, func(x, y sdk.Running) int {
		if c := cmp.Compare(x.ExpectedEnd, y.ExpectedEnd); c != 0 {
			return c
		}
		return cmp.Compare(x.Job.Index, y.Job.Index)
	})
	e.state.Running = slices.Insert(run, k, r)
}

func statusName(s uint8) string {
	switch s {
	case statusPending:
		return "not yet submitted"
	case statusQueued:
		return "waiting"
	case statusRunning:
		return "already running"
	default:
		return "already finished"
	}
}

// bySubmit orders jobs as a queue in submission order is: by submit
// time, then index.
func bySubmit(a, b *sdk.Job) int {
	if c := cmp.Compare(a.Submit, b.Submit); c != 0 {
		return c
	}
	return cmp.Compare(a.Index, b.Index)
}

// firstLeft returns the position in q of the first job that left it in
// this call (e.started) after its queued prefix q[:k], found by binary
// search where q is in submission order (ties by Index), which it is
// unless requeued jobs lost their place or a release came last: the
// compaction then reads only what follows it, where backfilled jobs, often
// the last submitted, left a pass over a backlog of hundreds to do at
// every call (RICC, BenchmarkEngineEASYNodes). A job not found where the
// search looks gives k, a pass over all that follows the prefix.
func (e *engine) firstLeft(q []*sdk.Job, k int) int {
	from := len(q)
	for _, i := range e.started {
		j := &e.jobs[i]
		p, ok := slices.BinarySearchFunc(q, j, bySubmit)
		switch {
		case !ok || q[p] != j:
			return k
		case p >= k:
			from = min(from, p)
		}
	}
	return from
}
