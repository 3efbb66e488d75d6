package campaign

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/swf"
)

// TestInputErrors gives Run and Check manifests naming inputs that do not
// work: each is reported at its key's line, as ErrInput, before the
// campaign folder exists.
func TestInputErrors(t *testing.T) {
	td, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	broken := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module broken\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() { undefined() }\n"} {
		if err := os.WriteFile(filepath.Join(broken, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	malformed := filepath.Join(t.TempDir(), "bad.swf")
	if err := os.WriteFile(malformed, []byte("; MaxProcs: 10\n1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n2 0 x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kth := filepath.Join(dataDir, "KTH-SP2-1996-2.1-cln.swf.gz")
	failing := manifest.Generator{Name: "failing", Doc: "fails", Generate: func(sdk.Params, int64, *rand.Rand) ([]swf.Record, error) {
		return nil, errors.New("no model file")
	}}
	cases := []struct {
		name, manifest string
		// want is matched against the error's text: the key at fault at a
		// line of c.toml, and what is wrong.
		want string
	}{
		{"missing trace", fmt.Sprintf("[workloads.w]\ntrace = %q\nsha256 = %q\n[matrix]\nworkload = [\"w\"]\npolicy = [\"easy\"]\n",
			filepath.Join(dataDir, "nope.swf"), kthSHA),
			`c.toml:8: workloads.w.trace: .*nope.swf.*no such file`},
		{"wrong sha256", fmt.Sprintf("[workloads.w]\ntrace = %q\nsha256 = %q\n[matrix]\nworkload = [\"w\"]\npolicy = [\"easy\"]\n", kth, nasaSHA),
			`c.toml:9: workloads.w.sha256: trace .* has sha256 ` + kthSHA + `, the manifest expects ` + nasaSHA + `$`},
		{"malformed trace", fmt.Sprintf("[workloads.w]\ntrace = %q\nsha256 = %q\n[matrix]\nworkload = [\"w\"]\npolicy = [\"easy\"]\n", malformed, kthSHA),
			`c.toml:8: workloads.w.trace: .*bad.swf:3`},
		{"missing policy path", fmt.Sprintf("[workloads.w]\ntrace = %q\nsha256 = %q\n[policies.mine]\nref = \"./no-such-plugin\"\n[matrix]\nworkload = [\"w\"]\npolicy = [\"mine\"]\n", kth, kthSHA),
			`c.toml:11: policies.mine.ref: policy ".*no-such-plugin" is neither a plugin binary nor a Go package: .*no such file or directory$`},
		{"policy that does not build", fmt.Sprintf("[workloads.w]\ntrace = %q\nsha256 = %q\n[policies.mine]\nref = %q\n[matrix]\nworkload = [\"w\"]\npolicy = [\"mine\"]\n", kth, kthSHA, broken),
			`(?s)c.toml:11: policies.mine.ref: build .*undefined`},
		{"plugin that does not start", fmt.Sprintf("[workloads.w]\ntrace = %q\nsha256 = %q\n[policies.mine]\nref = %q\n[matrix]\nworkload = [\"w\"]\npolicy = [\"mine\"]\n", kth, kthSHA, filepath.Join(td, "noisy")),
			`(?s)c.toml:11: policies.mine.ref: .*hello from a plugin`},
		{"misspelled parameter axis", fmt.Sprintf("[workloads.w]\ntrace = %q\nsha256 = %q\n[matrix]\nworkload = [\"w\"]\npolicy = [\"easy\", \"fcfs\"]\n\"param.ordr\" = [\"submit\"]\n", kth, kthSHA),
			`c.toml:13: matrix."param.ordr": policy easy has no parameter "ordr" \(did you mean order\?\)`},
		{"ill-typed parameter", fmt.Sprintf("[workloads.w]\ntrace = %q\nsha256 = %q\n[policies.pf]\nref = \"probfill\"\nparams = { tau = \"high\" }\n[matrix]\nworkload = [\"w\"]\npolicy = [\"pf\"]\n", kth, kthSHA),
			`c.toml:12: policies.pf.params.tau: policy pf \(probfill\): parameter "tau": "high" is not a valid float`},
		{"misspelled Slurm parameter", fmt.Sprintf("[workloads.w]\ntrace = %q\nsha256 = %q\n[policies.mf]\nref = \"multifactor\"\nparams = { PriorityWeightAg = 1000 }\n[matrix]\nworkload = [\"w\"]\npolicy = [\"mf\"]\n", kth, kthSHA),
			`c.toml:12: policies.mf.params.PriorityWeightAg: policy mf \(multifactor\) has no parameter "PriorityWeightAg" \(did you mean PriorityWeightAge\?\)`},
		{"shares not positive", fmt.Sprintf("[workloads.w]\ntrace = %q\nsha256 = %q\n[policies.mf]\nref = \"multifactor\"\nparams = { Accounts = \"A:0(1)\" }\n[matrix]\nworkload = [\"w\"]\npolicy = [\"mf\"]\n", kth, kthSHA),
			`c.toml:12: policies.mf.params.Accounts: policy mf \(multifactor\): Accounts: at character 3 of "A:0\(1\)": shares of A: 0; shares must be positive$`},
		{"limit on an unknown account", fmt.Sprintf("[workloads.w]\ntrace = %q\nsha256 = %q\n[policies.mf]\nref = \"multifactor\"\nparams = { Accounts = \"phys(1)\", GrpJobs = \"phy=4\" }\n[matrix]\nworkload = [\"w\"]\npolicy = [\"mf\"]\n", kth, kthSHA),
			`c.toml:12: policies.mf.params.GrpJobs: policy mf \(multifactor\): GrpJobs: account "phy" is not in Accounts \(root, phys\) \(did you mean phys\?\)$`},
		{"generator that fails", "[workloads.g]\ngenerator = \"failing\"\nprocs = 16\n[matrix]\nworkload = [\"g\"]\npolicy = [\"easy\"]\n",
			`c.toml:8: workloads.g.generator: generator failing: no model file`},
	}
	// Six lines before each case's text, so its first line is line 7.
	const header = "[campaign]\nseed = 1\n[policies.easy]\nref = \"easy\"\n[policies.fcfs]\nref = \"fcfs\"\n"
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.toml")
			if err := os.WriteFile(path, []byte(header+c.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := manifest.Load(path, failing)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "campaign")
			opts := Options{Dir: dir, Resolver: testResolver(t), Generators: []manifest.Generator{failing}}
			for what, err := range map[string]error{
				"Check": Check(context.Background(), m, opts),
				"Run":   func() error { _, err := Run(context.Background(), m, opts); return err }(),
			} {
				if !errors.Is(err, ErrInput) || !regexp.MustCompile(c.want).MatchString(firstError(err)) {
					t.Errorf("%s: %v\nwant ErrInput matching %s", what, err, c.want)
				}
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the campaign folder was created: %v", err)
			}
		})
	}
}

// firstError is the text of the first problem an input error lists, with
// the path of the manifest cut to its name.
func firstError(err error) string {
	var es manifest.Errors
	if !errors.As(err, &es) || len(es) == 0 {
		return err.Error()
	}
	e := *es[0]
	e.File = filepath.Base(e.File)
	return strings.TrimSpace(e.Error())
}
