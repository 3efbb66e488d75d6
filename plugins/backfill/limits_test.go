package backfill

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
)

// The two scheduler modes limits must hold in: EASY over the priority
// order, and Slurm's loops run at every call.
var limitModes = map[string]map[string]string{
	"easy":           nil,
	"sched/backfill": {"SchedulerType": SchedBackfill, "SchedulerParameters": "sched_interval=0,bf_interval=0,bf_resolution=1"},
}

// withMode returns params with the mode's parameters added.
func withMode(mode string, params map[string]string) map[string]string {
	out := maps.Clone(params)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, limitModes[mode])
	return out
}

// limitCounts runs the scenario under multifactor and returns its counts.
func limitCounts(t *testing.T, sc policytest.Scenario) map[string]int64 {
	t.Helper()
	plat := sc.Platform
	if plat == nil {
		plat = sdk.SingleCluster("test", sc.Procs)
	}
	res, err := sim.Run(context.Background(), Multifactor(), sim.Config{Platform: plat, Jobs: sc.Inputs(), Params: sc.Params,
		ExactEstimates: sc.Exact})
	if err != nil {
		t.Fatal(err)
	}
	return res.Stats.PolicyCounts
}

// TestLimitHolds works a job held by each limit, by hand, on 8
// processors: job 1 (2 processors, 100 s) starts at 0; job 2 (2
// processors, 10 s), submitted at 1, would start at once but for the
// limit, which holds it until job 1 ends at 100; job 3 (2 processors, 10
// s), of a user the limit does not reach, submitted at 2, starts at once,
// past the held job. Without the limit job 2 starts at 1.
func TestLimitHolds(t *testing.T) {
	// Users 1 and 3 share account X (under P in the Grp cases), user 2 is
	// in account Y elsewhere.
	const flat, deep = "X(1, 3), Y(2)", "P(X(1), Z(3)), Y(2)"
	for _, c := range []struct {
		limit, accounts string
		params          map[string]string
		user2           int32 // job 2's user
	}{
		{"MaxJobsPerUser", "", map[string]string{"MaxJobsPerUser": "1"}, 1},
		{"MaxTRESPerUser", "", map[string]string{"MaxTRESPerUser": "cpu=3"}, 1},
		{"MaxTRESPerUser", "", map[string]string{"MaxTRESPerUser": "node=3"}, 1}, // on a pool every processor is a node
		{"MaxJobsPerAccount", flat, map[string]string{"MaxJobsPerAccount": "1"}, 3},
		{"MaxTRESPerAccount", flat, map[string]string{"MaxTRESPerAccount": "CPU=3"}, 3},
		{"GrpJobs", deep, map[string]string{"GrpJobs": "P=1"}, 3},
		{"GrpTRES", deep, map[string]string{"GrpTRES": "P=cpu=3"}, 3},
	} {
		jobs := []policytest.Job{
			{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Procs: 2, User: 1},
			{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Procs: 2, User: c.user2},
			{ID: 3, Submit: 2, Runtime: 10, Walltime: 10, Procs: 2, User: 2},
		}
		for mode := range limitModes {
			params := withMode(mode, c.params)
			params["Accounts"] = c.accounts
			sc := policytest.Scenario{Name: c.limit + " " + mode, Procs: 8, Jobs: jobs, Params: params, Exact: true,
				Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 100}, {ID: 3, At: 2}}}
			policytest.Run(t, Multifactor(), sc)
			counts := limitCounts(t, sc)
			// Job 2 waits at the calls at 1 and 2 (the submissions) and
			// 12 (job 3's end).
			for name, want := range map[string]int64{"held_jobs_" + c.limit: 1, "wait_" + c.limit: 3, "wait_Resources": 0} {
				if counts[name] != want {
					t.Errorf("%s: %s = %d; want %d (counts %v)", sc.Name, name, counts[name], want, counts)
				}
			}
			sc.Params = withMode(mode, map[string]string{"Accounts": c.accounts})
			sc.Want = []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 1}, {ID: 3, At: 2}}
			sc.Name += " without the limit"
			policytest.Run(t, Multifactor(), sc)
		}
	}
}

