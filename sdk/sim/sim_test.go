package sim_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// scripted is a policy that answers each call with the decisions its
// function returns.
type scripted struct {
	fn    func(s *sdk.State, call int) ([]sdk.Decision, error)
	calls int
	seen  []int64 // Now of each call
}

func (p *scripted) Init(sdk.Env) error { return nil }

func (p *scripted) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.calls++
	p.seen = append(p.seen, s.Now)
	return p.fn(s, p.calls)
}

func plugin(p sdk.Policy) sdk.Plugin {
	return sdk.Plugin{Info: sdk.Info{Name: "scripted"}, New: func() sdk.Policy { return p }}
}

func jobs(specs ...[4]int64) []sim.Input { // id, submit, runtime, procs; walltime = runtime
	in := make([]sim.Input, len(specs))
	for i, s := range specs {
		in[i] = sim.Input{Job: sdk.Job{ID: s[0], Submit: s[1], Walltime: s[2], Request: sdk.Vector{s[3]}}, Runtime: s[2]}
	}
	sim.Sort(in)
	return in
}

func startHead(s *sdk.State, _ int) ([]sdk.Decision, error) {
	if s.Queue[0].Request.Fits(s.Free[0]) {
		return []sdk.Decision{sdk.Start(s.Queue[0])}, nil
	}
	return nil, nil
}

