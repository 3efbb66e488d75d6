package backfill

import (
	"maps"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
)

// newMultifactor makes a multifactor policy with params on a pool of
// procs processors, initialised.
func newMultifactor(t *testing.T, procs int64, params map[string]string) *multifactor {
	t.Helper()
	p, err := initMultifactor(sdk.SingleCluster("m", procs), params)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func initMultifactor(plat *sdk.Platform, params map[string]string) (*multifactor, error) {
	ps, err := sdk.ResolveParams(Multifactor().Info.Params, params)
	if err != nil {
		return nil, err
	}
	p := Multifactor().New().(*multifactor)
	return p, p.Init(sdk.Env{Platform: plat, Params: ps})
}

// docTree is the account tree of the example of Slurm's
// classic_fair_share.shtml (figure 3): accounts A (40 shares) and D (60);
// under A, B (30) with user 1 and C (10) with users 2 and 3 (one share
// each); under D, E (25) with user 4 and F (35) with user 5.
const docTree = "A:40(B:30(1), C:10(2:1, 3:1)), D:60(E:25(4), F:35(5))"

// setUsage charges each user (1 to 5) its usage, with no decay.
func setUsage(tr *fsTree, usage map[int32]float64) {
	tr.reset()
	for u, x := range usage {
		tr.charge(tr.user(u), x)
	}
	tr.sum()
}

// TestClassicFairShareDocExample works the example of
// classic_fair_share.shtml: users 1, 2 and 4 used 0.2, 0.25 and 0.25 of the
// machine. The page's usages are fractions of the machine (30% of it
// charged to no association of the tree); Slurm normalizes by the root's
// usage, so the root's usage is set to the machine's, 100, here.
func TestClassicFairShareDocExample(t *testing.T) {
	tr, err := parseAccounts(docTree)
	if err != nil {
		t.Fatal(err)
	}
	tr.damp = 1
	setUsage(tr, map[int32]float64{1: 20, 2: 25, 4: 25})
	tr.nodes[0].usage = 100
	tr.calcClassic()
	byName := map[string]*fsNode{}
	for i := range tr.nodes {
		byName[tr.nodes[i].name] = &tr.nodes[i]
	}
	for _, c := range []struct {
		name         string
		share, efctv float64
		fs           float64
	}{
		// The page's effective usages and normalized shares.
		{"A", 0.4, 0.45, -1}, {"D", 0.6, 0.25, -1},
		{"B", 0.3, 0.3875, -1}, {"C", 0.1, 0.3, -1}, {"E", 0.25, 0.25, -1}, {"F", 0.35, 0.25 * 35 / 60, -1},
		// Its fair-share factors (to its 6 decimals).
		{"1", 0.3, 0.3875, 0.408479}, {"2", 0.05, 0.275, 0.022097}, {"3", 0.05, 0.15, 0.125},
		{"4", 0.25, 0.25, 0.5}, {"5", 0.35, 0.25 * 35 / 60, 0.749154},
	} {
		n := byName[c.name]
		if math.Abs(n.sharesNorm-c.share) > 1e-12 || math.Abs(n.efctv-c.efctv) > 1e-12 {
			t.Errorf("%s: S = %g, UE = %g; want %g, %g", c.name, n.sharesNorm, n.efctv, c.share, c.efctv)
		}
		if c.fs >= 0 && math.Abs(n.fs-c.fs) > 5e-7 {
			t.Errorf("user %s: F = %.6f; want %.6f", c.name, n.fs, c.fs)
		}
	}
}

// TestFairTree works Fair Tree (fair_tree.shtml) by hand on the same tree,
// with usage 20, 25, 0, 25, 0 for users 1 to 5 (root 70). Root level: A
// has S = 0.4, U = 45/70, LF = 0.622; D has S = 0.6, U = 25/70, LF = 1.68:
// D first. Under D: F (S = 35/60, U = 0, LF = +Inf) before E (S = 25/60,
// U = 1): user 5 gets rank 5, user 4 rank 4. Under A: B (S = 0.75, U =
// 20/45, LF = 1.69) before C (S = 0.25, U = 25/45, LF = 0.45): user 1
// rank 3; under C, user 3 (U = 0) rank 2 before user 2 (U = 1, LF = 0.5)
// rank 1. Factors are rank / 5.
func TestFairTree(t *testing.T) {
	tr, err := parseAccounts(docTree)
	if err != nil {
		t.Fatal(err)
	}
	tr.fairTree = true
	fs := func() map[int32]float64 {
		tr.calc()
		out := map[int32]float64{}
		for u, k := range tr.users {
			out[u] = tr.nodes[k].fs
		}
		return out
	}
	setUsage(tr, map[int32]float64{1: 20, 2: 25, 4: 25})
	if got, want := fs(), map[int32]float64{5: 1, 4: 0.8, 1: 0.6, 3: 0.4, 2: 0.2}; !maps.Equal(got, want) {
		t.Errorf("factors %v; want %v", got, want)
	}
	// Ties: without usage every LF is +Inf, every account ties with its
	// siblings (children merged) and every user with the others: all rank
	// 5, factor 1.
	setUsage(tr, nil)
	if got, want := fs(), map[int32]float64{1: 1, 2: 1, 3: 1, 4: 1, 5: 1}; !maps.Equal(got, want) {
		t.Errorf("without usage: factors %v; want %v", got, want)
	}
	// Users 2 and 3 used the same: they tie (LF 1 each under C); user 1
	// is alone under B (LF 1 under B). Root: A (U = 1, LF 0.4) after D
	// (U = 0): D's users 5, 4 tie at rank 5 (F and E tie at +Inf and are
	// merged); then B (S 0.75, U 1/3, LF 2.25) before C (0.25, 2/3, LF
	// 0.375): user 1 rank 3, users 2 and 3 rank 2.
	setUsage(tr, map[int32]float64{1: 10, 2: 10, 3: 10})
	if got, want := fs(), map[int32]float64{5: 1, 4: 1, 1: 0.6, 2: 0.4, 3: 0.4}; !maps.Equal(got, want) {
		t.Errorf("tied users: factors %v; want %v", got, want)
	}
	// A user tied with a sibling account shares the rank of that
	// account's first user.
	tu, err := parseAccounts("X(1, Y(2, 3))")
	if err != nil {
		t.Fatal(err)
	}
	tu.fairTree = true
	setUsage(tu, map[int32]float64{1: 10, 2: 5, 3: 5})
	// Under X: user 1 S 0.5, U 0.5, LF 1; Y S 0.5, U 0.5, LF 1: tied, user
	// first, rank 3; Y tied: its first user (2 and 3 tie at LF 1) rank 3.
	tu.calc()
	for u, want := range map[int32]float64{1: 1, 2: 1, 3: 1} {
		if got := tu.nodes[tu.users[u]].fs; got != want {
			t.Errorf("user %d tied with an account: factor %g; want %g", u, got, want)
		}
	}
}

// TestAgeFactor: age = min(wait / PriorityMaxAge, 1), times its weight,
// the priority truncated to an integer and at least 1.
func TestAgeFactor(t *testing.T) {
	p := newMultifactor(t, 100, map[string]string{"PriorityWeightAge": "1000", "PriorityMaxAge": "1:00:00"})
	j := &sdk.Job{Submit: 100, Walltime: 60, Request: sdk.Vector{1}}
	for _, c := range []struct{ at, want int64 }{
		{100, 1}, {100 + 1800, 500}, {100 + 1801, 500}, {100 + 3600, 1000}, {100 + 7200, 1000}, {100 + 1e6, 1000},
	} {
		if got := p.priority(j, c.at); got != float64(c.want) {
			t.Errorf("at %d: priority %g; want %d", c.at, got, c.want)
		}
	}
}

// TestJobSizeFactor: on a pool of 100 processors (each a node), a job of
// n processors has factor (n/100 + n/100)/2 = n/100, and with
// PriorityFavorSmall ((100-n)/100 + (100-n)/100)/2; a one-processor job
// gets 0.99 there, not the 1.0 the documentation says, as Slurm's code
// gives (the node term is (nodes - min_nodes) / nodes).
func TestJobSizeFactor(t *testing.T) {
	for _, c := range []struct {
		small string
		procs int64
		want  float64
	}{
		{"NO", 10, 100}, {"NO", 100, 1000}, {"NO", 1, 10},
		{"YES", 10, 900}, {"YES", 1, 990}, {"YES", 100, 1},
	} {
		p := newMultifactor(t, 100, map[string]string{"PriorityWeightJobSize": "1000", "PriorityFavorSmall": c.small})
		j := &sdk.Job{Walltime: 60, Request: sdk.Vector{c.procs}}
		if got := p.priority(j, 0); got != c.want {
			t.Errorf("favor small %s, %d processors: priority %g; want %g", c.small, c.procs, got, c.want)
		}
	}
	// SMALL_RELATIVE_TO_TIME: max(n, n) / minutes / 100: 50 processors for
	// 5 minutes give 0.1.
	p := newMultifactor(t, 100, map[string]string{"PriorityWeightJobSize": "1000", "PriorityFlags": "SMALL_RELATIVE_TO_TIME"})
	if got := p.priority(&sdk.Job{Walltime: 300, Request: sdk.Vector{50}}, 0); got != 100 {
		t.Errorf("small relative to time: priority %g; want 100", got)
	}
	// On nodes: 10 nodes of 8 cores; 2 nodes and 16 cores give (2/10 +
	// 16/80)/2 = 0.2.
	plat := sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "g", Count: 10, Cores: 8}}, nil, "")
	pn, err := initMultifactor(plat, map[string]string{"PriorityWeightJobSize": "1000"})
	if err != nil {
		t.Fatal(err)
	}
	if got := pn.priority(&sdk.Job{Walltime: 60, Request: sdk.Vector{16}, Tasks: &sdk.Tasks{Count: 2, Cores: 8, Nodes: 2}}, 0); got != 200 {
		t.Errorf("on nodes: priority %g; want 200", got)
	}
}

