package manifest

import (
	"strconv"
	"strings"
	"testing"
)

// labels returns the runs' labels without the axis names, e.g. "a q 2 r1".
func labels(runs []Run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		var parts []string
		for _, a := range r.Axes {
			parts = append(parts, a.Value)
		}
		parts = append(parts, "r"+strconv.Itoa(r.Replicate))
		out[i] = strings.Join(parts, " ")
		if r.Index != i {
			out[i] += " (bad index)"
		}
	}
	return out
}

func TestExpandOrder(t *testing.T) {
	src := strings.Replace(base, "seed = 7", "seed = 7\nreplicates = 2", 1) + `[matrix]
policy = ["q", "p"]          # written order is kept: q before p
"param.x" = ["1", "2"]
workload = ["b", "a"]
param.alpha = [0.5]          # the dotted form is the same kind of axis
`
	m, runs := mustExpand(t, src)
	var names []string
	for _, a := range m.Matrix.Axes {
		names = append(names, a.Name)
	}
	if got := strings.Join(names, ","); got != "workload,policy,estimates,param.alpha,param.x" {
		t.Errorf("axis order %s", got)
	}
	want := []string{
		"b q requested 0.5 1 r0", "b q requested 0.5 1 r1", "b q requested 0.5 2 r0", "b q requested 0.5 2 r1",
		"b p requested 0.5 1 r0", "b p requested 0.5 1 r1", "b p requested 0.5 2 r0", "b p requested 0.5 2 r1",
		"a q requested 0.5 1 r0", "a q requested 0.5 1 r1", "a q requested 0.5 2 r0", "a q requested 0.5 2 r1",
		"a p requested 0.5 1 r0", "a p requested 0.5 1 r1", "a p requested 0.5 2 r0", "a p requested 0.5 2 r1",
	}
	if got := labels(runs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("expansion:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r := runs[2]
	if r.Workload != "b" || r.Policy != "q" || r.Estimates != EstimatesRequested || r.ExactEstimates() ||
		r.Params["x"] != "2" || r.Params["alpha"] != "0.5" || r.Params["order"] != "submit" || len(r.Params) != 3 {
		t.Errorf("run 2: %+v", r)
	}
	if r := runs[4]; len(r.Params) != 2 || r.Params["order"] != "" {
		t.Errorf("policy p has no fixed params: %+v", r.Params)
	}
}

func TestParamAxisOverridesFixedParams(t *testing.T) {
	_, runs := mustExpand(t, base+"[matrix]\nworkload = [\"a\"]\npolicy = [\"q\"]\n\"param.order\" = [\"largest\"]\n")
	if runs[0].Params["order"] != "largest" {
		t.Errorf("params %v", runs[0].Params)
	}
}

func TestPlatformAxis(t *testing.T) {
	src := base + `[platforms.small]
procs = 64
[platforms.big]
procs = 1024
[matrix]
workload = ["a"]
platform = ["small", "big"]
policy = ["p"]
estimates = ["requested", "exact"]
`
	m, runs := mustExpand(t, src)
	want := []string{"a small p requested r0", "a small p exact r0", "a big p requested r0", "a big p exact r0"}
	if got := labels(runs); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %v", got)
	}
	if runs[2].Procs(m) != 1024 || !runs[1].ExactEstimates() {
		t.Errorf("run 2 procs %d, run 1 %s", runs[2].Procs(m), runs[1].Estimates)
	}
	if !strings.Contains(string(runs[0].Spec(m)), `"platform":{"name":"small","procs":64}`) {
		t.Errorf("spec %s", runs[0].Spec(m))
	}
}

func TestExclude(t *testing.T) {
	head := base + "[matrix]\nworkload = [\"a\", \"b\"]\npolicy = [\"p\", \"q\"]\n\"param.x\" = [\"1\", \"2\"]\n"
	tests := []struct {
		name, exclude string
		want          []string
	}{
		{"one key removes every match", `[{ policy = "q" }]`,
			[]string{"a p requested 1", "a p requested 2", "b p requested 1", "b p requested 2"}},
		{"all keys must match", `[{ policy = "q", "param.x" = "2" }]`,
			[]string{"a p requested 1", "a p requested 2", "a q requested 1", "b p requested 1", "b p requested 2", "b q requested 1"}},
		{"dotted param key", `[{ policy = "q", param.x = "2" }]`,
			[]string{"a p requested 1", "a p requested 2", "a q requested 1", "b p requested 1", "b p requested 2", "b q requested 1"}},
		{"integer value", `[{ policy = "q", "param.x" = 2 }]`,
			[]string{"a p requested 1", "a p requested 2", "a q requested 1", "b p requested 1", "b p requested 2", "b q requested 1"}},
		{"overlapping entries", `[{ workload = "a" }, { workload = "a", policy = "p" }, { "param.x" = "1" }]`,
			[]string{"b p requested 2", "b q requested 2"}},
		{"default axis", `[{ estimates = "requested", workload = "b" }]`,
			[]string{"a p requested 1", "a p requested 2", "a q requested 1", "a q requested 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, runs := mustExpand(t, head+"exclude = "+tt.exclude+"\n")
			got := labels(runs)
			for i := range got {
				got[i] = strings.TrimSuffix(got[i], " r0")
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestInclude(t *testing.T) {
	head := base + "[workloads.c]\ntrace = \"c.swf\"\nsha256 = \"" + sha + "\"\n[policies.r]\nref = \"conservative\"\n" +
		"[matrix]\nworkload = [\"a\"]\npolicy = [\"p\", \"q\"]\n"
	tests := []struct {
		name, rest string
		want       []string // labels of the included runs (after the product)
	}{
		{"new values, single-valued axes filled in", `include = [{ workload = "c", policy = "r" }]`,
			[]string{"c r requested r0"}},
		{"explicit default axis", `include = [{ workload = "c", policy = "p", estimates = "exact" }]`,
			[]string{"c p exact r0"}},
		{"several, in order", `include = [{ workload = "c", policy = "q" }, { workload = "b", policy = "p" }]`,
			[]string{"c q requested r0", "b p requested r0"}},
		{"re-adds an excluded combination", "exclude = [{ policy = \"q\" }]\ninclude = [{ workload = \"a\", policy = \"q\" }]",
			[]string{"a q requested r0"}},
		{"param axis value", "\"param.order\" = [\"submit\"]\ninclude = [{ workload = \"c\", policy = \"q\", \"param.order\" = \"largest\" }]",
			[]string{"c q requested largest r0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, runs := mustExpand(t, head+tt.rest+"\n")
			got := labels(runs)
			got = got[len(got)-len(tt.want):]
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got  %v\nwant %v", labels(runs), tt.want)
			}
		})
	}
}

func TestMatrixEntryErrors(t *testing.T) {
	head := base + "[matrix]\nworkload = [\"a\", \"b\"]\npolicy = [\"p\", \"q\"]\n\"param.x\" = [\"1\", \"2\"]\n"
	line := "m.toml:" + strconv.Itoa(baseLines+5) + ": "
	tests := []struct {
		name, rest, want string
	}{
		{"exclude key not an axis", `exclude = [{ polcy = "q" }]`,
			line + `matrix.exclude[0]: "polcy" is not an axis of the matrix (did you mean policy?)`},
		{"exclude platform without the axis", `exclude = [{ policy = "q" }, { platform = "x" }]`,
			line + `matrix.exclude[1]: "platform" is not an axis of the matrix`},
		{"exclude matches nothing", `exclude = [{ policy = "q", "param.x" = "3" }]`,
			line + `matrix.exclude[0]: matches no combination of the axes (param.x=3 policy=q)`},
		{"empty exclude", `exclude = [{}]`,
			line + `matrix.exclude[0]: an empty entry would exclude everything`},
		{"exclude not tables", `exclude = ["q"]`,
			line + `matrix.exclude: must be an array of tables`},
		{"include without policy", `include = [{ workload = "a", "param.x" = "1" }]`,
			line + `matrix.include[0]: an include entry must name its policy`},
		{"include duplicates the product", `include = [{ workload = "a", policy = "p", "param.x" = "1" }]`,
			line + `matrix.include[0]: duplicates a run already in the product of the axes (workload=a policy=p estimates=requested param.x=1)`},
		{"include duplicates an include", `include = [{ workload = "a", policy = "p", "param.x" = "3" }, { workload = "a", policy = "p", param.x = 3 }]`,
			line + `matrix.include[1]: duplicates a run already in matrix.include[0]`},
		{"include unknown workload", `include = [{ workload = "z", policy = "p", "param.x" = "1" }]`,
			line + `matrix.include[0]: unknown workload "z": no [workloads.z] (known: a, b)`},
		{"include bad estimates", `include = [{ workload = "a", policy = "p", "param.x" = "1", estimates = "exakt" }]`,
			line + `matrix.include[0]: unknown estimates "exakt"`},
		{"include key not an axis", `include = [{ workload = "a", policy = "p", "param.y" = "1" }]`,
			line + `matrix.include[0]: "param.y" is not an axis of the matrix`},
		{"include table value", `include = [{ workload = "a", policy = "p", "param.x" = [1] }]`,
			line + `matrix.include[0]: param.x: an array is not a value here`},
		{"everything excluded", `exclude = [{ workload = "a" }, { workload = "b" }]`,
			`m.toml: the matrix has no runs: every combination is excluded`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, head+tt.rest+"\n")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestExpandHandBuilt checks that Expand works, and reports errors with the
// file, on a Manifest built without Parse.
func TestExpandHandBuilt(t *testing.T) {
	m := &Manifest{
		Path:      "hand.toml",
		Campaign:  Campaign{Seed: 1, Replicates: 1},
		Workloads: map[string]Workload{"w": {Name: "w"}},
		Policies:  map[string]Policy{"p": {Name: "p", Ref: "fcfs"}},
		Matrix: Matrix{
			Axes:    []Axis{{Name: AxisWorkload, Values: []string{"w"}}, {Name: AxisPolicy, Values: []string{"p"}}},
			Exclude: []Entry{{Values: map[string]string{AxisPolicy: "nope"}, Line: 9}},
		},
	}
	if _, err := m.Expand(); err == nil || !strings.HasPrefix(err.Error(), "hand.toml:9: matrix.exclude[0]: matches no combination") {
		t.Errorf("got %v", err)
	}
	m.Matrix.Exclude = nil
	runs, err := m.Expand()
	if err != nil || len(runs) != 1 || runs[0].Params == nil || runs[0].Estimates != EstimatesRequested {
		t.Errorf("runs %+v, %v", runs, err)
	}
}

func TestMaxRuns(t *testing.T) {
	src := strings.Replace(base, "seed = 7", "seed = 7\nreplicates = 2000000000", 1) + "[matrix]\nworkload = [\"a\", \"b\"]\npolicy = [\"p\"]\n"
	if _, err := parse(t, src); err == nil || !strings.Contains(err.Error(), "m.toml: the matrix (times 2000000000 replicates) has more than 1000000 combinations") {
		t.Errorf("got %v", err)
	}
}

// TestIncludeUnsetParam: an include entry may leave a param axis unset;
// its run then does not set the parameter.
func TestIncludeUnsetParam(t *testing.T) {
	src := base + `[policies.f]
ref = "fcfs"
[matrix]
workload = ["a"]
policy = ["p", "f"]
"param.tau" = [0.1, 0.2]
exclude = [{ policy = "f" }]
include = [{ workload = "a", policy = "f" }]
`
	_, runs := mustExpand(t, src)
	if len(runs) != 3 {
		t.Fatalf("%d runs", len(runs))
	}
	f := runs[2]
	if f.Policy != "f" || len(f.Params) != 0 || f.Axes[len(f.Axes)-1].Value != "" || strings.Contains(f.Label(), "tau") {
		t.Errorf("FCFS run %+v label %q", f, f.Label())
	}
	if runs[0].Params["tau"] != "0.1" {
		t.Errorf("run 0 params %v", runs[0].Params)
	}
	if _, err := parse(t, strings.Replace(src, "[0.1, 0.2]", `[0.1, ""]`, 1)); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty axis value: %v", err)
	}
	// Only param axes may be left unset.
	withEstimates := strings.Replace(src, `policy = ["p", "f"]`, `policy = ["p", "f"]`+"\nestimates = [\"requested\", \"exact\"]", 1)
	if _, err := parse(t, withEstimates); err == nil || !strings.Contains(err.Error(), "does not set estimates, whose axis has 2 values") {
		t.Errorf("unset estimates: %v", err)
	}
}
