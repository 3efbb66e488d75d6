package calls_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	. "github.com/schedlab/schedlab/sdk/internal/calls"
	"github.com/schedlab/schedlab/sdk/policytest"
	"github.com/schedlab/schedlab/sdk/sim"
)

// prober is a policy that writes down everything it sees at each call and
// decides at random (from its seeded stream) among what the engine
// accepts: starts with and without a placement, promises, wake-ups and
// rejections.
type prober struct {
	seen *[]string
	rng  *rand.Rand
	out  []sdk.Decision
	a    sdk.Alloc
	ran  map[int]bool // jobs requeued by an outage, which are not rejected
}

func (p *prober) Init(env sdk.Env) error { p.rng = env.Rand; return nil }

func (p *prober) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	*p.seen = append(*p.seen, describe(s))
	p.out = p.out[:0]
	for _, c := range s.Completed {
		if c.Requeued {
			if p.ran == nil {
				p.ran = map[int]bool{}
			}
			p.ran[c.Job.Index] = true
		}
	}
	free := make([]sdk.Vector, len(s.Free))
	for c := range free {
		free[c] = s.Free[c].Clone()
	}
	freeUnits := make([][]int64, len(s.FreeUnits))
	for c := range freeUnits {
		freeUnits[c] = slices.Clone(s.FreeUnits[c])
	}
	var nodes []*sdk.Nodes
	for _, n := range s.Nodes {
		var m *sdk.Nodes
		if n != nil {
			m = n.Layout.NewNodes()
			m.CopyFrom(n)
		}
		nodes = append(nodes, m)
	}
	if s.Power != nil {
		p.switchPower(s, nodes)
	}
	for _, j := range s.Queue {
		switch x := p.rng.IntN(10); {
		case x == 0:
			p.out = append(p.out, sdk.Promise(j, s.Now+p.rng.Int64N(100)))
			continue
		case x == 1 && p.rng.IntN(4) == 0 && !p.ran[j.Index]:
			p.out = append(p.out, sdk.Reject(j))
			continue
		case x == 2 && len(s.Nodes) == 0 && s.FreeUnits == nil && p.refused(s, j):
			// A reservation the engine refuses: one that would keep it,
			// and the starts it forbids, are beyond this policy.
			p.out = append(p.out, sdk.Reserve(j, 0, s.Now+1))
			continue
		case x < 3:
			continue
		}
		c := p.rng.IntN(len(s.Free))
		if !j.Request.Fits(free[c]) {
			continue
		}
		if c < len(nodes) && nodes[c] != nil {
			n, try := nodes[c], nodes[c]
			windows := false
			for k := range sdk.WindowNodes(s, c, j.Walltime) {
				// Under the hard maintenance rule a start must leave the
				// nodes of a window ahead that it would run into.
				if !windows {
					windows = true
					try = n.Layout.NewNodes()
					try.CopyFrom(n)
				}
				try.SetFree(k, sdk.Amount{})
			}
			if !try.Place(j.Tasks, n.Layout.Rule(), &p.a) {
				continue
			}
			n.Take(j.Tasks, p.a)
			free[c].Sub(j.Request)
			if windows || p.rng.IntN(2) == 0 {
				p.out = append(p.out, sdk.StartAlloc(j, c, sdk.Alloc{Nodes: slices.Clone(p.a.Nodes), Tasks: slices.Clone(p.a.Tasks)}))
			} else {
				p.out = append(p.out, sdk.StartOn(j, c))
			}
			continue
		}
		if us := s.Platform.Clusters[c].Units; len(us) == 1 {
			// One divided resource: its pieces must fit its units.
			n, size, err := us[0].Pieces(j.Request)
			if err != nil {
				return nil, err
			}
			units := make([]int32, len(freeUnits[c]))
			if !sdk.PlacePieces(units, freeUnits[c], n, size) {
				continue
			}
			for k, x := range units {
				freeUnits[c][k] -= int64(x) * size
			}
			free[c].Sub(j.Request)
			if p.rng.IntN(2) == 0 {
				p.out = append(p.out, sdk.StartPlaced(j, c, units))
			} else {
				p.out = append(p.out, sdk.StartOn(j, c))
			}
			continue
		}
		free[c].Sub(j.Request)
		p.out = append(p.out, sdk.StartOn(j, c))
	}
	if p.rng.IntN(3) == 0 || len(s.Running) == 0 {
		p.out = append(p.out, sdk.WakeAt(s.Now+1+p.rng.Int64N(30)))
	}
	return p.out, nil
}

