package cluster

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

func blobs(rng *rand.Rand, centers [][]float64, per int, spread float64) ([][]float64, []int) {
	var xs [][]float64
	var truth []int
	for c, ctr := range centers {
		for range per {
			x := make([]float64, len(ctr))
			for j := range x {
				x[j] = ctr[j] + spread*rng.NormFloat64()
			}
			xs = append(xs, x)
			truth = append(truth, c)
		}
	}
	return xs, truth
}

// TestRecoversBlobs: three well separated blobs are found exactly, and the
// silhouette picks k = 3.
func TestRecoversBlobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs, truth := blobs(rng, [][]float64{{0, 0}, {10, 0}, {0, 10}}, 40, 0.5)
	res, all, err := Best(xs, 2, 6, 5, rng)
	if err != nil {
		t.Fatal(err)
	}
	if res.K != 3 {
		for _, r := range all {
			t.Logf("k=%d silhouette %.3f", r.K, r.Silhouette)
		}
		t.Fatalf("chose k = %d", res.K)
	}
	// Same partition up to relabelling.
	m := map[int]int{}
	for i, l := range res.Labels {
		if prev, ok := m[truth[i]]; ok && prev != l {
			t.Fatalf("point %d: blob %d split across clusters", i, truth[i])
		}
		m[truth[i]] = l
	}
	if res.Silhouette < 0.8 {
		t.Errorf("silhouette %.3f for well separated blobs", res.Silhouette)
	}
}

// TestHandExample: a silhouette and WSS computed by hand.
func TestHandExample(t *testing.T) {
	xs := [][]float64{{0}, {1}, {10}, {11}}
	res, err := KMeans(xs, 2, 3, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if res.WSS != 1 { // (0.5^2)*4
		t.Errorf("WSS %v, want 1", res.WSS)
	}
	// Point 0: a = 1, b = (10+11)/2 = 10.5, s = 9.5/10.5; point 1: a = 1,
	// b = (9+10)/2 = 9.5, s = 8.5/9.5; points 10 and 11 mirror 1 and 0.
	want := (9.5/10.5 + 8.5/9.5) / 2
	if math.Abs(res.Silhouette-want) > 1e-12 {
		t.Errorf("silhouette %v, want %v", res.Silhouette, want)
	}
}

func TestDeterministic(t *testing.T) {
	xs, _ := blobs(rand.New(rand.NewPCG(5, 6)), [][]float64{{0, 0, 0}, {3, 3, 3}}, 30, 1.5)
	a, _ := KMeans(xs, 3, 4, rand.New(rand.NewPCG(9, 9)))
	b, _ := KMeans(xs, 3, 4, rand.New(rand.NewPCG(9, 9)))
	if !reflect.DeepEqual(a, b) {
		t.Error("not deterministic given the random source")
	}
}

func TestStandardize(t *testing.T) {
	z, mean, sd, err := Standardize([][]float64{{1, 5}, {3, 5}, {5, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if mean[0] != 3 || sd[0] != 2 || sd[1] != 0 || z[0][0] != -1 || z[2][0] != 1 || z[1][1] != 0 {
		t.Errorf("z %v mean %v sd %v", z, mean, sd)
	}
	for name, xs := range map[string][][]float64{
		"empty":  nil,
		"ragged": {{1, 2}, {3}},
		"nan":    {{math.NaN()}},
	} {
		if _, _, _, err := Standardize(xs); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	xs := [][]float64{{0}, {1}}
	for name, f := range map[string]func() error{
		"k too large": func() error { _, err := KMeans(xs, 3, 1, rng); return err },
		"k zero":      func() error { _, err := KMeans(xs, 0, 1, rng); return err },
		"no restarts": func() error { _, err := KMeans(xs, 1, 0, rng); return err },
		"no rng":      func() error { _, err := KMeans(xs, 1, 1, nil); return err },
		"too few":     func() error { _, _, err := Best(xs, 2, 5, 1, rng); return err },
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