// TestLimitHoldsNoReservation: a held job is skipped, as Slurm skips it,
// so it holds no reservation. On 8 processors, job 1 (6 processors, 100
// s) runs; job 2 (8 processors), of the same user, is held by
// MaxJobsPerUser = 1; job 3 (2 processors, 1000 s) of another user starts
// at once. Without the limit job 2 is the head, reserved at 100, and job
// 3, which would delay it, waits for it (110).
func TestLimitHoldsNoReservation(t *testing.T) {
	jobs := []policytest.Job{
		{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Procs: 6, User: 1},
		{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Procs: 8, User: 1},
		{ID: 3, Submit: 2, Runtime: 1000, Walltime: 1000, Procs: 2, User: 2},
	}
	for mode := range limitModes {
		policytest.Run(t, Multifactor(), policytest.Scenario{Name: "held " + mode, Procs: 8, Jobs: jobs, Exact: true,
			Params: withMode(mode, map[string]string{"MaxJobsPerUser": "1"}),
			Want:   []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 1002}, {ID: 3, At: 2}}})
		policytest.Run(t, Multifactor(), policytest.Scenario{Name: "not held " + mode, Procs: 8, Jobs: jobs, Exact: true,
			Params: withMode(mode, nil),
			Want:   []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 100}, {ID: 3, At: 110}}})
	}
}

// TestLimitRoot: GrpTRES on root bounds the whole machine: with cpu=5 on 8
// processors, jobs 1 and 2 (2 each) run, job 3 waits for job 2's end.
func TestLimitRoot(t *testing.T) {
	jobs := []policytest.Job{
		{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Procs: 2, User: 1},
		{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Procs: 2, User: 2},
		{ID: 3, Submit: 2, Runtime: 10, Walltime: 10, Procs: 2, User: 3},
	}
	for mode := range limitModes {
		policytest.Run(t, Multifactor(), policytest.Scenario{Name: "root " + mode, Procs: 8, Jobs: jobs, Exact: true,
			Params: withMode(mode, map[string]string{"GrpTRES": "root=cpu=5"}),
			Want:   []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 1}, {ID: 3, At: 11}}})
	}
}

// TestOverLimit: a job over its QOS's MaxWall, or whose request alone is
// over a TRES limit, is rejected at submission (its record starts and
// ends then, rejected), or with OverLimit = exempt runs as if the limit
// were unset for it; each is counted under its limit.
func TestOverLimit(t *testing.T) {
	jobs := []policytest.Job{
		{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Procs: 2, User: 1, Queue: 0},
		{ID: 2, Submit: 5, Runtime: 60, Walltime: 60, Procs: 2, User: 2, Queue: 1}, // over MaxWall 1=0:50, 50 s
		{ID: 3, Submit: 6, Runtime: 60, Walltime: 60, Procs: 2, User: 2, Queue: 0}, // QOS 0 has none
		{ID: 4, Submit: 7, Runtime: 10, Walltime: 10, Procs: 5, User: 3},           // over cpu=4 alone
	}
	for mode := range limitModes {
		for _, c := range []struct {
			over   string
			want   []policytest.Start
			counts map[string]int64
		}{
			{OverReject, []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 5}, {ID: 3, At: 6}, {ID: 4, At: 7}},
				map[string]int64{"rejected_MaxWall": 1, "rejected_MaxTRESPerUser": 1, "exempt_MaxWall": 0}},
			// Exempt, job 2 runs from 5 to 65 and job 3 beside it from 6
			// (user 2's cpu=4 holds both); job 4 waits for 5 processors
			// free, at job 3's end at 66.
			{OverExempt, []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 5}, {ID: 3, At: 6}, {ID: 4, At: 66}},
				map[string]int64{"rejected_MaxWall": 0, "exempt_MaxWall": 1, "exempt_MaxTRESPerUser": 1}},
		} {
			sc := policytest.Scenario{Name: c.over + " " + mode, Procs: 8, Jobs: jobs, Exact: true, Want: c.want,
				Params: withMode(mode, map[string]string{"MaxWall": "1=0:50", "MaxTRESPerUser": "cpu=4", "OverLimit": c.over})}
			got := policytest.Check(t, Multifactor(), sc)
			for _, id := range []int64{2, 4} {
				if rej := got[id].Rejected; rej != (c.over == OverReject) {
					t.Errorf("%s: job %d rejected %v", sc.Name, id, rej)
				}
			}
			counts := limitCounts(t, sc)
			for name, want := range c.counts {
				if counts[name] != want {
					t.Errorf("%s: %s = %d; want %d (counts %v)", sc.Name, name, counts[name], want, counts)
				}
			}
		}
	}
}

