package sdk_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

const gb = 1 << 30

// nodesOf returns the nodes of a one-cluster platform of groups and
// partitions, with free amounts set by free (cores, memory) per node when
// given.
func nodesOf(t *testing.T, groups []sdk.NodeGroup, parts []sdk.Partition, free ...sdk.Amount) *sdk.Nodes {
	t.Helper()
	p := sdk.NodesPlatform("m", groups, parts, sdk.FirstFit)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	n := sdk.NewLayout(p, 0).NewNodes()
	if len(free) > 0 {
		if len(free) != len(n.Free) {
			t.Fatalf("%d free amounts for %d nodes", len(free), len(n.Free))
		}
		for k, f := range free {
			n.SetFree(int32(k), f)
		}
	}
	return n
}

func cores(cs ...int64) []sdk.Amount {
	out := make([]sdk.Amount, len(cs))
	for i, c := range cs {
		out[i] = sdk.Amount{Cores: c}
	}
	return out
}

// TestPlaceHandWorked checks each placement rule on cases worked out by
// hand.
func TestPlaceHandWorked(t *testing.T) {
	four := func(n int) []sdk.NodeGroup { return []sdk.NodeGroup{{Name: "n", Count: n, Cores: 4}} }
	mem := []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4, Memory: 8 * gb}}
	feat := []sdk.NodeGroup{{Name: "cpu", Count: 2, Cores: 4}, {Name: "gpu", Count: 2, Cores: 4, Features: []string{"fast", "gpu"}}}
	parts := []sdk.Partition{{Name: "all", Groups: []string{"cpu", "gpu"}, Default: true}, {Name: "cpu", Groups: []string{"cpu"}, MaxNodes: 1}}
	for _, tc := range []struct {
		name   string
		groups []sdk.NodeGroup
		parts  []sdk.Partition
		free   []sdk.Amount
		tasks  sdk.Tasks
		rule   sdk.Placement
		want   string // "" when it does not fit
	}{
		{"first fit fills nodes in order", four(3), nil, cores(2, 4, 4), sdk.Tasks{Count: 5, Cores: 1}, sdk.FirstFit, "0:2 1:3"},
		{"first fit skips full nodes", four(3), nil, cores(0, 1, 4), sdk.Tasks{Count: 2, Cores: 2}, sdk.FirstFit, "2:2"},
		// Free cores 4, 2, 3: best fit takes node 1 (2 free), then node 2.
		{"best fit takes the fullest first", four(3), nil, cores(4, 2, 3), sdk.Tasks{Count: 3, Cores: 1}, sdk.BestFit, "1:2 2:1"},
		{"best fit ties to the lower index", four(3), nil, cores(3, 3, 4), sdk.Tasks{Count: 4, Cores: 1}, sdk.BestFit, "0:3 1:1"},
		// Runs of free nodes: {0} with 4, {2, 3} with 8.
		{"contiguous takes the first run that holds it", four(4), nil, cores(4, 0, 4, 4), sdk.Tasks{Count: 6, Cores: 1}, sdk.Contiguous, "2:4 3:2"},
		{"contiguous: no run holds it", four(4), nil, cores(4, 0, 4, 0), sdk.Tasks{Count: 6, Cores: 1}, sdk.Contiguous, ""},
		{"first fit: the same case fits apart", four(4), nil, cores(4, 0, 4, 0), sdk.Tasks{Count: 6, Cores: 1}, sdk.FirstFit, "0:4 2:2"},
		// Exclusive: node 1 is partly busy, so nodes 0 and 2 hold it whole.
		{"exclusive takes wholly free nodes", four(4), nil, cores(4, 3, 4, 4), sdk.Tasks{Count: 8, Cores: 1, Nodes: 2, Exclusive: true}, sdk.FirstFit, "0:4 2:4"},
		{"exclusive: too few whole nodes", four(3), nil, cores(4, 3, 3), sdk.Tasks{Count: 2, Cores: 1, Nodes: 2, Exclusive: true}, sdk.FirstFit, ""},
		{"exclusive contiguous", four(4), nil, cores(4, 3, 4, 4), sdk.Tasks{Count: 5, Cores: 1, Nodes: 2, Exclusive: true}, sdk.Contiguous, "2:3 3:2"},
		// 7 tasks on 3 nodes: one node takes 3, two take 2. Node 0 has
		// room for 2 only, so node 1 takes the 3.
		{"balanced shares", four(4), nil, cores(2, 4, 2, 2), sdk.Tasks{Count: 7, Cores: 1, Nodes: 3}, sdk.FirstFit, "0:2 1:3 2:2"},
		{"balanced: no node holds the larger share", four(3), nil, cores(2, 2, 2), sdk.Tasks{Count: 7, Cores: 1, Nodes: 3}, sdk.FirstFit, ""},
		// Node 0 has 4 free cores but 1 GB free: no task of 2 GB fits
		// there, though the free cores (8) hold all four.
		{"memory blocks what cores admit", mem, nil, []sdk.Amount{{Cores: 4, Memory: gb}, {Cores: 4, Memory: 8 * gb}},
			sdk.Tasks{Count: 4, Cores: 1, Memory: 2 * gb}, sdk.FirstFit, "1:4"},
		{"memory: not enough anywhere", mem, nil, []sdk.Amount{{Cores: 4, Memory: gb}, {Cores: 4, Memory: 5 * gb}},
			sdk.Tasks{Count: 4, Cores: 1, Memory: 2 * gb}, sdk.FirstFit, ""},
		{"cores per task", four(2), nil, cores(3, 4), sdk.Tasks{Count: 3, Cores: 2}, sdk.FirstFit, "0:1 1:2"},
		// Features are sorted: fast (bit 0), gpu (bit 1).
		{"features: only gpu nodes", feat, parts, nil, sdk.Tasks{Count: 5, Cores: 1, Features: 2}, sdk.FirstFit, "2:4 3:1"},
		{"features: more than the tagged nodes hold", feat, parts, nil, sdk.Tasks{Count: 9, Cores: 1, Features: 3}, sdk.FirstFit, ""},
		{"partition: its nodes only", feat, parts, nil, sdk.Tasks{Count: 4, Cores: 1, Partition: 2}, sdk.FirstFit, "0:4"},
		{"partition: max nodes", feat, parts, nil, sdk.Tasks{Count: 5, Cores: 1, Partition: 2}, sdk.FirstFit, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := nodesOf(t, tc.groups, tc.parts, tc.free...)
			var a sdk.Alloc
			ok := n.Place(&tc.tasks, tc.rule, &a)
			if got := allocString(a); ok != (tc.want != "") || (ok && got != tc.want) {
				t.Fatalf("Place = %v %q, want %q", ok, got, tc.want)
			}
			if fits := n.Place(&tc.tasks, tc.rule, nil); fits != ok {
				t.Errorf("Place without an allocation = %v, with one %v", fits, ok)
			}
			if !ok {
				return
			}
			if err := n.CheckAlloc(&tc.tasks, a); err != nil {
				t.Errorf("CheckAlloc of the placement: %v", err)
			}
		})
	}
}

