package broker

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/grid"
)

// Lookahead is the plugin of the paper's method (section 6). Every period
// seconds a scheduling cycle takes the global queue and every cluster's
// forecast (its local plan, sdk/grid's Plan), prices the forecasts
// (PR = C * P(t) * F(R) per processor-second) and builds, in order of
// payment, each global job's allocation: the earliest start on one
// cluster, no earlier than the job can arrive, whose processors cost at
// most its payment; an allocation leaves its processors to no other job of
// the cycle. An allocation the ship rule calls near is reserved and the
// job shipped and charged the allocation's cost; the others are built
// again at the next cycle. A job whose payment cannot buy its processors
// even on an idle cluster is rejected.
//
// With refresh, each cluster publishes its forecast every refresh seconds
// only, so a cycle may work on a forecast that no longer holds: its
// reservation may then be refused, and the job goes back to the queue.
// With ttl, a cycle leaves out a cluster whose forecast would be older than
// ttl at the cycle's end, the cycle lasting a1 x Nz x Ns (the paper's CP).
//
// With apply = "end" the cycle takes that long: it plans on the state and
// forecasts of its start, and its reservations are made at its end
// (start + CP), against the state then, which local jobs ending early or
// starting may have changed; a reservation the engine refuses sends the
// job back to the queue, as does one whose start the job can no longer
// reach by then (counted "late"). The next cycle begins no earlier.
func Lookahead() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "grid-lookahead",
			Version:     "0.1.0",
			Description: "lookahead scheduling of a grid's global stream by priced forecasts and advance reservations (Kovalenko et al. 2006)",
			Params: []sdk.Param{
				{Name: "c", Type: sdk.Float, Default: "1", Doc: "the administrator's price coefficient C of every cluster"},
				{Name: "c_clusters", Type: sdk.String, Default: "",
					Doc: "per-cluster C, overriding c: NAME=VALUE pairs separated by commas (e.g. \"kth=8\"), as each cluster's administrator sets its own C in the paper (section 4.2)"},
				{Name: "idle_price", Type: sdk.Float, Default: "0", Doc: "the P(t) of a processor the forecast leaves idle; the paper defines P(t) only as the priority of the local job on the processor, and 0 (idle processors free) is our reading"},
				{Name: "period", Type: sdk.Int, Default: "60", Doc: "seconds between two scheduling cycles"},
				{Name: "ship", Type: sdk.String, Default: string(grid.ShipEitherNext), Choices: grid.ShipRules(),
					Doc: "when to reserve and ship: either (the paper's two conditions as written, either one: the preceding local job started, or the start is within the transfer time), either-next (the preceding local job started, or the start is within the transfer time plus one period), both-next (both of the latter), transfer-next (the start within the transfer time plus one period alone), immediate (at the first allocation)"},
				{Name: "order", Type: sdk.String, Default: "payment", Choices: []string{"payment", "rate"},
					Doc: "order of the global queue: payment, or payment per processor-second of walltime (rate); ties by submission"},
				{Name: "refresh", Type: sdk.Int, Default: "0",
					Doc: "seconds between two forecasts of each cluster (at multiples of it, or at the first call after one while no job waited); 0: a fresh forecast at every cycle"},
				{Name: "ttl", Type: sdk.Int, Default: "0",
					Doc: "a forecast older than this many seconds at the end of a cycle is not used, its cluster left out of the cycle; 0: no limit"},
				{Name: "a1", Type: sdk.Float, Default: "0",
					Doc: "seconds per job-slot match: a cycle lasts a1 x (global jobs) x (forecast slots), which counts against the ttl"},
				{Name: "apply", Type: sdk.String, Default: "start", Choices: []string{"start", "end"},
					Doc: "when a cycle's reservations are made: start (at once, the cycle taking no time but against the ttl), end (when the cycle of a1 x Nz x Ns seconds ends, against the state then)"},
				{Name: "slots", Type: sdk.String, Default: string(grid.SlotsPool), Choices: grid.SlotReadings(),
					Doc: "how the forecasts' processors are planned and priced: pool (each cluster a pool; an allocation takes the cheapest processors at each moment, as if its job could move between them, and the ship rule's condition (1) looks at the whole cluster; our reading) or computer (each processor a computer with its own slots, as in the paper: an allocation holds the same computers throughout and condition (1) looks at its computers; which computer each forecast job is on is our rule, the lowest-numbered free at its start)"},
			},
		},
		New: func() sdk.Policy { return &lookahead{} },
	}
}

