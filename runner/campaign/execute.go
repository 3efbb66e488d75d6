package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
)

// execute performs one run and writes its jobs file. A panic anywhere in
// it fails the run, not the campaign.
func execute(ctx context.Context, m *manifest.Manifest, dir string, t task, opts Options, procs *runner.Processes) (res RunResult) {
	res = pending(t)
	began := time.Now()
	res.Start = began.UTC().Format(time.RFC3339Nano)
	ex := opts.Executor
	res.Executor, res.Host = ex.Name, ex.Host
	if ex.Name == ExecutorSlurm {
		res.SlurmJobID = ex.SlurmJobID
		if ex.SlurmArrayTaskID >= 0 {
			res.SlurmArrayTaskID = &ex.SlurmArrayTaskID
		}
	}
	fail := func(err error) RunResult {
		if ctx.Err() == nil && pluginKilled(err) {
			// A signal that stops the campaign (Slurm's scancel or time
			// limit signals every process of the job) may reach the plugin
			// first: give it a moment to reach this process too.
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
		}
		if ctx.Err() != nil {
			// The campaign was stopped (interrupt, --fail-fast): whatever
			// the run's error, it did not fail on its own.
			res.Status = StatusPending
			return res
		}
		res.Status, res.Error = StatusFailed, err.Error()
		res.End = time.Now().UTC().Format(time.RFC3339Nano)
		res.WallSeconds = time.Since(began).Seconds()
		return res
	}
	defer func() {
		if p := recover(); p != nil {
			res = fail(fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
		}
	}()
	if t.pol.err != nil {
		return fail(t.pol.err)
	}
	wl, err := t.wl.load(ctx, m, opts.Archive)
	if err != nil {
		return fail(err)
	}
	res.WorkloadSHA, res.WorkloadJob, res.Procs = wl.SHA256, len(wl.Jobs), wl.Procs
	prep, err := t.prep.prepare(m, t, wl)
	if err != nil {
		return fail(err)
	}
	if prep.counts != nil {
		res.Transform, res.TransformCounts = m.Workloads[t.run.Workload].Transform, prep.counts
	}
	res.NodeCounts = prep.nodeCounts
	if wl.Feedback.Counts != nil {
		res.FeedbackCounts = map[string]int64{}
		for _, c := range wl.Feedback.Counts {
			res.FeedbackCounts[c.Rule] = int64(c.Jobs)
		}
	}
	plat, jobs := prep.plat, prep.jobs
	outs, outCounts, err := runOutages(m.Platforms[t.run.Platform], plat, jobs, t.seeds.Outages)
	if err != nil {
		return fail(err)
	}
	res.OutageCounts = outCounts
	var faults sim.Faults
	if s := m.Platforms[t.run.Platform].Outages; s != nil {
		faults = s.Faults
	}
	if opts.FreshProcesses || m.Policies[t.run.Policy].FreshProcess {
		procs = nil
	}
	log := &boundedLog{max: LogLimit}
	timeout := m.Campaign.Timeout
	if !m.Campaign.TimeoutSet {
		timeout = runner.DefaultTimeout(len(jobs))
	}
	// The jobs file is encoded while the metrics are computed; the summary
	// joins its footer at the end.
	write := func(out *runner.Outcome, summary func() (metrics.Summary, error)) error {
		res.Policy.Name, res.Policy.Version, res.Policy.SDK = out.Info.Name, out.Info.Version, out.Info.SDKVersion
		meta := jobsMetadata(m, opts.provenance, t, res, wl, plat, out)
		if prep.mapping != nil {
			meta["nodes.mapping"] = jsonString(prep.mapping.Map())
			meta["nodes.counts"] = jsonString(prep.nodeCounts)
			meta["nodes.numbering"] = runner.NodeNumbering(plat)
		}
		if outCounts != nil {
			meta["outages.settings"] = jsonString(manifest.OutagesSpec(m.Platforms[t.run.Platform].Outages))
			meta["outages.counts"] = jsonString(outCounts)
			meta[results.OutagesKey] = results.EncodeOutages(outs)
		}
		x := runner.JobExtras(plat, jobs, out.Records, out.Units, out.Allocs, t.wl.parts != nil)
		x.Outages = runner.OutageRows(plat, jobs, out)
		x.Notes = out.Notes
		if im := m.Platforms[t.run.Platform].IO; im != nil {
			meta["io.model"] = jsonString(manifest.IOSpec(im, plat.Resources))
		}
		if pm := m.Platforms[t.run.Platform].Power; pm != nil {
			meta["power.model"] = jsonString(manifest.PowerSpec(pm, plat.Clusters[0].Nodes))
			var counts *metrics.TableCounts
			x.Power, counts = runner.PowerRows(plat, pm, jobs, out)
			if counts != nil {
				meta["power.counts"] = jsonString(counts)
			}
			// The power file first: a jobs file with its final name
			// then has its power file beside it.
			if err := writePower(dir, t.key, out, meta); err != nil {
				return err
			}
		}
		return results.WriteJobsThen(JobsPath(dir, t.key), runner.JobRows(jobs, out.Records), x, meta,
			&results.Later{Keys: []string{"summary"}, Fill: func() (results.Metadata, error) {
				s, err := summary()
				b, _ := json.Marshal(s)
				return results.Metadata{"summary": string(b)}, err
			}})
	}
	ms := m.Metrics
	ms.Grid = t.wl.parts != nil
	out, err := runner.Execute(ctx, runner.Spec{
		Policy: t.pol.res, Params: t.run.Params, Platform: plat, Jobs: jobs, Seed: t.seeds.Policy,
		Outages: outs, Faults: faults, Power: m.Platforms[t.run.Platform].Power, IO: m.Platforms[t.run.Platform].IO,
		ExactEstimates: t.run.ExactEstimates(), Metrics: ms,
		InProcess: opts.InProcess && t.pol.res.Kind == runner.KindReference,
		Timeout:   timeout, StallTimeout: m.Campaign.StallTimeout, StartTimeout: m.Campaign.StartTimeout,
		Processes: procs, Log: log, Write: write,
	})
	if lerr := log.writeTo(dir, t.key); lerr != nil {
		err = errors.Join(err, lerr)
	} else if log.n > 0 {
		res.Log = filepath.ToSlash(filepath.Join(LogsDir, t.key+".log"))
	}
	if err != nil {
		return fail(err)
	}
	res.Transport, res.ProcessRun = out.Transport, out.ProcessRun
	if res.JobsSHA256, err = runner.FileSHA256(JobsPath(dir, t.key)); err != nil {
		return fail(err)
	}
	if out.Power != nil {
		if res.PowerSHA256, err = runner.FileSHA256(PowerPath(dir, t.key)); err != nil {
			return fail(err)
		}
	}
	res.Status = StatusOK
	res.Metrics = summaryMap(out)
	res.Events, res.PolicyCalls = out.Stats.Events, out.Stats.PolicyCalls
	res.PolicyCounts = out.Stats.PolicyCounts
	res.PolicyDrains = int64(len(out.Drains))
	res.SimSeconds, res.PolSeconds = float64(out.Stats.WallNanos)/1e9, float64(out.Stats.PolicyNanos)/1e9
	res.End = time.Now().UTC().Format(time.RFC3339Nano)
	res.WallSeconds = time.Since(began).Seconds()
	return res
}

// boundedLog keeps the first max bytes written to it and counts the rest.
type boundedLog struct {
	mu  sync.Mutex
	max int
	buf []byte
	n   int64 // bytes written in all
}

func (l *boundedLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n += int64(len(b))
	if room := l.max - len(l.buf); room > 0 {
		l.buf = append(l.buf, b[:min(len(b), room)]...)
	}
	return len(b), nil
}

// writeTo writes the log of the run with the given key into the campaign
// folder, when there is one.
func (l *boundedLog) writeTo(dir, key string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, LogsDir), 0o755); err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, LogsDir, key+".log"), func(w io.Writer) error {
		if _, err := w.Write(l.buf); err != nil {
			return err
		}
		if dropped := l.n - int64(len(l.buf)); dropped > 0 {
			_, err := fmt.Fprintf(w, "\n[schedlab: the plugin wrote %d bytes more, not kept: a log keeps %d]\n", dropped, l.max)
			return err
		}
		return nil
	})
}

