package synth

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// TestMoments draws many jobs and checks the sample means against the
// model's, within 5 standard errors.
func TestMoments(t *testing.T) {
	for _, dist := range []string{ProcsExponential, ProcsPareto} {
		m := Mazalov2012()
		m.Jobs = 200_000
		m.ProcsDist = dist
		recs, err := m.Generate(rng(1))
		if err != nil {
			t.Fatal(err)
		}
		var gaps, runs, procs []float64
		for i, r := range recs {
			if i > 0 {
				gaps = append(gaps, float64(r.Submit-recs[i-1].Submit))
			}
			runs = append(runs, float64(r.RunTime))
			procs = append(procs, float64(r.ReqProcs))
			if r.ReqTime != r.RunTime || r.ReqProcs < 1 || r.ReqProcs > 64 || r.AllocProcs != r.ReqProcs {
				t.Fatalf("record %+v", r)
			}
		}
		// Submit times are truncated to whole seconds: the gap mean is
		// biased by less than a second.
		check := func(what string, xs []float64, want float64) {
			t.Helper()
			mean, sd := meanSD(xs)
			if se := sd / math.Sqrt(float64(len(xs))); math.Abs(mean-want) > 5*se+1 {
				t.Errorf("%s %s: mean %.3f, want %.3f (se %.3f)", dist, what, mean, want, se)
			}
		}
		check("inter-arrival (s)", gaps, 60/0.00944)
		check("runtime (s)", runs, 60/0.0048+0.5) // rounded up to whole seconds
		check("procs", procs, m.MeanProcs())
	}
}

func meanSD(xs []float64) (float64, float64) {
	var s, ss float64
	for _, x := range xs {
		s += x
	}
	mean := s / float64(len(xs))
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

func TestMeanProcs(t *testing.T) {
	m := Mazalov2012()
	// ceil(X) is geometric with mean 1/(1-e^-mu) = 10.04 (1/mu = 9.53
	// plus about a half); clamping at 64 removes the tail above 64.
	q := math.Exp(-m.Mu)
	want := 1/(1-q) - math.Pow(q, 64)/(1-q)
	if got := m.MeanProcs(); math.Abs(got-want) > 1e-9 {
		t.Errorf("mean procs %v, want %v", got, want)
	}
	alpha, err := ParetoAlphaForMean(m.MeanProcs(), 64)
	if err != nil || math.Abs(paretoMean(alpha, 64)-m.MeanProcs()) > 1e-9 {
		t.Errorf("alpha %v: mean %v, want %v (%v)", alpha, paretoMean(alpha, 64), m.MeanProcs(), err)
	}
	if _, err := ParetoAlphaForMean(70, 64); err == nil {
		t.Error("a mean above the platform size has a Pareto shape")
	}
}

func TestDeterministic(t *testing.T) {
	m := Mazalov2012()
	a, _ := m.Generate(rng(7))
	b, _ := m.Generate(rng(7))
	c, _ := m.Generate(rng(8))
	if !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) {
		t.Error("not a function of the seed")
	}
}

func TestEstimates(t *testing.T) {
	for _, tc := range []struct {
		estimate string
		factor   float64
		ok       func(run, req int64) bool
	}{
		{EstimateExact, 1, func(run, req int64) bool { return req == run }},
		{EstimateFactor, 2, func(run, req int64) bool { return req == 2*run }},
		{EstimateUniform, 3, func(run, req int64) bool { return req >= run && req <= 3*run+1 }},
		{EstimateMax, 5, func(run, req int64) bool { return req == max(run, 62500) }},
	} {
		m := Mazalov2012()
		m.Estimate, m.EstimateFactor = tc.estimate, tc.factor
		recs, err := m.Generate(rng(3))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if !tc.ok(r.RunTime, r.ReqTime) {
				t.Fatalf("%s: runtime %d, request %d", tc.estimate, r.RunTime, r.ReqTime)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	for name, mod := range map[string]func(*Model){
		"jobs":     func(m *Model) { m.Jobs = 0 },
		"arrival":  func(m *Model) { m.ArrivalRate = 0 },
		"runtime":  func(m *Model) { m.RuntimeRate = math.Inf(1) },
		"dist":     func(m *Model) { m.ProcsDist = "normal" },
		"estimate": func(m *Model) { m.Estimate = "guess" },
		"factor":   func(m *Model) { m.Estimate, m.EstimateFactor = EstimateFactor, 0.5 },
	} {
		m := Mazalov2012()
		mod(&m)
		if _, err := m.Generate(rng(1)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestMuForShare(t *testing.T) {
	m := Mazalov2012()
	for _, p := range []float64{0.05, 0.17, 0.3, 0.5} {
		mu, err := m.MuForShare(p)
		if err != nil {
			t.Fatal(err)
		}
		m.Mu = mu
		if got := m.MeanProcs() / 64; math.Abs(got-p) > 1e-9 {
			t.Errorf("share %v: mu %v gives %v", p, mu, got)
		}
	}
	if _, err := m.MuForShare(1.2); err == nil {
		t.Error("a share above 1")
	}
}