// TestDecay: usage charged, then left for one PriorityDecayHalfLife, is
// multiplied by Slurm's (1 - 0.693/half-life)^half-life, which is 0.50004
// for a half-life of an hour (Slurm's 0.693 for ln 2); a job running
// across calculations is charged at each for the time since the last,
// run_delta x D^run_delta x cpus; DAILY resets usage at multiples of a
// day.
func TestDecay(t *testing.T) {
	p := newMultifactor(t, 100, map[string]string{"PriorityDecayHalfLife": "1:00:00", "PriorityCalcPeriod": "1",
		"PriorityUsageResetPeriod": "DAILY"})
	d := 1 - 0.693/3600
	job := &sdk.Job{Index: 0, ID: 1, User: 7, Request: sdk.Vector{10}, Walltime: 600}
	usage := func() float64 {
		k := p.tree.users[7]
		return p.tree.stored[k] * p.tree.scale
	}
	if err := p.account(&sdk.State{Now: 0}); err != nil {
		t.Fatal(err)
	}
	p.running = append(p.running, mfRun{idx: 0, node: p.tree.user(7), cpus: 10, start: 0})
	// At 90: the calculation at 60 charged 60 x d^60 x 10.
	if err := p.account(&sdk.State{Now: 90}); err != nil {
		t.Fatal(err)
	}
	want := 60 * math.Pow(d, 60) * 10
	if got := usage(); math.Abs(got-want) > 1e-9*want {
		t.Fatalf("after one period: usage %g; want %g", got, want)
	}
	// It ends at 100, charged then 40 x d^40 x 10; the calculation at 120
	// decays all usage over the 60 s since the last, that charge too (as
	// Slurm's decay thread does: it multiplies every usage by d^60).
	if err := p.account(&sdk.State{Now: 120, Completed: []sdk.Completion{{Job: job, Start: 0, End: 100}}}); err != nil {
		t.Fatal(err)
	}
	want = (want + 40*math.Pow(d, 40)*10) * math.Pow(d, 60)
	if got := usage(); math.Abs(got-want) > 1e-9*want {
		t.Fatalf("after its end: usage %g; want %g", got, want)
	}
	// One half-life later.
	if err := p.account(&sdk.State{Now: 120 + 3600}); err != nil {
		t.Fatal(err)
	}
	ratio := usage() / want
	if math.Abs(ratio-math.Pow(d, 3600)) > 1e-9 || math.Abs(ratio-0.5) > 1e-3 {
		t.Errorf("one half-life: usage x %.6f; want d^3600 = %.6f, about 0.5", ratio, math.Pow(d, 3600))
	}
	// The reset at 86400.
	if err := p.account(&sdk.State{Now: 86400 + 30}); err != nil {
		t.Fatal(err)
	}
	if got := usage(); got != 0 {
		t.Errorf("after the daily reset: usage %g; want 0", got)
	}
}

