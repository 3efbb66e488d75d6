package calls_test

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	. "github.com/schedlab/schedlab/sdk/internal/calls"
)

// mirror is the policy side of the call protocol written in Go, as
// python/src/schedlab/_wire.py writes it in Python: it rebuilds the State
// the engine shows from the State frames, and serves a Go policy from it.
// The tests compare what that policy sees and decides with what it sees
// and decides called by the engine directly.
type mirror struct {
	plugin  sdk.Plugin
	policy  sdk.Policy
	plat    *sdk.Platform
	dims    int
	nodes   bool
	outages bool
	jobs    []*sdk.Job
	state   sdk.State
	// allocs keeps the placements of running jobs, which Running points to.
	allocs map[int]*sdk.Alloc
	units  map[int][]int32
}

// serve answers frames on conn until it closes.
func (m *mirror) serve(conn io.ReadWriter) error {
	var rbuf, wbuf []byte
	for {
		typ, p, buf, err := ReadFrame(conn, rbuf)
		rbuf = buf
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch typ {
		case MsgInit:
			err = m.init(p)
			if err == nil {
				wbuf, err = WriteFrame(conn, wbuf, MsgReady, nil)
			}
		case MsgState:
			var ds []sdk.Decision
			ds, err = m.schedule(p)
			if err == nil {
				wbuf, err = WriteFrame(conn, wbuf, MsgDecisions, encodeDecisions(ds))
			}
		case MsgEnd:
			m.policy = nil
			continue
		default:
			err = fmt.Errorf("frame type %q", typ)
		}
		if err != nil {
			if wbuf, err = WriteFrame(conn, wbuf, MsgError, []byte(err.Error())); err != nil {
				return err
			}
		}
	}
}

func (m *mirror) init(p []byte) error {
	var doc InitDoc
	if err := json.Unmarshal(p, &doc); err != nil {
		return err
	}
	params, err := sdk.ResolveParams(m.plugin.Info.Params, doc.Params)
	if err != nil {
		return err
	}
	m.plat, m.dims, m.nodes, m.outages = doc.Platform, doc.Platform.Dims(), doc.Platform.HasNodes(), doc.Outages
	m.jobs = nil
	m.allocs, m.units = map[int]*sdk.Alloc{}, map[int][]int32{}
	m.state = sdk.State{Platform: m.plat, Free: make([]sdk.Vector, len(m.plat.Clusters))}
	for c := range m.plat.Clusters {
		m.state.Free[c] = make(sdk.Vector, m.dims)
		if n := m.plat.Clusters[c].UnitCount(); n > 0 {
			if m.state.FreeUnits == nil {
				m.state.FreeUnits = make([][]int64, len(m.plat.Clusters))
			}
			m.state.FreeUnits[c] = make([]int64, n)
		}
	}
	if m.nodes {
		m.state.Nodes = make([]*sdk.Nodes, len(m.plat.Clusters))
		for c := range m.plat.Clusters {
			if m.plat.Clusters[c].HasNodes() {
				m.state.Nodes[c] = sdk.NewLayout(m.plat, c).NewNodes()
			}
		}
	}
	if doc.Power != nil {
		// Every node is on at the start, as in the engine.
		p := &sdk.PowerState{Modes: make([][]sdk.PowerMode, len(m.plat.Clusters)), Until: make([][]int64, len(m.plat.Clusters))}
		for c := range m.plat.Clusters {
			if n := m.plat.Clusters[c].NodeCount(); n > 0 {
				p.Modes[c], p.Until[c] = make([]sdk.PowerMode, n), make([]int64, n)
			}
		}
		m.state.Power = p
	}
	m.policy = m.plugin.New()
	return m.policy.Init(sdk.Env{Platform: m.plat, Params: params, Seed: doc.Seed,
		Rand: rand.New(rand.NewPCG(doc.Seed, 0x5eed_0f_7011c7)), ExactEstimates: doc.ExactEstimates, Power: doc.Power, Outages: doc.Outages})
}

