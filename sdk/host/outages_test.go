package host_test

import (
	"context"
	"math/rand/v2"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// fitNodes is firstFit on a platform of nodes: it starts each waiting job,
// in queue order, where the cluster's rule places it now, on its own
// allocation, leaving out the nodes a maintenance window reaches within
// the job's walltime.
func fitNodes(s *sdk.State) []sdk.Decision {
	var out []sdk.Decision
	n, try := new(sdk.Nodes), new(sdk.Nodes)
	n.CopyFrom(s.Nodes[0])
	// A burst buffer divided into units beside the nodes: the pieces are
	// placed as the engine places them (sdk.PlacePieces), here to know
	// whether they fit.
	c := &s.Platform.Clusters[0]
	var units []int64
	var pl []int32
	if len(c.Units) == 1 {
		units, pl = slices.Clone(s.FreeUnits[0]), make([]int32, len(c.Units[0].Capacity))
	}
	for _, j := range s.Queue {
		var a sdk.Alloc
		try.CopyFrom(n)
		for k := range sdk.WindowNodes(s, 0, j.Walltime) {
			try.SetFree(k, sdk.Amount{})
		}
		if !try.Place(j.Tasks, n.Layout.Rule(), &a) {
			continue
		}
		if units != nil {
			pieces, size, _ := c.Units[0].Pieces(j.Request)
			if !sdk.PlacePieces(pl, units, pieces, size) {
				continue
			}
			for k, x := range pl {
				units[k] -= int64(x) * size
			}
		}
		n.Take(j.Tasks, a)
		out = append(out, sdk.StartAlloc(j, 0, a))
	}
	if s.Power != nil {
		// Switch off every idle node while no job waits that it could
		// take, and on every node off while one waits.
		waiting := len(out) < len(s.Queue)
		var offs, ons []int32
		for k, m := range s.Power.Modes[0] {
			switch {
			case m == sdk.NodeOn && !waiting && n.Free[k] == n.Layout.Cap(k):
				offs = append(offs, int32(k))
			case m == sdk.NodeOff && waiting:
				ons = append(ons, int32(k))
			}
		}
		if len(offs) > 0 {
			out = append(out, sdk.PowerOff(0, offs))
		}
		if len(ons) > 0 {
			out = append(out, sdk.PowerOn(0, ons))
		}
	}
	return out
}

// outageWorkload is a platform of 6 nodes of 8 cores, 400 jobs and
// failures of every node, drawn with seed 11, and a maintenance window.
func outageWorkload() (*sdk.Platform, []sim.Input, []sdk.Outage) {
	p := sdk.NodesPlatform("nodes", []sdk.NodeGroup{{Name: "n", Count: 6, Cores: 8}}, nil, sdk.BestFit)
	l := sdk.NewLayout(p, 0)
	r := rand.New(rand.NewPCG(11, 0))
	var jobs []sim.Input
	t := int64(0)
	for i := range 400 {
		t += r.Int64N(120)
		tasks := sdk.Tasks{Count: int32(1 + r.IntN(16)), Cores: 1}
		req := make(sdk.Vector, p.Dims())
		l.Request(&tasks, req)
		run := 1 + r.Int64N(1800)
		jobs = append(jobs, sim.Input{Job: sdk.Job{ID: int64(i + 1), Submit: t, Walltime: run + r.Int64N(600), Request: req, Tasks: &tasks}, Runtime: run})
	}
	sim.Sort(jobs)
	var outs []sdk.Outage
	for k := range int32(6) {
		for at := r.Int64N(8000); at < t; at += 1 + r.Int64N(8000) {
			d := 1 + r.Int64N(900)
			outs = append(outs, sdk.Outage{Nodes: []int32{k}, Start: at, End: at + d, Kind: sdk.Failure})
			at += d
		}
	}
	outs = append(outs, sdk.Outage{Start: t / 2, End: t/2 + 3600, Kind: sdk.Maintenance})
	sdk.SortOutages(outs)
	return p, jobs, outs
}

// TestOutagesOverTheWire runs a workload with failures and a maintenance
// window through a plugin of this SDK, under each rule: the outages and
// rules cross the wire, and the records, attempts and allocations come
// back as the in-process run's, and valid.
func TestOutagesOverTheWire(t *testing.T) {
	p := servedPlugin(t, "1")
	plat, jobs, outs := outageWorkload()
	for _, f := range []sim.Faults{{}, {OnFailure: sim.FailRequeue, LosePlace: true, Maintenance: sim.MaintenanceSoft},
		{OnFailure: sim.FailCheckpoint, Checkpoint: sim.Checkpoint{Rule: sim.IntervalYoung, Cost: 60, Restart: 30, MTBF: 8000}}} {
		spec := host.RunSpec{Platform: plat, Seed: 3, Outages: outs, Faults: f}
		check := verify.NewChecker(plat, jobs)
		check.Expect(outs, f, false)
		got, err := p.Run(context.Background(), spec, jobs, check.Add)
		if err != nil {
			t.Fatal(err)
		}
		check.SetAttempts(got.Attempts, got.AttemptAllocs)
		if err := check.Finish(got.Units, got.Allocs); err != nil {
			t.Fatalf("%+v: invalid schedule: %v", f, err)
		}
		want, err := host.InProcess(firstFitPlugin()).Run(context.Background(), spec, jobs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Attempts) == 0 {
			t.Fatalf("%+v: no job was reached by an outage: the test crosses too little of the wire", f)
		}
		if !reflect.DeepEqual(got.Records, want.Records) || !reflect.DeepEqual(got.Attempts, want.Attempts) ||
			!reflect.DeepEqual(got.Allocs, want.Allocs) || !reflect.DeepEqual(got.AttemptAllocs, want.AttemptAllocs) {
			t.Fatalf("%+v: the plugin's records, attempts or allocations differ from the in-process run's", f)
		}
	}
}

// TestPowerOverTheWire runs the workload of outageWorkload, without its
// outages, under a power model through a plugin of this SDK that switches
// idle nodes off and on: the model crosses the wire, and the records,
// allocations, power events and the engine's energy come back as the
// in-process run's, and valid. A plugin of protocol 5 is refused such a
// run.
func TestPowerOverTheWire(t *testing.T) {
	p := servedPlugin(t, "1")
	plat, jobs, _ := outageWorkload()
	model := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 9.5, Idle: 95.25, Full: 240, OnSeconds: 120, OnJoules: 18000, OffSeconds: 30, OffJoules: 1500}}},
		Caps: []sdk.CapStep{{From: 0, Watts: 1e5}}}
	spec := host.RunSpec{Platform: plat, Seed: 3, Power: model}
	got, err := p.Run(context.Background(), spec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.Result(plat, jobs, got); err != nil {
		t.Fatal(err)
	}
	if _, err := verify.Power(plat, model, nil, jobs, got); err != nil {
		t.Fatal(err)
	}
	want, err := host.InProcess(firstFitPlugin()).Run(context.Background(), spec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Power.Events) < 40 {
		t.Fatalf("%d power events: the test crosses too little of the wire", len(want.Power.Events))
	}
	if !reflect.DeepEqual(got.Records, want.Records) || !reflect.DeepEqual(got.Allocs, want.Allocs) || !reflect.DeepEqual(got.Power, want.Power) {
		t.Fatal("the plugin's records, allocations or power differ from the in-process run's")
	}
	// A busy power table (protocol 11) crosses the wire too: the plugin's
	// engine integrates it as the in-process one does.
	table := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 9.5, Idle: 95.25, Full: 300, OnSeconds: 120, OnJoules: 18000, OffSeconds: 30, OffJoules: 1500,
		Busy: []float64{150, 180, 200, 215, 250, 260, 290, 300}}}}}
	tspec := host.RunSpec{Platform: plat, Seed: 3, Power: table}
	gotT, err := p.Run(context.Background(), tspec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantT, err := host.InProcess(firstFitPlugin()).Run(context.Background(), tspec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.Power(plat, table, nil, jobs, gotT); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotT.Power, wantT.Power) || gotT.Power.Energy.Dynamic == want.Power.Energy.Dynamic {
		t.Fatalf("with a busy power table: the plugin's energy %+v, in process %+v", gotT.Power.Energy, wantT.Power.Energy)
	}
	// With the workload's outages, and nodes out of service drawing their
	// off power (protocol 11): the rule crosses the wire, and the
	// plugin's energy, attempts and records are the in-process run's.
	dark := &sdk.Power{Groups: [][]sdk.NodePower{{{Off: 9.5, Idle: 95.25, Full: 240, OnSeconds: 120, OnJoules: 18000, OffSeconds: 30, OffJoules: 1500, Down: sdk.DownOff}}}}
	_, _, outs := outageWorkload()
	dspec := host.RunSpec{Platform: plat, Seed: 3, Power: dark, Outages: outs, Faults: sim.Faults{OnFailure: sim.FailRequeue}}
	gotD, err := p.Run(context.Background(), dspec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantD, err := host.InProcess(firstFitPlugin()).Run(context.Background(), dspec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.Outages(plat, jobs, outs, dspec.Faults, false, gotD); err != nil {
		t.Fatal(err)
	}
	if _, err := verify.Power(plat, dark, outs, jobs, gotD); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotD.Power, wantD.Power) || !reflect.DeepEqual(gotD.Records, wantD.Records) || !reflect.DeepEqual(gotD.Attempts, wantD.Attempts) ||
		len(gotD.Attempts) == 0 || gotD.Power.Energy.Off == 0 {
		t.Fatalf("with outages: the plugin's energy %+v and %d attempts, in process %+v and %d", gotD.Power.Energy, len(gotD.Attempts), wantD.Power.Energy, len(wantD.Attempts))
	}
	old, err := host.Start(context.Background(), exec.Command(buildFixture(t, "testdata/proto5", "./cmd/firstfit", true)))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if _, err := old.Run(context.Background(), spec, jobs, nil); err == nil || !strings.Contains(err.Error(), "protocol") {
		t.Fatalf("a protocol-5 plugin with a power model: %v", err)
	}
}

// TestOutagesRefusedToOlderPlugins: a plugin of protocol 5 can carry
// neither nodes nor outages; the host refuses the run before sending a job
// (the check of protocol 8 for outages is wire.Client.Run's, beside it).
func TestOutagesRefusedToOlderPlugins(t *testing.T) {
	bin := buildFixture(t, "testdata/proto5", "./cmd/firstfit", true)
	p, err := host.Start(context.Background(), exec.Command(bin))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	plat, jobs, outs := outageWorkload()
	_, err = p.Run(context.Background(), host.RunSpec{Platform: plat, Outages: outs}, jobs, nil)
	if err == nil || !strings.Contains(err.Error(), "protocol") {
		t.Fatalf("a protocol-5 plugin with outages: %v", err)
	}
}
