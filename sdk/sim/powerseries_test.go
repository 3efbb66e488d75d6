package sim_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

func stepsText(steps []verify.PowerStep) string {
	var b []string
	for _, s := range steps {
		b = append(b, fmt.Sprintf("[%d,%d) %g+%g+%g+%g cap %g nodes %v cores %d",
			s.From, s.To, s.Static, s.Dynamic, s.Off, s.Switching, s.Cap, s.Nodes, s.Cores))
	}
	return strings.Join(b, "\n")
}

// TestPowerSeriesHandWorked checks the draw step by step on the schedules
// of TestPowerHandWorked, worked out by hand: two nodes of 4 cores, idle
// 100 W, 25 W a core in use, off 10 W, switching off 50 W, on 150 W.
func TestPowerSeriesHandWorked(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	one := func(cores int32) sdk.Tasks { return sdk.Tasks{Count: 1, Cores: cores} }
	cycle := func(s *sdk.State, call int) ([]sdk.Decision, error) {
		out, _ := fcfsNodes(s, call)
		switch s.Now {
		case 0:
			out = append(out, sdk.PowerOff(0, []int32{1}))
		case 60:
			out = append(out, sdk.PowerOn(0, []int32{1}))
		}
		return out, nil
	}
	for _, tc := range []struct {
		name   string
		jobs   []nodeJob
		caps   []sdk.CapStep
		policy func(*sdk.State, int) ([]sdk.Decision, error)
		steps  []string
	}{
		// Job 1 on 2 cores of node 0 for 100 s, job 2 on the 4 of node 1
		// for 50 s.
		{"idle and busy", []nodeJob{{1, 0, 100, one(2)}, {2, 0, 50, one(4)}}, nil, fcfsNodes, []string{
			"[0,50) 200+150+0+0 cap 0 nodes [2 0 0 0] cores 6",
			"[50,100) 200+50+0+0 cap 0 nodes [2 0 0 0] cores 2",
		}},
		// Node 1 switching off over [0, 5), off to 60, switching on to
		// 70, then job 2 on it to 120; job 1 holds node 0 to 100.
		{"switch cycle", []nodeJob{{1, 0, 100, one(4)}, {2, 60, 50, one(4)}}, nil, cycle, []string{
			"[0,5) 100+100+0+50 cap 0 nodes [1 0 0 1] cores 4",
			"[5,60) 100+100+10+0 cap 0 nodes [1 1 0 0] cores 4",
			"[60,70) 100+100+0+150 cap 0 nodes [1 0 1 0] cores 4",
			"[70,100) 200+200+0+0 cap 0 nodes [2 0 0 0] cores 8",
			"[100,120) 200+100+0+0 cap 0 nodes [2 0 0 0] cores 4",
		}},
		// A cap lowered from 400 W to 250 W at 5: the step is split there.
		{"cap lowered", []nodeJob{{1, 0, 10, one(4)}, {2, 0, 10, one(4)}}, []sdk.CapStep{{From: 0, Watts: 400}, {From: 5, Watts: 250}}, fcfsNodes, []string{
			"[0,5) 200+200+0+0 cap 400 nodes [2 0 0 0] cores 8",
			"[5,10) 200+200+0+0 cap 250 nodes [2 0 0 0] cores 8",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := nodeInputs(two, tc.jobs...)
			model := twoNodePower(tc.caps...)
			res, err := sim.Run(context.Background(), plugin(&scripted{fn: tc.policy}), sim.Config{Platform: two, Jobs: in, Power: model})
			if err != nil {
				t.Fatal(err)
			}
			en, steps, err := verify.PowerSeries(two, model, nil, in, res)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := stepsText(steps), strings.Join(tc.steps, "\n"); got != want {
				t.Errorf("steps\n%s\nwant\n%s", got, want)
			}
			checkSeries(t, two, model, in, res, en, steps)
		})
	}
}

// checkSeries checks the steps of a run's draw against the energy
// verify.Power reports (each part the steps' integral, bit for bit, and
// the whole within rounding), against the engine's own energy, and, at
// each step's start, against the draw summed node by node from the
// records and the power events.
func checkSeries(t *testing.T, p *sdk.Platform, m *sdk.Power, in []sim.Input, res *sim.Result, en sim.Energy, steps []verify.PowerStep) {
	t.Helper()
	if alone, err := verify.Power(p, m, nil, in, res); err != nil || alone != en {
		t.Fatalf("verify.Power gives %+v (%v), PowerSeries %+v", alone, err, en)
	}
	var sum sim.Energy
	sum.From, sum.To = en.From, en.To
	var whole float64
	at := en.From
	for x, s := range steps {
		if s.From != at || s.To <= s.From {
			t.Fatalf("step %d is [%d, %d), after a step ending at %d", x, s.From, s.To, at)
		}
		at = s.To
		f := float64(s.To - s.From)
		sum.Static += s.Static * f
		sum.Dynamic += s.Dynamic * f
		sum.Off += s.Off * f
		sum.Switching += s.Switching * f
		whole += s.Watts() * f
		if s.Cap != m.CapAt(s.From) || s.Cap != m.CapAt(s.To-1) {
			t.Fatalf("step %d [%d, %d): cap %v, the model's %v to %v", x, s.From, s.To, s.Cap, m.CapAt(s.From), m.CapAt(s.To-1))
		}
		if !sdk.UnderCap(s.Watts(), s.Cap) {
			sum.OverCap += s.To - s.From
		}
		want := drawAt(p, m, in, res, s.From)
		if math.Abs(s.Watts()-want) > 1e-9*max(1, want) {
			t.Fatalf("step %d [%d, %d): %v W, the nodes one by one draw %v W", x, s.From, s.To, s.Watts(), want)
		}
	}
	if at != en.To {
		t.Fatalf("steps end at %d, the span at %d", at, en.To)
	}
	if sum != en {
		t.Fatalf("steps integrate to %+v, the energy is %+v", sum, en)
	}
	if total := en.Total(); math.Abs(whole-total) > 1e-12*max(1, total) {
		t.Fatalf("the steps' whole draw integrates to %v J, the energy is %v J", whole, total)
	}
	eng := res.Power.Energy.Total()
	if math.Abs(eng-en.Total()) > 1e-9*max(1, eng) {
		t.Fatalf("the engine integrated %v J, the steps %v J", eng, en.Total())
	}
}

