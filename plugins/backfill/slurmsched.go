package backfill

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// Slurm's scheduling loops (issue 36, point 2), as multifactor's
// SchedulerType: the main loop, event-triggered on submissions and ends
// (the first default_queue_depth jobs) and every sched_interval (every
// job), starts jobs in priority order until one does not fit; the
// backfill loop, every bf_interval, tests the jobs in priority order (at
// most bf_max_job_test, bf_max_job_user per user), each planned at its
// earliest start within bf_window on a plan whose times are rounded up to
// bf_resolution: a job whose planned start is now starts, one planned
// later holds its planned start against the jobs after it, and one with no
// start within the window holds nothing. Sources and choices:
// docs/policies.md ("multifactor").

// The values of multifactor's SchedulerType.
const (
	SchedEASY     = "easy"
	SchedBackfill = "sched/backfill"
	SchedBuiltin  = "sched/builtin"
)

// slurmParams are the SchedulerParameters schedlab models, in seconds
// (bf_window is given in minutes); -1 disables a loop, 0 runs it at every
// call (ours: Slurm's least intervals are 1 s), and 0 leaves a count
// unlimited.
type slurmParams struct {
	schedInterval, bfInterval         int64
	bfWindow, bfResolution            int64
	bfMaxJobTest, bfMaxJobUser, depth int64
}

