package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The fixed axes, in expansion order. Parameter axes (param.NAME) follow,
// sorted by name.
const (
	AxisWorkload  = "workload"
	AxisPlatform  = "platform"
	AxisPolicy    = "policy"
	AxisEstimates = "estimates"
	// ParamAxisPrefix starts the name of a policy-parameter axis.
	ParamAxisPrefix = "param."
)

// MaxRuns bounds the size of an expansion (product of the axes times the
// replicates, and the final run list), so that a typo such as
// replicates = 1000000000 fails at once instead of exhausting memory.
const MaxRuns = 1_000_000

var fixedAxes = []string{AxisWorkload, AxisPlatform, AxisPolicy, AxisEstimates}

// Matrix is the [matrix] table, checked.
type Matrix struct {
	// Axes in expansion order: workload, platform (only when the manifest
	// has that axis), policy, estimates (["requested"] when not written),
	// then the param.NAME axes sorted by name.
	Axes []Axis
	// Exclude and Include are the entries in the order written, keyed by
	// axis name, with values as canonical strings.
	Exclude []Entry
	Include []Entry
}

// Axis is one named list of values.
type Axis struct {
	// Name is workload, platform, policy, estimates or param.NAME.
	Name   string
	Values []string
	// Line is the line of the axis's key; 0 for the default estimates axis.
	Line int
}

// Entry is one exclude or include entry.
type Entry struct {
	Values map[string]string
	// Index is the entry's position in its array; Line the line of the
	// array's key (matrix.exclude or matrix.include).
	Index, Line int
}

// AxisValue is the value one run takes on one axis.
type AxisValue struct {
	Axis, Value string
}

// Run is one expanded run, fully resolved except for the hashes of the
// plugin binary and of the workload, which only running it can give.
type Run struct {
	// Index is the run's position in the expansion.
	Index     int
	Workload  string
	Platform  string // empty: the workload's own size (procs or trace header)
	Policy    string
	Estimates string // EstimatesRequested or EstimatesExact
	Replicate int
	// Params are the effective policy parameters: the policy's fixed
	// params overridden by the param axes.
	Params map[string]string
	// Axes are the matrix values that define this run, in axis order: the
	// columns of a run table.
	Axes []AxisValue
}

// ExactEstimates reports whether the policy sees exact runtimes.
func (r Run) ExactEstimates() bool { return r.Estimates == EstimatesExact }

// Procs returns the platform size of the run: the platform's when the run
// has one, else the workload's procs (0: from the trace header).
func (r Run) Procs(m *Manifest) int64 {
	if r.Platform != "" {
		return m.Platforms[r.Platform].Procs
	}
	return m.Workloads[r.Workload].Procs
}

// Label names the run for people: its axis values and replicate, such as
// "workload=kth policy=easy estimates=requested param.order=submit replicate=0".
func (r Run) Label() string {
	var b strings.Builder
	for _, a := range r.Axes {
		if a.Value != "" { // a param axis an include entry left unset
			fmt.Fprintf(&b, "%s=%s ", a.Axis, a.Value)
		}
	}
	fmt.Fprintf(&b, "replicate=%d", r.Replicate)
	return b.String()
}

