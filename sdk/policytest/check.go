package policytest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/sim"
)

// An Invariant is a property a policy promises of every schedule it makes,
// checked on the records of a scenario (in job index order, as sim.Run
// returns them, beside the sorted workload).
type Invariant struct {
	Name  string
	Check func(jobs []sim.Input, recs []sim.Record) error
}

// StartsInSubmitOrder holds when no job starts before a job submitted
// earlier (ties by trace ID) does: the promise of FCFS without backfilling.
func StartsInSubmitOrder() Invariant {
	return Invariant{Name: "starts in submit order", Check: func(jobs []sim.Input, recs []sim.Record) error {
		for i := 1; i < len(recs); i++ {
			if recs[i].Start < recs[i-1].Start {
				return fmt.Errorf("job id %d starts at %d, before job id %d, submitted earlier, at %d",
					jobs[i].Job.ID, recs[i].Start, jobs[i-1].Job.ID, recs[i-1].Start)
			}
		}
		return nil
	}}
}

// PromisesKept holds when every job that was promised a start (sdk.Promise)
// starts no later than its first promise: the promise of backfilling that
// protects its reservations, when walltimes are upper bounds of runtimes.
func PromisesKept() Invariant {
	return Invariant{Name: "promises kept", Check: func(jobs []sim.Input, recs []sim.Record) error {
		for i, r := range recs {
			if r.HasPromise && r.Start > r.Promised {
				return fmt.Errorf("job id %d was promised a start at %d and started at %d", jobs[i].Job.ID, r.Promised, r.Start)
			}
		}
		return nil
	}}
}

// Check runs the scenario under p in this process, applies the host's
// replay verification (every job once, no start before submission, no
// resource over its capacity, placements within units), then each
// invariant, and, when the scenario has Want, compares the starts. It
// reports each failure on t and returns the records by job ID (nil when
// the run failed).
func Check(t testing.TB, p sdk.Plugin, sc Scenario, invariants ...Invariant) map[int64]sim.Record {
	t.Helper()
	res, in, err := run(host.InProcess(p), sc)
	if err != nil {
		t.Errorf("%s under %s: %v", sc.Name, p.Info.Name, err)
		return nil
	}
	for _, inv := range invariants {
		if err := inv.Check(in, res.Records); err != nil {
			t.Errorf("%s under %s: %s: %v", sc.Name, p.Info.Name, inv.Name, err)
		}
	}
	got := byID(in, res.Records)
	if diffs := sc.diffWant(got); len(diffs) > 0 {
		t.Errorf("%s under %s:\n  %s", sc.Name, p.Info.Name, strings.Join(diffs, "\n  "))
	}
	return got
}

// NoStateBetweenRuns checks that p keeps nothing from one run to the next,
// as a plugin process that serves many runs needs (each gets a fresh policy
// from p.New; state in package variables, or a New that returns the same
// value twice, would leak). In one process it runs the first scenario, then
// again, then each other scenario followed by the first once more: every
// run of a scenario must give the records of its first run.
func NoStateBetweenRuns(t testing.TB, p sdk.Plugin, scs ...Scenario) {
	t.Helper()
	if len(scs) == 0 {
		t.Fatal("policytest.NoStateBetweenRuns: no scenario")
	}
	noState(t, p.Info.Name, host.InProcess(p), scs)
}

// noState runs the scenarios on one policy as NoStateBetweenRuns says.
func noState(t testing.TB, name string, p host.Policy, scs []Scenario) {
	t.Helper()
	first := make([]*sim.Result, len(scs))
	again := func(k int, after string) {
		t.Helper()
		res, _, err := run(p, scs[k])
		switch {
		case err != nil:
			t.Errorf("%s under %s, %s: %v", scs[k].Name, name, after, err)
		case first[k] == nil:
			first[k] = res
		case !reflect.DeepEqual(res.Records, first[k].Records) || !reflect.DeepEqual(res.Units, first[k].Units) || !reflect.DeepEqual(res.Drains, first[k].Drains):
			t.Errorf("%s under %s: the records %s differ from those of its first run: the policy keeps state between runs",
				scs[k].Name, name, after)
		}
	}
	again(0, "first run")
	again(0, "run a second time")
	for k := 1; k < len(scs); k++ {
		again(k, "after "+scs[0].Name)
		again(0, "after "+scs[k].Name)
	}
}
