package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPluginInit does what a new policy author does: it makes a module with
// `schedlab plugin init` in a folder outside the repository, against this
// checkout's SDK, builds and tests it offline (the module cache filled
// beforehand), and runs its campaign. The module's go.sum must list nothing
// of the laboratory's own dependencies, and its go directive must stay the
// SDK's.
func TestPluginInit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a policy module and runs its campaign; skipped with -short")
	}
	sdkDir, err := filepath.Abs("../../sdk")
	if err != nil {
		t.Fatal(err)
	}
	// The module cache must hold the SDK's dependencies at the versions its
	// go.mod requires (the laboratory's build selects newer ones): this step
	// may use the network, the rest must not.
	download := exec.Command("go", "mod", "download")
	download.Dir, download.Env = sdkDir, append(os.Environ(), "GOWORK=off")
	if out, err := download.CombinedOutput(); err != nil {
		t.Fatalf("go mod download in the SDK: %v\n%s", err, out)
	}
	offline := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")

	dir := filepath.Join(t.TempDir(), "fairshare")
	out, err := run(t, "plugin", "init", dir, "--sdk", sdkDir)
	if err != nil {
		t.Fatalf("plugin init: %v\n%s", err, out)
	}
	for _, f := range []string{"go.mod", "go.sum", "fairshare.go", "fairshare_test.go", "cmd/fairshare/main.go",
		"fairshare.toml", "Justfile", "README.md", "data/KTH-SP2-1996-2.1-cln.swf.gz", "data/SOURCES.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("plugin init wrote no %s: %v", f, err)
		}
	}

	test := exec.Command("go", "test", "-v", "./...")
	test.Dir, test.Env = dir, offline
	out2, err := test.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in the new module: %v\n%s", err, out2)
	}
	for _, name := range []string{"TestHandScenario", "TestInvariants", "TestNoStateBetweenRuns", "TestAcceptance"} {
		if !strings.Contains(string(out2), "--- PASS: "+name) {
			t.Errorf("the new module's %s did not pass:\n%s", name, out2)
		}
	}

	sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if bad := regexp.MustCompile(`(?m)^\S*(gonum|parquet-go|cobra|BurntSushi|plot)\S* `).FindAll(sum, -1); len(bad) > 0 {
		t.Errorf("the new module's go.sum lists the laboratory's dependencies: %q", bad)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^go 1\.24$`).Match(mod) {
		t.Errorf("the new module's go directive was raised:\n%s", mod)
	}

	campaign := exec.Command(schedlab, "run", filepath.Join(dir, "fairshare.toml"))
	campaign.Env = offline
	out3, err := campaign.CombinedOutput()
	if err != nil {
		t.Fatalf("schedlab run fairshare.toml: %v\n%s", err, out3)
	}
	for _, want := range []string{"building policy", "built policy", "3 of 3 runs completed, 0 failed"} {
		if !strings.Contains(string(out3), want) {
			t.Errorf("the campaign's output does not say %q:\n%s", want, out3)
		}
	}
	if n := strings.Count(string(out3), "building policy"); n != 1 {
		t.Errorf("the package was built %d times for two policies of one package", n)
	}
}

// TestPluginInitBadInput: a bad name, a folder that is not empty and a
// folder that is not the SDK exit 2 and write nothing.
func TestPluginInitBadInput(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(t.TempDir(), "a"), "--name", "Fair-Share"}, `--name "Fair-Share"`},
		{[]string{full, "--name", "ok"}, "is not empty"},
		{[]string{filepath.Join(t.TempDir(), "b"), "--sdk", t.TempDir()}, "not the schedlab SDK"},
	} {
		out, err := run(t, append([]string{"plugin", "init"}, tc.args...)...)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: %v, want exit 2 saying %q:\n%s", tc.args, err, tc.want, out)
		}
		if _, err := os.Stat(tc.args[0]); tc.args[0] != full && err == nil {
			t.Errorf("%v: the folder was created", tc.args)
		}
	}
	if entries, _ := os.ReadDir(full); len(entries) != 1 {
		t.Errorf("the non-empty folder was written into: %v", entries)
	}
}
