package campaign

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/nodes"
)

// runsColumn is one column of runs.parquet and how a run fills it.
type runsColumn struct {
	results.Column
	value func(r *RunResult) any
}

// runsColumns lists the columns of runs.parquet, in file order: identity,
// matrix axes (a param axis NAME as param_NAME, typed from its values),
// seeds, status, the summary metrics (metrics.Summary, by JSON name), the
// metric settings, what ran, and timings. docs/results.md describes them.
func runsColumns(m *manifest.Manifest) []runsColumn {
	str := func(f func(r *RunResult) string) func(r *RunResult) any {
		return func(r *RunResult) any { return f(r) }
	}
	optStr := func(f func(r *RunResult) string) func(r *RunResult) any {
		return func(r *RunResult) any {
			if s := f(r); s != "" {
				return s
			}
			return nil
		}
	}
	col := func(name string, k results.Kind, v func(r *RunResult) any) runsColumn {
		return runsColumn{results.Column{Name: name, Kind: k}, v}
	}
	cols := []runsColumn{
		col("run_index", results.Int64, func(r *RunResult) any { return r.Index }),
		col("run_key", results.String, str(func(r *RunResult) string { return r.Key })),
		col("label", results.String, str(func(r *RunResult) string { return r.Label })),
		col("status", results.String, str(func(r *RunResult) string { return r.Status })),
		col("error", results.String, optStr(func(r *RunResult) string { return r.Error })),
	}
	for _, a := range m.Matrix.Axes {
		name := a.Name
		kind := axisKind(a.Values)
		cols = append(cols, col(columnName(a.Name), kind, func(r *RunResult) any {
			v, ok := r.Axes[name]
			if !ok || v == "" { // "": a param axis the run leaves unset
				return nil
			}
			return typed(kind, v)
		}))
	}
	cols = append(cols,
		col("replicate", results.Int64, func(r *RunResult) any { return r.Replicate }),
		col("seed", results.Int64, func(r *RunResult) any { return int64(r.Seed) }),
		col("workload_seed", results.Int64, func(r *RunResult) any { return int64(r.WLSeed) }),
		col("params", results.String, str(func(r *RunResult) string { b, _ := json.Marshal(nonNil(r.Params)); return string(b) })),
	)
	// The grid metrics are columns only of a campaign with a grid.
	grid := false
	for _, w := range m.Workloads {
		grid = grid || len(w.Streams) > 0
	}
	for _, pl := range m.Platforms {
		grid = grid || len(pl.Clusters) > 0
	}
	// So are the node metrics, of a campaign with a platform of nodes.
	nodes := false
	for _, pl := range m.Platforms {
		nodes = nodes || pl.Nodes != nil
	}
	// And the outage metrics, of a campaign with a platform with outages.
	outs := false
	for _, pl := range m.Platforms {
		outs = outs || pl.Outages != nil
	}
	// And the power metrics, of a campaign with a platform with a power
	// model.
	pow := false
	for _, pl := range m.Platforms {
		pow = pow || pl.Power != nil
	}
	// And the I/O metrics, of a campaign with a platform with an I/O
	// model.
	withIO := false
	for _, pl := range m.Platforms {
		withIO = withIO || pl.IO != nil
	}
	// And the feedback metrics, of a campaign with a workload with
	// feedback.
	fb := false
	for _, w := range m.Workloads {
		fb = fb || w.Feedback.Mode != workload.FeedbackNone && w.Feedback.Mode != ""
	}
	st := reflect.TypeFor[metrics.Summary]()
	for i := range st.NumField() {
		f := st.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!grid && slices.Contains(metrics.GridKeys(), name)) || (!nodes && slices.Contains(metrics.NodeKeys(), name)) ||
			(!outs && slices.Contains(metrics.OutageKeys(), name)) || (!fb && slices.Contains(metrics.FeedbackKeys(), name)) ||
			(!pow && slices.Contains(metrics.PowerKeys(), name)) || (!withIO && slices.Contains(metrics.IOKeys(), name)) ||
			f.Type.Kind() == reflect.Map {
			continue
		}
		kind := results.Float64
		if t := f.Type; t.Kind() != reflect.Float64 && (t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Float64) {
			kind = results.Int64
		}
		cols = append(cols, col(name, kind, func(r *RunResult) any {
			v, ok := r.Metrics[name].(float64) // JSON numbers decode as float64
			if !ok {
				return nil
			}
			if kind == results.Int64 {
				return int64(v)
			}
			return v
		}))
	}
	ms := m.Metrics
	cols = append(cols,
		col("bsld_tau", results.Int64, func(*RunResult) any { return ms.SlowdownTau }),
		col("warmup_jobs", results.Int64, func(*RunResult) any { return ms.WarmupJobs }),
		col("cooldown_jobs", results.Int64, func(*RunResult) any { return ms.CooldownJobs }),
		col("policy_name", results.String, optStr(func(r *RunResult) string { return r.Policy.Name })),
		col("policy_version", results.String, optStr(func(r *RunResult) string { return r.Policy.Version })),
		col("policy_sdk_version", results.String, optStr(func(r *RunResult) string { return r.Policy.SDK })),
		col("policy_ref", results.String, optStr(func(r *RunResult) string { return r.Policy.Ref })),
		col("policy_kind", results.String, optStr(func(r *RunResult) string { return r.Policy.Kind })),
		col("policy_sha256", results.String, optStr(func(r *RunResult) string { return r.Policy.SHA256 })),
		col("policy_identity", results.String, optStr(func(r *RunResult) string { return r.Policy.Identity })),
		col("workload_sha256", results.String, optStr(func(r *RunResult) string { return r.WorkloadSHA })),
		col("workload_jobs", results.Int64, func(r *RunResult) any {
			if r.WorkloadSHA == "" {
				return nil
			}
			return r.WorkloadJob
		}),
		col("procs", results.Int64, func(r *RunResult) any {
			if r.Procs == 0 {
				return nil
			}
			return r.Procs
		}),
	)
	cols = append(cols, transformColumns(m)...)
	cols = append(cols, nodeColumns(m)...)
	cols = append(cols, feedbackColumns(m)...)
	cols = append(cols, outageColumns(m)...)
	cols = append(cols, clusterColumns(m)...)
	cols = append(cols,
		col("transport", results.String, optStr(func(r *RunResult) string { return r.Transport })),
		col("process_run", results.Int64, func(r *RunResult) any {
			if r.ProcessRun == 0 {
				return nil
			}
			return r.ProcessRun
		}),
		col("executor", results.String, optStr(func(r *RunResult) string { return r.Executor })),
		col("host", results.String, optStr(func(r *RunResult) string { return r.Host })),
		col("slurm_job_id", results.Int64, func(r *RunResult) any {
			if r.SlurmJobID == 0 {
				return nil
			}
			return r.SlurmJobID
		}),
		col("slurm_array_task_id", results.Int64, func(r *RunResult) any {
			if r.SlurmArrayTaskID == nil {
				return nil
			}
			return *r.SlurmArrayTaskID
		}),
		col("shard", results.String, optStr(func(r *RunResult) string { return r.Shard })),
		col("spec_sha256", results.String, str(func(r *RunResult) string { return r.SpecSHA })),
		col("start_time", results.String, optStr(func(r *RunResult) string { return r.Start })),
		col("end_time", results.String, optStr(func(r *RunResult) string { return r.End })),
		col("wall_seconds", results.Float64, timing(func(r *RunResult) any { return r.WallSeconds })),
		col("sim_seconds", results.Float64, ok(func(r *RunResult) any { return r.SimSeconds })),
		col("policy_seconds", results.Float64, ok(func(r *RunResult) any { return r.PolSeconds })),
		col("events", results.Int64, ok(func(r *RunResult) any { return r.Events })),
		col("policy_calls", results.Int64, ok(func(r *RunResult) any { return r.PolicyCalls })),
	)
	return cols
}

