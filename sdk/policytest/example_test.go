package policytest_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
)

// smallFirst is the policy of docs/policies.md, kept here so that the guide's
// code is compiled and tested.
func smallFirst() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name: "smallfirst", Version: "0.1.0",
			Description: "start the smallest waiting jobs that fit",
			Params: []sdk.Param{{Name: "limit", Type: sdk.Int, Default: "0",
				Doc: "start at most this many jobs per call (0: no limit)"}},
		},
		New: func() sdk.Policy { return &policy{} },
	}
}

type policy struct {
	limit int64
	buf   []*sdk.Job
	out   []sdk.Decision
}

func (p *policy) Init(env sdk.Env) error {
	p.limit = env.Params.Int("limit")
	return nil
}

func (p *policy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	p.buf = append(p.buf[:0], s.Queue...)
	slices.SortStableFunc(p.buf, func(a, b *sdk.Job) int { return cmp.Compare(a.Procs(), b.Procs()) })
	free := s.Free[0].Clone()
	for _, j := range p.buf {
		if p.limit > 0 && int64(len(p.out)) == p.limit {
			break
		}
		if j.Request.Fits(free) {
			free.Sub(j.Request)
			p.out = append(p.out, sdk.Start(j))
		}
	}
	return p.out, nil
}

func TestSmallFirst(t *testing.T) {
	policytest.Run(t, smallFirst(), policytest.Scenario{
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
	policytest.Run(rec, smallFirst(), policytest.Scenario{
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
