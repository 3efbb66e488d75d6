package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results/cluster"
	"github.com/schedlab/schedlab/workload/swf"
)

// endingsRecords are the jobs of TestRulesByHand, of user 1 unless said:
//
//	limit  runtime  wait  ended before the limit  default rules
//	  600      600    10     0 s                  killed (at the limit)
//	  600      640    10   -40 s                  killed (at the limit)
//	  600      540    10    60 s                  killed (the tolerance's edge)
//	  600      539    10    61 s                  not killed (next window)
//	  600      480    10   120 s                  not killed (next window's edge)
//	  600      479    10   121 s                  not killed
//	  300      250    10    50 s                  not killed (limit not above 300 s)
//	  301      251    10    50 s                  killed (limit above 300 s)
//	  600        0  5000   never ran              left out of runtime, K_wall, wait
//	  600        0    -1   never ran, wait unknown
//
// User 2 has one job of limit 0 (unknown: no K_wall, never killed) and
// runtime 100.
func endingsRecords() []swf.Record {
	var recs []swf.Record
	for _, j := range [][3]int64{{600, 600, 10}, {600, 640, 10}, {600, 540, 10}, {600, 539, 10}, {600, 480, 10},
		{600, 479, 10}, {300, 250, 10}, {301, 251, 10}, {600, 0, 5000}, {600, 0, -1}} {
		recs = append(recs, rec(1, 1, j[0], j[1], j[2]))
	}
	return append(recs, rec(2, 1, 0, 100, 10))
}

