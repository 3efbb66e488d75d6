package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// The I/O model (sdk.IO) runs beside the engine's clock of whole seconds:
// transfers progress at rates that change whenever one starts or ends, so
// their completions fall between seconds. ioEngine keeps those exact times
// in floating point; a job ends at the first whole second at or after its
// last phase completes (sdk.IOEnd), which is when the engine frees what it
// holds, and the engine stops only at such seconds, at deadlines and at
// the seconds at which some transfer or phase inside the model ends.
//
// Every product that is added to something is converted explicitly, which
// keeps Go from fusing it into one multiply-add on the machines that have
// one: a run's times are then the same on every architecture.

type flowKind uint8

const (
	flowStageIn flowKind = iota
	flowCheckpoint
	flowDrain
	flowStageOut
)

// flow is the transfers of one job's pieces on one unit in one phase: m
// transfers of equal size crossing the same links, which max-min fairness
// gives equal rates.
type flow struct {
	job   int32
	kind  flowKind
	links [2]int32 // indexes in ioEngine.capacity; -1 for none
	m     float64  // transfers (pieces)
	bytes float64  // each transfer's size
	rem   float64  // bytes left, each
	rate  float64  // bytes per second, each
	limit float64  // bound on each transfer's rate (+Inf for none)
	fin   float64  // when the flow ends at its current rate
}

type ioJob struct {
	pieces  []int32 // the job's pieces on each unit of the model's resource
	size    int64   // bytes of each piece
	phase   sdk.IOPhase
	left    int     // flows of the current phase still moving
	drains  int     // drain flows still moving
	done    int     // compute phases done
	phases  int     // compute phases in all
	each    float64 // seconds per compute phase
	compEnd float64 // end of the current compute phase
	running bool
}

type computeEnd struct {
	at  float64
	idx int32
}

type ioEngine struct {
	m        *sdk.IO
	capacity []float64 // the file system (read; then written, when split); each unit (into it; then out of it, when split)
	fs       int       // links of the file system: 1, or 2 when split
	units    int
	first    int // offset of the model's units within a job's placement
	flows    []flow
	jobs     []ioJob
	comp     heap[computeEnd]
	dead     heap[endEvent] // deadlines of running jobs
	t        float64        // time up to which the flows' rem are counted
	// scratch of share: per link, what is left and the transfers still
	// without a rate (0 between calls); the links crossed
	left   []float64
	count  []float64
	act    []int32
	frozen []bool
	over   []flow
	ended  []int32
}

func newIOEngine(cfg *Config, n int) (*ioEngine, error) {
	m := cfg.IO
	if m == nil {
		return nil, nil
	}
	p := cfg.Platform
	if err := m.Validate(p); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	switch {
	case cfg.ExactEstimates:
		return nil, errors.New("sim: io: exact estimates with an I/O model: a job's duration depends on contention, which no estimate knows")
	case len(cfg.Outages) > 0:
		return nil, errors.New("sim: io: outages with an I/O model are not supported yet")
	}
	e := &ioEngine{m: m, jobs: make([]ioJob, n)}
	for _, u := range p.Clusters[0].Units {
		if u.Resource == m.Resource {
			e.units = len(u.Capacity)
			break
		}
		e.first += len(u.Capacity)
	}
	e.fs = 1
	links := 1 + e.units
	if m.SplitDuplex {
		e.fs = 2
		links = 2 + 2*e.units
	}
	e.capacity = make([]float64, links)
	for k := range links {
		e.capacity[k] = m.UnitBandwidth
		if k < e.fs {
			e.capacity[k] = m.FSBandwidth
		}
	}
	e.left = make([]float64, links)
	e.count = make([]float64, links)
	e.comp = heap[computeEnd]{less: func(a, b computeEnd) bool { return a.at < b.at || (a.at == b.at && a.idx < b.idx) }}
	e.dead = heap[endEvent]{less: func(a, b endEvent) bool { return a.at < b.at || (a.at == b.at && a.idx < b.idx) }}
	return e, nil
}

