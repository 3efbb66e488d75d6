package manifest

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/swf"
)

const (
	pluginSHA   = "1111111111111111111111111111111111111111111111111111111111111111"
	workloadSHA = sha
)

type identity struct {
	spec  string
	key   string
	seeds Seeds
}

func identities(m *Manifest, runs []Run) map[string]identity {
	out := map[string]identity{}
	for _, r := range runs {
		spec := r.Spec(m)
		out[r.Label()] = identity{string(spec), Key(spec, pluginSHA, workloadSHA), r.Seeds(m)}
	}
	return out
}

const independenceMatrix = `[matrix]
workload = ["a", "b"]
policy = ["p", "q"]
"param.x" = ["1", "2"]
exclude = [{ policy = "p", "param.x" = "2" }]
include = [{ workload = "a", policy = "q", "param.x" = "3" }]
`

// TestSeedIndependence checks that adding a policy, or a workload, to a
// manifest changes no other run's spec, key or seeds, even though it
// changes the runs' indices.
func TestSeedIndependence(t *testing.T) {
	before, runs := mustExpand(t, strings.Replace(base, "seed = 7", "seed = 7\nreplicates = 2", 1)+independenceMatrix)
	old := identities(before, runs)

	edits := map[string]string{
		"policy added": strings.Replace(base, "seed = 7", "seed = 7\nreplicates = 2", 1) +
			"[policies.new]\nref = \"conservative\"\n" +
			strings.Replace(independenceMatrix, `policy = ["p", "q"]`, `policy = ["new", "p", "q"]`, 1),
		"workload added": strings.Replace(base, "seed = 7", "seed = 7\nreplicates = 2", 1) +
			"[workloads.c]\ntrace = \"c.swf\"\nsha256 = \"" + sha + "\"\n" +
			strings.Replace(independenceMatrix, `workload = ["a", "b"]`, `workload = ["c", "a", "b"]`, 1),
		"axis value added": strings.Replace(base, "seed = 7", "seed = 7\nreplicates = 2", 1) +
			strings.Replace(independenceMatrix, `["1", "2"]`, `["0", "1", "2"]`, 1),
		"more replicates": strings.Replace(base, "seed = 7", "seed = 7\nreplicates = 3", 1) + independenceMatrix,
	}
	for name, src := range edits {
		t.Run(name, func(t *testing.T) {
			after, runs := mustExpand(t, src)
			now := identities(after, runs)
			if len(now) <= len(old) {
				t.Fatalf("the edit added no run: %d -> %d", len(old), len(now))
			}
			for label, id := range old {
				got, ok := now[label]
				if !ok {
					t.Errorf("run %s disappeared", label)
					continue
				}
				if got != id {
					t.Errorf("run %s changed:\n%+v\n%+v", label, id, got)
				}
			}
		})
	}
}

func TestSeedStreams(t *testing.T) {
	m, runs := mustExpand(t, strings.Replace(base, "seed = 7", "seed = 7\nreplicates = 2", 1)+independenceMatrix)
	type wr struct {
		w   string
		rep int
	}
	workloadSeed := map[wr]uint64{}
	policySeeds := map[uint64]string{}
	keys := map[string]string{}
	for _, r := range runs {
		s := r.Seeds(m)
		// Every policy of a replicate sees the same workload stream.
		if prev, ok := workloadSeed[wr{r.Workload, r.Replicate}]; ok && prev != s.Workload {
			t.Errorf("%s: workload seed %d, other runs of the workload and replicate %d", r.Label(), s.Workload, prev)
		}
		workloadSeed[wr{r.Workload, r.Replicate}] = s.Workload
		// Policy seeds and keys differ between runs.
		if prev, dup := policySeeds[s.Policy]; dup {
			t.Errorf("runs %s and %s share the policy seed", prev, r.Label())
		}
		policySeeds[s.Policy] = r.Label()
		k := Key(r.Spec(m), pluginSHA, workloadSHA)
		if prev, dup := keys[k]; dup {
			t.Errorf("runs %s and %s share the key", prev, r.Label())
		}
		keys[k] = r.Label()
	}
	if workloadSeed[wr{"a", 0}] == workloadSeed[wr{"a", 1}] || workloadSeed[wr{"a", 0}] == workloadSeed[wr{"b", 0}] {
		t.Errorf("workload seeds do not depend on the replicate or workload: %v", workloadSeed)
	}
	// The seeds follow the documented derivation.
	r := runs[0]
	if got, want := r.Seeds(m).Workload, DeriveSeed(7, "workload", r.Workload, "0"); got != want {
		t.Errorf("workload seed %d, want %d", got, want)
	}
	if got, want := r.Seeds(m).Policy, DeriveSeed(7, "policy", r.Workload, r.Policy, `{"x":"1"}`, "0"); got != want {
		t.Errorf("policy seed %d, want %d", got, want)
	}
}