// TestFairShareOrders: user 1 runs a long job alone; when it ends, user 1
// and user 2 each have a job waiting for the whole machine, user 1's
// submitted first: fair share starts user 2's first, in both algorithms;
// without the fair-share weight, submit order.
func TestFairShareOrders(t *testing.T) {
	jobs := []policytest.Job{
		{ID: 1, Submit: 0, Runtime: 1000, Walltime: 1000, Procs: 8, User: 1},
		{ID: 2, Submit: 10, Runtime: 100, Walltime: 100, Procs: 8, User: 1},
		{ID: 3, Submit: 20, Runtime: 100, Walltime: 100, Procs: 8, User: 2},
	}
	for _, flags := range []string{"", "NO_FAIR_TREE"} {
		policytest.Run(t, Multifactor(), policytest.Scenario{
			Name: "fair share " + flags, Procs: 8, Jobs: jobs,
			Params: map[string]string{"PriorityWeightFairshare": "1000", "PriorityFlags": flags, "PriorityCalcPeriod": "1"},
			Want:   []policytest.Start{{ID: 1, At: 0}, {ID: 3, At: 1000}, {ID: 2, At: 1100}},
		})
	}
	policytest.Run(t, Multifactor(), policytest.Scenario{
		Name: "no fair share", Procs: 8, Jobs: jobs,
		Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 1000}, {ID: 3, At: 1100}},
	})
}

