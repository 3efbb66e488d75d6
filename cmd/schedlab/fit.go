package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/workload/analysis"
)

func newFitCmd() *cobra.Command {
	var out, by, arrivals, activity, resource, kwall string
	var rules analysis.Rules
	var seed int64
	var kmax, restarts int
	var procs int64
	cmd := &cobra.Command{
		Use:   "fit FILE.swf[.gz] -o model.toml [--by user]",
		Short: "fit a workload model (arrivals and job classes) to a log",
		Long: `Fit a workload model to an SWF log: the law of inter-arrival times, and one job
class per k-means cluster of the --by factor's values (see workload analyze;
--activity and --resource as there),
with the best-AIC laws of processors, requested time, runtime and K_wall =
T_run / T_lim (the last two fitted on the jobs that did not run to their limit)
and the share of jobs that did (killed at their limit: T_run >= T_lim, or ending
at most --limit-tolerance seconds before a limit above --tolerance-min-limit
seconds; the jobs that never ran, T_run = 0, are not modelled unless
--never-ran keep). A generated job's runtime is K_wall times its
requested time: K_wall drawn from its law (--k-wall law), or from the class's
own quantiles in the band of the job's requested time (--k-wall by-limit, ours:
it keeps K_wall's mass near 1 and its growth with T_lim, which the laws lose).
The model is written as TOML (-o); then a trace is drawn from it (seeded) and
the two-sample Kolmogorov-Smirnov distance between its marginals and the log's
is printed. Draw workloads from the model with ` + "`schedlab workload gen --model model --param path=model.toml`" + `
or a manifest workload with generator = "model".`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return &exitError{exitBadInput, fmt.Errorf("-o model.toml is required")}
			}
			known := []string{analysis.User, analysis.Group, analysis.App, analysis.Queue, analysis.Partition}
			if !slices.Contains(known, by) {
				return &exitError{exitBadInput, fmt.Errorf("--by %q: want one of %s", by, strings.Join(known, ", "))}
			}
			feat := analysis.Features{Activity: activity, Resource: resource}
			if err := feat.Check(); err != nil {
				return &exitError{exitBadInput, err}
			}
			if feat.Resource == analysis.ResourceNodes {
				return &exitError{exitBadInput, fmt.Errorf("--resource %s: fit reads SWF logs, which record processors, not nodes", analysis.ResourceNodes)}
			}
			if kwall != analysis.KWallLaw && kwall != analysis.KWallByLimit {
				return &exitError{exitBadInput, fmt.Errorf("--k-wall %q: want %s or %s", kwall, analysis.KWallLaw, analysis.KWallByLimit)}
			}
			if arrivals != analysis.ArrivalsMLE && arrivals != analysis.ArrivalsMean {
				return &exitError{exitBadInput, fmt.Errorf("--arrivals %q: want %s or %s", arrivals, analysis.ArrivalsMLE, analysis.ArrivalsMean)}
			}
			if err := rules.Check(); err != nil {
				return &exitError{exitBadInput, err}
			}
			recs, sum, header, err := readSWFHeader(args[0])
			if err != nil {
				return &exitError{exitBadInput, err}
			}
			if procs <= 0 {
				if p, ok := header.MaxProcs(); ok {
					procs = p
				} else if p, ok := header.MaxNodes(); ok {
					procs = p
				} else {
					return &exitError{exitBadInput, fmt.Errorf("%s: no MaxProcs or MaxNodes in the header; give --procs", args[0])}
				}
			}
			jobs := analysis.FromSWF(recs)
			endings := rules.Apply(jobs)
			rng := manifest.NewRand(uint64(seed))
			c, err := analysis.Cluster(analysis.Describe(jobs, by), feat, kmax, restarts, rng)
			if err != nil {
				return &exitError{exitBadInput, err}
			}
			m, err := analysis.FitModel(jobs, c, procs, filepath.Base(args[0]), sum, arrivals)
			if err != nil {
				return err
			}
			if kwall == analysis.KWallByLimit {
				if err := m.FitKWallByLimit(jobs, c); err != nil {
					return err
				}
			}
			m.Rules, m.Endings = &rules, &endings
			if err := m.Write(out); err != nil {
				return err
			}
			gen, err := m.Generate(0, 0, rng)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s: %d jobs, %d classes by %s on %s (silhouette %.3f) -> %s\n", args[0], len(jobs), len(m.Classes), by,
				strings.Join(c.Features, ", "), c.Result.Silhouette, out)
			for _, l := range endings.Lines(rules) {
				fmt.Fprintln(w, "  "+l)
			}
			for i, cl := range m.Classes {
				fmt.Fprintf(w, "  class %d: share %.3f, procs %s, req_time %s, runtime %s, k_wall %s, censored %.3f\n", i, cl.Share,
					lawText(cl.Procs), lawText(cl.ReqTime), lawText(cl.Runtime), lawText(cl.KWall), cl.Censored)
			}
			fmt.Fprintf(w, "  arrivals (%s): %s", m.ArrivalFit, lawText(m.Arrival))
			if m.ArrivalScale != 0 {
				fmt.Fprintf(w, ", the fit scaled by %.4g to the log's mean", m.ArrivalScale)
			}
			fmt.Fprintln(w)
			if m.KWallFit == analysis.KWallByLimit {
				fmt.Fprintf(w, "  k_wall (%s): %d quantiles in at most %d bands of requested time per class\n", m.KWallFit,
					analysis.KWallQuantileCount, analysis.KWallBandCount)
			}
			ks := analysis.Marginals(jobs, analysis.FromSWF(gen))
			fmt.Fprintf(w, "KS distance, log vs a trace drawn from the model (seed %d):", seed)
			for _, k := range []string{"interarrival", "procs", "req_time", "runtime"} {
				fmt.Fprintf(w, " %s %.3f", k, ks[k])
			}
			fmt.Fprintln(w)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "", "model file to write (TOML)")
	fl.StringVar(&by, "by", analysis.User, "factor whose clusters are the job classes")
	fl.Int64Var(&seed, "seed", 1, "seed of k-means++ and of the check trace")
	fl.IntVar(&kmax, "kmax", 8, "largest number of classes tried")
	fl.IntVar(&restarts, "restarts", 10, "k-means restarts per k")
	fl.Int64Var(&procs, "procs", 0, "platform size (default: from the log's header)")
	featureFlags(fl, &activity, &resource)
	rulesFlags(fl, &rules, false)
	fl.StringVar(&kwall, "k-wall", analysis.KWallLaw, "how a job's K_wall = T_run / T_lim is drawn: law (its class's best law, redrawn below 1) or by-limit (its class's quantiles in the band of its requested time, which keeps most of the log's work per job)")
	fl.StringVar(&arrivals, "arrivals", analysis.ArrivalsMLE, "inter-arrival law: mle (maximum likelihood) or mean (scaled to the log's mean time between submissions, so that the model keeps the log's offered load)")
	return cmd
}

func lawText(l analysis.Law) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(l.Params)) {
		parts = append(parts, fmt.Sprintf("%s=%.4g", k, l.Params[k]))
	}
	return l.Family + "(" + strings.Join(parts, " ") + ")"
}
