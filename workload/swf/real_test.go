package swf_test

import (
	"bytes"
	"io"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/workload/swf"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// sources returns the rows of SOURCES.md, skipping the test when the traces
// are absent.
func sources(t testing.TB) []tracedata.Source { return tracedata.SourcesForTest(t) }

// rawStats are counts over a whole trace that SOURCES.md states in its
// caveats; the reader must reproduce them from the records alone.
type rawStats struct {
	records        int
	runtimeNonPos  int // RunTime <= 0
	noReqTime      int // ReqTime == -1
	noProcs        int // neither allocated nor requested processors
	submitDescents int // Submit lower than the previous record's
	maxAlloc       int64
	maxReq         int64
	fractional     int // AvgCPUTime, UsedMemory or ReqMemory not whole
	statusMissing  int
}

func collect(t *testing.T, r *swf.Reader) rawStats {
	t.Helper()
	var s rawStats
	prev := int64(-1 << 62)
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return s
		}
		if err != nil {
			t.Fatal(err)
		}
		s.records++
		if rec.RunTime <= 0 {
			s.runtimeNonPos++
		}
		if rec.ReqTime == swf.Missing {
			s.noReqTime++
		}
		if rec.AllocProcs <= 0 && rec.ReqProcs <= 0 {
			s.noProcs++
		}
		if rec.Submit < prev {
			s.submitDescents++
		}
		prev = rec.Submit
		s.maxAlloc = max(s.maxAlloc, rec.AllocProcs)
		s.maxReq = max(s.maxReq, rec.ReqProcs)
		for _, x := range []float64{rec.AvgCPUTime, rec.UsedMemory, rec.ReqMemory} {
			if x != float64(int64(x)) {
				s.fractional++
				break
			}
		}
		if rec.Status == swf.Missing {
			s.statusMissing++
		}
	}
}

// TestRealTraces checks every trace against SOURCES.md: its table (job
// count, uncompressed sha256, header MaxNodes / MaxProcs) and the counts
// stated in its caveats.
func TestRealTraces(t *testing.T) {
	// From the "Caveats for simulation" section of SOURCES.md.
	caveats := map[string]func(t *testing.T, s rawStats){
		"KTH-SP2-1996-2.1-cln.swf.gz":   func(t *testing.T, s rawStats) { eq(t, "run time <= 0", s.runtimeNonPos, 8) },
		"SDSC-BLUE-2000-4.2-cln.swf.gz": func(t *testing.T, s rawStats) { eq(t, "run time <= 0", s.runtimeNonPos, 10770) },
		"RICC-2010-2.swf.gz":            func(t *testing.T, s rawStats) { eq(t, "run time <= 0", s.runtimeNonPos, 10) },
		"CEA-Curie-2011-2.1-cln.swf.gz": func(t *testing.T, s rawStats) {
			eq(t, "run time <= 0", s.runtimeNonPos, 17286)
			// SOURCES.md: "The largest job uses 79,920 processors". That
			// is its request; the largest allocation is smaller.
			eq(t, "largest request", int(s.maxReq), 79920)
			if s.maxAlloc > s.maxReq {
				t.Errorf("largest allocation %d exceeds the largest request", s.maxAlloc)
			}
		},
		"LLNL-Thunder-2007-1.1-cln.swf.gz": func(t *testing.T, s rawStats) {
			eq(t, "run time <= 0", s.runtimeNonPos, 7426)
			eq(t, "no requested time", s.noReqTime, 82437)
			eq(t, "no processors", s.noProcs, 2248)
			eq(t, "submit lower than the previous record's", s.submitDescents, 808)
		},
		"NASA-iPSC-1993-3.1-cln.swf.gz": func(t *testing.T, s rawStats) {
			eq(t, "run time <= 0", s.runtimeNonPos, 173)
			eq(t, "no requested time", s.noReqTime, s.records)
			eq(t, "no status", s.statusMissing, s.records)
		},
		// HPC2N is the trace the SWF fractional fields were found in
		// ("552.21"); not a SOURCES.md count, only that some exist.
		"HPC2N-2002-2.2-cln.swf.gz": func(t *testing.T, s rawStats) {
			if s.fractional == 0 {
				t.Error("no fractional field read in HPC2N")
			}
		},
	}
	if len(tracedata.Files()) != len(caveats) {
		t.Errorf("SOURCES.md lists %d traces, this test knows %d", len(tracedata.Files()), len(caveats))
	}
	tracedata.EachForTest(t, func(t *testing.T, s tracedata.Source) {
		p, err := tracedata.Path(s.File)
		if err != nil {
			t.Fatal(err)
		}
		r, err := swf.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		h := r.Header()
		st := collect(t, r)
		eq(t, "records", st.records, s.Jobs)
		if got := r.SHA256(); got != s.SHA256 {
			t.Errorf("sha256 %s, SOURCES.md says %s", got, s.SHA256)
		}
		if mp, ok := h.MaxProcs(); !ok || mp != s.MaxProcs {
			t.Errorf("MaxProcs %d (present %v), SOURCES.md says %d", mp, ok, s.MaxProcs)
		}
		if mn, ok := h.MaxNodes(); !ok || mn != s.MaxNodes {
			t.Errorf("MaxNodes %d (present %v), SOURCES.md says %d", mn, ok, s.MaxNodes)
		}
		if check, ok := caveats[s.File]; ok {
			check(t, st)
		}
		if len(r.BodyComments()) != 0 || r.BlankLines() != 0 {
			t.Logf("%d body comments, %d blank lines", len(r.BodyComments()), r.BlankLines())
		}
	})
}

func eq(t *testing.T, what string, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("%s: %d, want %d", what, got, want)
	}
}

// TestRealRoundTrip writes a real trace back and reads it again: records
// and header must survive.
func TestRealRoundTrip(t *testing.T) {
	sources(t)
	for _, name := range []string{"KTH-SP2-1996-2.1-cln.swf.gz", "HPC2N-2002-2.2-cln.swf.gz"} {
		t.Run(name, func(t *testing.T) {
			p, err := tracedata.Path(name)
			if err != nil {
				t.Fatal(err)
			}
			r, err := swf.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			recs := readAll(t, r)
			var buf bytes.Buffer
			if err := swf.Write(&buf, r.Header(), recs); err != nil {
				t.Fatal(err)
			}
			r2 := swf.NewReader(&buf, filepath.Base(p)+" (rewritten)")
			recs2 := readAll(t, r2)
			if !reflect.DeepEqual(r2.Header(), r.Header()) {
				t.Error("header changed")
			}
			// Both files keep the job lines right after the header, so even
			// the line numbers agree.
			if !reflect.DeepEqual(recs2, recs) {
				t.Error("records changed")
			}
		})
	}
}

// BenchmarkRead reads each real trace from its gzip file, as workload
// loading does: decompression, hashing and parsing included.
func BenchmarkRead(b *testing.B) {
	for _, s := range sources(b) {
		name := s.File[:len(s.File)-len(".swf.gz")]
		b.Run(name, func(b *testing.B) { benchRead(b, s.File) })
	}
}

// BenchmarkReadCurie reads CEA-Curie (312,826 jobs), the trace the speed
// target is set on.
func BenchmarkReadCurie(b *testing.B) {
	sources(b)
	benchRead(b, "CEA-Curie-2011-2.1-cln.swf.gz")
}

func benchRead(b *testing.B, file string) {
	p, err := tracedata.Path(file)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		r, err := swf.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		r.Close()
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}
