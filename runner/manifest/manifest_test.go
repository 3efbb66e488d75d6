package manifest

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/plugins/reference"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/swf"
)

const sha = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"

// base defines two workloads and two policies; tests append a matrix.
const base = `[campaign]
seed = 7

[workloads.a]
trace = "a.swf"
sha256 = "` + sha + `"
[workloads.b]
trace = "b.swf"
sha256 = "` + sha + `"

[policies.p]
ref = "fcfs"
[policies.q]
ref = "easy"
params = { order = "submit" }
`

// baseLines is the number of lines of base.
var baseLines = strings.Count(base, "\n")

func parse(t *testing.T, src string) (*Manifest, error) {
	t.Helper()
	return Parse("m.toml", []byte(src), "/lab")
}

func mustParse(t *testing.T, src string) *Manifest {
	t.Helper()
	m, err := parse(t, src)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return m
}

func mustExpand(t *testing.T, src string) (*Manifest, []Run) {
	t.Helper()
	m := mustParse(t, src)
	runs, err := m.Expand()
	if err != nil {
		t.Fatal(err)
	}
	return m, runs
}

func TestDefaults(t *testing.T) {
	m := mustParse(t, base+"[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\n")
	c := m.Campaign
	if c.Name != "m" || c.Seed != 7 || c.Replicates != 1 || c.Timeout != 0 || c.TimeoutSet || c.Out != "/lab/out/m" ||
		c.StallTimeout != DefaultStallTimeout || c.StartTimeout != DefaultStartTimeout {
		t.Errorf("campaign defaults: %+v", c)
	}
	if m.Metrics.SlowdownTau != 10 || m.Metrics.WarmupJobs != 0 || m.Metrics.CooldownJobs != 0 {
		t.Errorf("metrics defaults: %+v", m.Metrics)
	}
	w := m.Workloads["a"]
	if w.Trace != "/lab/a.swf" || w.SHA256 != sha || w.Procs != 0 || w.Clean != workload.DefaultClean() {
		t.Errorf("workload: %+v", w)
	}
	if got := m.Matrix.Axes; len(got) != 3 || got[2].Name != AxisEstimates || got[2].Values[0] != EstimatesRequested {
		t.Errorf("axes: %+v", got)
	}
}