// switchPower, now and then, switches off some nodes that are on and
// idle (taking them out of nodes, the policy's copy, so that no start of
// the call lands on them) and switches on some that are off.
func (p *prober) switchPower(s *sdk.State, nodes []*sdk.Nodes) {
	for c, modes := range s.Power.Modes {
		if modes == nil || p.rng.IntN(3) != 0 {
			continue
		}
		var offs, ons []int32
		n := nodes[c]
		for k, m := range modes {
			switch {
			case m == sdk.NodeOn && n.Free[k] == n.Layout.Cap(k) && p.rng.IntN(4) == 0:
				offs = append(offs, int32(k))
				n.SetFree(int32(k), sdk.Amount{})
			case m == sdk.NodeOff && p.rng.IntN(2) == 0:
				ons = append(ons, int32(k))
			}
		}
		if len(offs) > 0 {
			p.out = append(p.out, sdk.PowerOff(c, offs))
		}
		if len(ons) > 0 {
			p.out = append(p.out, sdk.PowerOn(c, ons))
		}
	}
}

// refused reports whether a reservation of j on cluster 0 from the next
// second is sure to be refused: it does not fit what is free now, and
// every job running there still runs then.
func (p *prober) refused(s *sdk.State, j *sdk.Job) bool {
	if j.Request.Fits(s.Free[0]) {
		return false
	}
	for _, r := range s.Running {
		if r.Cluster == 0 && r.ExpectedEnd <= s.Now+1 {
			return false
		}
	}
	return true
}

// describe writes down the state as a policy sees it.
func describe(s *sdk.State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "now %d free %v units %v\nqueue", s.Now, s.Free, s.FreeUnits)
	for _, j := range s.Queue {
		jj := *j
		jj.Tasks = nil
		fmt.Fprintf(&b, " %+v", jj)
		if j.Tasks != nil {
			fmt.Fprintf(&b, "%+v", *j.Tasks)
		}
	}
	b.WriteString("\nrunning")
	for _, r := range s.Running {
		fmt.Fprintf(&b, " %d@%d/%d-%d %v", r.Job.Index, r.Cluster, r.Start, r.ExpectedEnd, r.Units)
		if r.Alloc != nil {
			fmt.Fprintf(&b, "%v", *r.Alloc)
		}
	}
	b.WriteString("\ncompleted")
	for _, c := range s.Completed {
		fmt.Fprintf(&b, " %d@%d/%d-%d %v %v %v", c.Job.Index, c.Cluster, c.Start, c.End, c.Killed, c.Interrupted, c.Requeued)
		if c.Alloc != nil {
			fmt.Fprintf(&b, "%v", *c.Alloc)
		}
	}
	b.WriteString("\nrefused")
	for _, r := range s.Refused {
		fmt.Fprintf(&b, " %d@%d/%d", r.Job.Index, r.Cluster, r.At)
	}
	for c, n := range s.Nodes {
		if n != nil {
			fmt.Fprintf(&b, "\nnodes %d %v changed %v", c, n.Free, n.Changed())
		}
	}
	b.WriteString("\noutages")
	for _, o := range s.Outages {
		fmt.Fprintf(&b, " %+v", o)
	}
	if p := s.Power; p != nil {
		fmt.Fprintf(&b, "\npower draw %v committed %v cap %v", p.Draw, p.Committed, p.Cap)
		for c := range p.Modes {
			fmt.Fprintf(&b, "\nmodes %d %v until %v changed %v", c, p.Modes[c], p.Until[c], p.Changed(c))
		}
	}
	return b.String()
}

func probe(seen *[]string) sdk.Plugin {
	return sdk.Plugin{Info: sdk.Info{Name: "probe"}, New: func() sdk.Policy { return &prober{seen: seen} }}
}

// remote serves pl through the call protocol over an in-memory connection
// to a mirror.
func remote(t *testing.T, pl sdk.Plugin) sdk.Plugin {
	host, side := net.Pipe()
	m := &mirror{plugin: pl}
	done := make(chan error, 1)
	go func() { done <- m.serve(side) }()
	t.Cleanup(func() {
		host.Close()
		if err := <-done; err != nil && !errors.Is(err, net.ErrClosed) {
			t.Errorf("mirror: %v", err)
		}
	})
	return sdk.Plugin{Info: pl.Info, New: func() sdk.Policy { return &Remote{Conn: host} }}
}