func TestRulesByHand(t *testing.T) {
	// K_wall of user 1's eight jobs that ran.
	kWall := (600 + 640 + 540 + 539 + 480 + 479 + 250.0*600/300 + 251.0*600/301) / 600
	cases := []struct {
		name  string
		rules Rules
		want  Endings
		// killed lists the killed jobs by index; n is the number of
		// user 1's runtimes and K_wall values described, kWall their
		// mean; nWait and wait the waits'; neverRan the jobs Describe
		// counts as left out.
		killed      []int
		n, nWait    int
		kWall, wait float64
		neverRan    int
	}{
		{"default", DefaultRules(),
			Endings{Jobs: 11, Killed: 4, AtLimit: 2, NearLimit: 2, NearShortLimit: 1, NextWindow: 2, NeverRan: 2},
			[]int{0, 1, 2, 7}, 8, 8, kWall / 8, 10, 2},
		// No tolerance: nothing is near a limit; the jobs that never
		// ran are kept, with K_wall 0 and a wait of 5,000 s (the other's
		// is unknown).
		{"strict", StrictRules(),
			Endings{Jobs: 11, Killed: 2, AtLimit: 2, NeverRan: 2},
			[]int{0, 1}, 10, 9, kWall / 10, (8*10 + 5000.0) / 9, 0},
		// 120 s before any limit: 60 to 120 s before 600 s, and 50 s
		// before 300 and 301 s; 121 s before is the next window (120
		// to 240 s).
		{"120 s from 0 s", Rules{KilledBy: KilledByRuntime, LimitTolerance: 120, NeverRan: NeverRanExclude},
			Endings{Jobs: 11, Killed: 7, AtLimit: 2, NearLimit: 5, NextWindow: 1, NeverRan: 2},
			[]int{0, 1, 2, 3, 4, 6, 7}, 8, 8, kWall / 8, 10, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.rules.Check(); err != nil {
				t.Fatal(err)
			}
			jobs := FromSWF(endingsRecords())
			if got := c.rules.Apply(jobs); got != c.want {
				t.Errorf("endings %+v, want %+v", got, c.want)
			}
			var killed []int
			for i, j := range jobs {
				if j.Censored() {
					killed = append(killed, i)
				}
			}
			if !equalInts(killed, c.killed) {
				t.Errorf("killed %v, want %v", killed, c.killed)
			}
			var u1 Stats
			for _, s := range Describe(jobs, User) {
				if s.Value == "1" {
					u1 = s
				}
			}
			if u1.Jobs != 10 || u1.Censored != len(c.killed) || u1.NeverRan != c.neverRan {
				t.Errorf("user 1: %d jobs, %d censored, %d never ran; want 10, %d, %d", u1.Jobs, u1.Censored, u1.NeverRan, len(c.killed), c.neverRan)
			}
			k, w, r := u1.Params["k_wall"], u1.Params["wait"], u1.Params["runtime"]
			if k.N != c.n || math.Abs(k.Mean-c.kWall) > 1e-12 || w.N != c.nWait || math.Abs(w.Mean-c.wait) > 1e-9 || r.N != c.n {
				t.Errorf("K_wall n %d mean %v, wait n %d mean %v, runtime n %d; want %d %v, %d %v, %d", k.N, k.Mean, w.N, w.Mean, r.N,
					c.n, c.kWall, c.nWait, c.wait, c.n)
			}
			// Processors and T_lim keep every job: they were requested.
			if u1.Params["procs"].N != 10 || u1.Params["req_time"].N != 10 {
				t.Errorf("procs n %d, T_lim n %d, want 10", u1.Params["procs"].N, u1.Params["req_time"].N)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRulesState: with Slurm states, TIMEOUT decides under the default
// rules, whatever the runtime: a TIMEOUT 100 s before its limit is killed,
// a COMPLETED job past its limit is not (counted apart), a CANCELLED job
// that never ran is left out; a job without a state (an SWF-like record)
// goes by the runtime rule. --killed-by runtime ignores the states.
func TestRulesState(t *testing.T) {
	jobs := func() []Job {
		j := func(state string, req, run float64) Job {
			return Job{Factors: map[string]string{User: "u"}, Procs: 1, ReqTime: req, Runtime: run, Wait: 7, State: state,
				KEf1: math.NaN(), KEf2: math.NaN()}
		}
		return []Job{j("TIMEOUT", 3600, 3500), j("TIMEOUT", 3600, 3622), j("COMPLETED", 3600, 3600), j("COMPLETED", 3600, 3590),
			j("CANCELLED", 3600, 0), j("", 3600, 3570), j("", 3600, 3600)}
	}
	js := jobs()
	e := DefaultRules().Apply(js)
	want := Endings{Jobs: 7, WithState: 5, Killed: 4, Timeout: 2, OtherStateAtLimit: 1, AtLimit: 1, NearLimit: 1, NeverRan: 1}
	if e != want {
		t.Errorf("state: %+v, want %+v", e, want)
	}
	for i, k := range []bool{true, true, false, false, false, true, true} {
		if js[i].Killed != k {
			t.Errorf("state: job %d (%s, %v of %v) killed %v", i, js[i].State, js[i].Runtime, js[i].ReqTime, js[i].Killed)
		}
	}
	if !js[4].NeverRan || !math.IsNaN(param(js[4], "wait")) || param(js[3], "wait") != 7 {
		t.Errorf("the cancelled job that never ran: never ran %v, wait %v", js[4].NeverRan, param(js[4], "wait"))
	}
	lines := strings.Join(e.Lines(DefaultRules()), "\n")
	for _, s := range []string{"killed at their limit (censored): 4 of 7 jobs: of 5 with a state, 2 in state TIMEOUT (--killed-by state; 1 in another state reach their limit, not counted); of the 2 without, 1 with T_run >= T_lim, 1 more ending at most 60 s before a limit above 300 s",
		"never ran (T_run = 0): 1 jobs, left out of runtime, K_wall and wait (--never-ran exclude)"} {
		if !strings.Contains(lines, s) {
			t.Errorf("lines lack %q:\n%s", s, lines)
		}
	}
	r := DefaultRules()
	r.KilledBy = KilledByRuntime
	js = jobs()
	e = r.Apply(js)
	// 3500 is 100 s before: not killed; 3622, 3600 (twice) at or past;
	// 3590 and 3570 within 60 s.
	want = Endings{Jobs: 7, Killed: 5, AtLimit: 3, NearLimit: 2, NextWindow: 1, NeverRan: 1}
	if e != want {
		t.Errorf("runtime: %+v, want %+v", e, want)
	}
}

// TestRulesCheck: every setting out of its domain is refused, naming it.
func TestRulesCheck(t *testing.T) {
	for _, c := range []struct {
		edit func(*Rules)
		want string
	}{
		{func(r *Rules) { r.KilledBy = "exit" }, `killed-by "exit"`},
		{func(r *Rules) { r.LimitTolerance = -1 }, "limit-tolerance -1"},
		{func(r *Rules) { r.LimitTolerance = math.NaN() }, "limit-tolerance NaN"},
		{func(r *Rules) { r.ToleranceMinLimit = math.Inf(1) }, "tolerance-min-limit +Inf"},
		{func(r *Rules) { r.NeverRan = "drop" }, `never-ran "drop"`},
	} {
		r := DefaultRules()
		c.edit(&r)
		if err := r.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %q", r, err, c.want)
		}
	}
	for _, a := range []Alarms{{KEf1: -0.1, KEf2: 0.5}, {KEf1: 0.5, KEf2: 1.5}, {KEf1: 0.5, KEf2: math.NaN()}} {
		if err := a.Check(); err == nil {
			t.Errorf("alarms %+v accepted", a)
		}
	}
}

// TestAlarmsPaperTable: paper 002's own table of programs (section 4,
// Табл. 2), mean K_ef2 and K_ef1. Its text calls P_11's high K_ef2 the
// alarm; no program has K_ef1 above 0.5, so the K_ef1 rule alone flags
// none. With the K_ef2 threshold at 0.5, P_11 alone is flagged, on K_ef2;
// any threshold from 0.40 (P_2's) up to 0.78 does the same.
func TestAlarmsPaperTable(t *testing.T) {
	table := []struct {
		name       string
		kef2, kef1 float64
	}{{"P_11", 0.78, 0.42}, {"P_2", 0.40, 0.06}, {"P_9", 0.21, 0.04}, {"P_16", 0.20, 0.06}, {"P_7", 0.04, 0.01}}
	var jobs []Job
	for _, p := range table {
		jobs = append(jobs, Job{Factors: map[string]string{App: p.name}, Procs: 1, ReqTime: 100, Runtime: 50, Wait: 0,
			KEf1: p.kef1, KEf2: p.kef2})
	}
	flags := func(a Alarms) map[string]string {
		out := map[string]string{}
		for _, s := range Describe(jobs, App) {
			if f := a.Flag(s); f != "" {
				out[s.Value] = f
			}
		}
		return out
	}
	if got := flags(DefaultAlarms()); len(got) != 1 || got["P_11"] != "alarming (K_ef2)" {
		t.Errorf("default alarms flag %v, want P_11 on K_ef2 alone", got)
	}
	if got := flags(Alarms{KEf1: 0.5, KEf2: 1}); len(got) != 0 {
		t.Errorf("K_ef1 alone flags %v, want none (the paper's example passes)", got)
	}
	for _, x := range []float64{0.40, 0.779} {
		if got := flags(Alarms{KEf1: 0.5, KEf2: x}); len(got) != 1 || got["P_11"] == "" {
			t.Errorf("K_ef2 above %v flags %v, want P_11 alone", x, got)
		}
	}
	if got := flags(Alarms{KEf1: 0.4, KEf2: 0.39}); got["P_11"] != "alarming (K_ef2, K_ef1)" || got["P_2"] != "alarming (K_ef2)" || len(got) != 2 {
		t.Errorf("low thresholds flag %v", got)
	}
}

// TestFitModelNeverRan: a model leaves out the jobs that never ran, and
// its censored share follows the rules. Six jobs of one user, submitted
// at 0, 50, 200, 300, 450 and 500 s, with a limit of 1,000 s: three end
// 30 s before it, one at 500 s, one at 400 s, and the last never ran.
// Default rules: 5 jobs modelled, 3 killed (share 0.6), a mean gap of 450
// / 4 s (arrivals scaled to the mean). Strict: 6 jobs, none killed, 500 /
// 5 s.
func TestFitModelNeverRan(t *testing.T) {
	var recs []swf.Record
	for i, run := range []int64{970, 970, 970, 500, 400, 0} {
		r := rec(1, 1, 1000, run, 0)
		r.Submit = []int64{0, 50, 200, 300, 450, 500}[i]
		recs = append(recs, r)
	}
	c := Clusters{Factor: User, Values: []string{"1"}, Labels: []int{0}, Result: cluster.Result{K: 1}}
	for _, x := range []struct {
		rules    Rules
		jobs     int
		censored float64
		gap      float64
	}{{DefaultRules(), 5, 0.6, 112.5}, {StrictRules(), 6, 0, 100}} {
		jobs := FromSWF(recs)
		x.rules.Apply(jobs)
		m, err := FitModel(jobs, c, 1, "hand", "", ArrivalsMean)
		if err != nil {
			t.Fatal(err)
		}
		d, err := m.Arrival.fit().Dist(nil)
		if err != nil {
			t.Fatal(err)
		}
		if m.Jobs != x.jobs || math.Abs(m.Classes[0].Censored-x.censored) > 1e-12 || math.Abs(d.Mean()-x.gap) > 1e-9 {
			t.Errorf("%+v: model of %d jobs, censored %v, mean gap %v; want %d, %v, %v", x.rules, m.Jobs, m.Classes[0].Censored, d.Mean(), x.jobs, x.censored, x.gap)
		}
	}
}
