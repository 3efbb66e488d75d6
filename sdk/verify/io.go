package verify

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// ErrIO marks a schedule whose ends do not follow from the I/O model.
var ErrIO = errors.New("io")

// ExpectIO tells c that the run has an I/O model (sim.Config.IO): a job's
// end then depends on contention, and c checks only that it lies between
// its start plus its compute time and its deadline, ending killed at the
// deadline; IO recomputes it exactly.
func (c *Checker) ExpectIO(m *sdk.IO) { c.io = m != nil }

// IO recomputes a run under the I/O model m from its records' starts and
// placements (res.Units) alone, with code of its own: every transfer one
// by one (the engine groups a job's pieces on a unit), shared by max-min
// fairness, and checks each job's end and killed flag against its own:
// the first whole second at or after the job's last phase completes
// (sdk.IOEnd), or its deadline, killed. An end computed within ioSlack of
// the rounding boundary may round either way. res must have passed
// Result.
func IO(p *sdk.Platform, m *sdk.IO, jobs []sim.Input, res *sim.Result) error {
	if err := m.Validate(p); err != nil {
		return err
	}
	r := newIORun(p, m, jobs, res)
	if r == nil {
		return fmt.Errorf("%w: a run with an I/O model has no placements on the burst buffer", ErrIO)
	}
	r.run()
	for i := range res.Records {
		rec := &res.Records[i]
		if rec.Rejected {
			continue
		}
		j := &jobs[i]
		dl := rec.Start + j.Job.Walltime
		c := r.done[i]
		want, killed := sdk.IOEnd(c), false
		lo, hi := sdk.IOEnd(c-ioSlack), sdk.IOEnd(c+ioSlack)
		if math.IsNaN(c) || hi > dl {
			want, killed = dl, true
			if lo <= dl && rec.End == lo && !rec.Killed {
				continue // at the boundary: completed in time by a hair
			}
		}
		if killed {
			if rec.End != want || !rec.Killed {
				return fmt.Errorf("%w: job id %d: ends at %d (killed %v), its phases complete at %.6f, after its deadline %d: killed then", ErrIO, j.Job.ID, rec.End, rec.Killed, c, dl)
			}
			continue
		}
		if rec.End < lo || rec.End > hi {
			return fmt.Errorf("%w: job id %d: ends at %d, its phases complete at %.6f: it ends at %d", ErrIO, j.Job.ID, rec.End, c, want)
		}
		if rec.Killed != (j.Runtime > j.Job.Walltime) {
			return fmt.Errorf("%w: job id %d: killed %v, runtime %d, walltime %d, and its phases complete at %.6f", ErrIO, j.Job.ID, rec.Killed, j.Runtime, j.Job.Walltime, c)
		}
	}
	return nil
}

// A transfer of one piece: its links (-1 for none), bytes left, its bound.
type transfer struct {
	job   int
	links [2]int
	left  float64
	bound float64
	rate  float64
	drain bool
}

type ioRun struct {
	m      *sdk.IO
	jobs   []sim.Input
	recs   []sim.Record
	units  [][]int32 // each job's pieces on each unit of the model's resource
	size   []int64
	caps   []float64
	xs     []*transfer
	now    float64
	done   []float64 // completion of each job's last phase; NaN: killed
	state  []ioState
	starts []int // jobs by start
	active []int // jobs started and not over, by start
}

// stage is where a job is in IO's replay; draining is a job whose
// stage-out is done and whose drains are not, over one that completed or
// was killed.
type stage int

const (
	stStageIn stage = iota
	stCompute
	stCheckpoint
	stStageOut
	stDraining
	stOver
)

type ioState struct {
	stage   stage
	moving  int // transfers of the stage left
	drains  int
	phases  int
	done    int
	each    float64
	compEnd float64
}

func newIORun(p *sdk.Platform, m *sdk.IO, jobs []sim.Input, res *sim.Result) *ioRun {
	cl := &p.Clusters[0]
	first, n := 0, 0
	for _, u := range cl.Units {
		if u.Resource == m.Resource {
			n = len(u.Capacity)
			break
		}
		first += len(u.Capacity)
	}
	stride := p.UnitStride()
	if len(res.Units) < stride*len(jobs) {
		return nil
	}
	r := &ioRun{m: m, jobs: jobs, recs: res.Records, units: make([][]int32, len(jobs)), size: make([]int64, len(jobs)),
		done: make([]float64, len(jobs)), state: make([]ioState, len(jobs))}
	// The file system read (0) and written (1, split) or both (0); then
	// each unit in, then out (split), or both.
	fs := 1
	if m.SplitDuplex {
		fs = 2
	}
	r.caps = []float64{m.FSBandwidth}
	if m.SplitDuplex {
		r.caps = append(r.caps, m.FSBandwidth)
	}
	for range n * fs {
		r.caps = append(r.caps, m.UnitBandwidth)
	}
	for i := range jobs {
		r.units[i] = res.Units[i*stride+first : i*stride+first+n]
		for _, u := range cl.Units {
			if u.Resource == m.Resource {
				_, r.size[i], _ = u.Pieces(jobs[i].Job.Request)
			}
		}
		if !res.Records[i].Rejected {
			r.starts = append(r.starts, i)
		}
	}
	slices.SortStableFunc(r.starts, func(a, b int) int {
		if c := res.Records[a].Start - res.Records[b].Start; c != 0 {
			return int(min(max(c, -1), 1))
		}
		return a - b
	})
	return r
}

