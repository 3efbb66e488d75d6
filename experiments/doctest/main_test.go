// Package doctest checks that the write-ups of docs/ say what the
// commands print now: it runs the campaigns of the reproductions
// (docs/reproductions) and of docs/workloads.md with a schedlab built for
// the tests, and compares their tables and outputs with the documents.
// They are a package of their own, apart from cmd/schedlab's tests, so that
// go test runs the two side by side and reports each as it finishes.
package doctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// schedlab is the command built once for these tests.
var schedlab string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "schedlab-doctest-")
	if err != nil {
		panic(err)
	}
	schedlab = filepath.Join(dir, "schedlab")
	if out, err := exec.Command("go", "build", "-o", schedlab, "github.com/schedlab/schedlab/cmd/schedlab").CombinedOutput(); err != nil {
		panic(fmt.Sprintf("build schedlab: %v\n%s", err, out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(schedlab, args...).CombinedOutput()
	return string(out), err
}
