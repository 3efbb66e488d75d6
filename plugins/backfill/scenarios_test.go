package backfill

import (
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
)

type job = policytest.Job
type start = policytest.Start

// blocking is a small workload where FCFS and EASY differ: job 2 waits for
// job 1; jobs 3 and 4 are small and short.
var blockingJobs = []job{
	{ID: 1, Submit: 0, Runtime: 10, Walltime: 20, Procs: 6},
	{ID: 2, Submit: 1, Runtime: 5, Walltime: 10, Procs: 6},
	{ID: 3, Submit: 2, Runtime: 3, Walltime: 5, Procs: 2},
	{ID: 4, Submit: 2, Runtime: 4, Walltime: 4, Procs: 4},
}

// orderJobs makes the queue orders differ once job 1 ends at t=10.
var orderJobs = []job{
	{ID: 1, Submit: 0, Runtime: 10, Walltime: 10, Procs: 10},
	{ID: 2, Submit: 1, Runtime: 50, Walltime: 50, Procs: 5},
	{ID: 3, Submit: 2, Runtime: 5, Walltime: 5, Procs: 5},
	{ID: 4, Submit: 3, Runtime: 20, Walltime: 20, Procs: 10},
}

func TestFCFS(t *testing.T) {
	for _, sc := range []policytest.Scenario{
		{
			// t=10: job 1 ends; 2 starts (4 free), 3 fits behind it (2
			// free), 4 does not. t=13: 3 ends and 4 starts.
			Name: "no backfilling, start in order while jobs fit", Procs: 10, Jobs: blockingJobs,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 10}, {ID: 3, At: 10}, {ID: 4, At: 13}},
		},
		{
			Name: "submit order", Procs: 10, Jobs: orderJobs,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 10}, {ID: 3, At: 10}, {ID: 4, At: 60}},
		},
		{
			// t=10 order 3 (5 s), 4 (20 s), 2 (50 s): 3 starts, 4 blocks.
			// t=15: 4 starts; t=35: 2.
			Name: "shortest first", Procs: 10, Jobs: orderJobs, Params: map[string]string{"order": OrderShortest},
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 35}, {ID: 3, At: 10}, {ID: 4, At: 15}},
		},
		{
			// 2 and 3 both take 5 processors: the tie goes to 2.
			Name: "smallest first", Procs: 10, Jobs: orderJobs, Params: map[string]string{"order": OrderSmallest},
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 10}, {ID: 3, At: 10}, {ID: 4, At: 60}},
		},
		{
			Name: "largest first", Procs: 10, Jobs: orderJobs, Params: map[string]string{"order": OrderLargest},
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 30}, {ID: 3, At: 30}, {ID: 4, At: 10}},
		},
		{
			// At t=10 job 1's end is handled before job 2's submission.
			Name: "an end frees processors for a submission at the same time", Procs: 4,
			Jobs: []job{{ID: 1, Submit: 0, Runtime: 10, Walltime: 10, Procs: 4}, {ID: 2, Submit: 10, Runtime: 5, Walltime: 5, Procs: 4}},
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 10}},
		},
		{
			// Submitted together: the lower trace ID goes first, whatever
			// the order in the file.
			Name: "ties by job id", Procs: 4,
			Jobs: []job{{ID: 7, Submit: 0, Runtime: 10, Walltime: 10, Procs: 4}, {ID: 3, Submit: 0, Runtime: 5, Walltime: 5, Procs: 4}},
			Want: []start{{ID: 3, At: 0}, {ID: 7, At: 5}},
		},
		{
			// Job 1 asks for 50 s but would run 100: killed at 50, so job 2
			// starts at 50.
			Name: "killed at walltime", Procs: 4,
			Jobs: []job{{ID: 1, Submit: 0, Runtime: 100, Walltime: 50, Procs: 4}, {ID: 2, Submit: 1, Runtime: 5, Walltime: 5, Procs: 4}},
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 50}},
		},
	} {
		policytest.Run(t, FCFS(), sc)
	}
}