func allocString(a sdk.Alloc) string {
	s := ""
	for i, k := range a.Nodes {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%d:%d", k, a.Tasks[i])
	}
	return s
}

// TestTakeRelease checks what a job holds: its tasks' worth on shared
// nodes, the whole node when exclusive.
func TestTakeRelease(t *testing.T) {
	n := nodesOf(t, []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 8, Memory: 16 * gb}}, nil)
	shared := sdk.Tasks{Count: 3, Cores: 2, Memory: gb}
	a := sdk.Alloc{Nodes: []int32{0, 1}, Tasks: []int32{2, 1}}
	if got := n.Take(&shared, a); got != (sdk.Amount{Cores: 6, Memory: 3 * gb}) {
		t.Fatalf("shared job took %+v", got)
	}
	if n.Free[0] != (sdk.Amount{Cores: 4, Memory: 14 * gb}) || n.Free[1] != (sdk.Amount{Cores: 6, Memory: 15 * gb}) {
		t.Fatalf("free after a shared start: %+v", n.Free)
	}
	excl := sdk.Tasks{Count: 1, Cores: 1, Nodes: 1, Exclusive: true}
	if err := n.CheckAlloc(&excl, sdk.Alloc{Nodes: []int32{1}, Tasks: []int32{1}}); err == nil {
		t.Fatal("an exclusive job was allowed on a partly busy node")
	}
	n.Release(&shared, a)
	if got := n.Take(&excl, sdk.Alloc{Nodes: []int32{1}, Tasks: []int32{1}}); got != (sdk.Amount{Cores: 8, Memory: 16 * gb}) {
		t.Fatalf("exclusive job took %+v, want the whole node", got)
	}
	if err := n.CheckAlloc(&shared, sdk.Alloc{Nodes: []int32{1}, Tasks: []int32{1}}); err == nil {
		t.Fatal("a shared job was allowed on a node held exclusively")
	}
}

