package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/analysis"
	"github.com/schedlab/schedlab/workload/swf"
	"github.com/schedlab/schedlab/workload/synth"
)

// generators are the workload generators schedlab links in: what a
// manifest may name with generator = "NAME" and `schedlab workload gen`
// runs.
func generators() []manifest.Generator {
	return []manifest.Generator{lublinGenerator(), mazalovGenerator(), modelGenerator()}
}

// modelGenerator draws from a model file written by `schedlab workload fit`.
func modelGenerator() manifest.Generator {
	return manifest.Generator{
		Name: "model",
		Doc:  "a workload model fitted on a log by `schedlab workload fit` (arrivals and job classes)",
		Params: []sdk.Param{
			{Name: "path", Type: sdk.String, Default: "", Doc: "the model file (a path relative to the working directory, or absolute)"},
			{Name: "jobs", Type: sdk.Int, Default: "0", Doc: "number of jobs; 0 takes the model's (the fitted log's)"},
		},
		Generate: func(p sdk.Params, procs int64, rng *rand.Rand) ([]swf.Record, error) {
			if p.String("path") == "" {
				return nil, errors.New("generator model: set params.path to a model file")
			}
			m, err := analysis.ReadModel(p.String("path"))
			if err != nil {
				return nil, err
			}
			return m.Generate(int(p.Int("jobs")), procs, rng)
		},
	}
}

// mazalovGenerator is the synthetic model of Mazalov & Nikitina (2012).
func mazalovGenerator() manifest.Generator {
	d := synth.Mazalov2012()
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return manifest.Generator{
		Name: "mazalov2012",
		Doc:  "exponential inter-arrival times and runtimes, exponential or truncated-Pareto processor requests (Mazalov & Nikitina 2012)",
		Params: []sdk.Param{
			{Name: "jobs", Type: sdk.Int, Default: strconv.Itoa(d.Jobs), Doc: "number of jobs"},
			{Name: "arrival_rate", Type: sdk.Float, Default: f(d.ArrivalRate), Doc: "rate of the exponential inter-arrival times, per minute (lambda_a)"},
			{Name: "runtime_rate", Type: sdk.Float, Default: f(d.RuntimeRate), Doc: "rate of the exponential runtimes, per minute (a)"},
			{Name: "mean_runtime_min", Type: sdk.Float, Default: "0", Doc: "mean runtime in minutes (t_e); overrides runtime_rate when positive"},
			{Name: "procs_dist", Type: sdk.String, Default: d.ProcsDist, Choices: []string{synth.ProcsExponential, synth.ProcsPareto}, Doc: "distribution of processor requests"},
			{Name: "mu", Type: sdk.Float, Default: f(d.Mu), Doc: "rate of the exponential processor requests"},
			{Name: "mean_share", Type: sdk.Float, Default: "0", Doc: "mean share of the platform a job requests (p); overrides mu when positive"},
			{Name: "pareto_alpha", Type: sdk.Float, Default: "0", Doc: "shape of the truncated Pareto; 0 matches the exponential model's mean request"},
			{Name: "estimate", Type: sdk.String, Default: d.Estimate, Choices: []string{synth.EstimateExact, synth.EstimateFactor, synth.EstimateUniform, synth.EstimateMax}, Doc: "walltime model"},
			{Name: "estimate_factor", Type: sdk.Float, Default: f(d.EstimateFactor), Doc: "factor of the walltime model"},
		},
		Generate: func(p sdk.Params, procs int64, rng *rand.Rand) ([]swf.Record, error) {
			m, err := mazalovModel(p, procs)
			if err != nil {
				return nil, err
			}
			return m.Generate(rng)
		},
	}
}

func mazalovModel(p sdk.Params, procs int64) (synth.Model, error) {
	m := synth.Model{Jobs: int(p.Int("jobs")), Procs: procs, ArrivalRate: p.Float("arrival_rate"),
		RuntimeRate: p.Float("runtime_rate"), ProcsDist: p.String("procs_dist"), Mu: p.Float("mu"),
		ParetoAlpha: p.Float("pareto_alpha"), Estimate: p.String("estimate"), EstimateFactor: p.Float("estimate_factor")}
	if te := p.Float("mean_runtime_min"); te > 0 {
		m.RuntimeRate = 1 / te
	}
	if share := p.Float("mean_share"); share > 0 {
		mu, err := m.MuForShare(share)
		if err != nil {
			return m, err
		}
		m.Mu = mu
	}
	return m, m.Check()
}

func newWorkloadCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "workload", Short: "generate synthetic workloads and analyse real ones"}
	var model, out string
	var params []string
	var seed int64
	var procs int64
	gen := &cobra.Command{
		Use:   "gen [MODEL.toml] [--model NAME] [--param k=v]... [--seed N] [--procs N] [-o FILE.swf]",
		Short: "write a synthetic workload as SWF",
		Long: `Draw a synthetic workload from a model, seeded, and write it as an SWF trace
(standard output by default). The same model, parameters, platform size and
seed give the same trace; in a manifest the model is a workload with
generator = "NAME" (see docs/manifest.md), seeded per replicate.

A model file written by ` + "`schedlab workload fit`" + ` may be given as the argument:
` + "`schedlab workload gen MODEL.toml`" + ` is ` + "`--model model --param path=MODEL.toml`" + `,
and the platform size is then the model's (the fitted log's) unless --procs
is given.

Models:
` + modelsHelp(),
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			given, err := keyValues("param", params)
			if err != nil {
				return &exitError{exitBadInput, err}
			}
			if len(args) == 1 {
				if cmd.Flags().Changed("model") && model != "model" {
					return &exitError{exitBadInput, fmt.Errorf("a model file (%s) and --model %s: give one", args[0], model)}
				}
				if _, ok := given["path"]; ok {
					return &exitError{exitBadInput, fmt.Errorf("a model file (%s) and --param path: give one", args[0])}
				}
				model = "model"
				given["path"] = args[0]
			}
			var g *manifest.Generator
			for _, x := range generators() {
				if x.Name == model {
					g = &x
				}
			}
			if g == nil {
				return &exitError{exitBadInput, fmt.Errorf("--model %q: unknown (known: %s)", model, strings.Join(generatorNames(), ", "))}
			}
			p, err := sdk.ResolveParams(g.Params, given)
			if err != nil {
				return &exitError{exitBadInput, fmt.Errorf("--param: %w", err)}
			}
			if g.Name == "model" && !cmd.Flags().Changed("procs") && p.String("path") != "" {
				// A fitted model knows its platform: the log's.
				m, err := analysis.ReadModel(p.String("path"))
				if err != nil {
					return &exitError{exitBadInput, err}
				}
				if m.Procs > 0 {
					procs = m.Procs
				}
			}
			recs, err := g.Generate(p, procs, manifest.NewRand(uint64(seed)))
			if err != nil {
				return &exitError{exitBadInput, err}
			}
			var w io.Writer = cmd.OutOrStdout()
			if out != "" {
				f, err := os.Create(out)
				if err != nil {
					return err
				}
				defer f.Close()
				bw := bufio.NewWriter(f)
				defer bw.Flush()
				w = bw
			}
			h := swf.Header{Pairs: []swf.Pair{
				{Key: "MaxProcs", Value: strconv.FormatInt(procs, 10)},
				{Key: "MaxJobs", Value: strconv.Itoa(len(recs))},
				{Key: "Note", Value: fmt.Sprintf("generated by schedlab workload gen --model %s --seed %d %s", model, seed, paramsText(p))},
			}}
			return swf.Write(w, h, recs)
		},
	}
	fl := gen.Flags()
	fl.StringVar(&model, "model", "mazalov2012", "generator name")
	fl.StringArrayVar(&params, "param", nil, "model parameter `key=value` (repeatable)")
	fl.Int64Var(&seed, "seed", 1, "seed (the generator gets math/rand/v2 PCG of it, as manifest.NewRand)")
	fl.Int64Var(&procs, "procs", 64, "platform size in processors (a fitted model's own by default)")
	fl.StringVarP(&out, "out", "o", "", "output file (default: standard output)")
	cmd.AddCommand(gen, newAnalyzeCmd(), newFitCmd(), newWorkloadListCmd(), newWorkloadHashCmd())
	return cmd
}

func generatorNames() []string {
	var out []string
	for _, g := range generators() {
		out = append(out, g.Name)
	}
	return out
}

func modelsHelp() string {
	var b strings.Builder
	for _, g := range generators() {
		fmt.Fprintf(&b, "  %s: %s\n", g.Name, g.Doc)
		width := 0
		for _, p := range g.Params {
			width = max(width, len(p.Name))
		}
		for _, p := range g.Params {
			fmt.Fprintf(&b, "    %-*s %-6s default %-12s %s\n", width, p.Name, p.Type, p.Default, p.Doc)
		}
	}
	return b.String()
}

func paramsText(p sdk.Params) string {
	var parts []string
	v := p.Values()
	for _, k := range slices.Sorted(maps.Keys(v)) {
		parts = append(parts, k+"="+v[k])
	}
	return strings.Join(parts, " ")
}

// newWorkloadHashCmd prints the sha256 a manifest wants for a trace of
// one's own, as the line to paste.
func newWorkloadHashCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "hash FILE.swf[.gz]...",
		Short: "print the sha256 a manifest's workload needs for a trace: the line to paste",
		Long: `Print, for each trace, the sha256 of its uncompressed bytes (what a manifest's
sha256 key holds and results record as workload.sha256; a gzipped trace and
the same trace plain have the same) as the line to paste into the trace's
[workloads.NAME] table:

  sha256 = "..."  # FILE`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, path := range args {
				sum, err := workload.SHA256(path)
				if err != nil {
					return &exitError{exitBadInput, err}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "sha256 = %q  # %s\n", sum, path)
			}
			return nil
		},
	}
}
