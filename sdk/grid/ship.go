package grid

import "fmt"

// ShipRule says when a global job whose allocation is planned is reserved
// and shipped to its cluster. The paper (section 6) gives two conditions on
// the lead time: (1) Tps < Tc, the local job that precedes the allocation
// on its processors has started; (2) Ta - Tc < Tjt, the allocation starts
// within the job's transfer time. Its text reads as either condition
// triggering the shipment ("the minimal lead is set by two conditions"),
// its digest as both; both are here.
type ShipRule string

// The ship rules.
const (
	// ShipPaper reserves and ships when either condition holds (the
	// default reading).
	ShipPaper ShipRule = "paper"
	// ShipPaperAnd reserves and ships only when both hold.
	ShipPaperAnd ShipRule = "paper-and"
	// ShipTransfer uses condition (2) alone: ship at the last cycle that
	// still lets the job arrive in time.
	ShipTransfer ShipRule = "transfer"
	// ShipImmediate reserves and ships as soon as the job has an
	// allocation, the early reservation the paper argues against (it
	// freezes the order of the queue).
	ShipImmediate ShipRule = "immediate"
)

// ShipRules lists the rules, for a policy parameter's choices.
func ShipRules() []string {
	return []string{string(ShipPaper), string(ShipPaperAnd), string(ShipTransfer), string(ShipImmediate)}
}

// Lead is what the ship rule looks at, at the start Tc of a cycle, for an
// allocation that starts at Ta.
type Lead struct {
	// Now is Tc, the cycle's time; Start is Ta.
	Now, Start int64
	// Transfer is the job's transfer time Tjt; Period the time to the next
	// cycle.
	Transfer, Period int64
	// Preceded reports condition (1): every local job the cluster's
	// forecast starts before Ta has started. On a cluster whose processors
	// are a pool, the processors of an allocation are not told apart, so
	// every forecast slot of the cluster that starts before Ta counts
	// (PrecededAll).
	Preceded bool
}

// Near reports condition (2) as the cycle can act on it: the next cycle,
// Period later, would be too late for the job to arrive by Ta. The paper
// writes Ta - Tc < Tjt, which taken literally ships once the job can no
// longer arrive in time; this reading ships at the last cycle at which it
// still can.
func (l Lead) Near() bool { return l.Start-l.Now < l.Transfer+l.Period }

// ShipNow reports whether rule ships the job now.
func (r ShipRule) ShipNow(l Lead) (bool, error) {
	switch r {
	case ShipPaper:
		return l.Preceded || l.Near(), nil
	case ShipPaperAnd:
		// A job that is near but not preceded is not shipped: its
		// allocation moves later at the next cycle.
		return l.Preceded && l.Near(), nil
	case ShipTransfer:
		return l.Near(), nil
	case ShipImmediate:
		return true, nil
	}
	return false, fmt.Errorf("grid: unknown ship rule %q (want one of %v)", string(r), ShipRules())
}

// PrecededAll reports condition (1) on a pool of processors: no slot of
// forecast starts after now and before start.
func PrecededAll(forecast []Slot, now, start int64) bool {
	for _, s := range forecast {
		if s.Start > now && s.Start < start {
			return false
		}
	}
	return true
}
