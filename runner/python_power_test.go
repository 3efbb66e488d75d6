package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/sim"
)

// idleOff is python/examples/idleoff.py in Go: FCFS on a cluster of
// nodes, each start placed by the cluster's rule and kept under the power
// cap; a node on and idle for timeout seconds is switched off while no
// job waits, and while one waits the nodes off are switched on, as many
// as the cap allows.
type idleOff struct {
	timeout   int64
	power     *sdk.Power
	layout    *sdk.Layout
	nodes     *sdk.Nodes
	idleSince []int64 // -1: not on and idle
}

func (p *idleOff) Init(env sdk.Env) error {
	p.power = env.Power
	p.layout = sdk.NewLayout(env.Platform, 0)
	p.nodes = p.layout.NewNodes()
	p.idleSince = make([]int64, env.Platform.Clusters[0].NodeCount())
	for k := range p.idleSince {
		p.idleSince[k] = -1
	}
	return nil
}

func (p *idleOff) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	ps := s.Power
	p.nodes.CopyFrom(s.Nodes[0])
	committed := ps.Committed
	var out []sdk.Decision
	started := 0
	for _, j := range s.Queue {
		var a sdk.Alloc
		if !p.nodes.Place(j.Tasks, p.layout.Rule(), &a) {
			break
		}
		w := p.power.StartWatts(p.layout, 0, j.Tasks, a)
		if !sdk.UnderCap(committed+w, ps.Cap) {
			break
		}
		committed += w
		p.nodes.Take(j.Tasks, a)
		out = append(out, sdk.StartAlloc(j, 0, sdk.Alloc{Nodes: slices.Clone(a.Nodes), Tasks: slices.Clone(a.Tasks)}))
		started++
	}
	waiting := started < len(s.Queue)
	var offs, ons []int32
	wake := int64(-1)
	for k, m := range ps.Modes[0] {
		if m == sdk.NodeOn && p.nodes.Free[k] == p.layout.Cap(k) {
			if p.idleSince[k] < 0 {
				p.idleSince[k] = s.Now
			}
			since := p.idleSince[k]
			if s.Now-since >= p.timeout && !waiting {
				offs = append(offs, int32(k))
				p.idleSince[k] = -1
			} else if wake < 0 || since+p.timeout < wake {
				wake = since + p.timeout
			}
			continue
		}
		p.idleSince[k] = -1
		if m == sdk.NodeOff && waiting {
			if w := p.power.PowerOnWatts(p.layout, 0, k); sdk.UnderCap(committed+w, ps.Cap) {
				committed += w
				ons = append(ons, int32(k))
			}
		}
	}
	if len(offs) > 0 {
		out = append(out, sdk.PowerOff(0, offs))
	}
	if len(ons) > 0 {
		out = append(out, sdk.PowerOn(0, ons))
	}
	if wake > s.Now {
		out = append(out, sdk.WakeAt(wake))
	}
	return out, nil
}

// powerWorkload is a machine of 8 nodes of 4 cores with a power model
// whose switches take time and energy, under a cap from the 20,000th
// second, and n jobs of 1 to 12 one-core tasks drawn from a fixed seed,
// with lulls long enough for nodes to idle past a timeout.
func powerWorkload(n int) (*sdk.Platform, []sim.Input, *sdk.Power) {
	plat := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 8, Cores: 4}}, nil, sdk.BestFit)
	l := sdk.NewLayout(plat, 0)
	r := rand.New(rand.NewPCG(38, 1))
	jobs := make([]sim.Input, n)
	at := int64(0)
	for i := range jobs {
		at += r.Int64N(300)
		if r.IntN(20) == 0 {
			at += 2000
		}
		tasks := sdk.Tasks{Count: int32(1 + r.IntN(12)), Cores: 1}
		req := make(sdk.Vector, plat.Dims())
		l.Request(&tasks, req)
		run := 1 + r.Int64N(1200)
		jobs[i] = sim.Input{Job: sdk.Job{ID: int64(i + 1), Submit: at, Walltime: run + r.Int64N(300), Request: req, Tasks: &tasks}, Runtime: run}
	}
	sim.Sort(jobs)
	model := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 9.5, Idle: 95.25, Full: 240, OnSeconds: 120, OnJoules: 18000, OffSeconds: 30, OffJoules: 1500}}},
		Caps: []sdk.CapStep{{From: 20000, Watts: 1500}}}
	return plat, jobs, model
}

