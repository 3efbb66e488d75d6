package analysis

import (
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results/cluster"
	"github.com/schedlab/schedlab/results/fit"
	"github.com/schedlab/schedlab/workload/swf"
)

func rec(user, procs, req, run, wait int64) swf.Record {
	return swf.Record{User: user, Group: -1, App: -1, Queue: 1, Partition: -1,
		ReqProcs: procs, AllocProcs: procs, ReqTime: req, RunTime: run, Wait: wait}
}

// TestDescribeByHand: user 1 has two jobs (2 x 100 s and 4 x 50 s, work
// 400), user 2 one job killed at its limit (1 x 600 s of 600, work 600).
func TestDescribeByHand(t *testing.T) {
	jobs := FromSWF([]swf.Record{rec(1, 2, 200, 100, 10), rec(1, 4, 100, 50, 30), rec(2, 1, 600, 600, -1)})
	st := Describe(jobs, User)
	if len(st) != 2 || st[0].Value != "2" || st[1].Value != "1" {
		t.Fatalf("order %+v", st)
	}
	u2, u1 := st[0], st[1]
	if u2.WorkShare != 0.6 || u1.WorkShare != 0.4 || math.Abs(u1.Share-2.0/3) > 1e-15 {
		t.Errorf("work share %v %v, share %v", u2.WorkShare, u1.WorkShare, u1.Share)
	}
	if u2.Censored != 1 || u1.Censored != 0 {
		t.Errorf("censored %d %d", u2.Censored, u1.Censored)
	}
	if k := u1.Params["k_wall"]; k.N != 2 || k.Mean != 0.5 {
		t.Errorf("k_wall %+v", k)
	}
	if w := u2.Params["wait"]; w.N != 0 {
		t.Errorf("unknown wait counted: %+v", w)
	}
	if m := u1.Params["wait"].Mean; m != 20 {
		t.Errorf("mean wait %v", m)
	}
	if q := u1.Quantiles["procs"]; q[2] != 3 { // median of 2 and 4
		t.Errorf("procs quantiles %v", q)
	}
	// Queue: every job has queue 1.
	if q := Describe(jobs, Queue); len(q) != 1 || q[0].Jobs != 3 || q[0].Share != 1 {
		t.Errorf("queue %+v", q)
	}
	// Group is unknown everywhere: one "" value.
	if g := Describe(jobs, Group); len(g) != 1 || g[0].Value != "" {
		t.Errorf("group %+v", g)
	}
}

