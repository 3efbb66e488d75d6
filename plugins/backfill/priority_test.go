package backfill

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
)

// qJob is a waiting job of a hand-worked queue: submit time s, requested
// walltime r (its runtime too, in the scenarios), processors n.
type qJob struct {
	id      int64
	s, r, n int64
	p       float64 // the workload's priority (order = priority)
}

// timeQueue is ranked by the timed orders at t=60 and t=100 below.
// Waits at 60: 50, 40, 20, 0; at 100: 90, 80, 60, 40. Priorities 5, 7,
// 7, 1.
var timeQueue = []qJob{
	{id: 1, s: 10, r: 10, n: 1, p: 5},
	{id: 2, s: 20, r: 40, n: 128, p: 7},
	{id: 3, s: 40, r: 5, n: 2, p: 7},
	{id: 4, s: 60, r: 100, n: 4, p: 1},
}

// fQueue makes F1 to F4 give four different orders, none of them submit
// order; they do not depend on the time (ranked at 9000, after the last
// submission). log10 s: 3.30103, 3.47712, 3.69897, 3.90309; log10 r: 3.55630,
// 4.55630, 3, 4.93651; sqrt r: 60, 189.737, 31.623, 293.939; sqrt n: 16,
// 16, 2.82843, 5.65685.
var fQueue = []qJob{
	{id: 1, s: 2000, r: 3600, n: 256},
	{id: 2, s: 3000, r: 36000, n: 256},
	{id: 3, s: 5000, r: 1000, n: 8},
	{id: 4, s: 8000, r: 86400, n: 32},
}

// orderCases are the hand-worked orders: the queue at time now, each
// job's score worked out by hand (in the queue's order; nil for the
// orders of integer keys, whose keys the comment gives) and the order
// they give.
var orderCases = []struct {
	order string
	queue []qJob
	now   int64
	score []float64
	want  []int64
}{
	// Walltimes 10, 40, 5, 100; processors 1, 128, 2, 4; areas 10, 5120,
	// 10, 400 (1 and 3 tie: submit order).
	{OrderSubmit, timeQueue, 100, nil, []int64{1, 2, 3, 4}},
	{OrderShortest, timeQueue, 100, nil, []int64{3, 1, 2, 4}},
	{OrderLJF, timeQueue, 100, nil, []int64{4, 2, 1, 3}},
	// Highest priority first; 2 and 3 tie: submit order.
	{OrderPriority, timeQueue, 100, nil, []int64{2, 3, 1, 4}},
	{OrderSmallest, timeQueue, 100, nil, []int64{1, 3, 4, 2}},
	{OrderLargest, timeQueue, 100, nil, []int64{2, 4, 3, 1}},
	{OrderSAF, timeQueue, 100, nil, []int64{1, 3, 4, 2}},
	{OrderLAF, timeQueue, 100, nil, []int64{2, 4, 1, 3}},
	// WFP3 (w/r)^3 n, highest first. At 60: 5^3 x 1 = 125, 1^3 x 128 =
	// 128, 4^3 x 2 = 128 (an exact tie: 2 was submitted first), 0.
	{OrderWFP3, timeQueue, 60, []float64{125, 128, 128, 0}, []int64{2, 3, 1, 4}},
	// At 100: 9^3 = 729, 2^3 x 128 = 1024, 12^3 x 2 = 3456, 0.4^3 x 4 =
	// 0.256: 3 has overtaken 2.
	{OrderWFP3, timeQueue, 100, []float64{729, 1024, 3456, 0.256}, []int64{3, 2, 1, 4}},
	// UNICEP w / (max(log2 n, 1) r), highest first; log2 n is 0 (counted
	// 1), 7, 1, 2. At 60: 50/10 = 5, 40/280 = 0.142857, 20/5 = 4, 0.
	{OrderUNICEP, timeQueue, 60, []float64{5, 0.142857142857, 4, 0}, []int64{1, 3, 2, 4}},
	// At 100: 9, 80/280 = 0.285714, 12, 40/200 = 0.2: 3 has overtaken 1.
	// Without the guard, job 1 (log2 1 = 0) would come first at any wait.
	{OrderUNICEP, timeQueue, 100, []float64{9, 0.285714285714, 12, 0.2}, []int64{3, 1, 2, 4}},
	// F1 log10(r) n + 870 log10(s), lowest first: 910.41 + 2871.90,
	// 1166.41 + 3025.10, 24 + 3218.10, 157.97 + 3395.69.
	{OrderF1, fQueue, 9000, []float64{3782.3095, 4191.5089, 3242.1039, 3553.6567}, []int64{3, 4, 1, 2}},
	// F2 sqrt(r) n + 25600 log10(s): 15360 + 84506.37, 48572.58 +
	// 89014.30, 252.98 + 94693.63, 9406.04 + 99919.10.
	{OrderF2, fQueue, 9000, []float64{99866.368, 137586.889, 94946.614, 109325.144}, []int64{3, 1, 4, 2}},
	// F3 r n + 6.86e6 log10(s): 921600 + 22645065.8, 9216000 +
	// 23853051.8, 8000 + 25374934.2, 2764800 + 26775197.3.
	{OrderF3, fQueue, 9000, []float64{23566665.77, 33069051.81, 25382934.23, 29539997.31}, []int64{1, 3, 4, 2}},
	// F4 r sqrt(n) + 5.3e5 log10(s): 57600 + 1749545.90, 576000 +
	// 1842874.27, 2828.43 + 1960454.10, 488739.21 + 2068637.69.
	{OrderF4, fQueue, 9000, []float64{1807145.898, 2418874.265, 1963282.529, 2557389.900}, []int64{1, 3, 2, 4}},
}

