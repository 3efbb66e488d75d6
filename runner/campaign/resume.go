package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Stale is a run that the campaign folder holds and the manifest, as it is
// now, does not: its status and jobs files stay in the folder, and it is left
// out of runs.parquet. Resuming with the manifest it came from would take it
// up again.
type Stale struct {
	Label, Key, Status string
	// Change says why the manifest's run with the same label has another
	// key: the settings of the run's spec that differ ("metrics.bsld_tau:
	// 10 -> 60"), or the policy's code or the workload that changed. It is
	// empty when the manifest has no run with this label any more.
	Change string
}

// staleRuns lists the runs recorded in the folder's status files whose keys
// are not among the tasks', sorted by label.
func staleRuns(dir string, tasks []task) []Stale {
	current := map[string]bool{}
	byLabel := map[string]task{}
	for _, t := range tasks {
		current[t.key] = true
		byLabel[t.run.Label()] = t
	}
	names, _ := filepath.Glob(filepath.Join(dir, StatusDir, "*.json"))
	var out []Stale
	for _, name := range names {
		key := strings.TrimSuffix(filepath.Base(name), ".json")
		if current[key] {
			continue
		}
		var old RunResult
		if b, err := os.ReadFile(name); err != nil || json.Unmarshal(b, &old) != nil {
			continue // not a status file of ours
		}
		s := Stale{Label: old.Label, Key: key, Status: old.Status}
		if t, ok := byLabel[old.Label]; ok {
			s.Change = change(old, t)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Stale) int { return strings.Compare(a.Label+a.Key, b.Label+b.Key) })
	return out
}

// change says what differs between a recorded run and the task that now has
// its label.
func change(old RunResult, t task) string {
	var what []string
	now := pending(t)
	switch {
	case old.Spec != nil:
		what = append(what, specDiff(old.Spec, now.Spec)...)
	case old.SpecSHA != now.SpecSHA:
		what = append(what, "its settings")
	}
	switch {
	case old.Policy.Identity != "" && old.Policy.Identity != now.Policy.Identity:
		what = append(what, fmt.Sprintf("the code of policy %s (identity %.12s -> %.12s)", t.run.Policy, old.Policy.Identity, now.Policy.Identity))
	case old.Policy.Identity == "" && now.Policy.Kind == "reference":
		// Recorded before identities: the key held the binary's sha256.
		what = append(what, fmt.Sprintf("the identity of policy %s (its sources now, the schedlab binary then)", t.run.Policy))
	case old.Policy.Identity == "" && old.Policy.SHA256 != now.Policy.SHA256:
		what = append(what, fmt.Sprintf("the code of policy %s (binary sha256 %.12s -> %.12s)", t.run.Policy, old.Policy.SHA256, now.Policy.SHA256))
	}
	if old.WorkloadSHA != "" && !strings.EqualFold(old.WorkloadSHA, t.wlSHA) {
		what = append(what, fmt.Sprintf("workload %s (sha256 %.12s -> %.12s)", t.run.Workload, old.WorkloadSHA, t.wlSHA))
	}
	if len(what) == 0 {
		return "its key"
	}
	return strings.Join(what, "; ")
}

// specDiff lists the settings of two run specs that differ, as
// "path: old -> new", in path order.
func specDiff(a, b []byte) []string {
	fa, fb := map[string]string{}, map[string]string{}
	flatten("", decode(a), fa)
	flatten("", decode(b), fb)
	var out []string
	keys := slices.Sorted(maps.Keys(fa))
	for k := range fb {
		if _, ok := fa[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		va, oka := fa[k]
		vb, okb := fb[k]
		switch {
		case !oka:
			va = "(unset)"
		case !okb:
			vb = "(unset)"
		case va == vb:
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s -> %s", k, va, vb))
	}
	return out
}

func decode(b []byte) any {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	_ = d.Decode(&v)
	return v
}

// flatten writes the leaves of a decoded JSON value under dotted paths.
func flatten(prefix string, v any, out map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			flatten(p, x, out)
		}
	case []any:
		for i, x := range v {
			flatten(fmt.Sprintf("%s[%d]", prefix, i), x, out)
		}
	default:
		b, _ := json.Marshal(v)
		out[prefix] = string(b)
	}
}
