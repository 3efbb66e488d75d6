// Package backfill holds schedlab's reference queue policies: FCFS, EASY
// backfilling and conservative backfilling, each with a choice of queue order.
// The plugin binaries in plugins/fcfs, plugins/easy and plugins/conservative
// serve them; tests and the schedlab command link them in-process.
package backfill

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// The queue orders every reference policy accepts as its "order" parameter.
// Ties always go to the job submitted first (lower Index).
const (
	// OrderSubmit is first come, first served.
	OrderSubmit = "submit"
	// OrderShortest puts the shortest requested walltime first.
	OrderShortest = "shortest"
	// OrderSmallest puts the fewest requested processors first.
	OrderSmallest = "smallest"
	// OrderLargest puts the most requested processors first.
	OrderLargest = "largest"
)

// orderParam declares the "order" parameter shared by the reference policies.
func orderParam() sdk.Param {
	return sdk.Param{
		Name:    "order",
		Type:    sdk.String,
		Default: OrderSubmit,
		Doc:     "queue order: submit, shortest (requested walltime), smallest or largest (processors); ties by submit order",
		Choices: []string{OrderSubmit, OrderShortest, OrderSmallest, OrderLargest},
	}
}

// orderer sorts a copy of the queue in the configured order, reusing its
// buffer between calls.
type orderer struct {
	order string
	buf   []*sdk.Job
}

func newOrderer(env sdk.Env) orderer {
	return orderer{order: env.Params.String("order")}
}

// sorted returns the queue in the configured order. For submit order it is
// the engine's own slice, which is already in that order.
func (o *orderer) sorted(q []*sdk.Job) []*sdk.Job {
	if o.order == OrderSubmit {
		return q
	}
	o.buf = append(o.buf[:0], q...)
	slices.SortFunc(o.buf, o.compare)
	return o.buf
}

// compare orders two jobs as sorted does: by the configured key, then by
// submit order. It is a total order, since no two jobs share an Index.
func (o *orderer) compare(a, b *sdk.Job) int {
	var c int
	switch o.order {
	case OrderShortest:
		c = cmp.Compare(a.Walltime, b.Walltime)
	case OrderSmallest:
		c = cmp.Compare(a.Procs(), b.Procs())
	case OrderLargest:
		c = cmp.Compare(b.Procs(), a.Procs())
	}
	if c != 0 {
		return c
	}
	return cmp.Compare(a.Index, b.Index)
}

// singleCluster rejects platforms the reference policies do not handle.
func singleCluster(name string, p *sdk.Platform) error {
	if len(p.Clusters) != 1 {
		return fmt.Errorf("%s schedules one cluster; platform %q has %d", name, p.Name, len(p.Clusters))
	}
	if p.UnitStride() > 0 {
		// Its fits count totals only; the engine would refuse starts whose
		// pieces do not fit on units.
		return fmt.Errorf("%s does not place pieces on divided resources (platform %q); use the bb-* policies", name, p.Name)
	}
	return nil
}
