package grid

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/schedlab/schedlab/sdk"
)

// Prices are the settings of the price function PR(t) = C * P(t) * F(R) of
// a processor-second (Kovalenko et al. 2006, section 4.2): C is the
// administrator's coefficient of each cluster, P(t) the priority of the
// local job the cluster's forecast puts on the processor at t, and F(R) the
// cluster's price factor (sdk.Cluster.Price).
type Prices struct {
	// C holds each cluster's coefficient, indexed like Platform.Clusters.
	C []float64
	// Idle is the P(t) of a processor the forecast leaves idle. The paper
	// defines P(t) as the priority of the local job that is to run on the
	// computer at t (section 4.2) and says nothing of a computer no local
	// job holds; 0, idle processors free, is our reading.
	Idle float64
}

// Allocation is what Market.Search found for a job: its processors on
// Cluster over [Start, End), and what they cost. On computers
// (SlotsComputer) Computers holds the numbers of the computers it holds
// throughout, in increasing order; on a pool it is nil.
type Allocation struct {
	Cluster    int
	Start, End int64
	Cost       float64
	Computers  []int
}

// Market holds the forecasts of every cluster as prices, for the
// allocation search of one scheduling cycle. Allocations taken (Take)
// leave the processors they bought to no one else in the cycle, as the
// paper's tentative allocations do.
type Market struct {
	slots     Slots
	clusters  []*cmarket  // SlotsPool
	computers []*pcmarket // SlotsComputer
	// features is each cluster's mask of features (sdk.Platform.FeatureMask):
	// a job is planned only where it finds every feature it requires.
	features []uint64
	// Ops counts the steps of the forecasts the searches so far matched a
	// candidate allocation against: the search's own work, which is not
	// the paper's unit (a pair of a job and a slot, CP = A1 * Nz * Ns).
	Ops int64
}

// cmarket is one cluster's forecast as steps: step k covers
// [times[k], times[k+1]), the last one for ever.
type cmarket struct {
	capacity int64
	times    []int64
	// avail is the number of processors nobody holds in the step: not
	// running a job (to its walltime), not reserved, not taken.
	avail []int64
	// buckets are the available processors by price, cheapest first; they
	// add up to avail.
	buckets [][]bucket
}

type bucket struct {
	price float64
	n     int64
}

// Forecast is what a cluster publishes at time At, the paper's local
// schedule: its running jobs (each to its walltime), the reservations it
// holds, and the plan of its local queue (Plan). A market built from an old
// forecast does not know what happened since: an allocation it finds may
// then be refused.
type Forecast struct {
	At      int64
	Running []sdk.Running
	Holds   []Hold
	Slots   []Slot
	// Off leaves the cluster out of the market (its forecast has expired).
	Off bool
}

// Publish returns cluster c's forecast at s.Now: its running jobs, the
// reservations of book, and the plan of its local queue q around them.
func Publish(s *sdk.State, book *Book, c int, q []Entry) Forecast {
	f := Forecast{At: s.Now, Holds: book.Holds(c, nil)}
	for _, r := range s.Running {
		if r.Cluster == c {
			f.Running = append(f.Running, r)
		}
	}
	f.Slots = Plan(book.Profile(s, c, nil), append([]Entry(nil), q...), nil)
	return f
}

// NewMarket prices the forecasts of every cluster of p, indexed like its
// clusters, each cluster a pool of processors (SlotsPool). A processor
// that runs a job or is reserved cannot be bought; one a forecast slot
// covers costs C * max(P, 0) * F per second, P the slot's priority; any
// other costs C * Idle * F.
func NewMarket(p *sdk.Platform, fs []Forecast, pr Prices) (*Market, error) {
	return NewMarketOf(p, fs, pr, SlotsPool)
}

// NewMarketOf is NewMarket with the reading slots of a cluster's
// processors. On computers (SlotsComputer) each processor of a cluster is
// a computer: each running job, held reservation and forecast slot is put
// on computers of its own, in order of start (running jobs, then
// reservations, then slots), each taking the lowest-numbered computers
// free at its start (our rule: the paper's local systems place jobs, the
// forecast we plan does not), and an allocation holds the same computers
// throughout.
func NewMarketOf(p *sdk.Platform, fs []Forecast, pr Prices, slots Slots) (*Market, error) {
	cl := p.Clusters
	if len(pr.C) != len(cl) || len(fs) != len(cl) {
		return nil, fmt.Errorf("grid: %d coefficients and %d forecasts for %d clusters", len(pr.C), len(fs), len(cl))
	}
	if err := checkSlots(slots); err != nil {
		return nil, err
	}
	m := &Market{slots: slots, clusters: make([]*cmarket, len(cl)), computers: make([]*pcmarket, len(cl)), features: make([]uint64, len(cl))}
	for c := range cl {
		m.features[c] = p.FeatureMask(c)
		if fs[c].Off {
			continue
		}
		scale := pr.C[c] * cl[c].Price()
		if slots == SlotsComputer {
			m.computers[c] = newPCMarket(cl[c].Capacity[0], fs[c], scale, scale*pr.Idle)
			continue
		}
		m.clusters[c] = newCMarket(cl[c].Capacity[0], fs[c], scale, scale*pr.Idle)
	}
	return m, nil
}

