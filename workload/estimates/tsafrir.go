// Package estimates models user runtime estimates (requested walltimes):
// the model of Tsafrir, Etsion & Feitelson, "Modeling user runtime
// estimates" (JSSPP 2005), as the authors' est_model.cc draws it, and the
// f-model of the backfilling literature (estimate = runtime x U(1, f)).
// Both give every job an estimate at least its runtime.
package estimates

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Bin is one estimate value of a distribution and the number of jobs given
// it.
type Bin struct {
	Seconds int64
	Jobs    int
}

// Tsafrir is the parameters of the model; Published gives the authors'
// defaults. The model has no site-specific hints ("user bins"): every bin
// comes from the model.
type Tsafrir struct {
	// MaxEstimate is the largest estimate allowed, in seconds (at least an
	// hour); by the model's finding, the most popular estimate.
	MaxEstimate int64
	// Bins is the number of distinct estimates; 0 takes the model's
	// piecewise-linear function of the number of jobs.
	Bins int
	// HeadSum is the percentage of jobs using one of the 20 most popular
	// estimates (89).
	HeadSum float64
	// HeadA, HeadB, HeadC give the percentage of the estimate of
	// popularity rank x = 2..20: HeadA * exp(HeadB * x) + HeadC; rank 1
	// (the maximum) takes the rest of HeadSum.
	HeadA, HeadB, HeadC float64
	// TailA, TailB give the sizes of the estimates of popularity rank 21
	// on: TailA * x^TailB, scaled to 100 - HeadSum in all.
	TailA, TailB float64
	// TimeParam is a in the model of the tail's values, relative time
	// y = (a-1) x / (a-x) of relative time rank x; 0 takes
	// 1 + 12.1039 * Bins^-0.6026.
	TimeParam float64
}

// Published returns the model's default parameters (est_model.hh), without
// a maximal estimate.
func Published() Tsafrir {
	return Tsafrir{HeadSum: 89, HeadA: 14.0491, HeadB: -0.177531, HeadC: 0.462513, TailA: 795.6, TailB: -2.267}
}

const (
	minute = 60
	hour   = 3600
	// top is the number of popular ("head") estimates.
	top = 20
)

// timeToPopularity holds, for each of the 20 head estimates in order of
// time (0 the maximum, then ascending), its popularity rank in the four
// logs the model was fitted on (SDSC, CTC, KTH, Blue Horizon):
// TIMRNK_TO_POPRNK of est_model.cc.
var timeToPopularity = [top][4]int{
	{3, 1, 1, 1}, {1, 3, 4, 6}, {4, 4, 10, 5}, {17, 2, 14, 3}, {13, 12, 20, 7},
	{7, 9, 2, 2}, {8, 8, 3, 18}, {18, 18, 7, 19}, {2, 6, 12, 4}, {6, 7, 6, 11},
	{16, 11, 19, 20}, {10, 20, 5, 9}, {5, 16, 18, 10}, {15, 5, 16, 14}, {14, 14, 9, 13},
	{19, 13, 17, 16}, {11, 10, 15, 15}, {12, 15, 13, 17}, {9, 17, 8, 8}, {20, 19, 11, 12},
}

// jointEstimates are the 15 head estimates common to the four logs.
var jointEstimates = []int64{5 * minute, 15 * minute, 10 * minute, 20 * minute, 30 * minute,
	hour, 2 * hour, 3 * hour, 4 * hour, 5 * hour, 6 * hour, 8 * hour, 10 * hour, 12 * hour, 18 * hour}

// roundEstimates complete the head: multiples of each, down from the
// maximum, until there are 20.
var roundEstimates = []int64{200 * hour, 100 * hour, 50 * hour, 10 * hour, 5 * hour, 2 * hour, hour,
	20 * minute, 10 * minute, 5 * minute}

// binsByJobs is the model's piecewise-linear number of distinct estimates
// as a function of the number of jobs.
var binsByJobs = [][2]int{{0, 0}, {20, 10}, {200, 20}, {1000, 35}, {10000, 90}, {70000, 340}, {250000, 565}}

// BinsFor is the model's number of distinct estimates for n jobs.
func BinsFor(n int) int {
	last := binsByJobs[len(binsByJobs)-1]
	if n > last[0] {
		return last[1]
	}
	k := 1
	for k < len(binsByJobs)-1 && n > binsByJobs[k][0] {
		k++
	}
	a, b := binsByJobs[k-1], binsByJobs[k]
	slope := float64(b[1]-a[1]) / float64(b[0]-a[0])
	return a[1] + int(math.Round(float64(n-a[0])*slope))
}