// transformColumns are the columns of the workload transforms, when some
// workload of the manifest has one: transform (its name) and
// transform_NAME for each count the transforms report (manifest.Transform
// Counts), NULL for a run without a transform or not run.
func transformColumns(m *manifest.Manifest) []runsColumn {
	var counts []string
	for _, name := range slices.Sorted(maps.Keys(m.Workloads)) {
		if tr, ok := manifest.LookupTransform(m.Workloads[name].Transform); ok {
			for _, c := range tr.Counts {
				if !slices.Contains(counts, c) {
					counts = append(counts, c)
				}
			}
		}
	}
	if counts == nil {
		return nil
	}
	cols := []runsColumn{{results.Column{Name: "transform", Kind: results.String}, func(r *RunResult) any {
		if r.Transform == "" {
			return nil
		}
		return r.Transform
	}}}
	for _, c := range counts {
		cols = append(cols, runsColumn{results.Column{Name: "transform_" + c, Kind: results.Int64}, func(r *RunResult) any {
			v, ok := r.TransformCounts[c]
			if !ok {
				return nil
			}
			return v
		}})
	}
	return cols
}

// ok is NULL for a run that did not complete.
func ok(f func(r *RunResult) any) func(r *RunResult) any {
	return func(r *RunResult) any {
		if r.Status != StatusOK {
			return nil
		}
		return f(r)
	}
}

