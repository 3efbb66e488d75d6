package tracedata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// SacctDir returns the directory holding the Slurm accounting fixtures
// (SOURCES.md and the sacct_*.log files), found, in this order, at
// $SCHEDLAB_DATA/sacct, beside the traces directory when SCHEDLAB_DATA
// points at it ($SCHEDLAB_DATA/../sacct), or at shared/data/sacct under the
// working directory or one of its ancestors, like Dir. Its error wraps
// ErrNotFound and says where it looked when there is none.
func SacctDir() (string, error) {
	var tried []string
	if env := os.Getenv(EnvVar); env != "" {
		for _, d := range []string{filepath.Join(env, "sacct"), filepath.Join(filepath.Dir(filepath.Clean(env)), "sacct")} {
			tried = append(tried, d)
			if isTraceDir(d) {
				return d, nil
			}
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("tracedata: %w", err)
	}
	for d := wd; ; {
		c := filepath.Join(d, "shared", "data", "sacct")
		if isTraceDir(c) {
			return c, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return "", fmt.Errorf("%w: no sacct fixtures (set %s; looked in %s)", ErrNotFound, EnvVar, lookedIn(tried, wd, "sacct"))
}

// SacctDirForTest returns SacctDir for a test, with the behaviour of
// SourcesForTest: when the fixtures are absent it skips the test, saying
// where it looked, except under CI (CI set), where their absence fails it.
func SacctDirForTest(t testing.TB) string {
	t.Helper()
	d, err := SacctDir()
	if errors.Is(err, ErrNotFound) && os.Getenv("CI") == "" {
		t.Skipf("sacct fixtures not available: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}