// TestCheckAllocRefuses lists allocations a start must not be given.
func TestCheckAllocRefuses(t *testing.T) {
	n := nodesOf(t, []sdk.NodeGroup{{Name: "a", Count: 2, Cores: 4}, {Name: "b", Count: 2, Cores: 4}},
		[]sdk.Partition{{Name: "a", Groups: []string{"a"}}, {Name: "b", Groups: []string{"b"}, MaxNodes: 1}}, cores(4, 1, 4, 4)...)
	for _, tc := range []struct {
		name  string
		tasks sdk.Tasks
		a     sdk.Alloc
	}{
		{"empty", sdk.Tasks{Count: 1, Cores: 1}, sdk.Alloc{}},
		{"lengths differ", sdk.Tasks{Count: 1, Cores: 1}, sdk.Alloc{Nodes: []int32{0}}},
		{"node out of range", sdk.Tasks{Count: 1, Cores: 1}, sdk.Alloc{Nodes: []int32{7}, Tasks: []int32{1}}},
		{"not increasing", sdk.Tasks{Count: 2, Cores: 1}, sdk.Alloc{Nodes: []int32{1, 0}, Tasks: []int32{1, 1}}},
		{"zero tasks on a node", sdk.Tasks{Count: 1, Cores: 1}, sdk.Alloc{Nodes: []int32{0, 1}, Tasks: []int32{1, 0}}},
		{"tasks do not add up", sdk.Tasks{Count: 3, Cores: 1}, sdk.Alloc{Nodes: []int32{0}, Tasks: []int32{2}}},
		{"no room", sdk.Tasks{Count: 2, Cores: 1}, sdk.Alloc{Nodes: []int32{1}, Tasks: []int32{2}}},
		{"outside its partition", sdk.Tasks{Count: 1, Cores: 1, Partition: 2}, sdk.Alloc{Nodes: []int32{0}, Tasks: []int32{1}}},
		{"over the partition's max nodes", sdk.Tasks{Count: 2, Cores: 1, Partition: 2}, sdk.Alloc{Nodes: []int32{2, 3}, Tasks: []int32{1, 1}}},
		{"not its node count", sdk.Tasks{Count: 2, Cores: 1, Nodes: 1}, sdk.Alloc{Nodes: []int32{0, 2}, Tasks: []int32{1, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := n.CheckAlloc(&tc.tasks, tc.a); err == nil {
				t.Errorf("CheckAlloc accepted %+v for %+v", tc.a, tc.tasks)
			}
		})
	}
}

// TestPlaceAgainstBruteForce checks on random small machines that a rule
// places a job exactly when some allocation of the kind the rule makes
// exists (found by trying every one), and that what it places is a valid
// allocation.
func TestPlaceAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	placed := map[sdk.Placement]int{}
	const trials = 3000
	defer func() {
		// Both outcomes must be common, or the comparison proves little.
		for _, rule := range sdk.Placements() {
			if placed[rule] < trials/10 || placed[rule] > trials*9/10 {
				t.Errorf("%s placed %d jobs of %d", rule, placed[rule], trials)
			}
		}
	}()
	for trial := range trials {
		nodes := 1 + rng.IntN(5)
		groups := []sdk.NodeGroup{{Name: "a", Count: nodes, Cores: int64(1 + rng.IntN(4)), Memory: 4 * gb}}
		if rng.IntN(2) == 0 {
			groups = append(groups, sdk.NodeGroup{Name: "b", Count: 1 + rng.IntN(2), Cores: 6, Memory: 8 * gb})
		}
		var parts []sdk.Partition
		if rng.IntN(2) == 0 {
			all := []string{"a"}
			if len(groups) > 1 {
				all = append(all, "b")
			}
			parts = []sdk.Partition{{Name: "all", Groups: all, Default: true}, {Name: "capped", Groups: all, MaxNodes: 1 + rng.IntN(3)}}
		}
		n := nodesOf(t, groups, parts)
		for k := range n.Free {
			c := n.Layout.Cap(k)
			n.SetFree(int32(k), sdk.Amount{Cores: rng.Int64N(c.Cores + 1), Memory: rng.Int64N(c.Memory/gb+1) * gb})
			if rng.IntN(3) == 0 {
				n.SetFree(int32(k), c)
			}
		}
		tasks := sdk.Tasks{Count: int32(1 + rng.IntN(8)), Cores: int32(1 + rng.IntN(2))}
		if rng.IntN(2) == 0 {
			tasks.Memory = int64(1+rng.IntN(2)) * gb
		}
		if rng.IntN(2) == 0 {
			tasks.Nodes = int32(1 + rng.IntN(int(tasks.Count)))
			tasks.Exclusive = rng.IntN(2) == 0
		}
		if parts != nil {
			tasks.Partition = int32(rng.IntN(3))
		}
		for _, rule := range sdk.Placements() {
			var a sdk.Alloc
			ok := n.Place(&tasks, rule, &a)
			want := bruteForce(n, &tasks, rule == sdk.Contiguous)
			if ok != want {
				t.Fatalf("trial %d, %s: Place = %v, brute force %v; tasks %+v, free %+v, caps %+v",
					trial, rule, ok, want, tasks, n.Free, groups)
			}
			if ok {
				placed[rule]++
				if err := n.CheckAlloc(&tasks, a); err != nil {
					t.Fatalf("trial %d, %s: placement %s: %v", trial, rule, allocString(a), err)
				}
				if tasks.Nodes > 0 && !balanced(a, tasks) {
					t.Fatalf("trial %d, %s: placement %s is not balanced", trial, rule, allocString(a))
				}
			}
		}
	}
}