// TestPythonPower: a Python policy that switches idle nodes off after a
// timeout (python/examples/idleoff.py) gives the records, allocations,
// power events and energy of the same policy in Go, run in process, both
// verified by the host; and EASY in Python (python/examples/easy.py) gives
// Go EASY's on the same run with a power model without a cap (easy.py
// knows no cap: the Go easy's reservation of watts is not ported).
func TestPythonPower(t *testing.T) {
	plat, jobs, model := powerWorkload(600)
	uncapped := &sdk.Power{Groups: model.Groups}
	cases := []struct {
		name, file string
		goPolicy   *Resolved
		use        host.Policy
		params     map[string]string
		model      *sdk.Power
		switches   bool
	}{
		{"idle-off", "idleoff.py", &Resolved{Ref: "idle-off"},
			host.InProcess(sdk.Plugin{Info: sdk.Info{Name: "idle-off", Version: "0.1.0"}, New: func() sdk.Policy { return &idleOff{timeout: 300} }}),
			map[string]string{"timeout": "300"}, model, true},
		{"easy", "easy.py", &Resolved{Ref: "easy", Kind: KindReference}, nil, nil, uncapped, false},
	}
	procs := &Processes{}
	defer procs.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := Spec{Policy: c.goPolicy, Use: c.use, InProcess: c.use == nil, Platform: plat, Jobs: jobs, Power: c.model,
				Metrics: metrics.DefaultSettings()}
			if c.use == nil {
				spec.Params = c.params
			}
			want, err := Execute(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if c.switches && (len(want.Power.Events) < 50 || !slices.ContainsFunc(want.Power.Events, func(e sim.PowerEvent) bool { return e.Mode == sdk.NodeOff })) {
				t.Fatalf("%d power events: the test switches too little", len(want.Power.Events))
			}
			spec.Use, spec.InProcess, spec.Processes, spec.Params = nil, false, procs, c.params
			spec.Policy = pythonResolved(t, filepath.Join("..", "python", "examples", c.file))
			got, err := Execute(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			sameStarts(t, jobs, want.Records, got.Records)
			if !reflect.DeepEqual(got.Allocs, want.Allocs) {
				t.Fatal("Python's allocations differ from Go's")
			}
			if !reflect.DeepEqual(got.Power, want.Power) || !reflect.DeepEqual(got.PowerSteps, want.PowerSteps) {
				t.Fatalf("Python's %d power events or energy %+v differ from Go's %d, %+v",
					len(got.Power.Events), got.Power.Energy, len(want.Power.Events), want.Power.Energy)
			}
		})
	}
}

// TestPythonPowerNonsense: a Python policy's switch that the engine
// refuses fails the run with the engine's reason.
func TestPythonPowerNonsense(t *testing.T) {
	plat, jobs, model := powerWorkload(20)
	const head = "import schedlab\n\nclass P(schedlab.Policy):\n    name = \"bad\"\n    def schedule(self, state):\n        return "
	cases := []struct{ name, decisions, want string }{
		{"on a node that is on", "[schedlab.power_on(0, [3])]", `power on node 3 of cluster "m": it is on, not off`},
		{"a bad node", "[schedlab.power_off(0, [8])]", `power off node 8 of cluster "m", which has 8`},
		{"out of order", "[schedlab.power_off(0, [2, 1])]", "nodes not in increasing order (1 after 2)"},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("nonsense%d.py", i))
			if err := os.WriteFile(path, []byte(head+c.decisions+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			spec := Spec{Policy: pythonResolved(t, path), Platform: plat, Jobs: jobs, Power: model, Metrics: metrics.DefaultSettings(),
				StallTimeout: 5 * time.Second, Timeout: time.Minute}
			_, err := Execute(context.Background(), spec)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want an error with %q", err, c.want)
			}
		})
	}
}