func TestCampaignAndMetrics(t *testing.T) {
	src := strings.Replace(base, "seed = 7", `name = "exp-1"
seed = 7
replicates = 3
out = "results"
timeout = "90s"`, 1) + `[metrics]
bsld_tau = 600
warmup_jobs = 100
cooldown_jobs = 50
[matrix]
workload = ["a"]
policy = ["p"]
`
	m := mustParse(t, src)
	if c := m.Campaign; c.Name != "exp-1" || c.Replicates != 3 || c.Out != "/lab/results" || c.Timeout != 90*time.Second || !c.TimeoutSet {
		t.Errorf("campaign: %+v", c)
	}
	// "0" is no limit at all, not the default limit; the lock keeps it.
	m = mustParse(t, strings.Replace(src, `timeout = "90s"`, "timeout = \"0\"\nstall_timeout = \"0\"\nstart_timeout = \"2m\"", 1))
	if c := m.Campaign; c.Timeout != 0 || !c.TimeoutSet || c.StallTimeout != 0 || c.StartTimeout != 2*time.Minute {
		t.Errorf("campaign with no limits: %+v", c)
	}
	var lock bytes.Buffer
	if err := m.WriteLock(&lock, "/lab", Lock{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"timeout = \"0s\"\n", "stall_timeout = \"0s\"\n", "start_timeout = \"2m0s\"\n"} {
		if !strings.Contains(lock.String(), want) {
			t.Errorf("the lock lacks %q:\n%s", want, lock.String())
		}
	}
	if _, err := parse(t, strings.Replace(src, `timeout = "90s"`, `start_timeout = "0s"`, 1)); err == nil ||
		!strings.Contains(err.Error(), "campaign.start_timeout: must be positive") {
		t.Errorf("start_timeout = 0: %v", err)
	}
	if s := m.Metrics; s.SlowdownTau != 600 || s.WarmupJobs != 100 || s.CooldownJobs != 50 {
		t.Errorf("metrics: %+v", s)
	}
}

func TestLargeSeeds(t *testing.T) {
	for _, seed := range []int64{math.MaxInt64, math.MinInt64, 0, -1} {
		src := strings.Replace(base, "seed = 7", "seed = "+strconv.FormatInt(seed, 10), 1) +
			"[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\n"
		m, runs := mustExpand(t, src)
		if m.Campaign.Seed != seed {
			t.Errorf("seed %d read back as %d", seed, m.Campaign.Seed)
		}
		if spec := string(runs[0].Spec(m)); !strings.Contains(spec, `"master_seed":`+strconv.FormatInt(seed, 10)+",") {
			t.Errorf("seed %d: spec %s", seed, spec)
		}
	}
	// One more than int64 max cannot be written: TOML integers are int64.
	src := strings.Replace(base, "seed = 7", "seed = 9223372036854775808", 1) + "[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\n"
	if _, err := parse(t, src); err == nil || !strings.Contains(err.Error(), "m.toml:2:") {
		t.Errorf("seed 2^63: got %v, want an error at line 2", err)
	}
}

// TestUnknownKeys checks strict decoding: every key the format does not
// define is reported with its file, line and a suggestion.
func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // each a full error line
	}{
		{"misspelt campaign key", "[campaign]\nname = \"x\"\nsed = 1\n",
			[]string{"m.toml:3: unknown key campaign.sed (did you mean seed?)"}},
		{"misspelt section", "[campaing]\nseed = 1\n",
			[]string{"m.toml:1: unknown key campaing (did you mean campaign?)"}},
		{"case matters", base + "[Campaign]\nseed = 2\n",
			[]string{"m.toml:" + strconv.Itoa(baseLines+1) + ": unknown key Campaign (did you mean campaign?)"}},
		{"no close key", "[campaign]\nseed = 1\ncolour = \"red\"\n",
			[]string{"m.toml:3: unknown key campaign.colour (known: name, out, replicates, seed, stall_timeout, start_timeout, timeout)"}},
		{"workload key", strings.Replace(base, "trace = \"b.swf\"", "tarce = \"b.swf\"", 1),
			[]string{"m.toml:8: unknown key workloads.b.tarce (did you mean trace?)"}},
		{"policy key", strings.Replace(base, "params = {", "parms = {", 1),
			[]string{"m.toml:15: unknown key policies.q.parms (did you mean params?)"}},
		{"metrics key", "[metrics]\nbsld-tau = 600\n",
			[]string{"m.toml:2: unknown key metrics.bsld-tau (did you mean bsld_tau?)"}},
		{"dotted key", "campaign.sed = 1\n",
			[]string{"m.toml:1: unknown key campaign.sed (did you mean seed?)"}},
		{"matrix key", base + "[matrix]\nworkload = [\"a\"]\npolcy = [\"p\"]\n",
			[]string{"m.toml:" + strconv.Itoa(baseLines+3) + ": unknown key matrix.polcy (did you mean policy?)"}},
		{"two at once", "[campaign]\nsed = 1\n[metrics]\nwarmup = 3\n",
			[]string{"m.toml:2: unknown key campaign.sed (did you mean seed?)",
				"m.toml:4: unknown key metrics.warmup (did you mean warmup_jobs?)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.src)
			if err == nil {
				t.Fatal("no error")
			}
			lines := strings.Split(err.Error(), "\n")
			for _, w := range tt.want {
				found := false
				for _, l := range lines {
					found = found || l == w
				}
				if !found {
					t.Errorf("missing error %q in:\n%v", w, err)
				}
			}
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 || es[0].File != "m.toml" {
				t.Errorf("error is not an Errors naming the file: %#v", err)
			}
		})
	}
}

func TestCaseVariantLine(t *testing.T) {
	// The line of a key that differs from a valid one only in case is its
	// own, not that of the valid key.
	src := "[campaign]\nseed = 1\nSeed = 2\n"
	_, err := parse(t, src)
	if err == nil || !strings.Contains(err.Error(), "m.toml:3: unknown key campaign.Seed (did you mean seed?)") {
		t.Errorf("got %v", err)
	}
}

