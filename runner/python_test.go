package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/pyenv"
	bbpolicies "github.com/schedlab/schedlab/plugins/burstbuffer"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/burstbuffer"
)

// pythonResolved resolves a Python policy file as a manifest's ref does.
func pythonResolved(t testing.TB, path string) *Resolved {
	t.Helper()
	pyenv.ForTest(t, "grpc")
	res, err := Resolver{}.Resolve(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindPython {
		t.Fatalf("%s resolved as %s, want python", path, res.Kind)
	}
	return res
}

// TestPythonEqualsGo: FCFS and EASY written in Python (python/examples)
// give every job of KTH-SP2 and NASA-iPSC the start the Go reference
// policies give it, in each queue order and with requested or exact
// estimates; the first differing start fails the test.
func TestPythonEqualsGo(t *testing.T) {
	cases := []struct {
		goRef, file string
		params      map[string]string
		exact       bool
	}{
		{"fcfs", "fcfs.py", nil, false},
		{"easy", "easy.py", map[string]string{"order": "submit"}, false},
		{"easy", "easy.py", map[string]string{"order": "submit"}, true},
		{"easy", "easy.py", map[string]string{"order": "shortest"}, false},
		{"easy", "easy.py", map[string]string{"order": "largest"}, true},
	}
	traces := []string{"KTH-SP2-1996-2.1-cln.swf.gz", "NASA-iPSC-1993-3.1-cln.swf.gz"}
	if testing.Short() {
		cases, traces = cases[1:2], traces[1:]
	}
	procs := &Processes{}
	defer procs.Close()
	for _, trace := range traces {
		w, err := workload.LoadSWF(filepath.Join("..", "experiments", "data", trace), 0, workload.DefaultClean())
		if err != nil {
			t.Fatal(err)
		}
		plat := sdk.SingleCluster(trace, w.Procs)
		for _, c := range cases {
			name := fmt.Sprintf("%s/%s/%v/exact=%v", trace, c.file, c.params, c.exact)
			t.Run(name, func(t *testing.T) {
				py := pythonResolved(t, filepath.Join("..", "python", "examples", c.file))
				spec := Spec{Policy: &Resolved{Ref: c.goRef, Kind: KindReference}, Platform: plat, Jobs: w.Jobs,
					Params: c.params, ExactEstimates: c.exact, Metrics: metrics.DefaultSettings(), InProcess: true}
				want, err := Execute(context.Background(), spec)
				if err != nil {
					t.Fatal(err)
				}
				spec.Policy, spec.InProcess, spec.Processes = py, false, procs
				got, err := Execute(context.Background(), spec)
				if err != nil {
					t.Fatal(err)
				}
				sameStarts(t, w.Jobs, want.Records, got.Records)
				if got.Stats.PolicyCalls != want.Stats.PolicyCalls {
					t.Errorf("%d policy calls in Python, %d in Go", got.Stats.PolicyCalls, want.Stats.PolicyCalls)
				}
			})
		}
	}
}

// TestPythonFeedback runs the Python FCFS and EASY examples on KTH-SP2
// with jobs submitted during the run (feedback = sessions: a job waits for
// its session's previous one to end, then its think time), whose indexes
// do not follow their arrivals: both give their Go twins' records. They
// were refused such runs before (the call protocol told new jobs by
// index).
func TestPythonFeedback(t *testing.T) {
	w, err := workload.LoadSWFWith(filepath.Join("..", "experiments", "data", "KTH-SP2-1996-2.1-cln.swf.gz"), 0,
		workload.DefaultClean(), workload.Feedback{Mode: workload.FeedbackSessions})
	if err != nil {
		t.Fatal(err)
	}
	if w.Feedback.Count(workload.RuleDependent) == 0 {
		t.Fatal("no job of KTH-SP2 waits for another under sessions: the test tests too little")
	}
	plat := sdk.SingleCluster("kth", w.Procs)
	procs := &Processes{}
	defer procs.Close()
	for _, c := range []struct{ goRef, file string }{{"fcfs", "fcfs.py"}, {"easy", "easy.py"}} {
		t.Run(c.goRef, func(t *testing.T) {
			spec := Spec{Policy: &Resolved{Ref: c.goRef, Kind: KindReference}, Platform: plat, Jobs: w.Jobs,
				Metrics: metrics.DefaultSettings(), InProcess: true}
			want, err := Execute(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			spec.Policy, spec.InProcess, spec.Processes = pythonResolved(t, filepath.Join("..", "python", "examples", c.file)), false, procs
			got, err := Execute(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			sameStarts(t, w.Jobs, want.Records, got.Records)
		})
	}
}

// sameStarts fails at the first job whose start differs.
func sameStarts(t *testing.T, jobs []sim.Input, want, got []sim.Record) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("job id %d: Go %+v, Python %+v", jobs[i].Job.ID, want[i], got[i])
		}
	}
}

