package campaign

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/schedlab/schedlab/plugins/reference"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/nodes"
	"github.com/schedlab/schedlab/workload/pwa"
)

// ErrInput is matched by the error of Run and Check when the manifest names
// something that does not work: a trace that is missing, malformed or has
// another sha256, a policy that cannot be resolved, built or started, a
// parameter its policy does not declare or a value of the wrong type. Run
// finds these before it creates or changes anything in the campaign folder.
var ErrInput = errors.New("the manifest names inputs that do not work")

// inputErrors lists every such problem, each at its key's line in the
// manifest, like manifest.Load does for mistakes in the file itself.
type inputErrors struct{ manifest.Errors }

func (e inputErrors) Is(target error) bool { return target == ErrInput }

// Check does what Run does before its first run, without the campaign
// folder: it expands the matrix, resolves (building Go packages) and starts
// every policy the runs use to ask for its parameters, loads and verifies
// every trace, generates the generated workloads, and checks every run's
// parameters against its policy's declarations. The error lists every
// problem found and matches ErrInput.
func Check(ctx context.Context, m *manifest.Manifest, opts Options) error {
	procs := &runner.Processes{MaxRuns: opts.ProcessRuns}
	defer procs.Close()
	_, err := prepare(ctx, m, opts, procs)
	return err
}

// prepare expands the manifest and checks everything that can be checked
// before a run: it returns the tasks, ready to run, or an error matching
// ErrInput listing every problem.
func prepare(ctx context.Context, m *manifest.Manifest, opts Options, procs *runner.Processes) ([]task, error) {
	runs, err := m.Expand()
	if err != nil {
		var es manifest.Errors
		if errors.As(err, &es) {
			return nil, inputErrors{es}
		}
		return nil, err
	}
	if opts.Resolver.Hashes == nil {
		opts.Resolver.Hashes = &runner.FileHashes{}
	}
	pols, errs := resolvePolicies(ctx, m, runs, opts, procs)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	tasks := plan(m, runs, pols, opts.Generators)
	errs = append(errs, checkWorkloads(ctx, m, tasks, opts.Workers, opts.Archive)...)
	errs = append(errs, checkNodeMappings(m, tasks)...)
	errs = append(errs, checkParams(m, tasks)...)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b *manifest.Error) int { return a.Line - b.Line })
		return nil, inputErrors{errs}
	}
	return tasks, nil
}

// resolvePolicies resolves each policy the runs use once (a Go package is
// built once per campaign, and the binary serving the reference policies
// is hashed once) and asks it to describe itself, in a process the runs
// then reuse unless they each get a fresh one.
func resolvePolicies(ctx context.Context, m *manifest.Manifest, runs []manifest.Run, opts Options,
	procs *runner.Processes) (map[string]*policyEntry, manifest.Errors) {
	pols := map[string]*policyEntry{}
	// Policies that differ only by their parameters share one target: it is
	// resolved (and a package built) once.
	targets := map[string]*policyEntry{}
	var errs manifest.Errors
	for _, r := range runs {
		if _, ok := pols[r.Policy]; ok {
			continue
		}
		p := m.Policies[r.Policy]
		if e, ok := targets[p.Target]; ok {
			pols[r.Policy] = e
			if e.err != nil {
				errs = append(errs, m.ErrorAt([]string{"policies", r.Policy, "ref"}, "%v", e.err))
			}
			continue
		}
		e := &policyEntry{}
		e.res, e.err = opts.Resolver.Resolve(ctx, p.Target)
		if e.err == nil {
			lend := procs
			if opts.FreshProcesses || p.FreshProcess {
				lend = nil
			}
			sctx, cancel := context.WithTimeout(ctx, m.Campaign.StartTimeout)
			e.info, e.err = runner.Describe(sctx, e.res, opts.InProcess, lend)
			cancel()
		}
		if e.err != nil {
			errs = append(errs, m.ErrorAt([]string{"policies", r.Policy, "ref"}, "%v", e.err))
		}
		pols[r.Policy] = e
		targets[p.Target] = e
	}
	return pols, errs
}

