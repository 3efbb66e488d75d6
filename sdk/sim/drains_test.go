package sim_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// drainText renders a run's drains as "node start end; ...".
func drainText(ds []sim.PolicyDrain) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, fmt.Sprintf("%d %d %d", d.Node, d.Start, d.End))
	}
	return strings.Join(parts, "; ")
}

// outagesText renders what a policy sees of outages.
func outagesText(s *sdk.State) string {
	var parts []string
	for _, o := range s.Outages {
		parts = append(parts, fmt.Sprintf("%s %v %d-%d", o.Kind, o.Nodes, o.Start, o.End))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// TestDrainsHandWorked runs small platforms on which the policy drains and
// resumes nodes, with schedules worked out by hand, and checks them with
// the host's verification.
func TestDrainsHandWorked(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	four := sdk.Tasks{Count: 4, Cores: 1}
	at := func(now int64, ds ...sdk.Decision) func(*sdk.State) []sdk.Decision {
		return func(s *sdk.State) []sdk.Decision {
			if s.Now == now {
				return ds
			}
			return nil
		}
	}
	for _, tc := range []struct {
		name   string
		jobs   []nodeJob
		outs   []sdk.Outage
		before func(*sdk.State) []sdk.Decision // decided before fcfsNodes at each call
		want   []string                        // per job: "start end alloc"
		drains string
		seen   []string // per call: "t=now node0=free outages"
	}{
		// Node 0 drained at 0 before any start: both jobs go to node 1,
		// one after the other.
		{"drain before starts", []nodeJob{{1, 0, 100, four}, {2, 0, 10, four}}, nil,
			at(0, sdk.DrainNodes(0, []int32{0})),
			[]string{"0 100 1:4", "100 110 1:4"}, "0 0 -1",
			[]string{"t=0 node0=4 []", "t=100 node0=0 [policy_drain [0] 0--1]"}},
		// Job 1 runs on node 0 when the policy drains it at 10: it runs
		// to its end at 100, and job 3 waits for node 1, free at 100
		// too, since node 0 stays drained.
		{"drain with a job running", []nodeJob{{1, 0, 100, four}, {2, 0, 100, four}, {3, 10, 10, four}}, nil,
			at(10, sdk.DrainNodes(0, []int32{0})),
			[]string{"0 100 0:4", "0 100 1:4", "100 110 1:4"}, "0 10 -1",
			[]string{"t=0 node0=4 []", "t=10 node0=0 []", "t=100 node0=0 [policy_drain [0] 10--1]"}},
		// Drained at 0, node 0 is resumed at 50 (a wake-up) and job 2
		// starts there then.
		{"resume then start", []nodeJob{{1, 0, 100, four}, {2, 0, 10, four}}, nil,
			func(s *sdk.State) []sdk.Decision {
				switch s.Now {
				case 0:
					return []sdk.Decision{sdk.DrainNodes(0, []int32{0}), sdk.WakeAt(50)}
				case 50:
					return []sdk.Decision{sdk.ResumeNodes(0, []int32{0})}
				}
				return nil
			},
			[]string{"0 100 1:4", "50 60 0:4"}, "0 0 50",
			[]string{"t=0 node0=4 []", "t=50 node0=0 [policy_drain [0] 0--1]"}},
		// The platform drains node 0 from 0 to 50 and the policy drains
		// it too at 0: at 50 the platform's drain ends, the policy's
		// does not, and job 2 waits for node 1 at 100. A resume at 100
		// gives node 0 back: job 3 starts there.
		{"policy drain outlives a platform drain", []nodeJob{{1, 0, 100, four}, {2, 0, 10, four}, {3, 0, 10, four}},
			[]sdk.Outage{{Nodes: []int32{0}, Start: 0, End: 50, Kind: sdk.Drain}},
			func(s *sdk.State) []sdk.Decision {
				switch s.Now {
				case 0:
					return []sdk.Decision{sdk.DrainNodes(0, []int32{0})}
				case 100:
					return []sdk.Decision{sdk.ResumeNodes(0, []int32{0})}
				}
				return nil
			},
			[]string{"0 100 1:4", "100 110 0:4", "100 110 1:4"}, "0 0 100",
			[]string{"t=0 node0=0 [drain [0] 0-50]", "t=50 node0=0 [policy_drain [0] 0--1]", "t=100 node0=0 [policy_drain [0] 0--1]"}},
		// Drained and resumed in one call: nothing changes.
		{"drain and resume at once", []nodeJob{{1, 0, 10, four}, {2, 0, 10, four}}, nil,
			at(0, sdk.DrainNodes(0, []int32{0, 1}), sdk.ResumeNodes(0, []int32{0, 1})),
			[]string{"0 10 0:4", "0 10 1:4"}, "0 0 0; 1 0 0",
			[]string{"t=0 node0=4 []"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := nodeInputs(two, tc.jobs...)
			var seen []string
			p := &scripted{fn: func(s *sdk.State, _ int) ([]sdk.Decision, error) {
				seen = append(seen, fmt.Sprintf("t=%d node0=%d %s", s.Now, s.Nodes[0].Free[0].Cores, outagesText(s)))
				ds := tc.before(s)
				if len(ds) == 0 {
					return fcfsNodes(s, 0)
				}
				// The starts see the nodes as the drains leave them: a
				// copy with the drained nodes set aside.
				n := new(sdk.Nodes)
				n.CopyFrom(s.Nodes[0])
				for _, d := range ds {
					for _, k := range d.Nodes {
						if d.Action == sdk.ActionDrain {
							n.SetFree(k, sdk.Amount{})
						} else {
							n.SetFree(k, n.Layout.Cap(int(k)))
						}
					}
				}
				var a sdk.Alloc
				out := append([]sdk.Decision(nil), ds...)
				for _, j := range s.Queue {
					if !n.Place(j.Tasks, n.Layout.Rule(), &a) {
						break
					}
					n.Take(j.Tasks, a)
					out = append(out, sdk.Start(j))
				}
				return out, nil
			}}
			cfg := sim.Config{Platform: two, Jobs: in, Outages: tc.outs}
			res, err := sim.Run(context.Background(), plugin(p), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res.Records {
				if got := outageText(r, res.Allocs.Of(i)); got != tc.want[i] {
					t.Errorf("job id %d: %q, want %q", in[i].Job.ID, got, tc.want[i])
				}
			}
			if got := drainText(res.Drains); got != tc.drains {
				t.Errorf("drains %q, want %q", got, tc.drains)
			}
			if res.Stats.PolicyDrains != int64(len(res.Drains)) {
				t.Errorf("stats count %d drains, the result lists %d", res.Stats.PolicyDrains, len(res.Drains))
			}
			if strings.Join(seen, "\n") != strings.Join(tc.seen, "\n") {
				t.Errorf("the policy saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(tc.seen, "\n"))
			}
			if err := verify.Drains(two, in, tc.outs, sim.Faults{}, false, res); err != nil {
				t.Errorf("verification: %v", err)
			}
		})
	}
}

// TestDrainsRefused checks that the engine refuses, and fails the run on,
// a start on a node the policy drained and drains and resumes that are
// not valid, naming the decision and the node.
func TestDrainsRefused(t *testing.T) {
	two := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4}}, nil, sdk.FirstFit)
	pool := sdk.SingleCluster("pool", 8)
	four := sdk.Tasks{Count: 4, Cores: 1}
	on0 := sdk.Alloc{Nodes: []int32{0}, Tasks: []int32{4}}
	platformDrain := []sdk.Outage{{Nodes: []int32{1}, Start: 0, End: 50, Kind: sdk.Drain}}
	for _, tc := range []struct {
		name string
		p    *sdk.Platform
		outs []sdk.Outage
		ds   func(s *sdk.State) []sdk.Decision
		want string
	}{
		{"start on a drained node", two, nil, func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.DrainNodes(0, []int32{0}), sdk.StartAlloc(s.Queue[0], 0, on0)}
		}, "t=0: policy scripted: decision 2 of 2: start job id 1 on cluster \"m\": node 0 is drained by the policy (since 0)"},
		// Job 2 wants one task on each of 2 nodes: 4 cores are free,
		// on one node.
		{"engine placing on drained nodes", two, nil, func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.DrainNodes(0, []int32{0}), sdk.Start(s.Queue[1])}
		}, "do not fit on the free nodes by first-fit (1 nodes drained by the policy)"},
		{"drained twice", two, nil, func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.DrainNodes(0, []int32{0}), sdk.DrainNodes(0, []int32{0, 1})}
		}, "decision 2 of 2: drain node 0 of cluster \"m\": the policy drained it already, at 0"},
		{"resume not drained", two, nil, func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.ResumeNodes(0, []int32{1})}
		}, "decision 1 of 1: resume node 1 of cluster \"m\": the policy has not drained it"},
		{"resume a platform drain", two, platformDrain, func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.ResumeNodes(0, []int32{1})}
		}, "resume node 1 of cluster \"m\": the policy has not drained it"},
		{"unknown node", two, nil, func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.DrainNodes(0, []int32{2})}
		}, "drain node 2 of cluster \"m\", which has 2"},
		{"nodes out of order", two, nil, func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.DrainNodes(0, []int32{1, 0})}
		}, "drain on cluster \"m\": nodes not in increasing order (0 after 1)"},
		{"no node", two, nil, func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.DrainNodes(0, nil)}
		}, "drain on cluster \"m\": no node"},
		{"unknown cluster", two, nil, func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.ResumeNodes(1, []int32{0})}
		}, "resume on cluster 1: the platform has 1 clusters"},
		{"pool", pool, nil, func(s *sdk.State) []sdk.Decision {
			return []sdk.Decision{sdk.DrainNodes(0, []int32{0})}
		}, "drain on cluster \"pool\": a pool of resources has no nodes to drain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := nodeInputs(two, nodeJob{1, 0, 10, four}, nodeJob{2, 0, 10, sdk.Tasks{Count: 2, Cores: 1, Nodes: 2}})
			if tc.p == pool {
				in = []sim.Input{{Job: sdk.Job{ID: 1, Walltime: 10, Request: sdk.Vector{1}}, Runtime: 10}}
			}
			p := &scripted{fn: func(s *sdk.State, _ int) ([]sdk.Decision, error) { return tc.ds(s), nil }}
			_, err := sim.Run(context.Background(), plugin(p), sim.Config{Platform: tc.p, Jobs: in, Outages: tc.outs})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// drainer is a policy that drains and resumes nodes at random (from the
// run's seed) and starts jobs in order on the nodes left, as fcfsNodes
// does; it leaves one node undrained so that every job can run.
type drainer struct {
	rng     *rand.Rand
	drained []bool
}

func (p *drainer) Init(env sdk.Env) error {
	p.rng = env.Rand
	p.drained = make([]bool, env.Platform.Clusters[0].NodeCount())
	return nil
}

func (p *drainer) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	var out []sdk.Decision
	n := new(sdk.Nodes)
	n.CopyFrom(s.Nodes[0])
	for k := 1; k < len(p.drained); k++ {
		if p.rng.IntN(4) != 0 {
			continue
		}
		kk := []int32{int32(k)}
		if p.drained[k] {
			out = append(out, sdk.ResumeNodes(0, kk))
		} else {
			out = append(out, sdk.DrainNodes(0, kk))
			n.SetFree(int32(k), sdk.Amount{})
		}
		p.drained[k] = !p.drained[k]
	}
	var a sdk.Alloc
	for _, j := range s.Queue {
		if !n.Place(j.Tasks, n.Layout.Rule(), &a) {
			break
		}
		n.Take(j.Tasks, a)
		out = append(out, sdk.Start(j))
	}
	if len(s.Queue) > 0 && len(s.Running) == 0 && len(out) == 0 {
		out = append(out, sdk.WakeAt(s.Now+1))
	}
	return out, nil
}