// TestLimitsBadParams: what Init refuses, naming the parameter.
func TestLimitsBadParams(t *testing.T) {
	for _, c := range []struct {
		params      map[string]string
		param, want string
	}{
		{map[string]string{"MaxJobsPerUser": "-1"}, "MaxJobsPerUser", "want 0 (no limit) or more"},
		{map[string]string{"MaxTRESPerUser": "cpus=4"}, "MaxTRESPerUser", `"cpus" is not a TRES schedlab limits (cpu, mem, gres/gpu, node) (did you mean cpu?)`},
		{map[string]string{"MaxTRESPerAccount": "cpu=0"}, "MaxTRESPerAccount", "not a positive integer"},
		{map[string]string{"MaxTRESPerUser": "mem=4X"}, "MaxTRESPerUser", "not a positive integer"},
		{map[string]string{"GrpJobs": "Q=4", "Accounts": "P(1)"}, "GrpJobs", `account "Q" is not in Accounts (root, P)`},
		{map[string]string{"GrpJobs": "PP=4", "Accounts": "PA(1)"}, "GrpJobs", "(did you mean PA?)"},
		{map[string]string{"GrpJobs": "root"}, "GrpJobs", "want ACCOUNT=N"},
		{map[string]string{"GrpTRES": "root=cpu=x"}, "GrpTRES", "not a positive integer"},
		{map[string]string{"GrpTRES": "1=cpu=4", "Accounts": "A(1)"}, "GrpTRES", `account "1" is not in Accounts`},
		{map[string]string{"MaxWall": "normal=1:00"}, "MaxWall", "QOS the trace's queue number"},
		{map[string]string{"MaxWall": "0=1day"}, "MaxWall", "want a positive Slurm time"},
	} {
		err := CheckMultifactor(c.params)
		var pe *ParamError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("%v: error %v; want one of parameter %s saying %q", c.params, err, c.param, c.want)
		}
	}
	// Memory limits in MiB, or suffixed.
	for s, want := range map[string]float64{"mem=100": 100, "mem=2G": 2048, "mem=1T": 1 << 20, "MEM=3m": 3} {
		if got, err := parseTRESLimit("x", s); err != nil || got.mem != want {
			t.Errorf("%s: %v, %v; want mem %g MiB", s, got, err, want)
		}
	}
}

// limitSet is the limits of TestLimitsNeverExceeded, and the tree they
// are set over: users 0 and 1 in A (user 1 in B under A), 2 and 3 in C.
var limitSet = map[string]string{
	"Accounts": "A(0, B(1)), C(2, 3)", "MaxJobsPerUser": "3", "MaxTRESPerUser": "cpu=40,node=40", "MaxJobsPerAccount": "4",
	"MaxTRESPerAccount": "cpu=48", "GrpJobs": "A=5,root=9", "GrpTRES": "A=cpu=50;root=cpu=60", "MaxWall": "1=2:30",
	"PriorityWeightFairshare": "10000", "PriorityWeightAge": "1000", "PriorityCalcPeriod": "1", "PriorityDecayHalfLife": "60",
}

// paths gives each user's accounts, its own first, root last, as
// limitSet's Accounts declares them.
var paths = map[int32][]string{0: {"A", "root"}, 1: {"B", "A", "root"}, 2: {"C", "root"}, 3: {"C", "root"}}