// parseSchedulerParameters reads Slurm's SchedulerParameters: a
// comma-separated list of KEY=VALUE and flags.
func parseSchedulerParameters(s string) (slurmParams, error) {
	sp := slurmParams{schedInterval: 60, bfInterval: 30, bfWindow: 1440 * 60, bfResolution: 60, bfMaxJobTest: 500, depth: 100}
	known := []string{"bf_continue", "bf_interval", "bf_max_job_test", "bf_max_job_user", "bf_resolution", "bf_window",
		"default_queue_depth", "sched_interval"}
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		k, v, hasValue := strings.Cut(e, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "bf_continue" {
			// The backfill loop releases no locks in a simulation: it
			// always goes on with its list.
			continue
		}
		if !slices.Contains(known, k) {
			return sp, fmt.Errorf("SchedulerParameters: %q is not an option schedlab models (it takes %s)", k, strings.Join(known, ", "))
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if !hasValue || err != nil {
			return sp, fmt.Errorf("SchedulerParameters: %s: %q is not an integer", k, v)
		}
		bad := func(least int64) error {
			return fmt.Errorf("SchedulerParameters: %s = %d: want at least %d", k, n, least)
		}
		switch k {
		case "sched_interval":
			if n < -1 {
				return sp, bad(-1)
			}
			sp.schedInterval = n
		case "bf_interval":
			if n < -1 {
				return sp, bad(-1)
			}
			sp.bfInterval = n
		case "bf_window":
			if n < 1 {
				return sp, bad(1)
			}
			sp.bfWindow = n * 60
		case "bf_resolution":
			if n < 1 {
				return sp, bad(1)
			}
			sp.bfResolution = n
		case "bf_max_job_test":
			if n < 0 {
				return sp, bad(0)
			}
			sp.bfMaxJobTest = n
		case "bf_max_job_user":
			if n < 0 {
				return sp, bad(0)
			}
			sp.bfMaxJobUser = n
		case "default_queue_depth":
			if n < 0 {
				return sp, bad(0)
			}
			sp.depth = n
		}
	}
	return sp, nil
}

// slurmLoops is the state of the main and backfill loops.
type slurmLoops struct {
	sp       slurmParams
	backfill bool // sched/backfill; sched/builtin has the main loop only
	// nextSched and nextBF are the times of the next periodic runs
	// (multiples of their intervals in trace time).
	nextSched, nextBF int64
	// ended says that jobs ended at a call with no job waiting, which
	// the next call with one counts as its event.
	ended   bool
	seen    []bool // by Index: the job was in an earlier call's queue
	started []bool
	// room is what is free now (on nodes, node by node), shared with the
	// policy's EASY.
	room    *room
	prof    plan.Profile
	users   map[int32]int64
	blocked map[int32]bool // partitions the main loop blocked in this call
	out     []sdk.Decision
	// held is what each job started in this call holds, and on how many
	// nodes (on a pool, its request and its processors), for billing.
	held []loopStart
	// gate holds the jobs a limit holds; nil for none. Both loops skip a
	// held job: it neither starts, nor blocks its partition, nor holds a
	// planned start, and it counts for neither bf_max_job_test nor
	// bf_max_job_user.
	gate *limiter
	// downHeld is, per node out of service, what the running jobs hold
	// there (releaseAround), and vec a scratch vector (planOutages).
	downHeld []sdk.Amount
	vec      sdk.Vector
}

// loopStart is a job started by the loops and what it holds.
type loopStart struct {
	idx   int
	held  sdk.Vector
	nodes int
}

// roundUp is t rounded up to a multiple of the resolution, at least one
// resolution: the times of the plan (running jobs' expected ends) and the
// planned durations (walltimes) are rounded so.
func (l *slurmLoops) roundUp(t int64) int64 {
	r := l.sp.bfResolution
	if t > math.MaxInt64-r {
		return t
	}
	return max((t+r-1)/r*r, r)
}

// due reports whether a loop of interval every, next due at *next, runs at
// now, and moves *next past now.
func due(every int64, next *int64, now int64) bool {
	switch {
	case every < 0:
		return false
	case every == 0:
		return true
	case now < *next:
		return false
	}
	*next = (now/every + 1) * every
	return true
}

// schedule runs the loops due at s.Now over q, the queue in priority
// order.
func (l *slurmLoops) schedule(s *sdk.State, q []*sdk.Job) []sdk.Decision {
	now := s.Now
	l.out = l.out[:0]
	if len(s.Queue) == 0 {
		// A run with a power model calls at every instant at which
		// something happened, waiting jobs or not. With none waiting the
		// loops have nothing to start; the periodic runs stay due and what
		// ended stays an event for the next call, as when the engine calls
		// only with jobs waiting, so that the schedule is the same.
		l.ended = l.ended || len(s.Completed) > 0
		return l.out
	}
	// Jobs submitted during a run (feedback) come with lower indexes than
	// jobs already queued: new jobs are told by a mark, not by index.
	top := -1
	for _, j := range s.Queue {
		top = max(top, j.Index)
	}
	if top >= len(l.started) {
		l.started = append(l.started, make([]bool, top+1-len(l.started))...)
		l.seen = append(l.seen, make([]bool, top+1-len(l.seen))...)
	}
	event := len(s.Completed) > 0 || l.ended
	l.ended = false
	for _, c := range s.Completed {
		if c.Requeued {
			// An outage of nodes ended its run: it waits again.
			l.started[c.Job.Index] = false
		}
	}
	for _, j := range s.Queue {
		if !l.seen[j.Index] {
			event = true
			l.seen[j.Index] = true
		}
	}
	l.room.reset(s)
	if len(l.room.down) > 0 && len(l.downHeld) != len(l.room.down) {
		l.downHeld = make([]sdk.Amount, len(l.room.down))
	}
	l.held = l.held[:0]
	var startedNow []*sdk.Job
	// start starts j, which l.room.fits placed: the engine places it by
	// the cluster's rule as the room did (the starts go in the same order).
	start := func(j *sdk.Job) {
		h := loopStart{idx: j.Index, held: j.Request, nodes: int(j.Procs())}
		if l.room.nodes != nil {
			h.held, h.nodes = l.room.heldBy(j, l.room.alloc).Clone(), l.room.alloc.Len()
		}
		l.held = append(l.held, h)
		l.out = append(l.out, l.room.start(j))
		l.room.take(j, l.room.alloc)
		l.started[j.Index] = true
		startedNow = append(startedNow, j)
		if l.gate != nil {
			l.gate.took(j)
		}
	}
	// The main loop: a periodic run tests every job, an event's the first
	// default_queue_depth; a job that does not fit blocks its partition
	// (a pool is one), whose later jobs are skipped.
	full := due(l.sp.schedInterval, &l.nextSched, now)
	if full || (event && l.sp.schedInterval >= 0) {
		depth := len(q)
		if !full && l.sp.depth > 0 {
			depth = min(depth, int(l.sp.depth))
		}
		clear(l.blocked)
		for _, j := range q[:depth] {
			part := int32(0)
			if j.Tasks != nil {
				part = j.Tasks.Partition
			}
			if l.blocked[part] || l.gate != nil && l.gate.held(j) {
				continue
			}
			if !l.room.fits(j) {
				l.blocked[part] = true
				if l.room.nodes == nil {
					break
				}
				continue
			}
			start(j)
		}
	}
	if l.backfill && due(l.sp.bfInterval, &l.nextBF, now) {
		// The plan counts totals (on nodes, what running jobs hold on
		// their nodes; a waiting job its request).
		l.prof.Reset(now, s.Free[0])
		around := l.room.nodes != nil && (len(l.room.down) > 0 || len(l.room.windows) > 0)
		for i := range s.Running {
			r := &s.Running[i]
			held := r.Job.Request
			if around {
				l.releaseAround(r)
				continue
			}
			if l.room.nodes != nil {
				held = l.room.heldBy(r.Job, *r.Alloc)
			}
			l.prof.Release(l.roundUp(r.ExpectedEnd), held)
		}
		for k, j := range startedNow {
			// It fits now: the reservation cannot fail.
			_ = l.prof.Reserve(now, l.roundUp(j.Walltime), l.held[k].held)
		}
		if around {
			// After the starts, which fit now and keep out of windows.
			l.planOutages(s)
		}
		clear(l.users)
		tested := int64(0)
		for _, j := range q {
			if l.started[j.Index] {
				continue
			}
			if l.sp.bfMaxJobTest > 0 && tested >= l.sp.bfMaxJobTest {
				break
			}
			if l.sp.bfMaxJobUser > 0 && l.users[j.User] >= l.sp.bfMaxJobUser || l.gate != nil && l.gate.held(j) {
				continue
			}
			tested++
			l.users[j.User]++
			// Planned for its walltime rounded up; EarliestFitWithin's
			// start fits, so the reservations cannot fail.
			d := l.roundUp(j.Walltime)
			t := l.prof.EarliestFitWithin(now, now+l.sp.bfWindow, j.Request, d)
			switch {
			case t < 0:
				// No start within the window: it holds nothing.
			case t == now && l.room.fits(j):
				_ = l.prof.Reserve(now, d, l.room.heldBy(j, l.room.alloc))
				start(j)
			case t == now:
				// On nodes, the totals admit it now but the placement rule
				// does not: it holds its request from now, as planned.
				_ = l.prof.Reserve(now, d, j.Request)
			default:
				_ = l.prof.Reserve(t, d, j.Request)
				l.out = append(l.out, sdk.Promise(j, t))
			}
		}
	}
	// Wake-ups at the next periodic runs, while jobs wait.
	if len(startedNow) < len(s.Queue) {
		next := int64(math.MaxInt64)
		if l.sp.schedInterval > 0 {
			next = min(next, l.nextSched)
		}
		if l.backfill && l.sp.bfInterval > 0 {
			next = min(next, l.nextBF)
		}
		if next != math.MaxInt64 && next > now {
			l.out = append(l.out, sdk.WakeAt(next))
		}
	}
	return l.out
}

// releaseAround gives back to the plan what running job r holds, on a
// platform with nodes out of service now or maintenance windows ahead: at
// its expected end on the nodes in service then, and on a node that a
// drain or a window in effect keeps out of service past its end, when
// that ends (never, for a failure, whose repair is not known). It counts
// on each node out of service what its jobs hold there (l.downHeld).
func (l *slurmLoops) releaseAround(r *sdk.Running) {
	end := l.roundUp(r.ExpectedEnd)
	rm := l.room
	a := *r.Alloc
	in := rm.inService(a, end)
	l.prof.Release(end, rm.heldBy(r.Job, in))
	if len(rm.down) == 0 {
		return
	}
	lay := rm.nodes.Layout
	for x, k := range a.Nodes {
		if !rm.down[k] {
			continue
		}
		h := lay.Held(r.Job.Tasks, k, a.Tasks[x])
		d := &l.downHeld[k]
		d.Cores, d.Memory, d.GPUs = d.Cores+h.Cores, d.Memory+h.Memory, d.GPUs+h.GPUs
		if rm.until[k] > end && rm.until[k] != math.MaxInt64 {
			one := sdk.Alloc{Nodes: []int32{k}, Tasks: []int32{a.Tasks[x]}}
			l.prof.Release(l.roundUp(rm.until[k]), rm.heldBy(r.Job, one))
		}
	}
}

// planOutages writes into the plan what the outages tell in advance, as
// Slurm's backfill plans around its reservations: a node out of service
// now for a drain or a window comes back when that ends, with what its
// jobs do not hold (they give theirs back as releaseAround says); a
// maintenance window ahead withdraws its nodes over the window (those not
// out of service then already), so that no job is planned into it.
func (l *slurmLoops) planOutages(s *sdk.State) {
	rm := l.room
	lay := rm.nodes.Layout
	if len(l.vec) != len(s.Free[0]) {
		l.vec = make(sdk.Vector, len(s.Free[0]))
	}
	amount := func(h sdk.Amount, sign int64) sdk.Vector {
		clear(l.vec)
		rm.setHeld(l.vec, sdk.Amount{Cores: sign * h.Cores, Memory: sign * h.Memory, GPUs: sign * h.GPUs})
		return l.vec
	}
	for k := range rm.down {
		if !rm.down[k] {
			continue
		}
		if u := rm.until[k]; u != math.MaxInt64 {
			c, d := lay.Cap(k), l.downHeld[k]
			l.prof.Release(l.roundUp(u), amount(sdk.Amount{Cores: c.Cores - d.Cores, Memory: c.Memory - d.Memory, GPUs: c.GPUs - d.GPUs}, 1))
		}
		l.downHeld[k] = sdk.Amount{}
	}
	for i := range rm.windows {
		o := &rm.windows[i]
		for k := range o.All(int32(lay.Len())) {
			from := o.Start
			if len(rm.down) > 0 && rm.down[k] {
				// Out of the plan until it comes back, if before the
				// window's end.
				from = max(from, l.roundUp(rm.until[k]))
			}
			if from < o.End {
				l.prof.Unreserve(from, o.End-from, amount(lay.Cap(int(k)), -1))
			}
		}
	}
}