// TestPythonBadPolicies: a Python policy that fails in any of the ways a
// policy can fails its run with a reason naming it and quoting Python,
// and a sound policy then runs in a fresh process as before.
func TestPythonBadPolicies(t *testing.T) {
	pyenv.ForTest(t, "grpc")
	jobs, plat := smallWorkload()
	const head = "import schedlab\n\nclass P(schedlab.Policy):\n    name = \"bad\"\n"
	cases := []struct {
		name, body string
		resolveErr bool
		want       []string
	}{
		{"raises in init", head + "    def init(self, env):\n        raise RuntimeError('no platform for me')\n    def schedule(self, state):\n        return []\n",
			false, []string{"bad raised RuntimeError in init: no platform for me", "Traceback", "line 6"}},
		{"raises in schedule", head + "    def schedule(self, state):\n        return [1/0]\n",
			false, []string{"bad raised ZeroDivisionError in schedule at t=0", "division by zero"}},
		{"returns a non-decision", head + "    def schedule(self, state):\n        return ['start job 1']\n",
			false, []string{"bad raised TypeError in schedule", "'start job 1'", "not a schedlab.Decision"}},
		{"returns not a list", head + "    def schedule(self, state):\n        return 7\n",
			false, []string{"bad raised TypeError in schedule", "returned int 7, not a sequence of decisions"}},
		{"starts an unknown job", head + "    def schedule(self, state):\n        import copy\n        if not state.queue:\n            return []\n        j = copy.copy(state.queue[0])\n        j.index = 99\n        return [schedlab.start(j)]\n",
			false, []string{"bad", "99"}},
		{"starts a job twice", head + "    def schedule(self, state):\n        return [schedlab.start(j) for j in state.queue[:1]] * 2\n",
			false, []string{"bad", "already running"}},
		{"hangs", head + "    def schedule(self, state):\n        import time\n        time.sleep(60)\n        return []\n",
			false, []string{"did not answer", "stall timeout"}},
		{"exits", head + "    def schedule(self, state):\n        import os\n        os._exit(7)\n",
			false, []string{"died", "exit status 7"}},
		{"floods its output", head + "    def schedule(self, state):\n        for i in range(200000):\n            print('flood', i)\n        raise ValueError('drowned')\n",
			false, []string{"bad raised ValueError in schedule", "drowned"}},
		{"fails to import", "import schedlab\nimport no_such_module_here\n",
			true, []string{"No module named 'no_such_module_here'"}},
		{"declares a parameter badly", head + "    params = (schedlab.Param('k', 'int', 'ten'),)\n    def schedule(self, state):\n        return []\n",
			true, []string{"k", "ten"}},
		{"has no schedule", head + "    pass\n",
			true, []string{"does not define schedule"}},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("bad%d.py", i))
			if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Resolver{}.Resolve(context.Background(), path)
			if c.resolveErr {
				if err == nil {
					t.Fatal("resolved")
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("the error lacks %q:\n%v", w, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			spec := Spec{Policy: res, Platform: plat, Jobs: jobs, Metrics: metrics.DefaultSettings(),
				StallTimeout: 2 * time.Second, Timeout: time.Minute}
			_, err = Execute(context.Background(), spec)
			if err == nil {
				t.Fatal("the run succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error lacks %q:\n%v", w, err)
				}
			}
			if len(err.Error()) > 64<<10 {
				t.Errorf("an error of %d bytes", len(err.Error()))
			}
		})
	}
	// A sound policy after them all.
	spec := Spec{Policy: pythonResolved(t, filepath.Join("..", "python", "examples", "fcfs.py")), Platform: plat, Jobs: jobs,
		Metrics: metrics.DefaultSettings(), Timeout: time.Minute}
	if _, err := Execute(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
}

