package backfill

import (
	"github.com/schedlab/schedlab/sdk"
)

// kinds keeps EASY's waiting jobs by kind (the same request, on nodes
// the same tasks, and the same walltime), each kind's jobs in the order
// of the queue, from call to call.
//
// Within a call what is free only shrinks, so a job that cannot start
// makes every later job of its kind unable to start too: the same
// request fits neither the totals nor any placement, and the same
// walltime puts it on the same side of the shadow time. Backfilling
// then reads the kinds' next jobs in the queue's order (a heap of one
// job per kind) and drops a kind at its first job that cannot start,
// where a pass over the queue read every job. On RICC (1,024 shared
// nodes, hundreds of jobs waiting) a call read 570 jobs on average, of
// which 20 were not of a kind that had failed before them in that call
// (BenchmarkEngineEASYNodes); a pool of the same trace read as many.
//
// One case is not monotone and is read job by job: a job that ends
// after the shadow time and is refused because its placement holds too
// much on the nodes of the head's partition; a later job of its kind,
// placed elsewhere once those nodes fill, may not.
type kinds struct {
	valid bool
	ids   map[kindKey]int32
	// lists holds each kind's jobs in queue order, started ones among
	// them until they lead their list; active the kinds whose list is
	// not empty (on holds their place in it, plus one).
	lists  [][]*sdk.Job
	active []int32
	on     []int32
	// state is by job index: waiting in the index, started, or neither;
	// stale counts the started jobs still in lists.
	state   []uint8
	waiting int
	stale   int
	// seq is the order of arrival by job index, the queue's order under
	// OrderSubmit; next the next one given.
	seq  []int64
	next int64
	heap []kindAt
	// served counts the calls that backfilled through the kinds, built
	// the times they were made again from the queue, retried the jobs
	// refused that did not end their kind's turn.
	served, built, retried int
	// always keeps and reads kinds whatever the queue (tests: the
	// queues of small workloads are short).
	always bool
}

// The queue's lengths from which kinds are kept, and under which they
// are dropped.
const (
	kindsFrom  = 256
	kindsUntil = 64
)

const (
	kindNone uint8 = iota
	kindWaiting
	kindStarted
)

// kindKey is a kind: the tasks' shape on nodes (room.shape), the
// processors on a pool, and the walltime.
type kindKey struct {
	need int64
	wall int64
}

// kindAt is a kind's next job in a call: lists[kind][at].
type kindAt struct {
	kind int32
	at   int32
	job  *sdk.Job
}

// kindsOK reports whether backfilling may go by kinds in this call: on
// one cluster whose request is all of a kind's (processors on a pool;
// on nodes, what the nodes hold, so that the tasks say the request),
// with a static order, and nothing that frees or holds resources between
// two calls but jobs' starts and ends (no outages, power model, cap,
// limits, drains or node switching), and a queue of queued jobs long
// enough.
func (p *easy) kindsOK(s *sdk.State, queued int) bool {
	r := &p.room
	// On a short queue a pass over it costs less than keeping the kinds
	// (CEA-Curie and SDSC-BLUE, a few dozen jobs waiting at a call, ran
	// slower by kinds in BenchmarkEngineEASYNodes): they are made once the
	// queue is long and dropped once it is short again.
	if !p.kinds.always && queued < kindsFrom && (!p.kinds.valid || queued < kindsUntil) {
		return false
	}
	if p.fresh || p.gate != nil || p.drains != nil || p.saver != nil || p.scoring.timed ||
		len(s.Outages) > 0 || s.Power != nil || r.cap > 0 || len(r.down) > 0 || len(s.Platform.Clusters) != 1 {
		return false
	}
	held := 1
	if r.nodes != nil && r.mem >= 0 {
		held++
	}
	if r.nodes != nil && r.gpu >= 0 {
		held++
	}
	return len(r.free) == held
}

// sync brings the index to the queue q (in the policy's order), whose
// jobs submitted since the previous call are arrivedNow: it adds them,
// or makes the index again from q when it was not kept or does not hold
// q's jobs (counted).
func (k *kinds) sync(p *easy, q, arrivedNow []*sdk.Job) {
	// Started jobs leave the lists as the calls read them; calls that
	// read the queue instead (pays) leave them there, until they are
	// more than the jobs waiting.
	if k.valid && k.stale <= k.waiting+kindsFrom {
		for _, j := range arrivedNow {
			k.add(p, j, true)
		}
		if k.waiting == len(q) {
			return
		}
	}
	// The kinds are made again too: under exact walltimes nearly every
	// job is a kind of its own, and kinds of jobs long gone would make
	// the index grow with the run rather than with the queue.
	for _, c := range k.active {
		for _, j := range k.lists[c] {
			k.state[j.Index] = kindNone
		}
	}
	k.ids, k.lists, k.on, k.active = nil, nil, nil, k.active[:0]
	k.waiting, k.stale = 0, 0
	for _, j := range q {
		k.add(p, j, false)
	}
	k.valid = true
	k.built++
}

