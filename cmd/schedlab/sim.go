package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/schedlab/schedlab/plugins/reference"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/nodes"
	"github.com/schedlab/schedlab/workload/sacct"
)

type simFlags struct {
	trace, policy, out string
	groups, priority   string // a sacct log's --groups and --priority
	params, clean      []string
	procs              int64
	seed               uint64
	exact, inProcess   bool
	asJSON             bool
	timeout, stall     time.Duration
	metrics            metrics.Settings
	nodes              nodeFlags
	outages            outageFlags
	power              powerFlags
	data               dataFlags
	feedback           workload.Feedback
	// format is the trace's format (swf or sacct); log the settings of
	// a sacct log's mapping onto nodes.
	format string
	log    nodes.LogSettings
}

func newSimCmd() *cobra.Command {
	f := simFlags{metrics: metrics.DefaultSettings()}
	cmd := &cobra.Command{
		Use:   "sim --trace FILE --policy POLICY [--param k=v] [--out jobs.parquet]",
		Short: "run one simulation of a trace under a policy",
		Long: `Run one simulation of an SWF trace (plain or gzipped) under a policy, verify
the schedule, print the summary metrics and optionally write one Parquet row
per job. --format sacct reads a Slurm accounting log (sacct -P output) instead,
its requests on nodes from its TRES (--tres requested|allocated, --constraints,
--unknown-partition; --partitions maps its partition names; --groups account gives each
job its Slurm account as its group, --priority log its Priority); docs/semantics.md.

POLICY is a reference policy (fcfs, easy, conservative, multifactor...), the path of a plugin
binary, a Go package path (such as ./plugins/easy) that is built and cached, or
a Python file (.py; docs/python.md).
The platform is one cluster whose size comes from the trace header (MaxProcs,
else MaxNodes) unless --procs is given: a pool of processors. --nodes N
--cores-per-node C makes it N nodes of C cores (with --memory-per-node and
--gpus-per-node), and --machine NAME a known machine (schedlab sim --machine
list lists them); a job then asks for its processors as tasks of one core,
on whole nodes (--allocation exclusive, the default) or on shared nodes
(--allocation shared), with the memory per processor of its trace
(--memory requested|used|requested-else-used|none), placed by --placement
(first-fit, best-fit, contiguous). See docs/semantics.md.

On nodes, outages: failures from a file (--failures-file) or drawn per node
(--failure-model exponential|weibull --mtbf TIME --mttr TIME, seeded by
--outage-seed), maintenance windows of the whole machine (--maintenance-window
START,DURATION[,EVERY]), and what becomes of the jobs they reach (--on-failure
kill|requeue|checkpoint, --maintenance hard|soft). Each flag is the setting of
a manifest's [platforms.NAME.outages] table of the same name, with dashes
(docs/manifest.md); times are seconds or a number and a unit ("4h", "30d").

On nodes, a power model (docs/engine.md, "Power and energy"): --power-idle and
--power-full watts per node (busy power linear in the cores in use), or instead
of --power-full a table per core count, --power-busy W1,...,WC,
--power-off, the switches' times and energies (--power-switch-on TIME
--power-switch-on-energy J, --power-switch-off ...) and a constant
--power-cap in watts, and --power-down idle|off (what a node on draws while
out of service for a failure or maintenance), the keys of a manifest's
[platforms.NAME.power] table
for every node group; the jobs file gets its energy column, NAME.power.parquet
beside it the power over time, and the summary the energy metrics.

A burst buffer (--bb-units N --bb-unit-capacity SIZE: resource bb of N units; on a
pool, or beside --nodes), a transform of the jobs (--transform NAME, --transform-param KEY=VALUE,
--transform-seed N: burst-buffer requests, or runtime estimates on any platform) and
a model of jobs that move data through the burst buffer (--io KEY=VALUE, repeated:
the keys of a manifest's [platforms.NAME.io] table); docs/manifest.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSim(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.trace, "trace", "", "SWF trace file (.swf or .swf.gz)")
	fl.StringVar(&f.policy, "policy", "", "reference policy name, plugin binary, Go package path or Python file")
	fl.StringArrayVar(&f.params, "param", nil, "policy parameter `key=value` (repeatable)")
	fl.StringArrayVar(&f.clean, "clean", nil, "trace cleaning setting `key=value` (repeatable; see docs/semantics.md)")
	fl.StringVar(&f.feedback.Mode, "feedback", workload.FeedbackNone, "how jobs react to the scheduler: none (replay), swf (SWF fields 17 and 18) or sessions (inferred; docs/semantics.md)")
	fl.Int64Var(&f.feedback.Threshold, "session-threshold", 0, "with --feedback sessions, the gap in seconds that breaks a session (default 1200)")
	fl.StringVar(&f.feedback.UnknownWait, "unknown-wait", "", "with --feedback, a trace's unknown wait (field 3): no-end (default: the job's end is unknown, no job follows it) or zero")
	fl.Int64Var(&f.procs, "procs", 0, "platform size in processors (default: from the trace header)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the policy's random stream")
	fl.BoolVar(&f.exact, "exact", false, "show policies each job's actual runtime as its walltime")
	fl.BoolVar(&f.inProcess, "in-process", false, "link a reference policy into this process instead of starting its plugin")
	fl.StringVar(&f.out, "out", "", "write one row per job to this Parquet file")
	fl.BoolVar(&f.asJSON, "json", false, "print the summary as JSON")
	fl.DurationVar(&f.timeout, "timeout", -1, "fail the run after this long (default: 10m and 10ms per job; 0: no limit)")
	fl.DurationVar(&f.stall, "stall-timeout", manifest.DefaultStallTimeout, "fail a plugin run whose engine shows no progress for this long (0: never)")
	fl.Int64Var(&f.metrics.SlowdownTau, "bsld-tau", f.metrics.SlowdownTau, "runtime floor of bounded slowdown, seconds")
	fl.IntVar(&f.metrics.WarmupJobs, "warmup-jobs", 0, "leave the first N jobs out of the wait and slowdown metrics")
	fl.IntVar(&f.metrics.CooldownJobs, "cooldown-jobs", 0, "leave the last N jobs out of the wait and slowdown metrics")
	fl.StringVar(&f.format, "format", manifest.FormatSWF, "the trace's format: swf, or sacct (a Slurm accounting log, sacct -P output, plain or gzip)")
	fl.StringVar(&f.log.TRES, "tres", "", "a sacct log on nodes: the request from requested (ReqTRES, the default) or allocated (AllocTRES)")
	fl.StringVar(&f.log.Constraints, "constraints", "", "a sacct log on nodes: features joined by & are required (required, the default) or ignored (ignore)")
	fl.StringVar(&f.groups, "groups", "", "a sacct log: each job's group is its Unix group (group, the default) or its Slurm account (account), as multifactor's accounts read it")
	fl.StringVar(&f.priority, "priority", "", "a sacct log: every job's priority is 0 (none, the default) or the log's Priority (log), which order=priority reads")
	fl.StringVar(&f.log.UnknownPartition, "unknown-partition", "", "a sacct log on nodes: a job of a partition --partitions does not name goes to the default partition (default), is dropped (drop) or is bad input (error)")
	f.nodes.register(fl)
	f.outages.register(fl)
	f.power.register(fl)
	f.data.register(fl)
	// Required but for --machine list, which lists the known machines.
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
		if f.nodes.Machine == "list" {
			return nil
		}
		var missing []string
		for _, name := range []string{"trace", "policy"} {
			if !cmd.Flags().Changed(name) {
				missing = append(missing, strconv.Quote(name))
			}
		}
		if len(missing) > 0 {
			return &exitError{exitBadInput, fmt.Errorf("required flag(s) %s not set", strings.Join(missing, ", "))}
		}
		return nil
	}
	return cmd
}

// checkFormat checks --format and the flags that apply to a sacct log
// only, and returns the log's partitions table: for a sacct log,
// --partitions maps the log's partition names ("general-compute=batch")
// rather than SWF partition numbers, and is taken from f.nodes.
func (f *simFlags) checkFormat(cmd *cobra.Command) (map[string]string, error) {
	switch f.format {
	case manifest.FormatSWF:
		for _, name := range []string{"tres", "constraints", "unknown-partition", "groups", "priority"} {
			if cmd.Flags().Changed(name) {
				return nil, fmt.Errorf("--%s applies to a sacct log only (--format %s)", name, manifest.FormatSacct)
			}
		}
		return nil, nil
	case manifest.FormatSacct:
	default:
		return nil, fmt.Errorf("--format %q: want %s or %s", f.format, manifest.FormatSWF, manifest.FormatSacct)
	}
	if g := f.groups; g != "" && g != sacct.GroupsGroup && g != sacct.GroupsAccount {
		return nil, fmt.Errorf("--groups %q: want %s or %s", g, sacct.GroupsGroup, sacct.GroupsAccount)
	}
	if p := f.priority; p != "" && p != manifest.PriorityNone && p != manifest.PriorityLog {
		return nil, fmt.Errorf("--priority %q: want %s or %s", p, manifest.PriorityNone, manifest.PriorityLog)
	}
	if f.nodes.Machine != "" && f.nodes.Partitions == "machine" {
		return nil, fmt.Errorf("--partitions machine maps an SWF trace's partition numbers; a sacct log's partitions are its names (--partitions NAME=PARTITION,...)")
	}
	if f.nodes.Partitions == "" {
		return nil, nil
	}
	table := map[string]string{}
	for _, kv := range strings.Split(f.nodes.Partitions, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--partitions %q: want NAME=PARTITION,... (the log's partition names to the platform's)", f.nodes.Partitions)
		}
		if _, dup := table[k]; dup {
			return nil, fmt.Errorf("--partitions: %q given twice", k)
		}
		table[k] = v
	}
	f.nodes.Partitions = ""
	return table, nil
}

func keyValues(flag string, kvs []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--%s %q: want key=value", flag, kv)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("--%s: %q given twice", flag, k)
		}
		m[k] = v
	}
	return m, nil
}

func runSim(cmd *cobra.Command, f simFlags) error {
	ctx := cmd.Context()
	if f.nodes.Machine == "list" {
		printMachines(cmd.OutOrStdout())
		return nil
	}
	params, err := keyValues("param", f.params)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	cleanKV, err := keyValues("clean", f.clean)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	clean := workload.DefaultClean()
	for _, k := range slices.Sorted(maps.Keys(cleanKV)) {
		if err := clean.Set(k, cleanKV[k]); err != nil {
			return &exitError{exitBadInput, fmt.Errorf("--clean: %w", err)}
		}
	}
	feedback, err := f.feedback.Resolved()
	if err != nil {
		return &exitError{exitBadInput, fmt.Errorf("--%w", err)}
	}
	f.data.seedGiven = cmd.Flags().Changed("transform-seed")
	logPartitions, err := f.checkFormat(cmd)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	r, err := resolver()
	if err != nil {
		return err
	}
	// Resolving hashes the plugin binary: beside the trace's loading.
	var pol *runner.Resolved
	var perr error
	resolved := make(chan struct{})
	go func() {
		defer close(resolved)
		pol, perr = r.Resolve(ctx, f.policy)
	}()
	path, wantSHA, err := resolveTrace(ctx, cmd.ErrOrStderr(), f.trace)
	if err != nil {
		<-resolved
		return &exitError{exitBadInput, err}
	}
	// The platform of nodes, made once; a mistake in its flags is told
	// after the trace's.
	var nodePlat *sdk.Platform
	var mapping *nodes.Settings
	var nodeErr error
	if f.nodes.set() {
		nodePlat, mapping, nodeErr = f.nodes.platform(traceName(path))
	}
	var w *workload.Workload
	if f.format == manifest.FormatSacct {
		// A log has no header giving the machine's size: on nodes it is
		// their cores, else --procs.
		procs := f.procs
		if procs == 0 && nodePlat != nil {
			procs = nodePlat.Clusters[0].Capacity[0]
		}
		w, err = sacct.LoadWorkload(path, procs, clean, feedback, sacct.Options{Groups: f.groups, Priority: f.priority == manifest.PriorityLog})
	} else {
		w, err = workload.LoadSWFWith(path, f.procs, clean, feedback)
	}
	<-resolved
	// A policy that cannot be resolved or built and a trace that cannot be
	// read, or leaves no job, are bad input: nothing ran.
	if perr != nil {
		return &exitError{exitBadInput, perr}
	}
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	if wantSHA != "" && w.SHA256 != wantSHA {
		return &exitError{exitBadInput, fmt.Errorf("%s: %s has sha256 %s, the archive's table %s (delete it from the cache to download it again)",
			f.trace, path, w.SHA256, wantSHA)}
	}
	plat := sdk.SingleCluster(traceName(w.Path), w.Procs)
	jobs := w.Jobs
	bbPlat, resources, err := f.data.platform(traceName(w.Path), w.Procs)
	switch {
	case err != nil:
		return &exitError{exitBadInput, err}
	case bbPlat != nil && f.nodes.set():
		// The burst buffer beside the nodes, on storage nodes of its own.
		if nodeErr == nil {
			manifest.AddResources(nodePlat, resources)
		}
	case bbPlat != nil:
		plat, jobs = bbPlat, runner.ExtendRequests(jobs, bbPlat.Dims())
	}
	var nodeCounts map[string]int64
	if f.nodes.set() {
		if nodeErr != nil {
			return &exitError{exitBadInput, nodeErr}
		}
		plat = nodePlat
		if f.format == manifest.FormatSacct {
			log := f.log
			log.Partitions = logPartitions
			mapping.Log = &log
			if *mapping, err = mapping.Resolved(plat); err != nil {
				return &exitError{exitBadInput, fmt.Errorf("a sacct log on nodes (--tres, --constraints, --unknown-partition, --partitions): %w", err)}
			}
		}
		if jobs, nodeCounts, err = nodes.Apply(plat, w, w.Jobs, *mapping); err != nil {
			return &exitError{exitBadInput, err}
		}
		if len(jobs) == 0 {
			return &exitError{exitBadInput, fmt.Errorf("%s: no job left once mapped onto the nodes (%v)", f.trace, nodeCounts)}
		}
	}
	data, err := f.data.apply(plat, resources, jobs)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	outs, err := f.outages.make(plat, jobs)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	power, err := f.power.make(plat)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	if data.io != nil && outs != nil {
		return &exitError{exitBadInput, errors.New("--io: an I/O model with outages of nodes is not supported yet")}
	}
	// The policy is asked what it declares and the parameters checked
	// before the run, as a campaign does: a policy that does not start or
	// a parameter it does not take is bad input. The process stays for the
	// run.
	procs := &runner.Processes{}
	defer procs.Close()
	info, err := runner.Describe(ctx, pol, f.inProcess, procs)
	if err != nil {
		return &exitError{exitBadInput, err}
	}
	declared := make([]string, len(info.Params))
	for i, d := range info.Params {
		declared[i] = d.Name
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if !slices.Contains(declared, k) {
			return &exitError{exitBadInput, fmt.Errorf("--param: policy %s: unknown parameter %q%s (declared: %s)",
				info.Name, k, manifest.DidYouMean(k, declared), cmp.Or(strings.Join(declared, ", "), "none"))}
		}
	}
	if _, err := sdk.ResolveParams(info.Params, params); err != nil {
		return &exitError{exitBadInput, fmt.Errorf("--param: policy %s: %w", info.Name, err)}
	}
	if pol.Kind == runner.KindReference {
		// What the policy's Init would refuse, refused before the run.
		if _, err := reference.CheckParams(info.Name, params); err != nil {
			return &exitError{exitBadInput, fmt.Errorf("--param: policy %s: %w", info.Name, err)}
		}
	}
	timeout := f.timeout
	if timeout < 0 {
		timeout = runner.DefaultTimeout(len(jobs))
	}
	began := time.Now().UTC()
	spec := runner.Spec{
		Policy: pol, Params: params, Platform: plat, Jobs: jobs, Seed: f.seed,
		ExactEstimates: f.exact, Metrics: f.metrics, InProcess: f.inProcess, Timeout: timeout,
		StallTimeout: f.stall, Processes: procs, Outages: outs.events(), Faults: outs.faults(), Power: power,
		IO: data.io,
	}
	if f.out != "" {
		if err := checkOutDir(f.out); err != nil {
			return &exitError{exitBadInput, fmt.Errorf("--out: %w", err)}
		}
		// The rows are encoded while the metrics are computed; the summary
		// joins the footer at the end. The folder is made then: a run that
		// fails (a policy refusing the platform at its Init) makes none.
		spec.Write = func(out *runner.Outcome, summary func() (metrics.Summary, error)) error {
			if err := os.MkdirAll(filepath.Dir(f.out), 0o755); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			meta := simProvenance(f, pol, out, w, plat, params, began)
			if mapping != nil {
				meta["nodes.mapping"] = jsonText(mapping.Map())
				meta["nodes.counts"] = jsonText(nodeCounts)
				meta["nodes.numbering"] = runner.NodeNumbering(plat)
			}
			outs.addMetadata(meta)
			data.addMetadata(meta, plat)
			x := runner.JobExtras(plat, jobs, out.Records, out.Units, out.Allocs, false)
			x.Outages = runner.OutageRows(plat, jobs, out)
			x.Notes = out.Notes
			if err := addPower(meta, &x, plat, power, jobs, out, f.out); err != nil {
				return err
			}
			return results.WriteJobsThen(f.out, runner.JobRows(jobs, out.Records), x, meta, &results.Later{
				Keys: []string{"summary"},
				Fill: func() (results.Metadata, error) {
					s, err := summary()
					b, _ := json.Marshal(s)
					return results.Metadata{"summary": string(b)}, err
				},
			})
		}
	}
	out, err := runner.Execute(ctx, spec)
	if err != nil {
		return err
	}
	if f.asJSON {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		v := map[string]any{
			"policy": out.Info, "transport": out.Transport, "summary": out.Summary, "stats": out.Stats,
			"workload": workloadJSON(w),
			"nodes":    nodesJSON(plat, mapping, nodeCounts),
		}
		if outs != nil {
			// Left out without outages: the output stays what it was.
			v["outages"] = outs.json()
		}
		if power != nil {
			v["power"] = manifest.PowerSpec(power, plat.Clusters[0].Nodes)
		}
		data.json(v, plat)
		return enc.Encode(v)
	}
	printSummary(cmd.OutOrStdout(), pol, out, w, f)
	if mapping != nil {
		printNodes(cmd.OutOrStdout(), plat, mapping, nodeCounts, out)
	}
	outs.print(cmd.OutOrStdout(), out)
	printPower(cmd.OutOrStdout(), power, out)
	data.print(cmd.OutOrStdout(), out)
	return nil
}

// checkOutDir reports an output file whose folder cannot be made: the
// nearest of its folders that exists is not a folder. It makes nothing.
func checkOutDir(path string) error {
	for d := filepath.Dir(path); ; {
		fi, err := os.Stat(d)
		switch {
		case err == nil && !fi.IsDir():
			return fmt.Errorf("%s is not a folder", d)
		case err == nil:
			return nil
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return err
		}
		up := filepath.Dir(d)
		if up == d {
			return nil
		}
		d = up
	}
}

func simProvenance(f simFlags, pol *runner.Resolved, out *runner.Outcome, w *workload.Workload,
	plat *sdk.Platform, params map[string]string, began time.Time) results.Metadata {
	meta := results.Metadata(runner.BuildProvenance())
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	p := out.Info
	maps.Copy(meta, map[string]string{
		"policy.ref": pol.Ref, "policy.kind": string(pol.Kind), "policy.sha256": pol.SHA256, "policy.identity": pol.Identity,
		"policy.name": p.Name, "policy.version": p.Version, "policy.sdk_version": p.SDKVersion,
		"policy.protocol": strconv.Itoa(p.ProtocolVersion), "policy.params": js(params),
		"transport": out.Transport, "seed": strconv.FormatUint(f.seed, 10),
		"exact_estimates": strconv.FormatBool(f.exact),
		"workload.path":   w.Path, "workload.sha256": w.SHA256,
		"workload.procs_source": w.ProcsSource, "workload.cleaning": js(w.Report),
		"platform": js(plat), "stats": js(out.Stats),
		"start_time": began.Format(time.RFC3339), "end_time": time.Now().UTC().Format(time.RFC3339),
	})
	for k, v := range w.Clean.Settings() {
		meta["clean."+k] = v
	}
	if w.Feedback.Counts != nil {
		// Left out of a replay's file, which stays what it was.
		for k, v := range w.Feedback.Feedback.Settings() {
			meta["workload."+k] = v
		}
		meta["workload.feedback.counts"] = js(w.Feedback.Counts)
	}
	if w.Format != "" {
		// A log other than SWF, as a campaign's.
		meta["workload.format"], meta["workload.read.counts"] = w.Format, js(w.ReadCounts)
		if f.groups == sacct.GroupsAccount {
			meta["workload.groups"] = f.groups
		}
		if f.priority == manifest.PriorityLog {
			meta["workload.priority"] = f.priority
		}
	}
	if len(out.Drains) > 0 {
		// Only a run whose policy drained nodes has it, as a campaign's.
		meta[results.PolicyDrainsKey] = results.EncodePolicyDrains(out.Drains)
	}
	if out.Notes != nil {
		meta[results.PolicyNotesKey] = results.EncodeNotesSummary(out.Notes)
	}
	maps.Copy(meta, f.metrics.Map())
	return meta
}

func printSummary(wr io.Writer, pol *runner.Resolved, out *runner.Outcome, w *workload.Workload, f simFlags) {
	s := out.Summary
	tw := tabwriter.NewWriter(wr, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "trace\t%s (sha256 %.12s…), %d jobs on %d processors (%s)\n", w.Path, w.SHA256, len(w.Jobs), w.Procs, w.ProcsSource)
	for _, c := range w.Report.Counts {
		if c.Jobs > 0 {
			fmt.Fprintf(tw, "cleaning\t%s %d jobs: %s (%s)\n", c.Action, c.Jobs, c.Rule, c.Setting)
		}
	}
	for _, c := range w.Feedback.Counts {
		if c.Jobs > 0 {
			fmt.Fprintf(tw, "feedback\t%s %d jobs: %s (%s)\n", c.Action, c.Jobs, c.Rule, c.Setting)
		}
	}
	fmt.Fprintf(tw, "policy\t%s %s (%s, %s)\n", out.Info.Name, out.Info.Version, pol.Kind, out.Transport)
	if len(f.params) > 0 {
		fmt.Fprintf(tw, "params\t%s\n", strings.Join(slices.Sorted(slices.Values(f.params)), " "))
	}
	fmt.Fprintf(tw, "estimates\t%s\n", map[bool]string{false: "requested walltimes", true: "exact"}[f.exact])
	if s.HasJobStats() {
		fmt.Fprintf(tw, "wait (s)\tmean %.1f  median %.0f  p95 %.0f  max %.0f\n", s.MeanWait, s.MedianWait, s.P95Wait, s.MaxWait)
		fmt.Fprintf(tw, "bounded slowdown\tmean %.2f  max %.1f  (tau %d s)\n", s.MeanBSLD, s.MaxBSLD, f.metrics.SlowdownTau)
	} else {
		fmt.Fprintf(tw, "wait (s)\tnull: no job measured\n")
		fmt.Fprintf(tw, "bounded slowdown\tnull: no job measured  (tau %d s)\n", f.metrics.SlowdownTau)
	}
	if s.HasSpan() {
		fmt.Fprintf(tw, "utilisation\t%.4f over a makespan of %d s\n", s.Utilisation, s.Makespan)
	} else {
		fmt.Fprintf(tw, "utilisation\tnull: no job ran\n")
	}
	fmt.Fprintf(tw, "jobs\t%d measured of %d; %d backfilled, %d killed, %d of %d promises broken\n",
		s.MeasuredJobs, s.Jobs, s.Backfilled, s.Killed, s.PromisesBroken, s.Promised)
	st := out.Stats
	fmt.Fprintf(tw, "engine\t%d events, %d policy calls, policy %.3f s, simulation %.3f s, total %.3f s\n",
		st.Events, st.PolicyCalls, float64(st.PolicyNanos)/1e9, float64(st.WallNanos)/1e9, float64(out.HostNanos)/1e9)
	if len(st.PolicyCounts) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(st.PolicyCounts)) {
			kv = append(kv, fmt.Sprintf("%s %d", k, st.PolicyCounts[k]))
		}
		fmt.Fprintf(tw, "policy counts\t%s\n", strings.Join(kv, ", "))
	}
	if len(out.Drains) > 0 {
		fmt.Fprintf(tw, "policy drains\t%d nodes drained by the policy\n", len(out.Drains))
	}
	if f.out != "" {
		fmt.Fprintf(tw, "output\t%s\n", f.out)
	}
	tw.Flush()
}

// traceName names a platform after its trace file, without folders and
// compression suffixes.
func traceName(path string) string {
	name := filepath.Base(path)
	for _, ext := range []string{".gz", ".swf"} {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}

// workloadJSON is what --json says of the workload: its feedback only when
// it has some, so that a replay's output is what it was.
func workloadJSON(w *workload.Workload) map[string]any {
	out := map[string]any{"path": w.Path, "sha256": w.SHA256, "procs": w.Procs, "cleaning": w.Report}
	if w.Feedback.Counts != nil {
		out["feedback"] = map[string]any{"settings": w.Feedback.Feedback.Settings(), "counts": w.Feedback.Counts}
	}
	return out
}