func (p *parser) matrix(m *Manifest, raw map[string]any) Matrix {
	var mx Matrix
	if !p.md.IsDefined("matrix") {
		p.errs = append(p.errs, &Error{File: p.file, Key: "matrix",
			Msg: "[matrix] is required: it lists at least the workload and policy axes"})
		return mx
	}
	axes := map[string]*Axis{}
	add := func(name string, key []string, v any) {
		if _, dup := axes[name]; dup {
			p.errAt(key, "axis %s is given twice", name)
			return
		}
		// An axis with bad values is still an axis, so that exclude and
		// include entries naming it are not reported as well.
		a := p.axis(m, name, key, v)
		if a == nil {
			a = &Axis{Name: name, Line: p.loc.line(key...)}
		}
		axes[name] = a
	}
	var rawEx, rawIn any
	for _, k := range sortedKeys(raw) {
		key := []string{"matrix", k}
		switch {
		case slices.Contains(fixedAxes, k):
			add(k, key, raw[k])
		case k == "param":
			t, ok := raw[k].(map[string]any)
			if !ok {
				p.errAt(key, "must be a table of parameter axes (param.NAME = [values])")
				continue
			}
			for _, n := range sortedKeys(t) {
				add(ParamAxisPrefix+n, append(slices.Clone(key), n), t[n])
			}
		case strings.HasPrefix(k, ParamAxisPrefix):
			add(k, key, raw[k])
		case k == "exclude":
			rawEx = raw[k]
		case k == "include":
			rawIn = raw[k]
		default:
			known := append(slices.Clone(fixedAxes), "exclude", "include", "param.NAME")
			p.errs = append(p.errs, &Error{File: p.file, Line: p.loc.line(key...), Key: keyString(key...),
				Msg: "unknown key " + keyString(key...) + hint(k, known)})
		}
	}
	missing := false
	for _, need := range []string{AxisWorkload, AxisPolicy} {
		if _, ok := axes[need]; !ok {
			p.errAt([]string{"matrix"}, "the %s axis is required (%s = [names of [%s.*]])", need, need,
				map[string]string{AxisWorkload: "workloads", AxisPolicy: "policies"}[need])
			missing = true
		}
	}
	if missing {
		return mx
	}
	if _, ok := axes[AxisEstimates]; !ok {
		axes[AxisEstimates] = &Axis{Name: AxisEstimates, Values: []string{EstimatesRequested}}
	}
	for _, name := range fixedAxes {
		if a, ok := axes[name]; ok {
			mx.Axes = append(mx.Axes, *a)
		}
	}
	for _, name := range sortedKeys(axes) {
		if strings.HasPrefix(name, ParamAxisPrefix) {
			mx.Axes = append(mx.Axes, *axes[name])
		}
	}
	if rawEx != nil {
		mx.Exclude = p.entries(m, "exclude", rawEx, axes)
	}
	if rawIn != nil {
		mx.Include = p.entries(m, "include", rawIn, axes)
	}
	return mx
}

// axis checks one axis: a non-empty array of distinct scalar values that
// name things the manifest defines.
func (p *parser) axis(m *Manifest, name string, key []string, v any) *Axis {
	if param, ok := strings.CutPrefix(name, ParamAxisPrefix); ok && !validName(param) {
		p.errAt(key, "%q is not a valid parameter name (%s)", param, nameRule)
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		if _, tables := v.([]map[string]any); tables {
			p.errAt(key, "an axis lists values, not tables")
		} else {
			p.errAt(key, "an axis is an array of values, such as [\"a\", \"b\"]")
		}
		return nil
	}
	if len(list) == 0 {
		p.errAt(key, "an axis needs at least one value")
		return nil
	}
	a := &Axis{Name: name, Line: p.loc.line(key...)}
	for i, x := range list {
		s, err := scalar(x)
		if err != nil {
			p.errAt(key, "value %d: %v", i+1, err)
			continue
		}
		if slices.Contains(a.Values, s) {
			p.errAt(key, "lists %q twice", s)
			continue
		}
		if msg := m.checkValue(name, s); msg != "" {
			p.errAt(key, "%s", msg)
			continue
		}
		if s == "" {
			p.errAt(key, "value %d is empty; to leave a parameter unset for some runs, omit it from an include entry", i+1)
			continue
		}
		a.Values = append(a.Values, s)
	}
	return a
}

// checkValue returns why value cannot be a value of the axis, or "".
func (m *Manifest) checkValue(axis, value string) string {
	var known []string
	section := map[string]string{AxisWorkload: "workloads", AxisPlatform: "platforms", AxisPolicy: "policies"}[axis]
	switch axis {
	case AxisWorkload:
		if _, ok := m.Workloads[value]; ok {
			return ""
		}
		known = sortedKeys(m.Workloads)
	case AxisPlatform:
		if _, ok := m.Platforms[value]; ok {
			return ""
		}
		known = sortedKeys(m.Platforms)
	case AxisPolicy:
		if _, ok := m.Policies[value]; ok {
			return ""
		}
		known = sortedKeys(m.Policies)
	case AxisEstimates:
		if value == EstimatesRequested || value == EstimatesExact {
			return ""
		}
		return fmt.Sprintf("unknown estimates %q (known: %s, %s)", value, EstimatesRequested, EstimatesExact)
	default:
		return ""
	}
	return fmt.Sprintf("unknown %s %q: no [%s.%s]%s", axis, value, section, keyString(value), hint(value, known))
}

