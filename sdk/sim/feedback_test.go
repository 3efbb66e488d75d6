package sim_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/internal/stream"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// delayed starts, in queue order, each job that has waited delay seconds
// and fits, and wakes itself for the next: with delay 0 it is FCFS with
// backfilling of whatever fits, the fast policy; with delay > 0, a slow
// one. It writes down the queue it is shown at each call.
type delayed struct {
	delay  int64
	queues []string
}

func (p *delayed) Init(sdk.Env) error { return nil }

func (p *delayed) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	var ids []string
	for _, j := range s.Queue {
		ids = append(ids, fmt.Sprintf("%d@%d", j.ID, j.Submit))
	}
	p.queues = append(p.queues, fmt.Sprintf("t=%d [%s]", s.Now, strings.Join(ids, " ")))
	free := s.Free[0].Clone()
	var ds []sdk.Decision
	wake := int64(-1)
	for _, j := range s.Queue {
		if at := j.Submit + p.delay; at > s.Now {
			if wake < 0 || at < wake {
				wake = at
			}
			continue
		}
		if j.Request.Fits(free) {
			free.Sub(j.Request)
			ds = append(ds, sdk.Start(j))
		}
	}
	if wake > 0 {
		ds = append(ds, sdk.WakeAt(wake))
	}
	return ds, nil
}

// chain is the workload of the hand-worked cases, on 2 processors: A (id
// 1, at 0, 10 s), B (id 2, traced at 15, 10 s) 5 s after A, D (id 4, at
// 22, 1 s) on its own, C (id 3, traced at 40, 5 s) 3 s after B, and E (id
// 5, traced at 50, 2 s) right after C (think time 0).
func chain() []sim.Input {
	in := jobs([4]int64{1, 0, 10, 1}, [4]int64{2, 15, 10, 1}, [4]int64{4, 22, 1, 1}, [4]int64{3, 40, 5, 1}, [4]int64{5, 50, 2, 1})
	// Indices: A 0, B 1, D 2, C 3, E 4.
	in[1].After, in[1].Think = 1, 5
	in[3].After, in[3].Think = 2, 3
	in[4].After, in[4].Think = 4, 0
	return in
}

func TestChainHandWorked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		delay  int64
		starts []int64 // by index: A, B, D, C, E
		ends   []int64
		queues []string
	}{
		// Fast: A 0-10; B submitted 10+5 = 15, runs 15-25; D 22-23;
		// C submitted 25+3 = 28, runs 28-33; E submitted at 33, C's end,
		// runs 33-35. The trace's times (15, 40, 50) are not used.
		{"fast", 0, []int64{0, 15, 22, 28, 33}, []int64{10, 25, 23, 33, 35},
			[]string{"t=0 [1@0]", "t=15 [2@15]", "t=22 [4@22]", "t=28 [3@28]", "t=33 [5@33]"}},
		// Slow (each job waits 7 s): A 7-17; B submitted 22, the same
		// instant as D, before it by index; both start at 29; B ends 39,
		// C submitted 42, starts 49, ends 54; E submitted at 54, starts 61.
		{"slow", 7, []int64{7, 29, 29, 49, 61}, []int64{17, 39, 30, 54, 63},
			[]string{"t=0 [1@0]", "t=7 [1@0]", "t=22 [2@22 4@22]", "t=29 [2@22 4@22]", "t=42 [3@42]", "t=49 [3@42]", "t=54 [5@54]", "t=61 [5@54]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := chain()
			pol := &delayed{delay: tc.delay}
			plat := sdk.SingleCluster("m", 2)
			res, err := sim.Run(context.Background(), plugin(pol), sim.Config{Platform: plat, Jobs: in})
			if err != nil {
				t.Fatal(err)
			}
			var starts, ends []int64
			for _, r := range res.Records {
				starts, ends = append(starts, r.Start), append(ends, r.End)
			}
			if !slices.Equal(starts, tc.starts) || !slices.Equal(ends, tc.ends) {
				t.Errorf("starts %v ends %v, want %v %v", starts, ends, tc.starts, tc.ends)
			}
			if !slices.Equal(pol.queues, tc.queues) {
				t.Errorf("queues\n%q, want\n%q", pol.queues, tc.queues)
			}
			if err := verify.Records(plat, in, res.Records); err != nil {
				t.Errorf("verify: %v", err)
			}
			sub, err := verify.Submitted(in, res.Records)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res.Records {
				if in[i].After != 0 && sub[i] != res.Records[in[i].After-1].End+in[i].Think || r.Start < sub[i] {
					t.Errorf("job index %d: submitted %d, starts %d", i, sub[i], r.Start)
				}
			}
			// The records a job's trace submission would give are refused:
			// verification uses the simulated one.
			bad := slices.Clone(res.Records)
			bad[3].Start, bad[3].End = 41, 46 // C at its trace time (40) + 1, before B's end + 3 in the slow run
			if err := verify.Records(plat, in, bad); tc.name == "slow" && (err == nil || !strings.Contains(err.Error(), "job id 3: starts at 41 before its submission at 42")) {
				t.Errorf("a start before the simulated submission: %v", err)
			}
		})
	}
}

