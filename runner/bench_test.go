package runner

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/internal/pyenv"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/tracedata"
)

// The benchmarks time Execute end to end: for the plugin variant that is
// plugin process start, describe, transfer of the workload and the records,
// replay verification and metrics; the in-process variant does the same work
// without the process and the RPC. docs/performance.md gives the commands
// and the figures.

// kthPath is the committed copy of KTH-SP2, available in every clone.
const kthPath = "../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz"

// curieFile is the CEA-Curie trace of the shared data (not committed).
const curieFile = "CEA-Curie-2011-2.1-cln.swf.gz"

// benchLoads caches the workloads across sub-benchmarks and -count runs, so
// that a trace is parsed once per test binary.
var benchLoads struct {
	sync.Mutex
	m map[string]*workload.Workload
}

func benchLoad(b *testing.B, path string) *workload.Workload {
	b.Helper()
	benchLoads.Lock()
	defer benchLoads.Unlock()
	if w, ok := benchLoads.m[path]; ok {
		return w
	}
	w, err := workload.LoadSWF(path, 0, workload.DefaultClean())
	if err != nil {
		b.Fatal(err)
	}
	if benchLoads.m == nil {
		benchLoads.m = map[string]*workload.Workload{}
	}
	benchLoads.m[path] = w
	return w
}

func kthWorkload(b *testing.B) *workload.Workload { return benchLoad(b, kthPath) }

// curieWorkload loads CEA-Curie from the shared data, or skips when the
// shared data is absent.
func curieWorkload(b *testing.B) *workload.Workload {
	b.Helper()
	path, err := tracedata.Path(curieFile)
	if errors.Is(err, tracedata.ErrNotFound) {
		b.Skipf("CEA-Curie not available, skipping: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	return benchLoad(b, path)
}

// transports are the ways Execute runs a policy: linked in, in a fresh
// plugin process, and in a plugin process kept for the next run.
var transports = []string{"in-process", "plugin", "reused"}

// transportSpec sets spec to run as transport says; the caller closes the
// processes it returns.
func transportSpec(spec Spec, transport string) (Spec, *Processes) {
	spec.InProcess = transport == "in-process"
	if transport == "reused" {
		spec.Processes = &Processes{MaxRuns: 1 << 30}
	}
	return spec, spec.Processes
}

// benchExecute times Execute of policy on the workload load returns, in
// process, in a fresh plugin process and in a reused one, and reports
// jobs/s (whole Execute) and sim-jobs/s (the engine's own Stats.WallNanos,
// simulation only).
func benchExecute(b *testing.B, policy, trace string, load func(*testing.B) *workload.Workload) {
	b.Run(trace, func(b *testing.B) {
		for _, transport := range transports {
			b.Run(transport, func(b *testing.B) {
				w := load(b)
				spec, procs := transportSpec(Spec{
					Policy:   pluginResolved(b, policy),
					Platform: sdk.SingleCluster(trace, w.Procs),
					Jobs:     w.Jobs,
					Metrics:  metrics.DefaultSettings(),
				}, transport)
				if procs != nil {
					defer procs.Close()
				}
				ctx := context.Background()
				b.ReportAllocs()
				var iters, simNanos int64
				for b.Loop() {
					out, err := Execute(ctx, spec)
					if err != nil {
						b.Fatal(err)
					}
					if len(out.Records) != len(w.Jobs) {
						b.Fatalf("%d records for %d jobs", len(out.Records), len(w.Jobs))
					}
					iters++
					simNanos += out.Stats.WallNanos
				}
				jobs := float64(len(w.Jobs)) * float64(iters)
				b.ReportMetric(jobs/b.Elapsed().Seconds(), "jobs/s")
				b.ReportMetric(jobs/(float64(simNanos)/1e9), "sim-jobs/s")
			})
		}
	})
}

func BenchmarkEASY(b *testing.B) {
	benchExecute(b, "easy", "KTH-SP2-1000", func(b *testing.B) *workload.Workload {
		w := *kthWorkload(b)
		w.Jobs = w.Jobs[:1000] // a run of the size of paper 000's
		return &w
	})
	benchExecute(b, "easy", "KTH-SP2", kthWorkload)
	benchExecute(b, "easy", "CEA-Curie", curieWorkload)
}

func BenchmarkFCFS(b *testing.B) {
	benchExecute(b, "fcfs", "KTH-SP2", kthWorkload)
}

func BenchmarkConservative(b *testing.B) {
	benchExecute(b, "conservative", "KTH-SP2", kthWorkload)
}

// BenchmarkStartup runs the 5-job workload of the tests, so that the plugin
// variant measures the fixed cost of a plugin run: process start, handshake,
// describe, one tiny transfer and shutdown; the reused variant, that of a
// run in a process kept from the run before.
func BenchmarkStartup(b *testing.B) {
	jobs, plat := smallWorkload()
	for _, transport := range transports {
		b.Run(transport, func(b *testing.B) {
			spec, procs := transportSpec(Spec{Policy: pluginResolved(b, "easy"), Platform: plat, Jobs: jobs,
				Metrics: metrics.DefaultSettings()}, transport)
			if procs != nil {
				defer procs.Close()
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Execute(context.Background(), spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPython times EASY on KTH-SP2 end to end, as a fresh Go plugin
// and as the Python example (python/examples/easy.py) in a fresh process:
// the same schedule (TestPythonEqualsGo), so the ratio of the two is the
// cost of a policy in Python, process start and 48,943 calls included.
func BenchmarkPython(b *testing.B) {
	pyenv.ForTest(b, "grpc")
	w := kthWorkload(b)
	for _, c := range []struct {
		name string
		res  func(b *testing.B) *Resolved
	}{
		{"go-plugin", func(b *testing.B) *Resolved { return pluginResolved(b, "easy") }},
		{"python", func(b *testing.B) *Resolved { return pythonResolved(b, "../python/examples/easy.py") }},
		// FCFS in Python does next to nothing at a call (the head fits or
		// not), so its time per call is the floor of any Python policy
		// here: the process, the round trip of a call over the socket and
		// the state rebuilt from its frame.
		{"python-fcfs", func(b *testing.B) *Resolved { return pythonResolved(b, "../python/examples/fcfs.py") }},
	} {
		b.Run("KTH-SP2/"+c.name, func(b *testing.B) {
			spec := Spec{Policy: c.res(b), Platform: sdk.SingleCluster("KTH-SP2", w.Procs), Jobs: w.Jobs,
				Metrics: metrics.DefaultSettings()}
			var calls int64
			for b.Loop() {
				out, err := Execute(context.Background(), spec)
				if err != nil {
					b.Fatal(err)
				}
				calls += out.Stats.PolicyCalls
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(calls), "µs/call")
		})
	}
}
