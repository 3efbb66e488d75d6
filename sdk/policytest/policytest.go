// Package policytest is the harness policy authors run in their own tests:
// small scenarios whose schedule was worked out by hand, and the invariants
// every valid schedule obeys, checked the way a schedlab host checks a plugin.
//
//	func TestMyPolicy(t *testing.T) {
//		policytest.Run(t, mypolicy.Plugin(), policytest.Scenario{
//			Name:  "second job waits for the first",
//			Procs: 4,
//			Jobs: []policytest.Job{
//				{ID: 1, Submit: 0, Runtime: 10, Walltime: 10, Procs: 4},
//				{ID: 2, Submit: 1, Runtime: 5, Walltime: 5, Procs: 4},
//			},
//			Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 10}},
//		})
//	}
package policytest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// Job is a job of a scenario on a processors-only platform.
type Job struct {
	ID                        int64
	Submit, Runtime, Walltime int64
	Procs                     int64
}

// Start is an expected start time, with the expected first promise when
// Promised is not zero.
type Start struct {
	ID       int64
	At       int64
	Promised int64
}

// Scenario is a small workload and the schedule a policy must give it.
type Scenario struct {
	Name string
	// Procs is the size of a single-cluster platform; ignored when Platform
	// is set.
	Procs    int64
	Platform *sdk.Platform
	Jobs     []Job
	// Requests, when set, gives each job's full request vector (by job
	// position) for multi-resource platforms; Job.Procs is ignored then.
	Requests []sdk.Vector
	Params   map[string]string
	Exact    bool
	// Want lists the expected start of every job.
	Want []Start
}

// Inputs returns the scenario's workload, sorted for the engine.
func (sc Scenario) Inputs() []sim.Input {
	in := make([]sim.Input, len(sc.Jobs))
	for i, j := range sc.Jobs {
		req := sdk.Vector{j.Procs}
		if sc.Requests != nil {
			req = sc.Requests[i].Clone()
		}
		in[i] = sim.Input{
			Job: sdk.Job{
				ID: j.ID, Submit: j.Submit, Walltime: j.Walltime, Request: req,
				User: -1, Group: -1, App: -1, Queue: -1, Partition: -1,
			},
			Runtime: j.Runtime,
		}
	}
	sim.Sort(in)
	return in
}

func (sc Scenario) platform() *sdk.Platform {
	if sc.Platform != nil {
		return sc.Platform
	}
	return sdk.SingleCluster("test", sc.Procs)
}

// Simulate runs the scenario under p, checks the schedule with the host's
// replay verification, and returns the records by job ID.
func Simulate(p sdk.Plugin, sc Scenario) (map[int64]sim.Record, error) {
	in := sc.Inputs()
	plat := sc.platform()
	res, err := sim.Run(context.Background(), p, sim.Config{Platform: plat, Jobs: in, Params: sc.Params, ExactEstimates: sc.Exact})
	if err != nil {
		return nil, err
	}
	if err := verify.Result(plat, in, res); err != nil {
		return nil, err
	}
	out := make(map[int64]sim.Record, len(in))
	for i, r := range res.Records {
		out[in[i].Job.ID] = r
	}
	return out, nil
}

// Run simulates the scenario under p and fails t unless every job starts as
// the scenario wants.
func Run(t testing.TB, p sdk.Plugin, sc Scenario) {
	t.Helper()
	got, err := Simulate(p, sc)
	if err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	var diffs []string
	for _, w := range sc.Want {
		r, ok := got[w.ID]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("job %d: not in the workload", w.ID))
		case r.Start != w.At:
			diffs = append(diffs, fmt.Sprintf("job %d: starts at %d, want %d", w.ID, r.Start, w.At))
		case w.Promised != 0 && (!r.HasPromise || r.Promised != w.Promised):
			diffs = append(diffs, fmt.Sprintf("job %d: first promise %d (given: %v), want %d", w.ID, r.Promised, r.HasPromise, w.Promised))
		}
	}
	if len(sc.Want) != len(sc.Jobs) {
		diffs = append(diffs, fmt.Sprintf("scenario lists %d expected starts for %d jobs", len(sc.Want), len(sc.Jobs)))
	}
	if len(diffs) > 0 {
		t.Errorf("%s under %s:\n  %s\n  schedule: %s", sc.Name, p.Info.Name, strings.Join(diffs, "\n  "), describe(got))
	}
}

func describe(recs map[int64]sim.Record) string {
	ids := make([]int64, 0, len(recs))
	for id := range recs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	for _, id := range ids {
		r := recs[id]
		fmt.Fprintf(&b, "%d@[%d,%d) ", id, r.Start, r.End)
	}
	return b.String()
}