// replayLimits replays records against limitSet's limits, independently
// of the policy: at every instant at which a job starts, the jobs running
// then (start <= t < end) must not exceed a limit; a job is rejected
// exactly when it is over a limit alone. It returns the first violation.
func replayLimits(in []sim.Input, recs map[int64]sim.Record, nodes bool) error {
	type amt struct{ jobs, cpu, node int64 }
	reqNodes := func(j *sdk.Job) int64 {
		switch {
		case !nodes:
			return j.Procs()
		case j.Tasks.Nodes > 0:
			return int64(j.Tasks.Nodes)
		}
		return 1
	}
	byID := map[int64]*sdk.Job{}
	for i := range in {
		j := &in[i].Job
		byID[j.ID] = j
		// MaxWall, MaxTRESPerUser (cpu, node), MaxTRESPerAccount, GrpTRES
		// of A for A's users, and of root.
		over := j.Queue == 1 && j.Walltime > 150 || j.Procs() > 40 || reqNodes(j) > 40 || j.Procs() > 48 ||
			slices.Contains(paths[j.User], "A") && j.Procs() > 50 || j.Procs() > 60
		if recs[j.ID].Rejected != over {
			return fmt.Errorf("job %d (queue %d, walltime %d, %d processors, user %d): rejected %v, over a limit alone %v",
				j.ID, j.Queue, j.Walltime, j.Procs(), j.User, recs[j.ID].Rejected, over)
		}
	}
	for _, r := range recs {
		if r.Rejected {
			continue
		}
		t := r.Start
		users := map[int32]amt{}
		own := map[string]amt{}
		sub := map[string]amt{}
		for id, q := range recs {
			if q.Rejected || q.Start > t || q.End <= t {
				continue
			}
			j := byID[id]
			a := amt{1, j.Procs(), reqNodes(j)}
			add := func(m map[string]amt, k string) { m[k] = amt{m[k].jobs + a.jobs, m[k].cpu + a.cpu, m[k].node + a.node} }
			u := users[j.User]
			users[j.User] = amt{u.jobs + 1, u.cpu + a.cpu, u.node + a.node}
			add(own, paths[j.User][0])
			for _, acc := range paths[j.User] {
				add(sub, acc)
			}
		}
		for u, a := range users {
			if a.jobs > 3 || a.cpu > 40 || a.node > 40 {
				return fmt.Errorf("at %d user %d runs %d jobs, %d cpus, %d nodes: over MaxJobsPerUser 3 or MaxTRESPerUser cpu=40,node=40", t, u, a.jobs, a.cpu, a.node)
			}
		}
		for acc, a := range own {
			if a.jobs > 4 || a.cpu > 48 {
				return fmt.Errorf("at %d account %s's users run %d jobs, %d cpus: over MaxJobsPerAccount 4 or MaxTRESPerAccount cpu=48", t, acc, a.jobs, a.cpu)
			}
		}
		if a := sub["A"]; a.jobs > 5 || a.cpu > 50 {
			return fmt.Errorf("at %d A and B run %d jobs, %d cpus: over GrpJobs A=5 or GrpTRES A=cpu=50", t, a.jobs, a.cpu)
		}
		if a := sub["root"]; a.jobs > 9 || a.cpu > 60 {
			return fmt.Errorf("at %d the machine runs %d jobs, %d cpus: over GrpJobs root=9 or GrpTRES root=cpu=60", t, a.jobs, a.cpu)
		}
	}
	return nil
}

// TestLimitsNeverExceeded: on random workloads, on pools and nodes, in
// both modes, the records replayed independently never exceed a limit,
// and a job is rejected exactly when it is over a limit alone. The same
// workloads without the limits exceed them (the replay can fail), and
// the limits hold jobs (the counts say so).
func TestLimitsNeverExceeded(t *testing.T) {
	violated := 0
	for mode := range limitModes {
		for seed := range uint64(6) {
			nodes := seed%2 == 1
			r := policytest.Random{Procs: 64, Users: 4, Jobs: 150, Nodes: nodes, Params: withMode(mode, limitSet)}
			sc := r.Scenario(seed)
			recs := policytest.Check(t, Multifactor(), sc)
			if recs == nil {
				continue
			}
			in := sc.Inputs()
			if err := replayLimits(in, recs, nodes); err != nil {
				t.Errorf("%s seed %d: %v", mode, seed, err)
			}
			counts := limitCounts(t, sc)
			held := int64(0)
			for k, v := range counts {
				if strings.HasPrefix(k, "held_jobs_") {
					held += v
				}
			}
			if held == 0 {
				t.Errorf("%s seed %d: no job held by a limit (counts %v): the workload does not test the limits", mode, seed, counts)
			}
			// Without the limits (but the tree), and with no job over
			// one alone, the replay finds the machine over them.
			free := maps.Clone(sc.Params)
			for _, k := range limitNames {
				delete(free, k)
			}
			sc.Params = free
			var kept []policytest.Job
			for _, j := range sc.Jobs {
				if !recs[j.ID].Rejected {
					kept = append(kept, j)
				}
			}
			sc.Jobs = kept
			if unlimited := policytest.Check(t, Multifactor(), sc); unlimited != nil && replayLimits(sc.Inputs(), unlimited, nodes) != nil {
				violated++
			}
		}
	}
	if violated == 0 {
		t.Error("no workload exceeds a limit without the limits: the replay tests nothing")
	}
}

