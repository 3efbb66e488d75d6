package tracedata_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload/tracedata"
)

const table = `# Traces

| file | jobs | MaxNodes / MaxProcs (header) | sha256 (uncompressed) |
|---|---|---|---|
| A.swf.gz | 28,476 | 100 / 100 | ` + sha + ` |
| B.swf.gz | 7 | 144 / 1152 | ` + sha + ` |

## Other table

| file | sha256 (.gz) | bytes (.gz) |
|---|---|---|
| A.swf.gz | x | 1 |
`

const sha = "fba36494c4e4257f72182e8b629ebb0bcb054b3b82851ef957445bd627adcc87"

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLookup(t *testing.T) {
	root := t.TempDir()
	// A checkout: root/repo/pkg is the working directory, the data is in
	// root/shared/data/workloads.
	pkg := filepath.Join(root, "repo", "pkg")
	shared := filepath.Join(root, "shared", "data", "workloads")
	env := filepath.Join(root, "env")
	write(t, pkg, "x.go", "package x")
	write(t, shared, tracedata.SourcesFile, table)
	write(t, shared, "A.swf.gz", "")

	cases := []struct {
		name  string
		setup func(t *testing.T)
		env   string
		want  string
	}{
		{"walk up to shared", func(t *testing.T) {}, "", shared},
		{"env/workloads", func(t *testing.T) { write(t, filepath.Join(env, "workloads"), tracedata.SourcesFile, table) }, env,
			filepath.Join(env, "workloads")},
		{"env itself", func(t *testing.T) { write(t, env, tracedata.SourcesFile, table) }, env, env},
		{"env without data falls back", func(t *testing.T) {}, filepath.Join(root, "nothing"), shared},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(env)
			c.setup(t)
			t.Chdir(pkg)
			t.Setenv(tracedata.EnvVar, c.env)
			got, err := tracedata.Dir()
			if err != nil || got != c.want {
				t.Fatalf("Dir = %q, %v; want %q", got, err, c.want)
			}
		})
	}

	t.Run("Path", func(t *testing.T) {
		t.Chdir(pkg)
		t.Setenv(tracedata.EnvVar, "")
		if p, err := tracedata.Path("A.swf.gz"); err != nil || p != filepath.Join(shared, "A.swf.gz") {
			t.Errorf("Path(A) = %q, %v", p, err)
		}
		if _, err := tracedata.Path("B.swf.gz"); !errors.Is(err, tracedata.ErrNotFound) {
			t.Errorf("Path of an absent file: %v, want ErrNotFound", err)
		}
	})

	t.Run("absent", func(t *testing.T) {
		empty := t.TempDir()
		t.Chdir(empty)
		t.Setenv(tracedata.EnvVar, filepath.Join(empty, "nowhere"))
		got, err := tracedata.Dir()
		if err == nil && !strings.HasPrefix(got, empty) {
			t.Skipf("a copy of the traces outside the test's directories was found: %s", got)
		}
		if !errors.Is(err, tracedata.ErrNotFound) {
			t.Fatalf("Dir = %v, want ErrNotFound", err)
		}
		for _, place := range []string{filepath.Join(empty, "nowhere", "workloads"), filepath.Join(empty, "shared", "data", "workloads")} {
			if !strings.Contains(err.Error(), place) {
				t.Errorf("error %q does not say it looked in %s", err, place)
			}
		}
	})
}

func TestSources(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []tracedata.Source
		err  string
	}{
		{"main table only", table, []tracedata.Source{
			{File: "A.swf.gz", Jobs: 28476, MaxNodes: 100, MaxProcs: 100, SHA256: sha},
			{File: "B.swf.gz", Jobs: 7, MaxNodes: 144, MaxProcs: 1152, SHA256: sha},
		}, ""},
		{"missing column", strings.Replace(table, "| jobs |", "| count | jobs2 |", 1), nil, "no table with a \"jobs\" column"},
		{"bad number", strings.Replace(table, "28,476", "many", 1), nil, "SOURCES.md:5: jobs of A.swf.gz"},
		{"bad hash", strings.Replace(table, "| 7 | 144 / 1152 | "+sha, "| 7 | 144 / 1152 | abc", 1), nil, "SOURCES.md:6: sha256 of B.swf.gz"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, tracedata.SourcesFile, c.text)
			t.Setenv(tracedata.EnvVar, dir)
			got, err := tracedata.Sources()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestFiles checks Files against SOURCES.md, one subtest per trace, as
// EachForTest runs them: where the data is present, every trace it lists
// is in Files and the other way round, in the same order.
func TestFiles(t *testing.T) {
	var seen []string
	tracedata.EachForTest(t, func(t *testing.T, s tracedata.Source) {
		seen = append(seen, s.File)
		if s.Jobs <= 0 || len(s.SHA256) != 64 {
			t.Errorf("%s: the row of SOURCES.md read as %+v", s.File, s)
		}
	})
	if src, err := tracedata.Sources(); err == nil {
		var listed []string
		for _, s := range src {
			listed = append(listed, s.File)
		}
		if !slices.Equal(listed, tracedata.Files()) || !slices.Equal(seen, listed) {
			t.Errorf("SOURCES.md lists %q, Files %q, the subtests ran %q", listed, tracedata.Files(), seen)
		}
	}
}
