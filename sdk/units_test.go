package sdk_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
)

func TestPiecesFitAndPlace(t *testing.T) {
	for _, tc := range []struct {
		name    string
		free    []int64
		n, size int64
		fits    bool
		place   []int32 // best fit; nil when it does not fit
	}{
		{"nothing to place", []int64{0, 0}, 0, 0, true, []int32{0, 0}},
		{"one unit holds all", []int64{40, 40}, 4, 10, true, []int32{4, 0}},
		// Best fit fills the unit with less free space (25: two pieces of
		// 10) before the larger one (35).
		{"least free first", []int64{35, 25}, 3, 10, true, []int32{1, 2}},
		{"ties to the lower index", []int64{30, 30, 30}, 4, 10, true, []int32{3, 1, 0}},
		// 3 x 15 = 45 free in total, but no unit holds two pieces.
		{"no split: totals are not enough", []int64{15, 15, 15}, 4, 10, false, nil},
		{"a unit too small for one piece", []int64{9, 40}, 4, 10, true, []int32{0, 4}},
		{"exactly full", []int64{20, 20}, 4, 10, true, []int32{2, 2}},
		{"one piece too many", []int64{20, 20}, 5, 10, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sdk.PiecesFit(tc.free, tc.n, tc.size); got != tc.fits {
				t.Errorf("PiecesFit = %v, want %v", got, tc.fits)
			}
			dst := make([]int32, len(tc.free))
			ok := sdk.PlacePieces(dst, tc.free, tc.n, tc.size)
			if ok != tc.fits {
				t.Fatalf("PlacePieces ok = %v, want %v", ok, tc.fits)
			}
			if ok && !slices.Equal(dst, tc.place) {
				t.Errorf("PlacePieces = %v, want %v", dst, tc.place)
			}
		})
	}
}

// TestPlacePiecesAgreesWithFit checks, on every small case, that PlacePieces
// succeeds exactly when PiecesFit says the pieces fit, and that its placement
// is valid.
func TestPlacePiecesAgreesWithFit(t *testing.T) {
	for a := int64(0); a <= 7; a++ {
		for b := int64(0); b <= 7; b++ {
			for c := int64(0); c <= 7; c++ {
				free := []int64{a, b, c}
				for size := int64(1); size <= 4; size++ {
					for n := int64(0); n <= 8; n++ {
						dst := make([]int32, 3)
						ok := sdk.PlacePieces(dst, free, n, size)
						if ok != sdk.PiecesFit(free, n, size) {
							t.Fatalf("free %v, %d pieces of %d: PlacePieces %v, PiecesFit disagrees", free, n, size, ok)
						}
						if !ok {
							continue
						}
						var sum int64
						for k, x := range dst {
							if int64(x)*size > free[k] {
								t.Fatalf("free %v, %d pieces of %d: %v overfills unit %d", free, n, size, dst, k)
							}
							sum += int64(x)
						}
						if sum != n {
							t.Fatalf("free %v, %d pieces of %d: %v places %d", free, n, size, dst, sum)
						}
					}
				}
			}
		}
	}
}

func TestUnitsPieces(t *testing.T) {
	u := sdk.Units{Resource: 1, PiecesBy: 0, Capacity: []int64{40, 40}}
	for _, tc := range []struct {
		req     sdk.Vector
		n, size int64
		err     string
	}{
		{sdk.Vector{4, 40}, 4, 10, ""},
		{sdk.Vector{4, 0}, 0, 0, ""},
		{sdk.Vector{0, 0}, 0, 0, ""},
		{sdk.Vector{3, 40}, 0, 0, "not a multiple of its 3 pieces"},
		{sdk.Vector{0, 40}, 0, 0, "in 0 pieces"},
	} {
		n, size, err := u.Pieces(tc.req)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Pieces(%v) error %v, want %q", tc.req, err, tc.err)
			}
			continue
		}
		if err != nil || n != tc.n || size != tc.size {
			t.Errorf("Pieces(%v) = %d, %d, %v; want %d, %d", tc.req, n, size, err, tc.n, tc.size)
		}
	}
}

func TestValidateUnits(t *testing.T) {
	base := func() *sdk.Platform {
		return &sdk.Platform{Name: "p", Resources: []string{sdk.Processors, "bb"},
			Clusters: []sdk.Cluster{{Name: "c", Capacity: sdk.Vector{8, 80},
				Units: []sdk.Units{{Resource: 1, Capacity: []int64{40, 40}}}}}}
	}
	if err := base().Validate(); err != nil {
		t.Fatalf("valid platform: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(p *sdk.Platform)
		want string
	}{
		{"units do not add up", func(p *sdk.Platform) { p.Clusters[0].Units[0].Capacity[1] = 30 }, "add up to 70, the cluster has 80"},
		{"processors divided", func(p *sdk.Platform) { p.Clusters[0].Units[0].Resource = 0 }, "processors cannot be divided"},
		{"no unit", func(p *sdk.Platform) { p.Clusters[0].Units[0].Capacity = nil }, "no unit"},
		{"empty unit", func(p *sdk.Platform) { p.Clusters[0].Units[0].Capacity = []int64{80, 0} }, "unit 1 has capacity 0"},
		{"pieces by itself", func(p *sdk.Platform) { p.Clusters[0].Units[0].PiecesBy = 1 }, "pieces counted by resource index 1"},
		{"declared twice", func(p *sdk.Platform) {
			p.Clusters[0].Units = append(p.Clusters[0].Units, p.Clusters[0].Units[0])
		}, "units of bb declared twice"},
	} {
		p := base()
		tc.edit(p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