// begin opens a stage of job i's transfers: one per piece.
func (r *ioRun) begin(i int, st stage, factor float64) bool {
	bytes := float64(r.size[i]) * factor
	if bytes <= 0 {
		return false
	}
	s := &r.state[i]
	n := len(r.units[i])
	count := 0
	fsRead, fsWrite, base := 0, 0, 1
	if r.m.SplitDuplex {
		fsWrite, base = 1, 2
	}
	for x, c := range r.units[i] {
		in, out := base+x, base+x
		if r.m.SplitDuplex {
			out = base + n + x
		}
		for range c {
			t := &transfer{job: i, left: bytes, bound: math.Inf(1), links: [2]int{-1, -1}}
			switch st {
			case stStageIn:
				t.links = [2]int{fsRead, in}
			case stCheckpoint:
				t.links[0] = in
				if r.m.NodeBandwidth > 0 {
					t.bound = r.m.NodeBandwidth
				}
			case stStageOut, stDraining:
				t.links = [2]int{out, fsWrite}
				t.drain = st == stDraining
			}
			r.xs = append(r.xs, t)
			count++
		}
	}
	if count == 0 {
		return false
	}
	if st == stDraining {
		s.drains += count
	} else {
		s.stage, s.moving = st, count
	}
	return true
}

func (r *ioRun) compute(i int, t float64) {
	s := &r.state[i]
	s.stage, s.compEnd = stCompute, t+s.each
}

// afterCompute moves job i on at t, when a compute phase has ended.
func (r *ioRun) afterCompute(i int, t float64) {
	s := &r.state[i]
	s.done++
	if s.done < s.phases {
		if !r.begin(i, stCheckpoint, r.m.Checkpoint) {
			r.compute(i, t)
		}
		return
	}
	if !r.begin(i, stStageOut, r.m.StageOut) {
		r.finish(i, t)
	}
}

// finish ends job i's stage-out at t: it completes when its drains have.
func (r *ioRun) finish(i int, t float64) {
	s := &r.state[i]
	s.stage = stDraining
	if s.drains == 0 {
		s.stage, r.done[i] = stOver, t
	}
}

// rates shares the links by max-min fairness, transfer by transfer.
func (r *ioRun) rates() {
	left := slices.Clone(r.caps)
	fixed := make([]bool, len(r.xs))
	for {
		users := make([]int, len(left))
		any := false
		for k, t := range r.xs {
			if fixed[k] {
				continue
			}
			any = true
			for _, l := range t.links {
				if l >= 0 {
					users[l]++
				}
			}
		}
		if !any {
			return
		}
		share := math.Inf(1)
		for l, u := range users {
			if u > 0 {
				share = min(share, left[l]/float64(u))
			}
		}
		for k, t := range r.xs {
			if !fixed[k] {
				share = min(share, t.bound)
			}
		}
		share = max(share, 0)
		// Fix every transfer that the share saturates: its bound, or a
		// link whose fair share it is.
		now := []int{}
		for k, t := range r.xs {
			if fixed[k] {
				continue
			}
			hit := t.bound <= share
			for _, l := range t.links {
				if l >= 0 && left[l]/float64(users[l]) <= share {
					hit = true
				}
			}
			if hit {
				fixed[k], t.rate = true, share
				now = append(now, k)
			}
		}
		for _, k := range now {
			for _, l := range r.xs[k].links {
				if l >= 0 {
					left[l] = max(left[l]-share, 0)
				}
			}
		}
	}
}

