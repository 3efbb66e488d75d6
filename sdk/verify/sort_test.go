package verify

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortChanges checks that the packed sort of changes gives the order of
// compareChanges, on random pieces of starts and ends, with negative times
// and with times too far apart to pack (the comparison sort then).
func TestSortChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := range 2000 {
		n := 1 + rng.IntN(50)
		span := int64(1 + rng.IntN(100))
		switch it % 4 {
		case 1:
			span = math.MaxInt64 / 4 // wider than 63 bits leave for times
		case 2:
			span = 1 << 40
		}
		var ch []change
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for i := range n {
			if rng.IntN(3) == 0 {
				continue // a job of another piece
			}
			start := rng.Int64N(span) - span/2
			end := start + 1 + rng.Int64N(10)
			ch = append(ch, change{start, 1, int32(i)}, change{end, -1, int32(i)})
			lo, hi = min(lo, start), max(hi, end)
		}
		rng.Shuffle(len(ch), func(a, b int) { ch[a], ch[b] = ch[b], ch[a] })
		want := slices.Clone(ch)
		slices.SortFunc(want, compareChanges)
		got := slices.Clone(ch)
		sortChanges(got, lo, hi, n, nil, true)
		if !slices.Equal(got, want) {
			t.Fatalf("iteration %d (span %d): packed sort\n%v\nwant\n%v", it, span, got, want)
		}
	}
}