// TestPythonDocExample runs the policy of docs/python.md as written, on
// a small workload, with its parameter set.
func TestPythonDocExample(t *testing.T) {
	pyenv.ForTest(t, "grpc")
	doc, err := os.ReadFile(filepath.Join("..", "docs", "python.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```python\n")
	code, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("docs/python.md has no python block")
	}
	path := filepath.Join(t.TempDir(), "smallest.py")
	if err := os.WriteFile(path, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs, plat := smallWorkload()
	for _, limit := range []string{"0", "1"} {
		out, err := Execute(context.Background(), Spec{Policy: pythonResolved(t, path), Platform: plat, Jobs: jobs,
			Params: map[string]string{"limit": limit}, Metrics: metrics.DefaultSettings(), Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		// The smallest first: job 3 (2 processors) starts at its submission.
		if out.Records[2].Start != 2 {
			t.Errorf("limit %s: job 3 starts at %d, want 2", limit, out.Records[2].Start)
		}
	}
}

// TestPythonTimeout: a Python policy stuck in a call, without a stall
// timeout, is ended by the run's timeout, which the error names.
func TestPythonTimeout(t *testing.T) {
	pyenv.ForTest(t, "grpc")
	path := filepath.Join(t.TempDir(), "stuck.py")
	src := "import time\nimport schedlab\n\nclass P(schedlab.Policy):\n    name = \"stuck\"\n\n    def schedule(self, state):\n        time.sleep(120)\n        return []\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs, plat := smallWorkload()
	begin := time.Now()
	_, err := Execute(context.Background(), Spec{Policy: pythonResolved(t, path), Platform: plat, Jobs: jobs,
		Metrics: metrics.DefaultSettings(), Timeout: 3 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "exceeded its timeout of 3s") {
		t.Fatalf("error %v, want the run's timeout", err)
	}
	if d := time.Since(begin); d > time.Minute {
		t.Errorf("the run ended after %v", d)
	}
}

// TestPythonIO: FCFS on a burst buffer written in Python
// (testdata/bbfcfs.py) gives the records of Go's bb-fcfs on KTH-SP2's
// first 3,000 jobs with paper 004's requests under the I/O model of
// experiments/kopanski2021/io.toml, as a plugin process against Go in
// process: the model runs in the host for a Python policy, verified there.
func TestPythonIO(t *testing.T) {
	w, err := workload.LoadSWF(filepath.Join("..", "experiments", "data", "KTH-SP2-1996-2.1-cln.swf.gz"), 96, workload.Clean{})
	if err != nil {
		t.Fatal(err)
	}
	jobs := w.Jobs[:3000]
	units := make([]int64, 12)
	for k := range units {
		units[k] = 40_000_000_000
	}
	plat := &sdk.Platform{Name: "kth-bb", Resources: []string{sdk.Processors, "bb"},
		Clusters: []sdk.Cluster{{Name: "kth-bb", Capacity: sdk.Vector{96, 480_000_000_000}, Units: []sdk.Units{{Resource: 1, Capacity: units}}}}}
	for i := range jobs {
		jobs[i].Job.Request = sdk.Vector{jobs[i].Job.Request[0], 0}
	}
	target, err := burstbuffer.TargetOf(plat, "bb")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := burstbuffer.Default().Apply(jobs, target, rand.New(rand.NewPCG(2021, 0))); err != nil {
		t.Fatal(err)
	}
	if _, err := burstbuffer.DefaultShortening().Shorten(jobs, target); err != nil {
		t.Fatal(err)
	}
	model := &sdk.IO{Resource: 1, FSBandwidth: 5e9, UnitBandwidth: 1.25e9, NodeBandwidth: 1.25e9, SplitDuplex: true,
		StageIn: 1, Checkpoint: 0.5, StageOut: 1, Drain: true, PhaseSeconds: 3600, MaxPhases: 10}
	procs := &Processes{}
	defer procs.Close()
	// Go's bb-fcfs, noting what each call shows of the running jobs'
	// phases, as the Python policy notes them with its views parameter.
	rec := bbpolicies.FCFS()
	inner := rec.New
	var views *ioViews
	rec.New = func() sdk.Policy { views = &ioViews{Policy: inner()}; return views }
	spec := Spec{Policy: &Resolved{Ref: "bb-fcfs"}, Use: host.InProcess(rec), Platform: plat, Jobs: jobs, IO: model,
		Metrics: metrics.DefaultSettings()}
	want, err := Execute(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "views.txt")
	spec.Policy, spec.Use, spec.Processes = pythonResolved(t, filepath.Join("testdata", "bbfcfs.py")), nil, procs
	spec.Params = map[string]string{"views": file}
	got, err := Execute(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	sameStarts(t, jobs, want.Records, got.Records)
	if want.Summary.IOSecondsMean <= 0 {
		t.Errorf("io_seconds_mean %v: the jobs moved no data", want.Summary.IOSecondsMean)
	}
	// What the Python policy saw of the phases is what Go's saw, call by
	// call, to the bit: its floats are written as float.hex, which
	// strconv.ParseFloat reads exactly.
	py, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(py)), "\n")
	if len(views.seen) < 1000 || len(lines) != len(views.seen) {
		t.Fatalf("Python saw %d running jobs' phases, Go %d (at least 1,000 wanted)", len(lines), len(views.seen))
	}
	for i, line := range lines {
		var v ioView
		var bytes, end string
		if _, err := fmt.Sscan(line, &v.now, &v.idx, &v.phase, &v.done, &v.phases, &bytes, &end); err != nil {
			t.Fatalf("line %d of the views, %q: %v", i+1, line, err)
		}
		v.bytes, err = strconv.ParseFloat(bytes, 64)
		if err == nil {
			v.end, err = strconv.ParseFloat(end, 64)
		}
		if err != nil || v != views.seen[i] {
			t.Fatalf("line %d of the views: Python %q (%v), Go %+v", i+1, line, err, views.seen[i])
		}
	}
}

// ioView is what a call shows of a running job's data phases.
type ioView struct {
	now, idx, phase, done, phases int64
	bytes, end                    float64
}

// ioViews is a policy that notes, at each call, what the state shows of
// the running jobs' data phases, as testdata/bbfcfs.py writes them.
type ioViews struct {
	sdk.Policy
	seen []ioView
}

func (v *ioViews) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	for _, r := range s.Running {
		phase, done, phases := s.IO.Phase(r.Job)
		bytes, end := s.IO.Left(r.Job)
		v.seen = append(v.seen, ioView{s.Now, int64(r.Job.Index), int64(phase), int64(done), int64(phases), bytes, end})
	}
	return v.Policy.Schedule(s)
}

// TestPythonBBOnNodes: the Python bb-fcfs (testdata/bbfcfs.py), which
// places its jobs on the nodes with schedlab.placement and its pieces on
// a burst buffer itself, gives every job of random platforms of nodes
// beside a burst buffer the start, the nodes and the units Go's bb-fcfs
// gives it in process, with and without the I/O model: the nodes and
// units of a platform travel to a Python policy and back whole.
func TestPythonBBOnNodes(t *testing.T) {
	procs := &Processes{}
	defer procs.Close()
	py := pythonResolved(t, filepath.Join("testdata", "bbfcfs.py"))
	pieces := 0
	for seed := range uint64(6) {
		plat := policytest.WithBurstBuffer(policytest.RandomNodes(seed), 40, 40, 20)
		jobs := policytest.Random{Platform: plat, Jobs: 200, MaxWalltime: 600, Burst: 20}.Scenario(seed).Inputs()
		for _, j := range jobs {
			if j.Job.Request[len(plat.Resources)-1] > 0 {
				pieces++
			}
		}
		var model *sdk.IO
		if seed%2 == 1 {
			model = &sdk.IO{Resource: len(plat.Resources) - 1, FSBandwidth: 1.5, UnitBandwidth: 1, SplitDuplex: true, NodeBandwidth: 0.75,
				StageIn: 1, Checkpoint: 0.5, StageOut: 1, Drain: true, PhaseSeconds: 60, MaxPhases: 4}
		}
		spec := Spec{Policy: &Resolved{Ref: "bb-fcfs"}, Use: host.InProcess(bbpolicies.FCFS()), Platform: plat, Jobs: jobs, IO: model,
			Metrics: metrics.DefaultSettings()}
		want, err := Execute(context.Background(), spec)
		if err != nil {
			t.Fatalf("seed %d, Go: %v", seed, err)
		}
		spec.Policy, spec.Use, spec.Processes = py, nil, procs
		got, err := Execute(context.Background(), spec)
		if err != nil {
			t.Fatalf("seed %d, Python: %v", seed, err)
		}
		if got.Transport != "plugin" {
			t.Fatalf("seed %d: the Python policy ran %s", seed, got.Transport)
		}
		sameStarts(t, jobs, want.Records, got.Records)
		if !slices.Equal(want.Units, got.Units) {
			t.Fatalf("seed %d: the units differ: Go %v, Python %v", seed, want.Units, got.Units)
		}
		if want.Allocs == nil || got.Allocs == nil || !reflect.DeepEqual(*want.Allocs, *got.Allocs) {
			t.Fatalf("seed %d: the allocations differ", seed)
		}
	}
	if pieces < 200 {
		t.Fatalf("%d jobs asked for pieces of the burst buffer: too few to cross it", pieces)
	}
}
