package fit

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedlab/schedlab/workload/swf"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// column extracts one SWF field from a record.
type column struct {
	name  string
	field func(*swf.Record) int64
}

// jobColumns are the fields fitted in analyses of scheduler history: run
// time (SWF field 4), requested time (9), allocated processors (5) and
// wait (3).
var jobColumns = []column{
	{"runtime", func(r *swf.Record) int64 { return r.RunTime }},
	{"requested time", func(r *swf.Record) int64 { return r.ReqTime }},
	{"processors", func(r *swf.Record) int64 { return r.AllocProcs }},
	{"wait", func(r *swf.Record) int64 { return r.Wait }},
}

// traceColumns reads the first limit jobs of the trace file (all of them
// when limit <= 0) and returns, for each column, the values that are > 0
// in those jobs, in trace order: a zero wait or run time has no place in
// a law with location 0, and −1 marks a missing field in SWF.
//
// Without the traces the test is skipped, except under CI where it fails,
// as with every real-trace test (tracedata.SourcesForTest).
func traceColumns(t *testing.T, file string, limit int, cols []column) [][]float64 {
	t.Helper()
	tracedata.SourcesForTest(t)
	p, err := tracedata.Path(file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := swf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := make([][]float64, len(cols))
	for jobs := 0; limit <= 0 || jobs < limit; jobs++ {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			if v := c.field(&rec); v > 0 {
				out[i] = append(out[i], float64(v))
			}
		}
	}
	return out
}

// TestRealTracesAgainstSciPy fits every family to the run times,
// requested times, processor counts and waits of the first 5000 jobs of
// KTH-SP2 and CEA-Curie and compares with SciPy. Processor counts are
// mostly powers of two, so nearly every value is tied; waits and run times
// span 1 s to days.
func TestRealTracesAgainstSciPy(t *testing.T) {
	const jobs = 5000
	var samples []sample
	for _, file := range []string{"KTH-SP2-1996-2.1-cln.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz"} {
		cols := traceColumns(t, file, jobs, jobColumns)
		for i, c := range jobColumns {
			samples = append(samples, sample{name: fmt.Sprintf("%s %s (%d values)", file, c.name, len(cols[i])), xs: cols[i]})
		}
	}
	checkAgainstSciPy(t, samples)
	for _, s := range samples {
		fits, err := FitAll(s.xs)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: best %v, then %v", s.name, fits[0], fits[1])
	}
}

// TestRealLargeTraceAgainstSciPy fits the 447,794 jobs of RICC, the
// largest trace, as a check of scale: all its positive run times and
// waits (about 440,000 and 270,000 values, from 1 s to weeks, with heavy
// ties) against SciPy, and the time the fits take. -short skips it.
func TestRealLargeTraceAgainstSciPy(t *testing.T) {
	if testing.Short() {
		t.Skip("fits of 447,794 jobs; -short skips them")
	}
	cols := traceColumns(t, "RICC-2010-2.swf.gz", 0, []column{jobColumns[0], jobColumns[3]})
	samples := []sample{
		{name: fmt.Sprintf("RICC runtime (%d values)", len(cols[0])), xs: cols[0]},
		{name: fmt.Sprintf("RICC wait (%d values)", len(cols[1])), xs: cols[1]},
	}
	for _, s := range samples {
		start := time.Now()
		fits, err := FitAll(s.xs)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: FitAll in %v; best %v", s.name, time.Since(start).Round(time.Millisecond), fits[0])
	}
	checkAgainstSciPy(t, samples)
	// The bootstrap at this size: a few resamples, for the time it takes.
	f, err := MLE(samples[0].xs, Weibull)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	g, err := Test(samples[0].xs, f, 3, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: Test with 3 resamples in %v: %+v", samples[0].name, time.Since(start).Round(time.Millisecond), g)
}
