package policytest_test

import (
	"fmt"
	"testing"

	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/policytest/testdata/smallfirst"
)

func TestSmallFirst(t *testing.T) {
	policytest.Run(t, smallfirst.Plugin(), policytest.Scenario{
		Name:  "the small job overtakes",
		Procs: 4,
		Jobs: []policytest.Job{
			{ID: 1, Submit: 0, Runtime: 10, Walltime: 10, Procs: 3},
			{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Procs: 4},
			{ID: 3, Submit: 1, Runtime: 5, Walltime: 5, Procs: 1},
		},
		Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 10}, {ID: 3, At: 1}},
	})
}

// TestHarnessCatchesWrongSchedules checks that Run reports a wrong expected
// start, so a passing policytest means something.
func TestHarnessCatchesWrongSchedules(t *testing.T) {
	rec := &recorder{}
	policytest.Run(rec, smallfirst.Plugin(), policytest.Scenario{
		Name: "wrong expectation", Procs: 4,
		Jobs: []policytest.Job{{ID: 1, Submit: 0, Runtime: 10, Walltime: 10, Procs: 4}},
		Want: []policytest.Start{{ID: 1, At: 5}},
	})
	if len(rec.errors) != 1 {
		t.Fatalf("harness reported %q, want one error", rec.errors)
	}
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
