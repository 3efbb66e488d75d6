package analysis

import (
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

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
	if u2.Activity != 0.6 || u1.Activity != 0.4 || math.Abs(u1.Share-2.0/3) > 1e-15 {
		t.Errorf("activity %v %v, share %v", u2.Activity, u1.Activity, u1.Share)
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
// 1 and 2 submit many small short jobs, 3 and 4 one wide long job each, so
// by share of jobs (the paper's A) 1 and 2 stand out, and by share of
// processor-seconds 3 and 4 do. Nodes, where the log records them, replace
// processors as R1 unless the setting says processors.
func TestClusterFeatures(t *testing.T) {
	var recs []swf.Record
	for range 9 {
		recs = append(recs, rec(1, 1, 100, 50, 0), rec(2, 1, 100, 50, 0))
	}
	recs = append(recs, rec(3, 64, 100, 50, 0), rec(4, 64, 100, 50, 0))
	swfJobs := FromSWF(recs)
	withNodes := FromSWF(recs)
	for i := range withNodes {
		withNodes[i].Nodes = math.Ceil(withNodes[i].Procs / 8) // 8 processors a node
	}
	cases := []struct {
		name  string
		jobs  []Job
		feat  Features
		names []string
		x0    map[string]float64 // the unstandardised first feature by user
		x1    map[string]float64 // the unstandardised R1 by user
		err   bool
	}{
		{"paper, SWF", swfJobs, DefaultFeatures(), []string{"share", "procs", "req_time", "k_wall"},
			map[string]float64{"1": 9.0 / 20, "3": 1.0 / 20}, map[string]float64{"1": 1, "3": 64}, false},
		{"paper, nodes", withNodes, DefaultFeatures(), []string{"share", "nodes", "req_time", "k_wall"},
			map[string]float64{"1": 9.0 / 20, "3": 1.0 / 20}, map[string]float64{"1": 1, "3": 8}, false},
		{"work, processors", withNodes, Features{ActivityWork, ResourceProcs}, []string{"activity", "procs", "req_time", "k_wall"},
			// work: users 1, 2 have 9 x 50 = 450 each, 3, 4 have 3,200 each.
			map[string]float64{"1": 450.0 / 7300, "3": 3200.0 / 7300}, map[string]float64{"1": 1, "3": 64}, false},
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
			// Standardised coordinates keep the order of the raw values,
			// and the raw values are what Stats holds.
			byUser := map[string]Stats{}
			for _, s := range st {
				byUser[s.Value] = s
			}
			for u, want := range tc.x0 {
				got := byUser[u].Share
				if tc.names[0] == "activity" {
					got = byUser[u].Activity
				}
				if math.Abs(got-want) > 1e-12 {
					t.Errorf("user %s: %s %v, want %v", u, tc.names[0], got, want)
				}
			}
			for u, want := range tc.x1 {
				got := byUser[u].Params["procs"].Mean
				if tc.names[1] == "nodes" {
					got = byUser[u].Nodes
				}
				if got != want {
					t.Errorf("user %s: %s %v, want %v", u, tc.names[1], got, want)
				}
			}
			point := map[string][]float64{}
			for i, v := range c.Values {
				point[v] = c.Points[i]
			}
			if (point["1"][0] > point["3"][0]) == (tc.names[0] == "activity") {
				t.Errorf("%s: user 1 at %v, user 3 at %v", tc.names[0], point["1"][0], point["3"][0])
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
		act += s.Activity
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
	first, last := recs[0].Submit, recs[len(recs)-1].Submit
	d, err := mm.Arrival.fit().Dist(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(last-first) / float64(len(recs)-1); math.Abs(d.Mean()-want) > 1e-6*want || mm.Arrival.Family != m.Arrival.Family ||
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
	if err != nil || len(gen) != len(recs) {
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
}