// run replays the records' starts and computes every job's completion.
func (r *ioRun) run() {
	const eps = sdk.IOEpsilon
	for i := range r.done {
		r.done[i] = math.Inf(1)
	}
	next := 0
	type deadline struct {
		at  int64
		job int
	}
	var dls []deadline
	for {
		// The next exact event inside the model.
		te := math.Inf(1)
		for _, t := range r.xs {
			if t.rate > 0 {
				te = min(te, r.now+t.left/t.rate)
			}
		}
		for _, i := range r.active {
			if s := &r.state[i]; s.stage == stCompute {
				te = min(te, s.compEnd)
			}
		}
		// The next start or deadline, a whole second.
		ts := int64(math.MaxInt64)
		if next < len(r.starts) {
			ts = r.recs[r.starts[next]].Start
		}
		if len(dls) > 0 {
			ts = min(ts, dls[0].at)
		}
		if math.IsInf(te, 1) && ts == math.MaxInt64 {
			return
		}
		if te <= float64(ts)+eps {
			t := min(te, float64(ts))
			r.advance(t)
			r.events(t)
			r.rates()
			continue
		}
		t := float64(ts)
		r.advance(t)
		// Deadlines first, then starts.
		for len(dls) > 0 && dls[0].at == ts {
			if math.IsInf(r.done[dls[0].job], 1) {
				r.kill(dls[0].job)
			}
			dls = dls[1:]
		}
		for next < len(r.starts) && r.recs[r.starts[next]].Start == ts {
			i := r.starts[next]
			next++
			in := &r.jobs[i]
			s := &r.state[i]
			s.phases, s.each = r.m.Phases(min(in.Runtime, in.Job.Walltime))
			d := deadline{at: ts + in.Job.Walltime, job: i}
			k, _ := slices.BinarySearchFunc(dls, d, func(a, b deadline) int {
				if a.at != b.at {
					return int(min(max(a.at-b.at, -1), 1))
				}
				return a.job - b.job
			})
			dls = slices.Insert(dls, k, d)
			r.active = append(r.active, i)
			if !r.begin(i, stStageIn, r.m.StageIn) {
				r.compute(i, t)
			}
		}
		r.rates()
	}
}

func (r *ioRun) advance(t float64) {
	if dt := t - r.now; dt > 0 {
		for _, x := range r.xs {
			x.left -= x.rate * dt
		}
		r.now = t
	}
}

// events ends, at t, the transfers and compute phases due then.
func (r *ioRun) events(t float64) {
	const eps = sdk.IOEpsilon
	var over []*transfer
	kept := r.xs[:0]
	for _, x := range r.xs {
		if x.rate > 0 && x.left/x.rate <= eps {
			over = append(over, x)
		} else {
			kept = append(kept, x)
		}
	}
	r.xs = kept
	for _, x := range over {
		s := &r.state[x.job]
		if x.drain {
			if s.drains--; s.drains == 0 && s.stage == stDraining {
				s.stage, r.done[x.job] = stOver, t
			}
			continue
		}
		if s.moving--; s.moving > 0 {
			continue
		}
		switch s.stage {
		case stStageIn:
			r.compute(x.job, t)
		case stCheckpoint:
			if r.m.Drain {
				r.begin(x.job, stDraining, r.m.Checkpoint)
			}
			r.compute(x.job, t)
		case stStageOut:
			r.finish(x.job, t)
		}
	}
	for _, i := range r.active {
		if s := &r.state[i]; s.stage == stCompute && s.compEnd <= t+eps {
			r.afterCompute(i, t)
		}
	}
	kept2 := r.active[:0]
	for _, i := range r.active {
		if r.state[i].stage != stOver {
			kept2 = append(kept2, i)
		}
	}
	r.active = kept2
}

// kill ends job i at its deadline: its transfers stop.
func (r *ioRun) kill(i int) {
	r.done[i] = math.NaN()
	r.state[i].stage = stOver
	r.active = slices.DeleteFunc(r.active, func(k int) bool { return k == i })
	kept := r.xs[:0]
	for _, x := range r.xs {
		if x.job != i {
			kept = append(kept, x)
		}
	}
	r.xs = kept
}

// ioBoundsOK checks what a record of a run with an I/O model says of its
// length: killed at its deadline, or ended between its compute time and
// its deadline.
func (c *Checker) ioBoundsOK(j *sdk.Job, in *sim.Input, r *sim.Record) bool {
	dl := r.Start + j.Walltime
	switch {
	case r.Killed && r.End != dl:
		return c.add("job id %d: killed at %d, not at its deadline %d", j.ID, r.End, dl)
	case r.End > dl:
		return c.add("job id %d: ends at %d, after its deadline %d", j.ID, r.End, dl)
	case r.End < r.Start+min(in.Runtime, j.Walltime):
		return c.add("job id %d: ends at %d, before its start %d plus its compute time %d", j.ID, r.End, r.Start, min(in.Runtime, j.Walltime))
	case !r.Killed && in.Runtime > j.Walltime:
		return c.add("job id %d: not killed, but its runtime %d exceeds its walltime %d", j.ID, in.Runtime, j.Walltime)
	}
	return true
}

// ioSlack is how far IO's completion times may differ from the engine's,
// by the rounding of two ways to compute them: half of sdk.IOEpsilon, so
// that a completion at a whole second still rounds to that second only.
const ioSlack = sdk.IOEpsilon / 2
