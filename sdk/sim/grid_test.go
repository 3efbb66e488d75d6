package sim_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// twoClusters is a grid of two clusters, a (4 processors) and b (2).
func twoClusters() *sdk.Platform {
	return &sdk.Platform{Name: "grid", Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{
		{Name: "a", Capacity: sdk.Vector{4}}, {Name: "b", Capacity: sdk.Vector{2}},
	}}
}

// gridJob is a job of the grid tests: id, submit, runtime (= walltime),
// processors, home (0 global, 1 cluster a, 2 cluster b), transfer.
func gridJobs(specs ...[6]int64) []sim.Input {
	in := make([]sim.Input, len(specs))
	for i, s := range specs {
		in[i] = sim.Input{Job: sdk.Job{ID: s[0], Submit: s[1], Walltime: s[2], Request: sdk.Vector{s[3]}, Home: int32(s[4]), Transfer: s[5],
			Priority: 10}, Runtime: s[2]}
	}
	sim.Sort(in)
	return in
}

func runGrid(t *testing.T, in []sim.Input, fn func(s *sdk.State, call int) ([]sdk.Decision, error)) (*sim.Result, error) {
	t.Helper()
	return sim.Run(context.Background(), plugin(&scripted{fn: fn}), sim.Config{Platform: twoClusters(), Jobs: in})
}

// TestGridRuleErrors checks each rule the engine enforces for grids, on
// hand-made cases.
func TestGridRuleErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		jobs []sim.Input
		fn   func(s *sdk.State, call int) ([]sdk.Decision, error)
		want string
	}{
		{"a local job away from home", gridJobs([6]int64{1, 0, 10, 1, 1, 0}),
			func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				return []sdk.Decision{sdk.StartOn(s.Queue[0], 1)}, nil
			},
			`start job id 1 on cluster "b": it is a local job of cluster "a"`},
		{"a job with a transfer not shipped", gridJobs([6]int64{1, 0, 10, 1, 0, 5}),
			func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				return []sdk.Decision{sdk.StartOn(s.Queue[0], 0)}, nil
			},
			`start job id 1 on cluster "a": it must be shipped there first (its transfer takes 5 s)`},
		{"a shipped job started before it arrives", gridJobs([6]int64{1, 0, 10, 1, 0, 5}),
			func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				return []sdk.Decision{sdk.Ship(s.Queue[0], 1), sdk.StartOn(s.Queue[0], 1)}, nil
			},
			`start job id 1 on cluster "b" at 0: shipped at 0, it arrives at 5`},
		{"a shipped job started elsewhere", gridJobs([6]int64{1, 0, 10, 1, 0, 5}),
			func(s *sdk.State, call int) ([]sdk.Decision, error) {
				if call == 1 {
					return []sdk.Decision{sdk.Ship(s.Queue[0], 1), sdk.WakeAt(5)}, nil
				}
				return []sdk.Decision{sdk.StartOn(s.Queue[0], 0)}, nil
			},
			`start job id 1 on cluster "a": it was shipped to cluster "b"`},
		{"shipping twice", gridJobs([6]int64{1, 0, 10, 1, 0, 5}),
			func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				return []sdk.Decision{sdk.Ship(s.Queue[0], 1), sdk.Ship(s.Queue[0], 0)}, nil
			},
			`ship job id 1: it was shipped already, at 0`},
		{"shipping a local job away", gridJobs([6]int64{1, 0, 10, 1, 2, 0}),
			func(s *sdk.State, _ int) ([]sdk.Decision, error) { return []sdk.Decision{sdk.Ship(s.Queue[0], 0)}, nil },
			`ship job id 1 on cluster "a": it is a local job of cluster "b"`},
		{"a start that takes reserved processors", gridJobs([6]int64{1, 0, 10, 4, 0, 0}, [6]int64{2, 0, 10, 1, 0, 0}),
			func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				// Job 1 holds all of a from 5; job 2, 10 s long, would still run then.
				return []sdk.Decision{sdk.Reserve(s.Queue[0], 0, 5), sdk.StartOn(s.Queue[1], 0)}, nil
			},
			`start job id 2 on cluster "a": it would take at 5 the procs reserved for job id 1`},
		{"a charge above the payment", gridJobs([6]int64{1, 0, 10, 1, 0, 0}),
			func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				return []sdk.Decision{sdk.Charge(s.Queue[0], 11)}, nil
			},
			`charge job id 1: cost 11 exceeds its payment 10`},
		{"a reservation in the past", gridJobs([6]int64{1, 3, 10, 1, 0, 0}),
			func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				return []sdk.Decision{sdk.Reserve(s.Queue[0], 0, 2)}, nil
			},
			`reserve for job id 1 at 2: not between now (3)`},
		{"a refused reservation keeps the one held", gridJobs([6]int64{1, 0, 10, 4, 0, 0}, [6]int64{2, 0, 20, 4, 0, 0}, [6]int64{3, 0, 15, 1, 0, 0}),
			func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				// Job 1 holds a from 30; job 2 takes a from 0 to 20; job 1's
				// second reservation, at 5, is refused; job 3 (15 s) started
				// at 20 would cross 30.
				if s.Now == 0 {
					return []sdk.Decision{sdk.Reserve(s.Queue[0], 0, 30), sdk.StartOn(s.Queue[1], 0), sdk.Reserve(s.Queue[0], 0, 5)}, nil
				}
				return []sdk.Decision{sdk.StartOn(s.Queue[1], 0)}, nil
			},
			`start job id 3 on cluster "a": it would take at 30 the procs reserved for job id 1`},
		{"a shipment away from a reservation", gridJobs([6]int64{1, 0, 10, 1, 0, 5}),
			func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				return []sdk.Decision{sdk.Reserve(s.Queue[0], 0, 10), sdk.Ship(s.Queue[0], 1)}, nil
			},
			`ship job id 1 to cluster "b": it holds a reservation on cluster "a"`},
		{"a reservation before the job can arrive", gridJobs([6]int64{1, 0, 10, 1, 0, 5}),
			func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				return []sdk.Decision{sdk.Reserve(s.Queue[0], 0, 3)}, nil
			},
			`reserve for job id 1 at 3: it cannot arrive before 5`},
		{"a charge against a NaN payment", nanPayment(),
			func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				return []sdk.Decision{sdk.Charge(s.Queue[0], 0)}, nil
			},
			`charge job id 1: cost 0 exceeds its payment NaN`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := runGrid(t, c.jobs, c.fn)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant %s", err, c.want)
			}
		})
	}
}