// bruteForce reports whether some allocation of tasks exists on n: any
// set of nodes (consecutive ones when contiguous) and any shares, balanced
// ones when the job names its node count.
func bruteForce(n *sdk.Nodes, t *sdk.Tasks, contiguous bool) bool {
	k := len(n.Free)
	for set := 1; set < 1<<k; set++ {
		var nodes []int32
		for i := range k {
			if set&(1<<i) != 0 {
				nodes = append(nodes, int32(i))
			}
		}
		if contiguous && int(nodes[len(nodes)-1]-nodes[0]) != len(nodes)-1 {
			continue
		}
		if t.Nodes > 0 && len(nodes) != int(t.Nodes) {
			continue
		}
		if shares(n, t, nodes, 0, int64(t.Count), make([]int32, len(nodes))) {
			return true
		}
	}
	return false
}

// shares tries every share of rem tasks on nodes[i:], at least one each.
func shares(n *sdk.Nodes, t *sdk.Tasks, nodes []int32, i int, rem int64, got []int32) bool {
	if i == len(nodes) {
		if rem != 0 {
			return false
		}
		a := sdk.Alloc{Nodes: nodes, Tasks: got}
		return (t.Nodes == 0 || balanced(a, *t)) && n.CheckAlloc(t, a) == nil
	}
	for x := int64(1); x <= rem; x++ {
		got[i] = int32(x)
		if shares(n, t, nodes, i+1, rem-x, got) {
			return true
		}
	}
	return false
}

