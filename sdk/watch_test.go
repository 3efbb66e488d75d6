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
// withheld.
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
		var w sdk.Watch
		w.Reset(n, &tasks, rule)
		off := make([]int, len(n.Free))
		var copyOf sdk.Nodes
		for step := range 80 {
			k := int32(rng.IntN(len(n.Free)))
			switch rng.IntN(4) {
			case 0:
				w.Withhold(k)
				off[k]++
			case 1:
				if off[k] > 0 {
					w.Restore(k)
					off[k]--
				}
			case 2:
				f := sdk.Amount{Cores: int64(rng.IntN(int(groups[0].Cores) + 1)), Memory: int64(rng.IntN(9)) * gb}
				sb.SetFree(k, f)
				w.SetFree(k, f)
			default:
				other := sdk.Tasks{Count: int32(1 + rng.IntN(4)), Cores: 1}
				var a sdk.Alloc
				if n.Place(&other, sdk.FirstFit, &a) {
					n.Take(&other, a)
					w.Take(&other, a)
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
		}
		w.Reset(n, &tasks, rule)
		for x := range n.Free {
			if w.Withheld(int32(x)) {
				t.Fatalf("trial %d: node %d withheld after Reset", trial, x)
			}
		}
	}
}