func TestBadDependencies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(in []sim.Input)
		want  string
		check bool // verify names it too
	}{
		{"on itself", func(in []sim.Input) { in[1].After = 2 }, "job id 2 depends on job index 1; it must be an earlier job", true},
		{"on a later job", func(in []sim.Input) { in[1].After = 4 }, "job id 2 depends on job index 3", true},
		{"negative think time", func(in []sim.Input) { in[1].Think = -1 }, "job id 2 has think time -1", true},
		{"think time without a predecessor", func(in []sim.Input) { in[2].Think = 4 }, "job id 4 has think time 4 but depends on no job", true},
	} {
		in := chain()
		tc.edit(in)
		plat := sdk.SingleCluster("m", 2)
		_, err := sim.Run(context.Background(), plugin(&delayed{}), sim.Config{Platform: plat, Jobs: in})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		recs := make([]sim.Record, len(in))
		for i := range recs {
			recs[i] = sim.Record{Index: int32(i), Start: 1000 * int64(i+1), End: 1000*int64(i+1) + in[i].Runtime}
		}
		if err := verify.Records(plat, in, recs); tc.check && (err == nil || !strings.Contains(err.Error(), "depends on job index")) {
			t.Errorf("%s: verify says %v", tc.name, err)
		}
	}
	// A streamed workload must announce its dependencies.
	in := chain()
	h := &stream.Hooks[sim.Input, sim.Record]{Total: len(in), More: func() ([]sim.Input, error) { return in[1:], nil }}
	_, err := sim.Run(hooked(h), plugin(&delayed{}), sim.Config{Platform: sdk.SingleCluster("m", 2), Jobs: in[:1]})
	if err == nil || !strings.Contains(err.Error(), "announced no dependencies") {
		t.Errorf("streamed without Dependencies: %v", err)
	}
}

// withDeps makes about half the jobs of cfg depend on a random earlier job,
// with think times of 0 to 30 s (0 often, so that submissions fall on ends).
func withDeps(r *rand.Rand, cfg sim.Config) sim.Config {
	jobs := slices.Clone(cfg.Jobs)
	for i := 1; i < len(jobs); i++ {
		if r.IntN(2) == 0 {
			jobs[i].After = int32(1 + r.IntN(i))
			if r.IntN(3) > 0 {
				jobs[i].Think = r.Int64N(31)
			}
		}
	}
	cfg.Jobs = jobs
	return cfg
}

// TestRandomDependentSchedules runs random workloads with dependencies under
// the chaos policy, which checks what it is shown (the queue in submission
// order, each job shown first at its submission): every run must pass
// verification, repeat itself, and give the same records emitted in pieces
// and with its workload streamed in pieces.
func TestRandomDependentSchedules(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 17))
	sawBackfilled, sawLater := false, false
	for it := range 200 {
		cfg := withDeps(r, randomConfig(r))
		res, err := sim.Run(context.Background(), chaosPlugin(), cfg)
		if err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		if err := verify.Records(cfg.Platform, cfg.Jobs, res.Records); err != nil {
			t.Fatalf("iteration %d: %v\njobs %+v\nrecords %+v", it, err, cfg.Jobs, res.Records)
		}
		again, err := sim.Run(context.Background(), chaosPlugin(), cfg)
		if err != nil || !slices.Equal(res.Records, again.Records) {
			t.Fatalf("iteration %d: same seed, different records (%v)", it, err)
		}
		sub, err := verify.Submitted(cfg.Jobs, res.Records)
		if err != nil {
			t.Fatal(err)
		}
		for i, rec := range res.Records {
			sawBackfilled = sawBackfilled || rec.Backfilled
			sawLater = sawLater || sub[i] > cfg.Jobs[i].Job.Submit
		}
		// Streamed in two pieces, records emitted as they are final.
		first := r.IntN(len(cfg.Jobs) + 1)
		rest := cfg.Jobs[first:]
		var emitted []sim.Record
		h := &stream.Hooks[sim.Input, sim.Record]{Total: len(cfg.Jobs), EmitAtLeast: r.IntN(3),
			More: func() ([]sim.Input, error) { m := rest; rest = nil; return m, nil },
			Emit: func(recs []sim.Record) error { emitted = append(emitted, recs...); return nil }}
		streamed := cfg
		streamed.Jobs, streamed.Dependencies = cfg.Jobs[:first], true
		got, err := sim.Run(hooked(h), chaosPlugin(), streamed)
		if err != nil {
			t.Fatalf("iteration %d streamed: %v", it, err)
		}
		if !slices.Equal(got.Records, res.Records) || !slices.Equal(emitted, res.Records) {
			t.Fatalf("iteration %d: streamed run differs", it)
		}
	}
	if !sawBackfilled || !sawLater {
		t.Errorf("coverage: backfilled %v, a job submitted after its trace time %v", sawBackfilled, sawLater)
	}
}