// pays reports whether reading n jobs by kinds costs less than reading
// them one by one. A heap of the kinds costs more per job read than a
// pass, the more so on a pool, where the pass is a comparison of totals
// and no placement: the kinds must be few beside the jobs, a quarter on
// nodes, a sixteenth on a pool (BenchmarkEngineEASY and
// BenchmarkEngineEASYNodes on RICC and CEA-Curie set these).
func (k *kinds) pays(n int, pool bool) bool {
	per := 4
	if pool {
		per = 16
	}
	return k.always || len(k.active)*per <= n
}

// add puts j, waiting, into its kind's list: at the end, or (an arrival
// under an order other than the queue's) where the order puts it.
func (k *kinds) add(p *easy, j *sdk.Job, arrival bool) {
	if k.ids == nil {
		k.ids = make(map[kindKey]int32)
	}
	key := kindKey{need: j.Request[0], wall: j.Walltime}
	if p.room.nodes != nil {
		key.need = int64(p.room.shape(j))
	}
	c, ok := k.ids[key]
	if !ok {
		c = int32(len(k.lists))
		k.ids[key] = c
		k.lists = append(k.lists, nil)
		k.on = append(k.on, 0)
	}
	for j.Index >= len(k.state) {
		k.state = append(k.state, kindNone)
		k.seq = append(k.seq, 0)
	}
	k.state[j.Index] = kindWaiting
	k.seq[j.Index] = k.next
	k.next++
	k.waiting++
	if k.on[c] == 0 {
		k.active = append(k.active, c)
		k.on[c] = int32(len(k.active))
	}
	l := k.lists[c]
	if !arrival || p.order == OrderSubmit {
		k.lists[c] = append(l, j)
		return
	}
	i := len(l)
	for i > 0 && p.compare(l[i-1], j) > 0 {
		i--
	}
	l = append(l, nil)
	copy(l[i+1:], l[i:])
	l[i] = j
	k.lists[c] = l
}

// started notes that j, waiting in the index, started.
func (k *kinds) started(j *sdk.Job) {
	if k.valid && j.Index < len(k.state) && k.state[j.Index] == kindWaiting {
		k.state[j.Index] = kindStarted
		k.waiting--
		k.stale++
	}
}

// less orders two jobs as the queue does.
func (k *kinds) less(p *easy, a, b *sdk.Job) bool {
	if p.order == OrderSubmit {
		return k.seq[a.Index] < k.seq[b.Index]
	}
	return p.compare(a, b) < 0
}

// first makes the call's heap: each kind's first waiting job other than
// head. Started jobs leading a list leave it, and kinds left with none
// leave the active ones.
func (k *kinds) first(p *easy, head *sdk.Job) {
	k.heap = k.heap[:0]
	for x := 0; x < len(k.active); {
		c := k.active[x]
		l := k.lists[c]
		n := 0
		for n < len(l) && k.state[l[n].Index] == kindStarted {
			k.state[l[n].Index] = kindNone
			n++
		}
		k.stale -= n
		if n > 0 {
			clear(l[:n])
			l = l[n:]
			k.lists[c] = l
		}
		if len(l) == 0 {
			last := k.active[len(k.active)-1]
			k.active[x] = last
			k.on[last] = int32(x + 1)
			k.active = k.active[:len(k.active)-1]
			k.on[c] = 0
			continue
		}
		x++
		k.push(p, c, 0, head)
	}
}

// push puts kind c's first waiting job other than head from lists[c][at]
// on the heap, if it has one.
func (k *kinds) push(p *easy, c, at int32, head *sdk.Job) {
	l := k.lists[c]
	for ; int(at) < len(l); at++ {
		if j := l[at]; j != head && k.state[j.Index] == kindWaiting {
			break
		}
	}
	if int(at) == len(l) {
		return
	}
	k.heap = append(k.heap, kindAt{kind: c, at: at, job: l[at]})
	h := k.heap
	for i := len(h) - 1; i > 0; {
		up := (i - 1) / 2
		if !k.less(p, h[i].job, h[up].job) {
			break
		}
		h[i], h[up] = h[up], h[i]
		i = up
	}
}

// pop takes the heap's first job.
func (k *kinds) pop(p *easy) kindAt {
	h := k.heap
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	k.heap = h[:n]
	h = k.heap
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && k.less(p, h[l].job, h[m].job) {
			m = l
		}
		if r < n && k.less(p, h[r].job, h[m].job) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return top
}
