package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/sdk"
)

// schedlab is the command built once for these tests, so that reference
// policies run as real plugin processes of this very binary.
var schedlab string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "schedlab-cmd-test-")
	if err != nil {
		panic(err)
	}
	schedlab = filepath.Join(dir, "schedlab")
	if out, err := exec.Command("go", "build", "-o", schedlab, ".").CombinedOutput(); err != nil {
		panic("build schedlab: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const kth = "../../experiments/data/KTH-SP2-1996-2.1-cln.swf.gz"

// kthSHA is kth's sha256, of its uncompressed bytes, as a manifest gives it.
const kthSHA = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(schedlab, args...).CombinedOutput()
	return string(out), err
}

// TestSimPluginAndInProcess runs the README's main job both ways and checks
// the Parquet rows are identical and carry their provenance.
func TestSimPluginAndInProcess(t *testing.T) {
	dir := t.TempDir()
	rows := map[string][]results.JobRow{}
	for _, mode := range []string{"plugin", "in-process"} {
		out := filepath.Join(dir, mode, "jobs.parquet")
		args := []string{"sim", "--trace", kth, "--policy", "easy", "--param", "order=shortest", "--out", out}
		if mode == "in-process" {
			args = append(args, "--in-process")
		}
		text, err := run(t, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, text)
		}
		if !strings.Contains(text, "policy            easy 1.1.0 (reference, "+mode+")") {
			t.Errorf("%s: summary does not name the transport:\n%s", mode, text)
		}
		r, meta, err := results.ReadJobs(out)
		if err != nil {
			t.Fatal(err)
		}
		rows[mode] = r
		for key, want := range map[string]string{
			"policy.name": "easy", "policy.kind": "reference", "transport": mode,
			"workload.sha256":           kthSHA,
			"policy.params":             `{"order":"shortest"}`,
			"clean.nonpositive-runtime": "drop", "metrics.bsld_tau": "10", "exact_estimates": "false",
		} {
			if meta[key] != want {
				t.Errorf("%s: provenance %s = %q, want %q", mode, key, meta[key], want)
			}
		}
		if len(meta["policy.sha256"]) != 64 {
			t.Errorf("%s: policy.sha256 %q", mode, meta["policy.sha256"])
		}
	}
	// 28,476 records less 1 without processors and 8 without runtime.
	if len(rows["plugin"]) != 28467 {
		t.Fatalf("%d rows, want 28467", len(rows["plugin"]))
	}
	if !reflect.DeepEqual(rows["plugin"], rows["in-process"]) {
		t.Fatal("plugin and in-process rows differ")
	}
}

// TestSimFeedback runs KTH-SP2 with inferred sessions under conservative
// backfilling as a plugin and in process: the same rows, a summary that
// says what the feedback did (11,509 of the 28,467 jobs depend on
// another), and the setting in the provenance.
func TestSimFeedback(t *testing.T) {
	dir := t.TempDir()
	rows := map[string][]results.JobRow{}
	for _, mode := range []string{"plugin", "in-process"} {
		out := filepath.Join(dir, mode, "jobs.parquet")
		args := []string{"sim", "--trace", kth, "--policy", "conservative", "--feedback", "sessions", "--out", out}
		if mode == "in-process" {
			args = append(args, "--in-process")
		}
		text, err := run(t, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, text)
		}
		for _, want := range []string{"feedback          adjusted 11509 jobs: dependent (after-predecessor)",
			"feedback          counted 16668 jobs: session-break (independent)"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the summary does not say %q:\n%s", mode, want, text)
			}
		}
		r, x, meta, err := results.ReadJobsWith(out)
		if err != nil {
			t.Fatal(err)
		}
		rows[mode] = r
		if len(x.Feedback) != len(r) || meta["workload.feedback"] != "sessions" || meta["workload.session-threshold"] != "1200" {
			t.Errorf("%s: %d feedback rows for %d, provenance %q %q", mode, len(x.Feedback), len(r), meta["workload.feedback"], meta["workload.session-threshold"])
		}
	}
	if !reflect.DeepEqual(rows["plugin"], rows["in-process"]) {
		t.Fatal("plugin and in-process rows differ")
	}
}