func (q qJob) job(index int) *sdk.Job {
	return &sdk.Job{Index: index, ID: q.id, Submit: q.s, Walltime: q.r, Request: sdk.Vector{q.n}, Priority: q.p}
}

// TestOrdersByHand checks each order's scores and the order they give on
// the hand-worked queues.
func TestOrdersByHand(t *testing.T) {
	for _, tc := range orderCases {
		name := fmt.Sprintf("%s at %d", tc.order, tc.now)
		queue := make([]*sdk.Job, len(tc.queue))
		for i, q := range tc.queue {
			queue[i] = q.job(i)
		}
		if tc.score != nil {
			for i, j := range queue {
				got := scorings[tc.order].score(j, tc.now)
				if math.Abs(got-tc.score[i]) > 1e-6*math.Max(1, math.Abs(tc.score[i])) {
					t.Errorf("%s: job %d scores %.9g, worked out by hand %.9g", name, j.ID, got, tc.score[i])
				}
			}
		}
		o := makeOrderer(tc.order)
		var got []int64
		for _, j := range o.sorted(&sdk.State{Queue: queue, Now: tc.now}) {
			got = append(got, j.ID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: order %v, want %v", name, got, tc.want)
		}
	}
}

// lock is a platform on which one job runs at a time, whatever its
// processors: each job also takes the one lock. Jobs then start one after
// the other in the policy's queue order, which their start times show.
var lock = &sdk.Platform{Name: "lock", Resources: []string{sdk.Processors, "lock"},
	Clusters: []sdk.Cluster{{Name: "lock", Capacity: sdk.Vector{256, 1}}}}

// inLine makes the scenario of queue behind a blocker (ID 9) that starts at
// submit and ends at end, after every submission, long before its walltime
// (10^6 s, beyond the queue's total walltime). From end on, jobs start
// one at a time in the order want, each when the one before ends:
//   - under FCFS and EASY the first job of the order at each end starts (a
//     timed order is ranked again at each), and nothing backfills (the
//     lock is held);
//   - under conservative every job is reserved on arrival, after the
//     blocker's walltime, one after the other in submit order; the
//     blocker's early end compresses them in queue order at end, each to
//     the earliest time it fits, which is the end of the one before, and
//     no later end compresses again. A job submitted at end is reserved
//     after the compression, behind the others: where one is (job 4 of
//     timeQueue at 60), want has it last.
func inLine(order string, queue []qJob, submit, end int64, want []int64) policytest.Scenario {
	sc := policytest.Scenario{
		Name: fmt.Sprintf("%s, in line from %d", order, end), Platform: lock,
		Params: map[string]string{"order": order},
		Jobs:   []job{{ID: 9, Submit: submit, Runtime: end - submit, Walltime: 1e6, Procs: 1}},
	}
	for _, q := range queue {
		sc.Jobs = append(sc.Jobs, job{ID: q.id, Submit: q.s, Runtime: q.r, Walltime: q.r, Procs: q.n, Priority: q.p})
	}
	for _, j := range sc.Jobs {
		sc.Requests = append(sc.Requests, sdk.Vector{j.Procs, 1})
	}
	sc.Want = []start{{ID: 9, At: submit}}
	at := end
	for _, id := range want {
		i := slices.IndexFunc(queue, func(q qJob) bool { return q.id == id })
		sc.Want = append(sc.Want, start{ID: id, At: at})
		at += queue[i].r
	}
	return sc
}

// TestOrdersInLine runs every order of the hand-worked cases in every
// reference policy: the queue waits behind a blocker that ends at the
// case's time, and the jobs start in the case's order.
//
// In the timed orders, the order at the blocker's end is also the order at
// each later end, where FCFS and EASY rank the queue again:
//   - WFP3 from 60: 2 [60,100); at 100 3 (3456) > 1 (729) > 4 (0.256); at
//     105 1 (9.5^3 = 857.4) > 4 (0.45^3 x 4 = 0.36).
//   - WFP3 from 100: 3 [100,105); at 105 2 ((85/40)^3 x 128 = 1228.3) > 1
//     (857.4) > 4 (0.36); at 145 1 (13.5^3 = 2460.4) > 4 (0.85^3 x 4 =
//     2.46).
//   - UNICEP from 60: 1 [60,70); at 70 3 (30/5 = 6) > 2 (50/280 = 0.18) >
//     4 (10/200 = 0.05); at 75 2 (55/280 = 0.20) > 4 (15/200 = 0.075).
//   - UNICEP from 100: 3 [100,105); at 105 1 (95/10 = 9.5) > 2 (85/280 =
//     0.30) > 4 (45/200 = 0.225); at 115 2 (95/280 = 0.34) > 4 (55/200 =
//     0.275).
func TestOrdersInLine(t *testing.T) {
	for _, tc := range orderCases {
		sc := inLine(tc.order, tc.queue, 1, tc.now, tc.want)
		for _, p := range []sdk.Plugin{FCFS(), EASY(), Conservative()} {
			policytest.Run(t, p, sc)
		}
	}
}

// overtakeJobs: job 1 holds the machine until 10 (its walltime 20); 2, 3
// and 4 each need all of it. WFP3 (all n = 4, so the order of w/r):
//   - t=10: 2 has 9/100 = 0.09 (score 0.002916), 3 5/10 = 0.5 (0.5), 4
//     1/20 = 0.05 (0.0005): 3, 2, 4;
//   - t=20: 2 has 19/100 = 0.19 (0.027436), 4 11/20 = 0.55 (0.6655): 4
//     has overtaken 2.
var overtakeJobs = []job{
	{ID: 1, Submit: 0, Runtime: 10, Walltime: 20, Procs: 4},
	{ID: 2, Submit: 1, Runtime: 100, Walltime: 100, Procs: 4},
	{ID: 3, Submit: 5, Runtime: 10, Walltime: 10, Procs: 4},
	{ID: 4, Submit: 9, Runtime: 20, Walltime: 20, Procs: 4},
}

// TestWFP3ReranksAsTimePasses: a job whose WFP3 score rises faster than
// another's overtakes it between two calls.
func TestWFP3ReranksAsTimePasses(t *testing.T) {
	wfp := map[string]string{"order": OrderWFP3}
	for _, tc := range []struct {
		p  sdk.Plugin
		sc policytest.Scenario
	}{
		{FCFS(), policytest.Scenario{
			// 3 at 10; at 20 4 comes before 2 (in the order of t=10, 2
			// would start at 20): 4 at 20, 2 at 40.
			Name: "fcfs", Procs: 4, Jobs: overtakeJobs, Params: wfp,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 40}, {ID: 3, At: 10}, {ID: 4, At: 20}},
		}},
		{EASY(), policytest.Scenario{
			// The same starts. 2 is the head from t=1, promised 20 at
			// t=1 (job 1's walltime end) and again at t=10 (3's expected
			// end); at 20 4 takes its place and 2 is promised 40.
			Name: "easy", Procs: 4, Jobs: overtakeJobs, Params: wfp,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 40, Promised: 20}, {ID: 3, At: 10}, {ID: 4, At: 20}},
		}},
		{Conservative(), policytest.Scenario{
			// Reserved on arrival: 2 at 20, 3 at 120, 4 at 130. Job 1
			// ends early at 10: compressed in the order of t=10, 3 moves
			// to 10, 2 cannot move, 4 moves to 120 (freed by 3). At 20
			// 4 outranks 2, but 2's reservation is now: it starts.
			Name: "conservative", Procs: 4, Jobs: overtakeJobs, Params: wfp,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 20, Promised: 20}, {ID: 3, At: 10, Promised: 120}, {ID: 4, At: 120, Promised: 130}},
		}},
		{Conservative(), policytest.Scenario{
			// In submit order the same compression moves 2 to 10, 3 to
			// 110 and 4 to 120.
			Name: "conservative, submit order", Procs: 4, Jobs: overtakeJobs,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 10, Promised: 20}, {ID: 3, At: 110, Promised: 120}, {ID: 4, At: 120, Promised: 130}},
		}},
	} {
		policytest.Run(t, tc.p, tc.sc)
	}
}