// TestRejectReleases: a rejected job's dependants follow its rejection,
// their think time after it. Job 1 is rejected at 0; job 2 depends on it
// with think time 0, so it is submitted at 0, at a second call of that
// instant, after job 3 (submitted at 0 by the trace, with a higher index,
// and already waiting); job 4 depends on job 1 with think time 5 and comes
// at 5. Job 2 starts at 0, not backfilled: submitted at the same instant
// as job 3, it comes first by index, whatever the queue's order. Job 4
// starts at 5 beside it while job 3 (2 processors) waits: backfilled; job
// 3 starts at 15. Verification agrees.
func TestRejectReleases(t *testing.T) {
	in := jobs([4]int64{1, 0, 10, 1}, [4]int64{2, 0, 10, 1}, [4]int64{3, 0, 10, 2}, [4]int64{4, 50, 10, 1})
	in[1].After, in[1].Think = 1, 0
	in[3].After, in[3].Think = 1, 5
	var queues []string
	pol := &scripted{fn: func(s *sdk.State, call int) ([]sdk.Decision, error) {
		var ids []string
		for _, j := range s.Queue {
			ids = append(ids, fmt.Sprintf("%d@%d", j.ID, j.Submit))
		}
		queues = append(queues, fmt.Sprintf("t=%d [%s]", s.Now, strings.Join(ids, " ")))
		switch call {
		case 1:
			return []sdk.Decision{sdk.Reject(s.Queue[0])}, nil // job 1
		case 2:
			return []sdk.Decision{sdk.Start(s.Queue[1])}, nil // job 2, ahead of job 3
		}
		var ds []sdk.Decision
		free := s.Free[0].Clone()
		for _, j := range s.Queue {
			if j.Request.Fits(free) {
				free.Sub(j.Request)
				ds = append(ds, sdk.Start(j))
			}
		}
		return ds, nil
	}}
	plat := sdk.SingleCluster("m", 2)
	res, err := sim.Run(context.Background(), plugin(pol), sim.Config{Platform: plat, Jobs: in})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"t=0 [1@0 3@0]", "t=0 [3@0 2@0]", "t=5 [3@0 4@5]", "t=10 [3@0]", "t=15 [3@0]"}
	if !slices.Equal(queues, want) {
		t.Errorf("queues %q, want %q", queues, want)
	}
	var got []string
	for _, r := range res.Records {
		got = append(got, fmt.Sprintf("%d-%d rejected=%v backfilled=%v", r.Start, r.End, r.Rejected, r.Backfilled))
	}
	wantRecs := []string{"0-0 rejected=true backfilled=false", "0-10 rejected=false backfilled=false", "15-25 rejected=false backfilled=false", "5-15 rejected=false backfilled=true"}
	if !slices.Equal(got, wantRecs) {
		t.Errorf("records %q, want %q", got, wantRecs)
	}
	if err := verify.Records(plat, in, res.Records); err != nil {
		t.Errorf("verify: %v", err)
	}
}

// TestBackfilledAfterSecondCall: the queue is out of submission order
// after a second call of an instant (job 2, released by job 1's rejection
// with think time 0, comes after jobs 3 and 4 of the trace, which have
// higher indexes); job 3 started while job 2 waits was started ahead of a
// job submitted before it, so it is backfilled, as verification says.
func TestBackfilledAfterSecondCall(t *testing.T) {
	in := jobs([4]int64{1, 0, 10, 1}, [4]int64{2, 0, 10, 2}, [4]int64{3, 0, 10, 1}, [4]int64{4, 0, 10, 2})
	in[1].After = 1
	pol := &scripted{fn: func(s *sdk.State, call int) ([]sdk.Decision, error) {
		switch call {
		case 1:
			return []sdk.Decision{sdk.Reject(s.Queue[0])}, nil
		case 2: // the queue is [3 4 2]: start job 3 only
			return []sdk.Decision{sdk.Start(s.Queue[0])}, nil
		}
		return startHead(s, call)
	}}
	plat := sdk.SingleCluster("m", 2)
	res, err := sim.Run(context.Background(), plugin(pol), sim.Config{Platform: plat, Jobs: in})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Records[2]; r.Start != 0 || !r.Backfilled {
		t.Errorf("job 3: %+v, want started at 0, backfilled", r)
	}
	if err := verify.Records(plat, in, res.Records); err != nil {
		t.Errorf("verify: %v", err)
	}
}