// TestSimBadInput: every mistake in sim's input exits 2 (bad input,
// nothing ran), saying what is wrong, and creates no output.
func TestSimBadInput(t *testing.T) {
	outDir := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--policy", "easy", "--param", "ordr=submit"}, `unknown parameter "ordr"`},
		{[]string{"--policy", "easy", "--param", "order=random"}, `"random" is not one of submit, shortest, smallest, largest`},
		{[]string{"--policy", "easy", "--param", "order"}, `--param "order": want key=value`},
		{[]string{"--policy", "easy", "--in-process", "--param", "ordr=submit"}, `unknown parameter "ordr"`},
		{[]string{"--policy", "easy", "--clean", "oversize=keep"}, "cleaning setting oversize: unknown value \"keep\""},
		{[]string{"--policy", "easy", "--clean", "procz=requested"}, `unknown cleaning setting "procz"`},
		{[]string{"--policy", "eazy"}, `policy "eazy" is neither a reference policy`},
		{[]string{"--policy", "easy", "--param", "ordr=submit"}, `unknown parameter "ordr" (did you mean order?)`},
		{[]string{"--policy", "multifactor", "--param", "PriorityWeightAg=1000"}, `unknown parameter "PriorityWeightAg" (did you mean PriorityWeightAge?)`},
		{[]string{"--policy", "multifactor", "--param", "Accounts=A(1:0)"}, `Accounts: at character 5 of "A(1:0)": shares of 1: 0; shares must be positive`},
		{[]string{"--policy", "multifactor", "--param", "PriorityFlags=NO_FAIR_TREEE"}, `PriorityFlags: "NO_FAIR_TREEE" is not a flag schedlab models`},
		{[]string{"--policy", "multifactor", "--param", "MaxJobPerUser=2"}, `unknown parameter "MaxJobPerUser" (did you mean MaxJobsPerUser?)`},
		{[]string{"--policy", "multifactor", "--param", "MaxTRESPerUser=cpus=4"}, `MaxTRESPerUser: "cpus" is not a TRES schedlab limits (cpu, mem, gres/gpu, node) (did you mean cpu?)`},
		{[]string{"--policy", "easy", "--feedback", "sesions"}, `--feedback: value "sesions": allowed are none, swf, sessions`},
		{[]string{"--policy", "easy", "--feedback", "swf", "--session-threshold", "60"}, "--session-threshold: set under feedback=swf"},
		{[]string{"--policy", "easy", "--feedback", "sessions", "--session-threshold", "-1"}, "--session-threshold: -1 s"},
	} {
		args := append([]string{"sim", "--trace", kth, "--out", filepath.Join(outDir, "jobs.parquet")}, tc.args...)
		out, err := run(t, args...)
		if exitCode(err) != exitBadInput || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d\n%s\nwant exit 2 saying %q", tc.args, exitCode(err), out, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--trace", "no-such.swf", "--policy", "easy"}, "no-such.swf"},
		{[]string{"sim", "--policy", "easy"}, `required flag(s) "trace" not set`},
	} {
		out, err := run(t, tc.args...)
		if exitCode(err) != exitBadInput || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d\n%s\nwant exit 2 saying %q", tc.args[1:], exitCode(err), out, tc.want)
		}
	}
	if _, err := os.Stat(outDir); err == nil {
		t.Errorf("bad input created %s", outDir)
	}
}