type lookahead struct {
	base
	prices    grid.Prices
	slots     grid.Slots
	period    int64
	ship      grid.ShipRule
	rate      bool
	next      int64
	wake      int64
	last      int64 // the time of the last cycle
	started   bool
	forecasts []grid.Forecast
	// refresh, ttl and a1 model stale forecasts; published is when the
	// forecasts were last published, nextPub the next time.
	refresh, ttl int64
	a1           float64
	published    bool
	nextPub      int64
	// With atEnd a cycle's reservations wait in pending until applyAt,
	// the cycle's end; counts are the policy's counts (sdk.Counter).
	atEnd   bool
	pending []pendingReservation
	applyAt int64
	counts  map[string]int64
	// passes counts the global jobs that pass local jobs on forecasts
	// blind to them (claim 11 of the paper); nil when no forecast can be
	// (refresh 0 and cycles that take no time).
	passes *passes
}

// pendingReservation is a reservation a cycle decided, to be made at the
// cycle's end.
type pendingReservation struct {
	job     int // sdk.Job.Index
	cluster int
	at      int64
	cost    float64
	seen    int64 // when the forecast the cycle planned on was published
}

func (p *lookahead) Init(env sdk.Env) error {
	if err := p.init("grid-lookahead", env); err != nil {
		return err
	}
	c := env.Params.Float("c")
	p.prices = grid.Prices{C: make([]float64, len(env.Platform.Clusters)), Idle: env.Params.Float("idle_price")}
	if c < 0 || p.prices.Idle < 0 {
		return fmt.Errorf("grid-lookahead: c (%v) and idle_price (%v) must not be negative", c, p.prices.Idle)
	}
	if err := clusterC(env.Platform, c, env.Params.String("c_clusters"), p.prices.C); err != nil {
		return fmt.Errorf("grid-lookahead: c_clusters: %w", err)
	}
	p.period = env.Params.Int("period")
	if p.period < 1 {
		return fmt.Errorf("grid-lookahead: period must be at least 1 s, got %d", p.period)
	}
	p.ship = grid.ShipRule(env.Params.String("ship"))
	p.slots = grid.Slots(env.Params.String("slots"))
	p.rate = env.Params.String("order") == "rate"
	p.forecasts = make([]grid.Forecast, len(env.Platform.Clusters))
	p.refresh, p.ttl, p.a1 = env.Params.Int("refresh"), env.Params.Int("ttl"), env.Params.Float("a1")
	if p.refresh < 0 || p.ttl < 0 || p.a1 < 0 {
		return fmt.Errorf("grid-lookahead: refresh (%d), ttl (%d) and a1 (%v) must not be negative", p.refresh, p.ttl, p.a1)
	}
	p.atEnd = env.Params.String("apply") == "end"
	p.pending, p.applyAt = p.pending[:0], 0
	p.counts = map[string]int64{}
	p.passes = nil
	if p.refresh > 0 || (p.atEnd && p.a1 > 0) {
		p.passes = newPasses(len(env.Platform.Clusters))
	}
	return nil
}

// Counts returns, with apply = "end", the cycles that took time
// (cycles_timed) and their seconds in all (cycle_seconds), the
// reservations made at a cycle's end (applied), those the engine refused
// then (refused_at_end) and those whose start the job could no longer
// reach (late; none, since allocations start after the cycle's end plus
// the transfer, but checked).
//
// With stale forecasts (refresh) or cycles that take time, it also returns
// the passes of local jobs by global jobs planned on forecasts blind to
// them (passes.count), and with a ttl and an a1 the cycles that broke the
// paper's TTL > 2 CP (ttl_within_2cp: 2 CP >= TTL). On a platform whose
// clusters have features it also counts the global jobs no cluster large
// enough has the features of (rejected_unmatched).
func (p *lookahead) Counts() map[string]int64 {
	counts := p.base.Counts()
	if p.passes != nil {
		p.passes.count(p.counts)
	}
	if !p.atEnd && p.passes == nil && (p.ttl == 0 || p.a1 == 0) {
		return counts
	}
	maps.Copy(p.counts, counts)
	return p.counts
}

