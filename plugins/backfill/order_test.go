package backfill

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

// TestOrdererKeepsOrder drives the kept order as the engine and a policy
// do, through random arrivals and starts (at its front and anywhere), and
// checks it against a sort of the whole queue at every call, at that
// call's time (which the timed orders score). Jobs come with 0 to 8
// processors (0: UNICEP's guard) and ties of walltime and area.
func TestOrdererKeepsOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, order := range orderParam().Choices[1:] {
		n := 3000
		if scorings[order].timed {
			n = 800 // ranked whole at every call
		}
		jobs := make([]sdk.Job, n)
		for i := range jobs {
			jobs[i] = sdk.Job{Index: i, ID: int64(i), Submit: int64(i) * 3, Walltime: 1 + r.Int64N(20), Request: sdk.Vector{r.Int64N(9)},
				Priority: float64(r.IntN(5))}
		}
		o := makeOrderer(order)
		var queue []*sdk.Job // the engine's queue, in submit order
		next := 0
		for call := 0; next < len(jobs) || len(queue) > 0; call++ {
			for n := r.IntN(4); n > 0 && next < len(jobs); n-- {
				queue = append(queue, &jobs[next])
				next++
			}
			now := int64(3 * next)
			got := o.sorted(&sdk.State{Queue: queue, Now: now})
			want := slices.Clone(queue)
			slices.SortStableFunc(want, o.compare)
			if !slices.Equal(got, want) {
				t.Fatalf("%s, call %d: the kept order differs from a sort of the queue", order, call)
			}
			// Start a few: the front, as FCFS does, and some anywhere, as
			// backfilling does.
			var ds []sdk.Decision
			for k := 0; k < len(got) && k < r.IntN(3); k++ {
				ds = append(ds, sdk.Start(got[k]))
			}
			for n := r.IntN(2); n > 0 && len(got) > 0; n-- {
				j := got[r.IntN(len(got))]
				if !slices.ContainsFunc(ds, func(d sdk.Decision) bool { return d.Job == j }) {
					ds = append(ds, sdk.Start(j))
				}
			}
			ds = append(ds, sdk.WakeAt(1))
			o.drop(ds)
			queue = slices.DeleteFunc(queue, func(j *sdk.Job) bool {
				return slices.ContainsFunc(ds, func(d sdk.Decision) bool { return d.Job == j })
			})
		}
	}
}
