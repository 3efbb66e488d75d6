package backfill

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
)

// runNotes runs the scenario under multifactor and returns its result.
func runNotes(t *testing.T, sc policytest.Scenario) *sim.Result {
	t.Helper()
	res, err := sim.Run(context.Background(), Multifactor(), sim.Config{Platform: sdk.SingleCluster("test", sc.Procs),
		Jobs: sc.Inputs(), Params: sc.Params, ExactEstimates: sc.Exact})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// noteColumn returns the notes' column of that name.
func noteColumn(t *testing.T, n *sdk.Notes, name string) []float64 {
	t.Helper()
	for _, c := range n.Columns {
		if c.Name == name {
			return c.Values
		}
	}
	t.Fatalf("no column %q in %v", name, n.Columns)
	return nil
}

// TestNotesHandWorked works a run's notes by hand, on 8 processors, with
// age (PriorityMaxAge 10 minutes) and job size weighted 1000 each,
// calculated at every call:
//
//   - job 1 (6 processors, 300 s) starts at 0: age 0, size (6/8 + 6/8)/2
//     = 0.75, priority 750;
//   - job 2 (8 processors, 10 s), submitted at 60, waits for Resources (8
//     over the 2 free) until job 1 ends at 300, and starts then: age
//     240/600 = 0.4, size 1, priority 1400;
//   - job 3 (2 processors, 1000 s), submitted at 120, fits the 2 free
//     processors but would delay job 2's reservation at 300: it waits for
//     Priority, then, from 300, for Resources (job 2 holds all 8), and
//     starts at 310: age 190/600, size 0.25, priority floor(316.67 + 250)
//     = 566.
func TestNotesHandWorked(t *testing.T) {
	sc := policytest.Scenario{Name: "notes", Procs: 8, Exact: true,
		Jobs: []policytest.Job{
			{ID: 1, Submit: 0, Runtime: 300, Walltime: 300, Procs: 6, User: 1},
			{ID: 2, Submit: 60, Runtime: 10, Walltime: 10, Procs: 8, User: 2},
			{ID: 3, Submit: 120, Runtime: 1000, Walltime: 1000, Procs: 2, User: 3},
		},
		Params: map[string]string{"PriorityWeightAge": "1000", "PriorityMaxAge": "10", "PriorityWeightJobSize": "1000",
			"PriorityCalcPeriod": "0"},
		Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 300}, {ID: 3, At: 310}},
	}
	policytest.Run(t, Multifactor(), sc)
	n := runNotes(t, sc).Notes
	if n == nil {
		t.Fatal("no notes")
	}
	for name, want := range map[string][]float64{
		"priority":  {750, 1400, 566},
		"age":       {0, 400, 1000 * 190.0 / 600},
		"jobsize":   {750, 1000, 250},
		"fairshare": {0, 0, 0},
		"partition": {0, 0, 0},
		"qos":       {0, 0, 0},
		"tres":      {0, 0, 0},
		// The automatic tree: each user its own account, over the users
		// met so far (user 1 alone at 0; all three by 300).
		"normshares": {1, 1.0 / 3, 1.0 / 3},
	} {
		got := noteColumn(t, n, name)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-9 {
				t.Errorf("%s of job %d = %v; want %v", name, i+1, got[i], want[i])
			}
		}
	}
	want := [][]sdk.WaitSpell{nil, {{From: 60, Reason: "Resources"}}, {{From: 120, Reason: "Priority"}, {From: 300, Reason: "Resources"}}}
	if !reflect.DeepEqual(n.Waits, want) {
		t.Errorf("waits %v; want %v", n.Waits, want)
	}
	sc.Params["JobNotes"] = "false"
	if res := runNotes(t, sc); res.Notes != nil {
		t.Errorf("JobNotes = false: notes %v", res.Notes)
	}
}

// TestNotesLimitReasons: job 2 of TestLimitHolds waits from its
// submission at 1 to its start at 100 for the limit, named as squeue
// names it, the TRES over the limit included, in both scheduler modes.
func TestNotesLimitReasons(t *testing.T) {
	const flat, deep = "X(1, 3), Y(2)", "P(X(1), Z(3)), Y(2)"
	for _, c := range []struct {
		reason, accounts string
		params           map[string]string
		user2            int32
	}{
		{"QOSMaxJobsPerUserLimit", "", map[string]string{"MaxJobsPerUser": "1"}, 1},
		{"QOSMaxCpuPerUserLimit", "", map[string]string{"MaxTRESPerUser": "cpu=3"}, 1},
		{"QOSMaxNodePerUserLimit", "", map[string]string{"MaxTRESPerUser": "node=3"}, 1},
		{"QOSMaxNodePerUserLimit", "", map[string]string{"MaxTRESPerUser": "cpu=4,node=3"}, 1}, // cpu is not over
		{"MaxJobsPerAccount", flat, map[string]string{"MaxJobsPerAccount": "1"}, 3},
		{"MaxCpuPerAccount", flat, map[string]string{"MaxTRESPerAccount": "CPU=3"}, 3},
		{"AssocGrpJobsLimit", deep, map[string]string{"GrpJobs": "P=1"}, 3},
		{"AssocGrpCpuLimit", deep, map[string]string{"GrpTRES": "P=cpu=3"}, 3},
		{"AssocGrpNodeLimit", deep, map[string]string{"GrpTRES": "P=node=3"}, 3},
	} {
		for mode := range limitModes {
			params := withMode(mode, c.params)
			params["Accounts"] = c.accounts
			sc := policytest.Scenario{Name: c.reason, Procs: 8, Params: params, Exact: true, Jobs: []policytest.Job{
				{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Procs: 2, User: 1},
				{ID: 2, Submit: 1, Runtime: 10, Walltime: 10, Procs: 2, User: c.user2},
				{ID: 3, Submit: 2, Runtime: 10, Walltime: 10, Procs: 2, User: 2},
			}}
			n := runNotes(t, sc).Notes
			want := [][]sdk.WaitSpell{nil, {{From: 1, Reason: c.reason}}, nil}
			if !reflect.DeepEqual(n.Waits, want) {
				t.Errorf("%s %v %s: waits %v; want %v", c.reason, c.params, mode, n.Waits, want)
			}
		}
	}
}

