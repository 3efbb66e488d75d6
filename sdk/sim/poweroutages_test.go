package sim_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/internal/stream"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestPowerOutagesHandWorked runs a power model with outages of nodes,
// worked by hand under both rules for a node out of service (sdk.DownIdle
// and DownOff), on two nodes of 4 cores (off 10 W, idle 100 W, 25 W a
// core in use). Node 0 fails from 30 to 50 under job 1 (4 cores, 100 s);
// job 2 holds node 1 from 0 to 100; job 3 (4 cores, 10 s) waits.
func TestPowerOutagesHandWorked(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	four := sdk.Tasks{Count: 4, Cores: 1}
	in := nodeInputs(two, nodeJob{1, 0, 100, four}, nodeJob{2, 0, 100, four}, nodeJob{3, 0, 10, four})
	failure := []sdk.Outage{{Nodes: []int32{0}, Start: 30, End: 50, Kind: sdk.Failure}}
	for _, tc := range []struct {
		name   string
		down   string
		faults sim.Faults
		outs   []sdk.Outage
		policy func(*sdk.State, int) ([]sdk.Decision, error)
		want   []string
		// static, dynamic, off, switching (J), and the span's end
		energy [4]float64
		to     int64
	}{
		// Killed at 30, job 1's 30 s draw 4 x 25 W; job 3 runs at the
		// repair, 50 to 60. Node 0, down and idle, draws 100 W.
		{"killed, down idle", sdk.DownIdle, sim.Faults{}, failure, fcfsNodes,
			[]string{"0 30 0:4 failure attempts=1", "0 100 1:4", "50 60 0:4"},
			[4]float64{2 * 100 * 100, 4 * 25 * (30 + 100 + 10), 0, 0}, 100},
		// Down off: node 0 draws 10 W in place of 100 W for 20 s.
		{"killed, down off", sdk.DownOff, sim.Faults{}, failure, fcfsNodes,
			[]string{"0 30 0:4 failure attempts=1", "0 100 1:4", "50 60 0:4"},
			[4]float64{2*100*100 - 100*20, 4 * 25 * (30 + 100 + 10), 10 * 20, 0}, 100},
		// Requeued in place: job 1 runs again from 50 to 150, job 3 after
		// job 2 on node 1; both of job 1's runs draw.
		{"requeued, down off", sdk.DownOff, sim.Faults{OnFailure: sim.FailRequeue}, failure, fcfsNodes,
			[]string{"50 150 0:4 attempts=1", "0 100 1:4", "100 110 1:4"},
			[4]float64{2*100*150 - 100*20, 4 * 25 * (30 + 100 + 100 + 10), 10 * 20, 0}, 150},
		// Node 1, switched off at 0 (5 s at 50 W, then 10 W), fails from
		// 10 to 20 while off: it stays off, whatever the rule. Jobs run
		// one after the other on node 0.
		{"off node fails, down off", sdk.DownOff, sim.Faults{}, []sdk.Outage{{Nodes: []int32{1}, Start: 10, End: 20, Kind: sdk.Failure}},
			func(s *sdk.State, call int) ([]sdk.Decision, error) {
				if s.Now == 0 {
					return []sdk.Decision{sdk.PowerOff(0, []int32{1}), sdk.StartAlloc(s.Queue[0], 0, sdk.Alloc{Nodes: []int32{0}, Tasks: []int32{4}})}, nil
				}
				return fcfsNodes(s, call)
			},
			[]string{"0 100 0:4", "100 200 0:4", "200 210 0:4"},
			[4]float64{100 * 210, 4 * 25 * 210, 10 * 205, 50 * 5}, 210},
		// A machine-wide maintenance window from 40 to 60 under the soft
		// rule ends jobs 1 and 2 (killed); job 3 runs at 60. Both nodes
		// draw their off power over the window.
		{"maintenance, down off", sdk.DownOff, sim.Faults{Maintenance: sim.MaintenanceSoft},
			[]sdk.Outage{{Start: 40, End: 60, Kind: sdk.Maintenance}}, fcfsNodes,
			[]string{"0 40 0:4 maintenance attempts=1", "0 40 1:4 maintenance attempts=1", "60 70 0:4"},
			[4]float64{2*100*70 - 2*100*20, 4 * 25 * (40 + 40 + 10), 2 * 10 * 20, 0}, 70},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 10, Idle: 100, Full: 200, OffSeconds: 5, OffJoules: 250, Down: tc.down}}}}
			res, err := sim.Run(context.Background(), plugin(&scripted{fn: tc.policy}), sim.Config{Platform: two, Jobs: in, Outages: tc.outs, Faults: tc.faults, Power: model})
			if err != nil {
				t.Fatal(err)
			}
			if err := verify.Outages(two, in, tc.outs, tc.faults, false, res); err != nil {
				t.Fatal(err)
			}
			if _, err := verify.Power(two, model, tc.outs, in, res); err != nil {
				t.Fatal(err)
			}
			for i, r := range res.Records {
				if got := outageText(r, res.Allocs.Of(i)); got != tc.want[i] {
					t.Errorf("job %d: %q, want %q", i+1, got, tc.want[i])
				}
			}
			en := res.Power.Energy
			if got := [4]float64{en.Static, en.Dynamic, en.Off, en.Switching}; got != tc.energy || en.To != tc.to {
				t.Errorf("energy %v to %d, want %v to %d", got, en.To, tc.energy, tc.to)
			}
		})
	}
}

