package verify_test

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

// in builds one job; Index is set by sim.Sort.
func in(id, submit, runtime, walltime int64, req ...int64) sim.Input {
	return sim.Input{
		Job: sdk.Job{
			ID: id, Submit: submit, Walltime: walltime, Request: sdk.Vector(req),
			User: -1, Group: -1, App: -1, Queue: -1, Partition: -1,
		},
		Runtime: runtime,
	}
}

func sorted(jobs ...sim.Input) []sim.Input {
	sim.Sort(jobs)
	return jobs
}

// baseWorkload is five jobs on one cluster of 4 processors.
//
//	id  submit  runtime  walltime  procs
//	10     0      100      100       4
//	20     5       50       60       2
//	30    10       80       40       2   (killed at its walltime)
//	40    20       20       20       4
//	50    30       10       10       2
func baseWorkload() (*sdk.Platform, []sim.Input) {
	return sdk.SingleCluster("m", 4), sorted(
		in(10, 0, 100, 100, 4),
		in(20, 5, 50, 60, 2),
		in(30, 10, 80, 40, 2),
		in(40, 20, 20, 20, 4),
		in(50, 30, 10, 10, 2),
	)
}

// baseRecords is the schedule of baseWorkload worked out by hand for a
// greedy policy that starts every waiting job that fits, in queue order, and
// promises the queue head the earliest expected end of the running jobs when
// the head does not fit:
//
//	t=0    10 starts (4 procs, ends 0+100 = 100).
//	t=5    20 arrives, does not fit: promised 10's expected end 0+100 = 100.
//	t=100  10 ends; 20 and 30 start (2+2 = 4 procs, the machine is full
//	       right after a job ended: the end-then-start boundary).
//	       20 ends at 100+min(50,60) = 150; 30 at 100+min(80,40) = 140, killed.
//	       40 (4 procs) and 50 wait; 40 is now the head, but nothing runs
//	       when the call starts, so no promise.
//	t=140  30 ends, 2 procs free. Head 40 does not fit: promised the expected
//	       end of 20, 100+60 = 160. 50 fits and starts (ends 150) while 40,
//	       submitted before it, waits: backfilled.
//	t=150  20 and 50 end; 40 starts on the whole machine (ends 170), again
//	       exactly when the jobs holding the machine end.
func baseRecords() []sim.Record {
	return []sim.Record{
		{Index: 0, Cluster: 0, Start: 0, End: 100},
		{Index: 1, Cluster: 0, Start: 100, End: 150, Promised: 100, HasPromise: true},
		{Index: 2, Cluster: 0, Start: 100, End: 140, Killed: true},
		{Index: 3, Cluster: 0, Start: 150, End: 170, Promised: 160, HasPromise: true},
		{Index: 4, Cluster: 0, Start: 140, End: 150, Backfilled: true},
	}
}

// greedy is the policy baseRecords was worked out for.
type greedy struct{ out []sdk.Decision }

func (g *greedy) Init(sdk.Env) error { return nil }

func (g *greedy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	g.out = g.out[:0]
	if h := s.Queue[0]; !h.Request.Fits(s.Free[0]) && len(s.Running) > 0 {
		g.out = append(g.out, sdk.Promise(h, s.Running[0].ExpectedEnd))
	}
	free := s.Free[0].Clone()
	for _, j := range s.Queue {
		if j.Request.Fits(free) {
			free.Sub(j.Request)
			g.out = append(g.out, sdk.Start(j))
		}
	}
	return g.out, nil
}

func TestBaseScheduleIsValid(t *testing.T) {
	p, jobs := baseWorkload()
	if err := verify.Records(p, jobs, baseRecords()); err != nil {
		t.Fatalf("hand-written valid schedule rejected: %v", err)
	}
}

