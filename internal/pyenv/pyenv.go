// Package pyenv finds, for tests, the Python interpreter that serves
// Python policies: one with the schedlab Python package (python/) and its
// test tools installed.
package pyenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Env names the interpreter, as for the runner (runner.PythonEnv).
const Env = "SCHEDLAB_PYTHON"

// candidates are the interpreters tried in order: $SCHEDLAB_PYTHON, the
// virtual environment .venv of the checkout (where the README installs the
// package), python3 on PATH.
func candidates() []string {
	if p := os.Getenv(Env); p != "" {
		return []string{p}
	}
	var out []string
	if root := checkout(); root != "" {
		out = append(out, filepath.Join(root, ".venv", "bin", "python"))
	}
	return append(out, "python3")
}

// ForTest returns an interpreter that imports schedlab and every module
// of modules, and sets $SCHEDLAB_PYTHON to it for the test. Without one it
// skips the test, saying how to install the package, except under CI (the
// environment variable CI set), which installs it and where its absence
// fails the test.
func ForTest(t testing.TB, modules ...string) string {
	t.Helper()
	check := "import schedlab"
	for _, m := range modules {
		check += ", " + m
	}
	var tried string
	for _, py := range candidates() {
		out, err := exec.Command(py, "-c", check).CombinedOutput()
		if err == nil {
			t.Setenv(Env, py)
			readSources(t)
			return py
		}
		tried += fmt.Sprintf("\n%s: %v %s", py, err, lastLine(out))
	}
	msg := fmt.Sprintf("no Python with %q (python3 -m venv .venv && .venv/bin/pip install './python[test,gym]' from the checkout, or set %s):%s", check, Env, tried)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func lastLine(b []byte) string {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return string(b[i+1:])
		}
	}
	return string(b)
}

// readSources reads every file of the Python package's folder and
// docs/python.md: go test caches a test's result by the files the test
// itself opened, and Python reads these in other processes; opened here,
// a change to any of them runs the test again.
func readSources(t testing.TB) {
	t.Helper()
	root := checkout()
	if root == "" {
		return
	}
	_, _ = os.ReadFile(filepath.Join(root, "docs", "python.md"))
	err := filepath.WalkDir(filepath.Join(root, "python"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "__pycache__" || d.Name() == "build" || strings.HasSuffix(d.Name(), ".egg-info") || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			_, err = os.ReadFile(path)
		}
		return err
	})
	if err != nil {
		t.Fatalf("reading the Python package's sources: %v", err)
	}
}

// checkout returns the folder of go.work above the working directory, or
// "".
func checkout() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