// TestClusterFeatures: which measures Cluster clusters on. Four users:
// 1 and 2 submit nine jobs of one processor each, 3 and 4 one job of 64
// processors each, every job 50 s. By share of jobs (the paper's A) 1 and
// 2 stand out (9/20 against 1/20); by share of processor-seconds 3 and 4
// do (3,200 against 450 of 7,300). Nodes, where the log records them
// (here 1 for the small jobs, 8 for user 3's and 16 for user 4's, not in
// proportion to the processors), replace processors as R1 unless the
// setting says processors. The coordinates Cluster standardised must be
// those raw values.
func TestClusterFeatures(t *testing.T) {
	var recs []swf.Record
	for range 9 {
		recs = append(recs, rec(1, 1, 100, 50, 0), rec(2, 1, 100, 50, 0))
	}
	recs = append(recs, rec(3, 64, 100, 50, 0), rec(4, 64, 100, 50, 0))
	swfJobs := FromSWF(recs)
	withNodes := FromSWF(recs)
	nodes := map[string]float64{"1": 1, "2": 1, "3": 8, "4": 16}
	for i := range withNodes {
		withNodes[i].Nodes = nodes[withNodes[i].Factors[User]]
	}
	users := []string{"1", "2", "3", "4"}
	jobsShare := []float64{9.0 / 20, 9.0 / 20, 1.0 / 20, 1.0 / 20}
	workShare := []float64{450.0 / 7300, 450.0 / 7300, 3200.0 / 7300, 3200.0 / 7300}
	procs := []float64{1, 1, 64, 64}
	nodeMeans := []float64{1, 1, 8, 16}
	cases := []struct {
		name   string
		jobs   []Job
		feat   Features
		names  []string
		x0, x1 []float64 // the raw first and second features, by user
		err    bool
	}{
		{"paper, SWF", swfJobs, DefaultFeatures(), []string{"jobs_share", "procs", "req_time", "k_wall"}, jobsShare, procs, false},
		{"paper, nodes", withNodes, DefaultFeatures(), []string{"jobs_share", "nodes", "req_time", "k_wall"}, jobsShare, nodeMeans, false},
		{"work, processors", withNodes, Features{ActivityWork, ResourceProcs}, []string{"work_share", "procs", "req_time", "k_wall"}, workShare, procs, false},
		{"work, nodes", withNodes, Features{ActivityWork, ResourceNodes}, []string{"work_share", "nodes", "req_time", "k_wall"}, workShare, nodeMeans, false},
		{"nodes of a log without them", swfJobs, Features{ActivityJobs, ResourceNodes}, nil, nil, nil, true},
		{"unknown activity", swfJobs, Features{"cpu", ResourceAuto}, nil, nil, nil, true},
		{"unknown resource", swfJobs, Features{ActivityJobs, "gpus"}, nil, nil, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := Describe(tc.jobs, User)
			c, err := Cluster(st, tc.feat, 2, 3, rand.New(rand.NewPCG(1, 2)))
			if tc.err {
				if err == nil {
					t.Fatalf("accepted: %+v", c)
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Features, tc.names) {
				t.Errorf("features %v, want %v", c.Features, tc.names)
			}
			// The standardised coordinates are those of the raw values
			// worked out above (T_lim and K_wall are equal for all:
			// standardised to 0).
			raw := make([][]float64, len(users))
			for i := range users {
				raw[i] = []float64{tc.x0[i], tc.x1[i], 100, 0.5}
			}
			want, _, _, err := cluster.Standardize(raw)
			if err != nil {
				t.Fatal(err)
			}
			for i, u := range users {
				k := slices.Index(c.Values, u)
				if k < 0 {
					t.Fatalf("user %s not clustered: %v", u, c.Values)
				}
				for f := range 2 {
					if math.Abs(c.Points[k][f]-want[i][f]) > 1e-9 {
						t.Errorf("user %s, %s: %v, want %v", u, tc.names[f], c.Points[k][f], want[i][f])
					}
				}
			}
			// Users alike share a cluster: {1, 2} and {3, 4}.
			lab := map[string]int{}
			for i, v := range c.Values {
				lab[v] = c.Labels[i]
			}
			if lab["1"] != lab["2"] || lab["3"] != lab["4"] || lab["1"] == lab["3"] {
				t.Errorf("labels %v", lab)
			}
			// Per cluster: 18 jobs of 20 in the cluster of users 1 and 2.
			per := c.Describe(tc.jobs)
			if len(per) != 2 || per[0].Value != "0" || per[1].Value != "1" {
				t.Fatalf("clusters described: %+v", per)
			}
			small := per[lab["1"]]
			if small.Jobs != 18 || small.Share != 0.9 || small.Params["req_time"].Mean != 100 || small.Params["procs"].Mean != 1 {
				t.Errorf("cluster of users 1 and 2: %d jobs, share %v, T_lim %v, procs %v", small.Jobs, small.Share,
					small.Params["req_time"].Mean, small.Params["procs"].Mean)
			}
		})
	}
}

