package lublin

import (
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/swf"
)

// TestSessionDefaultsFitKTH checks that DefaultSessions are what KTH-SP2
// (the shipped copy) gives under feedback = "sessions" with its defaults:
// its users; its kept jobs over the jobs not dependent, the mean jobs of a
// session; the median (exp of the mean log) and the standard deviation of
// the log of its positive think times; the threshold. It prints them.
func TestSessionDefaultsFitKTH(t *testing.T) {
	wl, err := workload.LoadSWFWith(filepath.Join("..", "..", "experiments", "data", "KTH-SP2-1996-2.1-cln.swf.gz"), 0, workload.Clean{},
		workload.Feedback{Mode: workload.FeedbackSessions})
	if err != nil {
		t.Fatal(err)
	}
	users := map[int32]bool{}
	var logs []float64
	for _, in := range wl.Jobs {
		users[in.Job.User] = true
		if in.After != 0 && in.Think > 0 {
			logs = append(logs, math.Log(float64(in.Think)))
		}
	}
	kept, dep := wl.Report.Kept, wl.Feedback.Count(workload.RuleDependent)
	got := Sessions{Users: len(users), JobsMean: round(float64(kept)/float64(kept-dep), 4),
		ThinkMedian: round(math.Exp(stat.Mean(logs, nil)), 3), ThinkSigma: round(stat.StdDev(logs, nil), 3), ThinkMax: 1200, StretchArrivals: true}
	t.Logf("KTH-SP2: %d users, %d jobs, %d dependent (%d with a positive think time): %+v", len(users), kept, dep, len(logs), got)
	if want := DefaultSessions(); !reflect.DeepEqual(got, want) {
		t.Errorf("fitted %+v\ndefaults %+v", got, want)
	}
}

// round rounds x to n significant digits.
func round(x float64, n int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64)
	return v
}

// TestSessionsGenerate draws with the session model, table-driven over
// settings: every job that names a preceding job comes its think time
// after that job's end (submit + runtime: the log has no waits), below
// the threshold, by the same user; the share of jobs that open a session
// is near 1 / JobsMean; and with the model off the records are those the
// generator drew before it existed (the default Model).
func TestSessionsGenerate(t *testing.T) {
	cases := []struct {
		name string
		s    Sessions
	}{
		{"defaults", DefaultSessions()},
		{"long sessions, short thinks", Sessions{Users: 5, JobsMean: 4, ThinkMedian: 10, ThinkSigma: 0.5, ThinkMax: 60, StretchArrivals: true}},
		{"not stretched", Sessions{Users: 50, JobsMean: 2, ThinkMedian: 300, ThinkSigma: 1, ThinkMax: 1200}},
	}
	const n = 20000
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := Published()
			m.Jobs, m.Sessions = n, c.s
			recs, err := m.Generate(rand.New(rand.NewPCG(7, 1)))
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != n {
				t.Fatalf("%d jobs, want %d", len(recs), n)
			}
			byNumber := map[int64]swf.Record{}
			opens := 0
			for i, r := range recs {
				if r.JobNumber != int64(i+1) || i > 0 && r.Submit < recs[i-1].Submit {
					t.Fatalf("job %d: number %d, submit %d after %d", i, r.JobNumber, r.Submit, recs[max(i-1, 0)].Submit)
				}
				if r.User < 1 || r.User > int64(c.s.Users) {
					t.Fatalf("job %d: user %d of %d", r.JobNumber, r.User, c.s.Users)
				}
				if r.PrecedingJob == -1 {
					opens++
					if r.ThinkTime != -1 {
						t.Fatalf("job %d opens a session with think time %d", r.JobNumber, r.ThinkTime)
					}
				} else {
					p, ok := byNumber[r.PrecedingJob]
					if !ok || p.User != r.User || r.ThinkTime < 0 || float64(r.ThinkTime) >= c.s.ThinkMax || r.Submit != p.Submit+p.RunTime+r.ThinkTime {
						t.Fatalf("job %+v after %+v (found %t)", r, p, ok)
					}
				}
				byNumber[r.JobNumber] = r
			}
			share, want := float64(opens)/n, 1/c.s.JobsMean
			if math.Abs(share-want) > 5*math.Sqrt(want*(1-want)/n) {
				t.Errorf("%.4f of the jobs open a session, want about %.4f", share, want)
			}
		})
	}
	// With the model off, 20,000 jobs of each mode on 1,000 processors are
	// the records the commit before the model drew (efc0fae: the sha256 of
	// their printed values).
	t.Run("off", func(t *testing.T) {
		for mode, pin := range map[string]string{
			ModeMixed:    "854a93a8916a296c9a21bef8a51171e9ec13370ae2e13230f41a31e787ec5599",
			ModeBatch:    "526c9255e476fc5eb9ef1422ed5368eb419d9d612d19fb0749682b4b3fe50cab",
			ModeTypeless: "80479b1aa7f57aad4107966409b0bd8e0c02b0d108b82589015e0532a412e7e7",
		} {
			m := Published()
			m.Jobs, m.Mode, m.Procs = 20000, mode, 1000
			recs, err := m.Generate(rand.New(rand.NewPCG(40, 2)))
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%x", sha256.Sum256([]byte(fmt.Sprint(recs)))); got != pin {
				t.Errorf("%s: records %s, before the session model %s", mode, got, pin)
			}
		}
	})
	t.Run("bad", func(t *testing.T) {
		for _, s := range []Sessions{{Users: -1}, {Users: 3, JobsMean: 0.5, ThinkMedian: 1, ThinkMax: 10}, {Users: 3, JobsMean: 2, ThinkMedian: 0, ThinkMax: 10},
			{Users: 3, JobsMean: 2, ThinkMedian: 20, ThinkMax: 10}, {Users: 3, JobsMean: 2, ThinkMedian: 1, ThinkSigma: -1, ThinkMax: 10}} {
			m := Published()
			m.Sessions = s
			if _, err := m.Generate(rand.New(rand.NewPCG(7, 1))); err == nil {
				t.Errorf("%+v accepted", s)
			}
		}
	})
}
