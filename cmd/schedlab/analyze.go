package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/fit"
	"github.com/schedlab/schedlab/results/report"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/workload/analysis"
	"github.com/schedlab/schedlab/workload/sacct"
	"github.com/schedlab/schedlab/workload/swf"
)

type analyzeFlags struct {
	by             []string
	out            string
	report         string
	top            int
	reportClusters int
	kmax           int
	seed           int64
	restarts       int
	resamples      int
	activity       string
	resource       string
	rules          analysis.Rules
	alarms         analysis.Alarms
}

func newAnalyzeCmd() *cobra.Command {
	var f analyzeFlags
	cmd := &cobra.Command{
		Use:   "analyze FILE.swf[.gz] [--by user|group|app|queue|partition]... [--out DIR] [--report FILE.html]",
		Short: "describe a scheduler's history per user, group, application, queue or partition, and cluster them",
		Long: `Describe the jobs of an SWF log per value of each factor (--by): jobs, share of
jobs and of processor-seconds, and the distributions (mean with a 95 % interval,
quantiles) of requested processors, requested time T_lim, runtime, wait and
K_wall = T_run / T_lim, with the jobs killed at their limit counted as
censored and the jobs that never ran (T_run = 0) left out of the runtime,
K_wall and wait. Which jobs were killed: on Slurm input, those in state
TIMEOUT (--killed-by state); on SWF, or with --killed-by runtime, those with
T_run >= T_lim or ending at most --limit-tolerance seconds (60) before a limit
above --tolerance-min-limit seconds (300). --never-ran keep keeps the jobs
that never ran. The output says how many jobs each rule touched. The values of each factor are then clustered by k-means (k-means++,
seeded) on <A, R1, mean T_lim, mean K_wall>, standardised, with k chosen by
the mean silhouette. By default A and R1 are paper 002's: the value's share of
the jobs (--activity jobs) and its mean nodes where the log records nodes, else
processors (--resource auto); --activity work takes the share of
processor-seconds instead, --resource procs or nodes one measure whatever the
log. Each cluster is then described as the paper's table does: its share of
the jobs, T_lim's mean and sd.

Per cluster and parameter (processors, T_lim, runtime, wait), exponential,
log-normal, Weibull and gamma laws are fitted by maximum likelihood (location
0; non-positive values and, for runtimes, jobs killed at their limit are
left out and counted), ranked by AIC, with Kolmogorov-Smirnov and
Cramer-von Mises statistics on every value, as the paper reports them, and
parametric-bootstrap p-values (--resamples), whose tests use at most 5000
values (and report their own statistics on them: CvM grows with n, so only
statistics of equal n compare).

--out DIR writes DIR/factors.parquet (one row per factor value),
DIR/clusters.parquet (one row per clustered value) and DIR/fits.parquet (one
row per factor, cluster, parameter and family), and DIR/report.html.

--report FILE.html writes the HTML report (also without --out): one
self-contained page (inline SVG, no script, no network) with the input's
provenance, the statistics per factor value (the --top values of largest
share of work), the clusters in scatter plots of their standardised features,
the fits with their KS and CvM statistics and p-values, the ECDF of each
cluster's parameters against the fitted laws (for the --report-clusters
clusters with the most jobs per factor) and, for Slurm input, box plots of
K_ef2 and K_ef1 by node-count group, paper 002's table of programs (job names
with the most jobs, mean K_ef2 above --kef2-alarm or K_ef1 above --kef1-alarm
flagged, 0.5 each) and K_ef2 by node-count group for the --report-clusters
programs with the most jobs.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runAnalyze(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.by, "by", []string{analysis.User, analysis.Group, analysis.App, analysis.Queue, analysis.Partition}, "factors to describe")
	fl.StringVar(&f.out, "out", "", "folder for factors.parquet and clusters.parquet")
	fl.StringVar(&f.report, "report", "", "HTML report to write (default DIR/report.html with --out)")
	fl.IntVar(&f.top, "top", 10, "values printed per factor, and shown in the report's tables (all are written)")
	fl.IntVar(&f.reportClusters, "report-clusters", 4, "clusters per factor whose ECDF against the fits the report plots (most jobs first)")
	fl.IntVar(&f.kmax, "kmax", 8, "largest k tried")
	fl.IntVar(&f.restarts, "restarts", 10, "k-means restarts per k")
	fl.Int64Var(&f.seed, "seed", 1, "seed of k-means++, the bootstrap and its subsamples")
	fl.IntVar(&f.resamples, "resamples", 99, "parametric-bootstrap resamples of each goodness-of-fit test (0: no fits)")
	featureFlags(fl, &f.activity, &f.resource)
	rulesFlags(fl, &f.rules, true)
	fl.Float64Var(&f.alarms.KEf1, "kef1-alarm", analysis.KEf1Alarm, "Slurm input: a program whose mean K_ef1 is above this is flagged alarming (paper 002's 0.5)")
	fl.Float64Var(&f.alarms.KEf2, "kef2-alarm", analysis.KEf2Alarm, "Slurm input: a program whose mean K_ef2 is above this is flagged alarming (ours: the paper flags high K_ef2 without a number)")
	return cmd
}

// rulesFlags adds the settings of analysis.Rules: --limit-tolerance,
// --tolerance-min-limit and --never-ran, and --killed-by where the input
// may record states (Slurm accounting).
func rulesFlags(fl *pflag.FlagSet, r *analysis.Rules, states bool) {
	*r = analysis.DefaultRules()
	if states {
		fl.StringVar(&r.KilledBy, "killed-by", r.KilledBy, "how a job killed at its limit is recognised: state (Slurm's TIMEOUT where the log records states, else the runtime rule) or runtime (T_run >= T_lim, or within --limit-tolerance)")
	}
	fl.Float64Var(&r.LimitTolerance, "limit-tolerance", r.LimitTolerance, "seconds: a job ending at most this long before a limit above --tolerance-min-limit counts as killed at its limit")
	fl.Float64Var(&r.ToleranceMinLimit, "tolerance-min-limit", r.ToleranceMinLimit, "seconds: limits at or below this get no --limit-tolerance (only T_run >= T_lim counts as killed)")
	fl.StringVar(&r.NeverRan, "never-ran", r.NeverRan, "jobs with T_run = 0: exclude (left out of runtime, K_wall and wait, and of a fitted model) or keep")
}

func readSWF(path string) ([]swf.Record, string, error) {
	recs, sum, _, err := readSWFHeader(path)
	return recs, sum, err
}

// readSWFHeader reads every record of an SWF log, its sha256 and header.
func readSWFHeader(path string) ([]swf.Record, string, swf.Header, error) {
	r, err := swf.Open(path)
	if err != nil {
		return nil, "", swf.Header{}, err
	}
	defer r.Close()
	var recs []swf.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, "", swf.Header{}, err
		}
		recs = append(recs, rec)
	}
	return recs, r.SHA256(), r.Header(), nil
}

func runAnalyze(cmd *cobra.Command, path string, f analyzeFlags) error {
	known := []string{analysis.User, analysis.Group, analysis.App, analysis.Queue, analysis.Partition}
	isSacct, err := sniffSacct(path)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	if isSacct {
		known = append(known, analysis.Account, analysis.NodeGroup)
	}
	for _, b := range f.by {
		if !slices.Contains(known, b) {
			return &exitError{exitBadInput, fmt.Errorf("--by %q: want one of %s", b, strings.Join(known, ", "))}
		}
	}
	feat := analysis.Features{Activity: f.activity, Resource: f.resource}
	if err := feat.Check(); err != nil {
		return &exitError{exitBadInput, err}
	}
	if !isSacct && feat.Resource == analysis.ResourceNodes {
		return &exitError{exitBadInput, fmt.Errorf("--resource %s: %s is an SWF log, which records processors, not nodes", analysis.ResourceNodes, path)}
	}
	if err := f.rules.Check(); err != nil {
		return &exitError{exitBadInput, err}
	}
	if err := f.alarms.Check(); err != nil {
		return &exitError{exitBadInput, err}
	}
	w := cmd.OutOrStdout()
	var jobs []analysis.Job
	var sum string
	rep := &report.Analysis{Path: path, Format: "SWF", Top: f.top, MaxClusters: f.reportClusters}
	if isSacct {
		sj, read, err := sacct.Options{SkipMalformed: true}.ReadFile(path)
		if err != nil {
			return &exitError{exitBadInput, err}
		}
		jobs = analysis.FromSacct(sj)
		sum = fileSHA256(path)
		rep.Format = "Slurm accounting"
		rep.Notes = append(rep.Notes, "Read: "+read.String()+".")
		fmt.Fprintf(w, "%s: Slurm accounting, %s\n", path, read.String())
		for _, s := range read.Skipped {
			fmt.Fprintf(w, "  skipped: %v\n", s)
			rep.Notes = append(rep.Notes, fmt.Sprintf("Skipped line %d (job %s): %s.", s.Line, orUnknown(s.ID), s.Reason))
		}
	} else {
		recs, s, err := readSWF(path)
		if err != nil {
			return &exitError{exitBadInput, err}
		}
		jobs, sum = analysis.FromSWF(recs), s
	}
	fmt.Fprintf(w, "%s: %d jobs (sha256 %.12s…)\n", path, len(jobs), sum)
	endings := f.rules.Apply(jobs)
	for _, l := range endings.Lines(f.rules) {
		fmt.Fprintln(w, l)
	}
	rep.Rules, rep.Endings, rep.Alarms = &f.rules, endings, &f.alarms
	var factorRows, clusterRows, fitRows [][]any
	rng := manifest.NewRand(uint64(f.seed))
	for _, factor := range f.by {
		st := analysis.Describe(jobs, factor)
		rep.Factors = append(rep.Factors, report.FactorAnalysis{Factor: factor, Stats: st})
		fa := &rep.Factors[len(rep.Factors)-1]
		fmt.Fprintf(w, "\n== by %s: %d values\n", factor, len(st))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := "value\tjobs\tshare\twork share\tprocs mean\tT_lim median (s)\truntime median (s)\twait mean (s)\tK_wall mean\tcensored\tnever ran\t"
		if isSacct {
			head += "K_ef1 mean\tK_ef2 mean (completed jobs)\t"
		}
		fmt.Fprintln(tw, head)
		for i, s := range st {
			if i < f.top {
				fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.1f\t%.0f\t%.0f\t%.0f\t%.3f\t%d\t%d\t", orUnknown(s.Value), s.Jobs, s.Share, s.WorkShare,
					s.Params["procs"].Mean, median(s, "req_time"), median(s, "runtime"), s.Params["wait"].Mean, s.Params["k_wall"].Mean, s.Censored, s.NeverRan)
				if isSacct {
					fmt.Fprintf(tw, "%.3f\t%.3f\t", s.Params["k_ef1"].Mean, s.Params["k_ef2"].Mean)
				}
				fmt.Fprintln(tw)
			}
			row := []any{factor, s.Value, int64(s.Jobs), s.Share, s.WorkShare, nullable(s.Nodes), int64(s.Censored), int64(s.NeverRan)}
			for _, p := range analysis.Parameters() {
				ps := s.Params[p]
				row = append(row, int64(ps.N), nullable(ps.Mean), nullable(ps.SD), nullable(ps.CI.Lo), nullable(ps.CI.Hi))
				q := s.Quantiles[p]
				for k := range analysis.QuantileProbs() {
					if k < len(q) {
						row = append(row, nullable(q[k]))
					} else {
						row = append(row, nil)
					}
				}
			}
			factorRows = append(factorRows, row)
		}
		tw.Flush()
		if len(st) > f.top {
			fmt.Fprintf(w, "(%d more values in factors.parquet with --out)\n", len(st)-f.top)
		}
		if isSacct && factor == analysis.App {
			printPrograms(w, st, f.top, f.alarms)
		}
		c, err := analysis.Cluster(st, feat, f.kmax, f.restarts, rng)
		if err != nil {
			fmt.Fprintf(w, "clusters: %v\n", err)
			fa.ClusterErr = err.Error()
			continue
		}
		fmt.Fprintf(w, "clusters: k = %d by mean silhouette %.3f (tried:", c.Result.K, c.Result.Silhouette)
		for _, r := range c.Tried {
			fmt.Fprintf(w, " k=%d %.3f", r.K, r.Silhouette)
		}
		fmt.Fprintf(w, "), sizes %v, on %s\n", c.Result.Sizes, strings.Join(c.Features, ", "))
		fa.Clusters = &c
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "cluster\tvalues\tjobs\tshare of jobs\tT_lim mean (min)\tT_lim sd (min)\tprocs mean\tK_wall mean\t")
		for _, cs := range c.Describe(jobs) {
			k, _ := strconv.Atoi(cs.Value)
			tl := cs.Params["req_time"]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.1f\t%.1f\t%.1f\t%.3f\t\n", cs.Value, c.Result.Sizes[k], cs.Jobs, cs.Share,
				tl.Mean/60, tl.SD/60, cs.Params["procs"].Mean, cs.Params["k_wall"].Mean)
		}
		tw.Flush()
		for i, v := range c.Values {
			clusterRows = append(clusterRows, []any{factor, v, int64(c.Labels[i]), int64(c.Result.K), c.Result.Silhouette})
		}
		if f.resamples < 1 {
			continue
		}
		pfs, err := analysis.FitParameters(jobs, c, f.resamples, rng)
		if err != nil {
			return err
		}
		fa.Fits = pfs
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "cluster	parameter	n	dropped	best (AIC)	parameters	KS	CvM	n tested	KS p	CvM p	")
		for _, pf := range pfs {
			if len(pf.Fits) == 0 {
				fmt.Fprintf(tw, "%d	%s	%d	%d	(no fit)							\n", pf.Cluster, pf.Param, pf.N, pf.Dropped)
				continue
			}
			b, g := pf.Fits[0], pf.GoF[0]
			fmt.Fprintf(tw, "%d	%s	%d	%d	%s	%s	%.4f	%.3f	%d	%.3f	%.3f	\n", pf.Cluster, pf.Param, pf.N, pf.Dropped, b.Family, paramsOf(b),
				pf.KS[0], pf.CvM[0], pf.GoFN, g.KSP, g.CvMP)
			for i, ft := range pf.Fits {
				gi := pf.GoF[i]
				fitRows = append(fitRows, []any{factor, int64(pf.Cluster), pf.Param, int64(pf.N), int64(pf.Dropped), string(ft.Family),
					int64(i + 1), paramsOf(ft), ft.LogLik, ft.AIC, ft.BIC, pf.KS[i], pf.CvM[i],
					int64(pf.GoFN), gi.KS, gi.KSP, gi.CvM, gi.CvMP, int64(gi.Resamples)})
			}
		}
		tw.Flush()
		// Paper 002's figure of fits: log-normal and Weibull, KS and CvM
		// on every value of each cluster.
		fmt.Fprintln(w, "log-normal and Weibull on every value (KS, CvM):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "cluster	parameter	n	log-normal KS	log-normal CvM	Weibull KS	Weibull CvM	")
		for _, pf := range pfs {
			if len(pf.Fits) == 0 {
				continue
			}
			fmt.Fprintf(tw, "%d	%s	%d	", pf.Cluster, pf.Param, pf.N)
			for _, fam := range []fit.Family{fit.LogNormal, fit.Weibull} {
				i := slices.IndexFunc(pf.Fits, func(ft fit.Fit) bool { return ft.Family == fam })
				if i < 0 {
					fmt.Fprint(tw, "-	-	")
					continue
				}
				fmt.Fprintf(tw, "%.4f	%.3f	", pf.KS[i], pf.CvM[i])
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	meta := results.Metadata(runner.BuildProvenance())
	reportPath := f.report
	if reportPath == "" && f.out != "" {
		reportPath = filepath.Join(f.out, "report.html")
	}
	if reportPath != "" {
		rep.Jobs, rep.SHA256, rep.Meta = jobs, sum, meta
		rep.Options = [][2]string{{"--by", strings.Join(f.by, ",")}, {"--kmax", fmt.Sprint(f.kmax)},
			{"--restarts", fmt.Sprint(f.restarts)}, {"--seed", fmt.Sprint(f.seed)}, {"--resamples", fmt.Sprint(f.resamples)},
			{"--top", fmt.Sprint(f.top)}, {"--report-clusters", fmt.Sprint(f.reportClusters)},
			{"--activity", f.activity}, {"--resource", f.resource},
			{"--killed-by", f.rules.KilledBy}, {"--limit-tolerance", fmt.Sprint(f.rules.LimitTolerance)},
			{"--tolerance-min-limit", fmt.Sprint(f.rules.ToleranceMinLimit)}, {"--never-ran", f.rules.NeverRan},
			{"--kef1-alarm", fmt.Sprint(f.alarms.KEf1)}, {"--kef2-alarm", fmt.Sprint(f.alarms.KEf2)},
			{"goodness-of-fit sample", fmt.Sprintf("at most %d values per test", analysis.GoFSample)}}
		if err := writeAnalysisReport(reportPath, rep); err != nil {
			return err
		}
		fmt.Fprintf(w, "\nwrote %s\n", reportPath)
	}
	if f.out == "" {
		return nil
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	meta = maps.Clone(meta)
	meta["input.path"] = filepath.Base(path)
	meta["input.sha256"] = sum
	meta["kmeans.seed"] = fmt.Sprint(f.seed)
	meta["kmeans.restarts"] = fmt.Sprint(f.restarts)
	meta["clustering.activity"] = f.activity
	meta["clustering.resource"] = f.resource
	for _, fa := range rep.Factors {
		if fa.Clusters != nil {
			// What auto resolved to, per factor.
			meta["clustering.features."+fa.Factor] = strings.Join(fa.Clusters.Features, ",")
		}
	}
	meta["censoring"] = "jobs killed at their limit (rules.*) are counted in censored and kept at their observed values"
	maps.Copy(meta, endings.Meta(f.rules))
	if isSacct {
		meta["alarms.kef1"], meta["alarms.kef2"] = fmt.Sprint(f.alarms.KEf1), fmt.Sprint(f.alarms.KEf2)
	}
	cols := []results.Column{{Name: "factor", Kind: results.String}, {Name: "value", Kind: results.String},
		{Name: "jobs", Kind: results.Int64}, {Name: "share", Kind: results.Float64}, {Name: "work_share", Kind: results.Float64},
		{Name: "nodes_mean", Kind: results.Float64},
		{Name: "censored", Kind: results.Int64}, {Name: "never_ran", Kind: results.Int64}}
	for _, p := range analysis.Parameters() {
		cols = append(cols, results.Column{Name: p + "_n", Kind: results.Int64})
		for _, s := range []string{"mean", "sd", "ci_lo", "ci_hi"} {
			cols = append(cols, results.Column{Name: p + "_" + s, Kind: results.Float64})
		}
		for _, q := range analysis.QuantileProbs() {
			cols = append(cols, results.Column{Name: fmt.Sprintf("%s_p%02.0f", p, 100*q), Kind: results.Float64})
		}
	}
	if err := results.WriteTable(filepath.Join(f.out, "factors.parquet"), cols, factorRows, meta); err != nil {
		return err
	}
	ccols := []results.Column{{Name: "factor", Kind: results.String}, {Name: "value", Kind: results.String},
		{Name: "cluster", Kind: results.Int64}, {Name: "k", Kind: results.Int64}, {Name: "silhouette", Kind: results.Float64}}
	if err := results.WriteTable(filepath.Join(f.out, "clusters.parquet"), ccols, clusterRows, meta); err != nil {
		return err
	}
	fcols := []results.Column{{Name: "factor", Kind: results.String}, {Name: "cluster", Kind: results.Int64},
		{Name: "parameter", Kind: results.String}, {Name: "n", Kind: results.Int64}, {Name: "dropped", Kind: results.Int64},
		{Name: "family", Kind: results.String}, {Name: "rank_aic", Kind: results.Int64}, {Name: "params", Kind: results.String},
		{Name: "loglik", Kind: results.Float64}, {Name: "aic", Kind: results.Float64}, {Name: "bic", Kind: results.Float64},
		{Name: "ks_all", Kind: results.Float64}, {Name: "cvm_all", Kind: results.Float64}, {Name: "n_tested", Kind: results.Int64}, {Name: "ks", Kind: results.Float64}, {Name: "ks_p", Kind: results.Float64}, {Name: "cvm", Kind: results.Float64},
		{Name: "cvm_p", Kind: results.Float64}, {Name: "resamples", Kind: results.Int64}}
	meta["gof.sample"] = fmt.Sprint(analysis.GoFSample)
	if err := results.WriteTable(filepath.Join(f.out, "fits.parquet"), fcols, fitRows, meta); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nwrote factors.parquet, clusters.parquet and fits.parquet in %s\n", f.out)
	return nil
}

// writeAnalysisReport writes the HTML report to path, making its folder;
// a failed report leaves no file.
func writeAnalysisReport(path string, a *report.Analysis) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := report.WriteAnalysis(&buf, a); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func orUnknown(v string) string {
	if v == "" {
		return "(unknown)"
	}
	return v
}

func median(s analysis.Stats, p string) float64 {
	if q := s.Quantiles[p]; len(q) > 2 {
		return q[2]
	}
	return math.NaN()
}

func nullable(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// paramsOf writes a fit's parameters as name=value pairs, sorted.
func paramsOf(f fit.Fit) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(f.Params)) {
		parts = append(parts, fmt.Sprintf("%s=%.4g", k, f.Params[k]))
	}
	return strings.Join(parts, " ")
}

// sniffSacct reports whether path is Slurm accounting output (a first line
// of '|'-separated field names with JobID among them) rather than SWF.
func sniffSacct(path string) (bool, error) {
	r, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer r.Close()
	var src io.Reader = r
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return false, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		src = gz
	}
	line, err := bufio.NewReader(src).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	fields := strings.Split(strings.TrimSpace(line), "|")
	return len(fields) > 1 && (slices.Contains(fields, "JobID") || slices.Contains(fields, "JobIDRaw")), nil
}

// fileSHA256 is the sha256 of a file's bytes, "" when it cannot be read.
func fileSHA256(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// featureFlags adds --activity and --resource, the measures of activity
// and requested resource that values are clustered on.
func featureFlags(fl *pflag.FlagSet, activity, resource *string) {
	fl.StringVar(activity, "activity", analysis.ActivityJobs, "activity A a value is clustered on: jobs (its share of the jobs, paper 002's) or work (its share of processor-seconds)")
	fl.StringVar(resource, "resource", analysis.ResourceAuto, "requested resource R1 a value is clustered on: auto (mean nodes where the log records them, else processors, paper 002's), nodes or procs")
}

// printPrograms prints paper 002's table of programs: the top programs by
// number of jobs with the means of K_ef2 and K_ef1 over their completed
// jobs, flagging those above the alarms' thresholds.
func printPrograms(w io.Writer, st []analysis.Stats, top int, alarms analysis.Alarms) {
	fmt.Fprintf(w, "programs by number of jobs, K_ef over completed jobs (%s flagged: --kef2-alarm, --kef1-alarm):\n", alarms.Text())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "program\tjobs\tn (K_ef1)\tK_ef2 mean\tK_ef1 mean\t\t")
	for i, s := range analysis.ByJobs(st) {
		if i == top {
			break
		}
		flag := alarms.Flag(s)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.3f\t%s\t\n", orUnknown(s.Value), s.Jobs, s.Params["k_ef1"].N,
			s.Params["k_ef2"].Mean, s.Params["k_ef1"].Mean, flag)
	}
	tw.Flush()
}
