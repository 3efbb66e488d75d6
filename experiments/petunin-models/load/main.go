// Command load measures what the models of paper 002's reproduction
// (docs/reproductions/petunin-models.md) offer a scheduler, before any
// scheduling: the offered load, work per job and arrival rate of the log
// and of many traces drawn from each model of the campaign, and what a job
// holds (processors, runtime, T_lim, K_wall). From the repository root:
//
//	go run ./experiments/petunin-models/load -seeds 100
//
// The traces of seeds 1 to N are those `schedlab workload gen MODEL --seed
// S` writes; the campaign's own traces, of the workload seeds the manifest
// derives for its replicates, are measured too, to tell whether they are
// typical. It prints Markdown tables.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/schedlab/schedlab/results/stats"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/analysis"
	"github.com/schedlab/schedlab/workload/swf"
)

func main() {
	dir := flag.String("C", ".", "repository root: the manifest's model paths are relative to it")
	path := flag.String("manifest", "experiments/petunin-models/kth.toml", "the campaign's manifest")
	seeds := flag.Int("seeds", 100, "traces per model, of seeds 1 to N")
	flag.Parse()
	if err := os.Chdir(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	if *seeds < 2 {
		fmt.Fprintf(os.Stderr, "load: -seeds %d: want at least 2\n", *seeds)
		os.Exit(2)
	}
	if err := run(os.Stdout, *path, *seeds); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		var bad badInput
		if errors.As(err, &bad) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// badInput is an error of the input (the manifest, a trace, a model file):
// exit status 2.
type badInput struct{ error }

func (b badInput) Unwrap() error { return b.error }

// measure is what a trace offers a platform of procs processors.
type measure struct {
	// load is the processor-seconds of the jobs (runtime x processors,
	// both positive) over procs times the span of the submissions; work
	// those processor-seconds per job (all jobs), gap the mean time
	// between submissions (the span over the jobs less one).
	load, work, gap float64
	// Sums over the jobs with a positive runtime, processors and limit.
	n                               int
	procs, run, lim, kWall, product float64
}

func measureOf(recs []swf.Record, procs int64) measure {
	var m measure
	first, last := recs[0].Submit, recs[0].Submit
	var w float64
	for _, r := range recs {
		first, last = min(first, r.Submit), max(last, r.Submit)
		p := r.AllocProcs
		if p <= 0 {
			p = r.ReqProcs
		}
		if r.RunTime > 0 && p > 0 {
			w += float64(r.RunTime) * float64(p)
			if r.ReqTime > 0 {
				m.n++
				m.procs += float64(p)
				m.run += float64(r.RunTime)
				m.lim += float64(r.ReqTime)
				m.kWall += float64(r.RunTime) / float64(r.ReqTime)
				m.product += float64(r.RunTime) * float64(p)
			}
		}
	}
	span := float64(last - first)
	m.load = w / (float64(procs) * span)
	m.work = w / float64(len(recs))
	m.gap = span / float64(len(recs)-1)
	return m
}

// workload is the measures of the log, or of a model's traces.
type workload struct {
	name     string
	traces   []measure // seeds 1 to N
	campaign []measure // the campaign's replicates
}

func run(w io.Writer, path string, seeds int) error {
	gen := manifest.Generator{Name: "model", Params: []sdk.Param{
		{Name: "path", Type: sdk.String, Default: ""}, {Name: "jobs", Type: sdk.Int, Default: "0"}},
		// The traces are drawn below, as the command's generator draws
		// them (cmd/schedlab: ReadModel, then Generate).
		Generate: func(sdk.Params, int64, *rand.Rand) ([]swf.Record, error) { return nil, errors.New("not used") }}
	m, err := manifest.Load(path, gen)
	if err != nil {
		return badInput{err}
	}
	runs, err := m.Expand()
	if err != nil {
		return badInput{err}
	}
	var all []workload
	var logProcs int64
	var names []string
	for _, a := range m.Matrix.Axes {
		if a.Name == "workload" {
			names = a.Values
		}
	}
	for _, name := range names {
		wl := m.Workloads[name]
		if wl.Trace != "" {
			r, err := swf.Open(wl.Trace)
			if err != nil {
				return badInput{err}
			}
			var recs []swf.Record
			for {
				rec, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					r.Close()
					return badInput{err}
				}
				recs = append(recs, rec)
			}
			r.Close()
			if err := wl.VerifySHA256(r.SHA256()); err != nil {
				return badInput{fmt.Errorf("%s: %w", wl.Trace, err)}
			}
			var ok bool
			if logProcs, ok = r.Header().MaxProcs(); !ok {
				return badInput{fmt.Errorf("%s: no MaxProcs in the header", wl.Trace)}
			}
			all = append(all, workload{name: name + " (the log)", traces: []measure{measureOf(recs, logProcs)}})
			continue
		}
		if wl.Generator != "model" {
			return badInput{fmt.Errorf("%s: workloads.%s: generator %q, want model", path, name, wl.Generator)}
		}
		model, err := analysis.ReadModel(wl.Params["path"])
		if err != nil {
			return badInput{err}
		}
		draw := func(seed uint64) (measure, error) {
			recs, err := model.Generate(0, wl.Procs, manifest.NewRand(seed))
			if err != nil {
				return measure{}, err
			}
			return measureOf(recs, wl.Procs), nil
		}
		x := workload{name: name}
		for s := 1; s <= seeds; s++ {
			t, err := draw(uint64(s))
			if err != nil {
				return err
			}
			x.traces = append(x.traces, t)
		}
		// The campaign's traces: one per replicate, shared by its
		// policies.
		seen := map[uint64]bool{}
		for _, r := range runs {
			seed := r.Seeds(m).Workload
			if r.Workload != name || seen[seed] {
				continue
			}
			seen[seed] = true
			t, err := draw(seed)
			if err != nil {
				return err
			}
			x.campaign = append(x.campaign, t)
		}
		all = append(all, x)
	}
	if logProcs == 0 {
		return badInput{fmt.Errorf("%s: no trace to compare the models with", path)}
	}
	logLoad := all[0].traces[0].load
	fmt.Fprintf(w, "Offered load (processor-seconds over %d processors times the span of the submissions) of the log and of %d traces "+
		"per model (seeds 1 to %d), and of the campaign's %d traces per model:\n\n", logProcs, seeds, seeds, m.Campaign.Replicates)
	fmt.Fprintln(w, "| workload | traces | offered load, mean | sd | 95 % CI of the mean | mean / the log's | 2.5 to 97.5 % of traces | traces at or above the log's | campaign's traces, mean | work per job | mean inter-arrival (s) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---|---:|---|---:|---:|---:|---:|")
	for _, x := range all {
		loads := field(x.traces, func(m measure) float64 { return m.load })
		s := stats.Describe(loads, 0.95)
		if len(x.traces) == 1 {
			fmt.Fprintf(w, "| %s | 1 | %.3f | | | | | | | %.0f | %.0f |\n", x.name, s.Mean, x.traces[0].work, x.traces[0].gap)
			continue
		}
		q := stats.Quantiles(loads, []float64{0.025, 0.975})
		above := 0
		for _, l := range loads {
			if l >= logLoad {
				above++
			}
		}
		c := stats.Describe(field(x.campaign, func(m measure) float64 { return m.load }), 0.95)
		fmt.Fprintf(w, "| %s | %d | %.3f | %.3f | [%.3f, %.3f] | %.3f | %.3f to %.3f | %d | %.3f | %.0f | %.0f |\n", x.name, len(loads), s.Mean, s.SD,
			s.CI.Lo, s.CI.Hi, s.Mean/logLoad, q[0], q[1], above, c.Mean, mean(field(x.traces, func(m measure) float64 { return m.work })),
			mean(field(x.traces, func(m measure) float64 { return m.gap })))
	}
	fmt.Fprintf(w, "\nThe jobs with a positive runtime, processors and limit: means over the log's, and over those of the %d traces of each model together:\n\n", seeds)
	fmt.Fprintln(w, "| workload | jobs per trace | processors | runtime (s) | T_lim (s) | K_wall | work | processors x runtime, product of the means | T_lim x K_wall, product of the means |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, x := range all {
		var t measure
		for _, m := range x.traces {
			t.n += m.n
			t.procs += m.procs
			t.run += m.run
			t.lim += m.lim
			t.kWall += m.kWall
			t.product += m.product
		}
		n := float64(t.n)
		fmt.Fprintf(w, "| %s | %.0f | %.2f | %.0f | %.0f | %.3f | %.0f | %.0f | %.0f |\n", x.name, n/float64(len(x.traces)), t.procs/n, t.run/n,
			t.lim/n, t.kWall/n, t.product/n, (t.procs/n)*(t.run/n), (t.lim/n)*(t.kWall/n))
	}
	return nil
}

func field(ms []measure, f func(measure) float64) []float64 {
	out := make([]float64, len(ms))
	for i, m := range ms {
		out[i] = f(m)
	}
	return out
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