// TestLimitsNotBinding: limits no job reaches leave every record as
// without them, in both modes, on pools and nodes (the gate changes
// nothing but what it holds).
func TestLimitsNotBinding(t *testing.T) {
	loose := map[string]string{"MaxJobsPerUser": "100000", "MaxTRESPerUser": "cpu=100000000", "GrpJobs": "root=100000",
		"MaxWall": "0=1000-0,1=1000-0"}
	for mode := range limitModes {
		for seed := range uint64(4) {
			r := policytest.Random{Nodes: seed%2 == 1, Jobs: 120, Params: withMode(mode, map[string]string{"PriorityWeightAge": "1000"})}
			sc := r.Scenario(seed)
			want, err := policytest.Simulate(Multifactor(), sc)
			if err != nil {
				t.Fatal(err)
			}
			maps.Copy(sc.Params, loose)
			got, err := policytest.Simulate(Multifactor(), sc)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, want) {
				t.Errorf("%s seed %d: limits that never bind change the schedule", mode, seed)
			}
		}
	}
}

// TestGroupAccounts: with AutoAccounts = group, users 1 and 2 (group 5)
// share account g5 and user 3 (group 7) has g7. User 1 runs alone until
// 1000; then user 2's job (submitted at 10) and user 3's (at 20) wait for
// the whole machine. In accounts of their own, users 2 and 3 have no
// usage and tie: submit order. In groups, g7 has no usage and g5 has
// user 1's: user 3 first, in both algorithms. GrpJobs on g5 holds user 2
// while user 1 runs, not user 3; user 1's job of another group is
// counted.
func TestGroupAccounts(t *testing.T) {
	jobs := []policytest.Job{
		{ID: 1, Submit: 0, Runtime: 1000, Walltime: 1000, Procs: 8, User: 1, Group: 5},
		{ID: 2, Submit: 10, Runtime: 100, Walltime: 100, Procs: 8, User: 2, Group: 5},
		{ID: 3, Submit: 20, Runtime: 100, Walltime: 100, Procs: 8, User: 3, Group: 7},
	}
	for _, c := range []struct {
		accounts, flags string
		want            []policytest.Start
	}{
		{AccountsUser, "", []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 1000}, {ID: 3, At: 1100}}},
		{AccountsGroup, "", []policytest.Start{{ID: 1, At: 0}, {ID: 3, At: 1000}, {ID: 2, At: 1100}}},
		{AccountsGroup, "NO_FAIR_TREE", []policytest.Start{{ID: 1, At: 0}, {ID: 3, At: 1000}, {ID: 2, At: 1100}}},
	} {
		policytest.Run(t, Multifactor(), policytest.Scenario{Name: c.accounts + " " + c.flags, Procs: 8, Jobs: jobs, Exact: true,
			Params: map[string]string{"PriorityWeightFairshare": "1000", "PriorityCalcPeriod": "1", "AutoAccounts": c.accounts,
				"PriorityFlags": c.flags},
			Want: c.want})
	}
	small := []policytest.Job{
		{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Procs: 2, User: 1, Group: 5},
		{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Procs: 2, User: 2, Group: 5},
		{ID: 3, Submit: 2, Runtime: 10, Walltime: 10, Procs: 2, User: 3, Group: 7},
		{ID: 4, Submit: 3, Runtime: 10, Walltime: 10, Procs: 2, User: 3, Group: 5}, // user 3 stays in g7
	}
	for mode := range limitModes {
		sc := policytest.Scenario{Name: "GrpJobs g5 " + mode, Procs: 8, Jobs: small, Exact: true,
			Params: withMode(mode, map[string]string{"AutoAccounts": AccountsGroup, "GrpJobs": "g5=1"}),
			Want:   []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 100}, {ID: 3, At: 2}, {ID: 4, At: 3}}}
		policytest.Run(t, Multifactor(), sc)
		counts := limitCounts(t, sc)
		if counts["held_jobs_GrpJobs"] != 1 || counts["users_in_several_groups"] != 1 {
			t.Errorf("%s: counts %v; want held_jobs_GrpJobs 1, users_in_several_groups 1", sc.Name, counts)
		}
	}
	for _, c := range []struct {
		params      map[string]string
		param, want string
	}{
		{map[string]string{"AutoAccounts": AccountsGroup, "Accounts": "A(1)"}, "AutoAccounts", "Accounts declares the tree"},
		{map[string]string{"AutoAccounts": AccountsGroup, "GrpJobs": "gx=1"}, "GrpJobs", `account "gx" is not in Accounts`},
		{map[string]string{"GrpJobs": "g5=1"}, "GrpJobs", `account "g5" is not in Accounts`},
	} {
		err := CheckMultifactor(c.params)
		var pe *ParamError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("%v: error %v; want one of parameter %s saying %q", c.params, err, c.param, c.want)
		}
	}
}

