package workload_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// loadDefault loads a shared trace with the default cleaning and the
// platform size from its header.
func loadDefault(t testing.TB, file string) *workload.Workload {
	t.Helper()
	p, err := tracedata.Path(file)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.LoadSWF(p, 0, workload.Clean{})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func realSources(t testing.TB) []tracedata.Source { return tracedata.SourcesForTest(t) }

// TestRealTraceCleaning loads every trace with the default settings and
// the platform size from its header. With -v it prints the table of
// docs/semantics.md:
//
//	go test ./workload -run 'TestRealTraceCleaning$' -v
func TestRealTraceCleaning(t *testing.T) {
	var rules []string
	var rows []string
	tracedata.EachForTest(t, func(t *testing.T, s tracedata.Source) {
		w := loadDefault(t, s.File)
		checkWorkload(t, w)
		if w.Report.Records != s.Jobs {
			t.Errorf("%d records, SOURCES.md says %d", w.Report.Records, s.Jobs)
		}
		if w.SHA256 != s.SHA256 {
			t.Errorf("sha256 %s, SOURCES.md says %s", w.SHA256, s.SHA256)
		}
		if w.Procs != s.MaxProcs || w.ProcsSource != workload.ProcsFromMaxProcs {
			t.Errorf("platform %d from %q, want the header's MaxProcs %d", w.Procs, w.ProcsSource, s.MaxProcs)
		}
		counts(t, w.Report)
		if rules == nil {
			for _, c := range w.Report.Counts {
				rules = append(rules, fmt.Sprintf("%s (%s: %s)", c.Rule, c.Setting, c.Action))
			}
		}
		row := []string{strings.TrimSuffix(s.File, ".swf.gz"), fmt.Sprint(w.Procs), fmt.Sprint(w.Report.Records)}
		for _, c := range w.Report.Counts {
			row = append(row, fmt.Sprint(c.Jobs))
		}
		row = append(row, fmt.Sprint(w.Report.Kept))
		rows = append(rows, "| "+strings.Join(row, " | ")+" |")
	})
	if len(rows) == 0 {
		return
	}
	head := append(append([]string{"trace", "procs (MaxProcs)", "records"}, rules...), "kept")
	t.Logf("\n| %s |\n|%s\n%s", strings.Join(head, " | "), strings.Repeat("---|", len(head)), strings.Join(rows, "\n"))
}

// TestRealTraceFacts checks what SOURCES.md says of particular traces
// against the cleaning counts.
func TestRealTraceFacts(t *testing.T) {
	realSources(t)
	cases := []struct {
		file  string
		clean workload.Clean
		check func(t *testing.T, w *workload.Workload)
	}{
		{"NASA-iPSC-1993-3.1-cln.swf.gz", workload.Clean{}, func(t *testing.T, w *workload.Workload) {
			// "every job has requested time = -1": each kept job got its
			// runtime as walltime.
			if c, _ := w.Report.Get(workload.RuleMissingWalltime); c.Jobs != w.Report.Kept || c.Action != workload.Adjusted {
				t.Errorf("missing walltime %+v, want all %d kept jobs adjusted", c, w.Report.Kept)
			}
		}},
		{"KTH-SP2-1996-2.1-cln.swf.gz", workload.Clean{NonPositiveRuntime: workload.Clamp}, func(t *testing.T, w *workload.Workload) {
			// "run time <= 0: KTH 8", clamped rather than dropped.
			if c, _ := w.Report.Get(workload.RuleNonPositiveRuntime); c.Jobs != 8 || c.Action != workload.Adjusted {
				t.Errorf("nonpositive runtime %+v, want 8 adjusted", c)
			}
		}},
		{"LLNL-Thunder-2007-1.1-cln.swf.gz", workload.Clean{}, func(t *testing.T, w *workload.Workload) {
			// "2,248 jobs have neither allocated nor requested
			// processors": without a submit time or with one, they go.
			ms, _ := w.Report.Get(workload.RuleMissingSubmit)
			mp, _ := w.Report.Get(workload.RuleMissingProcs)
			if ms.Jobs == 0 || mp.Jobs == 0 || ms.Jobs+mp.Jobs != 2248 {
				t.Errorf("missing submit %d + missing procs %d, want 2248 jobs with no processors", ms.Jobs, mp.Jobs)
			}
		}},
	}
	// NASA-iPSC without walltimes keeps no job: an error saying so.
	t.Run("NASA-iPSC missing-walltime=drop", func(t *testing.T) {
		p, err := tracedata.Path("NASA-iPSC-1993-3.1-cln.swf.gz")
		if err != nil {
			t.Fatal(err)
		}
		_, err = workload.LoadSWF(p, 0, workload.Clean{MissingWalltime: workload.Drop})
		if !errors.Is(err, workload.ErrNoJobs) || !strings.Contains(err.Error(), "all 18239 job records (173 by nonpositive-runtime=drop, 18066 by missing-walltime=drop") {
			t.Errorf("%v, want no job, all dropped by missing-walltime and nonpositive-runtime", err)
		}
	})
	for _, c := range cases {
		t.Run(c.file+" "+fmt.Sprint(c.clean.Settings()), func(t *testing.T) {
			p, err := tracedata.Path(c.file)
			if err != nil {
				t.Fatal(err)
			}
			w, err := workload.LoadSWF(p, 0, c.clean)
			if err != nil {
				t.Fatal(err)
			}
			checkWorkload(t, w)
			c.check(t, w)
		})
	}
}

// fcfs starts waiting jobs in submit order while they fit: the simplest
// policy the engine accepts, used to show the engine takes cleaned traces.
type fcfs struct{ out []sdk.Decision }

func (p *fcfs) Init(sdk.Env) error { return nil }

func (p *fcfs) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	free := s.Free[0][0]
	for _, j := range s.Queue {
		if j.Procs() > free {
			break
		}
		free -= j.Procs()
		p.out = append(p.out, sdk.Start(j))
	}
	return p.out, nil
}

// TestRealTracesRun simulates each cleaned trace with FCFS: the engine
// checks every job (walltime, runtime, request, order) before running.
func TestRealTracesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates every real trace")
	}
	plugin := sdk.Plugin{Info: sdk.Info{Name: "test-fcfs"}, New: func() sdk.Policy { return &fcfs{} }}
	tracedata.EachForTest(t, func(t *testing.T, s tracedata.Source) {
		w := loadDefault(t, s.File)
		res, err := sim.Run(context.Background(), plugin, sim.Config{Platform: sdk.SingleCluster(s.File, w.Procs), Jobs: w.Jobs})
		if err != nil {
			t.Fatal(err)
		}
		killed := 0
		for _, r := range res.Records {
			if r.Killed {
				killed++
			}
		}
		if c, _ := w.Report.Get(workload.RuleRuntimeOverWalltime); killed != c.Jobs {
			t.Errorf("engine killed %d jobs, cleaning counted %d running over their walltime", killed, c.Jobs)
		}
	})
}

// BenchmarkLoadCurie loads CEA-Curie with the default cleaning: reading,
// hashing, cleaning and sorting.
func BenchmarkLoadCurie(b *testing.B) {
	realSources(b)
	p, err := tracedata.Path("CEA-Curie-2011-2.1-cln.swf.gz")
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		w, err := workload.LoadSWF(p, 0, workload.Clean{})
		if err != nil {
			b.Fatal(err)
		}
		n += w.Report.Records
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
}