// unitIn and unitOut are the links of unit x for data into and out of
// it, and fsWrite the file system's for data into it (0 reads it).
func (e *ioEngine) unitIn(x int) int32 { return int32(e.fs + x) }

func (e *ioEngine) unitOut(x int) int32 {
	if e.m.SplitDuplex {
		return int32(e.fs + e.units + x)
	}
	return int32(e.fs + x)
}

func (e *ioEngine) fsWrite() int32 { return int32(e.fs - 1) }

// start begins job i's phases at now: place is its placement on the
// cluster's units and size the bytes of each of its pieces of the model's
// resource; compute is its compute time and walltime its deadline from
// now.
func (e *ioEngine) start(i int32, now int64, place []int32, size int64, compute, walltime int64) {
	e.progress(float64(now))
	j := &e.jobs[i]
	n, each := e.m.Phases(compute)
	*j = ioJob{pieces: place[e.first : e.first+e.units], size: size, phases: n, each: each, running: true}
	e.dead.push(endEvent{at: now + walltime, idx: i})
	if !e.open(i, j, flowStageIn, e.m.StageIn) {
		e.compute(i, j, float64(now))
	}
	e.share()
}

// open starts job i's flows of one kind, one per unit holding pieces, and
// reports whether there is any.
func (e *ioEngine) open(i int32, j *ioJob, kind flowKind, factor float64) bool {
	bytes := float64(j.size) * factor
	if bytes <= 0 {
		return false
	}
	opened := 0
	for x, c := range j.pieces {
		if c == 0 {
			continue
		}
		f := flow{job: i, kind: kind, m: float64(c), bytes: bytes, rem: bytes, limit: math.Inf(1), links: [2]int32{-1, -1}}
		switch kind {
		case flowStageIn:
			f.links = [2]int32{0, e.unitIn(x)}
		case flowCheckpoint:
			f.links[0] = e.unitIn(x)
			if e.m.NodeBandwidth > 0 {
				f.limit = e.m.NodeBandwidth
			}
		case flowDrain, flowStageOut:
			f.links = [2]int32{e.unitOut(x), e.fsWrite()}
		}
		e.flows = append(e.flows, f)
		opened++
	}
	if opened == 0 {
		return false
	}
	switch kind {
	case flowDrain:
		j.drains += opened
		return true
	case flowStageIn:
		j.phase = sdk.PhaseStageIn
	case flowCheckpoint:
		j.phase = sdk.PhaseCheckpoint
	case flowStageOut:
		j.phase = sdk.PhaseStageOut
	}
	j.left = opened
	return true
}

// compute begins job i's next compute phase at t.
func (e *ioEngine) compute(i int32, j *ioJob, t float64) {
	j.phase = sdk.PhaseCompute
	j.compEnd = t + j.each
	e.comp.push(computeEnd{at: j.compEnd, idx: i})
}

// nextAt returns the next whole second at which the model needs the
// engine: a job's deadline, or the second at which the next transfer or
// compute phase inside the model ends (whose consequences are known only
// then).
func (e *ioEngine) nextAt() (int64, bool) {
	// The deadlines of jobs that completed are of no interest.
	for e.dead.len() > 0 && !e.jobs[e.dead.top().idx].running {
		e.dead.pop()
	}
	at, ok := int64(math.MaxInt64), false
	if t, yes := e.next(); yes {
		at, ok = sdk.IOEnd(t), true
	}
	if e.dead.len() > 0 && e.dead.top().at < at {
		at, ok = e.dead.top().at, true
	}
	return at, ok
}

// next returns the exact time of the model's next event.
func (e *ioEngine) next() (float64, bool) {
	t := math.Inf(1)
	for k := range e.flows {
		t = min(t, e.flows[k].fin)
	}
	if e.comp.len() > 0 {
		t = min(t, e.comp.top().at)
	}
	return t, !math.IsInf(t, 1)
}

