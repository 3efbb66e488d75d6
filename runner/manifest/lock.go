package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/pwa"
)

// Lock is the [lock] table of a campaign's manifest.lock.toml: how the
// manifest was resolved when the campaign ran. It is informational (what
// reruns compare against); runs are defined by the rest of the file.
type Lock struct {
	// Schedlab is the version of schedlab that wrote the lock, and
	// Revision and Modified the VCS state of its build ("unknown" when the
	// binary does not record it).
	Schedlab, Revision, Modified string
	// Source is the path of the manifest the campaign was started from, as
	// given on the command line, and SourceSHA256 the sha256 of its text.
	Source, SourceSHA256 string
	// Policies records, by policy name, the resolved plugin.
	Policies map[string]LockedPolicy
}

// LockedPolicy is how one policy was resolved.
type LockedPolicy struct {
	// Kind is reference, binary or package (runner.Kind).
	Kind string
	// SHA256 is the sha256 of the plugin binary that ran, and Identity what
	// stood for its code in run keys (runner.Resolved.Identity).
	SHA256, Identity string
	// Name, Version and SDK are what the plugin reported about itself.
	Name, Version, SDK string
}

type rawLock struct {
	Schedlab     string                     `toml:"schedlab"`
	Revision     string                     `toml:"revision"`
	Modified     string                     `toml:"modified"`
	Source       string                     `toml:"source"`
	SourceSHA256 string                     `toml:"source_sha256"`
	Policies     map[string]rawLockedPolicy `toml:"policies"`
}

type rawLockedPolicy struct {
	Kind     string `toml:"kind"`
	SHA256   string `toml:"sha256"`
	Identity string `toml:"identity"`
	Name     string `toml:"name"`
	Version  string `toml:"version"`
	SDK      string `toml:"sdk"`
}

func (p *parser) lock(rl *rawLock) *Lock {
	if rl == nil {
		return nil
	}
	l := &Lock{Schedlab: rl.Schedlab, Revision: rl.Revision, Modified: rl.Modified,
		Source: rl.Source, SourceSHA256: rl.SourceSHA256, Policies: map[string]LockedPolicy{}}
	for name, rp := range rl.Policies {
		l.Policies[name] = LockedPolicy(rp)
	}
	return l
}

