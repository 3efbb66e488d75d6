package policytest_test

import (
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
)

// quietHours is an example of a policy that drains nodes itself: nodes 0
// and 1 are drained from the first call at or after 100 to the first at or
// after 200 (it asks to be woken then), as an operator drains nodes for
// work of their own; it starts jobs in queue order while they fit on the
// nodes left (strict FCFS), placed by the engine.
type quietHours struct {
	drained bool
	out     []sdk.Decision
}

var quiet = []int32{0, 1}

func (p *quietHours) Init(sdk.Env) error { return nil }

func (p *quietHours) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	nodes := new(sdk.Nodes)
	nodes.CopyFrom(s.Nodes[0])
	switch {
	case !p.drained && s.Now >= 100 && s.Now < 200:
		p.out = append(p.out, sdk.DrainNodes(0, quiet), sdk.WakeAt(200))
		for _, k := range quiet {
			nodes.SetFree(k, sdk.Amount{})
		}
		p.drained = true
	case p.drained && s.Now >= 200:
		// A resumed node shows nothing free until the next call; what it
		// has is its capacity less what the jobs still on it hold.
		p.out = append(p.out, sdk.ResumeNodes(0, quiet))
		for _, k := range quiet {
			nodes.SetFree(k, nodes.Layout.Cap(int(k)))
		}
		for _, r := range s.Running {
			for x, k := range r.Alloc.Nodes {
				if k == quiet[0] || k == quiet[1] {
					f := nodes.Free[k]
					h := nodes.Layout.Held(r.Job.Tasks, k, r.Alloc.Tasks[x])
					nodes.SetFree(k, sdk.Amount{Cores: f.Cores - h.Cores, Memory: f.Memory - h.Memory, GPUs: f.GPUs - h.GPUs})
				}
			}
		}
		p.drained = false
	case p.drained:
		p.out = append(p.out, sdk.WakeAt(200))
	}
	var a sdk.Alloc
	for _, j := range s.Queue {
		if !nodes.Place(j.Tasks, nodes.Layout.Rule(), &a) {
			break
		}
		nodes.Take(j.Tasks, a)
		p.out = append(p.out, sdk.Start(j))
	}
	return p.out, nil
}

func quietHoursPlugin() sdk.Plugin {
	return sdk.Plugin{Info: sdk.Info{Name: "quiet-hours", Version: "0.1.0"}, New: func() sdk.Policy { return &quietHours{} }}
}

// TestQuietHours: on 4 one-core nodes, job 1 holds node 0 from 0 to 150
// and job 2 nodes 1 and 2 from 0 to 50. Job 3 (3 tasks) arrives at 110,
// when nodes 0 and 1 are drained: only nodes 2 and 3 can take it, and it
// waits, with job 4 behind it. Job 1 runs to its end on its drained node.
// At 200 the nodes are resumed: job 3 takes nodes 0 to 2 and job 4 node 3.
// Without the drain, job 3 would start at 110 on nodes 1 to 3.
func TestQuietHours(t *testing.T) {
	one := func(n int32) *sdk.Tasks { return &sdk.Tasks{Count: n, Cores: 1} }
	policytest.Run(t, quietHoursPlugin(), policytest.Scenario{
		Name:     "quiet hours",
		Platform: sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 4, Cores: 1}}, nil, sdk.FirstFit),
		Jobs: []policytest.Job{
			{ID: 1, Submit: 0, Runtime: 150, Walltime: 150, Tasks: one(1)},
			{ID: 2, Submit: 0, Runtime: 50, Walltime: 50, Tasks: one(2)},
			{ID: 3, Submit: 110, Runtime: 30, Walltime: 30, Tasks: one(3)},
			{ID: 4, Submit: 120, Runtime: 10, Walltime: 10, Tasks: one(1)},
		},
		Want: []policytest.Start{{ID: 1, At: 0}, {ID: 2, At: 0}, {ID: 3, At: 200}, {ID: 4, At: 200}},
	})
}

// TestQuietHoursRandom runs the example on random workloads on nodes: its
// drains go through the host's verification with every schedule, and a
// policy value kept between runs would show.
func TestQuietHoursRandom(t *testing.T) {
	for seed := range uint64(5) {
		sc := policytest.Random{Nodes: true}.Scenario(seed)
		policytest.Check(t, quietHoursPlugin(), sc, policytest.StartsInSubmitOrder())
	}
	policytest.NoStateBetweenRuns(t, quietHoursPlugin(), policytest.Random{Nodes: true}.Scenario(1), policytest.Random{Nodes: true}.Scenario(2))
}