func TestDeriveSeed(t *testing.T) {
	s := DeriveSeed(1, "policy", "a", "b")
	for name, other := range map[string]uint64{
		"master": DeriveSeed(2, "policy", "a", "b"),
		"stream": DeriveSeed(1, "workload", "a", "b"),
		"parts":  DeriveSeed(1, "policy", "a", "c"),
		"split":  DeriveSeed(1, "policy", "ab"),
		"moved":  DeriveSeed(1, "policy", "a", "", "b"),
		"order":  DeriveSeed(1, "policy", "b", "a"),
	} {
		if other == s {
			t.Errorf("changing the %s leaves the seed unchanged", name)
		}
	}
	if DeriveSeed(1, "policy", "a", "b") != s {
		t.Error("not deterministic")
	}
	for i := range 1000 {
		if s := DeriveSeed(int64(i), "policy", "x"); s > math.MaxInt64 {
			t.Fatalf("seed %d does not fit an int64", s)
		}
	}
	if a, b := NewRand(s).Uint64(), rand.New(rand.NewPCG(s, PCGIncrement)).Uint64(); a != b {
		t.Error("NewRand is not PCG(seed, PCGIncrement)")
	}
}

func TestKey(t *testing.T) {
	k := Key([]byte("spec"), pluginSHA, workloadSHA)
	if len(k) != 64 || strings.Trim(k, "0123456789abcdef") != "" {
		t.Errorf("key %q is not 64 lower-case hex digits", k)
	}
	if Key([]byte("spec"), strings.ToUpper(pluginSHA), workloadSHA) != k {
		t.Error("key depends on the case of a hash")
	}
	for name, other := range map[string]string{
		"spec":     Key([]byte("spec2"), pluginSHA, workloadSHA),
		"plugin":   Key([]byte("spec"), workloadSHA, workloadSHA),
		"workload": Key([]byte("spec"), pluginSHA, pluginSHA),
		"boundary": Key([]byte("spec1"), pluginSHA[1:], workloadSHA),
	} {
		if other == k {
			t.Errorf("changing the %s leaves the key unchanged", name)
		}
	}
}

