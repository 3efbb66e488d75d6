package runner

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/plugins"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
)

// binDir holds the plugin binaries built once for all tests of the package.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "schedlab-runner-test-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"../plugins/fcfs", "../plugins/easy", "../plugins/conservative",
		"./testdata/crash", "./testdata/exit", "./testdata/fake", "./testdata/flaky", "./testdata/hang", "./testdata/infeasible", "./testdata/noisy", "./testdata/loud")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("building test plugins: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// pluginResolved returns a Resolved that starts a binary built by TestMain;
// for the reference policies it also runs in-process under the same name.
func pluginResolved(t testing.TB, name string) *Resolved {
	t.Helper()
	path := filepath.Join(binDir, name)
	res, err := Resolver{}.Resolve(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	res.Ref = name
	if name == "fcfs" || name == "easy" || name == "conservative" {
		res.Kind = KindReference
	}
	return res
}

func smallWorkload() ([]sim.Input, *sdk.Platform) {
	sc := policytest.Scenario{Jobs: []policytest.Job{
		{ID: 1, Submit: 0, Runtime: 10, Walltime: 20, Procs: 6},
		{ID: 2, Submit: 1, Runtime: 5, Walltime: 10, Procs: 6},
		{ID: 3, Submit: 2, Runtime: 3, Walltime: 5, Procs: 2},
		{ID: 4, Submit: 2, Runtime: 4, Walltime: 4, Procs: 4},
		{ID: 5, Submit: 3, Runtime: 40, Walltime: 30, Procs: 10},
	}}
	return sc.Inputs(), sdk.SingleCluster("small", 10)
}

func TestPluginAndInProcessAgree(t *testing.T) {
	jobs, plat := smallWorkload()
	for _, name := range []string{"fcfs", "easy", "conservative"} {
		for _, exact := range []bool{false, true} {
			spec := Spec{Policy: pluginResolved(t, name), Platform: plat, Jobs: jobs, ExactEstimates: exact,
				Params: map[string]string{"order": "shortest"}, Metrics: metrics.DefaultSettings()}
			viaPlugin, err := Execute(context.Background(), spec)
			if err != nil {
				t.Fatalf("%s plugin: %v", name, err)
			}
			spec.InProcess = true
			linked, err := Execute(context.Background(), spec)
			if err != nil {
				t.Fatalf("%s in-process: %v", name, err)
			}
			if viaPlugin.Transport != "plugin" || linked.Transport != "in-process" {
				t.Fatalf("transports %q and %q", viaPlugin.Transport, linked.Transport)
			}
			if !reflect.DeepEqual(viaPlugin.Records, linked.Records) {
				t.Fatalf("%s exact=%v: plugin records %+v differ from in-process %+v", name, exact, viaPlugin.Records, linked.Records)
			}
			if viaPlugin.Info.Name != name || viaPlugin.Info.SDKVersion != sdk.Version || viaPlugin.Info.ProtocolVersion != sdk.ProtocolVersion {
				t.Fatalf("plugin described itself as %+v", viaPlugin.Info)
			}
			if viaPlugin.Summary.Killed != 1 {
				t.Fatalf("%s: %d jobs killed, want 1 (job 5 runs 40 s of a 30 s walltime)", name, viaPlugin.Summary.Killed)
			}
		}
	}
}

func TestPluginFailures(t *testing.T) {
	jobs, plat := smallWorkload()
	for _, tc := range []struct {
		plugin  string
		timeout time.Duration
		want    []string
		stall   time.Duration
	}{
		{"crash", 0, []string{"policy crash panicked: crash plugin: deliberate panic on call 3", "main.(*crash).Schedule"}, 0},
		// What the plugin wrote to os.Stderr just before os.Exit is lost:
		// go-plugin forwards it from a pipe the exit closes unread.
		{"exit", 0, []string{"plugin process died during the run", "(process exit status 3)"}, 0},
		{"hang", 2 * time.Second, []string{"run exceeded its timeout of 2s"}, 0},
		// No timeout: the heartbeat shows the engine stuck in a policy call.
		{"hang", 0, []string{"no progress in simulated time for 1.5s (stall_timeout): still at t=0 after 1 events"}, 1500 * time.Millisecond},
		{"infeasible", 0, []string{"start job id 2", "it needs 6 procs, 4 are free"}, 0},
		{"noisy", 0, []string{"start", "hello from a plugin"}, 0},
		{"fake", 0, []string{"127.0.0.1:1", "the first line the program printed was taken as its handshake"}, 0},
	} {
		t.Run(tc.plugin, func(t *testing.T) {
			_, err := Execute(context.Background(), Spec{
				Policy: pluginResolved(t, tc.plugin), Platform: plat, Jobs: jobs,
				Metrics: metrics.DefaultSettings(), Timeout: tc.timeout, StallTimeout: tc.stall,
			})
			if err == nil {
				t.Fatal("run succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	r := Resolver{SelfCommand: []string{filepath.Join(binDir, "easy"), "serve"}, CacheDir: t.TempDir()}
	got, err := r.Resolve(ctx, "easy")
	if err != nil || got.Kind != KindReference || got.SHA256 == "" || len(got.Command) != 3 || got.Command[2] != "easy" {
		t.Fatalf("reference: %+v, %v", got, err)
	}
	got, err = r.Resolve(ctx, filepath.Join(binDir, "fcfs"))
	if err != nil || got.Kind != KindBinary {
		t.Fatalf("binary: %+v, %v", got, err)
	}
	notExec := filepath.Join(t.TempDir(), "policy")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve(ctx, notExec); err == nil || !strings.Contains(err.Error(), "not executable") {
		t.Fatalf("non-executable file: %v", err)
	}
	if _, err := r.Resolve(ctx, "eazy"); err == nil || !strings.Contains(err.Error(), "conservative, easy, fcfs") ||
		!strings.Contains(err.Error(), "(did you mean easy?)") {
		t.Fatalf("unknown name: %v", err)
	}
	first, err := r.Resolve(ctx, "../plugins/fcfs")
	if err != nil || first.Kind != KindPackage {
		t.Fatalf("package: %+v, %v", first, err)
	}
	again, err := r.Resolve(ctx, "../plugins/fcfs")
	if err != nil || again.Binary != first.Binary || filepath.Base(first.Binary) != first.SHA256 {
		t.Fatalf("a second build is not the cached binary named by its hash: %+v vs %+v", again, first)
	}
	// A path that does not exist is said to be one, not handed to go build.
	if _, err := r.Resolve(ctx, "./no/such/package"); err == nil || !strings.Contains(err.Error(), "neither a plugin binary nor a Go package") ||
		!errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing package: %v", err)
	}
	if _, err := r.Resolve(ctx, "example.com/no/such/package"); err == nil || !strings.Contains(err.Error(), "build example.com/no/such/package") {
		t.Fatalf("missing import path: %v", err)
	}
}

// TestIdentity checks what identifies a policy in run keys: a reference
// policy run in process, or served by this very binary, by the digest of
// its sources; one served by another binary, and any other plugin, by the
// binary's sha256.
func TestIdentity(t *testing.T) {
	ctx := context.Background()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		r    Resolver
		ref  string
		want func(*Resolved) string
	}{
		{"in process", Resolver{}, "easy", func(*Resolved) string { return plugins.Identity() }},
		{"served by this binary", Resolver{SelfCommand: []string{self}}, "easy", func(*Resolved) string { return plugins.Identity() }},
		{"served by another binary", Resolver{SelfCommand: []string{filepath.Join(binDir, "easy"), "serve"}}, "easy",
			func(r *Resolved) string { return r.SHA256 }},
		{"a plugin binary", Resolver{}, filepath.Join(binDir, "fcfs"), func(r *Resolved) string { return r.SHA256 }},
	} {
		got, err := c.r.Resolve(ctx, c.ref)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if want := c.want(got); got.Identity != want || len(want) != 64 {
			t.Errorf("%s: identity %q, want %q", c.name, got.Identity, want)
		}
	}
}

// TestReusedProcesses runs a plugin that fails the third run of its
// process, through a pool of processes: the third run fails (exit, or hang
// past its timeout), only it, and the next run gets a fresh process. With
// at most two runs per process, no run fails. The records of runs in a
// reused process are those of a fresh one.
func TestReusedProcesses(t *testing.T) {
	jobs, plat := smallWorkload()
	for _, mode := range []string{"exit", "hang"} {
		t.Run(mode, func(t *testing.T) {
			t.Setenv("SCHEDLAB_FLAKY", mode)
			procs := &Processes{}
			defer procs.Close()
			spec := Spec{Policy: pluginResolved(t, "flaky"), Platform: plat, Jobs: jobs,
				Metrics: metrics.DefaultSettings(), Timeout: 2 * time.Second, Processes: procs}
			want, err := Execute(context.Background(), Spec{Policy: spec.Policy, Platform: plat, Jobs: jobs, Metrics: spec.Metrics})
			if err != nil {
				t.Fatal(err)
			}
			for run, wantProcessRun := range []int{1, 2, 3, 1, 2} {
				out, err := Execute(context.Background(), spec)
				if run == 2 {
					if err == nil {
						t.Fatal("the process's third run succeeded")
					}
					continue
				}
				if err != nil {
					t.Fatalf("run %d: %v", run+1, err)
				}
				if out.ProcessRun != wantProcessRun {
					t.Errorf("run %d was its process's run %d, want %d", run+1, out.ProcessRun, wantProcessRun)
				}
				if !reflect.DeepEqual(out.Records, want.Records) {
					t.Errorf("run %d: records differ from a fresh process's", run+1)
				}
			}
			bounded := &Processes{MaxRuns: 2}
			defer bounded.Close()
			spec.Processes = bounded
			for run := range 5 {
				if _, err := Execute(context.Background(), spec); err != nil {
					t.Fatalf("at most 2 runs per process, run %d: %v", run+1, err)
				}
			}
		})
	}
}
