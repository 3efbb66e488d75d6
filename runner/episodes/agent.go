package episodes

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
)

// The frames of an episode whose steps are taken in this process
// (Request.Agent): an observation for the agent, and its answer.
const (
	// MsgObservation ('B'): uint32 calls so far, uint32 jobs waiting,
	// then the observation's rows of Features float32 values each, then
	// one byte per action, 1 where the action mask allows it.
	MsgObservation = 'B'
	// MsgAction ('A'): the action, an int32.
	MsgAction = 'A'
)

// Features is the number of values in a row of an observation.
const Features = 6

// The scales of an observation's job rows: a wait of 12 h or more reads 1,
// and so does a requested walltime of a day or more.
const (
	waitScale     = 12 * 3600
	walltimeScale = 24 * 3600
)

// The masks of AgentSpec.Mask.
const (
	MaskAny  = "any"
	MaskFits = "fits"
)

// AgentSpec asks for an episode whose steps this process takes, by the
// rules of the Python package's SchedulingEnv (docs there): the agent
// picks the waiting job to start next from an observation of the first
// Queue waiting jobs and of the platform; a job that fits starts at once
// and the agent picks again; one that does not starts as soon as it fits,
// jobs behind it backfilled meanwhile when Backfill (EASY's reservation,
// by the reading Reservation); action Queue waits for the next event,
// where one is ahead (a running job's end, an outage's end), and any
// action that is not a waiting job's row picks the first waiting job. The
// agent sees only the observations and answers with actions: the engine
// runs in this process, and an episode costs a round trip per pick only.
type AgentSpec struct {
	Queue        int    `json:"queue"`
	Backfill     bool   `json:"backfill"`
	Reservation  string `json:"reservation"`
	Mask         string `json:"mask"`
	ObserveNodes bool   `json:"observe_nodes"`
}

// check reports a setting out of its range.
func (a *AgentSpec) check(plat *sdk.Platform) error {
	switch {
	case a.Queue < 1:
		return fmt.Errorf("agent.queue: %d, want at least 1", a.Queue)
	case a.Reservation != backfill.ReservationCount && a.Reservation != backfill.ReservationBatsched:
		return fmt.Errorf("agent.reservation: %q is not %s or %s", a.Reservation, backfill.ReservationCount, backfill.ReservationBatsched)
	case a.Mask != MaskAny && a.Mask != MaskFits:
		return fmt.Errorf("agent.mask: %q is not %s or %s", a.Mask, MaskAny, MaskFits)
	case a.ObserveNodes && !plat.HasNodes():
		return errors.New("agent.observe_nodes: a pool has no nodes")
	}
	return nil
}

// agent is the policy of an episode whose steps this process takes: at
// each pick it sends the observation over rw and reads the action.
type agent struct {
	rw    conn
	spec  AgentSpec
	pick  *backfill.Picker
	calls int
	// reserved is the job picked that did not fit, which starts first
	// once it does.
	reserved *sdk.Job
	waiting  []*sdk.Job
	// capacity is the cluster's processors (cores on nodes), mostCores
	// the most cores a node has; layout is nil on a pool.
	capacity  float64
	mostCores float64
	layout    *sdk.Layout
	nodes     int
	inService []bool
	fits      []bool
	frame     []byte
}

func newAgent(rw conn, spec AgentSpec) *agent {
	return &agent{rw: rw, spec: spec}
}

func (a *agent) Init(env sdk.Env) error {
	p, err := backfill.NewPicker(env, a.spec.Reservation)
	if err != nil {
		return err
	}
	a.pick = p
	a.capacity = float64(env.Platform.Clusters[0].Capacity[0])
	return nil
}

// learnLayout takes the layout of the nodes n (the engine's, shown to the
// first call) and what the observation reads of it.
func (a *agent) learnLayout(n *sdk.Nodes) {
	a.layout = n.Layout
	a.nodes = a.layout.Len()
	for _, g := range a.layout.Groups() {
		a.mostCores = max(a.mostCores, float64(g.Cores))
	}
	a.inService = make([]bool, a.nodes)
}

func (a *agent) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	a.calls++
	a.pick.Begin(s)
	if n := a.pick.Nodes(); n != nil && a.layout == nil {
		a.learnLayout(n)
	}
	a.waiting = append(a.waiting[:0], s.Queue...)
	if r := a.reserved; r != nil {
		if !a.pick.Fits(r) {
			if a.spec.Backfill {
				a.pick.Backfill(s, r, a.waiting)
			}
			return a.pick.Decisions(), nil
		}
		a.reserved = nil
		a.take(r)
	}
	for len(a.waiting) > 0 {
		act, err := a.ask(s)
		if err != nil {
			return nil, err
		}
		if act == a.spec.Queue && a.eventAhead(s) {
			break
		}
		job := a.waiting[0]
		if act >= 0 && act < min(len(a.waiting), a.spec.Queue) {
			job = a.waiting[act]
		}
		if a.pick.Fits(job) {
			a.take(job)
			continue
		}
		a.reserved = job
		if a.spec.Backfill {
			a.pick.Backfill(s, job, a.waiting)
		}
		break
	}
	return a.pick.Decisions(), nil
}

