package groupsel

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"
)

// ErrTooLarge: the rank approach keeps a selection in one machine word, so
// it takes at most 64 variables (the branch and bound takes any number).
var ErrTooLarge = errors.New("the rank approach takes at most 64 variables")

// path is a partial selection of the rank approach: the graph's path from
// the fictitious vertex s through the selected variables in increasing
// order, ending at last.
type path struct {
	mask  uint64
	last  int
	value float64 // maximised objective of the selection
}

// Rank solves the instance with the paper's rank approach. Rank r holds the
// paths of r selected variables; rank r+1 extends each of them by every
// variable after its last (the recurrence (8) of the paper), adding the
// terms that the new variable completes to the path's two lengths (the
// objective, d_c, and each constraint's left-hand side, d_a). An extension
// is cut when no further extension could satisfy some constraint: for a
// capacity (<= with non-negative coefficients, the paper's case) when it
// exceeds it (rule 1). Rule 2, "the path is not unique", never fires, since
// each selection has one increasing path. The best path of each rank is its
// local optimum and the best of them, in the order of solutions (Better),
// the global one. Each rank's extensions run on opts.Workers goroutines
// over consecutive slices of its paths, merged in order: the result and
// every count are the same for any number of workers.
func Rank(in *Instance, opts Options) (*Solution, error) {
	p, err := compile(in, opts)
	if err != nil {
		return nil, err
	}
	if p.n > 64 {
		return nil, fmt.Errorf("%w: the instance has %d", ErrTooLarge, p.n)
	}
	workers := max(opts.Workers, 1)
	budget := opts.MaxPaths
	if budget <= 0 {
		budget = DefaultMaxPaths
	}
	m := len(p.bound)
	masks := make([]uint64, len(p.terms))
	for t, vars := range p.terms {
		for _, v := range vars {
			masks[t] |= 1 << v
		}
	}
	st := Stats{Method: MethodRank, Workers: workers}

	// Rank 0: the fictitious vertex s, the empty selection with the
	// constant terms.
	root := path{last: -1}
	rootLHS := make([]float64, m)
	for _, t := range p.constant {
		root.value += p.obj[t]
		for _, k := range p.coefs[t] {
			rootLHS[k.Term] += k.Value
		}
	}
	var best *candidate
	consider := func(c *candidate) {
		if best == nil || p.better(c.value, c.lhs, c.set, best.value, best.lhs, best.set) {
			best = c
		}
	}
	rs := RankStats{Rank: 0, Paths: 1}
	if !p.canSatisfy(masks, 0, -1, rootLHS) {
		return nil, ErrInfeasible
	}
	if p.feasible(rootLHS) {
		st.Feasible++
		c := &candidate{set: []uint64{0}, value: root.value, lhs: rootLHS}
		consider(c)
		v := external(in, c.value)
		rs.Best = &v
	}
	st.Ranks = append(st.Ranks, rs)
	st.Paths = 1

	// A rank's paths are the workers' outputs of the rank before, kept as
	// they are (segments, in order) rather than copied into one slice.
	cur := []segment{{paths: []path{root}, lhs: rootLHS}}
	total := 1
	for r := 1; total > 0; r++ {
		parts := split(total, workers)
		outs := make([]*extension, len(parts))
		var wg sync.WaitGroup
		for w, part := range parts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[w] = p.extend(masks, view(cur, part[0], part[1], m), budget-int(st.Paths))
			}()
		}
		wg.Wait()
		// stop returns, beside ErrBudget, the best selection met so far
		// (this rank's outputs included) and a bound on the optimum:
		// every selection not yet met extends a path of the rank before.
		stop := func() (*Solution, error) {
			err := fmt.Errorf("%w: more than %d paths by rank %d (Options.MaxPaths; the branch and bound needs none)", ErrBudget, budget, r)
			for _, o := range outs {
				if o.best != nil {
					consider(o.best)
				}
			}
			if best == nil {
				return nil, err
			}
			return stopped(in, best, st, p.frontierBound(masks, cur)), err
		}
		rs := RankStats{Rank: r}
		next := make([]segment, 0, len(outs))
		var local *candidate
		for _, o := range outs {
			if o.overflow {
				return stop()
			}
			next = append(next, segment{paths: o.paths, lhs: o.lhs})
			rs.Paths += int64(len(o.paths))
			rs.Cuts += o.cuts
			st.TermEvals += o.evals
			st.Feasible += o.feasible
			if o.best != nil && (local == nil || p.better(o.best.value, o.best.lhs, o.best.set, local.value, local.lhs, local.set)) {
				local = o.best
			}
		}
		st.Paths += rs.Paths
		st.Cuts += rs.Cuts
		if st.Paths > int64(budget) {
			return stop()
		}
		if local != nil {
			consider(local)
			v := external(in, local.value)
			rs.Best = &v
		}
		if rs.Paths > 0 || rs.Cuts > 0 {
			st.Ranks = append(st.Ranks, rs)
		}
		cur, total = next, int(rs.Paths)
	}
	if best == nil {
		return nil, ErrInfeasible
	}
	return solution(in, best, st), nil
}

// frontierBound bounds the objective of every extension of the paths of
// segs: a path ending at last can still gain only the positive terms that
// hold a variable after last (a term of its own variables alone is active
// already or never will be), so the bound is the path's value plus those.
func (p *problem) frontierBound(masks []uint64, segs []segment) float64 {
	// gain[q+1]: the positive terms holding a variable after q.
	gain := make([]float64, p.n+1)
	for t, m := range masks {
		if p.obj[t] > 0 && m != 0 {
			top := 63 - bits.LeadingZeros64(m) // the term's last variable
			for q := -1; q < top; q++ {
				gain[q+1] += p.obj[t]
			}
		}
	}
	b := math.Inf(-1)
	for _, sg := range segs {
		for _, pa := range sg.paths {
			b = max(b, pa.value+gain[pa.last+1])
		}
	}
	return b
}

