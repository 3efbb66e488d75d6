package host_test

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/serve"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// servePluginEnv makes the test binary serve firstFit as a plugin instead
// of running the tests, so that a plugin of this SDK needs no build.
const servePluginEnv = "SCHEDLAB_HOST_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(servePluginEnv) == "1" {
		serve.Main(firstFitPlugin())
	}
	os.Exit(m.Run())
}

// firstFit starts each waiting job, in queue order, on the first cluster
// where it fits now, and promises the others the latest expected end of a
// running job: starts on several clusters, promises and placements on
// divided resources all cross the wire. It is the policy of the protocol-3
// fixture (testdata/proto3/cmd/firstfit), which was built with SDK 0.3.0.
type firstFit struct {
	free []sdk.Vector
	out  []sdk.Decision
}

func (p *firstFit) Init(sdk.Env) error { return nil }

func (p *firstFit) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	p.free = p.free[:0]
	for _, f := range s.Free {
		p.free = append(p.free, f.Clone())
	}
	for _, j := range s.Queue {
		started := false
		for c := range p.free {
			if j.Request.Fits(p.free[c]) {
				p.free[c].Sub(j.Request)
				p.out = append(p.out, sdk.StartOn(j, c))
				started = true
				break
			}
		}
		if !started && len(s.Running) > 0 {
			p.out = append(p.out, sdk.Promise(j, s.Running[len(s.Running)-1].ExpectedEnd))
		}
	}
	return p.out, nil
}

func firstFitPlugin() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{Name: "firstfit", Version: "0.4.0", Description: "first fit over clusters"},
		New:  func() sdk.Policy { return &firstFit{} },
	}
}

// gridPlatform has two clusters, the first with a burst buffer divided into
// three units, one piece per node. Every field differs from its zero value,
// so that a key lost on the wire changes the run.
func gridPlatform() *sdk.Platform {
	return &sdk.Platform{Name: "grid", Resources: []string{sdk.Processors, "nodes", "bb"}, Clusters: []sdk.Cluster{
		{Name: "a", Capacity: sdk.Vector{8, 4, 40}, Units: []sdk.Units{{Resource: 2, PiecesBy: 1, Capacity: []int64{10, 10, 20}}}},
		{Name: "b", Capacity: sdk.Vector{4, 2, 0}},
	}}
}

// gridJobs makes n jobs for gridPlatform from a fixed seed; one in four
// asks for 2 to 10 units of burst buffer per node, and one in ten runs past
// its walltime.
func gridJobs(n int) []sim.Input {
	r := rand.New(rand.NewPCG(3, 4))
	jobs := make([]sim.Input, n)
	t := int64(0)
	for i := range jobs {
		t += r.Int64N(30)
		nodes := 1 + r.Int64N(2)
		procs := nodes * (1 + r.Int64N(2))
		var bb int64
		if r.IntN(4) == 0 {
			bb = nodes * (2 + r.Int64N(9))
		}
		run := 1 + r.Int64N(600)
		wall := run + r.Int64N(600)
		if r.IntN(10) == 0 {
			wall = max(1, run/2)
		}
		jobs[i] = sim.Input{Job: sdk.Job{ID: int64(i + 1), Submit: t, Walltime: wall, Request: sdk.Vector{procs, nodes, bb},
			User: int32(r.IntN(5)), Priority: r.Float64()}, Runtime: run}
	}
	sim.Sort(jobs)
	return jobs
}

// runBoth runs the grid workload under p and in this process under
// firstFit, checks p's records, and compares them.
func runBoth(t *testing.T, p host.Policy) *sim.Result {
	t.Helper()
	plat, jobs := gridPlatform(), gridJobs(500)
	spec := host.RunSpec{Platform: plat, Seed: 7}
	check := verify.NewChecker(plat, jobs)
	got, err := p.Run(context.Background(), spec, jobs, check.Add)
	if err != nil {
		t.Fatal(err)
	}
	if err := check.Finish(got.Units); err != nil {
		t.Fatalf("invalid schedule: %v", err)
	}
	want, err := host.InProcess(firstFitPlugin()).Run(context.Background(), spec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Records, want.Records) || !reflect.DeepEqual(got.Units, want.Units) {
		t.Fatal("the plugin's records or placements differ from the in-process run's")
	}
	s, w := got.Stats, want.Stats
	if s.Events != w.Events || s.PolicyCalls != w.PolicyCalls || s.Decisions != w.Decisions || s.WallNanos <= 0 {
		t.Fatalf("stats %+v, in process %+v", s, w)
	}
	return got
}

// TestCurrentProtocol runs a plugin of this SDK (the test binary itself).
func TestCurrentProtocol(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), servePluginEnv+"=1")
	p, err := host.Start(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if info := p.Info(); info.ProtocolVersion != sdk.ProtocolVersion || info.SDKVersion != sdk.Version || info.Name != "firstfit" {
		t.Fatalf("the plugin describes itself as %+v", info)
	}
	runBoth(t, p)
}

// buildFixture builds a test plugin from a directory of testdata, of its
// own module (GOWORK=off) or of the SDK's, into a temporary directory.
func buildFixture(t *testing.T, dir, pkg string, ownModule bool) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = dir
	if ownModule {
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s in %s: %v\n%s", pkg, dir, err, out)
	}
	return bin
}

// TestPreviousProtocol runs a plugin built with SDK 0.3.0, the release
// before this one (protocol 3): its sources are kept, unchanged, in
// testdata/proto3. The host must negotiate protocol 3 and give the records
// of this SDK's engine.
func TestPreviousProtocol(t *testing.T) {
	bin := buildFixture(t, "testdata/proto3", "./cmd/firstfit", true)
	p, err := host.Start(context.Background(), exec.Command(bin))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if info := p.Info(); info.ProtocolVersion != 3 || info.SDKVersion != "0.3.0" {
		t.Fatalf("the fixture describes itself as %+v, want protocol 3 of SDK 0.3.0", info)
	}
	runBoth(t, p)
}

// TestOlderProtocolRefused: a plugin that speaks only protocol 2 is refused
// at the handshake, with the versions named.
func TestOlderProtocolRefused(t *testing.T) {
	bin := buildFixture(t, ".", "./testdata/oldproto", false)
	_, err := host.Start(context.Background(), exec.Command(bin))
	if err == nil {
		t.Fatal("a protocol-2 plugin started")
	}
	if !strings.Contains(err.Error(), "Plugin version: 2") || !strings.Contains(err.Error(), "Client versions: [3 4]") &&
		!strings.Contains(err.Error(), "Client versions: [4 3]") {
		t.Fatalf("error %q does not name the versions", err)
	}
}

// TestStartDeadline: a program that never answers the handshake fails to
// start by its context's deadline, not after the default 30 s.
func TestStartDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := host.Start(ctx, exec.Command("sleep", "20"))
	if err == nil {
		t.Fatal("sleep started as a plugin")
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Fatalf("gave up after %v, not by the 300 ms deadline: %v", d, err)
	}
}