// TestMirrorSeesWhatTheEngineShows runs random workloads on pools, on
// platforms of several clusters and resources and on nodes under a policy
// that decides at random, called by the engine directly and through the
// call protocol: at every call the policy must see the same state, and the
// runs must give the same records.
func TestMirrorSeesWhatTheEngineShows(t *testing.T) {
	cases := []struct {
		name  string
		r     policytest.Random
		power bool // with a power model (powerModel)
		// outages, when set, gives the run outages of nodes (randomOutages)
		// under these rules.
		outages *sim.Faults
	}{
		{"pool", policytest.Random{Jobs: 150}, false, nil},
		{"multi", policytest.Random{Jobs: 150, Platform: &sdk.Platform{Name: "multi", Resources: []string{sdk.Processors, "mem"},
			Clusters: []sdk.Cluster{{Name: "a", Capacity: sdk.Vector{16, 64}}, {Name: "b", Capacity: sdk.Vector{8, 8}}}}}, false, nil},
		{"units", policytest.Random{Jobs: 150, Platform: &sdk.Platform{Name: "bb", Resources: []string{sdk.Processors, "bb"},
			Clusters: []sdk.Cluster{{Name: "a", Capacity: sdk.Vector{32, 40}, Units: []sdk.Units{{Resource: 1, Capacity: []int64{10, 10, 20}}}}}}}, false, nil},
		{"nodes", policytest.Random{Jobs: 150, Nodes: true}, false, nil},
		{"exact", policytest.Random{Jobs: 100, Nodes: true, Exact: true}, false, nil},
		{"power", policytest.Random{Jobs: 150, Nodes: true}, true, nil},
		{"outages", policytest.Random{Jobs: 150, Nodes: true}, false, &sim.Faults{}},
		{"requeue", policytest.Random{Jobs: 150, Nodes: true}, false, &sim.Faults{OnFailure: sim.FailRequeue, Maintenance: sim.MaintenanceSoft}},
		{"lose place", policytest.Random{Jobs: 150, Nodes: true}, false, &sim.Faults{OnFailure: sim.FailRequeue, LosePlace: true}},
		{"checkpoint", policytest.Random{Jobs: 150, Nodes: true}, false, &sim.Faults{OnFailure: sim.FailCheckpoint,
			Checkpoint: sim.Checkpoint{Rule: sim.IntervalFixed, Interval: 300, Cost: 20, Restart: 10}}},
	}
	saw := map[string]bool{}
	for _, tc := range cases {
		for seed := range uint64(12) {
			t.Run(fmt.Sprintf("%s/%d", tc.name, seed), func(t *testing.T) {
				sc := tc.r.Scenario(seed)
				cfg := sim.Config{Platform: sc.Platform, Jobs: sc.Inputs(), Seed: sc.Seed, ExactEstimates: sc.Exact}
				if cfg.Platform == nil {
					cfg.Platform = sdk.SingleCluster("test", 64)
				}
				if tc.power {
					cfg.Power = powerModel(cfg.Platform, seed)
				}
				if tc.outages != nil {
					cfg.Outages, cfg.Faults = randomOutages(cfg.Platform, cfg.Jobs, seed), *tc.outages
				}
				var direct, mirrored []string
				a, err := sim.Run(context.Background(), probe(&direct), cfg)
				if err != nil {
					t.Fatal(err)
				}
				b, err := sim.Run(context.Background(), remote(t, probe(&mirrored)), cfg)
				if err != nil {
					t.Fatal(err)
				}
				if len(direct) != len(mirrored) {
					t.Fatalf("%d calls directly, %d through the protocol", len(direct), len(mirrored))
				}
				for k := range direct {
					if direct[k] != mirrored[k] {
						t.Fatalf("call %d: the engine showed\n%s\nthe mirror\n%s", k, direct[k], mirrored[k])
					}
				}
				if !slices.Equal(a.Records, b.Records) || !slices.Equal(a.Units, b.Units) || !slices.Equal(a.Attempts, b.Attempts) {
					t.Fatal("same calls, different records or attempts")
				}
				for _, r := range a.Records {
					saw["rejected"] = saw["rejected"] || r.Rejected
					saw["promise"] = saw["promise"] || r.HasPromise
					saw["killed"] = saw["killed"] || r.Killed
					saw["interrupted"] = saw["interrupted"] || r.Interrupted != 0
					saw["requeued"] = saw["requeued"] || r.Attempts > 1
				}
				if b.Power != nil {
					if !slices.Equal(a.Power.Events, b.Power.Events) || a.Power.Energy != b.Power.Energy {
						t.Fatal("same calls, different power events or energy")
					}
					for _, ev := range a.Power.Events {
						saw["switching"] = saw["switching"] || ev.Mode == sdk.NodeSwitchingOn
						saw["off"] = saw["off"] || ev.Mode == sdk.NodeOff
					}
				}
				saw["units"] = saw["units"] || slices.ContainsFunc(a.Units, func(u int32) bool { return u > 0 })
				saw["nodes"] = saw["nodes"] || a.Allocs != nil
				for _, d := range direct {
					saw["refused"] = saw["refused"] || !strings.Contains(d, "refused\n") && !strings.HasSuffix(d, "refused")
					saw["windows"] = saw["windows"] || strings.Contains(d, "Kind:maintenance")
					saw["node changes"] = saw["node changes"] || strings.Contains(d, "changed [") && !strings.Contains(d, "changed []")
					for _, line := range strings.Split(d, "\n") {
						saw["power changes"] = saw["power changes"] || strings.HasPrefix(line, "modes") && !strings.HasSuffix(line, "changed []")
					}
				}
			})
		}
	}
	// The workloads must exercise every part of the frames, or the test
	// proves little.
	for _, what := range []string{"rejected", "promise", "killed", "units", "nodes", "node changes", "refused", "power changes", "switching", "off",
		"interrupted", "requeued", "windows"} {
		if !saw[what] {
			t.Errorf("no run had %s", what)
		}
	}
}