// TestPowerOutagesRandom runs random workloads with random failures,
// drains and maintenance windows under a power model of random rules,
// with a policy that also switches idle nodes off and on at random: the
// verification's own integration (which replays the outages apart from
// the engine) must equal the engine's energy, and reruns must be equal.
func TestPowerOutagesRandom(t *testing.T) {
	dark := 0
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 41))
		nodes := 2 + rng.IntN(6)
		p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "a", Count: nodes/2 + 1, Cores: 4}, {Name: "b", Count: nodes - nodes/2, Cores: 8}}, nil, sdk.FirstFit)
		n := p.Clusters[0].NodeCount()
		var js []nodeJob
		for id := range int64(10 + rng.IntN(40)) {
			js = append(js, nodeJob{id + 1, rng.Int64N(500), 1 + rng.Int64N(120), sdk.Tasks{Count: int32(1 + rng.IntN(8)), Cores: 1}})
		}
		outs := randomOutages(rng, n)
		f := sim.Faults{OnFailure: sim.OnFailure(rng.IntN(2)), LosePlace: rng.IntN(2) == 0, Maintenance: sim.MaintenanceRule(rng.IntN(2))}
		model := &sdk.Power{Groups: [][]sdk.NodePower{make([]sdk.NodePower, 2)}}
		for g := range 2 {
			m := &model.Groups[0][g]
			m.Off, m.Idle = rng.Float64()*10, 50+rng.Float64()*100
			m.Full = m.Idle + rng.Float64()*200
			if m.OnSeconds = rng.Int64N(30); m.OnSeconds > 0 {
				m.OnJoules = float64(m.OnSeconds) * m.Idle
			}
			if m.OffSeconds = rng.Int64N(10); m.OffSeconds > 0 {
				m.OffJoules = float64(m.OffSeconds) * m.Idle / 2
			}
			if rng.IntN(2) == 0 {
				m.Down = sdk.DownOff
			}
		}
		in := nodeInputs(p, js...)
		switcher := func(s *sdk.State, call int) ([]sdk.Decision, error) {
			out, _ := fcfsAround(s, call)
			taken := map[int32]bool{}
			for _, d := range out {
				for _, k := range d.Alloc.Nodes {
					taken[k] = true
				}
			}
			l := s.Nodes[0].Layout
			var offs, ons []int32
			for k := range int32(n) {
				switch s.Power.Modes[0][k] {
				case sdk.NodeOn:
					if !taken[k] && s.Nodes[0].Free[k] == l.Cap(int(k)) && (s.Now*7+int64(k)*3)%5 == 0 {
						offs = append(offs, k)
					}
				case sdk.NodeOff:
					if len(s.Queue) > len(out) {
						ons = append(ons, k)
					}
				}
			}
			if len(offs) > 0 {
				out = append(out, sdk.PowerOff(0, offs))
			}
			if len(ons) > 0 {
				out = append(out, sdk.PowerOn(0, ons))
			}
			if len(s.Queue) > len(out) {
				out = append(out, sdk.WakeAt(s.Now+17))
			}
			return out, nil
		}
		run := func() *sim.Result {
			res, err := sim.Run(context.Background(), plugin(&scripted{fn: switcher}), sim.Config{Platform: p, Jobs: in, Outages: outs, Faults: f, Power: model})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			return res
		}
		res := run()
		if err := verify.Outages(p, in, outs, f, false, res); err != nil {
			t.Fatalf("seed %d (%+v): %v", seed, f, err)
		}
		if en, err := verify.Power(p, model, outs, in, res); err != nil {
			t.Fatalf("seed %d: %v\nengine %+v\nverify %+v", seed, err, res.Power.Energy, en)
		}
		again := run()
		if !slices.Equal(res.Records, again.Records) || !slices.Equal(res.Power.Events, again.Power.Events) || res.Power.Energy != again.Power.Energy {
			t.Fatalf("seed %d: a rerun gave other records or energy", seed)
		}
		if model.Groups[0][0].Down == sdk.DownOff || model.Groups[0][1].Down == sdk.DownOff {
			dark++
		}
	}
	if dark < 20 {
		t.Fatalf("only %d runs with a group under the off rule", dark)
	}
}

// TestPowerStreamedSpan: energy counts from the first submission (100)
// though a failure at 10 makes events before it, whether the jobs are
// given at once or streamed in, as a plugin's engine is given them (an
// independent review's case).
func TestPowerStreamedSpan(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	four := sdk.Tasks{Count: 4, Cores: 1}
	in := nodeInputs(two, nodeJob{1, 100, 100, four}, nodeJob{2, 100, 100, four})
	outs := []sdk.Outage{{Nodes: []int32{0}, Start: 10, End: 20, Kind: sdk.Failure}}
	model := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 10, Idle: 100, Full: 200}}}}
	whole, err := sim.Run(context.Background(), plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: two, Jobs: in, Outages: outs, Power: model})
	if err != nil {
		t.Fatal(err)
	}
	sent := false
	ctx := stream.With(context.Background(), &stream.Hooks[sim.Input, sim.Record]{Total: len(in), More: func() ([]sim.Input, error) {
		if sent {
			return nil, nil
		}
		sent = true
		return in, nil
	}})
	streamed, err := sim.Run(ctx, plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: two, Outages: outs, Power: model})
	if err != nil {
		t.Fatal(err)
	}
	// Two nodes idle at 100 W and 8 cores at 25 W, over [100, 200].
	want := sim.Energy{From: 100, To: 200, Static: 2 * 100 * 100, Dynamic: 8 * 25 * 100}
	if whole.Power.Energy != want || streamed.Power.Energy != want {
		t.Errorf("energy %+v given at once, %+v streamed; want %+v", whole.Power.Energy, streamed.Power.Energy, want)
	}
}