// TestBadInputExitsTwo holds every command to the one rule of exit
// statuses (schedlab --help, README): a missing or malformed file, folder
// or argument is bad input, exit 2, whatever the command.
func TestBadInputExitsTwo(t *testing.T) {
	tmp := t.TempDir()
	badSWF := filepath.Join(tmp, "bad.swf")
	badTOML := filepath.Join(tmp, "bad.toml")
	if err := os.WriteFile(badSWF, []byte("; MaxProcs: 8\nnot a job line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(badTOML, []byte("[campaign\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(tmp, "missing")
	for _, args := range [][]string{
		{"sim", "--trace", missing + ".swf", "--policy", "easy"},
		{"sim", "--trace", badSWF, "--policy", "easy"},
		{"sim", "--trace", kth, "--policy", missing},
		{"run", missing + ".toml"},
		{"run", badTOML},
		{"expand", missing + ".toml"},
		{"expand", badTOML},
		{"rerun", missing},
		{"compare", missing, "--baseline", "policy=easy"},
		{"report", missing},
		{"workload", "gen", missing + ".toml"},
		{"workload", "analyze", missing + ".swf"},
		{"workload", "analyze", badSWF},
		{"workload", "fit", badSWF, "-o", filepath.Join(tmp, "model.toml")},
		{"workload", "hash", missing + ".swf"},
		{"workload", "hash", badSWF + "x", "extra"},
		{"plugin", "describe", missing},
		{"plugin", "describe", "eazy"},
		{"groupsel", "solve", missing + ".opb"},
		{"slurm", "submit", missing + ".toml", "--array", "2"},
		{"slurm", "status", missing},
		{"slurm", "merge", missing},
		{"serve-env"},
		{"gantt", missing + ".parquet"},
		{"gantt", badSWF},
		{"gantt", tmp},
		{"export", badSWF},
		{"export", kth, "--format", "xml"},
	} {
		out, err := run(t, args...)
		if exitCode(err) != exitBadInput || !strings.Contains(out, "schedlab: ") {
			t.Errorf("%v: exit %d, want %d with the error\n%s", args, exitCode(err), exitBadInput, out)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "model.toml")); err == nil {
		t.Errorf("workload fit of a bad trace wrote its model")
	}
}

func TestPluginDescribeAndList(t *testing.T) {
	out, err := run(t, "plugin", "describe", "conservative")
	if err != nil || !strings.Contains(out, `"name": "conservative"`) || !strings.Contains(out, fmt.Sprintf(`"protocol_version": %d`, sdk.ProtocolVersion)) {
		t.Fatalf("describe: %v\n%s", err, out)
	}
	out, err = run(t, "plugin", "list")
	if err != nil || !strings.Contains(out, "easy") || !strings.Contains(out, "fcfs") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	// Started by hand rather than by a host, the plugin explains itself.
	out, err = run(t, "plugin", "serve", "easy")
	if err == nil || !strings.Contains(out, "This binary is a plugin") {
		t.Fatalf("serve by hand: %v\n%s", err, out)
	}
}

// TestJSONKeys checks that the JSON outputs (sim, run, compare) spell every
// key in snake_case, as docs/results.md does, however deep.
func TestJSONKeys(t *testing.T) {
	m := writeManifest(t, "", `policy = ["easy", "fcfs"]`)
	dir := filepath.Join(t.TempDir(), "c")
	nasa := filepath.Join("..", "..", "experiments", "data", "NASA-iPSC-1993-3.1-cln.swf.gz")
	for _, args := range [][]string{
		{"sim", "--trace", nasa, "--policy", "easy", "--json"},
		{"run", m, "--out", dir, "--json"},
		{"compare", dir, "--metric", "mean_wait", "--baseline", "policy=easy", "--format", "json"},
	} {
		out, err := exec.Command(schedlab, args...).Output()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		keys := 0
		var walk func(string, any)
		walk = func(path string, v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, x := range v {
					keys++
					// Keys that are values (axes, parameters, metric names) are lower case too;
					// cleaning rules are named with hyphens (docs/semantics.md), in run specs too.
					if !regexp.MustCompile(`^[a-z0-9_.]+$`).MatchString(k) && !(strings.HasSuffix(path, ".clean") && regexp.MustCompile(`^[a-z-]+$`).MatchString(k)) {
						t.Errorf("%s: key %q at %s is not snake_case", args[0], k, path)
					}
					walk(path+"."+k, x)
				}
			case []any:
				for _, x := range v {
					walk(path+"[]", x)
				}
			}
		}
		walk("", v)
		if keys < 20 {
			t.Errorf("%s: only %d keys", args[0], keys)
		}
	}
}