func balanced(a sdk.Alloc, t sdk.Tasks) bool {
	lo, hi := slices.Min(a.Tasks), slices.Max(a.Tasks)
	return hi-lo <= 1 && lo == t.Count/t.Nodes
}

// TestLayoutDemandAndCheck checks the totals a job holds and the requests
// a cluster refuses.
func TestLayoutDemandAndCheck(t *testing.T) {
	groups := []sdk.NodeGroup{{Name: "thin", Count: 10, Cores: 16, Memory: 64 * gb}, {Name: "fat", Count: 2, Cores: 32, Memory: 512 * gb, Features: []string{"bigmem"}}}
	parts := []sdk.Partition{{Name: "all", Groups: []string{"thin", "fat"}, Default: true, MaxWalltime: 3600},
		{Name: "fat", Groups: []string{"fat"}, MaxNodes: 2}}
	p := sdk.NodesPlatform("curie", groups, parts, sdk.BestFit)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	l := sdk.NewLayout(p, 0)
	if l.Len() != 12 || l.Group(10) != 1 || l.Total() != (sdk.Amount{Cores: 224, Memory: 1664 * gb}) {
		t.Fatalf("layout: %d nodes, group of node 10 %d, total %+v", l.Len(), l.Group(10), l.Total())
	}
	for _, tc := range []struct {
		tasks sdk.Tasks
		want  sdk.Amount
	}{
		{sdk.Tasks{Count: 20, Cores: 1, Memory: gb}, sdk.Amount{Cores: 20, Memory: 20 * gb}},
		// Exclusive on thin and fat: counted at the thin node's size.
		{sdk.Tasks{Count: 20, Cores: 1, Nodes: 2, Exclusive: true}, sdk.Amount{Cores: 32, Memory: 128 * gb}},
		{sdk.Tasks{Count: 20, Cores: 1, Nodes: 1, Exclusive: true, Partition: 2}, sdk.Amount{Cores: 32, Memory: 512 * gb}},
		{sdk.Tasks{Count: 2, Cores: 1, Nodes: 1, Exclusive: true, Features: 1}, sdk.Amount{Cores: 32, Memory: 512 * gb}},
	} {
		if got := l.Demand(&tc.tasks); got != tc.want {
			t.Errorf("Demand(%+v) = %+v, want %+v", tc.tasks, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name     string
		tasks    sdk.Tasks
		walltime int64
	}{
		{"no task", sdk.Tasks{Cores: 1}, 1},
		{"no core", sdk.Tasks{Count: 1}, 1},
		{"more nodes than tasks", sdk.Tasks{Count: 1, Cores: 1, Nodes: 2}, 1},
		{"exclusive without a node count", sdk.Tasks{Count: 1, Cores: 1, Exclusive: true}, 1},
		{"unknown partition", sdk.Tasks{Count: 1, Cores: 1, Partition: 3}, 1},
		{"unknown feature", sdk.Tasks{Count: 1, Cores: 1, Features: 2}, 1},
		{"over the partition's walltime", sdk.Tasks{Count: 1, Cores: 1}, 3601},
		{"over the partition's max nodes", sdk.Tasks{Count: 3, Cores: 1, Nodes: 3, Partition: 2}, 1},
		{"a task larger than any node", sdk.Tasks{Count: 1, Cores: 33}, 1},
		{"more memory than any node", sdk.Tasks{Count: 1, Cores: 1, Memory: 600 * gb}, 1},
		{"more tasks than the partition holds", sdk.Tasks{Count: 65, Cores: 1, Partition: 2}, 1},
		{"memory that fits a node, not the tasks", sdk.Tasks{Count: 3, Cores: 1, Memory: 500 * gb}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := l.Check(&tc.tasks)
			if err == nil {
				err = l.CheckWalltime(&tc.tasks, tc.walltime)
			}
			if !errors.Is(err, sdk.ErrTasks) {
				t.Errorf("Check(%+v) = %v, want an ErrTasks", tc.tasks, err)
			}
		})
	}
	if err := l.Check(&sdk.Tasks{Count: 64, Cores: 1, Partition: 2}); err != nil {
		t.Errorf("a job that fills the fat partition: %v", err)
	}
}

// TestValidateNodes lists the node platforms Validate refuses.
func TestValidateNodes(t *testing.T) {
	ok := func() *sdk.Platform {
		return sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "a", Count: 2, Cores: 4, Memory: gb}}, []sdk.Partition{{Name: "p", Groups: []string{"a"}}}, sdk.FirstFit)
	}
	if err := ok().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		mod  func(p *sdk.Platform)
	}{
		{"zero cores", func(p *sdk.Platform) { p.Clusters[0].Nodes[0].Cores = 0 }},
		{"zero nodes", func(p *sdk.Platform) { p.Clusters[0].Nodes[0].Count = 0 }},
		{"capacity not the nodes' sum", func(p *sdk.Platform) { p.Clusters[0].Capacity[0] = 9 }},
		{"memory without the resource", func(p *sdk.Platform) {
			p.Resources = p.Resources[:1]
			p.Clusters[0].Capacity = p.Clusters[0].Capacity[:1]
		}},
		{"unknown placement", func(p *sdk.Platform) { p.Clusters[0].Placement = "worst-fit" }},
		{"partition of an unknown group", func(p *sdk.Platform) { p.Clusters[0].Partitions[0].Groups = []string{"b"} }},
		{"two default partitions", func(p *sdk.Platform) {
			p.Clusters[0].Partitions = []sdk.Partition{{Name: "x", Groups: []string{"a"}, Default: true}, {Name: "y", Groups: []string{"a"}, Default: true}}
		}},
		{"repeated group", func(p *sdk.Platform) { p.Clusters[0].Nodes = append(p.Clusters[0].Nodes, p.Clusters[0].Nodes[0]) }},
		{"a second cluster", func(p *sdk.Platform) {
			p.Clusters = append(p.Clusters, sdk.Cluster{Name: "x", Capacity: sdk.Vector{1, 0}})
		}},
		{"the nodes' memory divided into units", func(p *sdk.Platform) {
			p.Clusters[0].Units = []sdk.Units{{Resource: 1, Capacity: []int64{gb, gb}}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ok()
			tc.mod(p)
			if err := p.Validate(); err == nil {
				t.Error("Validate accepted it")
			}
		})
	}
	// A burst buffer beside the nodes, divided into units, is valid.
	p := ok()
	p.Resources = append(p.Resources, "bb")
	p.Clusters[0].Capacity = append(p.Clusters[0].Capacity, 100)
	p.Clusters[0].Units = []sdk.Units{{Resource: 2, Capacity: []int64{60, 40}}}
	if err := p.Validate(); err != nil {
		t.Errorf("a burst buffer beside nodes: %v", err)
	}
}