// Head returns the head estimates: the maximum first, then the joint
// estimates below it and round values down from it, ascending, at most 20.
func (m Tsafrir) Head() []int64 {
	v := []int64{m.MaxEstimate}
	for _, e := range jointEstimates {
		if e < m.MaxEstimate {
			v = append(v, e)
		}
	}
	for _, mul := range roundEstimates {
		if len(v) >= top {
			break
		}
		for est := (m.MaxEstimate / mul) * mul; est > 0 && len(v) < top; est -= mul {
			if !slices.Contains(v, est) {
				v = append(v, est)
			}
		}
	}
	slices.Sort(v[1:])
	return v
}

// headSizes returns the percentages of the n head estimates by popularity
// rank, largest first.
func (m Tsafrir) headSizes(n int) ([]float64, error) {
	s := make([]float64, n)
	sum := 0.0
	for i := 1; i < n; i++ {
		s[i] = m.HeadA*math.Exp(m.HeadB*float64(i+1)) + m.HeadC
		sum += s[i]
	}
	s[0] = m.HeadSum - sum
	if s[0] <= 0 {
		return nil, fmt.Errorf("the head's ranks 2 to %d take %.2f %%, more than head_sum %.2f %%", n, sum, m.HeadSum)
	}
	slices.SortFunc(s, func(a, b float64) int { return cmp.Compare(b, a) })
	return s, nil
}

// popularity maps each of the n head estimates, by time rank (0 the
// maximum), to a popularity rank 1..n as the model does: the maximum is
// the most popular; a rank whose last appearance in the four logs' table
// is at or before this time rank is due and taken first (smallest first);
// otherwise the smaller of two draws from the ranks the logs show at this
// time rank or before, not yet taken. With fewer than 20 head estimates
// (a maximum under a few hours) only ranks up to n are used, and a time
// rank left without candidates takes the smallest rank left (our rule:
// est_model.cc reads past its arrays there).
func popularity(n int, rng *rand.Rand) []int {
	bound := map[int]int{}
	for ttr := top - 1; ttr >= 0; ttr-- {
		for _, pr := range timeToPopularity[ttr] {
			if _, ok := bound[pr]; !ok {
				bound[pr] = ttr
			}
		}
	}
	chosen := make([]bool, n+1)
	var pool []int
	out := make([]int, n)
	for ttr := range n {
		for _, pr := range timeToPopularity[ttr] {
			if pr <= n && !chosen[pr] {
				pool = append(pool, pr)
			}
		}
		pr := -1
		if ttr == 0 {
			pr = 1
		}
		for r := 1; pr < 0 && r <= n; r++ {
			if bound[r] <= ttr && !chosen[r] {
				pr = r
			}
		}
		if pr < 0 && len(pool) > 0 {
			for range 2 {
				if c := pool[rng.IntN(len(pool))]; pr < 0 || c < pr {
					pr = c
				}
			}
		}
		for r := 1; pr < 0 && r <= n; r++ {
			if !chosen[r] {
				pr = r
			}
		}
		out[ttr] = pr
		chosen[pr] = true
		pool = slices.DeleteFunc(pool, func(x int) bool { return x == pr })
	}
	return out
}

// Distribution draws the model's estimate distribution for n jobs: the
// head's 20 values and sizes, matched by popularity; the tail's values
// from the time model and sizes from the power model, matched at random;
// percentages turned into job counts (at least one job a value) and
// equalised to n.
func (m Tsafrir) Distribution(n int, rng *rand.Rand) ([]Bin, error) {
	if m.MaxEstimate < hour {
		return nil, fmt.Errorf("the maximal estimate is %d s; the model needs at least an hour", m.MaxEstimate)
	}
	if n < 1 {
		return nil, errors.New("no jobs")
	}
	bins := m.Bins
	if bins <= 0 {
		bins = BinsFor(n)
	}
	a := m.TimeParam
	if a <= 1 {
		a = 1 + 12.1039*math.Pow(float64(bins), -0.6026)
	}
	head := m.Head()
	sizes, err := m.headSizes(len(head))
	if err != nil {
		return nil, err
	}
	pct := map[int64]float64{}
	for i, pr := range popularity(len(head), rng) {
		pct[head[i]] = sizes[pr-1]
	}

	// The tail: times from the model, away from the head's and each other.
	var tail []int64
	nt := bins - len(head)
	for i := 1; i <= nt; i++ {
		x := float64(i) / float64(nt)
		y := (a - 1) * x / (a - x)
		sec := int64(math.Round(y*float64(m.MaxEstimate)/minute)) * minute
		for _, off := range []int64{0, 30, -30, 20, -20, 10, -10} {
			s := sec + off
			if _, taken := pct[s]; !taken && !slices.Contains(tail, s) && s > 0 && s < m.MaxEstimate {
				tail = append(tail, s)
				break
			}
		}
	}
	slices.Sort(tail)
	tsizes := make([]float64, len(tail))
	sum := 0.0
	for i := range tsizes {
		tsizes[i] = m.TailA * math.Pow(float64(top+1+i), m.TailB)
		sum += tsizes[i]
	}
	for i := range tsizes {
		tsizes[i] *= (100 - m.HeadSum) / sum
	}
	rng.Shuffle(len(tail), func(i, j int) { tail[i], tail[j] = tail[j], tail[i] })
	rng.Shuffle(len(tsizes), func(i, j int) { tsizes[i], tsizes[j] = tsizes[j], tsizes[i] })
	for i, s := range tail {
		pct[s] = tsizes[i]
	}

	out := make([]Bin, 0, len(pct))
	for s, p := range pct {
		out = append(out, Bin{Seconds: s, Jobs: max(1, int(math.Round(p*float64(n)/100)))})
	}
	slices.SortFunc(out, func(x, y Bin) int { return cmp.Compare(x.Seconds, y.Seconds) })
	if err := equalise(out, n); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(out, func(b Bin) bool { return b.Jobs == 0 }), nil
}