// writePower writes the power file of the run with the given key, with
// the jobs file's provenance.
func writePower(dir, key string, out *runner.Outcome, meta results.Metadata) error {
	if err := os.MkdirAll(filepath.Join(dir, PowerDir), 0o755); err != nil {
		return err
	}
	return results.WritePowerSeries(PowerPath(dir, key), runner.PowerSteps(out), meta)
}

// PowerPath is the power file of the run with the given key.
func PowerPath(dir, key string) string { return results.CampaignPowerPath(dir, key) }

// JobsPath is the jobs file of the run with the given key.
func JobsPath(dir, key string) string { return results.CampaignJobsPath(dir, key) }

func statusPath(dir, key string) string { return filepath.Join(dir, StatusDir, key+".json") }

// summaryMap holds the summary metrics by their JSON names.
func summaryMap(out *runner.Outcome) map[string]any {
	b, _ := json.Marshal(out.Summary)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// jobsMetadata is the provenance of a jobs file. It holds only what
// determines the records, so that running a campaign twice gives
// byte-identical jobs files; times and durations are in the status file
// and runs.parquet.
func jobsMetadata(m *manifest.Manifest, prov map[string]string, t task, res RunResult, wl *workload.Workload,
	plat *sdk.Platform, out *runner.Outcome) results.Metadata {
	meta := results.Metadata(maps.Clone(prov))
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	p := out.Info
	// The trace's file name, not its path: where a campaign or its data
	// lives must not change its files (the sha256 identifies the trace).
	wlFile := filepath.Base(wl.Path)
	maps.Copy(meta, map[string]string{
		"campaign.name": m.Campaign.Name, "campaign.seed": strconv.FormatInt(m.Campaign.Seed, 10),
		"run.key": t.key, "run.index": strconv.Itoa(t.run.Index), "run.label": res.Label,
		"run.spec": string(t.spec), "run.replicate": strconv.Itoa(t.run.Replicate),
		"policy.ref": t.pol.res.Ref, "policy.kind": string(t.pol.res.Kind), "policy.sha256": t.pol.res.SHA256,
		"policy.identity": t.pol.res.Identity,
		"policy.name":     p.Name, "policy.version": p.Version, "policy.sdk_version": p.SDKVersion,
		"policy.protocol": strconv.Itoa(p.ProtocolVersion), "policy.params": js(nonNil(t.run.Params)),
		"seed": strconv.FormatUint(t.seeds.Policy, 10), "workload.seed": strconv.FormatUint(t.seeds.Workload, 10),
		"exact_estimates": strconv.FormatBool(t.run.ExactEstimates()),
		"workload.name":   t.run.Workload, "workload.file": wlFile, "workload.sha256": wl.SHA256,
		"workload.procs_source": wl.ProcsSource, "workload.cleaning": js(wl.Report),
		"platform":     js(plat),
		"stats.events": strconv.FormatInt(out.Stats.Events, 10), "stats.policy_calls": strconv.FormatInt(out.Stats.PolicyCalls, 10),
	})
	if t.pol.res.Python != "" {
		meta["policy.python"] = t.pol.res.Python
	}
	if out.Stats.PolicyCounts != nil {
		// Counts depend on the run's inputs only, so the file stays
		// byte-identical across reruns.
		meta["stats.policy_counts"] = js(out.Stats.PolicyCounts)
	}
	if len(out.Drains) > 0 {
		// Only a run whose policy drained nodes has these keys: every
		// other file is what it was before policies could drain.
		meta["stats.policy_drains"] = strconv.Itoa(len(out.Drains))
		meta[results.PolicyDrainsKey] = results.EncodePolicyDrains(out.Drains)
	}
	if out.Notes != nil {
		meta[results.PolicyNotesKey] = results.EncodeNotesSummary(out.Notes)
	}
	for k, v := range wl.Clean.Settings() {
		meta["clean."+k] = v
	}
	if wl.Feedback.Counts != nil {
		// Left out of a replay's files, which stay what they were.
		for k, v := range wl.Feedback.Feedback.Settings() {
			meta["workload."+k] = v
		}
		meta["workload.feedback.counts"] = js(wl.Feedback.Counts)
	}
	if wl.Format != "" {
		// A log other than SWF: its format and what reading it did.
		meta["workload.format"], meta["workload.read.counts"] = wl.Format, js(wl.ReadCounts)
		if g := m.Workloads[t.run.Workload].Groups; g != "" {
			meta["workload.groups"] = g
		}
		if p := m.Workloads[t.run.Workload].Priority; p != "" {
			meta["workload.priority"] = p
		}
	}
	if t.wl.parts != nil {
		meta["workload.streams"] = js(t.wl.streamReports)
	}
	if res.Transform != "" {
		w := m.Workloads[t.run.Workload]
		meta["workload.transform"] = w.Transform
		meta["workload.transform.params"] = js(nonNil(w.TransformParams))
		meta["workload.transform.seed"] = strconv.FormatUint(t.seeds.Transform, 10)
		meta["workload.transform.counts"] = js(res.TransformCounts)
	}
	maps.Copy(meta, m.Metrics.Map())
	return meta
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// pluginKilled reports whether a run's error says its plugin process died
// or its connection broke (sdk/host's messages), as when a signal meant for
// the whole job reaches the plugin before the host.
func pluginKilled(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "plugin process died") || strings.Contains(msg, "plugin connection failed")
}

// jsonString is v as JSON.
func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
