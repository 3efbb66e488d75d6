package backfill

import (
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
)

// windowJobs: job 1 holds half the machine until 1000; job 2 needs all of
// it (earliest start 1000); job 3, submitted last, needs half for long
// (2000 s) and job 4 half for short (500 s).
func windowJobs(user3 int32) []policytest.Job {
	return []policytest.Job{
		{ID: 1, Submit: 0, Runtime: 1000, Walltime: 1000, Procs: 2, User: 1},
		{ID: 2, Submit: 1, Runtime: 100, Walltime: 100, Procs: 4, User: 1},
		{ID: 3, Submit: 2, Runtime: 2000, Walltime: 2000, Procs: 2, User: user3},
	}
}

// TestSlurmBackfillWindow: a job planned within bf_window holds its
// planned start; one beyond it holds nothing, and a later job that fits
// now starts and delays it.
func TestSlurmBackfillWindow(t *testing.T) {
	base := "sched_interval=0,bf_interval=0,bf_resolution=1,"
	for _, c := range []struct {
		name, sp string
		want     []policytest.Start
	}{
		// Job 2 is planned at 1000 (within 20 minutes of 1): job 3, which
		// would end at 2002, waits behind it.
		{"window 20 min", base + "bf_window=20", []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 1000}, {ID: 3, At: 1100}}},
		// 1000 is beyond 10 minutes from 2: job 2 holds nothing, job 3
		// starts at once and job 2 waits for it.
		{"window 10 min", base + "bf_window=10", []policytest.Start{{ID: 1, At: 0}, {ID: 3, At: 2}, {ID: 2, At: 2002}}},
	} {
		policytest.Run(t, Multifactor(), policytest.Scenario{Name: c.name, Procs: 4, Jobs: windowJobs(2),
			Params: map[string]string{"SchedulerType": SchedBackfill, "SchedulerParameters": c.sp}, Want: c.want})
	}
}

// TestSlurmBackfillLimits: job 3 is short (500 s) and backfills before
// job 2's planned start, unless the backfill loop tests one job only
// (bf_max_job_test = 1) or one per user (bf_max_job_user = 1, job 3 of
// job 2's user); and with the loops at their intervals (main loop every
// 60 s, backfill every 30 s) it backfills at the first backfill run after
// its submission, 30.
func TestSlurmBackfillLimits(t *testing.T) {
	jobs := func(user3 int32) []policytest.Job {
		js := windowJobs(user3)
		js[2].Runtime, js[2].Walltime = 500, 500
		return js
	}
	base := "sched_interval=0,bf_interval=0,bf_resolution=1"
	late := []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 1000}, {ID: 3, At: 1100}}
	for _, c := range []struct {
		name, sp string
		user3    int32
		want     []policytest.Start
	}{
		{"no limit", base, 1, []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 1000}, {ID: 3, At: 2}}},
		{"bf_max_job_test", base + ",bf_max_job_test=1", 2, late},
		{"bf_max_job_user", base + ",bf_max_job_user=1", 1, late},
		{"bf_max_job_user, another user", base + ",bf_max_job_user=1", 2, []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 1000}, {ID: 3, At: 2}}},
		{"intervals", "bf_resolution=1", 1, []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 1000}, {ID: 3, At: 30}}},
	} {
		policytest.Run(t, Multifactor(), policytest.Scenario{Name: c.name, Procs: 4, Jobs: jobs(c.user3),
			Params: map[string]string{"SchedulerType": SchedBackfill, "SchedulerParameters": c.sp}, Want: c.want})
	}
	// bf_resolution = 60 rounds job 1's end up to 1020: job 2 is planned
	// there, and starts at 1000 all the same (the main loop at job 1's
	// end); with periodic loops only, at the first run after 1000.
	policytest.Run(t, Multifactor(), policytest.Scenario{Name: "resolution", Procs: 4, Jobs: jobs(1),
		Params: map[string]string{"SchedulerType": SchedBackfill, "SchedulerParameters": "sched_interval=0,bf_interval=0,bf_resolution=60"},
		Want:   []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 1000}, {ID: 3, At: 2}}})
}

// starts returns each job's start.
func starts(recs map[int64]sim.Record) map[int64]int64 {
	out := map[int64]int64{}
	for id, r := range recs {
		out[id] = r.Start
	}
	return out
}