func (m *mirror) schedule(p []byte) ([]sdk.Decision, error) {
	r := reader{b: p}
	s := &m.state
	s.Now = r.i64()
	nArrived, nLeft, nCompleted, nRefused, nNodes := int(r.u32()), int(r.u32()), int(r.u32()), int(r.u32()), int(r.u32())
	for c := range m.plat.Clusters {
		for k := range m.dims {
			s.Free[c][k] = r.i64()
		}
	}
	for _, u := range s.FreeUnits {
		for k := range u {
			u[k] = r.i64()
		}
	}
	for _, n := range s.Nodes {
		if n != nil {
			n.ClearChanged()
		}
	}
	for range nLeft {
		idx, cluster, start := int(r.i32()), int(r.i32()), r.i64()
		var units []int32
		for range r.u32() {
			units = append(units, r.i32())
		}
		var alloc *sdk.Alloc
		if n := int(r.u32()); n > 0 {
			alloc = &sdk.Alloc{Nodes: make([]int32, n), Tasks: make([]int32, n)}
			for k := range n {
				alloc.Nodes[k] = r.i32()
			}
			for k := range n {
				alloc.Tasks[k] = r.i32()
			}
		}
		if r.err != nil || idx < 0 || idx >= len(m.jobs) {
			return nil, fmt.Errorf("left: bad job %d (%v)", idx, r.err)
		}
		k, ok := slices.BinarySearchFunc(s.Queue, idx, func(j *sdk.Job, i int) int { return cmp.Compare(j.Index, i) })
		if !ok && m.outages {
			// A job requeued to the end of the queue leaves it out of
			// index order.
			k = slices.IndexFunc(s.Queue, func(j *sdk.Job) bool { return j.Index == idx })
			ok = k >= 0
		}
		if !ok {
			return nil, fmt.Errorf("left: job %d is not queued", idx)
		}
		s.Queue = slices.Delete(s.Queue, k, k+1)
		if cluster < 0 {
			continue
		}
		j := m.jobs[idx]
		run := sdk.Running{Job: j, Cluster: cluster, Start: start, ExpectedEnd: start + j.Walltime, Units: units, Alloc: alloc}
		k, _ = slices.BinarySearchFunc(s.Running, run, byEnd)
		s.Running = slices.Insert(s.Running, k, run)
	}
	s.Completed = s.Completed[:0]
	for range nCompleted {
		idx, cluster, start, end, killed := int(r.i32()), int(r.i32()), r.i64(), r.i64(), r.u8() == 1
		var cause sdk.OutageKind
		requeued := false
		if m.outages {
			cause, requeued = sdk.OutageKind(r.u8()), r.u8() == 1
		}
		if r.err != nil || idx < 0 || idx >= len(m.jobs) {
			return nil, fmt.Errorf("completed: bad job %d (%v)", idx, r.err)
		}
		j := m.jobs[idx]
		var alloc *sdk.Alloc
		if k, ok := slices.BinarySearchFunc(s.Running, sdk.Running{Job: j, ExpectedEnd: start + j.Walltime}, byEnd); ok {
			alloc = s.Running[k].Alloc
			s.Running = slices.Delete(s.Running, k, k+1)
		} else if s.Platform.Clusters[cluster].HasNodes() {
			// It started and ended between two calls: its placement came
			// with the left entry of this very frame, now in Running.
			return nil, fmt.Errorf("completed: job %d is not running", idx)
		}
		s.Completed = append(s.Completed, sdk.Completion{Job: j, Cluster: cluster, Start: start, End: end, Killed: killed, Alloc: alloc,
			Interrupted: cause, Requeued: requeued})
	}
	s.Refused = s.Refused[:0]
	for range nRefused {
		idx, cluster, at := int(r.i32()), int(r.i32()), r.i64()
		if r.err != nil || idx < 0 || idx >= len(m.jobs) {
			return nil, fmt.Errorf("refused: bad job %d", idx)
		}
		s.Refused = append(s.Refused, sdk.Refusal{Job: m.jobs[idx], Cluster: cluster, At: at})
	}
	for range nNodes {
		c, k := int(r.i32()), r.i32()
		a := sdk.Amount{Cores: r.i64(), Memory: r.i64(), GPUs: r.i64()}
		if r.err != nil {
			return nil, r.err
		}
		s.Nodes[c].SetFree(k, a)
	}
	for range nArrived {
		j := &sdk.Job{Index: int(r.i32()), ID: r.i64(), Submit: r.i64(), Walltime: r.i64(),
			User: r.i32(), Group: r.i32(), App: r.i32(), Queue: r.i32(), Partition: r.i32(),
			Priority: r.f64(), Home: r.i32(), Transfer: r.i64(), Request: make(sdk.Vector, m.dims)}
		for k := range m.dims {
			j.Request[k] = r.i64()
		}
		if m.nodes {
			j.Tasks = &sdk.Tasks{Count: r.i32(), Cores: r.i32(), Memory: r.i64(), GPUs: r.i32(), Nodes: r.i32(),
				Exclusive: r.u8() == 1, Partition: r.i32(), Features: r.u64()}
		}
		if r.err != nil || j.Index != len(m.jobs) {
			return nil, fmt.Errorf("arrived: job index %d after %d jobs (%v)", j.Index, len(m.jobs), r.err)
		}
		m.jobs = append(m.jobs, j)
		s.Queue = append(s.Queue, j)
	}
	if p := s.Power; p != nil {
		p.ClearChanged()
		p.Draw, p.Committed, p.Cap = r.f64(), r.f64(), r.f64()
		for range r.u32() {
			c, k, mode, until := int(r.i32()), r.i32(), sdk.PowerMode(r.u8()), r.i64()
			if r.err != nil || c < 0 || c >= len(p.Modes) || k < 0 || int(k) >= len(p.Modes[c]) {
				return nil, fmt.Errorf("power: bad node %d of cluster %d (%v)", k, c, r.err)
			}
			p.SetMode(c, k, mode, until)
		}
	}
	if m.outages {
		if err := m.applyOutages(&r); err != nil {
			return nil, err
		}
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, fmt.Errorf("state frame: %v, %d bytes left", r.err, len(r.b))
	}
	return m.policy.Schedule(s)
}