// progress counts every flow's bytes moved up to t.
func (e *ioEngine) progress(t float64) {
	if dt := t - e.t; dt > 0 {
		for k := range e.flows {
			f := &e.flows[k]
			f.rem = max(f.rem-float64(f.rate*dt), 0)
		}
		e.t = t
	}
}

// advance runs the model up to the whole second now: every event up to
// now (within sdk.IOEpsilon), then the deadlines at now. It calls done for
// each job that completes (killed false) or reaches its deadline first
// (killed true), by index at each event.
func (e *ioEngine) advance(now int64, done func(i int32, killed bool)) {
	limit := float64(now) + sdk.IOEpsilon
	for {
		t, ok := e.next()
		if !ok || t > limit {
			break
		}
		t = min(t, float64(now)) // within the slack: at now
		e.progress(t)
		e.ended = e.ended[:0]
		// The flows that end at this event, job by job; then the compute
		// phases that do.
		e.over = e.over[:0]
		kept := e.flows[:0]
		for _, f := range e.flows {
			if f.fin <= t+sdk.IOEpsilon {
				e.over = append(e.over, f)
			} else {
				kept = append(kept, f)
			}
		}
		clear(e.flows[len(kept):])
		e.flows = kept
		slices.SortStableFunc(e.over, func(a, b flow) int { return int(a.job) - int(b.job) })
		for _, f := range e.over {
			j := &e.jobs[f.job]
			if f.kind == flowDrain {
				j.drains--
			} else if j.left--; j.left == 0 {
				e.phaseDone(f.job, j, t)
			}
			if j.running && j.phase == sdk.PhaseDraining && j.drains == 0 {
				j.running = false
			}
			if !j.running {
				e.ended = append(e.ended, f.job)
			}
		}
		for e.comp.len() > 0 && e.comp.top().at <= t+sdk.IOEpsilon {
			c := e.comp.pop()
			j := &e.jobs[c.idx]
			if !j.running || j.phase != sdk.PhaseCompute || j.compEnd != c.at {
				continue // a killed job's
			}
			j.done++
			e.computeDone(c.idx, j, t)
			if !j.running {
				e.ended = append(e.ended, c.idx)
			}
		}
		slices.Sort(e.ended)
		for k, i := range e.ended {
			if k == 0 || e.ended[k-1] != i {
				done(i, false)
			}
		}
		e.share()
	}
	e.progress(float64(now))
	killed := false
	for e.dead.len() > 0 && e.dead.top().at <= now {
		ev := e.dead.pop()
		if j := &e.jobs[ev.idx]; j.running {
			j.running = false
			killed = true
			done(ev.idx, true)
		}
	}
	if killed {
		kept := e.flows[:0]
		for _, f := range e.flows {
			if e.jobs[f.job].running {
				kept = append(kept, f)
			}
		}
		clear(e.flows[len(kept):])
		e.flows = kept
		e.share()
	}
}

// phaseDone moves job i on when the last flow of its stage-in, checkpoint
// or stage-out has ended, at t.
func (e *ioEngine) phaseDone(i int32, j *ioJob, t float64) {
	switch j.phase {
	case sdk.PhaseStageIn:
		e.compute(i, j, t)
	case sdk.PhaseCheckpoint:
		if e.m.Drain {
			e.open(i, j, flowDrain, e.m.Checkpoint)
		}
		e.compute(i, j, t)
	case sdk.PhaseStageOut:
		j.phase = sdk.PhaseDraining
		j.running = j.drains > 0
	}
}

// computeDone moves job i on when one of its compute phases ends at t.
func (e *ioEngine) computeDone(i int32, j *ioJob, t float64) {
	if j.done < j.phases {
		if !e.open(i, j, flowCheckpoint, e.m.Checkpoint) {
			e.compute(i, j, t)
		}
		return
	}
	if e.open(i, j, flowStageOut, e.m.StageOut) {
		return
	}
	j.phase = sdk.PhaseDraining
	j.running = j.drains > 0
}