// TestWatchAgreesWithPlace changes random nodes one at a time and checks
// that a Watch, told of each change, says a job fits exactly when Place
// does, under every rule, with and without a node limit; so does a View of
// the nodes as they were at the start, told the same changes.
func TestWatchAgreesWithPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		groups := []sdk.NodeGroup{{Name: "a", Count: 1 + rng.IntN(20), Cores: int64(1 + rng.IntN(8)), Memory: 8 * gb}}
		var parts []sdk.Partition
		if rng.IntN(2) == 0 {
			parts = []sdk.Partition{{Name: "all", Groups: []string{"a"}, Default: true}, {Name: "capped", Groups: []string{"a"}, MaxNodes: 1 + rng.IntN(4)}}
		}
		n := nodesOf(t, groups, parts)
		tasks := sdk.Tasks{Count: int32(1 + rng.IntN(12)), Cores: 1, Memory: int64(rng.IntN(3)) * gb}
		if rng.IntN(2) == 0 {
			tasks.Nodes = int32(1 + rng.IntN(int(tasks.Count)))
			tasks.Exclusive = rng.IntN(2) == 0
		}
		if parts != nil {
			tasks.Partition = int32(rng.IntN(3))
		}
		rule := sdk.Placements()[rng.IntN(3)]
		// Random jobs of one core and some memory come and go; the watch
		// follows them as the nodes do.
		var w, v sdk.Watch
		w.Reset(n, &tasks, rule)
		var frozen sdk.Nodes
		frozen.CopyFrom(n)
		v.View(&frozen, &tasks, rule)
		type held struct {
			t sdk.Tasks
			a sdk.Alloc
		}
		var running []held
		for step := range 60 {
			if len(running) > 0 && rng.IntN(2) == 0 {
				i := rng.IntN(len(running))
				r := running[i]
				n.Release(&r.t, r.a)
				w.Release(&r.t, r.a)
				v.Release(&r.t, r.a)
				running = append(running[:i], running[i+1:]...)
			} else {
				other := sdk.Tasks{Count: int32(1 + rng.IntN(6)), Cores: 1, Memory: int64(rng.IntN(2)) * gb}
				if rng.IntN(3) == 0 {
					other.Nodes, other.Exclusive = 1, true
				}
				var a sdk.Alloc
				if n.Place(&other, sdk.FirstFit, &a) {
					n.Take(&other, a)
					w.Take(&other, a)
					v.Take(&other, a)
					running = append(running, held{other, a})
				}
			}
			if got, want := w.Fits(), n.Place(&tasks, rule, nil); got != want {
				t.Fatalf("trial %d step %d, %s: Watch says %v, Place %v; tasks %+v, free %+v", trial, step, rule, got, want, tasks, n.Free)
			}
			if got := v.Fits(); got != w.Fits() {
				t.Fatalf("trial %d step %d, %s: the view says %v, the copy %v", trial, step, rule, got, w.Fits())
			}
		}
	}
}

