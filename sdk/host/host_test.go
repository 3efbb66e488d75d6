package host_test

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
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
	switch os.Getenv(servePluginEnv) {
	case "1":
		serve.Main(firstFitPlugin())
	case "drain":
		serve.Main(rotatingDrainPlugin())
	case "notes":
		serve.Main(notingPlugin())
	}
	os.Exit(m.Run())
}

// servedPlugin starts this test binary as a plugin serving the policy
// that TestMain names by serve (servePluginEnv's value), closed when the
// test ends.
func servedPlugin(t *testing.T, serve string) *host.Plugin {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), servePluginEnv+"="+serve)
	p, err := host.Start(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// firstFit starts each waiting job, in queue order, on the first cluster
// where it fits now, and promises the others the latest expected end of a
// running job: starts on several clusters, promises and placements on
// divided resources all cross the wire. It is the policy of the protocol-3
// fixture (testdata/proto3/cmd/firstfit), which was built with SDK 0.3.0.
//
// On a grid (jobs with a home cluster or a transfer time, protocol 5) it
// also keeps local jobs at home, and ships a job with a transfer time to
// the last cluster large enough, charging half its payment; once it has
// arrived, the job reserves its resources there now (on a cluster without
// divided resources), which the engine refuses while they are not free, and
// starts when they are.
type firstFit struct {
	free []sdk.Vector
	out  []sdk.Decision
	// shipped maps a shipped job's index to its cluster and arrival.
	shipped map[int][2]int64
}

func (p *firstFit) Init(sdk.Env) error { return nil }

func (p *firstFit) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if len(s.Nodes) > 0 && s.Nodes[0] != nil {
		return fitNodes(s), nil
	}
	p.out = p.out[:0]
	p.free = p.free[:0]
	for _, f := range s.Free {
		p.free = append(p.free, f.Clone())
	}
	for _, j := range s.Queue {
		if j.Transfer > 0 {
			p.grid(s, j)
			continue
		}
		started := false
		for c := range p.free {
			if home, ok := j.HomeCluster(); (ok && c != home) || !s.Platform.Serves(c, j) {
				continue
			}
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

// grid ships, reserves and starts a job with a transfer time.
func (p *firstFit) grid(s *sdk.State, j *sdk.Job) {
	if p.shipped == nil {
		p.shipped = map[int][2]int64{}
	}
	sh, ok := p.shipped[j.Index]
	if !ok {
		for c := len(s.Platform.Clusters) - 1; c >= 0; c-- {
			if cl := s.Platform.Clusters[c]; j.Request.Fits(cl.Capacity) && s.Platform.Serves(c, j) {
				p.shipped[j.Index] = [2]int64{int64(c), s.Now + j.Transfer}
				p.out = append(p.out, sdk.Ship(j, c), sdk.Charge(j, j.Priority/2), sdk.WakeAt(s.Now+j.Transfer))
				return
			}
		}
		return
	}
	c := int(sh[0])
	if s.Now < sh[1] {
		return
	}
	if len(s.Platform.Clusters[c].Units) == 0 { // reservations count no units
		p.out = append(p.out, sdk.Reserve(j, c, s.Now))
	}
	if j.Request.Fits(p.free[c]) {
		p.free[c].Sub(j.Request)
		p.out = append(p.out, sdk.StartOn(j, c))
	}
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

// streamJobs are gridJobs of which one in three is local to cluster a or
// b and one in four global with a transfer time of up to 60 s.
func streamJobs(n int) []sim.Input {
	jobs := gridJobs(n)
	plat := gridPlatform()
	for i := range jobs {
		j := &jobs[i].Job
		switch i % 12 {
		case 0, 4, 8:
			home := i % 2
			if !j.Request.Fits(plat.Clusters[home].Capacity) {
				home = 0
			}
			j.Home = int32(home + 1)
		case 3, 7, 11:
			j.Transfer = 1 + int64(i%60)
		}
	}
	return jobs
}

// runBoth runs the grid workload under p and in this process under
// firstFit, checks p's records, and compares them.
func runBoth(t *testing.T, p host.Policy) *sim.Result {
	t.Helper()
	return runJobs(t, p, gridJobs(500))
}

// runJobs is runBoth for the given jobs.
func runJobs(t *testing.T, p host.Policy, jobs []sim.Input) *sim.Result {
	t.Helper()
	plat := gridPlatform()
	spec := host.RunSpec{Platform: plat, Seed: 7}
	check := verify.NewChecker(plat, jobs)
	got, err := p.Run(context.Background(), spec, jobs, check.Add)
	if err != nil {
		t.Fatal(err)
	}
	if err := check.Finish(got.Units, got.Allocs); err != nil {
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
	p := servedPlugin(t, "1")
	if info := p.Info(); info.ProtocolVersion != sdk.ProtocolVersion || info.SDKVersion != sdk.Version || info.Name != "firstfit" {
		t.Fatalf("the plugin describes itself as %+v", info)
	}
	runBoth(t, p)
}

// TestGridOverTheWire runs jobs of local and global streams through a
// plugin of this SDK: homes, transfers, shipments, reservations (kept and
// refused) and charges cross the wire, and the records are the in-process
// run's. A protocol-3 plugin is refused such jobs, saying why.
func TestGridOverTheWire(t *testing.T) {
	p := servedPlugin(t, "1")
	jobs := streamJobs(500)
	res := runJobs(t, p, jobs)
	var shipped, reserved, refusals, charged int
	for _, r := range res.Records {
		if r.Shipped {
			shipped++
		}
		if r.Reserved {
			reserved++
		}
		refusals += int(r.Refusals)
		if r.Charged {
			charged++
		}
	}
	if shipped == 0 || reserved == 0 || refusals == 0 || charged != shipped {
		t.Errorf("%d shipped, %d reserved, %d refusals, %d charged: the test crosses too little of the wire", shipped, reserved, refusals, charged)
	}

	old, err := host.Start(context.Background(), exec.Command(buildFixture(t, "testdata/proto3", "./cmd/firstfit", true)))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	_, err = old.Run(context.Background(), host.RunSpec{Platform: gridPlatform(), Seed: 7}, jobs, nil)
	if err == nil || !strings.Contains(err.Error(), "need protocol 5") {
		t.Errorf("a protocol-3 plugin given jobs of streams: %v", err)
	}
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
	i := strings.Index(err.Error(), "Client versions: [")
	if !strings.Contains(err.Error(), "Plugin version: 2") || i < 0 {
		t.Fatalf("error %q does not name the versions", err)
	}
	list, _, _ := strings.Cut(err.Error()[i+len("Client versions: ["):], "]")
	// 3 to 12, and 101, the call protocol of Python policies.
	got := strings.Fields(list)
	for _, v := range []string{"3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "101"} {
		if len(got) != 11 || !slices.Contains(got, v) {
			t.Fatalf("error %q names client versions %v, want 3 to 12 and 101", err, got)
		}
	}
}

// TestProtocol5 runs a plugin built with SDK 0.5.0 (protocol 5), whose
// sources are kept in testdata/proto5: on a platform without nodes it gives
// the records of this SDK's engine; on a platform of nodes, which protocol
// 5 cannot carry, the host refuses it before sending a job, naming both
// versions.
func TestProtocol5(t *testing.T) {
	bin := buildFixture(t, "testdata/proto5", "./cmd/firstfit", true)
	p, err := host.Start(context.Background(), exec.Command(bin))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if info := p.Info(); info.ProtocolVersion != 5 || info.SDKVersion != "0.5.0" {
		t.Fatalf("the fixture describes itself as %+v, want protocol 5 of SDK 0.5.0", info)
	}
	runBoth(t, p)
	plat := sdk.NodesPlatform("nodes", []sdk.NodeGroup{{Name: "n", Count: 4, Cores: 8}}, nil, sdk.FirstFit)
	jobs := []sim.Input{{Job: sdk.Job{ID: 1, Walltime: 10, Request: sdk.Vector{2}, Tasks: &sdk.Tasks{Count: 2, Cores: 1}}, Runtime: 10}}
	_, err = p.Run(context.Background(), host.RunSpec{Platform: plat}, jobs, nil)
	if err == nil || !strings.Contains(err.Error(), "speaks protocol 5") || !strings.Contains(err.Error(), "needs protocol 6") {
		t.Fatalf("a protocol-5 plugin on a platform of nodes: %v", err)
	}
	// A refused run ends its process: another one.
	p2, err := host.Start(context.Background(), exec.Command(bin))
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	_, err = p2.Run(context.Background(), host.RunSpec{Platform: gridPlatform(), Seed: 7}, dependentJobs(50), nil)
	if err == nil || !strings.Contains(err.Error(), "speaks protocol 5") || !strings.Contains(err.Error(), "need protocol 7") {
		t.Fatalf("a protocol-5 plugin given jobs that depend on others: %v", err)
	}
}

// dependentJobs are gridJobs of which one in three depends on the job
// before it, with think times of 0 to 99 s.
func dependentJobs(n int) []sim.Input {
	jobs := gridJobs(n)
	for i := 1; i < len(jobs); i += 3 {
		jobs[i].After, jobs[i].Think = int32(i), int64(i%100)
	}
	return jobs
}

// TestFeedbackOverTheWire runs jobs that depend on others (submitted
// during the run, protocol 7) through a plugin of this SDK: the records
// pass verification and are the in-process run's, and some job is
// submitted after its trace time.
func TestFeedbackOverTheWire(t *testing.T) {
	p := servedPlugin(t, "1")
	jobs := dependentJobs(500)
	res := runJobs(t, p, jobs)
	sub, err := verify.Submitted(jobs, res.Records)
	if err != nil {
		t.Fatal(err)
	}
	later := 0
	for i := range jobs {
		if sub[i] > jobs[i].Job.Submit {
			later++
		}
	}
	if later == 0 {
		t.Error("no job submitted after its trace time: the test crosses too little of the wire")
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
