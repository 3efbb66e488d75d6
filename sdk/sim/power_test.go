package sim_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// twoNodePower is the power model of the hand-worked cases: two nodes of
// 4 cores, off 10 W, idle 100 W, full 200 W (25 W a core), switching on
// in 10 s for 1,500 J (150 W) and off in 5 s for 250 J (50 W).
func twoNodePower(caps ...sdk.CapStep) *sdk.Power {
	return &sdk.Power{
		Groups: [][]sdk.NodePower{{{Off: 10, Idle: 100, Full: 200, OnSeconds: 10, OnJoules: 1500, OffSeconds: 5, OffJoules: 250}}},
		Caps:   caps,
	}
}

func eventsText(evs []sim.PowerEvent) string {
	var b []string
	for _, ev := range evs {
		b = append(b, fmt.Sprintf("%d n%d %s", ev.At, ev.Node, ev.Mode))
	}
	return strings.Join(b, ", ")
}

// TestPowerHandWorked runs schedules whose energies were worked out by
// hand: idle and busy nodes at several core counts, a switch cycle, and
// the cap.
func TestPowerHandWorked(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	one := func(cores int32) sdk.Tasks { return sdk.Tasks{Count: 1, Cores: cores} }
	for _, tc := range []struct {
		name   string
		jobs   []nodeJob
		caps   []sdk.CapStep
		policy func(*sdk.State, int) ([]sdk.Decision, error)
		starts []string // per job: "start end alloc"
		events string
		// static, dynamic, off, switching (J), over the span from, to
		energy [4]float64
		from   int64
		to     int64
		over   int64
		calls  []int64
	}{
		// Job 1 uses 2 cores of node 0 for 100 s, job 2 all 4 of node 1
		// for 50 s: 2 nodes x 100 W x 100 s static, 25 W a core in use.
		{"idle and busy", []nodeJob{{1, 0, 100, one(2)}, {2, 0, 50, one(4)}}, nil, fcfsNodes,
			[]string{"0 100 0:1", "0 50 1:1"}, "",
			[4]float64{20000, 2*25*100 + 4*25*50, 0, 0}, 0, 100, 0, []int64{0, 50, 100}},
		// Node 1 is switched off at 0 (off at 5), and on at 60 when job 2
		// arrives (on at 70, when job 2 starts); job 1 holds node 0 to 100.
		{"switch cycle", []nodeJob{{1, 0, 100, one(4)}, {2, 60, 50, one(4)}}, nil,
			func(s *sdk.State, call int) ([]sdk.Decision, error) {
				out, _ := fcfsNodes(s, call)
				switch s.Now {
				case 0:
					out = append(out, sdk.PowerOff(0, []int32{1}))
				case 60:
					out = append(out, sdk.PowerOn(0, []int32{1}))
				}
				return out, nil
			},
			[]string{"0 100 0:1", "70 120 1:1"},
			"0 n1 switching-off, 5 n1 off, 60 n1 switching-on, 70 n1 on",
			[4]float64{100*120 + 100*50, 4*25*100 + 4*25*50, 10 * 55, 50*5 + 150*10}, 0, 120, 0,
			[]int64{0, 5, 60, 70, 100, 120}},
		// A cap of 400 W: both nodes full is exactly at the cap.
		{"at the cap", []nodeJob{{1, 0, 10, one(4)}, {2, 0, 10, one(4)}}, []sdk.CapStep{{From: 0, Watts: 400}}, fcfsNodes,
			[]string{"0 10 0:1", "0 10 1:1"}, "",
			[4]float64{2000, 2000, 0, 0}, 0, 10, 0, []int64{0, 10}},
		// A cap lowered to 250 W at 5 under a draw of 400 W: nothing ends,
		// the draw is over the cap for 5 s.
		{"cap lowered", []nodeJob{{1, 0, 10, one(4)}, {2, 0, 10, one(4)}}, []sdk.CapStep{{From: 0, Watts: 400}, {From: 5, Watts: 250}}, fcfsNodes,
			[]string{"0 10 0:1", "0 10 1:1"}, "",
			[4]float64{2000, 2000, 0, 0}, 0, 10, 5, []int64{0, 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := &scripted{fn: tc.policy}
			in := nodeInputs(two, tc.jobs...)
			model := twoNodePower(tc.caps...)
			res, err := sim.Run(context.Background(), plugin(pol), sim.Config{Platform: two, Jobs: in, Power: model})
			if err != nil {
				t.Fatal(err)
			}
			if err := verify.Result(two, in, res); err != nil {
				t.Fatal(err)
			}
			if _, err := verify.Power(two, model, nil, in, res); err != nil {
				t.Fatal(err)
			}
			for i, r := range res.Records {
				if got := fmt.Sprintf("%d %d %s", r.Start, r.End, allocText(res.Allocs.Of(i))); got != tc.starts[i] {
					t.Errorf("job %d: got %q, want %q", i+1, got, tc.starts[i])
				}
			}
			p := res.Power
			if got := eventsText(p.Events); got != tc.events {
				t.Errorf("events %q, want %q", got, tc.events)
			}
			en := p.Energy
			if got := [4]float64{en.Static, en.Dynamic, en.Off, en.Switching}; got != tc.energy {
				t.Errorf("energy %v, want %v", got, tc.energy)
			}
			if en.From != tc.from || en.To != tc.to || en.OverCap != tc.over {
				t.Errorf("span [%d, %d] over cap %d, want [%d, %d] %d", en.From, en.To, en.OverCap, tc.from, tc.to, tc.over)
			}
			if !slices.Equal(pol.seen, tc.calls) {
				t.Errorf("calls at %v, want %v", pol.seen, tc.calls)
			}
		})
	}
}