// WriteLock writes m as a manifest whose relative paths are relative to
// dir (the campaign folder that will hold it), with every default spelled
// out, campaign.out set to "." and lock as its [lock] table. Loading the
// result from dir gives a manifest whose runs have the same specs as m's,
// so the same keys when the plugins and workloads hash the same.
func (m *Manifest) WriteLock(w io.Writer, dir string, lock Lock) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The fully resolved manifest of this campaign, written by schedlab %s.\n", lock.Schedlab)
	fmt.Fprintf(&b, "# Paths are relative to this folder. `schedlab run --resume DIR` and\n")
	fmt.Fprintf(&b, "# `schedlab rerun DIR` read it; [lock] records how it was resolved.\n\n")

	c := m.Campaign
	fmt.Fprintf(&b, "[campaign]\nname = %s\nseed = %d\nreplicates = %d\nout = \".\"\n", quote(c.Name), c.Seed, c.Replicates)
	if c.TimeoutSet {
		fmt.Fprintf(&b, "timeout = %s\n", quote(c.Timeout.String()))
	}
	fmt.Fprintf(&b, "stall_timeout = %s\nstart_timeout = %s\n", quote(c.StallTimeout.String()), quote(c.StartTimeout.String()))
	fmt.Fprintf(&b, "\n[metrics]\nbsld_tau = %d\nwarmup_jobs = %d\ncooldown_jobs = %d\n",
		m.Metrics.SlowdownTau, m.Metrics.WarmupJobs, m.Metrics.CooldownJobs)

	for _, name := range sortedKeys(m.Platforms) {
		pl := m.Platforms[name]
		if t := m.platformTree(name); t != nil {
			if err := writeTree(&b, dir, m.Dir, []string{"platforms", name}, t); err != nil {
				return err
			}
			continue
		}
		if len(pl.Clusters) > 0 {
			for _, c := range pl.Clusters {
				fmt.Fprintf(&b, "\n[platforms.%s.clusters.%s]\nprocs = %d\nprice_factor = %s\n", bareKey(name), bareKey(c.Name), c.Procs,
					strconv.FormatFloat(c.PriceFactor, 'g', -1, 64))
				if len(c.Features) > 0 {
					fmt.Fprintf(&b, "features = %s\n", quoteList(c.Features))
				}
			}
			continue
		}
		fmt.Fprintf(&b, "\n[platforms.%s]\nprocs = %d\n", bareKey(name), pl.Procs)
		for _, r := range pl.Resources {
			fmt.Fprintf(&b, "[platforms.%s.resources.%s]\n", bareKey(name), bareKey(r.Name))
			if r.Units > 0 {
				fmt.Fprintf(&b, "units = %d\nunit_capacity = %d\npieces_by = %s\n", r.Units, r.UnitCapacity, quote(r.PiecesBy))
			} else {
				fmt.Fprintf(&b, "capacity = %d\n", r.Capacity)
			}
		}
	}
	for _, name := range sortedKeys(m.Workloads) {
		wl := m.Workloads[name]
		fmt.Fprintf(&b, "\n[workloads.%s]\n", bareKey(name))
		if len(wl.Streams) > 0 {
			if wl.SeedName != "" {
				fmt.Fprintf(&b, "seed_name = %s\n", quote(wl.SeedName))
			}
			for _, st := range wl.Streams {
				fmt.Fprintf(&b, "[workloads.%s.streams.%s]\nworkload = %s\n", bareKey(name), bareKey(st.Name), quote(st.Workload))
				if st.To > 0 {
					fmt.Fprintf(&b, "window = [%d, %d]\n", st.From, st.To)
				}
				if st.MinRuntime > 0 {
					fmt.Fprintf(&b, "min_runtime = %d\n", st.MinRuntime)
				}
				num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
				if st.Global() {
					fmt.Fprintf(&b, "payment = [%s, %s]\ntransfer = %d\n", num(st.Payment[0]), num(st.Payment[1]), st.Transfer)
					if st.Budget > 0 {
						fmt.Fprintf(&b, "budget = %s\nbudget_period = %d\n", num(st.Budget), st.BudgetPeriod)
					}
					if len(st.Require) > 0 {
						fmt.Fprintf(&b, "require = %s\nrequire_share = %s\n", quoteList(st.Require), num(st.RequireShare))
					}
				} else {
					fmt.Fprintf(&b, "home = %s\npriority = [%s, %s]\n", quote(st.Home), num(st.Priority[0]), num(st.Priority[1]))
				}
			}
			continue
		}
		if wl.Trace != "" {
			trace := wl.Trace
			if !strings.HasPrefix(trace, pwa.Scheme) {
				trace = relPath(dir, trace)
			}
			fmt.Fprintf(&b, "trace = %s\nsha256 = %s\n", quote(trace), quote(wl.SHA256))
		} else {
			fmt.Fprintf(&b, "generator = %s\nparams = %s\n", quote(wl.Generator), inlineTable(wl.Params))
		}
		fmt.Fprintf(&b, "procs = %d\nclean = %s\n", wl.Procs, inlineTable(wl.Clean.Settings()))
		if fb := wl.Feedback.Settings(); fb != nil {
			fmt.Fprintf(&b, "feedback = %s\n", quote(fb[workload.SettingFeedback]))
			if t, ok := fb[workload.SettingSessionThreshold]; ok {
				fmt.Fprintf(&b, "session_threshold = %s\n", t)
			}
			fmt.Fprintf(&b, "unknown_wait = %s\n", quote(fb[workload.SettingUnknownWait]))
		}
		if wl.Transform != "" {
			fmt.Fprintf(&b, "transform = %s\ntransform_params = %s\n", quote(wl.Transform), inlineTable(wl.TransformParams))
		}
		if wl.SeedName != "" {
			fmt.Fprintf(&b, "seed_name = %s\n", quote(wl.SeedName))
		}
		if err := m.writeWorkloadExtras(&b, name); err != nil {
			return err
		}
	}
	for _, name := range sortedKeys(m.Policies) {
		pol := m.Policies[name]
		ref := pol.Ref
		if pol.Kind == RefPath {
			ref = relPath(dir, pol.Target)
		}
		fmt.Fprintf(&b, "\n[policies.%s]\nref = %s\n", bareKey(name), quote(ref))
		if len(pol.Params) > 0 {
			fmt.Fprintf(&b, "params = %s\n", inlineTable(pol.Params))
		}
		if pol.FreshProcess {
			b.WriteString("fresh_process = true\n")
		}
		if pol.Cost != 1 && pol.Cost != 0 {
			fmt.Fprintf(&b, "cost = %s\n", strconv.FormatFloat(pol.Cost, 'g', -1, 64))
		}
	}

	b.WriteString("\n[matrix]\n")
	for _, a := range m.Matrix.Axes {
		vals := make([]string, len(a.Values))
		for i, v := range a.Values {
			vals[i] = quote(v)
		}
		fmt.Fprintf(&b, "%s = [%s]\n", bareKey(a.Name), strings.Join(vals, ", "))
	}
	for _, what := range []struct {
		name    string
		entries []Entry
	}{{"exclude", m.Matrix.Exclude}, {"include", m.Matrix.Include}} {
		if len(what.entries) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s = [\n", what.name)
		for _, e := range what.entries {
			fmt.Fprintf(&b, "  %s,\n", inlineTable(e.Values))
		}
		b.WriteString("]\n")
	}

	fmt.Fprintf(&b, "\n[lock]\nschedlab = %s\nrevision = %s\nmodified = %s\nsource = %s\nsource_sha256 = %s\n",
		quote(lock.Schedlab), quote(lock.Revision), quote(lock.Modified), quote(lock.Source), quote(lock.SourceSHA256))
	for _, name := range sortedKeys(lock.Policies) {
		lp := lock.Policies[name]
		fmt.Fprintf(&b, "\n[lock.policies.%s]\nkind = %s\nsha256 = %s\nidentity = %s\nname = %s\nversion = %s\nsdk = %s\n",
			bareKey(name), quote(lp.Kind), quote(lp.SHA256), quote(lp.Identity), quote(lp.Name), quote(lp.Version), quote(lp.SDK))
	}
	_, err = w.Write(b.Bytes())
	return err
}