// TestEveryOrderValid runs every order in every reference policy on random
// workloads, on a pool and on nodes: every schedule passes the host's
// verification, and on a pool conservative keeps every promise (no
// reservation is ever delayed, whatever the order and the estimates; on
// nodes a reservation the rule cannot place is made again, by design).
func TestEveryOrderValid(t *testing.T) {
	for _, order := range orderParam().Choices {
		params := map[string]string{"order": order}
		for seed := range uint64(3) {
			for _, sc := range []policytest.Scenario{
				policytest.Random{Procs: 32, Params: params}.Scenario(seed),
				policytest.Random{Procs: 32, Params: params, Exact: true, Burst: 10}.Scenario(seed),
			} {
				policytest.Check(t, FCFS(), sc)
				policytest.Check(t, EASY(), sc)
				policytest.Check(t, Conservative(), sc, policytest.PromisesKept())
			}
			sc := policytest.Random{Nodes: true, Jobs: 100, Params: params}.Scenario(seed)
			for _, p := range []sdk.Plugin{FCFS(), EASY(), Conservative()} {
				policytest.Check(t, p, sc)
			}
		}
	}
	// The timed orders keep no state from run to run either.
	for _, order := range []string{OrderWFP3, OrderF1} {
		params := map[string]string{"order": order}
		for _, p := range []sdk.Plugin{FCFS(), EASY(), Conservative()} {
			policytest.NoStateBetweenRuns(t, p, policytest.Random{Params: params}.Scenario(1),
				policytest.Random{Procs: 16, Params: params}.Scenario(2))
		}
	}
}
