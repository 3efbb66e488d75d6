// Package duckcheck runs the DuckDB scripts of .ci/duckdb from Go tests, so
// that files schedlab writes are checked by an independent Parquet reader.
// Without node or the installed DuckDB package a test is skipped on a
// developer's machine but fails under CI, so CI never passes without the
// check.
package duckcheck

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Script returns a function that runs `node .ci/duckdb/NAME args...` from
// the module root and returns its standard output; a failing script fails
// the test with its standard error.
func Script(t testing.TB, name string) func(args ...string) []byte {
	t.Helper()
	unavailable := func(why string) {
		t.Helper()
		msg := why + "; run `npm ci --prefix .ci/duckdb` from the module root to enable the DuckDB reader check"
		if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
			t.Fatal(msg + " (CI is set, so this check may not be skipped)")
		}
		t.Skip(msg)
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, ".ci", "duckdb")
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		unavailable(filepath.Join(".ci", "duckdb", "node_modules", "@duckdb", "node-api") + " is missing")
	}
	return func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, name)}, args...)...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("node %s %v: %v\n%s", name, args, err, stderr.Bytes())
		}
		return stdout.Bytes()
	}
}

// ModuleRoot walks up from the working directory to the directory holding
// go.mod; go test runs in the package directory, but that is not promised
// for every way tests get run.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