// take starts j, which fits.
func (a *agent) take(j *sdk.Job) {
	a.pick.Start(j)
	if k := slices.Index(a.waiting, j); k >= 0 {
		a.waiting = slices.Delete(a.waiting, k, k+1)
	}
}

// eventAhead reports whether an event will come without a start: a
// running job's end, or the end of an outage in effect.
func (a *agent) eventAhead(s *sdk.State) bool {
	if len(s.Running) > 0 || a.pick.Started() > 0 {
		return true
	}
	for i := range s.Outages {
		if s.Outages[i].Start <= s.Now {
			return true
		}
	}
	return false
}

// ask sends the observation and returns the agent's action.
func (a *agent) ask(s *sdk.State) (int, error) {
	a.frame = a.observe(s, a.frame[:0])
	if _, err := a.rw.Write(a.frame); err != nil {
		return 0, fmt.Errorf("environment: %w", err)
	}
	typ, p, err := host.ReadCallsMessage(a.rw)
	if err != nil {
		return 0, fmt.Errorf("environment: %w", err)
	}
	if typ != MsgAction || len(p) != 4 {
		return 0, fmt.Errorf("environment: a frame of type %q and %d bytes where an action was due", typ, len(p))
	}
	return int(int32(binary.LittleEndian.Uint32(p))), nil
}

// observe appends the observation frame (MsgObservation, its length
// first) to b.
func (a *agent) observe(s *sdk.State, b []byte) []byte {
	q := a.spec.Queue
	rows := q + 1
	if a.spec.ObserveNodes {
		rows += a.nodes
	}
	payload := 8 + 4*Features*rows + q + 1
	b = binary.LittleEndian.AppendUint32(b, uint32(1+payload))
	b = append(b, MsgObservation)
	b = binary.LittleEndian.AppendUint32(b, uint32(a.calls))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(a.waiting)))
	row := func(v [Features]float64) {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(x)))
		}
	}
	free := a.pick.Free()
	shown := a.waiting[:min(len(a.waiting), q)]
	a.fits = slices.Grow(a.fits[:0], len(shown))[:len(shown)]
	fits := a.fits
	for i, j := range shown {
		if a.layout == nil {
			fits[i] = j.Request[0] <= free[0]
		} else {
			fits[i] = a.pick.Fits(j)
		}
		row([Features]float64{
			math.Min(1, float64(s.Now-j.Submit)/waitScale),
			math.Min(1, float64(j.Walltime)/walltimeScale),
			math.Min(1, float64(j.Request[0])/a.capacity),
			b2f(fits[i]),
			float64(((j.User%256)+256)%256) / 255,
			1,
		})
	}
	for range q - len(shown) {
		row([Features]float64{})
	}
	last := [Features]float64{
		float64(free[0]) / a.capacity,
		math.Min(1, float64(len(s.Running)+a.pick.Started())/a.capacity),
		math.Min(1, float64(len(a.waiting))/float64(q)),
		0, 0, 1,
	}
	n := a.pick.Nodes()
	if a.layout != nil {
		whole, most := 0, int64(0)
		for k := range a.nodes {
			f := n.Free[k]
			if f == a.layout.Cap(k) {
				whole++
			}
			most = max(most, f.Cores)
		}
		last[3] = float64(whole) / float64(a.nodes)
		last[4] = float64(most) / a.mostCores
	}
	row(last)
	if a.spec.ObserveNodes {
		for k := range a.inService {
			a.inService[k] = true
		}
		for i := range s.Outages {
			o := &s.Outages[i]
			if o.Start <= s.Now && o.Cluster == 0 {
				for k := range o.All(int32(a.nodes)) {
					a.inService[k] = false
				}
			}
		}
		for k := range a.nodes {
			f, c := n.Free[k], a.layout.Cap(k)
			row([Features]float64{
				ratio(f.Cores, c.Cores),
				ratio(f.Memory, c.Memory),
				ratio(f.GPUs, c.GPUs),
				b2f(a.inService[k]),
				b2f(a.inService[k] && f == c),
				1,
			})
		}
	}
	for i := range q {
		b = append(b, byte(b2f(i < len(shown) && (a.spec.Mask == MaskAny || fits[i]))))
	}
	return append(b, byte(b2f(a.eventAhead(s))))
}

// ratio is x over of, 0 where of is.
func ratio(x, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(x) / float64(of)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