// TestSlurmLoopsDegenerate: with every weight 0 (submit order) and both
// loops at every call, the main loop alone (sched/builtin, or backfill
// off) is FCFS, record for record; with the backfill loop testing every
// job over an unbounded window at a resolution of 1 s, and exact
// estimates, every job starts when conservative backfilling starts it.
func TestSlurmLoopsDegenerate(t *testing.T) {
	for seed := range uint64(6) {
		sc := policytest.Random{Procs: 32, Exact: seed%2 == 0}.Scenario(seed)
		fcfs, err := policytest.Simulate(FCFS(), sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, params := range []map[string]string{
			{"SchedulerType": SchedBuiltin, "SchedulerParameters": "sched_interval=0"},
			{"SchedulerType": SchedBackfill, "SchedulerParameters": "sched_interval=0,bf_interval=-1"},
		} {
			sc.Params = params
			got, err := policytest.Simulate(Multifactor(), sc)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, fcfs) {
				t.Errorf("%v, seed %d: the schedule differs from FCFS's", params, seed)
			}
		}
		sc = policytest.Random{Procs: 32, Exact: true}.Scenario(seed)
		cons, err := policytest.Simulate(Conservative(), sc)
		if err != nil {
			t.Fatal(err)
		}
		sc.Params = map[string]string{"SchedulerType": SchedBackfill,
			"SchedulerParameters": "sched_interval=0,bf_interval=0,bf_resolution=1,bf_window=100000000,bf_max_job_test=0"}
		got, err := policytest.Simulate(Multifactor(), sc)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := starts(got), starts(cons); !maps.Equal(a, b) {
			t.Errorf("seed %d: the starts differ from conservative backfilling's", seed)
		}
	}
}

// TestSlurmLoopsInvariants: schedules pass the host's verification with
// every factor and the loops at their intervals, and the policy keeps no
// state between runs.
func TestSlurmLoopsInvariants(t *testing.T) {
	params := map[string]string{"PriorityWeightAge": "1000", "PriorityWeightFairshare": "10000", "PriorityWeightJobSize": "1000",
		"PriorityMaxAge": "10", "PriorityDecayHalfLife": "30", "PriorityCalcPeriod": "1", "SchedulerType": SchedBackfill}
	for _, sp := range []string{"", "sched_interval=20,bf_interval=7,bf_resolution=5,bf_window=3,bf_max_job_test=5,bf_max_job_user=2,default_queue_depth=2,bf_continue",
		"sched_interval=-1,bf_interval=10"} {
		ps := maps.Clone(params)
		ps["SchedulerParameters"] = sp
		for seed := range uint64(4) {
			policytest.Check(t, Multifactor(), policytest.Random{Procs: 32, Params: ps}.Scenario(seed))
		}
		policytest.NoStateBetweenRuns(t, Multifactor(), policytest.Random{Params: ps}.Scenario(1),
			policytest.Random{Procs: 16, Params: ps}.Scenario(2))
	}
	ps := maps.Clone(params)
	ps["SchedulerType"] = SchedBuiltin
	policytest.Check(t, Multifactor(), policytest.Random{Procs: 32, Params: ps}.Scenario(9))
}

// TestSlurmLoopsBadParams: SchedulerParameters refused.
func TestSlurmLoopsBadParams(t *testing.T) {
	for sp, want := range map[string]string{
		"bf_windw=10":                      `"bf_windw" is not an option schedlab models`,
		"bf_window=0":                      "bf_window = 0: want at least 1",
		"bf_interval=x":                    `bf_interval: "x" is not an integer`,
		"sched_interval=-1,bf_interval=-1": "every scheduling loop is off",
	} {
		err := CheckMultifactor(map[string]string{"SchedulerType": SchedBackfill, "SchedulerParameters": sp})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error saying %s", sp, err, want)
		}
	}
}

// TestSlurmLoopsOnNodes: on platforms of nodes (partitions, shared and
// exclusive jobs, memory, GPUs), the loops' schedules pass the host's
// verification, and jobs are billed what their allocations hold.
func TestSlurmLoopsOnNodes(t *testing.T) {
	params := map[string]string{"PriorityWeightAge": "1000", "PriorityWeightFairshare": "10000", "PriorityWeightJobSize": "1000",
		"PriorityCalcPeriod": "1", "PriorityDecayHalfLife": "60", "TRESBillingWeights": "CPU=1,Mem=0.25G,GRES/gpu=4"}
	for _, st := range []string{SchedBackfill, SchedBuiltin} {
		for _, sp := range []string{"", "sched_interval=0,bf_interval=0,bf_resolution=1", "bf_interval=5,bf_window=2,bf_max_job_user=1"} {
			ps := maps.Clone(params)
			ps["SchedulerType"], ps["SchedulerParameters"] = st, sp
			for seed := range uint64(3) {
				policytest.Check(t, Multifactor(), policytest.Random{Nodes: true, Jobs: 120, Params: ps}.Scenario(seed))
			}
		}
	}
	// One partition of nodes all alike held whole, exact estimates, every
	// weight 0 and the main loop alone at every call: FCFS, record for
	// record.
	plat := sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "g", Count: 8, Cores: 4}}, nil, "")
	for seed := range uint64(3) {
		sc := policytest.Random{Platform: plat, Jobs: 150, Exact: true}.Scenario(seed)
		want, err := policytest.Simulate(FCFS(), sc)
		if err != nil {
			t.Fatal(err)
		}
		sc.Params = map[string]string{"SchedulerType": SchedBuiltin, "SchedulerParameters": "sched_interval=0"}
		got, err := policytest.Simulate(Multifactor(), sc)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("seed %d: on nodes, the main loop alone differs from FCFS", seed)
		}
	}
}
