package main

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/runner/campaign"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/workload"
)

// simCommand returns the `schedlab sim` command line that runs one run of
// a campaign alone, with the run's settings: its trace and cleaning, its
// platform size, its policy and parameters, the seed of its policy's
// random stream, its estimates and metrics settings. ok is false for a run
// sim cannot express: a generated workload, a transform, streams or
// partitions, a platform with more than processors.
func simCommand(m *manifest.Manifest, run manifest.Run, seed uint64) (cmd string, ok bool) {
	w, known := m.Workloads[run.Workload]
	pol, polKnown := m.Policies[run.Policy]
	if !known || !polKnown || w.Trace == "" || w.Generator != "" || w.Transform != "" || len(w.Streams) > 0 || len(w.Partitions) > 0 {
		return "", false
	}
	args := []string{"schedlab", "sim", "--trace", traceArg(w.Trace), "--policy", policyArg(pol)}
	if run.Platform != "" {
		pl := m.Platforms[run.Platform]
		if len(pl.Resources) > 0 || len(pl.Clusters) > 0 || pl.Nodes != nil {
			return "", false
		}
	}
	if procs := run.Procs(m); procs > 0 {
		args = append(args, "--procs", strconv.FormatInt(procs, 10))
	}
	def := workload.DefaultClean().Settings()
	set := w.Clean.Settings()
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if set[k] != def[k] {
			args = append(args, "--clean", k+"="+set[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(run.Params)) {
		args = append(args, "--param", k+"="+run.Params[k])
	}
	args = append(args, "--seed", strconv.FormatUint(seed, 10))
	if run.ExactEstimates() {
		args = append(args, "--exact")
	}
	if d := metrics.DefaultSettings(); m.Metrics.SlowdownTau != d.SlowdownTau && m.Metrics.SlowdownTau > 0 {
		args = append(args, "--bsld-tau", strconv.FormatInt(m.Metrics.SlowdownTau, 10))
	}
	if m.Metrics.WarmupJobs > 0 {
		args = append(args, "--warmup-jobs", strconv.Itoa(m.Metrics.WarmupJobs))
	}
	if m.Metrics.CooldownJobs > 0 {
		args = append(args, "--cooldown-jobs", strconv.Itoa(m.Metrics.CooldownJobs))
	}
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " "), true
}

// traceArg is a trace as sim takes it: an archive log by name, else its
// path, relative to the working directory when under it.
func traceArg(trace string) string {
	if strings.Contains(trace, ":") && !strings.HasPrefix(trace, "/") {
		return trace // pwa:NAME
	}
	return display(trace)
}

// policyArg is a policy as sim takes it: a reference policy's name or an
// import path as written, a path (absolute in the manifest) relative to the
// working directory when under it, written so that sim reads it as a path.
func policyArg(p manifest.Policy) string {
	if p.Kind != manifest.RefPath {
		return p.Target
	}
	d := display(p.Target)
	if !strings.HasPrefix(d, "/") && !strings.HasPrefix(d, "./") && !strings.HasPrefix(d, "../") {
		d = "./" + d
	}
	return d
}

// shellSafe are arguments a POSIX shell takes as they are.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=,@+%-]+$`)

// shellQuote quotes an argument for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// reproducer returns what printFailures says of a failed run: the sim
// command that runs it alone, or why there is none. It maps the report's
// runs to the manifest's by index.
func reproducer(m *manifest.Manifest) func(campaign.RunResult) string {
	runs, err := m.Expand()
	if err != nil {
		return nil // the campaign ran, so the manifest expands
	}
	return func(r campaign.RunResult) string {
		if r.Index < 0 || r.Index >= len(runs) || runs[r.Index].Label() != r.Label {
			return ""
		}
		if cmd, ok := simCommand(m, runs[r.Index], r.Seed); ok {
			return "alone: " + cmd
		}
		return "alone: not as one schedlab sim (its workload or platform is more than a trace on processors); schedlab run --resume runs the failed runs again"
	}
}
