package policytest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
)

// BinaryEnv names the environment variable that gives Acceptance a plugin
// binary to test instead of building one.
const BinaryEnv = "SCHEDLAB_PLUGIN_BINARY"

// Acceptance builds the plugin binary of the Go package pkg (a directory or
// import path, as `go build` takes it, from the test's directory; or the
// binary BinaryEnv names) and runs each scenario through it as schedlab
// runs a campaign: the real process, handshake and protocol. The binary
// must describe itself as p does; each run's records must pass the host's
// replay verification and equal those of p in this process, and the
// scenario's Want when it has one. One plugin process serves every run,
// twice over, the second time in reverse order, so that a policy that keeps
// state between runs fails here as a reused plugin process would show it.
//
// It builds a binary, so it is skipped with -short.
func Acceptance(t *testing.T, p sdk.Plugin, pkg string, scs ...Scenario) {
	t.Helper()
	if testing.Short() {
		t.Skipf("policytest.Acceptance builds the plugin %s; skipped with -short", pkg)
	}
	bin := os.Getenv(BinaryEnv)
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "plugin")
		begin := time.Now()
		cmd := exec.Command("go", "build", "-o", bin, pkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("policytest.Acceptance: go build %s: %v\n%s", pkg, err, out)
		}
		t.Logf("built %s in %.1f s", pkg, time.Since(begin).Seconds())
	}
	plugin, err := host.Start(context.Background(), exec.Command(bin))
	if err != nil {
		t.Fatalf("policytest.Acceptance: %v", err)
	}
	defer plugin.Close()
	info, want := plugin.Info(), p.Info
	if info.Name != want.Name || info.Version != want.Version || !reflect.DeepEqual(info.Params, want.Params) {
		t.Fatalf("the plugin %s describes itself as %s %s with parameters %+v; the policy in the test is %s %s with %+v",
			bin, info.Name, info.Version, info.Params, want.Name, want.Version, want.Params)
	}
	local := host.InProcess(p)
	served := 0 // runs the plugin process has served
	for _, list := range [][]Scenario{scs, reversed(scs)} {
		for _, sc := range list {
			got, in, err := run(plugin, sc)
			served++
			if err != nil {
				t.Errorf("%s through the plugin, its run %d: %v", sc.Name, served, err)
				continue
			}
			ref, _, err := run(local, sc)
			if err != nil {
				t.Errorf("%s in this process: %v", sc.Name, err)
				continue
			}
			if !reflect.DeepEqual(got.Records, ref.Records) || !reflect.DeepEqual(got.Units, ref.Units) || !reflect.DeepEqual(got.Drains, ref.Drains) {
				t.Errorf("%s: the plugin's records (its run %d) differ from the policy's in this process",
					sc.Name, served)
				continue
			}
			if diffs := sc.diffWant(byID(in, got.Records)); len(diffs) > 0 {
				t.Errorf("%s through the plugin: %v", sc.Name, diffs)
			}
		}
	}
}

func reversed(scs []Scenario) []Scenario {
	r := slices.Clone(scs)
	slices.Reverse(r)
	return r
}