// TestPowerShown checks what a policy sees of the power: modes, the
// switches' ends, the draw, the committed draw and the cap.
func TestPowerShown(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	var got []string
	pol := &scripted{fn: func(s *sdk.State, call int) ([]sdk.Decision, error) {
		p := s.Power
		got = append(got, fmt.Sprintf("%d %v %v %v %v %v", s.Now, p.Modes[0], p.Until[0], p.Draw, p.Committed, p.Cap))
		out, _ := fcfsNodes(s, call)
		if s.Now == 0 {
			out = append(out, sdk.PowerOff(0, []int32{1}))
		}
		if s.Now == 5 {
			out = append(out, sdk.PowerOn(0, []int32{1}))
		}
		return out, nil
	}}
	jobs := nodeInputs(two, nodeJob{1, 0, 20, sdk.Tasks{Count: 1, Cores: 2}})
	_, err := sim.Run(context.Background(), plugin(pol), sim.Config{Platform: two, Jobs: jobs, Power: twoNodePower(sdk.CapStep{From: 0, Watts: 1000})})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0 [on on] [0 0] 200 200 1000",
		// node 1 off (10 W); node 0 idle 100 + 2 cores 50.
		"5 [on off] [0 0] 160 160 1000",
		// node 1 switching on to 15 at 150 W.
		"15 [on on] [0 0] 250 250 1000",
		"20 [on on] [0 0] 200 200 1000",
	}
	if !slices.Equal(got, want) {
		t.Errorf("shown:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPowerBadDecisions checks that each rule of the power decisions
// fails the run with a message naming it.
func TestPowerBadDecisions(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	jobs := nodeInputs(two, nodeJob{1, 0, 20, sdk.Tasks{Count: 1, Cores: 4}}, nodeJob{2, 0, 20, sdk.Tasks{Count: 1, Cores: 4}})
	for _, tc := range []struct {
		name  string
		model *sdk.Power
		ds    func(s *sdk.State) []sdk.Decision
		want  string
	}{
		{"no model", nil, func(*sdk.State) []sdk.Decision { return []sdk.Decision{sdk.PowerOff(0, []int32{1})} }, "no power model"},
		{"busy node", twoNodePower(), func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.Start(s.Queue[0]), sdk.PowerOff(0, []int32{0})}
		}, "a job holds part of it"},
		{"on node on", twoNodePower(), func(*sdk.State) []sdk.Decision { return []sdk.Decision{sdk.PowerOn(0, []int32{0})} }, "it is on, not off"},
		{"off twice", twoNodePower(), func(*sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.PowerOff(0, []int32{1}), sdk.PowerOff(0, []int32{1})}
		}, "it is switching-off, not on"},
		{"order", twoNodePower(), func(*sdk.State) []sdk.Decision { return []sdk.Decision{sdk.PowerOff(0, []int32{1, 0})} }, "not in increasing order"},
		{"no node", twoNodePower(), func(*sdk.State) []sdk.Decision { return []sdk.Decision{sdk.PowerOff(0, nil)} }, "no node"},
		{"out of range", twoNodePower(), func(*sdk.State) []sdk.Decision { return []sdk.Decision{sdk.PowerOff(0, []int32{2})} }, "which has 2"},
		{"cluster", twoNodePower(), func(*sdk.State) []sdk.Decision { return []sdk.Decision{sdk.PowerOff(1, []int32{0})} }, "not a cluster of nodes"},
		{"start on a node switching off", twoNodePower(), func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.PowerOff(0, []int32{1}), sdk.StartAlloc(s.Queue[0], 0, sdk.Alloc{Nodes: []int32{1}, Tasks: []int32{1}})}
		}, "which has room for 0"},
		// 200 W idle + 100 W for a start of 4 cores: over 250 W.
		{"start over the cap", twoNodePower(sdk.CapStep{Watts: 250}), func(s *sdk.State) []sdk.Decision { return []sdk.Decision{sdk.Start(s.Queue[0])} },
			"over the power cap of 250 W"},
		// Node 1 off: 110 W, then switching on counts max(150, 100) - 10
		// = 140 W more: 250 W, over 240 W.
		{"power on over the cap", twoNodePower(sdk.CapStep{Watts: 240}), func(s *sdk.State) []sdk.Decision {
			if s.Now == 0 {
				return []sdk.Decision{sdk.PowerOff(0, []int32{1})}
			}
			return []sdk.Decision{sdk.PowerOn(0, []int32{1})}
		}, "over the power cap of 240 W"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := &scripted{fn: func(s *sdk.State, _ int) ([]sdk.Decision, error) { return tc.ds(s), nil }}
			_, err := sim.Run(context.Background(), plugin(pol), sim.Config{Platform: two, Jobs: jobs, Power: tc.model})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestPowerBadModel checks the model's validation.
func TestPowerBadModel(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	ok := sdk.NodePower{Off: 10, Idle: 100, Full: 200}
	for _, tc := range []struct {
		name string
		m    sdk.NodePower
		caps []sdk.CapStep
		want string
	}{
		{"negative", sdk.NodePower{Off: -1, Idle: 100, Full: 200}, nil, "off power or energy of -1"},
		{"full below idle", sdk.NodePower{Idle: 100, Full: 50}, nil, "full power 50 W below idle power 100 W"},
		{"negative switch", sdk.NodePower{Idle: 100, Full: 200, OnSeconds: -1}, nil, "switch durations of -1 s"},
		{"energy without time", sdk.NodePower{Idle: 100, Full: 200, OffJoules: 5}, nil, "a switch of 0 s with an energy"},
		{"NaN", sdk.NodePower{Idle: math.NaN(), Full: 200}, nil, "idle power or energy of NaN"},
		{"cap below idle", ok, []sdk.CapStep{{Watts: 150}}, "below the machine's idle draw of 200 W"},
		{"caps out of order", ok, []sdk.CapStep{{From: 5, Watts: 300}, {From: 5, Watts: 400}}, "not after the step before"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &sdk.Power{Groups: [][]sdk.NodePower{{tc.m}}, Caps: tc.caps}
			_, err := sim.Run(context.Background(), plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: two, Power: m})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	m := &sdk.Power{Groups: [][]sdk.NodePower{{ok, ok}}}
	if _, err := sim.Run(context.Background(), plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: two, Power: m}); err == nil || !strings.Contains(err.Error(), "models for 2 node groups, it has 1") {
		t.Fatalf("got %v", err)
	}
}

// powerChaos starts waiting jobs in order while they fit and the cap
// allows, switches idle nodes off at random, and switches nodes on at
// random, or all it may when the head job cannot start.
type powerChaos struct {
	rng   *rand.Rand
	model *sdk.Power
}

func (p *powerChaos) Init(env sdk.Env) error { p.rng = env.Rand; return nil }

func (p *powerChaos) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	var out []sdk.Decision
	pw := s.Power
	n := new(sdk.Nodes)
	n.CopyFrom(s.Nodes[0])
	l := n.Layout
	com := pw.Committed
	blocked := false
	for _, j := range s.Queue {
		var a sdk.Alloc
		if !n.Place(j.Tasks, l.Rule(), &a) {
			blocked = true
			break
		}
		w := p.model.StartWatts(l, 0, j.Tasks, a)
		if !sdk.UnderCap(com+w, pw.Cap) {
			blocked = true
			break
		}
		com += w
		n.Take(j.Tasks, a)
		out = append(out, sdk.StartAlloc(j, 0, a))
	}
	var offs, ons []int32
	for k, m := range pw.Modes[0] {
		switch {
		case m == sdk.NodeOn && n.Free[k] == l.Cap(k) && p.rng.IntN(3) == 0:
			offs = append(offs, int32(k))
		case m == sdk.NodeOff && (blocked || p.rng.IntN(4) == 0):
			if w := p.model.PowerOnWatts(l, 0, k); sdk.UnderCap(com+w, pw.Cap) {
				com += w
				ons = append(ons, int32(k))
			}
		}
	}
	if len(offs) > 0 && !(blocked && len(s.Running) == 0) {
		out = append(out, sdk.PowerOff(0, offs))
	}
	if len(ons) > 0 {
		out = append(out, sdk.PowerOn(0, ons))
	}
	return out, nil
}