// timing is NULL for a run that never started.
func timing(f func(r *RunResult) any) func(r *RunResult) any {
	return func(r *RunResult) any {
		if r.Start == "" {
			return nil
		}
		return f(r)
	}
}

// columnName turns an axis name into a column name that needs no quoting
// in SQL or pandas: param.order becomes param_order.
func columnName(axis string) string {
	return strings.ReplaceAll(axis, ".", "_")
}

// axisKind types an axis column from its values: integers, floats or
// booleans when every value is one, strings otherwise.
func axisKind(values []string) results.Kind {
	all := func(parse func(string) error) bool {
		for _, v := range values {
			if parse(v) != nil {
				return false
			}
		}
		return true
	}
	switch {
	case all(func(s string) error { _, err := strconv.ParseInt(s, 10, 64); return err }):
		return results.Int64
	case all(func(s string) error { _, err := strconv.ParseFloat(s, 64); return err }):
		return results.Float64
	case all(func(s string) error { _, err := strconv.ParseBool(s); return err }) && allWords(values):
		return results.Bool
	}
	return results.String
}

// allWords keeps "1" and "0" from counting as booleans.
func allWords(values []string) bool {
	for _, v := range values {
		if v != "true" && v != "false" {
			return false
		}
	}
	return true
}

func typed(k results.Kind, v string) any {
	switch k {
	case results.Int64:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	case results.Float64:
		f, _ := strconv.ParseFloat(v, 64)
		return f
	case results.Bool:
		return v == "true"
	}
	return v
}