// segment is consecutive paths of a rank with their left-hand sides.
type segment struct {
	paths []path
	lhs   []float64
}

// view returns the paths [from, to) of a rank held in segments, as
// sub-slices of them (no copy).
func view(segs []segment, from, to, m int) []segment {
	var out []segment
	at := 0
	for _, sg := range segs {
		lo, hi := max(from-at, 0), min(to-at, len(sg.paths))
		if lo < hi {
			out = append(out, segment{paths: sg.paths[lo:hi], lhs: sg.lhs[lo*m : hi*m]})
		}
		at += len(sg.paths)
	}
	return out
}

// extension is what one worker made of a slice of a rank's paths.
type extension struct {
	paths                 []path
	lhs                   []float64
	cuts, evals, feasible int64
	best                  *candidate
	overflow              bool
}

// extend extends each path of the segments by every variable after its
// last, keeping at most room paths.
func (p *problem) extend(masks []uint64, segs []segment, room int) *extension {
	m := len(p.bound)
	// At most one extension per variable after each path's last: sized
	// once, the slices never grow (growing them was most of the time).
	room = min(room, func() int {
		n := 0
		for _, sg := range segs {
			for _, pa := range sg.paths {
				n += p.n - 1 - pa.last
			}
		}
		return n
	}())
	out := &extension{paths: make([]path, 0, room), lhs: make([]float64, 0, room*m)}
	tmp := make([]float64, m)
	for _, sg := range segs {
		for i, pa := range sg.paths {
			if p.extendPath(masks, pa, sg.lhs[i*m:(i+1)*m], tmp, out, room) {
				return out
			}
		}
	}
	return out
}

// extendPath extends one path into out; it reports whether out is full.
func (p *problem) extendPath(masks []uint64, pa path, lhs, tmp []float64, out *extension, room int) bool {
	for q := pa.last + 1; q < p.n; q++ {
		mask := pa.mask | 1<<q
		v := pa.value
		copy(tmp, lhs)
		for _, t := range p.termsOf[q] {
			out.evals++
			if masks[t]&^mask == 0 {
				v += p.obj[t]
				for _, k := range p.coefs[t] {
					tmp[k.Term] += k.Value
				}
			}
		}
		if !p.canSatisfy(masks, mask, q, tmp) {
			out.cuts++
			continue
		}
		if len(out.paths) >= room {
			out.overflow = true
			return true
		}
		out.paths = append(out.paths, path{mask: mask, last: q, value: v})
		out.lhs = append(out.lhs, tmp...)
		if p.feasible(tmp) {
			out.feasible++
			if out.best == nil || p.betterMask(v, tmp, mask, out.best) {
				out.best = &candidate{set: []uint64{mask}, value: v, lhs: append([]float64(nil), tmp...)}
			}
		}
	}
	return false
}

// betterMask is better for a selection held in one word, without
// allocating: it runs for every feasible path.
func (p *problem) betterMask(v float64, lhs []float64, mask uint64, b *candidate) bool {
	if v != b.value {
		return v > b.value
	}
	if c := p.useKey(lhs, b.lhs); c != 0 {
		return c < 0
	}
	d := mask ^ b.set[0]
	return mask&(d&-d) != 0
}

// canSatisfy reports whether some extension of the selection mask, whose
// variables after last are still open, can satisfy every constraint given
// the left-hand sides lhs of mask itself. A capacity only grows as
// variables are added, so it needs lhs within bound; other constraints
// need their bound within the range the open terms can still reach.
func (p *problem) canSatisfy(masks []uint64, mask uint64, last int, lhs []float64) bool {
	for c, ok := range p.monotone {
		if ok && !satisfied(lhs[c], LE, p.bound[c]) {
			return false
		}
	}
	if p.allMonotone {
		return true
	}
	lo, hi := append([]float64(nil), lhs...), append([]float64(nil), lhs...)
	closed := uint64(1)<<(last+1) - 1 // the variables up to last are decided
	for t, tm := range masks {
		missing := tm &^ mask
		if missing == 0 || missing&closed != 0 {
			continue // active already, or never
		}
		for _, k := range p.coefs[t] {
			if k.Value < 0 {
				lo[k.Term] += k.Value
			} else {
				hi[k.Term] += k.Value
			}
		}
	}
	for c := range p.bound {
		if p.monotone[c] {
			continue
		}
		b, eps := p.bound[c], 1e-9*max(1, abs(p.bound[c]))
		switch p.rel[c] {
		case LE:
			if lo[c] > b+eps {
				return false
			}
		case GE:
			if hi[c] < b-eps {
				return false
			}
		case EQ:
			if lo[c] > b+eps || hi[c] < b-eps {
				return false
			}
		}
	}
	return true
}

func (p *problem) feasible(lhs []float64) bool {
	for c, v := range lhs {
		if !satisfied(v, p.rel[c], p.bound[c]) {
			return false
		}
	}
	return true
}

// split cuts n items into at most w consecutive [from, to) parts of
// nearly equal size.
func split(n, w int) [][2]int {
	w = max(1, min(w, n))
	out := make([][2]int, 0, w)
	for i := range w {
		out = append(out, [2]int{i * n / w, (i + 1) * n / w})
	}
	return out
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