func (p *lookahead) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if err := p.begin(s, 0); err != nil {
		return nil, err
	}
	if p.refresh > 0 && (!p.published || s.Now >= p.nextPub) {
		p.publish(s)
		p.published, p.nextPub = true, nextCycle(s.Now, p.refresh)
	}
	if len(p.pending) > 0 {
		if s.Now < p.applyAt {
			// The cycle is still running: its jobs are not the queue's.
			p.global = slices.DeleteFunc(p.global, p.isPending)
		} else {
			p.applyPending(s)
		}
	}
	if len(p.pending) == 0 && (!p.started || s.Now >= p.next) {
		p.started, p.last = true, s.Now
		p.next = nextCycle(s.Now, p.period)
		if err := p.cycle(s); err != nil {
			return nil, err
		}
	}
	from := len(p.out)
	p.runLocal(s, nil)
	if p.passes != nil {
		p.passes.started(p.out[from:], s.Now)
	}
	for _, j := range p.global {
		if j.Submit > p.last {
			// A job no cycle has seen yet: the next cycle is for it.
			p.wake = min(p.wake, p.next)
			break
		}
	}
	if len(p.pending) > 0 {
		p.wake = min(p.wake, p.applyAt)
	}
	if p.wake > s.Now && p.wake != math.MaxInt64 {
		p.out = append(p.out, sdk.WakeAt(p.wake))
	}
	if p.refresh > 0 {
		// The forecasts are published on time, as far as the engine calls
		// the policy: it does only while jobs wait, so after a spell with
		// none, the first forecast comes at the first call.
		p.out = append(p.out, sdk.WakeAt(p.nextPub))
	}
	return p.out, nil
}

// publish makes every cluster publish its forecast now.
func (p *lookahead) publish(s *sdk.State) {
	for c := range p.forecasts {
		p.forecasts[c] = grid.Publish(s, &p.book, c, p.local[c])
	}
}

// cycle is one scheduling cycle. It leaves in p.global the jobs still
// waiting for the next.
func (p *lookahead) cycle(s *sdk.State) error {
	if p.refresh == 0 {
		p.publish(s)
	}
	fs := p.forecasts
	// The cycle lasts CP = A1 x Nz x Ns.
	slots := 0
	for _, f := range fs {
		slots += len(f.Slots)
	}
	cp := int64(math.Ceil(p.a1 * float64(len(p.global)) * float64(slots)))
	if p.ttl > 0 {
		// A forecast that would be older than the ttl when the cycle ends
		// is left out.
		if cp > p.ttl {
			return fmt.Errorf("grid-lookahead: t=%d: a cycle of %d global jobs on %d forecast slots lasts %d s (a1 = %v s), more than the ttl of %d s: no forecast can be used (the paper's condition is CP < TTL)",
				s.Now, len(p.global), slots, cp, p.a1, p.ttl)
		}
		if p.a1 > 0 && 2*cp >= p.ttl {
			p.counts["ttl_within_2cp"]++
		}
		fs = append([]grid.Forecast(nil), fs...)
		for c := range fs {
			fs[c].Off = fs[c].At+p.ttl < s.Now+cp
		}
	}
	// end is when the cycle's decisions take effect: at once, or with
	// apply = "end" when the cycle ends, which its allocations cannot
	// start before.
	end := s.Now
	if p.atEnd {
		end += cp
	}
	m, err := grid.NewMarketOf(p.plat, fs, p.prices, p.slots)
	if err != nil {
		return err
	}
	byPayment(p.global, p.rate)
	waiting := p.global[:0]
	// Without a job ending or arriving, which calls the policy anyway,
	// nothing changes from cycle to cycle but how near each allocation
	// is: the policy wakes at the first cycle at which one becomes near.
	p.wake = math.MaxInt64
	for _, j := range p.global {
		if floor, ok := grid.Floor(p.plat, p.prices, j); !ok || j.Priority < floor {
			p.reject(j)
			continue
		}
		a, ok := m.Search(j, end+j.Transfer, j.Priority)
		if !ok {
			waiting = append(waiting, j)
			continue
		}
		m.Take(a, j.Request[0])
		lead := grid.Lead{Now: end, Start: a.Start, Transfer: j.Transfer, Period: p.period,
			Preceded: m.Preceded(a, fs[a.Cluster].Slots, end)}
		now, err := p.ship.ShipNow(lead)
		if err != nil {
			return err
		}
		if now && end > s.Now {
			p.pending = append(p.pending, pendingReservation{job: j.Index, cluster: a.Cluster, at: a.Start, cost: a.Cost, seen: fs[a.Cluster].At})
			continue
		}
		if now && p.reserve(s, j, a.Cluster, a.Start, a.Cost) {
			p.passed(a.Cluster, fs[a.Cluster].At, s.Now, a.Start)
		} else {
			waiting = append(waiting, j)
			p.wake = min(p.wake, max(p.next, nextCycle(a.Start-j.Transfer-p.period, p.period)))
		}
	}
	p.global = waiting
	if end > s.Now {
		// The next cycle begins no earlier than this one ends, and this
		// one's reservations are made then.
		p.counts["cycles_timed"]++
		p.counts["cycle_seconds"] += end - s.Now
		p.next = max(p.next, end)
		if len(p.pending) > 0 {
			p.applyAt = end
		}
	}
	return nil
}