// TestMultifactorDegenerates: with every weight 0, or only the age
// weight (and no decay, which it does not read), every priority is equal
// or decreases with the submit time, so the order is submit order and the
// schedule EASY's in submit order, record for record.
func TestMultifactorDegenerates(t *testing.T) {
	for _, params := range []map[string]string{
		nil,
		{"PriorityWeightAge": "1000", "PriorityDecayHalfLife": "0"},
		{"PriorityWeightAge": "100000", "PriorityMaxAge": "2", "PriorityCalcPeriod": "0"},
	} {
		for seed := range uint64(6) {
			sc := policytest.Random{Procs: 32, Exact: seed%2 == 0}.Scenario(seed)
			want, err := policytest.Simulate(EASY(), sc)
			if err != nil {
				t.Fatal(err)
			}
			sc.Params = params
			got, err := policytest.Simulate(Multifactor(), sc)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%v, seed %d: the schedule differs from EASY's in submit order", params, seed)
			}
		}
	}
}

// TestMultifactorInvariants: every schedule passes the host's
// verification, on pools and nodes, in both algorithms, with every factor.
func TestMultifactorInvariants(t *testing.T) {
	all := map[string]string{"PriorityWeightAge": "1000", "PriorityWeightFairshare": "10000", "PriorityWeightJobSize": "1000",
		"PriorityWeightPartition": "1000", "PriorityWeightQOS": "500", "PriorityMaxAge": "10", "PriorityDecayHalfLife": "30",
		"PriorityCalcPeriod": "1", "QOSPriority": "0=1,1=3", "PriorityJobFactor": "0=5",
		"PriorityWeightTRES": "CPU=100,Mem=200,GRES/gpu=300", "TRESBillingWeights": "CPU=1,Mem=0.5G,GRES/gpu=4"}
	for _, flags := range []string{"", "NO_FAIR_TREE", "NO_FAIR_TREE,SMALL_RELATIVE_TO_TIME,MAX_TRES"} {
		params := maps.Clone(all)
		params["PriorityFlags"] = flags
		for seed := range uint64(4) {
			policytest.Check(t, Multifactor(), policytest.Random{Procs: 32, Params: params}.Scenario(seed))
			policytest.Check(t, Multifactor(), policytest.Random{Nodes: true, Jobs: 100, Params: params}.Scenario(seed))
		}
	}
	batsched := maps.Clone(all)
	batsched["reservation"] = ReservationBatsched
	for seed := range uint64(3) {
		policytest.Check(t, Multifactor(), policytest.Random{Nodes: true, Jobs: 100, Params: batsched}.Scenario(seed))
	}
	policytest.NoStateBetweenRuns(t, Multifactor(), policytest.Random{Params: all}.Scenario(1),
		policytest.Random{Procs: 16, Params: all}.Scenario(2))
}