// writeRuns rebuilds runs.parquet from the runs' results.
func writeRuns(dir string, m *manifest.Manifest, prov map[string]string, runs []RunResult) error {
	cols := runsColumns(m)
	rc := make([]results.Column, len(cols))
	for i, c := range cols {
		rc[i] = c.Column
	}
	rows := make([][]any, len(runs))
	for i := range runs {
		row := make([]any, len(cols))
		for j, c := range cols {
			row[j] = c.value(&runs[i])
		}
		rows[i] = row
	}
	meta := results.Metadata(maps.Clone(prov))
	counts := map[string]int{}
	for _, r := range runs {
		counts[r.Status]++
	}
	maps.Copy(meta, map[string]string{
		"campaign.name": m.Campaign.Name, "campaign.seed": strconv.FormatInt(m.Campaign.Seed, 10),
		"campaign.runs": strconv.Itoa(len(runs)), "campaign.ok": strconv.Itoa(counts[StatusOK]),
		"campaign.failed": strconv.Itoa(counts[StatusFailed]), "campaign.pending": strconv.Itoa(counts[StatusPending]),
		"written_time": time.Now().UTC().Format(time.RFC3339),
	})
	maps.Copy(meta, m.Metrics.Map())
	var axes []string
	for _, a := range m.Matrix.Axes {
		axes = append(axes, columnName(a.Name))
	}
	axesJSON, _ := json.Marshal(axes)
	meta[results.AxesKey] = string(axesJSON)
	if err := results.WriteTable(filepath.Join(dir, RunsFile), rc, rows, meta); err != nil {
		return fmt.Errorf("campaign %s: %w", m.Campaign.Name, err)
	}
	return nil
}

// clusterColumns are the utilisation of each cluster of the manifest's
// grids, utilisation_NAME (metrics.Summary.ClusterUtilisation), NULL for a
// run on a platform without that cluster or not run.
func clusterColumns(m *manifest.Manifest) []runsColumn {
	var names []string
	for _, pl := range m.Platforms {
		for _, c := range pl.Clusters {
			if !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
	}
	slices.Sort(names)
	var cols []runsColumn
	for _, name := range names {
		cols = append(cols, runsColumn{results.Column{Name: "utilisation_" + name, Kind: results.Float64}, func(r *RunResult) any {
			u, ok := r.Metrics["cluster_utilisation"].(map[string]any)
			if !ok {
				return nil
			}
			if v, ok := u[name].(float64); ok {
				return v
			}
			return nil
		}})
	}
	return cols
}

// feedbackColumns are the counts of the workloads' feedback, when some
// workload of the manifest has feedback: feedback_NAME for each rule
// (feedback_dependent, feedback_session_break, ...), NULL for a run of a
// replay or not run, 0 where the rule touched no job. A manifest without
// feedback has none, so that its runs.parquet keeps its columns.
func feedbackColumns(m *manifest.Manifest) []runsColumn {
	some := false
	for _, w := range m.Workloads {
		some = some || w.Feedback.Mode != workload.FeedbackNone && w.Feedback.Mode != ""
	}
	if !some {
		return nil
	}
	var cols []runsColumn
	for _, c := range workload.FeedbackRuleNames() {
		cols = append(cols, runsColumn{results.Column{Name: "feedback_" + strings.ReplaceAll(c, "-", "_"), Kind: results.Int64}, func(r *RunResult) any {
			if r.FeedbackCounts == nil {
				return nil
			}
			return r.FeedbackCounts[c]
		}})
	}
	return cols
}

// nodeColumns are the counts of the mapping onto nodes, when some platform
// of the manifest has nodes: nodes_NAME for each count of workload/nodes
// (nodes_exclusive, nodes_memory-unknown, ...), NULL for a run on a pool
// or not run, 0 where the rule touched no job.
func nodeColumns(m *manifest.Manifest) []runsColumn {
	some := false
	for _, pl := range m.Platforms {
		some = some || pl.Nodes != nil
	}
	if !some {
		return nil
	}
	names := nodes.CountNames()
	for _, w := range m.Workloads {
		if w.Log != nil {
			// A sacct log's counts, only then, so that the columns of
			// the campaigns of SWF traces are what they were.
			names = append(names, nodes.LogCountNames()...)
			break
		}
	}
	var cols []runsColumn
	for _, c := range names {
		cols = append(cols, runsColumn{results.Column{Name: "nodes_" + strings.ReplaceAll(c, "-", "_"), Kind: results.Int64}, func(r *RunResult) any {
			if r.NodeCounts == nil {
				return nil
			}
			return r.NodeCounts[c]
		}})
	}
	return cols
}