// TestReservations works a grid scenario by hand. Cluster a has 4
// processors. At 0, local job 1 (3 processors, 10 s) starts on a; global
// job 2 (4 processors, 10 s, transfer 2) asks a reservation on a at 5,
// which is refused (job 1 holds 3 processors until 10), then one at 10,
// which holds; it is shipped at 8 (arriving at 10). Local job 3 (1
// processor, 20 s, submitted at 4) fits now but would run into the
// reservation: the policy holds it until job 2 starts at 10; it cannot
// start at 10 (all 4 processors reserved) and starts at 20. Records:
// job 2 reserved at 10, 1 refusal, shipped at 8, started at 10, charged 7;
// nothing broken.
func TestReservations(t *testing.T) {
	in := gridJobs([6]int64{1, 0, 10, 3, 1, 0}, [6]int64{2, 0, 10, 4, 0, 2}, [6]int64{3, 4, 20, 1, 1, 0})
	var refused []sdk.Refusal
	res, err := runGrid(t, in, func(s *sdk.State, call int) ([]sdk.Decision, error) {
		refused = append(refused, s.Refused...)
		var ds []sdk.Decision
		for _, j := range s.Queue {
			switch {
			case j.ID == 1:
				ds = append(ds, sdk.StartOn(j, 0))
			case j.ID == 2 && s.Now == 0:
				ds = append(ds, sdk.Reserve(j, 0, 5), sdk.Reserve(j, 0, 10), sdk.WakeAt(8))
			case j.ID == 2 && s.Now == 8:
				ds = append(ds, sdk.Ship(j, 0), sdk.Charge(j, 7), sdk.WakeAt(10))
			case j.ID == 2 && s.Now == 10:
				ds = append(ds, sdk.StartOn(j, 0))
			case j.ID == 3 && s.Now >= 20:
				ds = append(ds, sdk.StartOn(j, 0))
			}
		}
		return ds, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Records
	if r[0].Start != 0 || r[1].Start != 10 || r[2].Start != 20 {
		t.Errorf("starts %d %d %d, want 0 10 20", r[0].Start, r[1].Start, r[2].Start)
	}
	want := sim.Record{Index: 1, Cluster: 0, Start: 10, End: 20, Promised: 10, HasPromise: true, ShipTime: 8, Shipped: true,
		ReservedAt: 10, ReservedCluster: 0, Reserved: true, Refusals: 1, Cost: 7, Charged: true}
	if r[1] != want {
		t.Errorf("job 2's record %+v\nwant %+v", r[1], want)
	}
	if r[1].Broken() || r[0].Reserved || r[0].Shipped {
		t.Errorf("job 2 broken %v; job 1 %+v", r[1].Broken(), r[0])
	}
	if len(refused) != 1 || refused[0].Job.ID != 2 || refused[0].At != 5 {
		t.Errorf("refusals seen by the policy: %+v", refused)
	}

	// Job 3 started at 4 would cross the reservation: refused as a start.
	_, err = runGrid(t, in, func(s *sdk.State, call int) ([]sdk.Decision, error) {
		var ds []sdk.Decision
		for _, j := range s.Queue {
			switch {
			case j.ID == 1:
				ds = append(ds, sdk.StartOn(j, 0))
			case j.ID == 2 && s.Now == 0:
				ds = append(ds, sdk.Reserve(j, 0, 10))
			case j.ID == 3:
				ds = append(ds, sdk.StartOn(j, 0))
			}
		}
		return ds, nil
	})
	if err == nil || !strings.Contains(err.Error(), `start job id 3 on cluster "a": it would take at 10 the procs reserved for job id 2`) {
		t.Errorf("a local start across a reservation: %v", err)
	}
}

// TestBrokenReservation checks that a reservation the policy does not keep
// is recorded as broken, and stops holding resources once its time has
// passed.
func TestBrokenReservation(t *testing.T) {
	in := gridJobs([6]int64{1, 0, 10, 4, 0, 0}, [6]int64{2, 1, 10, 4, 0, 0})
	res, err := runGrid(t, in, func(s *sdk.State, call int) ([]sdk.Decision, error) {
		var ds []sdk.Decision
		for _, j := range s.Queue {
			switch {
			case j.ID == 1 && s.Now == 0:
				ds = append(ds, sdk.Reserve(j, 0, 2), sdk.WakeAt(3))
			case j.ID == 1 && s.Now == 3:
				ds = append(ds, sdk.StartOn(j, 0)) // late: the reservation was at 2
			case j.ID == 2 && s.Now >= 13:
				ds = append(ds, sdk.StartOn(j, 0))
			}
		}
		if len(ds) == 0 && s.Now > 3 {
			ds = append(ds, sdk.WakeAt(13))
		}
		return ds, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Records[0]; !r.Broken() || r.Start != 3 || r.ReservedAt != 2 {
		t.Errorf("job 1: %+v, broken %v", r, r.Broken())
	}
	if res.Records[1].Broken() {
		t.Error("job 2 had no reservation")
	}
}

func nanPayment() []sim.Input {
	in := gridJobs([6]int64{1, 0, 10, 1, 0, 0})
	in[0].Job.Priority = math.NaN()
	return in
}

// TestGridEngineHelps checks what the engine does for grid policies: it
// calls the policy when a reservation's time comes and when a shipped job
// arrives, without a WakeAt; a start refused for want of free processors
// says so even beside a lapsed reservation; a reservation on a cluster with
// divided resources is an error; a local job that its home cluster's units
// cannot hold is refused when it loads.
func TestGridEngineHelps(t *testing.T) {
	in := gridJobs([6]int64{1, 0, 30, 4, 0, 0}, [6]int64{2, 0, 10, 1, 0, 7})
	var calls []int64
	_, err := runGrid(t, in, func(s *sdk.State, _ int) ([]sdk.Decision, error) {
		calls = append(calls, s.Now)
		var ds []sdk.Decision
		for _, j := range s.Queue {
			switch {
			case j.ID == 1 && s.Now == 0:
				ds = append(ds, sdk.Reserve(j, 0, 12))
			case j.ID == 1 && s.Now == 12:
				ds = append(ds, sdk.StartOn(j, 0))
			case j.ID == 2 && s.Now == 0:
				ds = append(ds, sdk.Ship(j, 1))
			case j.ID == 2 && s.Now >= 7:
				ds = append(ds, sdk.StartOn(j, 1))
			}
		}
		return ds, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) < 3 || calls[0] != 0 || calls[1] != 7 || calls[2] != 12 {
		t.Errorf("calls at %v, want 0, 7 (the arrival), 12 (the reservation)", calls)
	}

	// A lapsed reservation is not blamed for a start that does not fit:
	// job 2 holds 2 processors of a from 1 and does not start then; at 2,
	// job 3 runs on 2 of them and job 1 (3 processors) does not fit.
	in = gridJobs([6]int64{1, 0, 30, 3, 0, 0}, [6]int64{2, 0, 30, 2, 0, 0}, [6]int64{3, 0, 30, 2, 0, 0})
	_, err = runGrid(t, in, func(s *sdk.State, _ int) ([]sdk.Decision, error) {
		switch s.Now {
		case 0:
			return []sdk.Decision{sdk.Reserve(s.Queue[1], 0, 1), sdk.StartOn(s.Queue[2], 0), sdk.WakeAt(2)}, nil
		case 2:
			return []sdk.Decision{sdk.StartOn(s.Queue[0], 0)}, nil
		}
		return nil, nil
	})
	if err == nil || strings.Contains(err.Error(), "reserved") || !strings.Contains(err.Error(), "it needs 3 procs, 2 are free") {
		t.Errorf("a start blamed on a lapsed reservation: %v", err)
	}

	units := &sdk.Platform{Name: "u", Resources: []string{sdk.Processors, "bb"}, Clusters: []sdk.Cluster{
		{Name: "a", Capacity: sdk.Vector{4, 20}, Units: []sdk.Units{{Resource: 1, Capacity: []int64{10, 10}}}},
		{Name: "b", Capacity: sdk.Vector{4, 30}, Units: []sdk.Units{{Resource: 1, Capacity: []int64{30}}}}}}
	job := func(home int32, bb int64) []sim.Input {
		return []sim.Input{{Job: sdk.Job{ID: 1, Walltime: 10, Request: sdk.Vector{1, bb}, Home: home}, Runtime: 10}}
	}
	_, err = sim.Run(context.Background(), plugin(&scripted{fn: func(s *sdk.State, _ int) ([]sdk.Decision, error) {
		return []sdk.Decision{sdk.Reserve(s.Queue[0], 0, 5)}, nil
	}}), sim.Config{Platform: units, Jobs: job(0, 5)})
	if err == nil || !strings.Contains(err.Error(), "reservations do not handle divided resources") {
		t.Errorf("a reservation on a cluster with units: %v", err)
	}
	// 15 of burst buffer in one piece: cluster a's units hold 10 each.
	_, err = sim.Run(context.Background(), plugin(&scripted{fn: startHead}), sim.Config{Platform: units, Jobs: job(1, 15)})
	if err == nil || !strings.Contains(err.Error(), `more than its home cluster "a" has (or than its units hold)`) {
		t.Errorf("a local job its home's units cannot hold: %v", err)
	}
}

// TestReject: a rejected job leaves the queue unstarted, gives back the
// reservation it held (job 3 then starts on its processors), and is
// recorded on no cluster, with start and end at the rejection; rejecting
// it again is an error.
func TestReject(t *testing.T) {
	in := gridJobs([6]int64{1, 0, 10, 1, 0, 0}, [6]int64{2, 0, 10, 4, 0, 0}, [6]int64{3, 0, 10, 4, 0, 0})
	res, err := runGrid(t, in, func(s *sdk.State, _ int) ([]sdk.Decision, error) {
		switch s.Now {
		case 0:
			// Job 2 holds all of a from 5; job 1 runs on b.
			return []sdk.Decision{sdk.Reserve(s.Queue[1], 0, 5), sdk.StartOn(s.Queue[0], 1), sdk.WakeAt(3)}, nil
		case 3:
			return []sdk.Decision{sdk.Reject(s.Queue[0]), sdk.StartOn(s.Queue[1], 0)}, nil
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r2, r3 := res.Records[1], res.Records[2]
	if !r2.Rejected || r2.Cluster != -1 || r2.Start != 3 || r2.End != 3 || !r2.Broken() {
		t.Errorf("job 2: %+v, want rejected at 3 on no cluster, its reservation broken", r2)
	}
	if r3.Rejected || r3.Start != 3 || r3.Cluster != 0 || r3.Backfilled {
		t.Errorf("job 3: %+v, want started at 3 on a, not backfilled (job 2 left the queue)", r3)
	}
	_, err = runGrid(t, in[:1], func(s *sdk.State, _ int) ([]sdk.Decision, error) {
		return []sdk.Decision{sdk.Reject(s.Queue[0]), sdk.Reject(s.Queue[0])}, nil
	})
	if err == nil || !strings.Contains(err.Error(), "reject job id 1: it is already finished, not waiting") {
		t.Errorf("rejecting twice: %v", err)
	}
}
