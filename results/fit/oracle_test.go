package fit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pythons are the interpreters tried for the SciPy oracle, in order: the
// one on PATH, then Debian's, where `apt-get install python3-scipy` puts
// SciPy even when a pyenv or virtualenv python3 comes first on PATH (as on
// the project's machines). The same list as results/stats.
var pythons = []string{"python3", "/usr/bin/python3"}

// oracleVersions is what testdata/oracle.py reports about its interpreter.
type oracleVersions struct {
	SciPy  string `json:"scipy"`
	NumPy  string `json:"numpy"`
	Python string `json:"python"`
}

// ciSet reports whether the CI environment variable asks for every check
// to run, as results/stats and internal/duckcheck read it.
func ciSet() bool {
	ci := os.Getenv("CI")
	return ci != "" && ci != "false" && ci != "0"
}

// oracle runs testdata/oracle.py on {"kind": kind, "cases": cases} and
// decodes its per-case results into results, which must point to a slice.
//
// Without an interpreter that can import SciPy the test is skipped on a
// developer's machine but fails when CI is set, like the oracle of
// results/stats, so CI never passes without the oracle.
func oracle(t *testing.T, kind string, cases, results any) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "oracle.py"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(map[string]any{"kind": kind, "cases": cases})
	if err != nil {
		t.Fatal(err)
	}
	var tried []string
	for _, py := range pythons {
		path, err := exec.LookPath(py)
		if err != nil {
			tried = append(tried, py+": not found")
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, path, script)
		cmd.Stdin = bytes.NewReader(in)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		cancel()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 3 {
			tried = append(tried, path+": "+string(bytes.TrimSpace(stderr.Bytes())))
			continue
		}
		if err != nil {
			t.Fatalf("%s %s (%s): %v\n%s", path, script, kind, err, stderr.Bytes())
		}
		var out struct {
			Versions oracleVersions `json:"versions"`
			Results  json.RawMessage
		}
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("oracle output: %v\n%s", err, stdout.Bytes())
		}
		if err := json.Unmarshal(out.Results, results); err != nil {
			t.Fatalf("oracle results: %v\n%s", err, out.Results)
		}
		t.Logf("oracle: %s with SciPy %s, NumPy %s, Python %s", path, out.Versions.SciPy, out.Versions.NumPy, out.Versions.Python)
		return
	}
	msg := "no python3 with SciPy for the oracle (" + strings.Join(tried, "; ") + "); install it with `apt-get install python3-scipy`"
	if ciSet() {
		t.Fatal(msg + " (CI is set, so this check may not be skipped)")
	}
	t.Skip(msg)
}

// opt is a float64 that may be null in the oracle's JSON, which stands for
// NaN.
type opt struct{ v *float64 }

func (o *opt) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &o.v) }

// f returns the value, NaN for null.
func (o opt) f() float64 {
	if o.v == nil {
		return math.NaN()
	}
	return *o.v
}

// relDiff is |got − want| relative to the larger magnitude: 0 when they
// are equal (including two equal infinities), +Inf when exactly one is NaN
// and 0 when both are.
func relDiff(got, want float64) float64 {
	switch {
	case math.IsNaN(got) || math.IsNaN(want):
		if math.IsNaN(got) && math.IsNaN(want) {
			return 0
		}
		return math.Inf(1)
	case got == want:
		return 0
	}
	return math.Abs(got-want) / math.Max(math.Abs(got), math.Abs(want))
}

// near reports whether got is within rel of want, relative to the larger
// magnitude, or within abs absolutely (for values near 0, where a relative
// tolerance means nothing); two NaNs are near.
func near(got, want, rel, abs float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) {
		return math.IsNaN(got) && math.IsNaN(want)
	}
	if got == want {
		return true
	}
	d := math.Abs(got - want)
	return d <= abs || d <= rel*math.Max(math.Abs(got), math.Abs(want))
}
