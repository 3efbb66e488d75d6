// Package backfill holds schedlab's reference queue policies: FCFS, EASY
// backfilling and conservative backfilling, each with a choice of queue order.
// The plugin binaries in plugins/fcfs, plugins/easy and plugins/conservative
// serve them; tests and the schedlab command link them in-process.
package backfill

import (
	"cmp"
	"math"
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
	// OrderPriority puts the highest priority the workload gives a job
	// (sdk.Job.Priority: a sacct log's own with priority = "log") first,
	// replaying the order the log's scheduler ranked jobs by.
	OrderPriority = "priority"
)

// orderParam declares the "order" parameter shared by the reference policies.
func orderParam() sdk.Param {
	return sdk.Param{
		Name:    "order",
		Type:    sdk.String,
		Default: OrderSubmit,
		Doc: "queue order: submit; priority (the workload's, highest first); shortest or ljf (requested walltime r, shortest or longest first); smallest or largest " +
			"(processors n); saf or laf (area r x n, smallest or largest first); wfp3 ((w/r)^3 x n, highest first) or unicep " +
			"(w / (max(log2 n, 1) x r), highest first), w the current wait, ranked again at every call; f1 to f4 " +
			"(Carastan-Santos & de Camargo, SC'17; lowest first): log10(r) x n + 870 log10(s), sqrt(r) x n + 25600 log10(s), " +
			"r x n + 6.86e6 log10(s), r x sqrt(n) + 5.3e5 log10(s), s the submit time (below 1 s read as 0.1 s); " +
			"ties by submit order; sources and choices in docs/policies.md",
		// New orders go at the end: the list is printed in error messages
		// and descriptions, which name the first four in this order.
		Choices: []string{OrderSubmit, OrderShortest, OrderSmallest, OrderLargest,
			OrderWFP3, OrderUNICEP, OrderF1, OrderF2, OrderF3, OrderF4, OrderSAF, OrderLAF, OrderLJF, OrderPriority},
	}
}

// orderer keeps the queue in the configured order from call to call: each
// call inserts the jobs submitted since the last (binary search), and the
// policy drops the jobs it starts. Sorting the whole queue at every call
// instead cost O(Q log Q) comparisons per event: FCFS in largest-first
// order on SDSC-BLUE, whose backlog grows to tens of thousands of jobs,
// took 299 s where every other order took at most 8 s.
//
// That holds for static keys only. The timed orders (wfp3, unicep) score
// the current wait, and two jobs' scores grow at different rates ((w/r)^3
// x n and w / (log2 n x r) rise faster for a shorter job), so a job may
// overtake another while both wait: an order kept from an earlier call
// would be wrong. For them sorted ranks the whole queue again at every
// call, at the current time, at the cost above; the rank does not depend
// on the previous one, so they keep no order between calls.
type orderer struct {
	order string
	// scoring is the order's score, for the orders given by one; zero for
	// the orders of integer keys.
	scoring scoring
	buf     []*sdk.Job // the waiting jobs in order
	seen    arrivals   // the jobs inserted
	// now is the time of the current call, at which the timed orders
	// score the waits.
	now   int64
	keyed []keyedJob // rank's scratch
	// steady, when set, marks a timed order whose scores do not depend
	// on the time and change only when steady's value does
	// (multifactor's priorities, computed every PriorityCalcPeriod).
	// While the value holds, the order kept from the last call, less the
	// jobs gone, is the queue's, and only the jobs new in the queue are
	// inserted: sorting the queue again at each call was a fifth of
	// multifactor's time. kept is that order with its scores, keptAt
	// steady's value when it was sorted.
	steady func() uint64
	kept   []keyedJob
	keptAt uint64
	// mark stamps the jobs of the queue (by Index) while the kept order
	// is brought to it: stamp in the queue, stamp+1 also in the order.
	mark  []uint32
	stamp uint32
}

// keyedJob is a job with its score, computed once per rank rather than at
// every comparison.
type keyedJob struct {
	key float64
	job *sdk.Job
}

func newOrderer(env sdk.Env) orderer {
	return makeOrderer(env.Params.String("order"))
}

func makeOrderer(order string) orderer {
	return orderer{order: order, scoring: scorings[order]}
}

// sorted returns the queue q in the configured order at time now. For
// submit order it is q itself, the engine's slice, which is already in that
// order; otherwise the order kept (or, for a timed order, made now), which
// the caller must not change, and whose jobs the caller must drop once it
// starts them.
//
// A job an outage of nodes requeued (a Completion of s with Requeued) is
// in the queue again, wherever the engine put it: it is inserted into
// the kept order again.
func (o *orderer) sorted(s *sdk.State) []*sdk.Job {
	q := s.Queue
	if o.order == OrderSubmit {
		return q
	}
	o.now = s.Now
	if o.scoring.timed {
		if o.steady != nil {
			return o.sortedSteady(q)
		}
		o.buf = append(o.buf[:0], q...)
		o.rank(o.buf)
		return o.buf
	}
	for _, c := range s.Completed {
		if c.Requeued {
			o.insert(c.Job)
		}
	}
	for _, j := range o.seen.take(q) {
		o.insert(j)
	}
	return o.buf
}

// insert puts j into the kept order.
func (o *orderer) insert(j *sdk.Job) {
	i, _ := slices.BinarySearchFunc(o.buf, j, o.compare)
	o.buf = slices.Insert(o.buf, i, j)
}