// TestDrainsRandom runs random workloads with a policy that drains and
// resumes nodes at random, with and without outages of the platform, and
// checks each schedule with the host's verification, and that a rerun
// gives the same records and drains. It would fail if the engine let a job
// start on a node the policy drained: the verification sweeps every start
// against the drains, apart from the engine.
func TestDrainsRandom(t *testing.T) {
	drains, attempts := 0, 0
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 11))
		nodes := 2 + rng.IntN(5)
		p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: nodes, Cores: 4}}, nil, sdk.Placements()[rng.IntN(3)])
		var js []nodeJob
		for id := range int64(10 + rng.IntN(30)) {
			js = append(js, nodeJob{id + 1, rng.Int64N(300), 1 + rng.Int64N(100), sdk.Tasks{Count: int32(1 + rng.IntN(4)), Cores: 1}})
		}
		// Odd seeds add a platform drain and failures whose jobs are
		// requeued, so that runs outages ended are checked too.
		var outs []sdk.Outage
		var faults sim.Faults
		if seed%2 == 1 {
			s := rng.Int64N(200)
			outs = []sdk.Outage{{Nodes: []int32{int32(rng.IntN(nodes))}, Start: s, End: s + 1 + rng.Int64N(100), Kind: sdk.Drain}}
			for k := range int32(nodes) {
				s := 1 + rng.Int64N(300)
				outs = append(outs, sdk.Outage{Nodes: []int32{k}, Start: s, End: s + 1 + rng.Int64N(50), Kind: sdk.Failure})
			}
			sdk.SortOutages(outs)
			faults.OnFailure = sim.FailRequeue
		}
		in := nodeInputs(p, js...)
		pl := sdk.Plugin{Info: sdk.Info{Name: "drainer"}, New: func() sdk.Policy { return &drainer{} }}
		cfg := sim.Config{Platform: p, Jobs: in, Outages: outs, Faults: faults, Seed: seed}
		res, err := sim.Run(context.Background(), pl, cfg)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := verify.Drains(p, in, outs, faults, false, res); err != nil {
			t.Errorf("seed %d: verification: %v", seed, err)
		}
		attempts += len(res.Attempts)
		again, err := sim.Run(context.Background(), pl, cfg)
		if err != nil || !reflect.DeepEqual(again.Records, res.Records) || !reflect.DeepEqual(again.Drains, res.Drains) {
			t.Errorf("seed %d: a rerun differs (%v)", seed, err)
		}
		drains += len(res.Drains)
	}
	if drains < 100 || attempts < 20 {
		t.Errorf("%d drains and %d runs ended by failures in all: the test says too little", drains, attempts)
	}
	t.Logf("%d drains, %d runs ended by failures", drains, attempts)
}