// TestMultifactorBadParams: what Init refuses, saying which parameter.
func TestMultifactorBadParams(t *testing.T) {
	for _, c := range []struct {
		params map[string]string
		want   string
	}{
		{map[string]string{"Accounts": "A:0(1)"}, "shares of A: 0; shares must be positive"},
		{map[string]string{"Accounts": "A:-3(1)"}, "shares of A: -3; shares must be positive"},
		{map[string]string{"Accounts": "A(1:0)"}, "shares of 1: 0"},
		{map[string]string{"Accounts": "A(1), B(1)"}, "user 1 declared twice"},
		{map[string]string{"Accounts": "A(1), 1"}, "user 1 declared twice"},
		{map[string]string{"Accounts": "A(1:none)"}, `shares of 1: "none" is neither an integer nor parent`},
		{map[string]string{"Accounts": "A(1"}, "want ) closing account A"},
		{map[string]string{"PriorityMaxAge": "7days"}, "PriorityMaxAge: \"7days\" is not a Slurm time"},
		{map[string]string{"PriorityFlags": "FAIR_TREEE"}, "PriorityFlags: \"FAIR_TREEE\" is not a flag"},
		{map[string]string{"PriorityUsageResetPeriod": "MONTHLY"}, "calendar months are not modelled"},
		{map[string]string{"PriorityWeightAge": "-1"}, "PriorityWeightAge = -1"},
		{map[string]string{"PriorityFavorSmall": "maybe"}, "want YES or NO"},
		{map[string]string{"QOSPriority": "1:2"}, "QOSPriority: \"1:2\": want NUMBER=VALUE"},
	} {
		_, err := initMultifactor(sdk.SingleCluster("m", 8), c.params)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v; want one saying %q", c.params, err, c.want)
		}
	}
	for s, want := range map[string]int64{"5": 300, "1:30": 90, "1:00:00": 3600, "7-0": 7 * 86400, "1-2:03": 86400 + 7200 + 180, "0-0:0:7": 7} {
		if got, err := slurmTime(s); err != nil || got != want {
			t.Errorf("slurmTime(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	// A job of a user outside the declared tree fails the run.
	_, err := policytest.Simulate(Multifactor(), policytest.Scenario{Procs: 4, Params: map[string]string{"Accounts": "A(1)"},
		Jobs: []policytest.Job{{ID: 1, Walltime: 10, Runtime: 10, Procs: 1, User: 2}}})
	if err == nil || !strings.Contains(err.Error(), "user 2 is in no account") {
		t.Errorf("a user outside the tree: error %v", err)
	}
}

// TestTRES: the billing examples of Slurm's tres.shtml, and the TRES
// factors of the priority.
func TestTRES(t *testing.T) {
	const gib = 1 << 30
	plat := sdk.NodesPlatform("n", []sdk.NodeGroup{{Name: "g", Count: 4, Cores: 16, Memory: 64 * gib, GPUs: 2}}, nil, "")
	for _, c := range []struct {
		weights, flags string
		cpus, mem      int64
		want           float64
	}{
		// TRESBillingWeights=CPU=1.0,Mem=0.25G on 16-CPU, 64 GiB nodes
		// (priority_multifactor.shtml): Job1 (1 CPU, 60 GiB) 16, Job2 (16
		// CPUs, 1 GiB) 16.25, Job3 (16, 60) 31. With MAX_TRES the page
		// gives 15, 15 and 16, but writes Job2 with 15 CPUs and Job3 with
		// 64 GiB: Job1 15, Job2 as sized above 16, Job3 as the page
		// writes it 16.
		{"CPU=1.0,Mem=0.25G", "", 1, 60, 16}, {"CPU=1.0,Mem=0.25G", "", 16, 1, 16.25}, {"CPU=1.0,Mem=0.25G", "", 16, 60, 31},
		{"CPU=1.0,Mem=0.25G", "MAX_TRES", 1, 60, 15}, {"CPU=1.0,Mem=0.25G", "MAX_TRES", 16, 1, 16}, {"CPU=1.0,Mem=0.25G", "MAX_TRES", 16, 64, 16},
		// tres.shtml: mem=0.25 on 8 GiB bills 2048, mem=0.25G bills 2.
		{"mem=0.25", "", 0, 8, 2048}, {"mem=0.25G", "", 0, 8, 2},
		// Default: CPU=1.
		{"", "", 5, 60, 5},
	} {
		p, err := initMultifactor(plat, map[string]string{"TRESBillingWeights": c.weights, "PriorityFlags": c.flags})
		if err != nil {
			t.Fatal(err)
		}
		v := make(sdk.Vector, plat.Dims())
		v[0], v[p.mem] = c.cpus, c.mem*gib
		if got := p.cfg.bill.dot(p.amounts(v, 1), p.cfg.maxTRES); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s %s, %d CPUs and %d GiB: billed %g; want %g", c.weights, c.flags, c.cpus, c.mem, got, c.want)
		}
	}
	// PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000,Node=400 on 4
	// nodes of 16 cores, 64 GiB and 2 GPUs: a job of 16 cores, 64 GiB, 1
	// GPU on 2 nodes has factors 16/64, 64/256, 1/8, 2/4: 250 + 500 + 375
	// + 200 = 1325.
	p, err := initMultifactor(plat, map[string]string{"PriorityWeightTRES": "CPU=1000,Mem=2000,GRES/gpu=3000,Node=400"})
	if err != nil {
		t.Fatal(err)
	}
	v := make(sdk.Vector, plat.Dims())
	v[0], v[p.mem], v[p.gpu] = 16, 64*gib, 1
	j := &sdk.Job{Walltime: 60, Request: v, Tasks: &sdk.Tasks{Count: 2, Cores: 8, Memory: 32 * gib, Nodes: 2}}
	if got := p.priority(j, 0); got != 1325 {
		t.Errorf("TRES factors: priority %g; want 1325", got)
	}
	for _, bad := range []map[string]string{{"PriorityWeightTRES": "license/x=3"}, {"TRESBillingWeights": "CPU=lots"}} {
		if _, err := initMultifactor(plat, bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestMultifactorAcceptance runs the plugin binary through the real
// protocol against the policy linked in (skipped with -short).
func TestMultifactorAcceptance(t *testing.T) {
	ps := map[string]string{"PriorityWeightAge": "1000", "PriorityWeightFairshare": "10000", "PriorityDecayHalfLife": "30",
		"PriorityCalcPeriod": "1", "Accounts": "A:2(0, 1), B:1(2, 3:3)"}
	slurm := maps.Clone(ps)
	slurm["SchedulerType"], slurm["SchedulerParameters"] = SchedBackfill, "bf_interval=7,sched_interval=20"
	// With limits, some jobs rejected (MaxWall) and some held.
	limited := maps.Clone(ps)
	limited["MaxJobsPerUser"], limited["GrpTRES"], limited["MaxWall"] = "2", "A=cpu=40", "1=2:00"
	policytest.Acceptance(t, Multifactor(), "github.com/schedlab/schedlab/plugins/multifactor",
		policytest.Random{Params: ps}.Scenario(3), policytest.Random{Exact: true, Params: slurm}.Scenario(4),
		policytest.Random{Params: limited}.Scenario(5))
}

// TestSlurmTestsuiteClassic replays Slurm's own test of classic fair share
// (testsuite/expect/test24.1 and test24.1.prog.c at 284c3b9): the tree of
// classic_fair_share.shtml with an account G of 0 shares whose user 6 used
// 30, which makes the root's usage 100 and the page's usages normalized;
// the expected normalized shares, normalized and effective usages and
// factors are the test's (sshare's 6 decimals).
func TestSlurmTestsuiteClassic(t *testing.T) {
	tr, err := parseAccountsWith("A:40(B:30(1), C:10(2:1, 3:1)), D:60(E:25(4), F:35(5)), G:0(6:0)", true)
	if err != nil {
		t.Fatal(err)
	}
	tr.damp = 1
	setUsage(tr, map[int32]float64{1: 20, 2: 25, 3: 0, 4: 25, 5: 0, 6: 30})
	tr.calcClassic()
	for u, want := range map[int32][4]float64{
		1: {0.3, 0.2, 0.3875, 0.408479}, 2: {0.05, 0.25, 0.275, 0.022097}, 3: {0.05, 0, 0.15, 0.125},
		4: {0.25, 0.25, 0.25, 0.5}, 5: {0.35, 0, 0.145833, 0.749154}, 6: {0, 0.3, -1, 0},
	} {
		n := &tr.nodes[tr.users[u]]
		un := n.usage / tr.nodes[0].usage
		if ns := tr.normShares(tr.users[u]); math.Abs(ns-want[0]) > 5e-7 {
			t.Errorf("user %d: normShares %.6f; want %.6f", u, ns, want[0])
		}
		got := [4]float64{n.sharesNorm, un, n.efctv, n.fs}
		for i := range got {
			if want[i] >= 0 && math.Abs(got[i]-want[i]) > 5e-7 {
				t.Errorf("user %d: S, UN, UE, F = %.6f; want %.6f", u, got, want)
				break
			}
		}
	}
}

// TestSlurmTestsuiteFairTree replays Slurm's own test of Fair Tree
// (testsuite/expect/test24.4 and test24.4.prog.c at 284c3b9): 21 users,
// two of them under the root, accounts and users of 0 shares and with
// FairShare=parent, ties between users, between a user and accounts and
// between accounts; the expected factors (rank / 21) and level fair
// shares are the test's. Users are numbered here: u1 1, u2 2, uAA1 11,
// uAB1 12, uAB2 13, uBA1 21, uBB1 22, uC1 31, uD1 41, uD2 42, uD3 43,
// uDA1 44, uDA2 45, uDA3 46, aE1 51, aE2 52, uF1 61, uF2 62, uG1 71,
// uGA1 72, uGA2 73.
func TestSlurmTestsuiteFairTree(t *testing.T) {
	tr, err := parseAccountsWith("1:10, 2:10, aA:40(aAA:30(11:1), aAB:10(12:1, 13:1)), aB:60(aBA:25(21:1), aBB:35(22:1)), "+
		"aC:0(31:0), aD:50(aDA:parent(44:parent, 45:30, 46:50), 41:parent, 42:40, 43:50), aE:10(51:10, 52:10), "+
		"aF:20(61:10, 62:20), aG:8(71:10, aGA:10(72:20, 73:20))", true)
	if err != nil {
		t.Fatal(err)
	}
	tr.fairTree = true
	setUsage(tr, map[int32]float64{2: 10, 11: 20, 12: 25, 21: 25, 31: 30, 44: 10, 45: 10, 46: 25, 41: 20, 42: 20, 43: 25,
		71: 10, 72: 4, 73: 6})
	tr.calc()
	if got := tr.nodes[0].usage; got != 240 {
		t.Fatalf("root usage %g; want 240", got)
	}
	for u, want := range map[int32]float64{
		1: 1, 2: 0.666667, 11: 0.619048, 12: 0.523810, 13: 0.571429, 21: 0.714286, 22: 0.761905, 31: 0.047619,
		41: 0.476190, 42: 0.238095, 43: 0.333333, 44: 0.476190, 45: 0.380952, 46: 0.333333,
		51: 1, 52: 1, 61: 1, 62: 1, 71: 0.190476, 72: 0.190476, 73: 0.095238,
	} {
		if got := tr.nodes[tr.users[u]].fs; math.Abs(got-want) > 5e-7 {
			t.Errorf("user %d: factor %.6f; want %.6f", u, got, want)
		}
	}
	lf := map[string]float64{}
	for i := range tr.nodes {
		lf[tr.nodes[i].name] = tr.nodes[i].levelFS
	}
	for name, want := range map[string]float64{"2": 1.153846, "aA": 1.025641, "aAA": 1.6875, "12": 0.5, "aB": 2.769231,
		"aBA": 0.416667, "aC": 0, "aD": 0.524476, "42": 1.294118, "45": 1.941176, "aG": 0.461538, "72": 1.25, "73": 0.833333} {
		if got := lf[name]; math.Abs(got-want) > 5e-7 {
			t.Errorf("%s: level fair share %.6f; want %.6f", name, got, want)
		}
	}
	for _, name := range []string{"1", "aE", "13", "22"} {
		if !math.IsInf(lf[name], 1) {
			t.Errorf("%s: level fair share %g; want +Inf (no usage)", name, lf[name])
		}
	}
	// The target shares (NormShares) of this tree, FairShare=parent
	// included, are the classic algorithm's S, whichever algorithm runs.
	tr.calcClassic()
	for u, k := range tr.users {
		if got, want := tr.normShares(k), tr.nodes[k].sharesNorm; math.Abs(got-want) > 1e-12 {
			t.Errorf("user %d: normShares %g; classic S %g", u, got, want)
		}
	}
}
