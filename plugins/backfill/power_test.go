package backfill

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// TestIdleOffHandWorked runs EASY with idle_off on two nodes of 4 cores
// (off 10 W, idle 100 W, full 200 W; switching on in 10 s at 150 W, off
// in 5 s at 50 W), worked by hand. Job 1 (4 cores, 0-100) takes node 0;
// node 1, idle from 0, is switched off at the timeout; job 2 (4 cores,
// submitted at 50) finds no room and node 1 off: node 1 is switched on
// at 50, on at 60, and job 2 runs 60-110.
func TestIdleOffHandWorked(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	model := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 10, Idle: 100, Full: 200, OnSeconds: 10, OnJoules: 1500, OffSeconds: 5, OffJoules: 250}}}}
	four := sdk.Tasks{Count: 1, Cores: 4}
	in := []sim.Input{
		{Job: sdk.Job{ID: 1, Submit: 0, Walltime: 100, Request: sdk.Vector{4}, Tasks: &four}, Runtime: 100},
		{Job: sdk.Job{ID: 2, Submit: 50, Walltime: 50, Request: sdk.Vector{4}, Tasks: &four}, Runtime: 50},
	}
	sim.Sort(in)
	for _, tc := range []struct {
		timeout string
		events  string
		energy  [4]float64 // static, dynamic, off, switching
	}{
		{"20", "20 n1 switching-off, 25 n1 off, 50 n1 switching-on, 60 n1 on",
			[4]float64{100*110 + 100*20 + 100*50, 4*25*100 + 4*25*50, 10 * 25, 50*5 + 150*10}},
		// At once: node 1 off at 0, node 0 at 100 when job 1 ends, and
		// node 1 at 110, the run's last instant (nothing counted after).
		{"0", "0 n1 switching-off, 5 n1 off, 50 n1 switching-on, 60 n1 on, 100 n0 switching-off, 105 n0 off, 110 n1 switching-off",
			[4]float64{100*100 + 100*50, 4*25*100 + 4*25*50, 10*45 + 10*5, 50*5 + 150*10 + 50*5}},
		// Never switched: job 2 starts on node 1 at 50.
		{"-1", "", [4]float64{2 * 100 * 100, 4*25*100 + 4*25*50, 0, 0}},
	} {
		t.Run(tc.timeout, func(t *testing.T) {
			res, err := sim.Run(context.Background(), EASY(), sim.Config{Platform: two, Jobs: in, Power: model, Params: map[string]string{"idle_off": tc.timeout}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := verify.Power(two, model, nil, in, res); err != nil {
				t.Fatal(err)
			}
			var evs []string
			for _, ev := range res.Power.Events {
				evs = append(evs, fmt.Sprintf("%d n%d %s", ev.At, ev.Node, ev.Mode))
			}
			if got := strings.Join(evs, ", "); got != tc.events {
				t.Errorf("events %q, want %q", got, tc.events)
			}
			en := res.Power.Energy
			if got := [4]float64{en.Static, en.Dynamic, en.Off, en.Switching}; got != tc.energy {
				t.Errorf("energy %v, want %v", got, tc.energy)
			}
			want := "60 110"
			if tc.timeout == "-1" {
				want = "50 100"
			}
			if got := fmt.Sprintf("%d %d", res.Records[1].Start, res.Records[1].End); got != want {
				t.Errorf("job 2 ran %s, want %s", got, want)
			}
		})
	}
}

// TestIdleOffRandom runs EASY with idle_off on random node platforms and
// power models, checks every schedule with the host's verification and
// the power verification, and that without switching (idle_off = -1)
// a power model leaves EASY's records as they are without one.
func TestIdleOffRandom(t *testing.T) {
	switched, tableCapBit := 0, 0
	for seed := range uint64(30) {
		sc := policytest.Random{Nodes: true, Jobs: 150}.Scenario(seed)
		in := sc.Inputs()
		r := rand.New(rand.NewPCG(seed, 7))
		groups := sc.Platform.Clusters[0].Nodes
		model := &sdk.Power{Groups: [][]sdk.NodePower{make([]sdk.NodePower, len(groups))}}
		for g := range groups {
			m := &model.Groups[0][g]
			m.Off, m.Idle = r.Float64()*10, 50+r.Float64()*100
			m.Full = m.Idle + r.Float64()*200
			if m.OnSeconds = r.Int64N(120); m.OnSeconds > 0 {
				m.OnJoules = float64(m.OnSeconds) * m.Idle * (0.5 + r.Float64())
			}
			if m.OffSeconds = r.Int64N(30); m.OffSeconds > 0 {
				m.OffJoules = float64(m.OffSeconds) * m.Idle * 0.5
			}
		}
		capped := *model
		full := 0.0
		for g, ng := range groups {
			m := model.Groups[0][g]
			full += float64(ng.Count) * max(m.Full, m.SwitchOnWatts())
		}
		// A cap above what the largest job adds to the idle machine, so
		// that every job can run, and under the machine at full power.
		idle, most, core := model.IdleWatts(sc.Platform), 0.0, 0.0
		for g, ng := range groups {
			core = max(core, model.Groups[0][g].CoreWatts(ng.Cores))
		}
		for _, j := range in {
			most = max(most, float64(int64(j.Job.Tasks.Count)*int64(j.Job.Tasks.Cores))*core)
		}
		capped.Caps = []sdk.CapStep{{From: 0, Watts: max(idle+most, idle+(full-idle)*(0.3+0.5*r.Float64()))}}
		// The same under busy power tables: each core adds a random part
		// of the way from idle to full, so that a start's power depends
		// on what its nodes have in use, and the cap is checked by it.
		tabled := sdk.Power{Groups: [][]sdk.NodePower{slices.Clone(model.Groups[0])}}
		coreMost := 0.0
		for g, ng := range groups {
			m := &tabled.Groups[0][g]
			steps, sum := make([]float64, ng.Cores), 0.0
			for u := range steps {
				steps[u] = 0.1 + r.Float64()
				sum += steps[u]
			}
			w := m.Idle
			for u := range steps {
				w += (m.Full - m.Idle) * steps[u] / sum
				m.Busy = append(m.Busy, w)
			}
			m.Full = m.Busy[len(m.Busy)-1]
			_, hi := m.AddWattsRange(1, ng.Cores)
			coreMost = max(coreMost, hi)
		}
		mostT := 0.0
		for _, j := range in {
			mostT = max(mostT, float64(int64(j.Job.Tasks.Count)*int64(j.Job.Tasks.Cores))*coreMost)
		}
		tabled.Caps = []sdk.CapStep{{From: 0, Watts: max(idle+mostT, idle+(full-idle)*(0.3+0.5*r.Float64()))}}
		for _, tc := range []struct {
			timeout int64
			model   *sdk.Power
		}{{-1, model}, {0, model}, {60, model}, {600, model}, {-1, &capped}, {60, &capped}, {-1, &tabled}, {60, &tabled}} {
			timeout, model := tc.timeout, tc.model
			params := map[string]string{"idle_off": strconv.FormatInt(timeout, 10)}
			for k, v := range sc.Params {
				params[k] = v
			}
			res, err := sim.Run(context.Background(), EASY(), sim.Config{Platform: sc.Platform, Jobs: in, Power: model, Params: params, Seed: sc.Seed})
			if err != nil {
				t.Fatalf("seed %d, idle_off %d: %v", seed, timeout, err)
			}
			if err := verify.Result(sc.Platform, in, res); err != nil {
				t.Fatalf("seed %d, idle_off %d: %v", seed, timeout, err)
			}
			if _, err := verify.Power(sc.Platform, model, nil, in, res); err != nil {
				t.Fatalf("seed %d, idle_off %d: %v", seed, timeout, err)
			}
			switched += len(res.Power.Events)
			if timeout < 0 && model == &tabled {
				free := tabled
				free.Caps = nil
				plain, err := sim.Run(context.Background(), EASY(), sim.Config{Platform: sc.Platform, Jobs: in, Power: &free, Params: params, Seed: sc.Seed})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(plain.Records, res.Records) {
					tableCapBit++
				}
			}
			if timeout >= 0 || len(model.Caps) > 0 {
				continue
			}
			plain, err := sim.Run(context.Background(), EASY(), sim.Config{Platform: sc.Platform, Jobs: in, Params: sc.Params, Seed: sc.Seed})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(plain.Records, res.Records) || len(res.Power.Events) > 0 {
				t.Fatalf("seed %d: a power model without switching changed EASY's records", seed)
			}
		}
	}
	if tableCapBit < 10 {
		t.Errorf("the cap under busy power tables changed the schedule in only %d of 30 runs: the test exercises too little", tableCapBit)
	}
	t.Logf("the cap under tables changed %d schedules of 30", tableCapBit)
	if switched < 1000 {
		t.Fatalf("only %d power events in all runs: the test exercises too little", switched)
	}
	t.Logf("%d power events", switched)
}

// TestCappedEASY runs EASY under a power cap on two nodes of 4 cores
// (idle 100 W, full 200 W: 25 W a core), worked by hand. With a cap of
// 300 W only one of two 4-core jobs submitted at 0 may run at a time: job
// 2 waits for job 1's end, its reservation then; job 3 (1 core, 10 s)
// is backfilled on node 1 at 0, within the cap (200 + 100 + 25 W). With
// 400 W all start at 0, job 3 after job 2 ends.
func TestCappedEASY(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	four, one := sdk.Tasks{Count: 1, Cores: 4}, sdk.Tasks{Count: 1, Cores: 1}
	in := []sim.Input{
		{Job: sdk.Job{ID: 1, Submit: 0, Walltime: 100, Request: sdk.Vector{4}, Tasks: &four}, Runtime: 100},
		{Job: sdk.Job{ID: 2, Submit: 0, Walltime: 50, Request: sdk.Vector{4}, Tasks: &four}, Runtime: 50},
		{Job: sdk.Job{ID: 3, Submit: 0, Walltime: 10, Request: sdk.Vector{1}, Tasks: &one}, Runtime: 10},
	}
	sim.Sort(in)
	for _, tc := range []struct {
		cap  float64
		want string
	}{
		{325, "0-100 100-150 0-10"},
		{400, "0-100 0-50 50-60"},
	} {
		model := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 10, Idle: 100, Full: 200}}}, Caps: []sdk.CapStep{{From: 0, Watts: tc.cap}}}
		res, err := sim.Run(context.Background(), EASY(), sim.Config{Platform: two, Jobs: in, Power: model})
		if err != nil {
			t.Fatalf("cap %v: %v", tc.cap, err)
		}
		if _, err := verify.Power(two, model, nil, in, res); err != nil {
			t.Fatal(err)
		}
		if g := runSpans(res); g != tc.want {
			t.Errorf("cap %v: %s, want %s", tc.cap, g, tc.want)
		}
	}
}

