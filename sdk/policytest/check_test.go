package policytest_test

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/policytest/testdata/leaky"
	"github.com/schedlab/schedlab/sdk/policytest/testdata/smallfirst"
)

// fcfs starts jobs in queue order while they fit, and promises the first
// that does not fit the earliest time the running jobs' walltimes free
// enough processors for it; broken, it promises one second too early.
type fcfs struct {
	broken bool
	out    []sdk.Decision
	ends   []end
}

type end struct{ at, procs int64 }

func (p *fcfs) Init(sdk.Env) error { return nil }

func (p *fcfs) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out, p.ends = p.out[:0], p.ends[:0]
	for _, r := range s.Running {
		p.ends = append(p.ends, end{r.ExpectedEnd, r.Job.Procs()})
	}
	free := s.Free[0][0]
	for _, j := range s.Queue {
		if j.Procs() > free {
			slices.SortFunc(p.ends, func(a, b end) int { return cmp.Compare(a.at, b.at) })
			at, avail := s.Now, free
			for _, e := range p.ends {
				if avail >= j.Procs() {
					break
				}
				at, avail = e.at, avail+e.procs
			}
			if p.broken {
				at = max(s.Now, at-1)
			}
			return append(p.out, sdk.Promise(j, at)), nil
		}
		free -= j.Procs()
		p.out = append(p.out, sdk.Start(j))
		p.ends = append(p.ends, end{s.Now + j.Walltime, j.Procs()})
	}
	return p.out, nil
}

// firstFit starts the first waiting job, in queue order, that fits a
// cluster now, on the first such cluster: one start per call, so that it
// need not track the units' free amounts itself. It runs on any platform.
type firstFit struct{ out []sdk.Decision }

func (p *firstFit) Init(sdk.Env) error { return nil }

func (p *firstFit) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	free := make([]sdk.Vector, len(s.Free))
	for c := range free {
		free[c] = s.Free[c].Clone()
	}
	for _, j := range s.Queue {
		for c := range free {
			if j.Request.Fits(free[c]) && unitsFit(s, c, j) {
				free[c].Sub(j.Request)
				p.out = append(p.out, sdk.StartOn(j, c))
				return p.out, nil
			}
		}
	}
	return p.out, nil
}

// unitsFit reports whether j's pieces fit the free units of cluster c.
func unitsFit(s *sdk.State, c int, j *sdk.Job) bool {
	off := 0
	for _, u := range s.Platform.Clusters[c].Units {
		n, size, err := u.Pieces(j.Request)
		if err != nil || !sdk.PiecesFit(s.FreeUnits[c][off:off+len(u.Capacity)], n, size) {
			return false
		}
		off += len(u.Capacity)
	}
	return true
}

func fcfsPlugin(broken bool) sdk.Plugin {
	return sdk.Plugin{Info: sdk.Info{Name: "fcfs"}, New: func() sdk.Policy { return &fcfs{broken: broken} }}
}

func TestRandom(t *testing.T) {
	bb := &sdk.Platform{Name: "bb", Resources: []string{sdk.Processors, "nodes", "bb"}, Clusters: []sdk.Cluster{
		{Name: "a", Capacity: sdk.Vector{16, 4, 100}, Units: []sdk.Units{{Resource: 2, PiecesBy: 1, Capacity: []int64{40, 40, 20}}}},
		{Name: "b", Capacity: sdk.Vector{8, 8, 0}},
	}}
	for _, r := range []policytest.Random{{}, {Jobs: 500, Procs: 7, Killed: 0.3}, {Platform: bb}} {
		a, b := r.Scenario(5), r.Scenario(5)
		if !reflect.DeepEqual(a, b) {
			t.Fatal("one seed gave two scenarios")
		}
		if reflect.DeepEqual(a.Jobs, r.Scenario(6).Jobs) {
			t.Fatal("two seeds gave one workload")
		}
		jobs := max(r.Jobs, 200)
		if len(a.Jobs) != jobs {
			t.Fatalf("%d jobs, want %d", len(a.Jobs), jobs)
		}
		killed, divided, users := 0, 0, map[int32]bool{}
		for i, j := range a.Jobs {
			if j.Runtime > j.Walltime {
				killed++
			}
			if r.Platform != nil && a.Requests[i][2] > 0 {
				divided++
			}
			users[j.User] = true
		}
		share := max(r.Killed, 0.1)
		if k := float64(killed) / float64(jobs); k < share/2 || k > share*2 {
			t.Errorf("%.2f of the jobs killed, want about %.2f", k, share)
		}
		if r.Platform != nil && divided == 0 {
			t.Error("no job requests the divided resource")
		}
		if len(users) < 2 {
			t.Errorf("users %v", users)
		}
		// Every job fits somewhere: the engine would refuse the workload.
		policytest.Check(t, sdk.Plugin{Info: sdk.Info{Name: "first-fit"}, New: func() sdk.Policy { return &firstFit{} }}, a)
	}
}

func TestInvariants(t *testing.T) {
	sc := policytest.Random{Exact: true}.Scenario(1)
	policytest.Check(t, fcfsPlugin(false), sc, policytest.StartsInSubmitOrder(), policytest.PromisesKept())

	for _, tc := range []struct {
		name string
		p    sdk.Plugin
		inv  policytest.Invariant
		want string
	}{
		{"small jobs overtake", smallfirst.Plugin(), policytest.StartsInSubmitOrder(), "starts in submit order: job id"},
		{"promises a second too early", fcfsPlugin(true), policytest.PromisesKept(), "promises kept: job id"},
	} {
		rec := &recorder{}
		policytest.Check(rec, tc.p, sc, tc.inv)
		if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], tc.want) {
			t.Errorf("%s: harness reported %q, want one error with %q", tc.name, rec.errors, tc.want)
		}
	}
}

func TestNoStateBetweenRuns(t *testing.T) {
	scs := []policytest.Scenario{policytest.Random{}.Scenario(1), policytest.Random{Procs: 16}.Scenario(2)}
	policytest.NoStateBetweenRuns(t, smallfirst.Plugin(), scs...)

	rec := &recorder{}
	policytest.NoStateBetweenRuns(rec, leaky.Plugin(), scs...)
	if len(rec.errors) == 0 || !strings.Contains(rec.errors[0], "keeps state between runs") {
		t.Fatalf("a leaky policy passed: %q", rec.errors)
	}
}

func TestAcceptance(t *testing.T) {
	scs := []policytest.Scenario{
		policytest.Random{Params: map[string]string{"limit": "2"}}.Scenario(3),
		policytest.Random{Procs: 16, Exact: true}.Scenario(4),
		{Name: "the small job overtakes", Procs: 4,
			Jobs: []policytest.Job{
				{ID: 1, Submit: 0, Runtime: 10, Walltime: 10, Procs: 3},
				{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Procs: 4},
				{ID: 3, Submit: 1, Runtime: 5, Walltime: 5, Procs: 1},
			},
			Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 10}, {ID: 3, At: 1}}},
	}
	policytest.Acceptance(t, smallfirst.Plugin(), "./testdata/smallfirst/cmd/smallfirst", scs...)
}