// TestHeldOn checks Layout.HeldOn against Held summed node by node, for
// exclusive and shared jobs placed on random machines of several groups.
func TestHeldOn(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for trial := range 200 {
		var groups []sdk.NodeGroup
		for g := range 1 + rng.IntN(4) {
			groups = append(groups, sdk.NodeGroup{Name: string(rune('a' + g)), Count: 1 + rng.IntN(90),
				Cores: int64(1 + rng.IntN(16)), Memory: int64(rng.IntN(4)) * gb, GPUs: int64(rng.IntN(3))})
		}
		n := nodesOf(t, groups, nil)
		tasks := sdk.Tasks{Count: int32(1 + rng.IntN(60)), Cores: 1}
		if rng.IntN(2) == 0 {
			tasks.Nodes, tasks.Exclusive = int32(1+rng.IntN(40)), true
			tasks.Count = tasks.Nodes
		}
		var a sdk.Alloc
		if !n.Place(&tasks, sdk.FirstFit, &a) {
			continue
		}
		var want sdk.Amount
		for i, k := range a.Nodes {
			h := n.Layout.Held(&tasks, k, a.Tasks[i])
			want.Cores, want.Memory, want.GPUs = want.Cores+h.Cores, want.Memory+h.Memory, want.GPUs+h.GPUs
		}
		if got := n.Layout.HeldOn(&tasks, a); got != want {
			t.Fatalf("trial %d: HeldOn %+v, want %+v (tasks %+v on %v)", trial, got, want, tasks, a.Nodes)
		}
	}
}