func TestEASY(t *testing.T) {
	for _, sc := range []policytest.Scenario{
		{
			// t=1: 2 does not fit; shadow = 20 (job 1's walltime end),
			// extra 4. t=2: 3 ends by 20, backfilled [2,5); 4 does not fit
			// (2 free). t=5: 4 fits and ends by 20: [5,9). t=10: job 1
			// really ends, 2 starts early.
			Name: "backfill jobs that end by the shadow time", Procs: 10, Jobs: blockingJobs,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 10, Promised: 20}, {ID: 3, At: 2}, {ID: 4, At: 5}},
		},
		{
			// t=1: 2 (8 procs) gets shadow 100, extra 10-8 = 2. t=2: 3 ends
			// after 100 but fits the extra 2: backfilled, extra 0. t=3:
			// 4 would fit now (2 free) but ends after 100 and extra is
			// used up. t=4: 5 ends by 100: backfilled. t=100: 2 starts; 4
			// becomes head with shadow 150 (2's walltime end).
			Name: "extra processors are consumed", Procs: 10,
			Jobs: []job{
				{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Procs: 6},
				{ID: 2, Submit: 1, Runtime: 50, Walltime: 50, Procs: 8},
				{ID: 3, Submit: 2, Runtime: 200, Walltime: 200, Procs: 2},
				{ID: 4, Submit: 3, Runtime: 200, Walltime: 200, Procs: 2},
				{ID: 5, Submit: 4, Runtime: 10, Walltime: 10, Procs: 2},
			},
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 100, Promised: 100}, {ID: 3, At: 2}, {ID: 4, At: 150, Promised: 150}, {ID: 5, At: 4}},
		},
		{
			// The second waiting job is not protected: 4 backfills into the
			// extra processors and delays 3 to 203 (conservative: 110).
			Name: "only the head is protected", Procs: 10, Jobs: protectJobs,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 100, Promised: 100}, {ID: 3, At: 203, Promised: 203}, {ID: 4, At: 3}},
		},
		{
			// With shortest-first order the head changes as short jobs
			// arrive: 2 was promised 10 at t=1 and starts at 35.
			Name: "shortest first may break an earlier head's promise", Procs: 10, Jobs: orderJobs,
			Params: map[string]string{"order": OrderShortest},
			Want:   []start{{ID: 1, At: 0}, {ID: 2, At: 35, Promised: 10}, {ID: 3, At: 10, Promised: 10}, {ID: 4, At: 15, Promised: 15}},
		},
		{
			// Requested walltimes: shadow 100, 3 ends at 32 and backfills,
			// so 2 waits for it.
			Name: "requested walltimes", Procs: 10, Jobs: estimateJobs,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 32, Promised: 100}, {ID: 3, At: 2}},
		},
		{
			// Exact estimates: job 1 is known to end at 10, the shadow is 10
			// with no extra, so 3 cannot backfill.
			Name: "exact estimates", Procs: 10, Jobs: estimateJobs, Exact: true,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 10, Promised: 10}, {ID: 3, At: 20}},
		},
		{
			// Processors and a second resource: job 2 fits in processors
			// but waits for the licences job 1 holds; job 3 needs no
			// licence and backfills.
			Name: "two resources",
			Platform: &sdk.Platform{Name: "lic", Resources: []string{sdk.Processors, "licences"},
				Clusters: []sdk.Cluster{{Name: "lic", Capacity: sdk.Vector{10, 2}}}},
			Jobs: []job{
				{ID: 1, Submit: 0, Runtime: 100, Walltime: 100},
				{ID: 2, Submit: 1, Runtime: 10, Walltime: 10},
				{ID: 3, Submit: 2, Runtime: 50, Walltime: 50},
			},
			Requests: []sdk.Vector{{2, 2}, {2, 1}, {8, 0}},
			Want:     []start{{ID: 1, At: 0}, {ID: 2, At: 100, Promised: 100}, {ID: 3, At: 2}},
		},
	} {
		policytest.Run(t, EASY(), sc)
	}
}