// TestCappedEASYHoldsPower checks that the head's reservation holds power
// under a cap, worked by hand on two nodes of 4 cores (idle 100 W, 25 W a
// core in use), a cap of 375 W. Jobs 1 (2 cores, to 1,000) and 2 (2
// cores, to 100) start on node 0: 300 W. Job 3 (4 cores) fits node 1 but
// not the cap (400 W): it is the head, its shadow time 100, when job 2's
// 50 W come back, leaving 25 W beyond its 100 W. Job 4 (2 cores, 200 s)
// fits the cap now (350 W) but would take 50 W of the head's at 100: it
// is not backfilled, job 3 starts at 100 on node 1, and job 4 when job 3
// ends. Backfilled, job 4 would have held node 1 and delayed job 3 to 200.
func TestCappedEASYHoldsPower(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	task := func(c int32) *sdk.Tasks { return &sdk.Tasks{Count: 1, Cores: c} }
	in := []sim.Input{
		{Job: sdk.Job{ID: 1, Submit: 0, Walltime: 1000, Request: sdk.Vector{2}, Tasks: task(2)}, Runtime: 1000},
		{Job: sdk.Job{ID: 2, Submit: 0, Walltime: 100, Request: sdk.Vector{2}, Tasks: task(2)}, Runtime: 100},
		{Job: sdk.Job{ID: 3, Submit: 0, Walltime: 50, Request: sdk.Vector{4}, Tasks: task(4)}, Runtime: 50},
		{Job: sdk.Job{ID: 4, Submit: 0, Walltime: 200, Request: sdk.Vector{2}, Tasks: task(2)}, Runtime: 200},
	}
	sim.Sort(in)
	model := &sdk.Power{Groups: [][]sdk.NodePower{{{Idle: 100, Full: 200}}}, Caps: []sdk.CapStep{{From: 0, Watts: 375}}}
	res, err := sim.Run(context.Background(), EASY(), sim.Config{Platform: two, Jobs: in, Power: model})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.Power(two, model, nil, in, res); err != nil {
		t.Fatal(err)
	}
	if g, want := runSpans(res), "0-1000 0-100 100-150 150-350"; g != want {
		t.Errorf("%s, want %s", g, want)
	}
}

