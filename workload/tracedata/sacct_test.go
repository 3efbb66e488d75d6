package tracedata_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload/tracedata"
)

func TestSacctDir(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "repo", "pkg")
	shared := filepath.Join(root, "shared", "data", "sacct")
	env := filepath.Join(root, "env")
	write(t, pkg, "x.go", "package x")
	write(t, shared, tracedata.SourcesFile, "# sacct\n")

	cases := []struct {
		name  string
		setup func(t *testing.T)
		env   string
		want  string
	}{
		{"walk up to shared", func(t *testing.T) {}, "", shared},
		{"env/sacct", func(t *testing.T) { write(t, filepath.Join(env, "sacct"), tracedata.SourcesFile, "x") }, env,
			filepath.Join(env, "sacct")},
		{"env is the workloads directory", func(t *testing.T) { write(t, filepath.Join(env, "sacct"), tracedata.SourcesFile, "x") },
			filepath.Join(env, "workloads"), filepath.Join(env, "sacct")},
		{"env without data falls back", func(t *testing.T) {}, filepath.Join(root, "nothing"), shared},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(env)
			c.setup(t)
			t.Chdir(pkg)
			t.Setenv(tracedata.EnvVar, c.env)
			got, err := tracedata.SacctDir()
			if err != nil || got != c.want {
				t.Fatalf("SacctDir = %q, %v; want %q", got, err, c.want)
			}
		})
	}

	t.Run("absent", func(t *testing.T) {
		empty := t.TempDir()
		t.Chdir(empty)
		t.Setenv(tracedata.EnvVar, filepath.Join(empty, "nowhere"))
		got, err := tracedata.SacctDir()
		if err == nil && !strings.HasPrefix(got, empty) {
			t.Skipf("a copy of the fixtures outside the test's directories was found: %s", got)
		}
		if !errors.Is(err, tracedata.ErrNotFound) {
			t.Fatalf("SacctDir = %v, want ErrNotFound", err)
		}
		for _, place := range []string{filepath.Join(empty, "nowhere", "sacct"), filepath.Join(empty, "shared", "data", "sacct")} {
			if !strings.Contains(err.Error(), place) {
				t.Errorf("error %q does not say it looked in %s", err, place)
			}
		}
	})
}
