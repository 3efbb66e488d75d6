package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestWorkloadGenModelFile draws traces from a fitted model given as the
// argument of `schedlab workload gen`, as the shorthand of --model model
// --param path=FILE with the model's platform size, and checks the bad
// combinations.
func TestWorkloadGenModelFile(t *testing.T) {
	const model = "../../experiments/petunin-models/kth-model.toml" // fitted on KTH-SP2, 100 processors
	long, err := run(t, "workload", "gen", "--model", "model", "--param", "path="+model, "--param", "jobs=200", "--procs", "100", "--seed", "5")
	if err != nil {
		t.Fatalf("%v\n%s", err, long)
	}
	cases := []struct {
		name     string
		args     []string
		code     int
		same     bool   // the output is the long form's
		contains string // in the output
	}{
		{"model file", []string{model, "--param", "jobs=200", "--seed", "5"}, exitOK, true, "; MaxProcs: 100"},
		{"model file, --model model", []string{model, "--model", "model", "--param", "jobs=200", "--seed", "5"}, exitOK, true, "; MaxProcs: 100"},
		{"model file, --procs", []string{model, "--param", "jobs=200", "--seed", "5", "--procs", "64"}, exitOK, false, "; MaxProcs: 64"},
		{"model file, other seed", []string{model, "--param", "jobs=200", "--seed", "6"}, exitOK, false, "; MaxJobs: 200"},
		{"--model model, no --procs", []string{"--model", "model", "--param", "path=" + model, "--param", "jobs=200", "--seed", "5"}, exitOK, true, "; MaxProcs: 100"},
		{"model file and another model", []string{model, "--model", "mazalov2012"}, exitBadInput, false, "give one"},
		{"model file and a path", []string{model, "--param", "path=" + model}, exitBadInput, false, "give one"},
		{"missing model file", []string{"no-such-model.toml"}, exitBadInput, false, "no-such-model.toml"},
		{"mazalov2012 keeps 64", []string{"--param", "jobs=10"}, exitOK, false, "; MaxProcs: 64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, append([]string{"workload", "gen"}, c.args...)...)
			if code := exitCode(err); code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, out)
			}
			if c.same != (out == long) {
				t.Errorf("same output as the long form: %v, want %v\n%.600s", out == long, c.same, out)
			}
			if !strings.Contains(out, c.contains) {
				t.Errorf("output lacks %q:\n%.600s", c.contains, out)
			}
		})
	}
}

// TestOwnTraceSHA256: a manifest whose trace has no sha256 exits 2 with the
// trace's digest as the line to paste, which `schedlab workload hash`
// prints too; pasted, the manifest runs.
func TestOwnTraceSHA256(t *testing.T) {
	dir := t.TempDir()
	trace, err := filepath.Abs(filepath.Join("..", "..", "experiments", "data", "NASA-iPSC-1993-3.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	const want = `sha256 = "9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76"`
	manifest := filepath.Join(dir, "m.toml")
	src := "[campaign]\nseed = 1\n[workloads.mine]\ntrace = " + strconv.Quote(trace) + "\n[policies.easy]\nref = \"easy\"\n[matrix]\nworkload = [\"mine\"]\npolicy = [\"easy\"]\n"
	if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "run", manifest)
	if exitCode(err) != exitBadInput || !strings.Contains(out, "m.toml:3: workloads.mine: a trace needs its sha256") ||
		!strings.Contains(out, "add the line "+want) || !strings.Contains(out, "schedlab workload hash "+trace) {
		t.Errorf("a trace without sha256: exit %d\n%s", exitCode(err), out)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Errorf("the campaign folder was created")
	}
	hash, err := run(t, "workload", "hash", trace)
	if err != nil || hash != want+"  # "+trace+"\n" {
		t.Errorf("workload hash: %v\n%s", err, hash)
	}
	pasted := strings.Replace(src, "[policies.easy]", want+"\n[policies.easy]", 1)
	if err := os.WriteFile(manifest, []byte(pasted), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, "expand", manifest); err != nil {
		t.Errorf("the manifest with the line pasted: %v\n%s", err, out)
	}
}