// powerModel is a power model for platform p drawn from seed: each node
// group switches on and off in some seconds (or at once, for one in
// three), and from the 2000th second a cap that every node at full power
// stays under, so that the state shows a cap and its change.
func powerModel(p *sdk.Platform, seed uint64) *sdk.Power {
	r := rand.New(rand.NewPCG(seed, 38))
	m := &sdk.Power{Groups: make([][]sdk.NodePower, len(p.Clusters))}
	full := 0.0
	for c := range p.Clusters {
		for _, g := range p.Clusters[c].Nodes {
			np := sdk.NodePower{Off: float64(r.IntN(20)), Idle: 90 + float64(r.IntN(20)), Full: 200 + float64(r.IntN(100))}
			if r.IntN(3) > 0 {
				np.OnSeconds, np.OnJoules = 1+r.Int64N(120), float64(r.IntN(20000))
				np.OffSeconds, np.OffJoules = 1+r.Int64N(60), float64(r.IntN(5000))
			}
			full += float64(g.Count) * max(np.Full, np.SwitchOnWatts(), np.SwitchOffWatts())
			m.Groups[c] = append(m.Groups[c], np)
		}
	}
	m.Caps = []sdk.CapStep{{From: 2000, Watts: full + 1}}
	return m
}

// randomOutages draws outages of the nodes of platform p over the span of
// jobs from seed: failures of single nodes, drains of a few nodes and
// maintenance windows of a cluster's nodes or of all of them.
func randomOutages(p *sdk.Platform, jobs []sim.Input, seed uint64) []sdk.Outage {
	r := rand.New(rand.NewPCG(seed, 37))
	end := jobs[len(jobs)-1].Job.Submit + 1
	var outs []sdk.Outage
	for c := range p.Clusters {
		n := int32(p.Clusters[c].NodeCount())
		for k := range n {
			for at := r.Int64N(end); at < end; at += 1 + r.Int64N(end/2+1) {
				d := 1 + r.Int64N(600)
				outs = append(outs, sdk.Outage{Cluster: int32(c), Nodes: []int32{k}, Start: at, End: at + d, Kind: sdk.Failure})
				at += d
			}
		}
		for range 2 {
			at := r.Int64N(end)
			o := sdk.Outage{Cluster: int32(c), Start: at, End: at + 1 + r.Int64N(900), Kind: sdk.Maintenance}
			if r.IntN(2) == 0 {
				o.Nodes = []int32{r.Int32N(n)}
			}
			outs = append(outs, o)
			at = r.Int64N(end)
			k := r.Int32N(n)
			outs = append(outs, sdk.Outage{Cluster: int32(c), Nodes: []int32{k}, Start: at, End: at + 1 + r.Int64N(900), Kind: sdk.Drain})
		}
	}
	sdk.SortOutages(outs)
	return outs
}