// relPath writes path relative to dir with forward slashes, starting with
// ./ or ../ so that the manifest reads it as a path; absolute when no
// relative path exists (another volume).
func relPath(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	rel = filepath.ToSlash(rel)
	if !strings.HasPrefix(rel, "../") && rel != ".." {
		rel = "./" + rel
	}
	return rel
}

// quote writes s as a TOML basic string. JSON string escapes (\" \\ \n
// \uXXXX ...) are all valid TOML escapes.
// quoteList returns a TOML array of strings.
func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic("manifest: encoding a string: " + err.Error()) // cannot fail for a string
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// bareKey writes a key bare when TOML allows it, quoted otherwise (a name
// with a dot, such as the axis param.order).
func bareKey(k string) string {
	for _, r := range k {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// inlineTable writes string values as a TOML inline table, keys sorted.
// Values stay strings: the manifest reads every value through its
// canonical string, so "0.5" and 0.5 are the same parameter value.
func inlineTable(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = bareKey(k) + " = " + quote(m[k])
	}
	if len(parts) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// platformKeys are the keys of a platform table the lock spells out one by
// one; a platform with any other (nodes, partitions, outages, power, I/O)
// is written as its manifest wrote it (platformTree).
var platformKeys = map[string]bool{"procs": true, "resources": true, "clusters": true}

// platformTree returns platform name's table as the manifest wrote it, when
// it has settings beyond platformKeys; nil otherwise.
func (m *Manifest) platformTree(name string) map[string]any {
	ps, _ := m.tree["platforms"].(map[string]any)
	t, _ := ps[name].(map[string]any)
	for k := range t {
		if !platformKeys[k] {
			return t
		}
	}
	return nil
}

// pathKeys are the keys of a platform's tables that hold a path, relative
// to the manifest's folder, which the lock writes relative to its own.
var pathKeys = map[string]bool{"failures_file": true}

// writeTree writes table t at key path as TOML, its paths made relative to
// dir (they were relative to from).
func writeTree(b *bytes.Buffer, dir, from string, key []string, t map[string]any) error {
	t = rebase(t, dir, from)
	root := map[string]any{}
	cur := root
	for i, k := range key {
		if i == len(key)-1 {
			cur[k] = t
			break
		}
		next := map[string]any{}
		cur[k] = next
		cur = next
	}
	var out bytes.Buffer
	enc := toml.NewEncoder(&out)
	enc.Indent = ""
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("manifest: writing %s to the lock: %w", strings.Join(key, "."), err)
	}
	// The encoder writes a header for each table above the key's
	// ([platforms]), which a second such table would define again.
	b.WriteString("\n")
	for _, line := range strings.SplitAfter(out.String(), "\n") {
		if h := strings.TrimSpace(line); len(key) > 1 && h == "["+strings.Join(key[:len(key)-1], ".")+"]" {
			continue
		}
		b.WriteString(line)
	}
	return nil
}

// rebase returns a copy of t with the paths of pathKeys, relative to from,
// made relative to dir.
func rebase(t map[string]any, dir, from string) map[string]any {
	out := make(map[string]any, len(t))
	for k, v := range t {
		switch x := v.(type) {
		case map[string]any:
			out[k] = rebase(x, dir, from)
		case string:
			if pathKeys[k] && x != "" {
				if !filepath.IsAbs(x) {
					x = filepath.Join(from, x)
				}
				out[k] = relPath(dir, x)
				continue
			}
			out[k] = x
		default:
			out[k] = v
		}
	}
	return out
}

// workloadExtras are the keys of a workload table the lock copies as the
// manifest wrote them: a sacct log's settings and the partitions map.
var workloadExtras = []string{"format", "tres", "constraints", "unknown_partition", "groups", "priority", "partitions"}

// writeWorkloadExtras writes workload name's keys of workloadExtras.
func (m *Manifest) writeWorkloadExtras(b *bytes.Buffer, name string) error {
	ws, _ := m.tree["workloads"].(map[string]any)
	t, _ := ws[name].(map[string]any)
	for _, k := range workloadExtras {
		v, ok := t[k]
		if !ok {
			continue
		}
		if tab, isTable := v.(map[string]any); isTable {
			// Inline, since the workload's table is still open.
			parts := make([]string, 0, len(tab))
			for _, pk := range slices.Sorted(maps.Keys(tab)) {
				parts = append(parts, quote(pk)+" = "+quote(fmt.Sprint(tab[pk])))
			}
			fmt.Fprintf(b, "%s = { %s }\n", k, strings.Join(parts, ", "))
			continue
		}
		if err := toml.NewEncoder(b).Encode(map[string]any{k: v}); err != nil {
			return fmt.Errorf("manifest: writing workloads.%s.%s to the lock: %w", name, k, err)
		}
	}
	return nil
}