// TestPowerRandom runs random workloads on random power models under a
// policy switching nodes at random, and checks each run with the
// independent verification, its draw step by step (checkSeries), a
// rerun, and the records of the same
// schedule without a model where nothing is switched.
func TestPowerRandom(t *testing.T) {
	switched, capped, tables := 0, 0, 0
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 38))
		groups := []sdk.NodeGroup{{Name: "a", Count: 1 + rng.IntN(4), Cores: 4}, {Name: "b", Count: 1 + rng.IntN(4), Cores: 8}}
		p := sdk.NodesPlatform("m", groups, nil, sdk.Placements()[rng.IntN(3)])
		var js []nodeJob
		for id := range int64(10 + rng.IntN(40)) {
			tasks := sdk.Tasks{Count: int32(1 + rng.IntN(4)), Cores: 1}
			if rng.IntN(3) == 0 {
				tasks = sdk.Tasks{Count: 1, Cores: 1, Nodes: 1, Exclusive: true}
			}
			js = append(js, nodeJob{id + 1, rng.Int64N(500), 1 + rng.Int64N(120), tasks})
		}
		model := &sdk.Power{Groups: [][]sdk.NodePower{make([]sdk.NodePower, 2)}}
		full := 0.0
		for g := range model.Groups[0] {
			m := &model.Groups[0][g]
			m.Off = rng.Float64() * 20
			m.Idle = 50 + rng.Float64()*100
			m.Full = m.Idle + rng.Float64()*150
			if m.OnSeconds = rng.Int64N(30); m.OnSeconds > 0 {
				m.OnJoules = float64(m.OnSeconds) * m.Idle * (0.5 + rng.Float64())
			}
			if m.OffSeconds = rng.Int64N(10); m.OffSeconds > 0 {
				m.OffJoules = float64(m.OffSeconds) * m.Idle * (0.2 + rng.Float64())
			}
			full += float64(groups[g].Count) * max(m.Full, m.SwitchOnWatts())
		}
		if rng.IntN(2) == 0 {
			model.Caps = []sdk.CapStep{{From: 0, Watts: full * (0.8 + 0.3*rng.Float64())}}
			if rng.IntN(2) == 0 {
				// A second step, which may fall between two events and
				// splits the draw's step there.
				model.Caps = append(model.Caps, sdk.CapStep{From: 1 + rng.Int64N(400), Watts: full * (0.8 + 0.3*rng.Float64())})
			}
		} else if rng.IntN(2) == 0 {
			// A busy power table (which a cap excludes), not monotone.
			for g := range model.Groups[0] {
				m := &model.Groups[0][g]
				m.Busy = make([]float64, groups[g].Cores)
				for u := range m.Busy {
					m.Busy[u] = m.Idle + rng.Float64()*200
				}
				m.Full = m.Busy[len(m.Busy)-1]
			}
			tables++
		}
		in := nodeInputs(p, js...)
		run := func() *sim.Result {
			pol := &powerChaos{model: model}
			res, err := sim.Run(context.Background(), sdk.Plugin{Info: sdk.Info{Name: "chaos"}, New: func() sdk.Policy { return pol }},
				sim.Config{Platform: p, Jobs: in, Power: model, Seed: seed})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			return res
		}
		res := run()
		if err := verify.Result(p, in, res); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		en, steps, err := verify.PowerSeries(p, model, nil, in, res)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		checkSeries(t, p, model, in, res, en, steps)
		again := run()
		if !slices.Equal(res.Records, again.Records) || !slices.Equal(res.Power.Events, again.Power.Events) || res.Power.Energy != again.Power.Energy {
			t.Fatalf("seed %d: a rerun gave another run", seed)
		}
		switched += len(res.Power.Events)
		if len(model.Caps) > 0 {
			capped++
		}
	}
	// The runs must exercise what they check.
	if switched < 500 || capped < 20 || tables < 10 {
		t.Fatalf("%d power events, %d capped runs and %d with busy tables over 60 seeds: too few to test anything", switched, capped, tables)
	}
	t.Logf("%d power events, %d capped runs, %d with busy tables", switched, capped, tables)
}

