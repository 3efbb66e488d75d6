package policytest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// Random describes a random workload: busy enough to build a backlog, with
// the shapes real traces have (bursts of submissions, runs of jobs with the
// same request and walltime as array jobs give, runtimes below the walltime,
// jobs killed at it). Zero fields take the defaults their comments give.
type Random struct {
	// Jobs is the number of jobs (200).
	Jobs int
	// Procs is the size of a single-cluster platform of processors only
	// (64); ignored when Platform is set.
	Procs int64
	// Platform, when set, is the platform: every job fits one of its
	// clusters, and requests of a divided resource come in pieces that fit
	// its units (sdk.Units). On a platform of nodes, each job has tasks
	// (sdk.Tasks) that fit its partition when every node is free: shared
	// or exclusive, with a node count or not, with memory, GPUs and
	// features where the nodes have them, and, half the time, pieces of a
	// resource divided into units beside the nodes.
	Platform *sdk.Platform
	// Nodes, when Platform is nil, draws a platform of nodes from the
	// seed instead of a pool of processors (RandomNodes).
	Nodes bool
	// MaxWalltime bounds the requested walltimes, in seconds (200).
	MaxWalltime int64
	// Burst is the mean gap between bursts of submissions, in seconds; a
	// burst holds 4 jobs on average (40).
	Burst int64
	// Killed is the share of jobs whose runtime exceeds their walltime
	// (0.1); of the others, a third run exactly their walltime.
	Killed float64
	// Users is the number of distinct users, groups, apps and queues drawn
	// from (4).
	Users int
	// Params and Exact are those of the scenario.
	Params map[string]string
	Exact  bool
}

func (r Random) withDefaults() Random {
	if r.Jobs == 0 {
		r.Jobs = 200
	}
	if r.Procs == 0 {
		r.Procs = 64
	}
	if r.MaxWalltime == 0 {
		r.MaxWalltime = 200
	}
	if r.Burst == 0 {
		r.Burst = 40
	}
	if r.Killed == 0 {
		r.Killed = 0.1
	}
	if r.Users == 0 {
		r.Users = 4
	}
	return r
}

// Scenario draws the workload from seed; the same seed gives the same
// scenario, whose Seed it also is. It panics if the platform is invalid.
func (r Random) Scenario(seed uint64) Scenario {
	r = r.withDefaults()
	rng := rand.New(rand.NewPCG(seed, 0x9011c7))
	plat := r.Platform
	switch {
	case plat == nil && r.Nodes:
		plat = RandomNodes(seed)
		r.Platform = plat
	case plat == nil:
		plat = sdk.SingleCluster("random", r.Procs)
	}
	if err := plat.Validate(); err != nil {
		panic("policytest.Random: " + err.Error())
	}
	sc := Scenario{
		Name:   fmt.Sprintf("random seed %d", seed),
		Params: r.Params, Exact: r.Exact, Seed: seed,
		Procs: r.Procs, Platform: r.Platform,
	}
	// Requests are the jobs' own but on nodes, where the tasks give them;
	// a divided resource beside nodes (a burst buffer) is drawn apart.
	multi := plat.Dims() > 1 && !plat.HasNodes() || plat.HasNodes() && plat.UnitStride() > 0
	var layout *sdk.Layout
	if plat.HasNodes() {
		layout = sdk.NewLayout(plat, 0)
	}
	var now int64
	var shape Job
	var req sdk.Vector
	for i := range r.Jobs {
		if rng.IntN(4) == 0 {
			now += rng.Int64N(2*r.Burst + 1)
		}
		if i == 0 || rng.IntN(3) == 0 {
			c := &plat.Clusters[rng.IntN(len(plat.Clusters))]
			u := int32(rng.IntN(r.Users))
			shape = Job{Walltime: 1 + rng.Int64N(r.MaxWalltime),
				User: u, Group: u % 2, App: int32(rng.IntN(r.Users)), Queue: int32(rng.IntN(2)),
				Priority: float64(rng.IntN(10))}
			if layout != nil {
				t := randomTasks(rng, layout, shape.Walltime)
				shape.Tasks = &t
				if multi {
					req = make(sdk.Vector, plat.Dims())
					layout.Request(&t, req)
					randomPieces(rng, c, req)
				}
			} else {
				req = randomRequest(rng, plat, c)
				shape.Procs = req[0]
			}
		}
		j := shape
		j.ID, j.Submit = int64(i+1), now
		switch x := rng.Float64(); {
		case x < r.Killed:
			j.Runtime = j.Walltime + 1 + rng.Int64N(j.Walltime)
		case x < r.Killed+(1-r.Killed)/3:
			j.Runtime = j.Walltime
		default:
			j.Runtime = 1 + rng.Int64N(j.Walltime)
		}
		sc.Jobs = append(sc.Jobs, j)
		if multi {
			sc.Requests = append(sc.Requests, req.Clone())
		}
	}
	return sc
}

