package backfill

// increases logs the times from which the profile of conservative
// backfilling gained capacity, so that a bound computed before can tell
// whether it may have become too high. It keeps only what minSince needs:
// the entries that are smaller than every entry logged after them, which
// form a stack increasing from bottom to top.
type increases struct {
	// seq counts the entries ever logged.
	seq   int64
	stack []increase
}

type increase struct {
	seq int64 // the entry's number, from 1
	at  int64
}

// add logs that the profile gained capacity on an interval that starts at
// at; where it ends does not matter to minSince.
func (l *increases) add(at int64) {
	l.seq++
	for len(l.stack) > 0 && l.stack[len(l.stack)-1].at >= at {
		l.stack = l.stack[:len(l.stack)-1]
	}
	l.stack = append(l.stack, increase{seq: l.seq, at: at})
}

// minSince returns the earliest time among the entries logged after the
// first seq, and whether there is any.
func (l *increases) minSince(seq int64) (int64, bool) {
	n := len(l.stack)
	if n == 0 || l.stack[n-1].seq <= seq {
		return 0, false
	}
	// The first entry after seq is the smallest of those after seq.
	lo, hi := 0, n-1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.stack[m].seq <= seq {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return l.stack[lo].at, true
}

// forget merges the entries at or before now, which all mean "from now on"
// to a profile that starts at now: keeping the last of them, whose seq is
// the largest, answers every query the same way and bounds the stack.
func (l *increases) forget(now int64) {
	k := 0
	for k < len(l.stack) && l.stack[k].at <= now {
		k++
	}
	if k > 1 {
		n := copy(l.stack, l.stack[k-1:])
		l.stack = l.stack[:n]
	}
}

// resvHeap is a min-heap of reservations (time, job index), ties by index.
// Entries are not removed when a reservation moves or its job starts; the
// caller skips the stale ones, which no longer match the job's reservation.
type resvHeap struct {
	items []resvItem
}

type resvItem struct {
	at  int64
	idx int32
}

func (h *resvHeap) len() int { return len(h.items) }

func (h *resvHeap) top() (int64, int32) { return h.items[0].at, h.items[0].idx }

func (a resvItem) before(b resvItem) bool { return a.at < b.at || a.at == b.at && a.idx < b.idx }

func (h *resvHeap) push(at int64, idx int32) {
	h.items = append(h.items, resvItem{at, idx})
	h.up(len(h.items) - 1)
}

func (h *resvHeap) pop() {
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	h.down(0)
}

func (h *resvHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.items[i].before(h.items[parent]) {
			return
		}
		h.items[i], h.items[parent] = h.items[parent], h.items[i]
		i = parent
	}
}

func (h *resvHeap) down(i int) {
	n := len(h.items)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h.items[c+1].before(h.items[c]) {
			c++
		}
		if !h.items[c].before(h.items[i]) {
			return
		}
		h.items[i], h.items[c] = h.items[c], h.items[i]
		i = c
	}
}

// compact drops the stale entries once they outnumber the live ones (live
// being the number of reservations held), so that the heap stays within a
// constant factor of the queue.
func (h *resvHeap) compact(resv []int64, live int) {
	if len(h.items) <= 2*live+64 {
		return
	}
	kept := h.items[:0]
	for _, it := range h.items {
		if resv[it.idx] == it.at {
			kept = append(kept, it)
		}
	}
	h.items = kept
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}