// protectJobs: job 2 (8 procs) is the head with shadow 100 and 2 extra
// processors; job 3 needs the whole machine after 2; job 4 is long and
// small.
var protectJobs = []job{
	{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Procs: 6},
	{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Procs: 8},
	{ID: 3, Submit: 2, Runtime: 100, Walltime: 100, Procs: 10},
	{ID: 4, Submit: 3, Runtime: 200, Walltime: 200, Procs: 2},
}

var estimateJobs = []job{
	{ID: 1, Submit: 0, Runtime: 10, Walltime: 100, Procs: 6},
	{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Procs: 10},
	{ID: 3, Submit: 2, Runtime: 30, Walltime: 30, Procs: 4},
}

func TestConservative(t *testing.T) {
	for _, sc := range []policytest.Scenario{
		{
			// Every waiting job is reserved: 2 at 100, 3 at 110 (after
			// 2), and 4 (2 procs for 200 s) cannot start now without
			// overlapping 3's reservation, so it is reserved at 210.
			Name: "every waiting job is protected", Procs: 10, Jobs: protectJobs,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 100, Promised: 100}, {ID: 3, At: 110, Promised: 110}, {ID: 4, At: 210, Promised: 210}},
		},
		{
			// 2 is reserved at 100 (job 1's walltime end), 3 backfills
			// before it. Job 1 ends at 10: reservations are compressed and
			// 2 needs 10 procs, so it moves to 32 when 3 ends.
			Name: "compression when a job ends early", Procs: 10, Jobs: estimateJobs,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 32, Promised: 100}, {ID: 3, At: 2}},
		},
		{
			Name: "exact estimates", Procs: 10, Jobs: estimateJobs, Exact: true,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 10, Promised: 10}, {ID: 3, At: 20, Promised: 20}},
		},
		{
			// Blocking workload: 2 reserved at 20; 3 fits before it; 4
			// (4 procs) fits at 5 once 3 ends and ends by 20. Job 1 ends at
			// 10 (early): compression moves 2 to 10.
			Name: "backfill into holes before reservations", Procs: 10, Jobs: blockingJobs,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 10, Promised: 20}, {ID: 3, At: 2, Promised: 2}, {ID: 4, At: 5}},
		},
		{
			// One pass does not reach a fixed point. 1 and 2 start; 3 (4
			// procs) is reserved at 10, 4 in the hole [6, 10). 1 ends
			// early at 3: in queue order 3 cannot move (4's reservation
			// holds half of [6, 10)), then 4 moves to 3. 3 now fits at 7,
			// but with early-ends no pass runs before it starts at 10.
			Name: "compression at early ends only", Procs: 4, Jobs: compressJobs,
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 10, Promised: 10}, {ID: 4, At: 3, Promised: 6}},
		},
		{
			// With every-end, 2's on-time end at 6 runs a pass: 3 moves to
			// 7, when 4 ends.
			Name: "compression at every end", Procs: 4, Jobs: compressJobs, Params: map[string]string{"compress": CompressEveryEnd},
			Want: []start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 7, Promised: 10}, {ID: 4, At: 3, Promised: 6}},
		},
	} {
		policytest.Run(t, Conservative(), sc)
	}
}

// compressJobs make the two compression rules differ: 1 ends early, 2 on
// time.
var compressJobs = []job{
	{ID: 1, Submit: 0, Runtime: 3, Walltime: 10, Procs: 2},
	{ID: 2, Submit: 0, Runtime: 6, Walltime: 6, Procs: 2},
	{ID: 3, Submit: 0, Runtime: 5, Walltime: 5, Procs: 4},
	{ID: 4, Submit: 0, Runtime: 4, Walltime: 4, Procs: 2},
}

// TestConservativeEveryEndKeepsPromises: compressing at every end never
// delays a reservation either, whatever the estimates.
func TestConservativeEveryEndKeepsPromises(t *testing.T) {
	for seed := range uint64(6) {
		sc := policytest.Random{Procs: 32, Jobs: 200, Params: map[string]string{"compress": CompressEveryEnd}}.Scenario(seed)
		policytest.Check(t, Conservative(), sc, policytest.PromisesKept())
	}
}