// applyOutages applies a State's outages section: the outages removed and
// added, then the jobs requeued, each at its place in the queue.
func (m *mirror) applyOutages(r *reader) error {
	s := &m.state
	nRemoved, nAdded := int(r.u32()), int(r.u32())
	removed := make([]int, nRemoved)
	for x := range removed {
		removed[x] = int(r.i32())
	}
	for x := len(removed) - 1; x >= 0; x-- {
		if k := removed[x]; r.err == nil && k >= 0 && k < len(s.Outages) {
			s.Outages = slices.Delete(s.Outages, k, k+1)
		} else {
			return fmt.Errorf("outages: removed %d of %d (%v)", k, len(s.Outages), r.err)
		}
	}
	for range nAdded {
		at := int(r.i32())
		o := sdk.Outage{Cluster: r.i32(), Start: r.i64(), End: r.i64(), Kind: sdk.OutageKind(r.u8())}
		for range r.u32() {
			o.Nodes = append(o.Nodes, r.i32())
		}
		if r.err != nil || at < 0 || at > len(s.Outages) {
			return fmt.Errorf("outages: added at %d of %d (%v)", at, len(s.Outages), r.err)
		}
		s.Outages = slices.Insert(s.Outages, at, o)
	}
	for range r.u32() {
		idx, at := int(r.i32()), int(r.i32())
		if r.err != nil || idx < 0 || idx >= len(m.jobs) || at < 0 || at > len(s.Queue) {
			return fmt.Errorf("requeued: job %d at %d (%v)", idx, at, r.err)
		}
		s.Queue = slices.Insert(s.Queue, at, m.jobs[idx])
	}
	return nil
}

func byEnd(a, b sdk.Running) int {
	if c := cmp.Compare(a.ExpectedEnd, b.ExpectedEnd); c != 0 {
		return c
	}
	return cmp.Compare(a.Job.Index, b.Job.Index)
}

// encodeDecisions is the Decisions payload of ds.
func encodeDecisions(ds []sdk.Decision) []byte {
	b := appendI32(nil, int32(len(ds)))
	for _, d := range ds {
		b = append(b, byte(d.Action))
		idx := int32(-1)
		if d.Job != nil {
			idx = int32(d.Job.Index)
		}
		b = appendI32(b, idx)
		b = appendI32(b, int32(d.Cluster))
		b = appendI64(b, d.Time)
		b = appendF64(b, d.Cost)
		units := d.Units
		if d.Nodes != nil {
			// Nodes travel where a start's units do.
			units = d.Nodes
		}
		b = appendI32(b, int32(len(units)))
		for _, u := range units {
			b = appendI32(b, u)
		}
		if d.Alloc == nil {
			b = appendI32(b, 0)
			continue
		}
		b = appendI32(b, int32(len(d.Alloc.Nodes)))
		for _, n := range d.Alloc.Nodes {
			b = appendI32(b, n)
		}
		for _, t := range d.Alloc.Tasks {
			b = appendI32(b, t)
		}
	}
	return b
}

// reader reads little-endian values, remembering the first shortfall.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || len(r.b) < n {
		if r.err == nil {
			r.err = errors.New("short frame")
		}
		return make([]byte, n)
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

func (r *reader) u8() uint8    { return r.take(1)[0] }
func (r *reader) i32() int32   { return int32(binary.LittleEndian.Uint32(r.take(4))) }
func (r *reader) u32() uint32  { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *reader) i64() int64   { return int64(binary.LittleEndian.Uint64(r.take(8))) }
func (r *reader) u64() uint64  { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *reader) f64() float64 { return math.Float64frombits(r.u64()) }

func appendI32(b []byte, v int32) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) }
func appendI64(b []byte, v int64) []byte { return binary.LittleEndian.AppendUint64(b, uint64(v)) }
func appendF64(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}
