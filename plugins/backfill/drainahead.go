package backfill

import (
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// drainAheadParam is easy's drain_ahead: how long before a maintenance
// window EASY drains the window's nodes itself (sdk.DrainNodes), as an
// operator drains a machine ahead of its maintenance.
func drainAheadParam() sdk.Param {
	return sdk.Param{Name: "drain_ahead", Type: sdk.Int, Default: "-1",
		Doc: "seconds before each maintenance window ahead at which easy drains the window's nodes itself (sdk.DrainNodes: " +
			"no job starts there from then, the jobs on them run to their end) and resumes them once the window is over; " +
			"0 or -1 (the default) drains nothing, a window taking its nodes out itself when it begins, and plans around windows job by job only"}
}

// drainer is what easy keeps of its own drains (drain_ahead); nil when it
// drains nothing.
type drainer struct {
	// lead is drain_ahead, in seconds (>= 0).
	lead int64
	// until is, per node, the end of the latest window easy drained it
	// for, after which it resumes it; math.MinInt64 when it has not
	// drained the node.
	until         []int64
	drain, resume []int32
	v             sdk.Vector
}

// newDrainer returns easy's drainer for env, nil when drain_ahead is -1.
func newDrainer(env sdk.Env) (*drainer, error) {
	lead := env.Params.Int("drain_ahead")
	switch {
	case lead == -1:
		return nil, nil
	case lead < 0:
		return nil, fmt.Errorf("easy: drain_ahead = %d: want -1 (never) or a number of seconds >= 0", lead)
	case !env.Platform.HasNodes():
		return nil, fmt.Errorf("easy: drain_ahead = %d drains nodes; platform %q has none", lead, env.Platform.Name)
	case env.Params.String("windows") == WindowsIgnore:
		return nil, fmt.Errorf("easy: drain_ahead = %d drains ahead of the windows that windows = %s ignores", lead, WindowsIgnore)
	case env.Params.Int("idle_off") >= 0 && env.Power != nil:
		// A drained node is out of service, and the engine switches no
		// such node off.
		return nil, fmt.Errorf("easy: drain_ahead and idle_off together are not supported")
	}
	d := &drainer{lead: lead, until: make([]int64, env.Platform.Clusters[0].NodeCount())}
	for k := range d.until {
		d.until[k] = math.MinInt64
	}
	return d, nil
}

// reach returns how far ahead of a start at now a maintenance window must
// begin to keep a job of walltime w off its nodes: past the job's end
// (the engine's hard rule), and, with drain_ahead, past the time easy
// drains them, lead before the window. A window that begins at S keeps a
// start at t off its nodes when S < t + reach(w), that is, with a lead,
// from S - lead on, when easy drains them.
func (r *room) reach(w int64) int64 {
	if r.lead < 0 {
		return w
	}
	return max(w, r.lead+1)
}

// decide appends to out easy's drains and resumes of this call, before
// any start: the nodes of every window that begins within the lead are
// drained, and those whose windows are all over resumed. It then shows
// the room every node easy has drained, or resumed now, with what the
// jobs on it leave free, as the node will have once back in service,
// unless an outage in effect holds it: the engine withholds a drained
// node's free amount, but easy plans with it, the windows ahead keeping
// every start off the node until they end (reach).
func (d *drainer) decide(s *sdk.State, r *room, out []sdk.Decision) []sdk.Decision {
	d.drain, d.resume = d.drain[:0], d.resume[:0]
	n := int32(len(d.until))
	for k, u := range d.until {
		if u != math.MinInt64 && u <= s.Now {
			d.resume = append(d.resume, int32(k))
			d.until[k] = math.MinInt64
		}
	}
	for i := range s.Outages {
		o := &s.Outages[i]
		if o.Kind != sdk.Maintenance || o.Start <= s.Now || o.Start > s.Now+d.lead {
			continue
		}
		for k := range o.All(n) {
			if d.until[k] == math.MinInt64 {
				d.drain = append(d.drain, k)
			}
			d.until[k] = max(d.until[k], o.End)
		}
	}
	if len(d.resume) > 0 {
		out = append(out, sdk.ResumeNodes(0, d.resume))
	}
	if len(d.drain) > 0 {
		// Windows overlap: the nodes come in window order.
		slices.Sort(d.drain)
		out = append(out, sdk.DrainNodes(0, d.drain))
	}
	for _, k := range d.resume {
		d.show(s, r, k)
	}
	for k, u := range d.until {
		if u != math.MinInt64 {
			d.show(s, r, int32(k))
		}
	}
	return out
}

// show makes node k of the room have what the jobs running on it leave
// free, unless an outage in effect holds it.
func (d *drainer) show(s *sdk.State, r *room, k int32) {
	if len(r.down) > 0 && r.down[k] {
		return
	}
	l := r.nodes.Layout
	f := l.Cap(int(k))
	for _, run := range s.Running {
		for x, m := range run.Alloc.Nodes {
			if m == k {
				h := l.Held(run.Job.Tasks, k, run.Alloc.Tasks[x])
				f = sdk.Amount{Cores: f.Cores - h.Cores, Memory: f.Memory - h.Memory, GPUs: f.GPUs - h.GPUs}
			}
		}
	}
	old := r.nodes.Free[k]
	d.v = append(d.v[:0], make(sdk.Vector, len(r.free))...)
	r.setHeld(d.v, sdk.Amount{Cores: f.Cores - old.Cores, Memory: f.Memory - old.Memory, GPUs: f.GPUs - old.GPUs})
	r.free.Add(d.v)
	r.nodes.SetFree(k, f)
}