// TestSimGreedyMatchesHand runs the engine with the greedy policy and checks
// that it gives the hand-worked schedule, which verify accepts.
func TestSimGreedyMatchesHand(t *testing.T) {
	p, jobs := baseWorkload()
	res, err := sim.Run(context.Background(), sdk.Plugin{Info: sdk.Info{Name: "greedy"}, New: func() sdk.Policy { return &greedy{} }},
		sim.Config{Platform: p, Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	if want := baseRecords(); !slices.Equal(res.Records, want) {
		t.Errorf("records\n got %+v\nwant %+v", res.Records, want)
	}
	if err := verify.Records(p, jobs, res.Records); err != nil {
		t.Errorf("engine schedule rejected: %v", err)
	}
}

type tamperCase struct {
	name   string
	tamper func(r []sim.Record) []sim.Record
	// want lists substrings of the error; empty means the records are valid.
	want []string
}

func runTamper(t *testing.T, p *sdk.Platform, jobs []sim.Input, base func() []sim.Record, cases []tamperCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs := tc.tamper(base())
			err := verify.Records(p, jobs, recs)
			samePieces(t, p, jobs, &sim.Result{Records: recs}, err)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("valid records rejected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("tampered records accepted; want error containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func set(k int, f func(r *sim.Record)) func([]sim.Record) []sim.Record {
	return func(r []sim.Record) []sim.Record { f(&r[k]); return r }
}

func TestTamperedRecords(t *testing.T) {
	p, jobs := baseWorkload()
	runTamper(t, p, jobs, baseRecords, []tamperCase{
		{"untouched", func(r []sim.Record) []sim.Record { return r }, nil},

		// Every job exactly once, in index order.
		{"last record missing", func(r []sim.Record) []sim.Record { return r[:4] },
			[]string{"4 records for 5 jobs"}},
		{"middle record missing", func(r []sim.Record) []sim.Record { return slices.Delete(r, 2, 3) },
			[]string{"4 records for 5 jobs"}},
		{"extra record", func(r []sim.Record) []sim.Record { return append(r, r[4]) },
			[]string{"6 records for 5 jobs"}},
		{"record duplicated in place of another", func(r []sim.Record) []sim.Record { r[2] = r[1]; return r },
			[]string{"record 2 is for job index 1", "exactly once"}},
		{"records out of index order", func(r []sim.Record) []sim.Record { r[1], r[2] = r[2], r[1]; return r },
			[]string{"record 1 is for job index 2", "record 2 is for job index 1", "index order"}},

		// Cluster: must exist, and the job must fit it.
		{"cluster out of range", set(1, func(r *sim.Record) { r.Cluster = 1 }),
			[]string{"job id 20", "cluster 1 does not exist"}},
		{"negative cluster", set(3, func(r *sim.Record) { r.Cluster = -1 }),
			[]string{"job id 40", "cluster -1 does not exist"}},

		// Start not before submit (end kept consistent, so only this rule
		// breaks). 20 was submitted at 5. (Starting exactly at submit is
		// valid: 10 does so in the base schedule.)
		{"start before submit", set(1, func(r *sim.Record) { r.Start, r.End = 4, 54 }),
			[]string{"job id 20", "starts at 4 before its submission at 5"}},

		// End = start + min(runtime, walltime).
		{"end at start+walltime though runtime is shorter", set(1, func(r *sim.Record) { r.End = 160 }),
			[]string{"job id 20", "ends at 160", "min(runtime 50, walltime 60)"}},
		{"killed job ends at start+runtime", set(2, func(r *sim.Record) { r.End = 180 }),
			[]string{"job id 30", "ends at 180", "min(runtime 80, walltime 40)"}},
		{"end one second early", set(0, func(r *sim.Record) { r.End = 99 }),
			[]string{"job id 10", "ends at 99"}},

		// Killed iff runtime > walltime.
		{"killed job not flagged", set(2, func(r *sim.Record) { r.Killed = false }),
			[]string{"job id 30", "killed flag false"}},
		{"completed job flagged killed", set(0, func(r *sim.Record) { r.Killed = true }),
			[]string{"job id 10", "killed flag true"}},

		// Promise not before submit: 20 was submitted at 5.
		{"promise at submit", set(1, func(r *sim.Record) { r.Promised = 5 }), nil},
		{"promise before submit", set(1, func(r *sim.Record) { r.Promised = 4 }),
			[]string{"job id 20", "promised start 4 before its submission at 5"}},
		{"stale promise value without flag is ignored", set(0, func(r *sim.Record) { r.Promised = -100 }), nil},

		// Backfilled iff an earlier job starts later.
		{"backfilled job not flagged", set(4, func(r *sim.Record) { r.Backfilled = false }),
			[]string{"job id 50", "backfilled flag false"}},
		{"in-order job flagged backfilled", set(3, func(r *sim.Record) { r.Backfilled = true }),
			[]string{"job id 40", "backfilled flag true"}},
		{"job starting with an earlier one flagged backfilled", set(2, func(r *sim.Record) { r.Backfilled = true }),
			[]string{"job id 30", "backfilled flag true"}},
		{"first job flagged backfilled", set(0, func(r *sim.Record) { r.Backfilled = true }),
			[]string{"job id 10", "backfilled flag true"}},

		// Capacity. 50 moved to [130,140): 20 (2) + 30 (2) + 50 (2) = 6 of 4
		// procs. 50 stays backfilled (40 starts at 150 > 130).
		{"over capacity", set(4, func(r *sim.Record) { r.Start, r.End = 130, 140 }),
			[]string{"t=130", "job id 50", "use 6 procs of 4"}},
		// 40 one second early: on [149,150) 20 (2) + 50 (2) + 40 (4) = 8.
		{"over capacity one second before the end", set(3, func(r *sim.Record) { r.Start, r.End = 149, 169 }),
			[]string{"t=149", "job id 40", "use 8 procs of 4"}},
		// 50 starting exactly when 30 ends ([140,150)) is the base schedule;
		// starting it one second earlier overlaps 30: 2+2+2 = 6.
		{"over capacity at 139", set(4, func(r *sim.Record) { r.Start, r.End = 139, 149 }),
			[]string{"t=139", "job id 50", "use 6 procs of 4"}},

		// Times near the int64 limit: start + duration would overflow and
		// make the end come before the start. Horizon(5) = 6 x MaxTime.
		{"start at the int64 limit, end wrapped", set(4, func(r *sim.Record) { r.Start, r.End = math.MaxInt64-5, math.MinInt64+4 }),
			[]string{"job id 50", "starts at 9223372036854775802, after twice the run's horizon 206158430208"}},
		{"start just past twice the horizon", set(4, func(r *sim.Record) { r.Start, r.End = 12*sim.MaxTime+1, 12*sim.MaxTime+11 }),
			[]string{"job id 50", "after twice the run's horizon"}},
		{"promise past the horizon", set(1, func(r *sim.Record) { r.Promised = math.MaxInt64 }),
			[]string{"job id 20", "promised start 9223372036854775807 after the run's horizon 206158430208"}},
	})
}

// TestWorkloadOutOfRange: a workload the engine would refuse (a runtime
// near the int64 limit) is reported as the workload's fault, whatever the
// records say, without overflowing.
func TestWorkloadOutOfRange(t *testing.T) {
	p := sdk.SingleCluster("m", 4)
	jobs := sorted(in(1, 100, math.MaxInt64-99, math.MaxInt64-99, 1))
	recs := []sim.Record{{Index: 0, Start: 100, End: math.MinInt64}}
	err := verify.Records(p, jobs, recs)
	if err == nil || !strings.Contains(err.Error(), "beyond sim.MaxTime: the workload itself is invalid") {
		t.Fatalf("verify: %v", err)
	}
}

// TestBoundary checks the end-then-start rule in isolation: on a full machine
// a job ending at t and another starting at t do not overlap; starting one
// second earlier they do.
func TestBoundary(t *testing.T) {
	p := sdk.SingleCluster("m", 8)
	jobs := sorted(in(1, 0, 10, 10, 8), in(2, 0, 10, 10, 8))
	base := func() []sim.Record {
		return []sim.Record{
			{Index: 0, Start: 0, End: 10},
			{Index: 1, Start: 10, End: 20},
		}
	}
	runTamper(t, p, jobs, base, []tamperCase{
		{"end at t, start at t", func(r []sim.Record) []sim.Record { return r }, nil},
		// The later-indexed job first, then the earlier one: backfilled.
		{"reverse order at the boundary", func(r []sim.Record) []sim.Record {
			r[0].Start, r[0].End = 10, 20
			r[1].Start, r[1].End, r[1].Backfilled = 0, 10, true
			return r
		}, nil},
		{"overlap by one second", set(1, func(r *sim.Record) { r.Start, r.End = 9, 19 }),
			[]string{"t=9", "job id 2", "use 16 procs of 8"}},
		{"same start", set(1, func(r *sim.Record) { r.Start, r.End = 0, 10 }),
			[]string{"t=0", "use 16 procs of 8"}},
	})
}

// TestMultiResource puts two jobs on a platform of 4 procs and 100 GB of
// memory. Each needs 2 procs and 60 GB: together they fit the processors
// (4 of 4) but not the memory (120 of 100).
func TestMultiResource(t *testing.T) {
	p := &sdk.Platform{
		Name:      "mr",
		Resources: []string{sdk.Processors, "mem"},
		Clusters:  []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{4, 100}}},
	}
	jobs := sorted(in(1, 0, 10, 10, 2, 60), in(2, 0, 10, 10, 2, 60), in(3, 0, 10, 10, 2, 40))
	// Valid: 1 on [0,10) with 3 (4 procs, 100 GB: both resources exactly
	// full), then 2 on [10,20).
	base := func() []sim.Record {
		return []sim.Record{
			{Index: 0, Start: 0, End: 10},
			{Index: 1, Start: 10, End: 20},
			{Index: 2, Start: 0, End: 10, Backfilled: true},
		}
	}
	runTamper(t, p, jobs, base, []tamperCase{
		{"both resources exactly full", func(r []sim.Record) []sim.Record { return r }, nil},
		{"procs and memory over capacity", set(1, func(r *sim.Record) { r.Start, r.End = 5, 15 }),
			// At t=5: 1 (2, 60) + 3 (2, 40) + 2 (2, 60) = 6 procs and 160 GB;
			// procs are checked first: 6 of 4.
			[]string{"t=5", "job id 2", "use 6 procs of 4"}},
	})
	// Without job 3, two 60 GB jobs overlap: 4 of 4 procs is fine, 120 of
	// 100 GB is not.
	jobs2 := sorted(in(1, 0, 10, 10, 2, 60), in(2, 0, 10, 10, 2, 60))
	base2 := func() []sim.Record {
		return []sim.Record{{Index: 0, Start: 0, End: 10}, {Index: 1, Start: 10, End: 20}}
	}
	runTamper(t, p, jobs2, base2, []tamperCase{
		{"sequential", func(r []sim.Record) []sim.Record { return r }, nil},
		{"memory over capacity", set(1, func(r *sim.Record) { r.Start, r.End = 5, 15 }),
			[]string{"t=5", "job id 2", "use 120 mem of 100"}},
	})
}

// TestMultiCluster checks that capacity is counted per cluster: two clusters
// "a" (4 procs, 10 GB) and "b" (8 procs, 10 GB).
func TestMultiCluster(t *testing.T) {
	p := &sdk.Platform{
		Name:      "mc",
		Resources: []string{sdk.Processors, "mem"},
		Clusters: []sdk.Cluster{
			{Name: "a", Capacity: sdk.Vector{4, 10}},
			{Name: "b", Capacity: sdk.Vector{8, 10}},
		},
	}
	// 1 and 2 need 4 procs, 3 needs 6 (fits only b), 4 needs 1 proc and 6 GB.
	jobs := sorted(
		in(1, 0, 10, 10, 4, 0),
		in(2, 0, 10, 10, 4, 0),
		in(3, 0, 10, 10, 6, 0),
		in(4, 0, 10, 10, 1, 6),
	)
	// 1 on a and 2 on b at once (8 procs in use in total, more than a has,
	// but 4 of 4 on a and 4 of 8 on b), then 3 on b and 4 on a at t=10.
	base := func() []sim.Record {
		return []sim.Record{
			{Index: 0, Cluster: 0, Start: 0, End: 10},
			{Index: 1, Cluster: 1, Start: 0, End: 10},
			{Index: 2, Cluster: 1, Start: 10, End: 20},
			{Index: 3, Cluster: 0, Start: 10, End: 20},
		}
	}
	runTamper(t, p, jobs, base, []tamperCase{
		{"one job per cluster at once", func(r []sim.Record) []sim.Record { return r }, nil},
		{"both 4-proc jobs on cluster a", set(1, func(r *sim.Record) { r.Cluster = 0 }),
			[]string{"t=0", `cluster "a" use 8 procs of 4`}},
		// 3 (6 procs) on b at t=0 with 2 (4 procs): 10 of 8 on b, although
		// a has room: per-cluster counting.
		{"over capacity on b only", set(2, func(r *sim.Record) { r.Start, r.End = 0, 10 }),
			[]string{"t=0", "job id 3", `cluster "b" use 10 procs of 8`}},
		// Both clusters have 10 GB; 4 (1 proc, 6 GB) moved to b at t=0
		// beside 2 is fine (5 of 8 procs, 6 of 10 GB), and it is backfilled
		// now, as 3, submitted before it, starts at 10.
		{"memory job moved to the other cluster", set(3, func(r *sim.Record) {
			r.Cluster, r.Start, r.End, r.Backfilled = 1, 0, 10, true
		}), nil},
		{"job larger than its cluster", set(2, func(r *sim.Record) { r.Cluster = 0 }),
			[]string{"job id 3", "request [6 0] exceeds cluster \"a\""}},
		{"cluster index past the last", set(0, func(r *sim.Record) { r.Cluster = 2 }),
			[]string{"job id 1", "cluster 2 does not exist"}},
	})
}

// TestNegativeSubmit: the engine accepts submit times below zero; verify
// must not flag jobs as backfilled because of them. Two jobs run one after
// the other on a full machine from t=-100; neither is backfilled.
func TestNegativeSubmit(t *testing.T) {
	p := sdk.SingleCluster("m", 1)
	jobs := sorted(in(1, -100, 10, 10, 1), in(2, -100, 10, 10, 1))
	res, err := sim.Run(context.Background(), sdk.Plugin{Info: sdk.Info{Name: "greedy"}, New: func() sdk.Policy { return &greedy{} }},
		sim.Config{Platform: p, Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.Record{
		{Index: 0, Start: -100, End: -90},
		{Index: 1, Start: -90, End: -80},
	}
	if !slices.Equal(res.Records, want) {
		t.Fatalf("records\n got %+v\nwant %+v", res.Records, want)
	}
	if err := verify.Records(p, jobs, res.Records); err != nil {
		t.Errorf("valid schedule with negative submit times rejected: %v", err)
	}
}

// TestProblemsAreBounded: many bad records give one error listing at most
// ten problems.
func TestProblemsAreBounded(t *testing.T) {
	p := sdk.SingleCluster("m", 100)
	var specs []sim.Input
	for i := range 30 {
		specs = append(specs, in(int64(i+1), 10, 5, 5, 1))
	}
	jobs := sorted(specs...)
	recs := make([]sim.Record, len(jobs))
	for i := range recs {
		recs[i] = sim.Record{Index: int32(i), Start: 0, End: 5} // all start before submit
	}
	err := verify.Records(p, jobs, recs)
	if err == nil {
		t.Fatal("accepted")
	}
	if n := strings.Count(err.Error(), "before its submission"); n != 10 {
		t.Errorf("%d problems listed, want 10: %v", n, err)
	}
}

// samePieces checks that a Checker fed res's records in pieces, of every
// size from 1 up and of random sizes, returns the error whole (Result's),
// word for word.
func samePieces(t *testing.T, p *sdk.Platform, jobs []sim.Input, res *sim.Result, whole error) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(len(res.Records)), 5))
	for size := range len(res.Records) + 2 {
		c := verify.NewChecker(p, jobs)
		for rest := res.Records; len(rest) > 0; {
			n := size
			if size == 0 {
				n = 1 + r.IntN(len(rest))
			}
			n = min(n, len(rest))
			c.Add(rest[:n])
			rest = rest[n:]
		}
		if size%3 == 0 {
			c.Add(nil) // an empty piece changes nothing
		}
		got := c.Finish(res.Units, res.Allocs)
		if fmt.Sprint(got) != fmt.Sprint(whole) {
			t.Fatalf("pieces of %d (0: random): %v\nwhole: %v", size, got, whole)
		}
	}
}

// TestPiecesOfRandomSchedules runs random workloads under a greedy policy,
// breaks a valid schedule by moving one job's start (and end) by a random
// amount, and checks that the Checker fed in pieces agrees with Result.
func TestPiecesOfRandomSchedules(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	rejected := 0 // moved schedules over capacity
	for it := range 300 {
		p := sdk.SingleCluster("r", 1+r.Int64N(8))
		var jobs []sim.Input
		for k := range 1 + r.IntN(40) {
			run := 1 + r.Int64N(20)
			jobs = append(jobs, in(int64(k), r.Int64N(30), run, run+r.Int64N(3)-1, 1+r.Int64N(p.Clusters[0].Capacity[0])))
		}
		for i := range jobs {
			jobs[i].Job.Walltime = max(1, jobs[i].Job.Walltime)
		}
		sim.Sort(jobs)
		res, err := sim.Run(context.Background(), sdk.Plugin{Info: sdk.Info{Name: "greedy"}, New: func() sdk.Policy { return &greedy{} }},
			sim.Config{Platform: p, Jobs: jobs})
		if err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		if it%2 == 1 {
			k := r.IntN(len(jobs))
			d := r.Int64N(21) - 10
			res.Records[k].Start += d
			res.Records[k].End += d
		}
		whole := verify.Result(p, jobs, res)
		if whole != nil && strings.Contains(whole.Error(), "makes cluster") {
			rejected++
		}
		if it%2 == 0 && whole != nil {
			t.Fatalf("iteration %d: engine schedule rejected: %v", it, whole)
		}
		samePieces(t, p, jobs, res, whole)
	}
	t.Logf("%d of 150 moved schedules over capacity", rejected)
	if rejected < 30 {
		t.Errorf("only %d of 150 moved schedules over capacity: the test checks little of the sweep", rejected)
	}
}
