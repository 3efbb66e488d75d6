package broker

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// passes counts the global jobs that pass local jobs out of turn
// (Kovalenko et al. 2006, section 6.1: with TTL equal to the shortest job,
// «локальное задание пропустит не более одного глобального задания вне
// очереди», a local job lets at most one global job ahead). A global job
// passes local job l when it was reserved on l's cluster at a time at
// which l waited, by a cycle whose forecast of that cluster was published
// before l was submitted (so the plan could not see l), and its
// reservation starts before l does. With fresh forecasts and cycles that
// take no time no forecast is ever blind, and nothing is counted.
type passes struct {
	blind  [][]blindReservation // per cluster, in order of reservation
	locals [][]localStart       // per cluster
}

// blindReservation is a global job's reservation made at reserved, on a
// forecast published at seen < reserved, to start at start.
type blindReservation struct {
	seen, reserved, start int64
}

// localStart is a local job's submission and start.
type localStart struct {
	submit, start int64
}

func newPasses(clusters int) *passes {
	return &passes{blind: make([][]blindReservation, clusters), locals: make([][]localStart, clusters)}
}

// reserved records a reservation on cluster c made at now, on a forecast
// published at seen, starting at start.
func (ps *passes) reserved(c int, seen, now, start int64) {
	if seen < now {
		ps.blind[c] = append(ps.blind[c], blindReservation{seen: seen, reserved: now, start: start})
	}
}

// started records the local jobs among the decisions.
func (ps *passes) started(ds []sdk.Decision, now int64) {
	for _, d := range ds {
		if d.Action != sdk.ActionStart {
			continue
		}
		if c, ok := d.Job.HomeCluster(); ok {
			ps.locals[c] = append(ps.locals[c], localStart{submit: d.Job.Submit, start: now})
		}
	}
}

// count sets in counts the local jobs started that were passed by at least
// one global job (local_passed) and by two or more (local_passed_2), the
// passes in all (passes) and the most any one local job had (passes_max).
func (ps *passes) count(counts map[string]int64) {
	var passed, passed2, total, most int64
	for c, blind := range ps.blind {
		// Reservations are recorded in time order; the forecasts they used
		// are at most a ttl (or a cycle) old, so the reservations that can
		// pass a job submitted at t are those made from t on with seen < t.
		for _, l := range ps.locals[c] {
			from, _ := slices.BinarySearchFunc(blind, l.submit, func(b blindReservation, t int64) int { return cmp.Compare(b.reserved, t) })
			n := int64(0)
			for _, b := range blind[from:] {
				if b.reserved >= l.start {
					break
				}
				if b.seen < l.submit && b.start < l.start {
					n++
				}
			}
			if n > 0 {
				passed++
				total += n
			}
			if n > 1 {
				passed2++
			}
			most = max(most, n)
		}
	}
	counts["local_passed"], counts["local_passed_2"], counts["passes"], counts["passes_max"] = passed, passed2, total, most
}
