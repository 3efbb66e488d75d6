package scipytest

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSnippet: a snippet gets its input and SciPy, and its JSON comes back.
func TestSnippet(t *testing.T) {
	var got []float64
	Snippet(t, 2*time.Minute, `
q = json.load(sys.stdin)
print(json.dumps([float(scipy.stats.norm.ppf(p)) for p in q["p"]]))
`, map[string]any{"p": []float64{0.5, 0.975}}, &got)
	if len(got) != 2 || got[0] != 0 || math.Abs(got[1]-1.959963984540054) > 1e-12 {
		t.Errorf("norm.ppf(0.5, 0.975) = %v, want [0 1.959963984540054]", got)
	}
}

// TestFloat: null and a missing value decode as NaN.
func TestFloat(t *testing.T) {
	var got struct{ A, B, C Float }
	if err := json.Unmarshal([]byte(`{"a": 1.5, "b": null}`), &got); err != nil {
		t.Fatal(err)
	}
	if got.A.F() != 1.5 || !math.IsNaN(got.B.F()) || !math.IsNaN(got.C.F()) {
		t.Errorf("got %v %v %v, want 1.5 NaN NaN", got.A.F(), got.B.F(), got.C.F())
	}
}

// TestOracle: the {kind, cases} to {versions, results} protocol of the
// oracle scripts, with a script that exits with ExitNoSciPy where it
// cannot import SciPy, as they do, so that the next interpreter is tried.
func TestOracle(t *testing.T) {
	script := filepath.Join(t.TempDir(), "oracle.py")
	if err := os.WriteFile(script, []byte(`import json, sys
try:
    import numpy, scipy, scipy.special
except ImportError as e:
    print(e, file=sys.stderr); sys.exit(3)
q = json.load(sys.stdin)
assert q["kind"] == "gamma"
print(json.dumps({"versions": {"scipy": scipy.__version__, "numpy": numpy.__version__, "python": sys.version},
                  "results": [float(scipy.special.gamma(x)) for x in q["cases"]]}))
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []float64
	Oracle(t, 2*time.Minute, script, "gamma", []float64{1, 5, 0.5}, &got)
	want := []float64{1, 24, math.Sqrt(math.Pi)}
	if len(got) != len(want) {
		t.Fatalf("results %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-14*want[i] {
			t.Errorf("gamma(%d) = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestWithoutSciPy: with no interpreter, a test that needs SciPy is
// skipped, and fails when CI is set. The test binary runs itself for
// TestHelperWithoutSciPy to see the outcome.
func TestWithoutSciPy(t *testing.T) {
	for _, tc := range []struct {
		ci, want string
		fails    bool
	}{
		{"", "--- SKIP: TestHelperWithoutSciPy", false},
		{"0", "--- SKIP: TestHelperWithoutSciPy", false},
		{"1", "CI is set, so this check may not be skipped", true},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWithoutSciPy$", "-test.v")
		cmd.Env = append(os.Environ(), "SCIPYTEST_HELPER=1", "CI="+tc.ci)
		out, err := cmd.CombinedOutput()
		if (err != nil) != tc.fails || !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), "no python3 with SciPy") {
			t.Errorf("CI=%q: %v, want failure %v and %q in:\n%s", tc.ci, err, tc.fails, tc.want, out)
		}
	}
}

func TestHelperWithoutSciPy(t *testing.T) {
	if os.Getenv("SCIPYTEST_HELPER") != "1" {
		t.Skip("run by TestWithoutSciPy")
	}
	pythons = []string{filepath.Join(t.TempDir(), "no-python3")}
	var out any
	Snippet(t, time.Minute, "print(1)", nil, &out)
	t.Error("Snippet returned without SciPy")
}