// randomTasks draws tasks that fit the nodes of l when all are free and
// whose partition allows walltime w: a partition, shared or exclusive,
// small tasks more often than large, memory, GPUs and features half the
// time where the nodes have them, a node count half the time.
func randomTasks(rng *rand.Rand, l *sdk.Layout, w int64) sdk.Tasks {
	for {
		t := sdk.Tasks{Partition: int32(rng.IntN(l.Partitions())), Cores: 1}
		part := l.PartitionNodes(t.Partition)
		node := l.Cap(int(part[rng.IntN(len(part))]))
		if rng.IntN(2) == 0 {
			t.Cores = int32(1 + rng.Int64N(node.Cores))
		}
		if node.Memory > 0 && rng.IntN(2) == 0 {
			t.Memory = 1 + rng.Int64N(node.Memory/int64(t.Cores))
		}
		if node.GPUs > 0 && rng.IntN(2) == 0 {
			t.GPUs = int32(1 + rng.Int64N(node.GPUs))
		}
		if f := l.Features(); len(f) > 0 && rng.IntN(3) == 0 {
			t.Features = 1 << rng.IntN(len(f))
		}
		perNode := node.Cores / int64(t.Cores)
		nodes := 1 + rng.Int64N(int64(max(1, len(part)/2)))
		if rng.IntN(2) == 0 {
			nodes = 1
		}
		t.Count = int32(max(1, rng.Int64N(perNode*nodes+1)))
		switch rng.IntN(3) {
		case 0:
			t.Exclusive = true
			t.Nodes = int32(min(int64(t.Count), nodes))
		case 1:
			t.Nodes = int32(min(int64(t.Count), nodes))
		}
		if l.Check(&t) == nil && l.CheckWalltime(&t, w) == nil {
			return t
		}
	}
}

// WithBurstBuffer adds to the one cluster of platform p a burst buffer, the
// resource "bb", divided into units of the given capacities, one piece a
// processor, and returns p: a platform for policies that place pieces.
func WithBurstBuffer(p *sdk.Platform, units ...int64) *sdk.Platform {
	var sum int64
	for _, u := range units {
		sum += u
	}
	p.Resources = append(p.Resources, "bb")
	c := &p.Clusters[0]
	c.Capacity = append(c.Capacity, sum)
	c.Units = []sdk.Units{{Resource: len(p.Resources) - 1, Capacity: units}}
	return p
}