// TestDeterminism parses and expands one manifest twice and compares
// everything, and checks that specs are canonical JSON.
func TestDeterminism(t *testing.T) {
	src := strings.Replace(base, "seed = 7", "seed = 7\nreplicates = 3", 1) + independenceMatrix
	m1, r1 := mustExpand(t, src)
	m2, r2 := mustExpand(t, src)
	if !reflect.DeepEqual(r1, r2) {
		t.Fatal("two expansions differ")
	}
	for i := range r1 {
		s1, s2 := r1[i].Spec(m1), r2[i].Spec(m2)
		if !bytes.Equal(s1, s2) || r1[i].Seeds(m1) != r2[i].Seeds(m2) {
			t.Fatalf("run %d: specs or seeds differ", i)
		}
		var v map[string]any
		if err := json.Unmarshal(s1, &v); err != nil {
			t.Fatal(err)
		}
		again, _ := json.Marshal(v) // encoding/json sorts object keys
		if !bytes.Equal(again, s1) {
			t.Fatalf("spec is not canonical:\n%s\n%s", s1, again)
		}
	}
	// Spelling the defaults out, moving the trace files, renaming the
	// campaign or changing its output folder and timeout changes no key.
	edited := strings.Replace(base, "seed = 7", "seed = 7\nreplicates = 3\nname = \"other\"\nout = \"elsewhere\"\ntimeout = \"1h\"", 1)
	edited = strings.ReplaceAll(edited, `trace = "a.swf"`, `trace = "traces/a.swf.gz"
clean = { procs = "requested-else-allocated", missing-walltime = "runtime", nonpositive_runtime = "drop", oversize = "drop", job_ids = "all" }`)
	edited += "[metrics]\nbsld_tau = 10\nwarmup_jobs = 0\n" + independenceMatrix
	m3, r3 := mustExpand(t, edited)
	for i := range r1 {
		if !bytes.Equal(r1[i].Spec(m1), r3[i].Spec(m3)) {
			t.Errorf("run %d: spec changed:\n%s\n%s", i, r1[i].Spec(m1), r3[i].Spec(m3))
		}
	}
	// The job-ids setting came after campaigns were published: its default
	// stays out of specs, so that their keys hold.
	if spec := string(r1[0].Spec(m1)); strings.Contains(spec, "job-ids") {
		t.Errorf("a spec without a selection names job-ids: %s", spec)
	}
	// What changes results changes every spec.
	for name, src := range map[string]string{
		"master seed": strings.Replace(src, "seed = 7", "seed = 8", 1),
		"bsld_tau":    src + "[metrics]\nbsld_tau = 600\n",
		"cleaning":    strings.ReplaceAll(src, `trace = "a.swf"`, "trace = \"a.swf\"\nclean = { oversize = \"clamp\" }"),
		"job ids":     strings.ReplaceAll(src, `trace = "a.swf"`, "trace = \"a.swf\"\nclean = { job_ids = \"1-5\" }"),
	} {
		m4, r4 := mustExpand(t, src)
		if bytes.Equal(r1[0].Spec(m1), r4[0].Spec(m4)) {
			t.Errorf("%s: spec unchanged", name)
		}
	}
}

func TestGenerator(t *testing.T) {
	gen := Generator{
		Name: "uniform", Doc: "test generator",
		Params:   []sdk.Param{{Name: "jobs", Type: sdk.Int, Default: "100"}, {Name: "load", Type: sdk.Float, Default: "0.8"}},
		Generate: func(sdk.Params, int64, *rand.Rand) ([]swf.Record, error) { return nil, nil },
	}
	matrix := "[matrix]\nworkload = [\"g\"]\npolicy = [\"p\"]\n"
	m, err := Parse("m.toml", []byte(base+"[workloads.g]\ngenerator = \"uniform\"\nprocs = 128\nparams = { jobs = 500 }\n"+matrix), "/lab", gen)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := m.Expand()
	if err != nil {
		t.Fatal(err)
	}
	w := m.Workloads["g"]
	if w.Generator != "uniform" || w.Procs != 128 || w.Params["jobs"] != "500" || w.Params["load"] != "0.8" || w.Trace != "" {
		t.Errorf("workload %+v", w)
	}
	spec := string(runs[0].Spec(m))
	if !strings.Contains(spec, `"generator":"uniform"`) || !strings.Contains(spec, `"params":{"jobs":"500","load":"0.8"}`) || strings.Contains(spec, "sha256") {
		t.Errorf("spec %s", spec)
	}
	for src, want := range map[string]string{
		"generator = \"uniform\"\nprocs = 128\nparams = { jobs = 0.5 }\n": "workloads.g.params: generator uniform: parameter \"jobs\": \"0.5\" is not a valid int",
		"generator = \"uniform\"\nprocs = 128\nparams = { size = 1 }\n":   "workloads.g.params: generator uniform: unknown parameter \"size\"",
		"generator = \"uniform\"\n":                                       "workloads.g: a generated workload needs procs",
		"generator = \"uniform\"\nprocs = 1\nsha256 = \"" + sha + "\"\n":  "workloads.g.sha256: only a trace has a sha256",
		"generator = \"unifrom\"\nprocs = 1\n":                            "unknown generator \"unifrom\" (known: uniform)",
	} {
		if _, err := Parse("m.toml", []byte(base+"[workloads.g]\n"+src+matrix), "/lab", gen); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %s", src, err, want)
		}
	}
}
