// Package scipytest runs Python programs that import SciPy from Go tests,
// so that SciPy serves as an independent oracle for schedlab's numbers.
// Without a python3 that can import SciPy a test is skipped on a
// developer's machine but fails under CI, so CI never passes without the
// oracle (the pattern of package duckcheck).
package scipytest

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

// pythons are the interpreters tried, in order: the one on PATH, then
// Debian's, where `apt-get install python3-scipy` puts SciPy even when a
// pyenv or virtualenv python3 comes first on PATH (as on the project's
// machines).
var pythons = []string{"python3", "/usr/bin/python3"}

// ExitNoSciPy is the exit status by which a program says that its
// interpreter cannot import what it needs; the next interpreter is then
// tried.
const ExitNoSciPy = 3

// prelude is what Snippet runs before the snippet: it exits with
// ExitNoSciPy when SciPy cannot be imported.
const prelude = `import json, sys
try:
    import scipy.stats
except ImportError as e:
    print(e, file=sys.stderr); sys.exit(3)
`

// versions is what an oracle script reports about its interpreter.
type versions struct {
	SciPy  string `json:"scipy"`
	NumPy  string `json:"numpy"`
	Python string `json:"python"`
}

// Float is a number in an oracle's JSON output, where null (JSON has no
// NaN) and a missing value stand for NaN.
type Float struct{ v *float64 }

// UnmarshalJSON decodes a number, or null.
func (f *Float) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &f.v) }

// F returns the value, NaN for null or missing.
func (f Float) F() float64 {
	if f.v == nil {
		return math.NaN()
	}
	return *f.v
}

// Oracle runs the oracle script (its path) on {"kind": kind, "cases": cases}
// as JSON on standard input; the script prints {"versions": {...},
// "results": [...]} and exits with ExitNoSciPy when it cannot import
// SciPy. Oracle decodes the results into results, which must point to a
// slice, and logs the interpreter and versions. A script that fails, runs
// longer than timeout or prints other JSON fails the test.
func Oracle(t testing.TB, timeout time.Duration, script, kind string, cases, results any) {
	t.Helper()
	script, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(map[string]any{"kind": kind, "cases": cases})
	if err != nil {
		t.Fatal(err)
	}
	stdout, python := run(t, timeout, in, script+" ("+kind+")", script)
	var out struct {
		Versions versions        `json:"versions"`
		Results  json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("oracle output: %v\n%s", err, stdout)
	}
	if err := json.Unmarshal(out.Results, results); err != nil {
		t.Fatalf("oracle results: %v\n%s", err, out.Results)
	}
	t.Logf("oracle: %s with SciPy %s, NumPy %s, Python %s", python, out.Versions.SciPy, out.Versions.NumPy, out.Versions.Python)
}

// Snippet runs the Python code with json, sys and scipy.stats imported,
// in as JSON on its standard input, and decodes what it prints, JSON, into
// out. A snippet that fails, runs longer than timeout or prints anything
// else fails the test.
func Snippet(t testing.TB, timeout time.Duration, code string, in, out any) {
	t.Helper()
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	stdout, _ := run(t, timeout, data, "snippet", "-c", prelude+code)
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("SciPy output: %v\n%s", err, stdout)
	}
}

// run runs `python args...` with stdin under the first interpreter whose
// run does not exit with ExitNoSciPy, and returns its standard output and
// the interpreter's path; what names the program in messages. Without
// such an interpreter the test is skipped, or fails when CI is set.
func run(t testing.TB, timeout time.Duration, stdin []byte, what string, args ...string) ([]byte, string) {
	t.Helper()
	var tried []string
	for _, py := range pythons {
		path, err := exec.LookPath(py)
		if err != nil {
			tried = append(tried, py+": not found")
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		cmd := exec.CommandContext(ctx, path, args...)
		cmd.Stdin = bytes.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		cancel()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == ExitNoSciPy {
			tried = append(tried, path+": "+strings.TrimSpace(stderr.String()))
			continue
		}
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", path, what, err, stderr.Bytes())
		}
		return stdout.Bytes(), path
	}
	msg := "no python3 with SciPy (" + strings.Join(tried, "; ") + "); install it with `apt-get install python3-scipy`"
	if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		t.Fatal(msg + " (CI is set, so this check may not be skipped)")
	}
	t.Skip(msg)
	return nil, ""
}