// TestPowerVerifyCatches checks that the verification fails on power
// results made wrong in each way it checks.
func TestPowerVerifyCatches(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	one := func(cores int32) sdk.Tasks { return sdk.Tasks{Count: 1, Cores: cores} }
	in := nodeInputs(two, nodeJob{1, 0, 100, one(4)}, nodeJob{2, 60, 50, one(4)})
	model := twoNodePower(sdk.CapStep{Watts: 1000})
	pol := &scripted{fn: func(s *sdk.State, call int) ([]sdk.Decision, error) {
		out, _ := fcfsNodes(s, call)
		switch s.Now {
		case 0:
			out = append(out, sdk.PowerOff(0, []int32{1}))
		case 60:
			out = append(out, sdk.PowerOn(0, []int32{1}))
		}
		return out, nil
	}}
	res, err := sim.Run(context.Background(), plugin(pol), sim.Config{Platform: two, Jobs: in, Power: model})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.Power(two, model, nil, in, res); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(r *sim.Result, m *sdk.Power)
		want   string
	}{
		{"energy", func(r *sim.Result, _ *sdk.Power) { r.Power.Energy.Static += 1 }, "static energy"},
		{"switch too short", func(r *sim.Result, _ *sdk.Power) { r.Power.Events[1].At = 4 }, "off at 4 after switching-off since 0"},
		{"on from on", func(r *sim.Result, _ *sdk.Power) { r.Power.Events[0].Mode = sdk.NodeOn }, "on at 0 after on"},
		{"job on a node switching on", func(r *sim.Result, _ *sdk.Power) { r.Records[1].Start, r.Records[1].End = 65, 115 }, "not on over [0, 70)"},
		{"out of order", func(r *sim.Result, _ *sdk.Power) { r.Power.Events[2].At, r.Power.Events[3].At = 70, 60 }, "before the event before it"},
		{"switch left under way", func(r *sim.Result, _ *sdk.Power) { r.Power.Events = r.Power.Events[:3] }, "not ended by the run's end"},
		{"over the cap", func(_ *sim.Result, m *sdk.Power) { m.Caps[0].Watts = 300 }, "over the cap of 300 W"},
		{"over-cap time", func(r *sim.Result, _ *sdk.Power) { r.Power.Energy.OverCap = 3 }, "3 s over the cap reported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := *res
			r.Records = slices.Clone(res.Records)
			pr := *res.Power
			pr.Events = slices.Clone(res.Power.Events)
			r.Power = &pr
			m := *model
			m.Caps = slices.Clone(model.Caps)
			tc.change(&r, &m)
			if _, err := verify.Power(two, &m, nil, in, &r); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestPowerModelAloneChangesNothing checks that a power model under a
// policy that switches nothing leaves every record as it is without one,
// though the policy is called at more instants.
func TestPowerModelAloneChangesNothing(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 39))
		p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2 + rng.IntN(5), Cores: 4}}, nil, sdk.FirstFit)
		var js []nodeJob
		for id := range int64(30) {
			js = append(js, nodeJob{id + 1, rng.Int64N(300), 1 + rng.Int64N(100), sdk.Tasks{Count: int32(1 + rng.IntN(6)), Cores: 1}})
		}
		in := nodeInputs(p, js...)
		model := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 5, Idle: 80, Full: 180}}}}
		with, err := sim.Run(context.Background(), plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: p, Jobs: in, Power: model})
		if err != nil {
			t.Fatal(err)
		}
		without, err := sim.Run(context.Background(), plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: p, Jobs: in})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(with.Records, without.Records) || without.Power != nil {
			t.Fatalf("seed %d: the model changed the records", seed)
		}
		if with.Stats.PolicyCalls <= without.Stats.PolicyCalls && seed == 0 {
			t.Logf("seed 0: %d calls with the model, %d without", with.Stats.PolicyCalls, without.Stats.PolicyCalls)
		}
	}
}

