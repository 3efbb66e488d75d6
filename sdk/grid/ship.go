package grid

import "fmt"

// ShipRule says when a global job whose allocation is planned is reserved
// and shipped to its cluster. The paper (section 6, Fig. 3) gives two
// conditions: (1) Tps < Tc, the slot just before the allocation on its
// processors has started («первое условие начала доставки задания
// задается неравенством: Tps<Tc»); (2) Ta - Tc < Tjt, the allocation
// starts within the job's transfer time («Доставка задания инициируется,
// как только (Ta-Tc) становится меньше Tjt»). It calls them the two
// conditions that set the minimal lead, without saying whether either or
// both must hold. The English digest of the seed papers, which is not in
// this repository (../shared/design/seeds.md from its root, section 003:
// "Ship when T_ps < T_c ... and T_a - T_c < T_jt"), reads both. Both
// readings are here, and so is condition (2) read one period early (Near).
type ShipRule string

// The ship rules.
const (
	// ShipEither reserves and ships when condition (1) or condition (2)
	// holds, both as the paper writes them (Within): the paper's
	// inequalities exactly, with our reading of "two conditions" as either.
	// In grid-lookahead an allocation never starts before the job can
	// arrive (Ta >= Tc + Tjt), so condition (2) as written never holds at a
	// cycle, and this rule ships on condition (1) alone.
	ShipEither ShipRule = "either"
	// ShipEitherNext reserves and ships when condition (1) holds or
	// condition (2) will hold before the next cycle (Near): the paper's
	// transfer condition plus one period (the default; before issue 34
	// named "paper").
	ShipEitherNext ShipRule = "either-next"
	// ShipBothNext reserves and ships only when condition (1) holds and
	// Near does (before issue 34 named "paper-and").
	ShipBothNext ShipRule = "both-next"
	// ShipTransferNext uses Near alone: ship at the last cycle that still
	// lets the job arrive in time (before issue 34 named "transfer").
	ShipTransferNext ShipRule = "transfer-next"
	// ShipImmediate reserves and ships as soon as the job has an
	// allocation, the early reservation the paper argues against (it
	// freezes the order of the queue).
	ShipImmediate ShipRule = "immediate"
)

// ShipRules lists the rules, for a policy parameter's choices.
func ShipRules() []string {
	return []string{string(ShipEither), string(ShipEitherNext), string(ShipBothNext), string(ShipTransferNext), string(ShipImmediate)}
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
	// forecast starts before Ta on the allocation's processors has started
	// (Market.Preceded). On a cluster whose processors are a pool, the
	// processors of an allocation are not told apart, so every forecast
	// slot of the cluster that starts before Ta counts (PrecededAll); on
	// computers, those on the allocation's computers.
	Preceded bool
}

// Within reports condition (2) as the paper writes it: Ta - Tc < Tjt.
// Taken literally it holds only once the job can no longer arrive by Ta.
func (l Lead) Within() bool { return l.Start-l.Now < l.Transfer }

// Near reports condition (2) one period early, as a cycle can act on it:
// the next cycle, Period later, would be too late for the job to arrive by
// Ta (Ta - Tc < Tjt + Period), so it ships at the last cycle at which the
// job still can. This is our reading, not the paper's inequality.
func (l Lead) Near() bool { return l.Start-l.Now < l.Transfer+l.Period }

// ShipNow reports whether rule ships the job now.
func (r ShipRule) ShipNow(l Lead) (bool, error) {
	switch r {
	case ShipEither:
		return l.Preceded || l.Within(), nil
	case ShipEitherNext:
		return l.Preceded || l.Near(), nil
	case ShipBothNext:
		// A job that is near but not preceded is not shipped: its
		// allocation moves later at the next cycle.
		return l.Preceded && l.Near(), nil
	case ShipTransferNext:
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