// equalise adds or takes jobs so that the bins hold n, as est_model.cc's
// adjust_njobs does: from the largest bin down (ties by time), first in
// proportion to each bin's size, then one a bin, then down to one a bin,
// then to none.
func equalise(bins []Bin, n int) error {
	total := 0
	for _, b := range bins {
		total += b.Jobs
	}
	diff, sign := n-total, 1
	if diff < 0 {
		diff, sign = -diff, -1
	}
	order := make([]int, len(bins))
	for attempt := 0; diff != 0; attempt++ {
		if attempt > 3 {
			return fmt.Errorf("estimates: %d jobs left over after equalising the distribution", diff)
		}
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(bins[y].Jobs, bins[x].Jobs) })
		f := float64(diff) / float64(total)
		for _, i := range order {
			nj := bins[i].Jobs
			if nj == 0 {
				continue
			}
			var adj int
			switch attempt {
			case 0:
				adj = int(math.Ceil(f * float64(nj)))
			case 1:
				adj = 1
			case 2:
				adj = nj - 1
			default:
				adj = nj
			}
			if sign < 0 {
				adj = min(adj, nj)
				if adj == nj && attempt != 3 {
					adj--
				}
			}
			adj = min(adj, diff)
			bins[i].Jobs += sign * adj
			if diff -= adj; diff == 0 {
				break
			}
		}
	}
	return nil
}

// ErrCannotCover is returned by Assign when the estimates cannot all be at
// least the runtimes they go to.
var ErrCannotCover = errors.New("the estimates cannot cover the runtimes")

// Assign gives each job an estimate of the distribution (one per job), at
// least its runtime, as est_model.cc does: jobs by decreasing runtime (ties
// by index), each drawing uniformly among the estimates left that are at
// least its runtime and no larger than needed to leave the jobs after it
// covered. runtimes above the largest estimate count as the largest.
func Assign(bins []Bin, runtimes []int64, rng *rand.Rand) ([]int64, error) {
	var ests []int64
	for _, b := range bins {
		for range b.Jobs {
			ests = append(ests, b.Seconds)
		}
	}
	if len(ests) != len(runtimes) {
		return nil, fmt.Errorf("estimates: %d estimates for %d jobs", len(ests), len(runtimes))
	}
	slices.SortFunc(ests, func(a, b int64) int { return cmp.Compare(b, a) })
	maxest := int64(0)
	if len(ests) > 0 {
		maxest = ests[0]
	}
	order := make([]int, len(runtimes))
	for i := range order {
		order[i] = i
	}
	rt := func(i int) int64 { return min(runtimes[i], maxest) }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rt(b), rt(a)) })
	for k, i := range order {
		if rt(i) > ests[k] {
			return nil, fmt.Errorf("%w: the %d-th longest job runs %d s, its estimate would be %d s (raise the maximal estimate)",
				ErrCannotCover, k+1, rt(i), ests[k])
		}
	}
	out := make([]int64, len(runtimes))
	for j, hi := 0, 0; j < len(order); j++ {
		r := rt(order[j])
		for hi < len(ests)-1 && r <= ests[hi+1] {
			hi++
		}
		k := j + rng.IntN(hi-j+1)
		out[order[j]] = ests[k]
		ests[k], ests[j] = ests[j], ests[k]
	}
	return out, nil
}
