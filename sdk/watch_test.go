package sdk_test

import (
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// TestWatchWithhold changes random nodes, withholds and restores random
// nodes (some several times over) and sets nodes' free amounts, and checks
// after each step that the watch says the job fits exactly when Place does
// on a copy of the nodes with the withheld ones empty, and that
// FreeInPartition and Free agree with that copy; a Reset forgets what was
// withheld. A second watch, a View of the nodes as they were at the start
// (which never change after), is told the same and must say the same.
func TestWatchWithhold(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 1))
	for trial := range 200 {
		groups := []sdk.NodeGroup{{Name: "a", Count: 1 + rng.IntN(12), Cores: int64(1 + rng.IntN(8)), Memory: 8 * gb}}
		var sb sdk.Sandbox // the nodes as they change
		sb.Sync(nodesOf(t, groups, nil))
		n := &sb.Nodes
		tasks := sdk.Tasks{Count: int32(1 + rng.IntN(12)), Cores: 1, Memory: int64(rng.IntN(3)) * gb}
		if rng.IntN(2) == 0 {
			tasks.Nodes = int32(1 + rng.IntN(int(tasks.Count)))
			tasks.Exclusive = rng.IntN(2) == 0
		}
		rule := sdk.Placements()[rng.IntN(3)]
		var w, v sdk.Watch
		w.Reset(n, &tasks, rule)
		var frozen sdk.Nodes
		frozen.CopyFrom(n)
		v.View(&frozen, &tasks, rule)
		off := make([]int, len(n.Free))
		var copyOf sdk.Nodes
		for step := range 80 {
			k := int32(rng.IntN(len(n.Free)))
			switch rng.IntN(4) {
			case 0:
				w.Withhold(k)
				v.Withhold(k)
				off[k]++
			case 1:
				if off[k] > 0 {
					w.Restore(k)
					v.Restore(k)
					off[k]--
				}
			case 2:
				f := sdk.Amount{Cores: int64(rng.IntN(int(groups[0].Cores) + 1)), Memory: int64(rng.IntN(9)) * gb}
				sb.SetFree(k, f)
				w.SetFree(k, f)
				v.SetFree(k, f)
			default:
				other := sdk.Tasks{Count: int32(1 + rng.IntN(4)), Cores: 1}
				var a sdk.Alloc
				if n.Place(&other, sdk.FirstFit, &a) {
					n.Take(&other, a)
					w.Take(&other, a)
					v.Take(&other, a)
				}
			}
			copyOf.CopyFrom(n)
			var all sdk.Amount
			for x := range n.Free {
				if w.Free(int32(x)) != n.Free[x] {
					t.Fatalf("trial %d step %d: Free(%d) %+v, want %+v", trial, step, x, w.Free(int32(x)), n.Free[x])
				}
				if w.Withheld(int32(x)) != (off[x] > 0) {
					t.Fatalf("trial %d step %d: Withheld(%d) %v, withheld %d times", trial, step, x, w.Withheld(int32(x)), off[x])
				}
				if off[x] > 0 {
					copyOf.SetFree(int32(x), sdk.Amount{})
				} else {
					all.Cores, all.Memory = all.Cores+n.Free[x].Cores, all.Memory+n.Free[x].Memory
				}
			}
			if got, want := w.Fits(), copyOf.Place(&tasks, rule, nil); got != want {
				t.Fatalf("trial %d step %d, %s: Watch says %v, Place %v; tasks %+v, withheld %v", trial, step, rule, got, want, tasks, off)
			}
			if got := w.FreeInPartition(); got != all {
				t.Fatalf("trial %d step %d: FreeInPartition %+v, want %+v", trial, step, got, all)
			}
			for x := range n.Free {
				if v.Free(int32(x)) != n.Free[x] || v.Withheld(int32(x)) != (off[x] > 0) {
					t.Fatalf("trial %d step %d: the view has node %d free %+v (withheld %v), want %+v (%v)", trial, step, x, v.Free(int32(x)), v.Withheld(int32(x)), n.Free[x], off[x] > 0)
				}
			}
			if v.Fits() != w.Fits() || v.FreeInPartition() != all {
				t.Fatalf("trial %d step %d: the view says fits %v, free %+v; the copy %v, %+v", trial, step, v.Fits(), v.FreeInPartition(), w.Fits(), all)
			}
		}
		w.Reset(n, &tasks, rule)
		for x := range n.Free {
			if w.Withheld(int32(x)) {
				t.Fatalf("trial %d: node %d withheld after Reset", trial, x)
			}
		}
	}
}