// TestKTH describes and clusters the users of the shipped KTH-SP2 log.
func TestKTH(t *testing.T) {
	r, err := swf.Open("../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []swf.Record
	for {
		rc, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rc)
	}
	jobs := FromSWF(recs)
	st := Describe(jobs, User)
	n, act := 0, 0.0
	for _, s := range st {
		n += s.Jobs
		act += s.WorkShare
	}
	if n != len(recs) || math.Abs(act-1) > 1e-9 || len(st) < 100 {
		t.Errorf("%d users, %d jobs of %d, activity sums to %v", len(st), n, len(recs), act)
	}
	c, err := Cluster(st, DefaultFeatures(), 8, 5, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if c.Result.K < 2 || len(c.Labels) != len(c.Values) || !(c.Result.Silhouette > 0) {
		t.Errorf("clusters: k %d, silhouette %v", c.Result.K, c.Result.Silhouette)
	}
	c2, _ := Cluster(st, DefaultFeatures(), 8, 5, rand.New(rand.NewPCG(1, 2)))
	if c2.Result.K != c.Result.K || c2.Result.WSS != c.Result.WSS {
		t.Error("clustering not deterministic given the seed")
	}
	t.Logf("KTH: %d users, k = %d, silhouette %.3f, sizes %v", len(st), c.Result.K, c.Result.Silhouette, c.Result.Sizes)
}

// TestFitParameters fits the clusters of KTH's users.
func TestFitParameters(t *testing.T) {
	r, err := swf.Open("../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []swf.Record
	for {
		rc, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rc)
	}
	jobs := FromSWF(recs)
	c, err := Cluster(Describe(jobs, User), DefaultFeatures(), 4, 3, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	fits, err := FitParameters(jobs, c, 19, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if len(fits) != 4*c.Result.K {
		t.Fatalf("%d fits for %d clusters", len(fits), c.Result.K)
	}
	total := map[string]int{}
	subsampled := 0
	for _, f := range fits {
		total[f.Param] += f.N + f.Dropped
		if f.N >= 10 && len(f.Fits) > 0 && (len(f.GoF) != len(f.Fits) || f.Fits[0].AIC > f.Fits[len(f.Fits)-1].AIC) {
			t.Errorf("%+v", f)
		}
		if len(f.KS) != len(f.Fits) || len(f.CvM) != len(f.Fits) {
			t.Errorf("%s cluster %d: %d fits, %d whole-sample KS, %d CvM", f.Param, f.Cluster, len(f.Fits), len(f.KS), len(f.CvM))
			continue
		}
		// The whole-sample statistics are those of all N values; the
		// tests' own are those of the subsample once N passes GoFSample.
		xs, _ := c.Sample(jobs, f.Cluster, f.Param)
		for i, ft := range f.Fits {
			if ks, cvm := fit.KS(xs, ft), fit.CvM(xs, ft); f.KS[i] != ks || f.CvM[i] != cvm {
				t.Errorf("%s cluster %d %s: whole-sample KS %v CvM %v, want %v %v", f.Param, f.Cluster, ft.Family, f.KS[i], f.CvM[i], ks, cvm)
			}
		}
		if f.N > GoFSample {
			subsampled++
			if f.GoFN != GoFSample || f.CvM[0] == f.GoF[0].CvM {
				t.Errorf("%s cluster %d: n %d tested %d, CvM all %v, tested %v", f.Param, f.Cluster, f.N, f.GoFN, f.CvM[0], f.GoF[0].CvM)
			}
		} else if f.N >= 10 && len(f.Fits) > 0 && (f.GoFN != f.N || f.KS[0] != f.GoF[0].KS) {
			t.Errorf("%s cluster %d: n %d tested %d, KS all %v, tested %v", f.Param, f.Cluster, f.N, f.GoFN, f.KS[0], f.GoF[0].KS)
		}
	}
	for p, n := range total {
		if n != len(jobs) {
			t.Errorf("%s: %d jobs accounted for, want %d", p, n, len(jobs))
		}
	}
	if subsampled == 0 {
		t.Error("no cluster of KTH's users has more values than GoFSample: the subsample case went untested")
	}
}

func TestKS2(t *testing.T) {
	if d := KS2([]float64{1, 2, 3, 4}, []float64{3, 4, 5, 6}); d != 0.5 {
		t.Errorf("KS2 = %v, want 0.5", d)
	}
	if d := KS2([]float64{1, 2}, []float64{1, 2}); d != 0 {
		t.Errorf("KS2 of equal samples = %v", d)
	}
}

// TestModelRoundTrip fits a model on KTH's users, writes and reads it, and
// generates a trace whose marginals are close to KTH's.
func TestModelRoundTrip(t *testing.T) {
	r, err := swf.Open("../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []swf.Record
	for {
		rc, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rc)
	}
	jobs := FromSWF(recs)
	c, err := Cluster(Describe(jobs, User), DefaultFeatures(), 6, 3, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := FitModel(jobs, c, 100, "KTH", "sha", ArrivalsMLE)
	if err != nil {
		t.Fatal(err)
	}
	// The arrival law scaled to the log's rate: the same family and shape,
	// its mean the log's span over its jobs less one.
	mm, err := FitModel(jobs, c, 100, "KTH", "sha", ArrivalsMean)
	if err != nil {
		t.Fatal(err)
	}
	// The model is of the jobs that ran: KTH's 8 jobs of runtime 0 are
	// left out (DefaultRules).
	var ran []swf.Record
	for _, r := range recs {
		if r.RunTime != 0 {
			ran = append(ran, r)
		}
	}
	if len(ran) != len(recs)-8 || m.Jobs != len(ran) || m.Endings != nil {
		t.Errorf("%d of %d jobs ran, model of %d jobs (endings %v: set by the command, not FitModel)", len(ran), len(recs), m.Jobs, m.Endings)
	}
	first, last := ran[0].Submit, ran[len(ran)-1].Submit
	d, err := mm.Arrival.fit().Dist(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(last-first) / float64(len(ran)-1); math.Abs(d.Mean()-want) > 1e-6*want || mm.Arrival.Family != m.Arrival.Family ||
		mm.ArrivalFit != ArrivalsMean || !(mm.ArrivalScale > 0 && mm.ArrivalScale < 1) {
		t.Errorf("arrivals scaled to the mean: mean %v (want %v), %s scaled by %v", d.Mean(), want, mm.Arrival.Family, mm.ArrivalScale)
	}
	if _, err := FitModel(jobs, c, 100, "KTH", "sha", "median"); err == nil {
		t.Error("arrivals = median was accepted")
	}
	path := t.TempDir() + "/model.toml"
	if err := m.Write(path); err != nil {
		t.Fatal(err)
	}
	m2, err := ReadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := m2.Generate(0, 0, rand.New(rand.NewPCG(5, 6)))
	if err != nil || len(gen) != len(ran) {
		t.Fatalf("%d jobs, %v", len(gen), err)
	}
	ks := Marginals(jobs, FromSWF(gen))
	t.Logf("KS distances real vs generated: %v", ks)
	for p, d := range ks {
		// Parametric laws miss the spikes of real logs (power-of-two
		// sizes, round requested times), so the distance is not small;
		// a broken generator would be far off (near 1).
		if !(d < 0.35) {
			t.Errorf("%s: KS distance %v", p, d)
		}
	}
	for _, j := range gen {
		if j.ReqProcs < 1 || j.ReqProcs > 100 || j.RunTime > j.ReqTime || j.RunTime < 1 {
			t.Fatalf("bad job %+v", j)
		}
	}
	// K_wall by requested time keeps the log's runtimes, which the laws
	// of K_wall, cut at 1 and drawn apart from T_lim, halve
	// (docs/reproductions/petunin-models.md: 4,192 and 8,348 s against
	// 8,875 with seed 1).
	meanRun := func(recs []swf.Record) float64 {
		var sum float64
		for _, r := range recs {
			sum += float64(r.RunTime)
		}
		return sum / float64(len(recs))
	}
	if err := mm.FitKWallByLimit(jobs, c); err != nil {
		t.Fatal(err)
	}
	byLimit, err := mm.Generate(0, 0, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range byLimit {
		if j.RunTime > j.ReqTime || j.RunTime < 1 {
			t.Fatalf("by limit: bad job %+v", j)
		}
	}
	logRun, lawRun, limitRun := meanRun(recs), meanRun(gen), meanRun(byLimit)
	t.Logf("mean runtime: log %.0f s, K_wall law %.0f s, K_wall by limit %.0f s", logRun, lawRun, limitRun)
	if !(limitRun > 0.85*logRun && limitRun < 1.15*logRun) {
		t.Errorf("mean runtime: log %.0f s, K_wall by limit %.0f s, want within 15 %%", logRun, limitRun)
	}
}

// TestPrograms: paper 002's table of programs, by hand. Program A has 3
// jobs, two completed with K_ef1 0.6 and 0.8 (mean 0.7: alarming) and
// K_ef2 0.1 and 0.3, and the most work (its jobs run 1,000 s, the others
// 5 s); B has 5, completed with K_ef1 0.2 and K_ef2 0.5 (not above 0.5);
// C has 5, none completed (no K_ef: never alarming). By number of jobs: B
// and C (tied, by name), then A, where Describe puts A first.
func TestPrograms(t *testing.T) {
	job := func(app string, run, kef1, kef2 float64) Job {
		return Job{Factors: map[string]string{App: app}, Procs: 1, Nodes: 1, ReqTime: 2000, Runtime: run, Wait: 0, KEf1: kef1, KEf2: kef2}
	}
	nan := math.NaN()
	jobs := []Job{job("A", 1000, 0.6, 0.1), job("A", 1000, 0.8, 0.3), job("A", 1000, nan, nan)}
	for range 5 {
		jobs = append(jobs, job("B", 5, 0.2, 0.5), job("C", 5, nan, nan))
	}
	described := Describe(jobs, App)
	if described[0].Value != "A" {
		t.Fatalf("Describe puts %s first, want A (the most work)", described[0].Value)
	}
	before := slices.Clone(described)
	st := ByJobs(described)
	for i := range before {
		if described[i].Value != before[i].Value {
			t.Fatalf("ByJobs reordered its argument")
		}
	}
	var order []string
	alarming := map[string]string{}
	for _, s := range st {
		order = append(order, s.Value)
		alarming[s.Value] = DefaultAlarms().Flag(s)
	}
	if !slices.Equal(order, []string{"B", "C", "A"}) {
		t.Errorf("order %v, want B C A", order)
	}
	if alarming["A"] != "alarming (K_ef1)" || alarming["B"] != "" || alarming["C"] != "" {
		t.Errorf("alarming %q, want A only, on K_ef1", alarming)
	}
	// A K_ef2 threshold below B's 0.5 flags B on K_ef2.
	if f := (Alarms{KEf1: 0.5, KEf2: 0.4}).Flag(st[0]); f != "alarming (K_ef2)" {
		t.Errorf("B with --kef2-alarm 0.4: %q", f)
	}
	if a := st[2].Params["k_ef1"]; a.N != 2 || math.Abs(a.Mean-0.7) > 1e-12 || math.Abs(st[2].Params["k_ef2"].Mean-0.2) > 1e-12 {
		t.Errorf("A: K_ef1 %+v, K_ef2 %+v", a, st[2].Params["k_ef2"])
	}
}

// TestKWallByLimit: K_wall drawn from a class's own quantiles in the band
// of its requested time, by hand. Eight jobs of one user: four asking 100 s
// (K_wall 0.1, 0.2, 0.3 and one run to its limit), four asking 1,000 s
// (0.8, 0.9, 0.95 and one run to its limit). Four bands at the quartiles of
// the requested time end at 100, 100, 1,000 and 1,000 s: two bands, each
// with a censored share of 1/4 and its K_wall from 0.1 to 0.3, or from 0.8
// to 0.95, under the strict rules (killed at T_run >= T_lim only). Under
// the default rules the job of 950 s ended 50 s before a limit above 300 s:
// killed too, and the second band's censored share is 2/4, its K_wall from
// 0.8 to 0.9.
func TestKWallByLimit(t *testing.T) {
	var recs []swf.Record
	for _, j := range [][2]int64{{100, 10}, {100, 20}, {100, 30}, {100, 100}, {1000, 800}, {1000, 900}, {1000, 950}, {1000, 1000}} {
		recs = append(recs, rec(1, 1, j[0], j[1], 0))
	}
	jobs := FromSWF(recs)
	// One class, of user 1, as a clustering would give it.
	c := Clusters{Factor: User, Values: []string{"1"}, Labels: []int{0}, Result: cluster.Result{K: 1}}
	for _, rc := range []struct {
		name     string
		rules    Rules
		censored [2]float64
		want     [2][3]float64
	}{
		{"strict", StrictRules(), [2]float64{0.25, 0.25}, [2][3]float64{{0.1, 0.2, 0.3}, {0.8, 0.9, 0.95}}},
		{"default", DefaultRules(), [2]float64{0.25, 0.5}, [2][3]float64{{0.1, 0.2, 0.3}, {0.8, 0.85, 0.9}}},
	} {
		rc.rules.Apply(jobs)
		m := &Model{Classes: make([]Class, 1)}
		if err := m.FitKWallByLimit(jobs, c); err != nil {
			t.Fatal(err)
		}
		bands := m.Classes[0].KWallBands
		if m.KWallFit != KWallByLimit || len(bands) != 2 || bands[0].ReqTimeMax != 100 || bands[1].ReqTimeMax != 1000 {
			t.Fatalf("%s: fit %q, bands %+v", rc.name, m.KWallFit, bands)
		}
		for i, want := range rc.want {
			b := bands[i]
			q := b.Quantiles
			if b.Censored != rc.censored[i] || len(q) != KWallQuantileCount || math.Abs(q[0]-want[0]) > 1e-12 ||
				math.Abs(q[len(q)/2]-want[1]) > 1e-12 || math.Abs(q[len(q)-1]-want[2]) > 1e-12 {
				t.Errorf("%s: band %d: censored %v, quantiles %v, want %v and %v at 0, 1/2 and 1", rc.name, i, b.Censored, q, rc.censored[i], want)
			}
		}
	}
	// Drawing: a class asking 100 s (99.5 rounded up), its band's censored share
	// 1/4, K_wall from 0.1 to 0.3.
	hand := &Model{Procs: 1, Jobs: 4000, Arrival: Law{Family: string(fit.Exponential), Params: map[string]float64{fit.ParamRate: 1}},
		KWallFit: KWallByLimit, Classes: []Class{{Share: 1,
			Procs:      Law{Family: string(fit.LogNormal), Params: map[string]float64{fit.ParamMu: 0, fit.ParamSigma: 0}},
			ReqTime:    Law{Family: string(fit.LogNormal), Params: map[string]float64{fit.ParamMu: math.Log(99.5), fit.ParamSigma: 0}},
			KWallBands: []KWallBand{{ReqTimeMax: 100, Censored: 0.25, Quantiles: []float64{0.1, 0.2, 0.3}}}}}}
	gen, err := hand.Generate(0, 0, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	censored, sum := 0, 0.0
	for _, j := range gen {
		switch {
		case j.ReqTime != 100:
			t.Fatalf("requested %d, want 100", j.ReqTime)
		case j.RunTime == 100:
			censored++
		case j.RunTime < 10 || j.RunTime > 30:
			t.Fatalf("runtime %d outside K_wall 0.1 to 0.3 of 100 s", j.RunTime)
		default:
			sum += float64(j.RunTime)
		}
	}
	// The bands go through the model file; a malformed band is refused.
	path := t.TempDir() + "/model.toml"
	if err := hand.Write(path); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadModel(path); err != nil || !slices.Equal(back.Classes[0].KWallBands[0].Quantiles, []float64{0.1, 0.2, 0.3}) {
		t.Fatalf("read back: %v, %+v", err, back)
	}
	hand.Classes[0].KWallBands[0].Quantiles = []float64{0.3, 0.1}
	if err := hand.Write(path); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadModel(path); err == nil || !strings.Contains(err.Error(), "class 0, k_wall band 0") {
		t.Errorf("unsorted quantiles: %v", err)
	}
	// Binomial(4000, 1/4): 1,000 expected, sd 27.4; 4.5 sd either side.
	if censored < 877 || censored > 1123 {
		t.Errorf("%d of 4000 jobs ran to their limit, want about 1,000", censored)
	}
	// K_wall uniform-like on [0.1, 0.3]: mean runtime about 20 s (plus
	// the rounding up, under 1 s).
	if mean := sum / float64(len(gen)-censored); mean < 19.5 || mean > 21.5 {
		t.Errorf("mean runtime of the others %.2f s, want about 20.5", mean)
	}
}

// TestKWallBands: the band of a requested time (below the first bound,
// on a bound, between, above the last), a class of one job, a class whose
// jobs all ask the same time, and a band whose every job ran to its limit,
// which goes through the model file.
func TestKWallBands(t *testing.T) {
	c := Class{KWallBands: []KWallBand{{ReqTimeMax: 100}, {ReqTimeMax: 1000}, {ReqTimeMax: 5000}}}
	for req, want := range map[float64]float64{1: 100, 100: 100, 101: 1000, 4999: 5000, 5000: 5000, 9000: 5000} {
		if got := c.band(req).ReqTimeMax; got != want {
			t.Errorf("requested %v: band up to %v, want %v", req, got, want)
		}
	}
	// User 1: one job, killed at its limit. User 2: three jobs of 60 s.
	jobs := FromSWF([]swf.Record{rec(1, 1, 100, 100, 0), rec(2, 1, 60, 30, 0), rec(2, 1, 60, 15, 0), rec(2, 1, 60, 60, 0)})
	cl := Clusters{Factor: User, Values: []string{"1", "2"}, Labels: []int{0, 1}, Result: cluster.Result{K: 2}}
	m := &Model{Procs: 1, Jobs: 4, Arrival: Law{Family: string(fit.Exponential), Params: map[string]float64{fit.ParamRate: 1}},
		Classes: make([]Class, 2)}
	for i := range m.Classes {
		m.Classes[i].Share = 0.5
		m.Classes[i].Procs = Law{Family: string(fit.LogNormal), Params: map[string]float64{fit.ParamMu: 0, fit.ParamSigma: 0}}
		m.Classes[i].ReqTime = m.Classes[i].Procs
	}
	if err := m.FitKWallByLimit(jobs, cl); err != nil {
		t.Fatal(err)
	}
	one, same := m.Classes[0].KWallBands, m.Classes[1].KWallBands
	if len(one) != 1 || one[0].Censored != 1 || len(one[0].Quantiles) != 0 {
		t.Errorf("a class of one censored job: %+v", one)
	}
	if len(same) != 1 || same[0].ReqTimeMax != 60 || math.Abs(same[0].Censored-1.0/3) > 1e-12 || same[0].Quantiles[0] != 0.25 || same[0].Quantiles[len(same[0].Quantiles)-1] != 0.5 {
		t.Errorf("a class of equal requests: %+v", same)
	}
	path := t.TempDir() + "/model.toml"
	if err := m.Write(path); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadModel(path); err != nil {
		t.Errorf("a model with a band of censored jobs only: %v", err)
	}
	// A failed fit leaves the model as it was.
	fresh := &Model{Classes: make([]Class, 2)}
	if err := fresh.FitKWallByLimit(jobs[:1], cl); err == nil || fresh.KWallFit != "" || len(fresh.Classes[0].KWallBands) != 0 {
		t.Errorf("a class without jobs: %v, model %+v", err, fresh)
	}
}

// TestKWallModelChecks: model files whose K_wall setting is inconsistent
// are refused, naming what is wrong.
func TestKWallModelChecks(t *testing.T) {
	base := func() *Model {
		return &Model{Procs: 1, Jobs: 1, KWallFit: KWallByLimit, Arrival: Law{Family: string(fit.Exponential), Params: map[string]float64{fit.ParamRate: 1}},
			Classes: []Class{{Share: 1, KWallBands: []KWallBand{{ReqTimeMax: 100, Censored: 0.5, Quantiles: []float64{0.1, 0.5}}, {ReqTimeMax: 200, Censored: 1}}}}}
	}
	cases := []struct {
		name   string
		mutate func(*Model)
		want   string // in the error; "" for none
	}{
		{"valid", func(*Model) {}, ""},
		{"unknown fit", func(m *Model) { m.KWallFit = "beta" }, `k_wall_fit "beta"`},
		{"by-limit without bands", func(m *Model) { m.Classes[0].KWallBands = nil }, "by-limit needs bands"},
		{"bands under the law", func(m *Model) { m.KWallFit = KWallLaw }, "by-limit needs bands"},
		{"bounds not increasing", func(m *Model) { m.Classes[0].KWallBands[1].ReqTimeMax = 100 }, "k_wall band 1: req_time_max 100"},
		{"censored share above 1", func(m *Model) { m.Classes[0].KWallBands[0].Censored = 1.5 }, "censored 1.5"},
		{"no quantiles", func(m *Model) { m.Classes[0].KWallBands[0].Quantiles = nil }, "no quantiles"},
		{"quantile above 1", func(m *Model) { m.Classes[0].KWallBands[0].Quantiles = []float64{0.1, 1.5} }, "want K_wall values in [0, 1]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := base()
			tc.mutate(m)
			err := m.checkKWall()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestQuantileDraw(t *testing.T) {
	q := []float64{0, 1, 3}
	for _, c := range []struct{ u, want float64 }{{0, 0}, {0.25, 0.5}, {0.5, 1}, {0.75, 2}, {1, 3}} {
		if got := quantileDraw(q, c.u); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("u %v: %v, want %v", c.u, got, c.want)
		}
	}
	if got := quantileDraw([]float64{0.4}, 0.9); got != 0.4 {
		t.Errorf("one quantile: %v", got)
	}
}