// arrivals finds the jobs submitted since the previous call. The engine
// appends them to its queue, so they end it; but a job submitted during the
// run (a workload's feedback: it depends on another job's end) may have a
// lower index than jobs submitted before it, so a job is known by a mark of
// its own rather than by a bound on indexes.
type arrivals struct {
	seen []bool // by job index
}

// take returns the jobs at the end of q not seen before, and marks them.
func (a *arrivals) take(q []*sdk.Job) []*sdk.Job {
	k := len(q)
	for k > 0 && !a.has(q[k-1].Index) {
		k--
	}
	for _, j := range q[k:] {
		for j.Index >= len(a.seen) {
			a.seen = append(a.seen, false)
		}
		a.seen[j.Index] = true
	}
	return q[k:]
}

func (a *arrivals) has(i int) bool { return i < len(a.seen) && a.seen[i] }

// rank sorts js in the configured order of scores at o.now, ties by
// submit order (Index): the order compare gives, with each score computed
// once.
func (o *orderer) rank(js []*sdk.Job) {
	o.keyed = o.keyed[:0]
	for _, j := range js {
		o.keyed = append(o.keyed, keyedJob{key: o.scoring.score(j, o.now), job: j})
	}
	slices.SortFunc(o.keyed, o.keyedCompare)
	for i := range o.keyed {
		js[i] = o.keyed[i].job
	}
	clear(o.keyed) // hold no job of this call until the next
}

// keyedCompare is rank's order: by score, then by submit order.
func (o *orderer) keyedCompare(a, b keyedJob) int {
	c := cmp.Compare(a.key, b.key)
	if o.scoring.higherFirst {
		c = -c
	}
	if c != 0 {
		return c
	}
	return cmp.Compare(a.job.Index, b.job.Index)
}

// sortedSteady is sorted for a timed order with steady scores: the
// queue ranked again when steady changed since the last call, else the
// order kept less the jobs no longer in q, with q's new jobs inserted.
// Either is q sorted by rank's total order.
func (o *orderer) sortedSteady(q []*sdk.Job) []*sdk.Job {
	if v := o.steady(); v != o.keptAt || o.kept == nil {
		o.kept = o.kept[:0]
		for _, j := range q {
			o.kept = append(o.kept, keyedJob{key: o.scoring.score(j, o.now), job: j})
		}
		slices.SortFunc(o.kept, o.keyedCompare)
		o.keptAt = v
	} else {
		o.bring(q)
	}
	o.buf = o.buf[:0]
	for _, kj := range o.kept {
		o.buf = append(o.buf, kj.job)
	}
	return o.buf
}

// bring brings the kept order to queue q: the jobs no longer in q out,
// q's new jobs in.
func (o *orderer) bring(q []*sdk.Job) {
	if o.stamp >= math.MaxUint32-2 {
		clear(o.mark)
		o.stamp = 0
	}
	o.stamp += 2
	in, both := o.stamp, o.stamp+1
	for _, j := range q {
		for j.Index >= len(o.mark) {
			o.mark = append(o.mark, 0)
		}
		o.mark[j.Index] = in
	}
	k := 0
	for _, kj := range o.kept {
		if i := kj.job.Index; i < len(o.mark) && o.mark[i] == in {
			o.mark[i] = both
			o.kept[k] = kj
			k++
		}
	}
	clear(o.kept[k:]) // hold no job gone
	o.kept = o.kept[:k]
	for _, j := range q {
		if o.mark[j.Index] == in {
			kj := keyedJob{key: o.scoring.score(j, o.now), job: j}
			i, _ := slices.BinarySearchFunc(o.kept, kj, o.keyedCompare)
			o.kept = slices.Insert(o.kept, i, kj)
		}
	}
}

// drop removes from the kept order the jobs that ds start. Those at its
// front (all of them, under FCFS) cost nothing. A timed order keeps
// nothing to drop from: sorted makes it again from the queue.
func (o *orderer) drop(ds []sdk.Decision) {
	if o.order == OrderSubmit || o.scoring.timed {
		return
	}
	for _, d := range ds {
		if d.Action != sdk.ActionStart {
			continue
		}
		if len(o.buf) > 0 && o.buf[0] == d.Job {
			o.buf = o.buf[1:]
			continue
		}
		if i, ok := slices.BinarySearchFunc(o.buf, d.Job, o.compare); ok {
			o.buf = slices.Delete(o.buf, i, i+1)
		}
	}
}

// compare orders two jobs as sorted does (timed orders at o.now): by the
// configured key, then by submit order. It is a total order, since no two
// jobs share an Index.
func (o *orderer) compare(a, b *sdk.Job) int {
	var c int
	switch o.order {
	case OrderShortest:
		c = cmp.Compare(a.Walltime, b.Walltime)
	case OrderSmallest:
		c = cmp.Compare(a.Procs(), b.Procs())
	case OrderLargest:
		c = cmp.Compare(b.Procs(), a.Procs())
	case OrderLJF:
		c = cmp.Compare(b.Walltime, a.Walltime)
	case OrderPriority:
		c = cmp.Compare(b.Priority, a.Priority)
	case OrderSAF:
		c = compareArea(a, b)
	case OrderLAF:
		c = compareArea(b, a)
	default:
		if sc := o.scoring; sc.score != nil {
			c = cmp.Compare(sc.score(a, o.now), sc.score(b, o.now))
			if sc.higherFirst {
				c = -c
			}
		}
	}
	if c != 0 {
		return c
	}
	return cmp.Compare(a.Index, b.Index)
}
