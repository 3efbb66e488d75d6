// Package python_test checks the schedlab Python package (src/schedlab)
// from `go test ./...`: its linters, type check and pytest suite, and its
// random stream against Go's. The README's one test command runs them.
package python_test

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/pyenv"
)

// TestPackage runs ruff (lint and format), mypy (strict, on the package,
// the examples and the tests) and pytest in this folder with the
// interpreter of Python policies, the environment's tests on a schedlab
// built from this checkout.
func TestPackage(t *testing.T) {
	py := pyenv.ForTest(t, "grpc", "pytest", "mypy", "ruff", "gymnasium", "numpy")
	// The environment's tests run episodes on this checkout's schedlab.
	bin := filepath.Join(t.TempDir(), "schedlab")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/schedlab").CombinedOutput(); err != nil {
		t.Fatalf("go build schedlab: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"ruff check", []string{"-m", "ruff", "check", "."}},
		{"ruff format", []string{"-m", "ruff", "format", "--check", "."}},
		{"mypy", []string{"-m", "mypy"}},
		{"pytest", []string{"-m", "pytest", "-q", "-p", "no:cacheprovider"}},
	} {
		args := c.args
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(py, args...)
			cmd.Env = append(cmd.Environ(), "RUFF_NO_CACHE=true", "MYPY_CACHE_DIR=/dev/null", "SCHEDLAB="+bin)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", py, strings.Join(args, " "), err, out)
			}
			t.Logf("%s", lastLines(out, 3))
		})
	}
}

// TestRandMatchesGo: schedlab.rand.Rand draws what Go's math/rand/v2 draws
// from the PCG source of a policy's stream, method for method, for several
// seeds: a Python policy and its Go twin given one seed draw alike.
func TestRandMatchesGo(t *testing.T) {
	py := pyenv.ForTest(t)
	const stream = 0x5eed_0f_7011c7 // the second word of sim's policy stream
	seeds := []uint64{0, 1, 42, 1<<63 + 12345}
	script := `
import sys
from schedlab.rand import Rand
for seed in map(int, sys.argv[1:]):
    r = Rand(seed)
    out = [r.uint64() for _ in range(50)]
    out += [r.int_n(n) for n in (1, 2, 3, 7, 100, 1000, 1 << 40, (1 << 62) + 3) for _ in range(20)]
    out += [repr(r.float64()) for _ in range(50)]
    out += r.perm(30)
    print(" ".join(map(str, out)))
`
	args := []string{"-c", script}
	for _, s := range seeds {
		args = append(args, fmt.Sprint(s))
	}
	out, err := exec.Command(py, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(seeds) {
		t.Fatalf("%d lines for %d seeds:\n%s", len(lines), len(seeds), out)
	}
	for i, seed := range seeds {
		r := rand.New(rand.NewPCG(seed, stream))
		var want []string
		for range 50 {
			want = append(want, fmt.Sprint(r.Uint64()))
		}
		for _, n := range []int64{1, 2, 3, 7, 100, 1000, 1 << 40, 1<<62 + 3} {
			for range 20 {
				want = append(want, fmt.Sprint(r.Int64N(n)))
			}
		}
		for range 50 {
			want = append(want, fmt.Sprint(r.Float64()))
		}
		for _, v := range r.Perm(30) {
			want = append(want, fmt.Sprint(v))
		}
		got := strings.Fields(lines[i])
		if len(got) != len(want) {
			t.Fatalf("seed %d: %d values, want %d", seed, len(got), len(want))
		}
		for k := range want {
			if !sameNumber(got[k], want[k]) {
				t.Fatalf("seed %d, draw %d: Python %s, Go %s", seed, k, got[k], want[k])
			}
		}
	}
}

// sameNumber compares Python's repr of a float (shortest round trip) with
// Go's %v, which are the same digits but for the exponent's form.
func sameNumber(py, goText string) bool {
	if py == goText {
		return true
	}
	var a, b float64
	if _, err := fmt.Sscan(py, &a); err != nil {
		return false
	}
	if _, err := fmt.Sscan(goText, &b); err != nil {
		return false
	}
	return a == b
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