// TestLimitsInSlurmLoops: a held job is skipped by each loop without
// counting for it. On 8 processors job 1 (user 1, 6 processors) runs from
// 0 to 100; job 2 (user 1, 8 processors, submitted at 1) is held by
// MaxJobsPerUser = 1; job 3 (user 2, 2 processors, 1000 s, at 2) starts at
// once: in the main loop alone, job 2 does not block the partition (it
// does without the limit, and job 3 waits for it: 110); in the backfill
// loop alone with bf_max_job_test = 1, job 2 is not the one job tested
// (without the limit it is, planned at 100, and job 3, which would delay
// it, waits: 110).
func TestLimitsInSlurmLoops(t *testing.T) {
	jobs := []policytest.Job{
		{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Procs: 6, User: 1},
		{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Procs: 8, User: 1},
		{ID: 3, Submit: 2, Runtime: 1000, Walltime: 1000, Procs: 2, User: 2},
	}
	for _, loop := range []map[string]string{
		{"SchedulerType": SchedBuiltin, "SchedulerParameters": "sched_interval=0"},
		{"SchedulerType": SchedBackfill, "SchedulerParameters": "sched_interval=-1,bf_interval=0,bf_resolution=1,bf_max_job_test=1"},
	} {
		held := maps.Clone(loop)
		held["MaxJobsPerUser"] = "1"
		policytest.Run(t, Multifactor(), policytest.Scenario{Name: "held " + loop["SchedulerType"], Procs: 8, Jobs: jobs, Exact: true,
			Params: held, Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 1002}, {ID: 3, At: 2}}})
		policytest.Run(t, Multifactor(), policytest.Scenario{Name: "not held " + loop["SchedulerType"], Procs: 8, Jobs: jobs, Exact: true,
			Params: loop, Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 100}, {ID: 3, At: 110}}})
	}
}

// TestLimitsNoStateBetweenRuns: a plugin process serving many runs with
// limits and a tree of groups gives each the records of its first run.
func TestLimitsNoStateBetweenRuns(t *testing.T) {
	grouped := map[string]string{"AutoAccounts": AccountsGroup, "GrpJobs": "g0=3", "MaxTRESPerUser": "cpu=30", "MaxWall": "1=2:00",
		"PriorityWeightFairshare": "10000", "PriorityCalcPeriod": "1"}
	policytest.NoStateBetweenRuns(t, Multifactor(), policytest.Random{Params: limitSet}.Scenario(1),
		policytest.Random{Procs: 48, Params: grouped}.Scenario(2),
		policytest.Random{Procs: 48, Params: withMode("sched/backfill", grouped)}.Scenario(3))
}