// TestPowerModelLeavesRecords checks that a power model under which
// nothing is switched and no cap holds leaves the records of every
// reference policy of nodes as they are without one, though the engine
// calls them also when no job waits.
func TestPowerModelLeavesRecords(t *testing.T) {
	for seed := range uint64(20) {
		sc := policytest.Random{Nodes: true, Jobs: 150}.Scenario(seed)
		in := sc.Inputs()
		groups := sc.Platform.Clusters[0].Nodes
		model := &sdk.Power{Groups: [][]sdk.NodePower{make([]sdk.NodePower, len(groups))}}
		for g := range groups {
			model.Groups[0][g] = sdk.NodePower{Off: 5, Idle: 100, Full: 200}
		}
		for _, tc := range []struct {
			p      sdk.Plugin
			params map[string]string
		}{
			{FCFS(), nil},
			{EASY(), nil},
			{EASY(), map[string]string{"reservation": ReservationBatsched}},
			{Conservative(), nil},
			{Multifactor(), nil},
			{Multifactor(), map[string]string{"SchedulerType": "sched/backfill"}},
		} {
			params := maps.Clone(sc.Params)
			if params == nil {
				params = map[string]string{}
			}
			maps.Copy(params, tc.params)
			with, err := sim.Run(context.Background(), tc.p, sim.Config{Platform: sc.Platform, Jobs: in, Power: model, Params: params, Seed: sc.Seed})
			if err != nil {
				t.Fatalf("%s %v, seed %d: %v", tc.p.Info.Name, tc.params, seed, err)
			}
			without, err := sim.Run(context.Background(), tc.p, sim.Config{Platform: sc.Platform, Jobs: in, Params: params, Seed: sc.Seed})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(with.Records, without.Records) || len(with.Power.Events) != 0 {
				t.Errorf("%s %v, seed %d: the power model changed the records", tc.p.Info.Name, tc.params, seed)
			}
		}
	}
}