// TestErrors checks the validation errors: each names the file, the line
// and the key.
func TestErrors(t *testing.T) {
	matrix := "[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\n"
	ml := baseLines + 1 // line of [matrix] when appended to base
	tests := []struct {
		name, src string
		want      []string // substrings of the error
	}{
		{"syntax", "[campaign]\nseed = 1 1\n", []string{"m.toml:2: TOML syntax"}},
		{"type", "[campaign]\nseed = \"seven\"\n", []string{"m.toml:2: campaign.seed: must be an integer, not a string"}},
		{"missing seed", strings.Replace(base, "seed = 7", "name = \"x\"", 1) + matrix,
			[]string{"m.toml:1: campaign: seed is required"}},
		{"no campaign", strings.Replace(base, "[campaign]\nseed = 7\n", "", 1) + matrix,
			[]string{"m.toml: [campaign] with its seed is required"}},
		{"negative replicates", strings.Replace(base, "seed = 7", "seed = 7\nreplicates = -2", 1) + matrix,
			[]string{"m.toml:3: campaign.replicates: must be at least 1, got -2"}},
		{"zero replicates", strings.Replace(base, "seed = 7", "seed = 7\nreplicates = 0", 1) + matrix,
			[]string{"m.toml:3: campaign.replicates: must be at least 1, got 0"}},
		{"bad timeout", strings.Replace(base, "seed = 7", "seed = 7\ntimeout = \"10 minutes\"", 1) + matrix,
			[]string{"m.toml:3: campaign.timeout: \"10 minutes\" is not a Go duration"}},
		{"bad name", strings.Replace(base, "seed = 7", "seed = 7\nname = \"my run\"", 1) + matrix,
			[]string{"m.toml:3: campaign.name: campaign name \"my run\" is not valid"}},
		{"bsld_tau", base + "[metrics]\nbsld_tau = 0\n" + matrix,
			[]string{"m.toml:" + strconv.Itoa(baseLines+2) + ": metrics.bsld_tau: the bounded-slowdown floor must be at least 1 s"}},
		{"zero cost", strings.Replace(base, "ref = \"fcfs\"", "ref = \"fcfs\"\ncost = 0", 1) + matrix,
			[]string{"m.toml:13: policies.p.cost: must be a positive number"}},
		{"cost as a word", strings.Replace(base, "ref = \"fcfs\"", "ref = \"fcfs\"\ncost = \"high\"", 1) + matrix,
			[]string{"m.toml:13: policies.p.cost: must be a positive number", "not high"}},
		{"bad sha256", strings.Replace(base, `sha256 = "`+sha+`"`, `sha256 = "abc"`, 1) + matrix,
			[]string{"m.toml:6: workloads.a.sha256: \"abc\" is not a sha256: 64 hexadecimal digits"}},
		{"non-hex sha256", strings.Replace(base, `sha256 = "`+sha+`"`, `sha256 = "`+strings.Repeat("g", 64)+`"`, 1) + matrix,
			[]string{"m.toml:6: workloads.a.sha256:", "is not a sha256"}},
		{"missing sha256", strings.Replace(base, "trace = \"a.swf\"\nsha256 = \""+sha+"\"", "trace = \"a.swf\"", 1) + matrix,
			[]string{"m.toml:4: workloads.a: a trace needs its sha256"}},
		{"trace and generator", strings.Replace(base, "trace = \"a.swf\"", "trace = \"a.swf\"\ngenerator = \"lublin\"", 1) + matrix,
			[]string{"m.toml:6: workloads.a.generator: a workload has either a trace or a generator, not both"}},
		{"neither trace nor generator", base + "[workloads.c]\nprocs = 10\n" + matrix,
			[]string{"m.toml:" + strconv.Itoa(baseLines+1) + ": workloads.c: set trace (an SWF file) or generator"}},
		{"unknown generator", base + "[workloads.c]\ngenerator = \"lublin\"\nprocs = 10\n" + matrix,
			[]string{"m.toml:" + strconv.Itoa(baseLines+2) + ": workloads.c.generator: unknown generator \"lublin\" (known: none yet)"}},
		{"negative procs", strings.Replace(base, "trace = \"a.swf\"", "trace = \"a.swf\"\nprocs = -1", 1) + matrix,
			[]string{"m.toml:6: workloads.a.procs: must be 0 (from the trace header) or a positive number"}},
		{"params on a trace", strings.Replace(base, "trace = \"a.swf\"", "trace = \"a.swf\"\nparams = { jobs = 1 }", 1) + matrix,
			[]string{"m.toml:6: workloads.a.params: parameters belong to generators"}},
		{"cleaning setting name", strings.Replace(base, "trace = \"a.swf\"", "trace = \"a.swf\"\nclean = { nonpositive_runtim = \"drop\" }", 1) + matrix,
			[]string{"m.toml:6: workloads.a.clean.nonpositive_runtim: unknown cleaning setting (did you mean nonpositive-runtime?)"}},
		{"cleaning setting value", strings.Replace(base, "trace = \"a.swf\"", "trace = \"a.swf\"\nclean = { oversize = \"shrink\" }", 1) + matrix,
			[]string{"m.toml:6: workloads.a.clean.oversize: cleaning setting oversize: unknown value \"shrink\" (allowed: drop, clamp, error)"}},
		{"cleaning setting twice", strings.Replace(base, "trace = \"a.swf\"", "trace = \"a.swf\"\nclean = { oversize = \"drop\", oversize_ = \"clamp\", missing_walltime = \"drop\", missing-walltime = \"drop\" }", 1) + matrix,
			[]string{"workloads.a.clean.missing_walltime: sets cleaning setting missing-walltime again (already set as missing-walltime)"}},
		{"bad workload name", base + "[workloads.\"a b\"]\ntrace = \"x\"\nsha256 = \"" + sha + "\"\n" + matrix,
			[]string{"m.toml:" + strconv.Itoa(baseLines+1) + ": workloads.\"a b\": \"a b\" is not a valid name"}},
		{"missing ref", base + "[policies.r]\nparams = { order = \"submit\" }\n" + matrix,
			[]string{"m.toml:" + strconv.Itoa(baseLines+1) + ": policies.r: ref is required"}},
		{"bare unknown ref", strings.Replace(base, "ref = \"easy\"", "ref = \"esay\"", 1) + matrix,
			[]string{"m.toml:14: policies.q.ref: \"esay\" is not a reference policy (" + strings.Join(reference.Names(), ", ") + ") (did you mean easy?); write ./esay"}},
		{"table param", strings.Replace(base, "params = { order = \"submit\" }", "params = { order = { by = \"submit\" } }", 1) + matrix,
			[]string{"m.toml:15: policies.q.params.order: a table is not a value"}},
		{"array param", strings.Replace(base, "params = { order = \"submit\" }", "params = { order = [\"submit\"] }", 1) + matrix,
			[]string{"m.toml:15: policies.q.params.order: an array is not a value here"}},
		{"no matrix", base, []string{"m.toml: [matrix] is required"}},
		{"matrix not a table", "matrix = 1\n" + base, []string{"m.toml:1: matrix: must be a table, not an integer"}},
		{"params not a table", strings.Replace(base, "params = { order = \"submit\" }", "params = \"order=submit\"", 1) + matrix,
			[]string{"m.toml:15: policies.q.params: must be a table, not a string"}},
		{"workload not a table", base + "[workloads]\nc = 1\n" + matrix,
			[]string{"m.toml:" + strconv.Itoa(baseLines+2) + ": workloads.c: must be a table, not an integer"}},
		{"date value", base + matrix + "estimates = [2026-01-01]\n",
			[]string{"m.toml:" + strconv.Itoa(ml+3) + ": matrix.estimates: value 1: a date or time is not a value"}},
		{"include as array of tables without axes", base + "[[matrix.include]]\nworkload = \"a\"\npolicy = \"p\"\n",
			[]string{"m.toml: matrix: the workload axis is required"}},
		{"no policy axis", base + "[matrix]\nworkload = [\"a\"]\n",
			[]string{"m.toml:" + strconv.Itoa(ml) + ": matrix: the policy axis is required"}},
		{"unknown workload", base + "[matrix]\nworkload = [\"a\", \"c\"]\npolicy = [\"p\"]\n",
			[]string{"m.toml:" + strconv.Itoa(ml+1) + ": matrix.workload: unknown workload \"c\": no [workloads.c] (known: a, b)"}},
		{"misspelt policy", base + "[matrix]\nworkload = [\"a\"]\npolicy = [\"pp\", \"q\"]\n",
			[]string{"m.toml:" + strconv.Itoa(ml+2) + ": matrix.policy: unknown policy \"pp\": no [policies.pp] (did you mean p?)"}},
		{"unknown platform", base + "[matrix]\nworkload = [\"a\"]\nplatform = [\"big\"]\npolicy = [\"p\"]\n",
			[]string{"m.toml:" + strconv.Itoa(ml+2) + ": matrix.platform: unknown platform \"big\": no [platforms.big] (known: none)"}},
		{"bad estimates", base + "[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\nestimates = [\"perfect\"]\n",
			[]string{"m.toml:" + strconv.Itoa(ml+3) + ": matrix.estimates: unknown estimates \"perfect\" (known: requested, exact)"}},
		{"unknown axis", base + matrix + "platfrom = [\"x\"]\n",
			[]string{"m.toml:" + strconv.Itoa(ml+3) + ": unknown key matrix.platfrom (did you mean platform?)"}},
		{"duplicate value", base + "[matrix]\nworkload = [\"a\", \"a\"]\npolicy = [\"p\"]\n",
			[]string{"m.toml:" + strconv.Itoa(ml+1) + ": matrix.workload: lists \"a\" twice"}},
		{"empty axis", base + matrix + "\"param.order\" = []\n",
			[]string{"m.toml:" + strconv.Itoa(ml+3) + ": matrix.\"param.order\": an axis needs at least one value"}},
		{"axis not an array", base + matrix + "\"param.order\" = \"submit\"\n",
			[]string{"m.toml:" + strconv.Itoa(ml+3) + ": matrix.\"param.order\": an axis is an array of values"}},
		{"axis given twice", base + matrix + "\"param.order\" = [\"submit\"]\nparam.order = [\"shortest\"]\n",
			[]string{"axis param.order is given twice"}},
		{"bad platform", base + "[platforms.small]\nprocs = 0\n" + matrix,
			[]string{"m.toml:" + strconv.Itoa(ml+1) + ": platforms.small.procs: procs (the number of processors) must be at least 1, got 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.src)
			if err == nil {
				t.Fatalf("no error for:\n%s", tt.src)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestErrorsInLineOrder(t *testing.T) {
	src := strings.Replace(base, "seed = 7", "seed = 7\nreplicates = 0", 1) + "[matrix]\nworkload = [\"zz\"]\npolicy = [\"p\"]\n"
	src = strings.Replace(src, `sha256 = "`+sha+`"`, `sha256 = "x"`, 1)
	_, err := parse(t, src)
	var es Errors
	if !errors.As(err, &es) || len(es) != 3 {
		t.Fatalf("want 3 errors, got %v", err)
	}
	for i := 1; i < len(es); i++ {
		if es[i].Line < es[i-1].Line {
			t.Errorf("errors out of line order:\n%v", err)
		}
	}
}

func TestValuesCanonical(t *testing.T) {
	src := strings.Replace(base, `params = { order = "submit" }`,
		`params = { i = 1, f = 0.5, g = 2.0, big = 1e21, b = true, s = "x", neg = -3 }`, 1) +
		"[matrix]\nworkload = [\"a\"]\npolicy = [\"q\"]\n\"param.n\" = [1, 2.5, false]\n"
	m, runs := mustExpand(t, src)
	want := map[string]string{"i": "1", "f": "0.5", "g": "2", "big": "1e+21", "b": "true", "s": "x", "neg": "-3"}
	for k, v := range want {
		if got := m.Policies["q"].Params[k]; got != v {
			t.Errorf("param %s = %q, want %q", k, got, v)
		}
	}
	var ns []string
	for _, r := range runs {
		ns = append(ns, r.Params["n"])
	}
	if strings.Join(ns, ",") != "1,2.5,false" {
		t.Errorf("param axis values %v", ns)
	}
}

func TestPolicyRefs(t *testing.T) {
	src := base + `[policies.local]
ref = "./bin/mine"
[policies.up]
ref = "../plugins/easy"
[policies.abs]
ref = "/opt/policies/x"
[policies.mod]
ref = "example.com/lab/policy"
[matrix]
workload = ["a"]
policy = ["p"]
`
	m := mustParse(t, src)
	want := map[string]struct {
		kind   RefKind
		target string
	}{
		"p":     {RefReference, "fcfs"},
		"local": {RefPath, "/lab/bin/mine"},
		"up":    {RefPath, "/plugins/easy"},
		"abs":   {RefPath, "/opt/policies/x"},
		"mod":   {RefImport, "example.com/lab/policy"},
	}
	for name, w := range want {
		if p := m.Policies[name]; p.Kind != w.kind || p.Target != filepath.FromSlash(w.target) {
			t.Errorf("%s: %+v, want %v %s", name, p, w.kind, w.target)
		}
	}
}

func TestCleanSettings(t *testing.T) {
	src := strings.Replace(base, "trace = \"a.swf\"", "trace = \"a.swf\"\nclean = { nonpositive_runtime = \"clamp\", oversize = \"error\" }", 1) +
		"[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\n"
	m := mustParse(t, src)
	c := m.Workloads["a"].Clean
	if c.NonPositiveRuntime != workload.Clamp || c.Oversize != workload.Fail || c.Procs != workload.ProcsRequestedElseAllocated {
		t.Errorf("clean %+v", c)
	}
}

func TestVerifySHA256(t *testing.T) {
	m := mustParse(t, base+"[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\n")
	w := m.Workloads["a"]
	if err := w.VerifySHA256(strings.ToUpper(sha)); err != nil {
		t.Error(err)
	}
	// The caller names the workload: the message does not, so it is not said twice.
	if err := w.VerifySHA256(strings.Repeat("0", 64)); err == nil || !strings.Contains(err.Error(), "the manifest expects "+sha) ||
		strings.Contains(err.Error(), "workload a") {
		t.Errorf("mismatch: %v", err)
	}
}

// TestQuickstart loads the documented example and checks the checksums it
// gives against the shipped traces.
func TestQuickstart(t *testing.T) {
	m, err := Load(filepath.Join("testdata", "quickstart.toml"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := m.Expand()
	if err != nil {
		t.Fatal(err)
	}
	// 2 workloads x 3 policies x 2 orders, less fcfs/shortest on both, plus one include.
	if len(runs) != 2*3*2-2+1 {
		t.Errorf("%d runs", len(runs))
	}
	if last := runs[len(runs)-1]; last.Label() != "workload=kth policy=easy estimates=requested param.order=largest replicate=0" {
		t.Errorf("last run %s", last.Label())
	}
	for _, name := range []string{"kth", "nasa"} {
		w := m.Workloads[name]
		got, err := workload.LoadSWF(w.Trace, w.Procs, w.Clean)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.VerifySHA256(got.SHA256); err != nil {
			t.Error(err)
		}
	}
	var b strings.Builder
	if err := m.WriteRuns(&b, runs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != len(runs)+1 || !strings.HasPrefix(lines[0], "#   workload  policy") {
		t.Errorf("table:\n%s", b.String())
	}
}

// FuzzParse checks that no input makes Parse or Expand panic, and that a
// manifest Parse accepts always expands.
func FuzzParse(f *testing.F) {
	f.Add([]byte(base + independenceMatrix))
	f.Add([]byte(base + "[matrix]\nworkload = [\"a\"]\npolicy = [\"q\"]\n[[matrix.include]]\nworkload = \"b\"\npolicy = \"p\"\n"))
	f.Add([]byte("[campaign]\nseed = 1\nSeed = 2\n[Campaign]\nx = 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("f.toml", data, "/lab")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.toml") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		runs, err := m.Expand()
		if err != nil || len(runs) == 0 {
			t.Errorf("parsed manifest does not expand: %v", err)
		}
		for _, r := range runs {
			_ = r.Spec(m)
			_ = r.Seeds(m)
		}
	})
}

// TestDocExample parses the example of docs/manifest.md as if it were
// experiments/quickstart.toml, and checks that its paths exist.
func TestDocExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "manifest.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```toml\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("no toml block in docs/manifest.md")
	}
	m, err := Parse("experiments/quickstart.toml", []byte(block), filepath.Join("..", "..", "experiments"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := m.Expand()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 11 {
		t.Errorf("%d runs, the doc says 11", len(runs))
	}
	for _, w := range m.Workloads {
		if _, err := os.Stat(w.Trace); err != nil {
			t.Error(err)
		}
	}
	if st, err := os.Stat(m.Policies["myplugin"].Target); err != nil || !st.IsDir() {
		t.Errorf("policy myplugin: %v", err)
	}
	if want, _ := filepath.Abs(filepath.Join("..", "..", "out", "quickstart")); m.Campaign.Out != want {
		t.Errorf("out %s, want %s", m.Campaign.Out, want)
	}
}

// TestArchiveTraces checks traces named pwa:NAME: the table's sha256 when
// the manifest gives none, an error at the line of an unknown name or of
// another sha256.
func TestArchiveTraces(t *testing.T) {
	const tail = "[policies.p]\nref = \"fcfs\"\n[matrix]\nworkload = [\"a\"]\npolicy = [\"p\"]\n"
	for _, c := range []struct {
		name, workload, want string
	}{
		{"by name", "trace = \"pwa:KTH-SP2-1996-2.1-cln\"\n", ""},
		{"with its sha256", "trace = \"pwa:KTH-SP2-1996-2.1-cln\"\nsha256 = \"fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87\"\n", ""},
		{"unknown", "trace = \"pwa:KTH-SP3\"\n", "m.toml:4: workloads.a.trace: pwa:KTH-SP3: not a log schedlab knows"},
		{"another sha256", "trace = \"pwa:KTH-SP2-1996-2.1-cln\"\nsha256 = \"" + strings.Repeat("ab", 32) + "\"\n", "m.toml:5: workloads.a.sha256: pwa:KTH-SP2-1996-2.1-cln has sha256 fba3"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "m.toml")
		if err := os.WriteFile(path, []byte("[campaign]\nseed = 1\n[workloads.a]\n"+c.workload+tail), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "" && (m.Workloads["a"].Trace != "pwa:KTH-SP2-1996-2.1-cln" || m.Workloads["a"].SHA256 != "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"):
			t.Errorf("%s: %+v", c.name, m.Workloads["a"])
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}

// TestSeedName checks that workloads sharing a seed_name get the same
// seeds, that it is part of their specs, that the lock keeps it, and that
// a bad name is an error at its line.
func TestSeedName(t *testing.T) {
	gen := Generator{Name: "g", Generate: func(sdk.Params, int64, *rand.Rand) ([]swf.Record, error) { return nil, nil }}
	src := "[campaign]\nseed = 1\n[workloads.a]\ngenerator = \"g\"\nprocs = 8\n[workloads.b]\ngenerator = \"g\"\nprocs = 8\nseed_name = \"a\"\n" +
		"[workloads.c]\ngenerator = \"g\"\nprocs = 8\n[policies.p]\nref = \"fcfs\"\n[matrix]\nworkload = [\"a\", \"b\", \"c\"]\npolicy = [\"p\"]\n"
	dir := t.TempDir()
	path := filepath.Join(dir, "m.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path, gen)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := m.Expand()
	if err != nil {
		t.Fatal(err)
	}
	sa, sb, sc := runs[0].Seeds(m), runs[1].Seeds(m), runs[2].Seeds(m)
	if sa != sb || sa == sc {
		t.Errorf("seeds a %v, b (seed_name a) %v, c %v", sa, sb, sc)
	}
	if !strings.Contains(string(runs[1].Spec(m)), `"seed_name":"a"`) || strings.Contains(string(runs[0].Spec(m)), "seed_name") {
		t.Errorf("specs: %s / %s", runs[0].Spec(m), runs[1].Spec(m))
	}
	var b bytes.Buffer
	if err := m.WriteLock(&b, dir, Lock{Schedlab: "test"}); err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(dir, "manifest.lock.toml")
	if err := os.WriteFile(lockPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if m2, err := Load(lockPath, gen); err != nil || m2.Workloads["b"].SeedName != "a" {
		t.Errorf("the lock: %v", err)
	}
	bad := strings.Replace(src, `seed_name = "a"`, `seed_name = "a b"`, 1)
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, gen); err == nil || !strings.Contains(err.Error(), "m.toml:9: workloads.b.seed_name:") {
		t.Errorf("a bad seed_name: %v", err)
	}
}
