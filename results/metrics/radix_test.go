package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortKeys checks the radix sort against slices.Sort on keys of every
// width, below and above the length where it starts, with repeated keys,
// digits shared by all keys (skipped passes), an odd and an even number of
// passes, and negative keys (left to slices.Sort).
func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name string
		n    int
		gen  func() int64
	}{
		{"empty", 0, func() int64 { return 0 }},
		{"short", radixMin - 1, func() int64 { return rng.Int64N(1 << 40) }},
		{"equal", radixMin, func() int64 { return 7 }},
		{"zeros", radixMin + 1, func() int64 { return 0 }},
		{"one digit", 3 * radixMin, func() int64 { return rng.Int64N(1 << radixDigit) }},
		{"two digits", 3 * radixMin, func() int64 { return rng.Int64N(1 << (2 * radixDigit)) }},
		{"repeats", 5 * radixMin, func() int64 { return rng.Int64N(50) << 30 }},
		{"high bits only", 3 * radixMin, func() int64 { return rng.Int64N(8) << 60 }},
		{"packed times", 40000, func() int64 { return rng.Int64N(3e7)<<20 | rng.Int64N(1<<20) }},
		{"full width", 20000, func() int64 { return rng.Int64N(math.MaxInt64) }},
		{"max", radixMin, func() int64 { return math.MaxInt64 - rng.Int64N(3) }},
		{"negative", 2 * radixMin, func() int64 { return rng.Int64N(1000) - 10 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys := make([]int64, tc.n)
			for i := range keys {
				keys[i] = tc.gen()
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			sortKeys(keys)
			if !slices.Equal(keys, want) {
				t.Fatalf("%d keys not sorted like slices.Sort", tc.n)
			}
		})
	}
}
