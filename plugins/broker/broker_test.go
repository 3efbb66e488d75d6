package broker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// gridPlatform has clusters a and b of the given sizes.
func gridPlatform(a, b int64) *sdk.Platform {
	return &sdk.Platform{Name: "g", Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{
		{Name: "a", Capacity: sdk.Vector{a}}, {Name: "b", Capacity: sdk.Vector{b}}}}
}

// j is a job: home 0 for a global job, else 1 + the cluster's index.
type j struct {
	id, submit, procs, wall, run int64
	home                         int32
	transfer                     int64
	prio                         float64
}

func inputs(js ...j) []sim.Input {
	in := make([]sim.Input, len(js))
	for i, x := range js {
		in[i] = sim.Input{Job: sdk.Job{ID: x.id, Submit: x.submit, Walltime: x.wall, Request: sdk.Vector{x.procs},
			User: -1, Group: -1, App: -1, Queue: -1, Partition: -1, Priority: x.prio, Home: x.home, Transfer: x.transfer},
			Runtime: x.run}
	}
	sim.Sort(in)
	for i := range in {
		in[i].Job.Index = i
	}
	return in
}

// run simulates p with params on plat and checks the records as a host
// does; it returns them by job ID.
func run(t *testing.T, p sdk.Plugin, params map[string]string, plat *sdk.Platform, jobs []sim.Input) map[int64]sim.Record {
	t.Helper()
	res, err := sim.Run(context.Background(), p, sim.Config{Platform: plat, Jobs: jobs, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.Result(plat, jobs, res); err != nil {
		t.Fatal(err)
	}
	out := map[int64]sim.Record{}
	for i, r := range res.Records {
		out[jobs[i].Job.ID] = r
	}
	return out
}

// TestLookaheadPayment is the paper's promise that payment buys an earlier
// start, worked by hand. Cluster a has 2 processors; local job 1 (2
// processors, 100 s, priority 1) and global job 2 (1 processor, 50 s)
// arrive at 0. The forecast puts job 1 on [0, 100), at 1 per
// processor-second. Paying 0, job 2 gets idle processors only: at 100,
// after job 1. Paying 50 buys [0, 50) at once, and job 1, displaced,
// starts when job 2 ends. With a transfer of 30 s, paying 50 buys
// [30, 80): job 1 waits for it, since it cannot end before 30.
func TestLookaheadPayment(t *testing.T) {
	plat := gridPlatform(2, 0)
	for _, tc := range []struct {
		payment            float64
		transfer           int64
		start1, start2     int64
		cost               float64
		shipped, reserveAt int64
	}{
		{payment: 0, start1: 0, start2: 100, cost: 0, reserveAt: 100},
		{payment: 50, start1: 50, start2: 0, cost: 50, reserveAt: 0},
		{payment: 50, transfer: 30, start1: 80, start2: 30, cost: 50, reserveAt: 30},
	} {
		t.Run(fmt.Sprint(tc.payment, tc.transfer), func(t *testing.T) {
			jobs := inputs(j{id: 1, procs: 2, wall: 100, run: 100, home: 1, prio: 1},
				j{id: 2, procs: 1, wall: 50, run: 50, transfer: tc.transfer, prio: tc.payment})
			recs := run(t, Lookahead(), nil, plat, jobs)
			r1, r2 := recs[1], recs[2]
			if r1.Start != tc.start1 || r2.Start != tc.start2 || r2.Cluster != 0 {
				t.Errorf("starts %d and %d on %d, want %d and %d on 0", r1.Start, r2.Start, r2.Cluster, tc.start1, tc.start2)
			}
			if !r2.Reserved || r2.ReservedAt != tc.reserveAt || r2.Broken() || r2.Refusals != 0 || !r2.Shipped || r2.ShipTime != 0 {
				t.Errorf("job 2: %+v, want reserved at %d at time 0, kept", r2, tc.reserveAt)
			}
			if !r2.Charged || r2.Cost != tc.cost {
				t.Errorf("job 2 charged %v (%v), want %v", r2.Cost, r2.Charged, tc.cost)
			}
		})
	}
}

// TestLookaheadComputers is the hop of issue 34 (paper 003, point 4) in a
// run, worked by hand. Cluster a has 3 processors. Local job R (1
// processor, 50 s) starts at 0. At 10 local jobs S (1 processor, 100 s)
// and T (2 processors, 250 s), both of priority 3, and global job G (1
// processor, 200 s, paying 180, no transfer) arrive; cycles every 10 s. The
// cycle at 10 sees R running to 50 and forecasts S on [10, 110) and T on
// [50, 300), after R.
//
// As a pool, G's 200 s from 10 cost 0 on [10, 50) (one processor idle),
// 3 x 60 = 180 on [50, 110) (S and T on every processor R does not
// hold), 0 on [110, 210) (S over): 180, paid at once. On computers (R on
// computer 0, S on 1, T on 0 and 2 from 50) G holds one computer: S's costs
// 3 x 100 = 300 from 10, T's third one 3 x 160 = 480; S's costs
// 3 x (110 - s) from s, 180 at s = 50. So G waits for 50 there, on S's
// computer: no local job is forecast to start on it before 50, so
// condition (1) holds and it is reserved at 10.
func TestLookaheadComputers(t *testing.T) {
	plat := gridPlatform(3, 0)
	for _, tc := range []struct {
		slots string
		start int64
	}{{"pool", 10}, {"computer", 50}} {
		jobs := inputs(j{id: 1, procs: 1, wall: 50, run: 50, home: 1, prio: 1},
			j{id: 2, submit: 10, procs: 1, wall: 100, run: 100, home: 1, prio: 3},
			j{id: 3, submit: 10, procs: 2, wall: 250, run: 250, home: 1, prio: 3},
			j{id: 4, submit: 10, procs: 1, wall: 200, run: 200, prio: 180})
		recs := run(t, Lookahead(), map[string]string{"period": "10", "slots": tc.slots}, plat, jobs)
		g := recs[4]
		if g.Start != tc.start || !g.Reserved || g.ReservedAt != tc.start || !g.Shipped || g.ShipTime != 10 || !g.Charged || g.Cost != 180 {
			t.Errorf("%s: G %+v, want reserved at 10 for %d, charged 180", tc.slots, g, tc.start)
		}
	}
}

// TestLookaheadRejects: with idle processors at 1 per processor-second, a
// job of 2 processors for 10 s paying 19 can never buy them; paying 20 it
// runs at once.
func TestLookaheadRejects(t *testing.T) {
	plat := gridPlatform(2, 2)
	for _, tc := range []struct {
		payment  float64
		rejected bool
	}{{19, true}, {20, false}} {
		recs := run(t, Lookahead(), map[string]string{"idle_price": "1"}, plat, inputs(j{id: 1, procs: 2, wall: 10, run: 10, prio: tc.payment}))
		if r := recs[1]; r.Rejected != tc.rejected || (!r.Rejected && r.Start != 0) {
			t.Errorf("payment %v: %+v, want rejected %v", tc.payment, r, tc.rejected)
		}
	}
}

// TestFixedPriority: cluster a has 1 processor. Local job 1 runs from 0 to
// 100; global jobs 2 and 3 (at 1 and 2) and local job 4 (at 3) wait. At
// the low level, job 4 goes first; at the high level, last.
func TestFixedPriority(t *testing.T) {
	plat := gridPlatform(1, 0)
	jobs := inputs(j{id: 1, procs: 1, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 2, submit: 1, procs: 1, wall: 100, run: 100}, j{id: 3, submit: 2, procs: 1, wall: 100, run: 100},
		j{id: 4, submit: 3, procs: 1, wall: 100, run: 100, home: 1, prio: 1})
	for level, want := range map[string][4]int64{"low": {0, 200, 300, 100}, "high": {0, 100, 200, 300}} {
		recs := run(t, FixedPriority(), map[string]string{"level": level}, plat, jobs)
		for id := int64(1); id <= 4; id++ {
			if recs[id].Start != want[id-1] {
				t.Errorf("%s: job %d starts at %d, want %d", level, id, recs[id].Start, want[id-1])
			}
		}
	}
}

// TestGreedyShortestQueue: a global job goes to the cluster with the
// fewest queued jobs, where it waits its turn; its transfer delays it.
func TestGreedyShortestQueue(t *testing.T) {
	plat := gridPlatform(1, 1)
	// a runs job 1 and queues job 2; b runs job 3 and queues nothing.
	jobs := inputs(j{id: 1, procs: 1, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 2, procs: 1, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 3, procs: 1, wall: 50, run: 50, home: 2, prio: 1},
		j{id: 4, submit: 1, procs: 1, wall: 10, run: 10, transfer: 60})
	recs := run(t, Greedy(), nil, plat, jobs)
	if r := recs[4]; r.Cluster != 1 || r.Start != 61 || r.ShipTime != 1 || r.Reserved {
		t.Errorf("job 4: %+v, want shipped to b at 1 and started on arrival at 61", r)
	}
}

// TestLazyPulls: a cluster pulls a global job only once its local queue is
// empty, and the job then starts on its arrival.
func TestLazyPulls(t *testing.T) {
	plat := gridPlatform(2, 0)
	jobs := inputs(j{id: 1, procs: 2, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 2, procs: 2, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 3, procs: 1, wall: 10, run: 10, transfer: 5})
	recs := run(t, Lazy(), nil, plat, jobs)
	// Job 2 waits until 100 and runs to 200: the queue is empty from 100,
	// but no processor is free until 200.
	if r := recs[3]; r.ShipTime != 200 || r.Start != 205 || r.ReservedAt != 205 {
		t.Errorf("job 3: %+v, want shipped at 200 and started at 205", r)
	}
}

// TestStaticPartition: with half of a 4-processor cluster kept for global
// jobs, local jobs of 2 never use the global half, and a local job of 3 is
// rejected.
func TestStaticPartition(t *testing.T) {
	plat := gridPlatform(4, 0)
	jobs := inputs(j{id: 1, procs: 2, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 2, procs: 2, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 3, submit: 10, procs: 2, wall: 10, run: 10})
	recs := run(t, Static(), nil, plat, jobs)
	if recs[2].Start != 100 || recs[3].Start != 10 {
		t.Errorf("starts: local job 2 at %d (want 100), global job 3 at %d (want 10)", recs[2].Start, recs[3].Start)
	}
	wide := run(t, Static(), nil, plat, inputs(j{id: 1, procs: 3, wall: 10, run: 10, home: 1}, j{id: 2, procs: 2, wall: 10, run: 10, home: 1}))
	if !wide[1].Rejected || wide[1].Start != 0 || wide[2].Rejected || wide[2].Start != 0 {
		t.Errorf("a local job wider than the local part: %+v, then %+v; want the first rejected at 0, the second run at 0", wide[1], wide[2])
	}
}

// randomGrid is a random workload on clusters a (16) and b (32): local
// streams of both (jobs at most half a cluster wide, which grid-static's
// default share leaves them) and a global stream, with priorities, payments and
// transfers; exact estimates or up to 3 times the runtime.
func randomGrid(seed uint64, n int, exact bool) []sim.Input {
	r := rand.New(rand.NewPCG(seed, 3))
	js := make([]j, n)
	t := int64(0)
	for i := range js {
		t += r.Int64N(200)
		x := j{id: int64(i + 1), submit: t, run: 1 + r.Int64N(2000)}
		x.wall = x.run
		if !exact {
			x.wall = x.run + r.Int64N(2*x.run+1)
			if r.IntN(10) == 0 {
				x.run = x.wall + 1 + r.Int64N(100) // killed at its walltime
			}
		}
		switch k := r.IntN(10); {
		case k < 4:
			x.home, x.procs, x.prio = 1, 1+r.Int64N(8), float64(1+r.IntN(3))
		case k < 7:
			x.home, x.procs, x.prio = 2, 1+r.Int64N(16), float64(1+r.IntN(3))
		default:
			x.procs, x.transfer = 1+r.Int64N(16), r.Int64N(300)
			x.prio = r.Float64() * 2 * float64(x.procs*x.wall)
		}
		js[i] = x
	}
	return inputs(js...)
}

// TestRandomGrids runs every grid policy on random grids, each run checked
// as a host checks it, and checks what each promises: the lookahead and
// lazy and static brokers start every shipped job exactly at its
// reservation, with no refusal; the brokers that queue jobs locally
// reserve nothing; only global jobs are rejected.
func TestRandomGrids(t *testing.T) {
	plat := gridPlatform(16, 32)
	for _, p := range Plugins() {
		for seed := range uint64(6) {
			exact := seed%2 == 0
			jobs := randomGrid(seed, 300, exact)
			params := map[string]string{}
			if p.Info.Name == "grid-lookahead" && seed >= 4 {
				params["ship"] = "immediate"
				params["idle_price"] = "0.5"
			}
			if p.Info.Name == "grid-lookahead" && seed%3 == 1 {
				params["slots"] = "computer"
			}
			t.Run(fmt.Sprintf("%s/%d", p.Info.Name, seed), func(t *testing.T) {
				recs := run(t, p, params, plat, jobs)
				for _, in := range jobs {
					r, jb := recs[in.Job.ID], in.Job
					switch {
					case r.Rejected && jb.Home != 0:
						t.Errorf("local job %d rejected", jb.ID)
					case r.Refusals != 0 || r.Broken():
						t.Errorf("job %d: %d refusals, broken %v", jb.ID, r.Refusals, r.Broken())
					case p.Info.Name == "grid-greedy" || p.Info.Name == "grid-fixed-priority":
						if r.Reserved {
							t.Errorf("job %d reserved by %s", jb.ID, p.Info.Name)
						}
					case jb.Home == 0 && !r.Rejected && (!r.Reserved || r.Start != r.ReservedAt):
						t.Errorf("global job %d: %+v, want started at its reservation", jb.ID, r)
					}
				}
			})
		}
	}
}

// TestLookaheadStale: cluster a has 2 processors. Local job 1 runs from 0
// to 100 and local job 2 from 30 to 230; global job 3 (1 processor, 50 s,
// paying nothing) arrives at 40. With a fresh forecast, the cycle at 60
// sees both local jobs and reserves job 3 at 100, when job 1 ends. With
// forecasts published every 1,000 s, the cycle at 60 works on the one of
// time 0, which knows job 1 only: it reserves at 60, is refused (job 2
// holds the processor), and the cycle at 120, on the same forecast, reserves
// at 120, which holds. With a ttl of 100 s, that forecast is too old at 120:
// cluster a is left out, and job 3 waits for the next forecast, at 1,000.
func TestLookaheadStale(t *testing.T) {
	plat := gridPlatform(2, 0)
	jobs := inputs(j{id: 1, procs: 1, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 2, submit: 30, procs: 1, wall: 200, run: 200, home: 1, prio: 1},
		j{id: 3, submit: 40, procs: 1, wall: 50, run: 50})
	for _, tc := range []struct {
		params          map[string]string
		start, refusals int64
	}{
		{nil, 100, 0},
		{map[string]string{"refresh": "1000"}, 120, 1},
		{map[string]string{"refresh": "1000", "ttl": "100"}, 1000, 1},
	} {
		r := run(t, Lookahead(), tc.params, plat, jobs)[3]
		if r.Start != tc.start || int64(r.Refusals) != tc.refusals || r.Broken() {
			t.Errorf("%v: job 3 %+v, want started at %d after %d refusals", tc.params, r, tc.start, tc.refusals)
		}
	}
	// A local job of 2 processors waiting at 60 puts a slot in the
	// forecast: the cycle lasts 100 s x 1 job x 1 slot.
	busy := inputs(j{id: 1, procs: 1, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 2, submit: 30, procs: 2, wall: 200, run: 200, home: 1, prio: 1},
		j{id: 3, submit: 40, procs: 1, wall: 50, run: 50})
	_, err := sim.Run(context.Background(), Lookahead(), sim.Config{Platform: plat, Jobs: busy,
		Params: map[string]string{"ttl": "10", "a1": "100"}})
	if err == nil || !strings.Contains(err.Error(), "more than the ttl of 10 s") {
		t.Errorf("a cycle longer than the ttl: %v", err)
	}
}

// TestRandomGridsStale runs grid-lookahead on random grids with forecasts
// published every 10 minutes, with and without a ttl: reservations may be
// refused, but a reservation that holds is kept, every run is checked as a
// host checks it, and refusals do happen.
func TestRandomGridsStale(t *testing.T) {
	plat := gridPlatform(16, 32)
	refusals := 0
	for seed := range uint64(4) {
		params := map[string]string{"refresh": "600"}
		if seed%2 == 1 {
			params["ttl"] = "900"
		}
		recs := run(t, Lookahead(), params, plat, randomGrid(seed, 300, seed < 2))
		for id, r := range recs {
			refusals += int(r.Refusals)
			if r.Broken() || (r.Reserved && !r.Rejected && r.Start != r.ReservedAt) {
				t.Errorf("seed %d: job %d: %+v", seed, id, r)
			}
		}
	}
	if refusals == 0 {
		t.Error("no reservation refused on stale forecasts")
	}
}

// TestLookaheadCycleTakesTime: cluster a has 2 processors. Local job 1 (1
// processor, 1,000 s requested) starts at 0; local job 2 (2 processors,
// 200 s) waits for it; global job 3 (1 processor, 50 s, paying nothing)
// arrives at 40. The cycle at 60 has 1 global job and 1 forecast slot
// (job 2), so with a1 = 50 it lasts 50 s. Applied at once, job 3 is
// reserved at 60 on the idle processor. Applied at the cycle's end, the
// allocation starts no earlier than 110: when job 1 runs its 1,000 s the
// reservation at 110 holds; when job 1 ends early, at 100, job 2 starts on
// both processors before the cycle ends, the reservation at 110 is
// refused, and the cycle at 120 reserves job 3 at 300, when job 2 ends.
// With a1 = 0 the cycle takes no time either way.
func TestLookaheadCycleTakesTime(t *testing.T) {
	plat := gridPlatform(2, 0)
	// A cycle that takes time may plan on a forecast blind to local jobs
	// arriving during it: the passes are counted (none here).
	const noPasses = " local_passed:0 local_passed_2:0 passes:0 passes_max:0]"
	for _, tc := range []struct {
		params          map[string]string
		run1            int64
		start, refusals int64
		counts          string
	}{
		{map[string]string{"a1": "50"}, 100, 60, 0, "map[]"},
		{map[string]string{"a1": "50", "apply": "end"}, 1000, 110, 0, "map[applied:1 cycle_seconds:50 cycles_timed:1" + noPasses},
		{map[string]string{"a1": "50", "apply": "end"}, 100, 300, 1, "map[applied:1 cycle_seconds:50 cycles_timed:1" + noPasses[:len(noPasses)-1] + " refused_at_end:1]"},
		// The paper's TTL > 2 CP: a cycle of 50 s breaks it under a ttl of
		// 100 s (counted), not under one of 101 s.
		{map[string]string{"a1": "50", "apply": "end", "ttl": "100"}, 1000, 110, 0, "map[applied:1 cycle_seconds:50 cycles_timed:1" + noPasses[:len(noPasses)-1] + " ttl_within_2cp:1]"},
		{map[string]string{"a1": "50", "apply": "end", "ttl": "101"}, 1000, 110, 0, "map[applied:1 cycle_seconds:50 cycles_timed:1" + noPasses},
		{map[string]string{"a1": "50", "ttl": "100"}, 100, 60, 0, "map[ttl_within_2cp:1]"},
		{map[string]string{"a1": "0", "apply": "end"}, 100, 60, 0, "map[]"},
	} {
		jobs := inputs(j{id: 1, procs: 1, wall: 1000, run: tc.run1, home: 1, prio: 1},
			j{id: 2, procs: 2, wall: 200, run: 200, home: 1, prio: 1},
			j{id: 3, submit: 40, procs: 1, wall: 50, run: 50})
		res, err := sim.Run(context.Background(), Lookahead(), sim.Config{Platform: plat, Jobs: jobs, Params: tc.params})
		if err != nil {
			t.Fatal(err)
		}
		if err := verify.Result(plat, jobs, res); err != nil {
			t.Fatal(err)
		}
		r := res.Records[2]
		if jobs[2].Job.ID != 3 || r.Start != tc.start || int64(r.Refusals) != tc.refusals || r.Broken() || r.Start != r.ReservedAt {
			t.Errorf("%v, job 1 running %d s: job 3 %+v, want started at its reservation at %d after %d refusals", tc.params, tc.run1, r, tc.start, tc.refusals)
		}
		if got := fmt.Sprint(res.Stats.PolicyCounts); got != tc.counts {
			t.Errorf("%v, job 1 running %d s: counts %s, want %s", tc.params, tc.run1, got, tc.counts)
		}
	}
}

// TestRandomGridsCycleEnd runs grid-lookahead on random grids with cycles
// that take time and reservations made at their end: every run is checked
// as a host checks it, a reservation that holds is kept, and some are
// refused where local jobs end before their requested time.
func TestRandomGridsCycleEnd(t *testing.T) {
	plat := gridPlatform(16, 32)
	refusals := map[bool]int{}
	for seed := range uint64(4) {
		exact := seed < 2
		res, err := sim.Run(context.Background(), Lookahead(), sim.Config{Platform: plat, Jobs: randomGrid(seed, 300, exact),
			Params: map[string]string{"a1": "0.5", "apply": "end"}})
		if err != nil {
			t.Fatal(err)
		}
		jobs := randomGrid(seed, 300, exact)
		if err := verify.Result(plat, jobs, res); err != nil {
			t.Fatal(err)
		}
		for i, r := range res.Records {
			refusals[exact] += int(r.Refusals)
			if r.Broken() || (r.Reserved && !r.Rejected && r.Start != r.ReservedAt) {
				t.Errorf("seed %d: job %d: %+v", seed, jobs[i].Job.ID, r)
			}
		}
		if res.Stats.PolicyCounts["cycles_timed"] == 0 {
			t.Errorf("seed %d: no cycle took time: %v", seed, res.Stats.PolicyCounts)
		}
	}
	if refusals[false] == 0 {
		t.Errorf("no reservation refused with local jobs ending early: %v", refusals)
	}
	t.Logf("refusals with exact estimates %d, with requested ones %d", refusals[true], refusals[false])
}

// TestLookaheadPasses counts the global jobs that pass a local job on a
// forecast blind to it (claim 11 of the paper). Cluster a has 2
// processors. Local job 1 (2 processors, 100 s) runs from 0; global jobs 3
// and 4 (1 processor, 500 s, paying nothing) arrive at 10 and 15; local
// job 2 (2 processors, 100 s) at 20. On the forecast of time 0, which
// knows job 1 only, the cycle at 60 reserves jobs 3 and 4 at 100, side by
// side on the processors job 1 frees: job 2 waits for them until 600,
// passed twice, though no job is shorter than the ttl of 100 s. On a
// forecast published at the cycle (refresh 10), job 2 is in it: the
// global jobs take the processors after it, at 200, and nothing passes it.
// With one global job, it is passed once.
func TestLookaheadPasses(t *testing.T) {
	plat := gridPlatform(2, 0)
	two := inputs(j{id: 1, procs: 2, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 2, submit: 20, procs: 2, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 3, submit: 10, procs: 1, wall: 500, run: 500},
		j{id: 4, submit: 15, procs: 1, wall: 500, run: 500})
	one := inputs(j{id: 1, procs: 2, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 2, submit: 20, procs: 2, wall: 100, run: 100, home: 1, prio: 1},
		j{id: 3, submit: 10, procs: 1, wall: 500, run: 500})
	for _, tc := range []struct {
		name   string
		jobs   []sim.Input
		params map[string]string
		start2 int64
		counts string
	}{
		{"stale, two global jobs", two, map[string]string{"refresh": "1000"}, 600,
			"map[local_passed:1 local_passed_2:1 passes:2 passes_max:2]"},
		{"stale within the ttl", two, map[string]string{"refresh": "100", "ttl": "100"}, 600,
			"map[local_passed:1 local_passed_2:1 passes:2 passes_max:2]"},
		{"stale, one global job", one, map[string]string{"refresh": "1000"}, 600,
			"map[local_passed:1 local_passed_2:0 passes:1 passes_max:1]"},
		{"fresh", two, map[string]string{"refresh": "10"}, 100,
			"map[local_passed:0 local_passed_2:0 passes:0 passes_max:0]"},
		{"fresh at every cycle", two, nil, 100, "map[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sim.Run(context.Background(), Lookahead(), sim.Config{Platform: plat, Jobs: tc.jobs, Params: tc.params})
			if err != nil {
				t.Fatal(err)
			}
			if err := verify.Result(plat, tc.jobs, res); err != nil {
				t.Fatal(err)
			}
			for i, r := range res.Records {
				if tc.jobs[i].Job.ID == 2 && r.Start != tc.start2 {
					t.Errorf("local job 2 started at %d, want %d", r.Start, tc.start2)
				}
			}
			if got := fmt.Sprint(res.Stats.PolicyCounts); got != tc.counts {
				t.Errorf("counts %s, want %s", got, tc.counts)
			}
		})
	}
}

// TestLookaheadClusterC: each cluster's administrator sets its own C.
// Clusters a and b have 2 idle processors each, priced 0.25 a
// processor-second times C; global job 1 (1 processor, 50 s) pays 50, 1
// a processor-second. With C = 1 on both it goes to a, the first of two
// equal offers; with C = 8 on a (2 a processor-second, above what it
// pays) to b; with C = 8 on both it is rejected. Bad settings are errors.
func TestLookaheadClusterC(t *testing.T) {
	plat := gridPlatform(2, 2)
	jobs := inputs(j{id: 1, procs: 1, wall: 50, run: 50, prio: 50})
	for _, tc := range []struct {
		spec     string
		cluster  int32
		rejected bool
		err      string
	}{
		{spec: "", cluster: 0},
		{spec: "a=8", cluster: 1},
		{spec: " b = 8 ", cluster: 0},
		{spec: "a=8,b=8", rejected: true},
		{spec: "c=8", err: `c_clusters: no cluster "c" (clusters: a, b)`},
		{spec: "a=8,a=2", err: `cluster "a" given twice`},
		{spec: "a", err: `"a" is not NAME=VALUE`},
		{spec: "a=-1", err: `cluster a: C must be a number >= 0, got "-1"`},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			params := map[string]string{"idle_price": "0.25", "c_clusters": tc.spec}
			if tc.err != "" {
				_, err := sim.Run(context.Background(), Lookahead(), sim.Config{Platform: plat, Jobs: jobs, Params: params})
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			r := run(t, Lookahead(), params, plat, jobs)[1]
			if r.Rejected != tc.rejected || (!tc.rejected && (r.Cluster != tc.cluster || r.Start != 0)) {
				t.Errorf("job 1 %+v, want cluster %d rejected %v", r, tc.cluster, tc.rejected)
			}
		})
	}
}