// entries checks the exclude or include array: tables whose keys are axes.
func (p *parser) entries(m *Manifest, what string, v any, axes map[string]*Axis) []Entry {
	key := []string{"matrix", what}
	line := p.loc.line(key...)
	var tables []map[string]any
	switch x := v.(type) {
	case []map[string]any:
		tables = x
	case []any:
		for _, e := range x {
			t, ok := e.(map[string]any)
			if !ok {
				p.errAt(key, "must be an array of tables, such as [{ policy = \"fcfs\" }]")
				return nil
			}
			tables = append(tables, t)
		}
	default:
		p.errAt(key, "must be an array of tables, such as [{ policy = \"fcfs\" }]")
		return nil
	}
	names := sortedKeys(axes)
	var out []Entry
	for i, t := range tables {
		where := fmt.Sprintf("%s[%d]", keyString(key...), i)
		fail := func(format string, args ...any) {
			p.errs = append(p.errs, &Error{File: p.file, Line: line, Key: where, Msg: where + ": " + fmt.Sprintf(format, args...)})
		}
		e := Entry{Values: map[string]string{}, Index: i, Line: line}
		good := true
		set := func(k string, x any) {
			if _, dup := e.Values[k]; dup {
				fail("sets %s twice", k)
				good = false
				return
			}
			if _, ok := axes[k]; !ok {
				fail("%q is not an axis of the matrix%s", k, hint(k, names))
				good = false
				return
			}
			s, err := scalar(x)
			if err != nil {
				fail("%s: %v", k, err)
				good = false
				return
			}
			if what == "include" {
				if msg := m.checkValue(k, s); msg != "" {
					fail("%s", msg)
					good = false
					return
				}
			}
			e.Values[k] = s
		}
		for _, k := range sortedKeys(t) {
			if sub, ok := t[k].(map[string]any); ok && k == "param" {
				for _, n := range sortedKeys(sub) {
					set(ParamAxisPrefix+n, sub[n])
				}
				continue
			}
			set(k, t[k])
		}
		if len(t) == 0 {
			fail("an empty entry would %s everything", what)
			good = false
		}
		if what == "include" {
			for _, need := range []string{AxisWorkload, AxisPolicy} {
				if _, ok := t[need]; !ok {
					fail("an include entry must name its %s", need)
					good = false
				}
			}
		}
		if good {
			out = append(out, e)
		}
	}
	return out
}