// TestNotesTrace checks the notes of multifactor with fair share, age and
// size on KTH-SP2 against what they must be: a job waits (has a reason
// from its submission) exactly when it did not start at once; its
// priority is the sum of its weighted factors, truncated; and JobNotes
// changes no record.
func TestNotesTrace(t *testing.T) {
	w := loadTrace(t, "../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz")
	params := map[string]string{"PriorityWeightFairshare": "10000", "PriorityWeightAge": "1000", "PriorityWeightJobSize": "1000"}
	cfg := sim.Config{Platform: sdk.SingleCluster("KTH-SP2", w.Procs), Jobs: w.Jobs, Params: params}
	res, err := sim.Run(context.Background(), Multifactor(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := res.Notes
	prio := noteColumn(t, n, "priority")
	waited, reasons := 0, map[string]int{}
	for i, r := range res.Records {
		submit := w.Jobs[i].Job.Submit
		ws := n.Waits[i]
		if (len(ws) > 0) != (r.Start > submit) || len(ws) > 0 && ws[0].From != submit {
			t.Fatalf("job %d: submitted %d, started %d, waits %v", w.Jobs[i].Job.ID, submit, r.Start, ws)
		}
		if len(ws) > 0 {
			waited++
		}
		for _, s := range ws {
			reasons[s.Reason]++
		}
		sum := 0.0
		for _, c := range n.Columns[1:7] {
			sum += c.Values[i]
		}
		if want := max(math.Floor(sum), 1); math.Abs(prio[i]-want) > 1e-6*want {
			t.Fatalf("job %d: priority %v, factors summing to %v", w.Jobs[i].Job.ID, prio[i], sum)
		}
	}
	t.Logf("%d of %d jobs waited; spells by reason %v", waited, len(res.Records), reasons)
	if waited == 0 || reasons["Priority"] == 0 || reasons["Resources"] == 0 {
		t.Errorf("waits %d, reasons %v: want both reasons on KTH-SP2", waited, reasons)
	}
	params["JobNotes"] = "false"
	off, err := sim.Run(context.Background(), Multifactor(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(off.Records, res.Records) || off.Notes != nil {
		t.Error("JobNotes changed the records")
	}
}

// TestNotesRequeued runs multifactor on random node platforms with random
// failures whose jobs are requeued: each job's spells start at its
// submission when it did not start then, and the time its Running spells
// cover is the time its runs that failures ended took (runs one after the
// other without a wait merge into one spell). CheckNotes, in the engine,
// checks the rest.
func TestNotesRequeued(t *testing.T) {
	requeued := 0
	for seed := range uint64(12) {
		sc := policytest.Random{Nodes: true, Jobs: 120}.Scenario(seed)
		in := sc.Inputs()
		outs := randomOutages(sc.Platform, seed, in[len(in)-1].Job.Submit+1)
		res, err := sim.Run(context.Background(), Multifactor(), sim.Config{Platform: sc.Platform, Jobs: in, Seed: sc.Seed,
			Outages: outs, Faults: sim.Faults{OnFailure: sim.FailRequeue}})
		if err != nil {
			t.Fatal(err)
		}
		ran := make([]int64, len(in))
		for _, a := range res.Attempts {
			ran[a.Index] += a.End - a.Start
		}
		for i, r := range res.Records {
			ws := res.Notes.Waits[i]
			if r.Start > in[i].Job.Submit && (len(ws) == 0 || ws[0].From != in[i].Job.Submit) {
				t.Fatalf("seed %d, job %d: submitted %d, started %d, spells %v", seed, in[i].Job.ID, in[i].Job.Submit, r.Start, ws)
			}
			running := int64(0)
			for k, w := range ws {
				if w.Reason != reasonRunning {
					continue
				}
				to := r.Start
				if k+1 < len(ws) {
					to = ws[k+1].From
				}
				running += to - w.From
			}
			if running != ran[i] {
				t.Fatalf("seed %d, job %d: Running spells of %d s, runs ended by failures of %d s (spells %v)", seed, in[i].Job.ID, running, ran[i], ws)
			}
			if ran[i] > 0 {
				requeued++
			}
		}
	}
	if requeued < 20 {
		t.Errorf("%d jobs requeued: the test tests too little", requeued)
	}
}