// RandomNodes draws a platform of nodes from seed: one to three groups of
// 1 to 12 nodes of 1 to 16 cores, with memory, GPUs and a feature on some,
// partitions over them (with limits) half the time, and a random
// placement rule.
func RandomNodes(seed uint64) *sdk.Platform {
	rng := rand.New(rand.NewPCG(seed, 0x0de5))
	var groups []sdk.NodeGroup
	memory := rng.IntN(2) == 0
	for g := range 1 + rng.IntN(3) {
		ng := sdk.NodeGroup{Name: fmt.Sprintf("g%d", g), Count: 1 + rng.IntN(12), Cores: 1 + rng.Int64N(16)}
		if memory {
			ng.Memory = (1 + rng.Int64N(64)) << 30
		}
		if rng.IntN(3) == 0 {
			ng.GPUs = 1 + rng.Int64N(4)
		}
		if rng.IntN(3) == 0 {
			ng.Features = []string{"f" + fmt.Sprint(rng.IntN(2))}
		}
		groups = append(groups, ng)
	}
	var parts []sdk.Partition
	if rng.IntN(2) == 0 {
		parts = append(parts, sdk.Partition{Name: "all", Default: true}, sdk.Partition{Name: "one", Groups: []string{groups[0].Name},
			MaxWalltime: 50 + rng.Int64N(200), MaxNodes: 1 + rng.IntN(groups[0].Count)})
		for _, g := range groups {
			parts[0].Groups = append(parts[0].Groups, g.Name)
		}
	}
	rules := sdk.Placements()
	return sdk.NodesPlatform(fmt.Sprintf("random-nodes-%d", seed), groups, parts, rules[rng.IntN(len(rules))])
}

// randomRequest draws a request that fits cluster c: processors up to its
// capacity (small ones more often), other resources nothing half the time,
// else up to the capacity, in pieces that fit the units of a divided one.
func randomRequest(rng *rand.Rand, plat *sdk.Platform, c *sdk.Cluster) sdk.Vector {
	req := make(sdk.Vector, plat.Dims())
	divided := make(map[int]sdk.Units, len(c.Units))
	for _, u := range c.Units {
		divided[u.Resource] = u
	}
	for k, capacity := range c.Capacity {
		if _, ok := divided[k]; ok || capacity == 0 || (k > 0 && rng.IntN(2) == 0) {
			continue
		}
		req[k] = 1 + rng.Int64N(capacity)
		if k == 0 && rng.IntN(2) == 0 {
			req[k] = 1 + rng.Int64N(max(1, capacity/8))
		}
	}
	randomPieces(rng, c, req)
	return req
}

// randomPieces draws, half the time, the request of each divided resource
// of c in req: pieces counted by another resource of req, each of a size
// that fits some unit.
func randomPieces(rng *rand.Rand, c *sdk.Cluster, req sdk.Vector) {
	// Divided resources last: their pieces are counted by another one.
	for _, u := range c.Units {
		pieces := req[u.PiecesBy]
		if pieces == 0 || rng.IntN(2) == 0 {
			continue
		}
		size := 1 + rng.Int64N(largest(u.Capacity))
		for size > 0 && !sdk.PiecesFit(u.Capacity, pieces, size) {
			size /= 2
		}
		req[u.Resource] = pieces * size
	}
}

func largest(xs []int64) int64 {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// OnWholeNodes returns jobs of processors only twice: on a platform of
// count nodes of cores cores each, every job held whole (its processors
// as tasks of one core on as few nodes as hold them), and on a pool of
// the nodes' cores with each request rounded up to whole nodes' cores.
// On nodes all alike held whole a policy that counts totals right starts
// every job at the same time on both (a test of its reading of nodes).
func OnWholeNodes(jobs []sim.Input, count int, cores int64) (plat *sdk.Platform, onNodes, pool []sim.Input) {
	plat = sdk.NodesPlatform("whole-nodes", []sdk.NodeGroup{{Name: "n", Count: count, Cores: cores}}, nil, sdk.FirstFit)
	l := sdk.NewLayout(plat, 0)
	onNodes, pool = slices.Clone(jobs), slices.Clone(jobs)
	for i := range jobs {
		p := jobs[i].Job.Request[0]
		n := (p + cores - 1) / cores
		t := &sdk.Tasks{Count: int32(p), Cores: 1, Nodes: int32(n), Exclusive: true}
		onNodes[i].Job.Tasks, onNodes[i].Job.Request = t, make(sdk.Vector, plat.Dims())
		l.Request(t, onNodes[i].Job.Request)
		pool[i].Job.Request = sdk.Vector{n * cores}
	}
	return plat, onNodes, pool
}