// Expand returns the runs of the matrix, in a deterministic order: the
// cartesian product of the axes (first axis outermost, values in the order
// written), less the combinations an exclude entry matches, then the
// include entries in the order written; each combination gives
// Campaign.Replicates runs, replicate innermost. An exclude entry that
// matches nothing, an include entry that leaves an axis of several values
// unset (except a param axis: the run then does not set the parameter, and
// its value on the axis is ""), and an include entry equal to a
// combination already present are
// errors.
func (m *Manifest) Expand() ([]Run, error) {
	var errs Errors
	fail := func(e Entry, what, format string, args ...any) {
		where := fmt.Sprintf("%s[%d]", keyString("matrix", what), e.Index)
		errs = append(errs, &Error{File: m.Path, Line: e.Line, Key: where, Msg: where + ": " + fmt.Sprintf(format, args...)})
	}
	axes := m.Matrix.Axes
	reps := max(m.Campaign.Replicates, 1)
	size := reps
	for _, a := range axes {
		if size = size * len(a.Values); size > MaxRuns {
			break
		}
	}
	if size > MaxRuns {
		return nil, Errors{{File: m.Path, Key: "matrix", Msg: fmt.Sprintf(
			"the matrix (times %d replicates) has more than %d combinations, the limit", reps, MaxRuns)}}
	}
	var combos [][]string
	if len(axes) > 0 {
		idx := make([]int, len(axes))
		for {
			c := make([]string, len(axes))
			for i, a := range axes {
				if len(a.Values) == 0 {
					return nil, Errors{{File: m.Path, Line: a.Line, Key: "matrix." + a.Name, Msg: "axis " + a.Name + " has no values"}}
				}
				c[i] = a.Values[idx[i]]
			}
			combos = append(combos, c)
			i := len(axes) - 1
			for ; i >= 0; i-- {
				idx[i]++
				if idx[i] < len(axes[i].Values) {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				break
			}
		}
	}

	matched := make([]int, len(m.Matrix.Exclude))
	kept := make([][]string, 0, len(combos))
	seen := map[string]string{}
	for _, c := range combos {
		drop := false
		for j, e := range m.Matrix.Exclude {
			if matches(axes, c, e) {
				matched[j]++
				drop = true
			}
		}
		if !drop {
			kept = append(kept, c)
			seen[strings.Join(c, "\x00")] = "the product of the axes"
		}
	}
	for j, e := range m.Matrix.Exclude {
		if matched[j] == 0 {
			fail(e, "exclude", "matches no combination of the axes (%s)", describe(e))
		}
	}
	for _, e := range m.Matrix.Include {
		c := make([]string, len(axes))
		good := true
		for i, a := range axes {
			v, ok := e.Values[a.Name]
			switch {
			case ok:
			case len(a.Values) == 1:
				v = a.Values[0]
			case strings.HasPrefix(a.Name, ParamAxisPrefix):
				// Unset: the run does not set the parameter (a policy
				// that does not have it, such as FCFS in a tau sweep).
				v = ""
			default:
				fail(e, "include", "does not set %s, whose axis has %d values (%s): name one",
					a.Name, len(a.Values), strings.Join(a.Values, ", "))
				good = false
			}
			c[i] = v
		}
		if !good {
			continue
		}
		k := strings.Join(c, "\x00")
		if prev, dup := seen[k]; dup {
			fail(e, "include", "duplicates a run already in %s (%s)", prev, describeCombo(axes, c))
			continue
		}
		seen[k] = fmt.Sprintf("matrix.include[%d]", e.Index)
		kept = append(kept, c)
	}
	if len(errs) > 0 {
		return nil, errs.sorted()
	}
	if len(kept) == 0 {
		return nil, Errors{{File: m.Path, Key: "matrix", Msg: "the matrix has no runs: every combination is excluded"}}
	}

	if len(kept)*reps > MaxRuns {
		return nil, Errors{{File: m.Path, Key: "matrix", Msg: fmt.Sprintf(
			"the matrix expands to %d runs, more than the limit of %d", len(kept)*reps, MaxRuns)}}
	}
	runs := make([]Run, 0, len(kept)*reps)
	for _, c := range kept {
		base := Run{Estimates: EstimatesRequested}
		var axisParams []AxisValue
		for i, a := range axes {
			switch a.Name {
			case AxisWorkload:
				base.Workload = c[i]
			case AxisPlatform:
				base.Platform = c[i]
			case AxisPolicy:
				base.Policy = c[i]
			case AxisEstimates:
				base.Estimates = c[i]
			default:
				axisParams = append(axisParams, AxisValue{strings.TrimPrefix(a.Name, ParamAxisPrefix), c[i]})
			}
		}
		pol, ok := m.Policies[base.Policy]
		if _, wok := m.Workloads[base.Workload]; !ok || !wok {
			return nil, Errors{{File: m.Path, Key: "matrix", Msg: fmt.Sprintf("run %s names an undefined workload or policy", describeCombo(axes, c))}}
		}
		for rep := range reps {
			r := base
			r.Index = len(runs)
			r.Replicate = rep
			r.Params = maps.Clone(pol.Params)
			if r.Params == nil {
				r.Params = map[string]string{}
			}
			for _, pv := range axisParams {
				if pv.Value != "" { // "" is a param axis an include left unset
					r.Params[pv.Axis] = pv.Value
				}
			}
			r.Axes = make([]AxisValue, len(axes))
			for i, a := range axes {
				r.Axes[i] = AxisValue{a.Name, c[i]}
			}
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// matches reports whether combination c has every value entry e gives.
func matches(axes []Axis, c []string, e Entry) bool {
	for i, a := range axes {
		if v, ok := e.Values[a.Name]; ok && v != c[i] {
			return false
		}
	}
	return true
}

func describe(e Entry) string {
	var parts []string
	for _, k := range sortedKeys(e.Values) {
		parts = append(parts, fmt.Sprintf("%s=%s", k, e.Values[k]))
	}
	return strings.Join(parts, " ")
}

func describeCombo(axes []Axis, c []string) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = fmt.Sprintf("%s=%s", a.Name, c[i])
	}
	return strings.Join(parts, " ")
}