// TestCappedEASYTable checks that EASY under a cap counts a start's power
// by the busy power table, worked by hand on two nodes of 4 cores, idle
// 100 W, a cap of 320 W. Under the concave table 190, 200, 205 and 210 W
// with 1 to 4 cores in use, job 1 (2 cores, to 1,000) starts on node 0:
// 300 W. Job 2 (4 cores) would add 110 W on node 1: it waits for job 1's
// end (200 + 110 W). Job 3 (2 cores, 200 s) adds 210 - 200 = 10 W on node
// 0: 310 W, under the cap, and ends before the head's reservation: it is
// backfilled at 0. Counted by the line from idle to full (27.5 W a core)
// from the 300 W drawn, it would add 55 W, over the cap, and wait. Under
// the convex table 105, 110, 150, 210 W, job 1 takes 110 W and job 2 110
// W more, at the cap: both start at 0. Job 3 would add 100 W on node 0:
// it waits for job 2's end.
func TestCappedEASYTable(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	task := func(c int32) *sdk.Tasks { return &sdk.Tasks{Count: 1, Cores: c} }
	in := []sim.Input{
		{Job: sdk.Job{ID: 1, Submit: 0, Walltime: 1000, Request: sdk.Vector{2}, Tasks: task(2)}, Runtime: 1000},
		{Job: sdk.Job{ID: 2, Submit: 0, Walltime: 50, Request: sdk.Vector{4}, Tasks: task(4)}, Runtime: 50},
		{Job: sdk.Job{ID: 3, Submit: 0, Walltime: 200, Request: sdk.Vector{2}, Tasks: task(2)}, Runtime: 200},
	}
	sim.Sort(in)
	for _, tc := range []struct {
		name string
		busy []float64
		want string
	}{
		{"table", []float64{190, 200, 205, 210}, "0-1000 1000-1050 0-200"},
		{"convex", []float64{105, 110, 150, 210}, "0-1000 0-50 50-250"},
	} {
		model := &sdk.Power{Groups: [][]sdk.NodePower{{{Idle: 100, Full: 210, Busy: tc.busy}}}, Caps: []sdk.CapStep{{From: 0, Watts: 320}}}
		res, err := sim.Run(context.Background(), EASY(), sim.Config{Platform: two, Jobs: in, Power: model})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, err := verify.Power(two, model, nil, in, res); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if g := runSpans(res); g != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, g, tc.want)
		}
	}
}