// drawAt is the platform's draw over [t, t+1), summed node by node: each
// node's mode from its last power event at or before t, its cores in use
// from the records of the jobs running then.
func drawAt(p *sdk.Platform, m *sdk.Power, in []sim.Input, res *sim.Result, t int64) float64 {
	l := sdk.NewLayout(p, 0)
	modes := make([]sdk.PowerMode, l.Len())
	for _, ev := range res.Power.Events {
		if ev.At <= t {
			modes[ev.Node] = ev.Mode
		}
	}
	cores := make([]int64, l.Len())
	for i, r := range res.Records {
		if r.Rejected || r.Start > t || r.End <= t {
			continue
		}
		a := res.Allocs.Of(i)
		for x, k := range a.Nodes {
			cores[k] += int64(a.Tasks[x]) * int64(in[i].Job.Tasks.Cores)
		}
	}
	w := 0.0
	for k, mode := range modes {
		g := m.Model(l, 0, k)
		switch mode {
		case sdk.NodeOn:
			w += g.BusyWatts(cores[k], l.Cap(k).Cores)
		case sdk.NodeOff:
			w += g.Off
		case sdk.NodeSwitchingOn:
			w += g.SwitchOnWatts()
		case sdk.NodeSwitchingOff:
			w += g.SwitchOffWatts()
		}
	}
	return w
}

// TestPowerBusyTable runs a schedule on nodes whose busy power is a table
// per core count, worked out by hand: two nodes of 4 cores, idle 100 W,
// 130, 150, 180 and 220 W with 1 to 4 cores in use. Job 1 (2 cores) and
// job 3 (1 core, from 20 to 60) share node 0; job 2 holds node 1's 4
// cores to 50. Node 0 draws 150 W, 180 W from 20, 150 W from 60; node 1
// 220 W, then idle from 50.
func TestPowerBusyTable(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	one := func(cores int32) sdk.Tasks { return sdk.Tasks{Count: 1, Cores: cores} }
	in := nodeInputs(two, nodeJob{1, 0, 100, one(2)}, nodeJob{2, 0, 50, one(4)}, nodeJob{3, 20, 40, one(1)})
	model := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 10, Idle: 100, Full: 220, Busy: []float64{130, 150, 180, 220}}}}}
	res, err := sim.Run(context.Background(), plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: two, Jobs: in, Power: model})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"0 100 0:1", "0 50 1:1", "20 60 0:1"} {
		if got := fmt.Sprintf("%d %d %s", res.Records[i].Start, res.Records[i].End, allocText(res.Allocs.Of(i))); got != want {
			t.Fatalf("job %d: %s, want %s", i+1, got, want)
		}
	}
	// Static 2 x 100 W x 100 s; dynamic node 0: 50 W x 20 s + 80 W x 40 s
	// + 50 W x 40 s, node 1: 120 W x 50 s.
	want := sim.Energy{From: 0, To: 100, Static: 20000, Dynamic: 1000 + 3200 + 2000 + 6000}
	if res.Power.Energy != want {
		t.Errorf("the engine's energy %+v, want %+v", res.Power.Energy, want)
	}
	en, steps, err := verify.PowerSeries(two, model, nil, in, res)
	if err != nil {
		t.Fatal(err)
	}
	if en != want {
		t.Errorf("the verification's energy %+v, want %+v", en, want)
	}
	wantSteps := []string{
		"[0,20) 200+170+0+0 cap 0 nodes [2 0 0 0] cores 6",
		"[20,50) 200+200+0+0 cap 0 nodes [2 0 0 0] cores 7",
		"[50,60) 200+80+0+0 cap 0 nodes [2 0 0 0] cores 3",
		"[60,100) 200+50+0+0 cap 0 nodes [2 0 0 0] cores 2",
	}
	if got := stepsText(steps); got != strings.Join(wantSteps, "\n") {
		t.Errorf("steps\n%s\nwant\n%s", got, strings.Join(wantSteps, "\n"))
	}
	checkSeries(t, two, model, in, res, en, steps)
	// The same schedule on the line from 100 W to 220 W (30 W a core)
	// draws 30 W a core in use: the table is what changed the energy.
	lin := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 10, Idle: 100, Full: 220}}}}
	res2, err := sim.Run(context.Background(), plugin(&scripted{fn: fcfsNodes}), sim.Config{Platform: two, Jobs: in, Power: lin})
	if err != nil {
		t.Fatal(err)
	}
	if got := res2.Power.Energy.Dynamic; got != 30*(2*100+4*50+1*40) {
		t.Errorf("the linear model's dynamic energy %v, want %v", got, 30*(2*100+4*50+1*40))
	}
}