// event changes the use of processors at a time: hard ones (running,
// reserved) or those of a forecast slot at a price.
type event struct {
	at    int64
	hard  int64
	n     int64
	price float64
}

func newCMarket(capacity int64, f Forecast, scale, idle float64) *cmarket {
	now := f.At
	var ev []event
	hard := int64(0)
	for _, r := range f.Running {
		if r.ExpectedEnd > now {
			hard += r.Job.Request[0]
			ev = append(ev, event{at: r.ExpectedEnd, hard: -r.Job.Request[0]})
		}
	}
	for _, h := range f.Holds {
		if h.End > now {
			ev = append(ev, event{at: max(h.At, now), hard: h.Job.Request[0]}, event{at: h.End, hard: -h.Job.Request[0]})
		}
	}
	for _, sl := range f.Slots {
		p := scale * max(sl.Priority, 0)
		n := sl.Job.Request[0]
		ev = append(ev, event{at: sl.Start, n: n, price: p}, event{at: sl.End, n: -n, price: p})
	}
	slices.SortFunc(ev, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	m := &cmarket{capacity: capacity}
	local := map[float64]int64{}
	var prices []float64
	for k, first := 0, true; ; first = false {
		t := now
		if !first {
			t = ev[k].at
		}
		for ; k < len(ev) && ev[k].at <= t; k++ {
			hard += ev[k].hard
			if ev[k].n != 0 {
				local[ev[k].price] += ev[k].n
			}
		}
		avail := m.capacity - hard
		prices = prices[:0]
		var busy int64
		for p, n := range local {
			if n > 0 {
				prices = append(prices, p)
				busy += n
			}
		}
		// Dearest first: forecast slots planned beside what is held fit
		// in avail, and should they not, the processors are priced at the
		// dearest slots, never below what the forecast says.
		sort.Sort(sort.Reverse(sort.Float64Slice(prices)))
		var bs []bucket
		left := avail
		if free := avail - busy; free > 0 {
			bs = append(bs, bucket{price: idle, n: free})
			left -= free
		}
		for _, p := range prices {
			if left <= 0 {
				break
			}
			n := min(local[p], left)
			bs = append(bs, bucket{price: p, n: n})
			left -= n
		}
		slices.SortStableFunc(bs, func(a, b bucket) int { return cmp.Compare(a.price, b.price) })
		m.times = append(m.times, t)
		m.avail = append(m.avail, avail)
		m.buckets = append(m.buckets, bs)
		if k == len(ev) {
			break
		}
	}
	return m
}

// Search finds job j's allocation: the earliest start, no earlier than
// from, at which its processors can be bought on one cluster that has
// every feature j requires (sdk.Job.Requires) for its walltime at a price
// of at most payment; among clusters with the same
// earliest start, the cheaper, then the first. Start times are looked for
// at from and where a step of some forecast begins or where an allocation
// would end with one, which is where the price and the availability
// change.
func (m *Market) Search(j *sdk.Job, from int64, payment float64) (Allocation, bool) {
	best, found := Allocation{}, false
	for c := range m.clusters {
		if m.features[c]&j.Requires != j.Requires {
			continue
		}
		var a Allocation
		var ok bool
		switch cm, pm := m.clusters[c], m.computers[c]; {
		case cm != nil && j.Request[0] <= cm.capacity:
			a, ok = cm.search(j.Request[0], j.Walltime, from, payment, &m.Ops)
		case pm != nil && j.Request[0] <= int64(len(pm.spans)):
			a, ok = pm.search(j.Request[0], j.Walltime, from, payment, &m.Ops)
		}
		if !ok {
			continue
		}
		a.Cluster = c
		if !found || a.Start < best.Start || (a.Start == best.Start && a.Cost < best.Cost) {
			best, found = a, true
		}
	}
	return best, found
}

// step returns the index of the step that holds time t.
func (m *cmarket) step(t int64) int {
	k, _ := slices.BinarySearch(m.times, t+1)
	return max(k-1, 0)
}

// cost returns what procs processors cost on [t0, t0+w), and false when
// they are not available throughout; it counts one operation per step.
func (m *cmarket) cost(procs, w, t0 int64, ops *int64) (float64, int, bool) {
	end := t0 + w
	total := 0.0
	for k := m.step(t0); k < len(m.times) && m.times[k] < end; k++ {
		*ops++
		if m.avail[k] < procs {
			return 0, k, false
		}
		lo := max(m.times[k], t0)
		hi := end
		if k+1 < len(m.times) {
			hi = min(hi, m.times[k+1])
		}
		left, sum := procs, 0.0
		for _, b := range m.buckets[k] {
			n := min(b.n, left)
			sum += float64(n) * b.price
			if left -= n; left == 0 {
				break
			}
		}
		total += sum * float64(hi-lo)
	}
	return total, 0, true
}

func (m *cmarket) search(procs, w, from int64, payment float64, ops *int64) (Allocation, bool) {
	// Between two candidates the availability is constant and the cost
	// linear in the start time: the earliest affordable start is a
	// candidate, or where the line between two crosses the payment.
	cands := []int64{from}
	for _, t := range m.times {
		if t > from {
			cands = append(cands, t)
		}
		if t-w > from {
			cands = append(cands, t-w)
		}
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	skip := int64(math.MinInt64)
	prev, prevCost, havePrev := int64(0), 0.0, false
	for _, t := range cands {
		if t < skip {
			continue
		}
		cost, blocked, ok := m.cost(procs, w, t, ops)
		if !ok {
			havePrev = false
			if blocked+1 >= len(m.times) {
				return Allocation{}, false
			}
			// Nothing starting before the blocked step ends can fit.
			skip = m.times[blocked+1]
			continue
		}
		if cost <= payment {
			if havePrev && prevCost > cost {
				// The crossing, rounded up to a whole second.
				x := prev + int64(math.Ceil((prevCost-payment)/(prevCost-cost)*float64(t-prev)))
				// Rounding may leave the crossing a hair above the
				// payment: the next second then.
				for y := x; y > prev && y < t && y <= x+1; y++ {
					if c, _, ok := m.cost(procs, w, y, ops); ok && c <= payment {
						return Allocation{Start: y, End: y + w, Cost: c}, true
					}
				}
			}
			return Allocation{Start: t, End: t + w, Cost: cost}, true
		}
		prev, prevCost, havePrev = t, cost, true
	}
	return Allocation{}, false
}

// Take gives allocation a's processors (procs of them) to its job for the
// rest of the cycle, so that jobs of lower priority search among what is
// left: on a pool the cheapest available in each step, on computers
// a.Computers.
func (m *Market) Take(a Allocation, procs int64) {
	if m.slots == SlotsComputer {
		m.computers[a.Cluster].take(a)
		return
	}
	cm := m.clusters[a.Cluster]
	ks := cm.split(a.Start)
	ke := cm.split(a.End)
	for k := ks; k < ke; k++ {
		cm.avail[k] -= procs
		left := procs
		bs := cm.buckets[k]
		for x := range bs {
			n := min(bs[x].n, left)
			bs[x].n -= n
			if left -= n; left == 0 {
				break
			}
		}
		cm.buckets[k] = slices.DeleteFunc(bs, func(b bucket) bool { return b.n == 0 })
	}
}

// split makes t the start of a step and returns that step's index.
func (m *cmarket) split(t int64) int {
	k := m.step(t)
	if m.times[k] == t {
		return k
	}
	if t < m.times[k] {
		// Before the first step: nothing to split (searches start at now).
		return k
	}
	m.times = slices.Insert(m.times, k+1, t)
	m.avail = slices.Insert(m.avail, k+1, m.avail[k])
	m.buckets = slices.Insert(m.buckets, k+1, slices.Clone(m.buckets[k]))
	return k + 1
}

// Serves reports whether some cluster of p can run job j (one with as
// many processors as j requests and every feature j requires), and
// whether some cluster has the processors (fits): a job that fits but is
// not served is kept from every cluster by its features alone.
func Serves(p *sdk.Platform, j *sdk.Job) (serves, fits bool) {
	for c := range p.Clusters {
		if j.Request[0] <= p.Clusters[c].Capacity[0] {
			fits = true
			if p.Serves(c, j) {
				return true, true
			}
		}
	}
	return false, fits
}

// Floor returns what job j costs at the least on any cluster it fits on
// and that has the features it requires, with every processor idle: the
// bound below which its payment can buy nothing, as long as no local
// job's priority is below the idle one. It is false when no such cluster
// exists (Serves).
func Floor(p *sdk.Platform, pr Prices, j *sdk.Job) (float64, bool) {
	floor, ok := math.Inf(1), false
	for c := range p.Clusters {
		if j.Request[0] <= p.Clusters[c].Capacity[0] && p.Serves(c, j) {
			floor = min(floor, pr.C[c]*p.Clusters[c].Price()*pr.Idle*float64(j.Request[0])*float64(j.Walltime))
			ok = true
		}
	}
	return floor, ok
}