// TestIdleOffUnderOutages runs EASY switching idle nodes off (and under a
// cap) on random node platforms with random failures, drains and
// maintenance windows, under each rule for what a node out of service
// draws: the schedule passes the verification of outages and the power
// verification, whose integration replays the outages apart from the
// engine, and a node out of service is never switched (the engine refuses
// it, failing the run).
func TestIdleOffUnderOutages(t *testing.T) {
	rules := []sim.Faults{{}, {OnFailure: sim.FailRequeue}, {OnFailure: sim.FailRequeue, LosePlace: true, Maintenance: sim.MaintenanceSoft}}
	switched, interrupted := 0, 0
	for seed := range uint64(30) {
		sc := policytest.Random{Nodes: true, Jobs: 120}.Scenario(seed)
		in := sc.Inputs()
		horizon := in[len(in)-1].Job.Submit + 1
		outs := randomOutages(sc.Platform, seed, horizon)
		f := rules[int(seed)%len(rules)]
		groups := sc.Platform.Clusters[0].Nodes
		model := &sdk.Power{Groups: [][]sdk.NodePower{make([]sdk.NodePower, len(groups))}}
		for g := range groups {
			m := &model.Groups[0][g]
			m.Off, m.Idle, m.Full = 5, 100, 300
			m.OnSeconds, m.OnJoules = 30, 30*150
			if (int(seed)+g)%2 == 0 {
				m.Down = sdk.DownOff
			}
		}
		for _, timeout := range []string{"0", "60"} {
			params := map[string]string{"idle_off": timeout}
			maps.Copy(params, sc.Params)
			res, err := sim.Run(context.Background(), EASY(), sim.Config{Platform: sc.Platform, Jobs: in, Power: model, Outages: outs, Faults: f, Params: params, Seed: sc.Seed})
			if err != nil {
				t.Fatalf("seed %d, idle_off %s, %+v: %v", seed, timeout, f, err)
			}
			if err := verify.Outages(sc.Platform, in, outs, f, false, res); err != nil {
				t.Fatalf("seed %d, idle_off %s: %v", seed, timeout, err)
			}
			if _, err := verify.Power(sc.Platform, model, outs, in, res); err != nil {
				t.Fatalf("seed %d, idle_off %s: %v", seed, timeout, err)
			}
			switched += len(res.Power.Events)
			interrupted += len(res.Attempts)
		}
	}
	if switched < 1000 || interrupted < 100 {
		t.Fatalf("%d power events and %d interrupted runs in all: the test exercises too little", switched, interrupted)
	}
	t.Logf("%d power events, %d interrupted runs", switched, interrupted)
}

// TestCappedEASYTableHoldsHead (an independent review's case): 5 nodes of
// 4 cores idle at 100 W, the table 200, 210, 220, 230 W, a cap of 1,100
// W. A (4 cores, to 100) and C (4 cores, to 10,000) take nodes 0 and 1
// (130 W each: 760 W); the head H (12 tasks of a core, 100 s) would add
// 390 W on nodes 2 to 4: its shadow time is A's end, 100. Four jobs of one
// core and 10,000 s each add 100 W on an idle node, 10 W on a busy one:
// counted at the least a core adds (10 W), they would be backfilled past
// the shadow time and keep H out until 10,000. Holding the most H's cores
// can add (12 x 100 W), EASY backfills none, H starts at 100 as promised,
// and they follow at its end.
func TestCappedEASYTableHoldsHead(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 5, Cores: 4}}, nil, sdk.FirstFit)
	task := func(n, c int32) *sdk.Tasks { return &sdk.Tasks{Count: n, Cores: c} }
	in := []sim.Input{
		{Job: sdk.Job{ID: 1, Submit: 0, Walltime: 100, Request: sdk.Vector{4}, Tasks: task(1, 4)}, Runtime: 100},
		{Job: sdk.Job{ID: 2, Submit: 0, Walltime: 10000, Request: sdk.Vector{4}, Tasks: task(1, 4)}, Runtime: 10000},
		{Job: sdk.Job{ID: 3, Submit: 0, Walltime: 100, Request: sdk.Vector{12}, Tasks: task(12, 1)}, Runtime: 100},
	}
	for id := int64(4); id <= 7; id++ {
		in = append(in, sim.Input{Job: sdk.Job{ID: id, Submit: 0, Walltime: 10000, Request: sdk.Vector{1}, Tasks: task(1, 1)}, Runtime: 10000})
	}
	sim.Sort(in)
	model := &sdk.Power{Groups: [][]sdk.NodePower{{{Idle: 100, Full: 230, Busy: []float64{200, 210, 220, 230}}}}, Caps: []sdk.CapStep{{From: 0, Watts: 1100}}}
	res, err := sim.Run(context.Background(), EASY(), sim.Config{Platform: p, Jobs: in, Power: model})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.Power(p, model, nil, in, res); err != nil {
		t.Fatal(err)
	}
	if g, want := runSpans(res), "0-100 0-10000 100-200 200-10200 200-10200 200-10200 200-10200"; g != want || res.Records[2].Promised != 100 {
		t.Errorf("%s (head promised %d), want %s (100)", g, res.Records[2].Promised, want)
	}
}

// runSpans returns each job's start and end, "start-end" in index order,
// joined by spaces.
func runSpans(res *sim.Result) string {
	var b []string
	for _, r := range res.Records {
		b = append(b, fmt.Sprintf("%d-%d", r.Start, r.End))
	}
	return strings.Join(b, " ")
}