// TestPowerCapTable checks the cap on nodes with a busy power table,
// worked by hand: two nodes of 4 cores, idle 100 W, 150, 180, 200 and
// 210 W with 1 to 4 cores in use, a cap of 320 W. Job 1 uses 2 cores of
// node 0 from 0: 180 + 100 = 280 W. Job 2's 2 cores, at 1, add 210 - 180 = 30 W
// on node 0 (310 W, under the cap) but 180 - 100 = 80 W on node 1 (360
// W, over it); the line from idle to full would say 55 W on either. The
// policy sees node 0's 2 cores in use (State.Power.InUse).
func TestPowerCapTable(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	model := &sdk.Power{
		Groups: [][]sdk.NodePower{{{Off: 10, Idle: 100, Full: 210, Busy: []float64{150, 180, 200, 210}}}},
		Caps:   []sdk.CapStep{{Watts: 320}},
	}
	two2 := sdk.Tasks{Count: 1, Cores: 2}
	jobs := nodeInputs(two, nodeJob{1, 0, 100, two2}, nodeJob{2, 1, 50, two2})
	for _, tc := range []struct {
		node  int32
		start string // job 2's start and end, or the run's error
		seen  string // InUse when job 2 is placed
	}{
		{0, "1-51", "[2 0]"},
		{1, "over the power cap of 320 W", "[2 0]"},
	} {
		var seen string
		pol := &scripted{fn: func(s *sdk.State, _ int) ([]sdk.Decision, error) {
			var out []sdk.Decision
			for _, j := range s.Queue {
				if j.ID == 1 {
					out = append(out, sdk.StartAlloc(j, 0, sdk.Alloc{Nodes: []int32{0}, Tasks: []int32{1}}))
				}
			}
			if len(out) == 0 && len(s.Queue) > 0 && seen == "" {
				seen = fmt.Sprint(s.Power.InUse[0])
				l := sdk.NewLayout(two, 0)
				a := sdk.Alloc{Nodes: []int32{tc.node}, Tasks: []int32{1}}
				want := map[int32]float64{0: 30, 1: 80}[tc.node]
				if w := model.StartWattsOn(l, 0, s.Queue[0].Tasks, a, s.Power.InUse[0]); w != want {
					return nil, fmt.Errorf("StartWattsOn %v, want %v", w, want)
				}
				out = append(out, sdk.StartAlloc(s.Queue[0], 0, a))
			}
			return out, nil
		}}
		res, err := sim.Run(context.Background(), plugin(pol), sim.Config{Platform: two, Jobs: jobs, Power: model})
		if seen != tc.seen {
			t.Errorf("node %d: cores in use shown %q, want %q", tc.node, seen, tc.seen)
		}
		if err != nil {
			if !strings.Contains(err.Error(), tc.start) {
				t.Errorf("node %d: %v, want %q", tc.node, err, tc.start)
			}
			continue
		}
		if _, err := verify.Power(two, model, nil, jobs, res); err != nil {
			t.Fatal(err)
		}
		if r := res.Records[1]; fmt.Sprintf("%d-%d", r.Start, r.End) != tc.start {
			t.Errorf("node %d: job 2 ran %d-%d, want %s", tc.node, r.Start, r.End, tc.start)
		}
	}
}