// checkWorkloads loads every trace the runs use, workers at a time, and
// reports the traces that are missing, malformed or have another sha256 and
// the generated workloads whose generator failed. The runs then use the
// workloads loaded here.
func checkWorkloads(ctx context.Context, m *manifest.Manifest, tasks []task, workers int, archive pwa.Cache) manifest.Errors {
	first := map[*workloadEntry]task{}
	var order []*workloadEntry
	for _, t := range tasks {
		if _, ok := first[t.wl]; !ok {
			first[t.wl] = t
			order = append(order, t.wl)
		}
	}
	g := errgroup.Group{}
	g.SetLimit(max(workers, 1))
	for _, e := range order {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error { _, _ = e.load(ctx, m, archive); return nil })
	}
	_ = g.Wait()
	var errs manifest.Errors
	seen := map[string]bool{}
	for _, e := range order {
		if e.err == nil {
			continue
		}
		name := first[e].run.Workload
		key := []string{"workloads", name, e.errKey}
		// Each replicate of a generated workload fails alike: once.
		if err := m.ErrorAt(key, "%v", e.cause); !seen[err.Error()] {
			seen[err.Error()] = true
			errs = append(errs, err)
		}
	}
	return errs
}

// checkNodeMappings maps each workload onto each platform of nodes it runs
// on (the runs use the result), before anything is written, so that a
// job no node of its partition can hold under oversize = "error", or a
// workload left with no job, is bad input at the platform's key.
func checkNodeMappings(m *manifest.Manifest, tasks []task) manifest.Errors {
	var errs manifest.Errors
	seen := map[*preparedEntry]bool{}
	for _, t := range tasks {
		if seen[t.prep] || t.run.NodeMapping(m) == nil || t.wl.err != nil || t.wl.wl == nil {
			continue
		}
		seen[t.prep] = true
		if _, err := t.prep.prepare(m, t, t.wl.wl); err != nil {
			key := []string{"platforms", t.run.Platform}
			switch {
			case strings.Contains(err.Error(), nodes.SettingUnknownPartition+"="+nodes.PartitionFail):
				key = []string{"workloads", t.run.Workload, "unknown_partition"}
			case strings.Contains(err.Error(), "oversize=error"):
				key = append(key, "oversize")
			}
			errs = append(errs, m.ErrorAt(key, "%v", err))
		}
	}
	return errs
}

// checkParams checks each run's parameters against what its policy
// declares, reporting each problem once, at the matrix axis or the
// policy's params table that gave the value.
func checkParams(m *manifest.Manifest, tasks []task) manifest.Errors {
	var errs manifest.Errors
	seen := map[string]bool{}
	for _, t := range tasks {
		if t.pol.err != nil {
			continue
		}
		declared := t.pol.info.Params
		names := make([]string, len(declared))
		for i, d := range declared {
			names[i] = d.Name
		}
		for _, k := range slices.Sorted(maps.Keys(t.run.Params)) {
			v := t.run.Params[k]
			// An unknown name once per policy, a bad value once per value.
			id := t.run.Policy + "\x00" + k
			if slices.Contains(names, k) {
				id += "\x00" + v
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			who := "policy " + t.run.Policy
			if t.pol.info.Name != t.run.Policy {
				who += " (" + t.pol.info.Name + ")"
			}
			var msg string
			if !slices.Contains(names, k) {
				msg = fmt.Sprintf("%s has no parameter %q%s; it declares: %s", who, k,
					manifest.DidYouMean(k, names), cmp.Or(strings.Join(names, ", "), "none"))
			} else if _, err := sdk.ResolveParams(declared, map[string]string{k: v}); err != nil {
				msg = fmt.Sprintf("%s: %v", who, err)
			} else {
				continue
			}
			errs = append(errs, m.ErrorAt(paramKey(m, t.run.Policy, k), "%s", msg))
		}
		if t.pol.res == nil || t.pol.res.Kind != runner.KindReference {
			continue
		}
		// What a reference policy's Init would refuse, refused before any
		// run, once per policy and values.
		id := t.run.Policy + "\x00check"
		for _, k := range slices.Sorted(maps.Keys(t.run.Params)) {
			id += "\x00" + k + "=" + t.run.Params[k]
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		// An error that names no parameter of the policy's checks is an
		// unknown or ill-typed one, reported above.
		if k, err := reference.CheckParams(t.pol.info.Name, t.run.Params); err != nil && k != "" {
			who := "policy " + t.run.Policy
			if t.pol.info.Name != t.run.Policy {
				who += " (" + t.pol.info.Name + ")"
			}
			errs = append(errs, m.ErrorAt(paramKey(m, t.run.Policy, k), "%s: %v", who, err))
		}
	}
	return errs
}

// paramKey is the manifest key that gave a run its parameter k: the param
// axis when the matrix has one, else the policy's params table, else the
// matrix (an include entry).
func paramKey(m *manifest.Manifest, policy, k string) []string {
	for _, a := range m.Matrix.Axes {
		if a.Name == manifest.ParamAxisPrefix+k {
			return []string{"matrix", a.Name}
		}
	}
	if _, ok := m.Policies[policy].Params[k]; ok {
		return []string{"policies", policy, "params", k}
	}
	return []string{"matrix"}
}