// share gives every flow its max-min fair rate by progressive filling:
// the link (or transfer bound) that offers the least to each of the
// transfers crossing it fixes their rate, its capacity is taken from the
// other links they cross, and so on until every flow has a rate. Ties go
// to the lowest link index, then to the bound; the rates do not depend on
// them. It then sets each flow's end at its rate.
//
// It reads only the links some flow crosses (act, in index order): a few
// flows are in flight at a time, on a few of the file system's and the
// units' links, and share runs at every start and every transfer's end.
func (e *ioEngine) share() {
	act := e.act[:0]
	for k := range e.flows {
		for _, l := range e.flows[k].links {
			if l < 0 {
				continue
			}
			if e.count[l] == 0 {
				e.left[l] = e.capacity[l]
				act = append(act, l)
			}
			e.count[l] += e.flows[k].m
		}
	}
	slices.Sort(act)
	e.act = act
	if cap(e.frozen) < len(e.flows) {
		e.frozen = make([]bool, len(e.flows), 2*len(e.flows))
	}
	frozen := e.frozen[:len(e.flows)]
	clear(frozen)
	todo := len(e.flows)
	for todo > 0 {
		best, link := math.Inf(1), int32(-1)
		for _, l := range act {
			if c := e.count[l]; c > 0 {
				if s := e.left[l] / c; s < best {
					best, link = s, l
				}
			}
		}
		bound := -1
		for k := range e.flows {
			if !frozen[k] && e.flows[k].limit < best {
				best, bound = e.flows[k].limit, k
			}
		}
		best = max(best, 0)
		for k := range e.flows {
			f := &e.flows[k]
			if frozen[k] {
				continue
			}
			if bound >= 0 {
				if f.limit != best {
					continue
				}
			} else if f.links[0] != link && f.links[1] != link {
				continue
			}
			frozen[k] = true
			todo--
			f.rate = best
			for _, l := range f.links {
				if l >= 0 {
					e.left[l] = max(e.left[l]-float64(f.m*best), 0)
					e.count[l] -= f.m
				}
			}
		}
	}
	// Every flow is frozen, so every count is back to 0 (sums and
	// differences of whole piece counts are exact).
	for k := range e.flows {
		f := &e.flows[k]
		f.fin = math.Inf(1)
		if f.rate > 0 {
			f.fin = e.t + f.rem/f.rate
		}
	}
}

// startIO begins the data phases of job i, started at now on cluster c.
func (e *engine) startIO(i int32, c int, now int64) {
	r := &e.rec[i]
	r.End, r.Killed = 0, false // known when the job completes
	var size int64
	for _, u := range e.cfg.Platform.Clusters[c].Units {
		if u.Resource == e.io.m.Resource {
			_, size, _ = u.Pieces(e.reqOf(i)) // checked when the jobs were loaded
		}
	}
	e.io.start(i, now, e.place[int(i)*e.stride:(int(i)+1)*e.stride], size, e.runtime[i], e.jobs[i].Walltime)
}

// Phase implements sdk.IOView.
func (e *ioEngine) Phase(j *sdk.Job) (sdk.IOPhase, int, int) {
	s := &e.jobs[j.Index]
	if !s.running {
		return sdk.PhaseStageIn, 0, 0
	}
	return s.phase, s.done, s.phases
}

// Left implements sdk.IOView: the flows' bytes are counted up to the
// call, and their ends follow from the current rates. A job whose last
// phase is done and whose drains are not has its drains' bytes left.
func (e *ioEngine) Left(j *sdk.Job) (float64, float64) {
	s := &e.jobs[j.Index]
	if !s.running {
		return 0, 0
	}
	if s.phase == sdk.PhaseCompute {
		return 0, s.compEnd
	}
	var bytes, at float64
	for k := range e.flows {
		f := &e.flows[k]
		if int(f.job) != j.Index || (f.kind == flowDrain) != (s.phase == sdk.PhaseDraining) {
			continue
		}
		bytes += float64(f.m * f.rem)
		at = max(at, f.fin)
	}
	return bytes, at
}
