package analysis

import (
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"testing"

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
	c, err := Cluster(st, 8, 5, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if c.Result.K < 2 || len(c.Labels) != len(c.Values) || !(c.Result.Silhouette > 0) {
		t.Errorf("clusters: k %d, silhouette %v", c.Result.K, c.Result.Silhouette)
	}
	c2, _ := Cluster(st, 8, 5, rand.New(rand.NewPCG(1, 2)))
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
	c, err := Cluster(Describe(jobs, User), 4, 3, rand.New(rand.NewPCG(1, 2)))
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
	for _, f := range fits {
		total[f.Param] += f.N + f.Dropped
		if f.N >= 10 && len(f.Fits) > 0 && (len(f.GoF) != len(f.Fits) || f.Fits[0].AIC > f.Fits[len(f.Fits)-1].AIC) {
			t.Errorf("%+v", f)
		}
	}
	for p, n := range total {
		if n != len(jobs) {
			t.Errorf("%s: %d jobs accounted for, want %d", p, n, len(jobs))
		}
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
	c, err := Cluster(Describe(jobs, User), 6, 3, rand.New(rand.NewPCG(1, 2)))
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