func TestBadDecisions(t *testing.T) {
	other := sdk.Job{ID: 99, Index: 0, Request: sdk.Vector{1}}
	for _, tc := range []struct {
		name string
		fn   func(s *sdk.State, call int) ([]sdk.Decision, error)
		want string
	}{
		{"start a job that does not fit", func(s *sdk.State, _ int) ([]sdk.Decision, error) {
			return []sdk.Decision{sdk.Start(s.Queue[0]), sdk.Start(s.Queue[len(s.Queue)-1])}, nil
		}, "start job id 2 on cluster \"m\": it needs 4 procs, 0 are free"},
		{"start a job twice", func(s *sdk.State, _ int) ([]sdk.Decision, error) {
			return []sdk.Decision{sdk.Start(s.Queue[0]), sdk.Start(s.Queue[0])}, nil
		}, "start job id 1: it is already running, not waiting"},
		{"start a job the engine did not show", func(*sdk.State, int) ([]sdk.Decision, error) {
			return []sdk.Decision{sdk.Start(&other)}, nil
		}, "job id 99, which is not a job the engine showed"},
		{"start on a cluster that does not exist", func(s *sdk.State, _ int) ([]sdk.Decision, error) {
			return []sdk.Decision{sdk.StartOn(s.Queue[0], 3)}, nil
		}, "the platform has 1 clusters"},
		{"wake up in the past", func(s *sdk.State, _ int) ([]sdk.Decision, error) {
			return []sdk.Decision{sdk.WakeAt(s.Now)}, nil
		}, "wake-up at 0 is not after now"},
		{"promise a start in the past", func(s *sdk.State, _ int) ([]sdk.Decision, error) {
			return []sdk.Decision{sdk.Promise(s.Queue[0], s.Now-1)}, nil
		}, "which is in the past"},
		{"leave jobs waiting forever", func(*sdk.State, int) ([]sdk.Decision, error) { return nil, nil },
			"left 2 jobs waiting with no job running and no wake-up pending (first: job id 1)"},
		{"return an error", func(*sdk.State, int) ([]sdk.Decision, error) { return nil, errors.New("boom") },
			"t=0: policy scripted: boom"},
		{"an action that does not exist", func(*sdk.State, int) ([]sdk.Decision, error) {
			return []sdk.Decision{{Action: 42}}, nil
		}, "unknown action 42"},
		// Horizon(2) = 3 x MaxTime; past it a wake-up or a promise could
		// make times overflow.
		{"wake up past the horizon", func(*sdk.State, int) ([]sdk.Decision, error) {
			return []sdk.Decision{sdk.WakeAt(math.MaxInt64)}, nil
		}, fmt.Sprintf("wake-up at %d is past the run's horizon %d", int64(math.MaxInt64), 3*int64(sim.MaxTime))},
		{"promise past the horizon", func(s *sdk.State, _ int) ([]sdk.Decision, error) {
			return []sdk.Decision{sdk.Promise(s.Queue[0], 3*sim.MaxTime+1)}, nil
		}, "a start at 103079215105, past the run's horizon 103079215104"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sim.Run(context.Background(), plugin(&scripted{fn: tc.fn}), sim.Config{
				Platform: sdk.SingleCluster("m", 4),
				Jobs:     jobs([4]int64{1, 0, 10, 4}, [4]int64{2, 0, 10, 4}),
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	p := plugin(&scripted{fn: startHead})
	unsorted := jobs([4]int64{1, 0, 10, 1}, [4]int64{2, 5, 10, 1})
	unsorted[0], unsorted[1] = unsorted[1], unsorted[0]
	zero := jobs([4]int64{1, 0, 10, 1})
	zero[0].Runtime = 0
	// Times that would overflow: a runtime and walltime near the int64
	// limit, and a submit time at it.
	huge := jobs([4]int64{1, 100, 10, 1})
	huge[0].Runtime, huge[0].Job.Walltime = math.MaxInt64-99, math.MaxInt64-99
	late := jobs([4]int64{1, math.MaxInt64, 10, 1})
	for _, tc := range []struct {
		name string
		cfg  sim.Config
		want string
	}{
		{"no platform", sim.Config{}, "no platform"},
		{"unsorted", sim.Config{Platform: sdk.SingleCluster("m", 4), Jobs: unsorted}, "call sim.Sort first"},
		{"too big", sim.Config{Platform: sdk.SingleCluster("m", 4), Jobs: jobs([4]int64{1, 0, 10, 5})}, "more than any cluster has"},
		{"zero runtime", sim.Config{Platform: sdk.SingleCluster("m", 4), Jobs: zero}, "runtime 0; it must be at least 1 s"},
		{"huge walltime", sim.Config{Platform: sdk.SingleCluster("m", 4), Jobs: huge}, "job id 1 has walltime 9223372036854775708; it must be at least 1 s and at most 34359738368 s"},
		{"submit at the int64 limit", sim.Config{Platform: sdk.SingleCluster("m", 4), Jobs: late}, "job id 1 has submit time 9223372036854775807, beyond"},
		{"unknown parameter", sim.Config{Platform: sdk.SingleCluster("m", 4), Params: map[string]string{"x": "1"}}, `unknown parameter "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sim.Run(context.Background(), p, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// greedy starts every waiting job that fits, in queue order.
func greedy(s *sdk.State, _ int) ([]sdk.Decision, error) {
	var out []sdk.Decision
	free := s.Free[0].Clone()
	for _, j := range s.Queue {
		if j.Request.Fits(free) {
			free.Sub(j.Request)
			out = append(out, sdk.Start(j))
		}
	}
	return out, nil
}

// TestEventOrder checks the documented order of events at one instant and
// that the policy is called once per instant with waiting jobs.
func TestEventOrder(t *testing.T) {
	var states []string
	p := &scripted{fn: func(s *sdk.State, call int) ([]sdk.Decision, error) {
		var b strings.Builder
		b.WriteString("q=")
		for _, j := range s.Queue {
			b.WriteString(string(rune('0' + j.ID)))
		}
		b.WriteString(" done=")
		for _, c := range s.Completed {
			b.WriteString(string(rune('0' + c.Job.ID)))
		}
		states = append(states, b.String())
		return greedy(s, call)
	}}
	// Listed out of ID order on purpose. t=0: 1 and 2 start and both end
	// at 10. t=10: both ends come first (1 then 2, by index), then the
	// submissions of 3 and 4, then one call: 3 starts, 4 must wait until
	// 3 ends at 15.
	in := jobs([4]int64{2, 0, 10, 2}, [4]int64{1, 0, 10, 2}, [4]int64{4, 10, 5, 4}, [4]int64{3, 10, 5, 4})
	res, err := sim.Run(context.Background(), plugin(p), sim.Config{Platform: sdk.SingleCluster("m", 4), Jobs: in})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"q=12 done=", "q=34 done=12", "q=4 done=3"}
	if strings.Join(states, "|") != strings.Join(want, "|") {
		t.Fatalf("policy saw %q, want %q", states, want)
	}
	if len(p.seen) != 3 || p.seen[0] != 0 || p.seen[1] != 10 || p.seen[2] != 15 {
		t.Fatalf("calls at %v, want [0 10 15]", p.seen)
	}
	if res.Stats.PolicyCalls != 3 || res.Stats.Events != 4 {
		t.Fatalf("%d calls and %d events, want 3 and 4 (t=0, 10, 15, 20)", res.Stats.PolicyCalls, res.Stats.Events)
	}
	// Job 4 started at 15 while no earlier job waited: not backfilled.
	if r := res.Records[3]; r.Start != 15 || r.End != 20 || r.Backfilled {
		t.Fatalf("job 4: %+v", r)
	}
}

// TestWakeUp checks that a policy can hold a job back and be called again
// at the time it asked for, with no other event then.
func TestWakeUp(t *testing.T) {
	p := &scripted{fn: func(s *sdk.State, call int) ([]sdk.Decision, error) {
		if s.Now < 7 {
			return []sdk.Decision{sdk.WakeAt(7)}, nil
		}
		return greedy(s, call)
	}}
	res, err := sim.Run(context.Background(), plugin(p), sim.Config{Platform: sdk.SingleCluster("m", 4), Jobs: jobs([4]int64{1, 0, 10, 1})})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Records[0]; r.Start != 7 || r.End != 17 {
		t.Fatalf("job 1 ran [%d,%d), want [7,17)", r.Start, r.End)
	}
}

// TestNoRuntimeLeak checks that the policy sees the requested walltime, and
// the actual runtime only with exact estimates.
func TestNoRuntimeLeak(t *testing.T) {
	for _, exact := range []bool{false, true} {
		var seen int64
		p := &scripted{fn: func(s *sdk.State, call int) ([]sdk.Decision, error) {
			seen = s.Queue[0].Walltime
			return greedy(s, call)
		}}
		in := []sim.Input{{Job: sdk.Job{ID: 1, Walltime: 100, Request: sdk.Vector{1}}, Runtime: 30}}
		if _, err := sim.Run(context.Background(), plugin(p), sim.Config{Platform: sdk.SingleCluster("m", 4), Jobs: in, ExactEstimates: exact}); err != nil {
			t.Fatal(err)
		}
		want := int64(100)
		if exact {
			want = 30
		}
		if seen != want {
			t.Errorf("exact=%v: policy saw walltime %d, want %d", exact, seen, want)
		}
	}
}

// TestPolicyWritesIntoJobs checks that a policy that writes into the
// requests it is shown changes neither what the engine enforces nor what it
// shows of other jobs: the shown requests share one slab, so an append
// must not reach the next job's.
func TestPolicyWritesIntoJobs(t *testing.T) {
	var second sdk.Vector
	p := &scripted{fn: func(s *sdk.State, _ int) ([]sdk.Decision, error) {
		a, b := s.Queue[0], s.Queue[1]
		a.Request[0] = 1
		_ = append(a.Request, 99)
		second = b.Request.Clone()
		return []sdk.Decision{sdk.Start(a), sdk.Start(b)}, nil
	}}
	_, err := sim.Run(context.Background(), plugin(p), sim.Config{
		Platform: sdk.SingleCluster("m", 4),
		Jobs:     jobs([4]int64{1, 0, 10, 4}, [4]int64{2, 0, 10, 4}),
	})
	if want := "start job id 2 on cluster \"m\": it needs 4 procs, 0 are free"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to contain %q", err, want)
	}
	if len(second) != 1 || second[0] != 4 {
		t.Errorf("the second job's request read %v after the policy appended to the first's, want [4]", second)
	}
}

// panicky panics in the call its phase names.
type panicky struct{ phase string }

func (p panicky) Init(sdk.Env) error {
	if p.phase == "init" {
		panic("deliberate panic in Init")
	}
	return nil
}

func (p panicky) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if p.phase == "schedule" && s.Now >= 5 {
		_ = s.Queue[len(s.Queue)] // a runtime error, not a panic(string)
	}
	return startHead(s, 0)
}

// lineOf returns the number of the line of sim_test.go that holds text.
func lineOf(t *testing.T, text string) string {
	t.Helper()
	src, err := os.ReadFile("sim_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, text) && !strings.Contains(l, "lineOf(") {
			return strconv.Itoa(i + 1)
		}
	}
	t.Fatalf("no line of sim_test.go holds %q", text)
	return ""
}

// TestPanic: a policy that panics, in New, Init or Schedule, fails its run
// with the panic's value and the stack of the panicking call, and leaves no
// goroutine behind.
func TestPanic(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, tc := range []struct {
		name string
		p    sdk.Plugin
		want []string
	}{
		{"new", sdk.Plugin{Info: sdk.Info{Name: "p"}, New: func() sdk.Policy { panic("deliberate panic in New") }},
			[]string{"policy p panicked: deliberate panic in New\nin ", "sim_test.go:", "(github.com/schedlab/schedlab/sdk/sim_test.TestPanic.", "sim_test.TestPanic"}},
		{"init", sdk.Plugin{Info: sdk.Info{Name: "p"}, New: func() sdk.Policy { return panicky{"init"} }},
			[]string{"policy p panicked: deliberate panic in Init\nin ", "sim_test.go:" + lineOf(t, `panic("deliberate panic in Init")`) + " (github.com/schedlab/schedlab/sdk/sim_test.panicky.Init)\n"}},
		// The engine had started: the time and the queue (job 1 has just
		// ended, job 2 waits), and the frame below the runtime's helper
		// of an index out of range.
		{"schedule", sdk.Plugin{Info: sdk.Info{Name: "p"}, New: func() sdk.Policy { return panicky{"schedule"} }},
			[]string{"policy p panicked: runtime error: index out of range [1] with length 1\nat t=10, 1 waiting (first: job id 2), 0 running, in ",
				"sim_test.go:" + lineOf(t, "_ = s.Queue[len(s.Queue)]") + " (github.com/schedlab/schedlab/sdk/sim_test.panicky.Schedule)\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sim.Run(context.Background(), tc.p, sim.Config{
				Platform: sdk.SingleCluster("m", 4), Jobs: jobs([4]int64{1, 0, 10, 4}, [4]int64{2, 1, 10, 4}),
			})
			if err == nil || res != nil {
				t.Fatalf("run returned %v, %v", res, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
	// A goroutine of an earlier test may still be on its way out when
	// this one starts: wait a little for the count to settle.
	after := runtime.NumGoroutine()
	for i := 0; i < 100 && after > before; i++ {
		time.Sleep(10 * time.Millisecond)
		after = runtime.NumGoroutine()
	}
	if after > before {
		t.Errorf("%d goroutines before the runs, %d after", before, after)
	}
}

// TestContext: a run ends with its context's cause when the context is
// done, before it starts or while it runs, between two events.
func TestContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("user pressed Ctrl-C")
	cancel(stop)
	if _, err := sim.Run(ctx, plugin(&scripted{fn: startHead}), sim.Config{
		Platform: sdk.SingleCluster("m", 4), Jobs: jobs([4]int64{1, 0, 10, 1}),
	}); !errors.Is(err, stop) {
		t.Fatalf("cancelled before the start: %v", err)
	}

	// A policy that wakes itself every second, forever, with a job that
	// never fits: only the context can end the run, after the policy has
	// seen its first call.
	ctx, cancel = context.WithCancelCause(context.Background())
	defer cancel(nil)
	calls := 0
	forever := func(s *sdk.State, _ int) ([]sdk.Decision, error) {
		if calls++; calls == 10 {
			cancel(stop)
		}
		return []sdk.Decision{sdk.WakeAt(s.Now + 1)}, nil
	}
	_, err := sim.Run(ctx, plugin(&scripted{fn: forever}), sim.Config{
		Platform: sdk.SingleCluster("m", 4), Jobs: jobs([4]int64{1, 0, 10, 1}),
	})
	if !errors.Is(err, stop) || !strings.Contains(err.Error(), "t=") {
		t.Fatalf("cancelled while running: %v", err)
	}
	if calls < 10 || calls > 10+2*1024 {
		t.Fatalf("the run went on for %d calls after its context was cancelled at call 10", calls-10)
	}
}
