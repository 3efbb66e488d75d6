// Package policytest is the harness policy authors run in their own tests:
//
//   - Run: small scenarios whose schedule was worked out by hand;
//
//   - Random and Check: random workloads, busy enough to build a backlog,
//     and the invariants a policy promises (StartsInSubmitOrder,
//     PromisesKept), on top of the replay verification a schedlab host
//     applies to every plugin's answer (every job once, no resource over
//     its capacity, no start before submission);
//
//   - NoStateBetweenRuns: the same scenario twice, and interleaved with
//     others, gives identical records, so that a plugin process can serve
//     many runs;
//
//   - Acceptance: builds the policy's plugin binary and runs the scenarios
//     through the real handshake and transport, against the in-process
//     records.
//
//     func TestMyPolicy(t *testing.T) {
//     policytest.Run(t, mypolicy.Plugin(), policytest.Scenario{
//     Name:  "second job waits for the first",
//     Procs: 4,
//     Jobs: []policytest.Job{
//     {ID: 1, Submit: 0, Runtime: 10, Walltime: 10, Procs: 4},
//     {ID: 2, Submit: 1, Runtime: 5, Walltime: 5, Procs: 4},
//     },
//     Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 10}},
//     })
//     }
package policytest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// Job is a job of a scenario. Its attributes are what a policy sees of it
// (sdk.Job); a trace that lacks one has -1 there, as SWF does, while a
// scenario's zero value is 0.
type Job struct {
	ID                        int64
	Submit, Runtime, Walltime int64
	// Procs is the number of processors requested, on a platform of
	// processors only; see Scenario.Requests for other resources.
	Procs                              int64
	User, Group, App, Queue, Partition int32
	// Priority is the job's declared priority or payment.
	Priority float64
	// Tasks is how the job lies on nodes, on a platform of nodes (see
	// sdk.Tasks); its request is then what its tasks hold
	// (sdk.Layout.Request), and Procs is ignored.
	Tasks *sdk.Tasks
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
	// Seed is the run's seed (sdk.Env.Seed), from which the policy's random
	// stream is drawn.
	Seed uint64
	// Want lists the expected start of every job, for Run; Check and
	// Acceptance compare with it when it is set.
	Want []Start
}

// Inputs returns the scenario's workload, sorted for the engine.
func (sc Scenario) Inputs() []sim.Input {
	in := make([]sim.Input, len(sc.Jobs))
	plat := sc.platform()
	var layout *sdk.Layout
	if plat.HasNodes() {
		layout = sdk.NewLayout(plat, 0)
	}
	for i, j := range sc.Jobs {
		req := sdk.Vector{j.Procs}
		if sc.Requests != nil {
			req = sc.Requests[i].Clone()
		}
		var tasks *sdk.Tasks
		if j.Tasks != nil {
			t := *j.Tasks
			tasks = &t
			if layout != nil {
				if len(req) != plat.Dims() {
					req = make(sdk.Vector, plat.Dims())
				}
				layout.Request(tasks, req)
			}
		}
		in[i] = sim.Input{
			Job: sdk.Job{
				ID: j.ID, Submit: j.Submit, Walltime: j.Walltime, Request: req,
				User: j.User, Group: j.Group, App: j.App, Queue: j.Queue, Partition: j.Partition,
				Priority: j.Priority, Tasks: tasks,
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

// spec is the run of the scenario, but for its jobs.
func (sc Scenario) spec() host.RunSpec {
	return host.RunSpec{Platform: sc.platform(), Params: sc.Params, Seed: sc.Seed, ExactEstimates: sc.Exact}
}

// Simulate runs the scenario under p, checks the schedule with the host's
// replay verification, and returns the records by job ID.
func Simulate(p sdk.Plugin, sc Scenario) (map[int64]sim.Record, error) {
	res, in, err := run(host.InProcess(p), sc)
	if err != nil {
		return nil, err
	}
	return byID(in, res.Records), nil
}

// run runs the scenario under p, as a host does: the records are checked
// with the host's replay verification as they arrive. It returns the
// scenario's inputs too, which the records follow.
func run(p host.Policy, sc Scenario) (*sim.Result, []sim.Input, error) {
	in := sc.Inputs()
	spec := sc.spec()
	check := verify.NewChecker(spec.Platform, in)
	res, err := p.Run(context.Background(), spec, in, check.Add)
	if err != nil {
		return nil, nil, err
	}
	check.SetDrains(res.Drains)
	if err := check.Finish(res.Units, res.Allocs); err != nil {
		return nil, nil, err
	}
	return res, in, nil
}

// byID returns the records of the jobs in by job ID.
func byID(in []sim.Input, recs []sim.Record) map[int64]sim.Record {
	out := make(map[int64]sim.Record, len(in))
	for i, r := range recs {
		out[in[i].Job.ID] = r
	}
	return out
}

// Run simulates the scenario under p and fails t unless every job starts as
// the scenario wants.
func Run(t testing.TB, p sdk.Plugin, sc Scenario) {
	t.Helper()
	got, err := Simulate(p, sc)
	if err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	if len(sc.Want) != len(sc.Jobs) {
		t.Errorf("%s: scenario lists %d expected starts for %d jobs", sc.Name, len(sc.Want), len(sc.Jobs))
	}
	if diffs := sc.diffWant(got); len(diffs) > 0 {
		t.Errorf("%s under %s:\n  %s\n  schedule: %s", sc.Name, p.Info.Name, strings.Join(diffs, "\n  "), describe(got))
	}
}

// diffWant lists how the records differ from the scenario's expected starts.
func (sc Scenario) diffWant(got map[int64]sim.Record) []string {
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
	return diffs
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