func (p *lookahead) isPending(j *sdk.Job) bool {
	return slices.ContainsFunc(p.pending, func(r pendingReservation) bool { return r.job == j.Index })
}

// applyPending makes, at the end of a cycle, the reservations it decided,
// against the state now; a job whose reservation is refused, or whose
// start it can no longer reach, goes back to the global queue (p.global).
func (p *lookahead) applyPending(s *sdk.State) {
	byIndex := map[int]*sdk.Job{}
	for _, j := range p.global {
		byIndex[j.Index] = j
	}
	back := false
	for _, r := range p.pending {
		j, ok := byIndex[r.job]
		if !ok {
			continue // not in the queue any more (a pending job cannot start elsewhere)
		}
		if r.at < s.Now+j.Transfer {
			p.counts["late"]++
			back = true
			continue
		}
		p.counts["applied"]++
		if !p.reserve(s, j, r.cluster, r.at, r.cost) {
			p.counts["refused_at_end"]++
			back = true
			continue
		}
		p.passed(r.cluster, r.seen, s.Now, r.at)
	}
	p.pending = p.pending[:0]
	p.global = slices.DeleteFunc(p.global, func(j *sdk.Job) bool { _, held := p.book.Of(j); return held })
	if back {
		// Jobs back in the queue: the next cycle is for them.
		p.wake = min(p.wake, p.next)
	}
}

// passed records a reservation held on cluster c, made at now on a
// forecast published at seen, for the passes count.
func (p *lookahead) passed(c int, seen, now, start int64) {
	if p.passes != nil {
		p.passes.reserved(c, seen, now, start)
	}
}

// clusterC fills cs, indexed like plat.Clusters, with c, then with the
// values of spec ("NAME=VALUE,NAME=VALUE"), each a C of its cluster.
func clusterC(plat *sdk.Platform, c float64, spec string, cs []float64) error {
	for i := range cs {
		cs[i] = c
	}
	if strings.TrimSpace(spec) == "" {
		return nil
	}
	var names []string
	for _, cl := range plat.Clusters {
		names = append(names, cl.Name)
	}
	seen := map[string]bool{}
	for _, pair := range strings.Split(spec, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok {
			return fmt.Errorf("%q is not NAME=VALUE", pair)
		}
		i := slices.Index(names, name)
		if i < 0 {
			return fmt.Errorf("no cluster %q (clusters: %s)", name, strings.Join(names, ", "))
		}
		if seen[name] {
			return fmt.Errorf("cluster %q given twice", name)
		}
		seen[name] = true
		v, err := strconv.ParseFloat(value, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("cluster %s: C must be a number >= 0, got %q", name, value)
		}
		cs[i] = v
	}
	return nil
}