// TestWatchOnGroups starts watches (Reset and View) on busy machines of
// several node groups, some with memory, GPUs and features, spanning
// several words of the nodes' bitsets, with partitions over some of the
// groups, and checks that each says the job fits exactly when Place does
// and that FreeInPartition is the sum over the partition's nodes, at the
// start and as running jobs end one after the other (exclusive ones
// counted by group, their nodes written free only when Free asks), and
// that Free agrees node by node.
func TestWatchOnGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 5))
	for trial := range 300 {
		var groups []sdk.NodeGroup
		for g := range 1 + rng.IntN(4) {
			ng := sdk.NodeGroup{Name: string(rune('a' + g)), Count: 1 + rng.IntN(100), Cores: int64(1 + rng.IntN(16))}
			if rng.IntN(2) == 0 {
				ng.Memory = int64(1+rng.IntN(8)) * gb
			}
			if rng.IntN(3) == 0 {
				ng.GPUs = int64(rng.IntN(4))
			}
			if rng.IntN(3) == 0 {
				ng.Features = []string{"fast"}
			}
			groups = append(groups, ng)
		}
		var parts []sdk.Partition
		if rng.IntN(2) == 0 {
			parts = []sdk.Partition{{Name: "all", Default: true}}
			for _, g := range groups {
				parts[0].Groups = append(parts[0].Groups, g.Name)
			}
			some := sdk.Partition{Name: "some"}
			for _, g := range groups {
				if rng.IntN(2) == 0 || some.Groups == nil && g.Name == groups[len(groups)-1].Name {
					some.Groups = append(some.Groups, g.Name)
				}
			}
			parts = append(parts, some)
		}
		n := nodesOf(t, groups, parts)
		type held struct {
			t sdk.Tasks
			a sdk.Alloc
		}
		var running []held
		for range rng.IntN(400) {
			other := sdk.Tasks{Count: int32(1 + rng.IntN(12)), Cores: 1, Memory: int64(rng.IntN(2)) * gb / 2}
			if rng.IntN(3) == 0 {
				other.Nodes, other.Exclusive, other.Memory = 1+int32(rng.IntN(3)), true, 0
				other.Count = other.Nodes
			}
			var a sdk.Alloc
			if n.Place(&other, sdk.FirstFit, &a) {
				n.Take(&other, a)
				running = append(running, held{other, a})
			}
		}
		tasks := sdk.Tasks{Count: int32(1 + rng.IntN(40)), Cores: int32(1 + rng.IntN(4)), Memory: int64(rng.IntN(3)) * gb / 2}
		if rng.IntN(2) == 0 {
			tasks.Nodes = int32(1 + rng.IntN(int(tasks.Count)))
			tasks.Exclusive = rng.IntN(2) == 0
		}
		if rng.IntN(4) == 0 {
			tasks.GPUs = 1
		}
		if len(n.Layout.Features()) > 0 && rng.IntN(3) == 0 {
			tasks.Features = 1
		}
		if parts != nil {
			tasks.Partition = int32(rng.IntN(3))
		}
		rule := sdk.Placements()[rng.IntN(3)]
		var w, v sdk.Watch
		w.Reset(n, &tasks, rule)
		var frozen sdk.Nodes
		frozen.CopyFrom(n)
		v.View(&frozen, &tasks, rule)
		for step := 0; ; step++ {
			want := n.Place(&tasks, rule, nil)
			var all sdk.Amount
			for k := range n.Free {
				if n.Layout.InPartition(tasks.Partition, int32(k)) {
					all.Cores, all.Memory, all.GPUs = all.Cores+n.Free[k].Cores, all.Memory+n.Free[k].Memory, all.GPUs+n.Free[k].GPUs
				}
			}
			for name, x := range map[string]*sdk.Watch{"reset": &w, "view": &v} {
				if got := x.Fits(); got != want {
					t.Fatalf("trial %d step %d, %s, %s: Fits %v, Place %v; tasks %+v", trial, step, name, rule, got, want, tasks)
				}
				if got := x.FreeInPartition(); got != all {
					t.Fatalf("trial %d step %d, %s: FreeInPartition %+v, want %+v", trial, step, name, got, all)
				}
				if rng.IntN(4) == 0 {
					for k := range n.Free {
						if got := x.Free(int32(k)); got != n.Free[k] {
							t.Fatalf("trial %d step %d, %s: Free(%d) %+v, want %+v", trial, step, name, k, got, n.Free[k])
						}
					}
				}
			}
			if len(running) == 0 {
				break
			}
			i := rng.IntN(len(running))
			r := running[i]
			n.Release(&r.t, r.a)
			w.Release(&r.t, r.a)
			v.Release(&r.t, r.a)
			running = append(running[:i], running[i+1:]...)
		}
	}
}
