// Package cluster groups feature vectors with k-means: standardised
// features, k-means++ seeding from a given random source, Lloyd
// iterations, several restarts keeping the lowest within-cluster sum of
// squares, and k chosen by the mean silhouette. It serves the analysis of
// scheduler history (users, groups or applications described by their
// activity share, requested resources, requested time and K_wall).
package cluster

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Standardize returns the columns of xs scaled to mean 0 and standard
// deviation 1 (n-1 denominator), with the means and deviations used. A
// constant column is centred and left unscaled (its deviation reported as
// 0), so that it neither divides by zero nor weighs in distances.
func Standardize(xs [][]float64) (z [][]float64, mean, sd []float64, err error) {
	if len(xs) == 0 {
		return nil, nil, nil, errors.New("cluster: no points")
	}
	d := len(xs[0])
	mean, sd = make([]float64, d), make([]float64, d)
	for i, x := range xs {
		if len(x) != d {
			return nil, nil, nil, fmt.Errorf("cluster: point %d has %d features, point 0 has %d", i, len(x), d)
		}
		for j, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, nil, fmt.Errorf("cluster: point %d feature %d is %v", i, j, v)
			}
			mean[j] += v
		}
	}
	n := float64(len(xs))
	for j := range mean {
		mean[j] /= n
	}
	for _, x := range xs {
		for j, v := range x {
			sd[j] += (v - mean[j]) * (v - mean[j])
		}
	}
	z = make([][]float64, len(xs))
	for j := range sd {
		if len(xs) > 1 {
			sd[j] = math.Sqrt(sd[j] / (n - 1))
		} else {
			sd[j] = 0
		}
	}
	for i, x := range xs {
		z[i] = make([]float64, d)
		for j, v := range x {
			z[i][j] = v - mean[j]
			if sd[j] > 0 {
				z[i][j] /= sd[j]
			}
		}
	}
	return z, mean, sd, nil
}

// Result is a clustering.
type Result struct {
	K int
	// Labels gives each point's cluster, 0..K-1.
	Labels []int
	// Centers are the cluster means, in the (standardised) input space.
	Centers [][]float64
	// Sizes counts the points of each cluster.
	Sizes []int
	// WSS is the within-cluster sum of squared distances.
	WSS float64
	// Silhouette is the mean silhouette width (Rousseeuw 1987); NaN for
	// K = 1.
	Silhouette float64
}

func dist2(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

// KMeans clusters xs into k groups: k-means++ seeding (Arthur &
// Vassilvitskii 2007), Lloyd iterations until no label changes (at most
// 300), the best of `restarts` runs by WSS. It is deterministic given rng.
func KMeans(xs [][]float64, k, restarts int, rng *rand.Rand) (Result, error) {
	n := len(xs)
	switch {
	case n == 0:
		return Result{}, errors.New("cluster: no points")
	case k < 1 || k > n:
		return Result{}, fmt.Errorf("cluster: k = %d with %d points", k, n)
	case restarts < 1:
		return Result{}, fmt.Errorf("cluster: restarts = %d, want at least 1", restarts)
	case rng == nil:
		return Result{}, errors.New("cluster: no random source")
	}
	var best Result
	for r := range restarts {
		res := lloyd(xs, seed(xs, k, rng))
		if r == 0 || res.WSS < best.WSS {
			best = res
		}
	}
	best.Silhouette = Silhouette(xs, best.Labels, best.K)
	return best, nil
}

// seed picks k initial centres by k-means++: the first uniformly, each next
// with probability proportional to its squared distance to the nearest
// centre chosen.
func seed(xs [][]float64, k int, rng *rand.Rand) [][]float64 {
	centers := [][]float64{clone(xs[rng.IntN(len(xs))])}
	d := make([]float64, len(xs))
	for i, x := range xs {
		d[i] = dist2(x, centers[0])
	}
	for len(centers) < k {
		total := 0.0
		for _, v := range d {
			total += v
		}
		var next int
		if total == 0 {
			next = rng.IntN(len(xs)) // all points coincide with centres
		} else {
			u := rng.Float64() * total
			for next = 0; next < len(xs)-1; next++ {
				if u -= d[next]; u < 0 {
					break
				}
			}
		}
		c := clone(xs[next])
		centers = append(centers, c)
		for i, x := range xs {
			d[i] = min(d[i], dist2(x, c))
		}
	}
	return centers
}

func clone(x []float64) []float64 { return append([]float64(nil), x...) }

func lloyd(xs [][]float64, centers [][]float64) Result {
	k, dim := len(centers), len(xs[0])
	labels := make([]int, len(xs))
	for i := range labels {
		labels[i] = -1
	}
	sizes := make([]int, k)
	for iter := 0; iter < 300; iter++ {
		changed := false
		for i, x := range xs {
			bestJ, bestD := 0, math.Inf(1)
			for j, c := range centers {
				if d := dist2(x, c); d < bestD {
					bestJ, bestD = j, d
				}
			}
			if labels[i] != bestJ {
				labels[i] = bestJ
				changed = true
			}
		}
		if !changed {
			break
		}
		for j := range centers {
			centers[j] = make([]float64, dim)
			sizes[j] = 0
		}
		for i, x := range xs {
			sizes[labels[i]]++
			for t, v := range x {
				centers[labels[i]][t] += v
			}
		}
		for j := range centers {
			if sizes[j] == 0 {
				// An empty cluster takes the point farthest from its
				// centre, so that k clusters remain.
				far, farD := 0, -1.0
				for i, x := range xs {
					if d := dist2(x, centers[labels[i]]); d > farD {
						far, farD = i, d
					}
				}
				centers[j] = clone(xs[far])
				continue
			}
			for t := range centers[j] {
				centers[j][t] /= float64(sizes[j])
			}
		}
	}
	for j := range sizes {
		sizes[j] = 0
	}
	wss := 0.0
	for i, x := range xs {
		sizes[labels[i]]++
		wss += dist2(x, centers[labels[i]])
	}
	return Result{K: k, Labels: labels, Centers: centers, Sizes: sizes, WSS: wss}
}

// Silhouette is the mean silhouette width of a labelling: for each point,
// (b - a) / max(a, b) with a its mean distance to the other points of its
// cluster and b the smallest mean distance to another cluster's points; a
// point alone in its cluster scores 0. NaN when k < 2. It costs O(n^2).
func Silhouette(xs [][]float64, labels []int, k int) float64 {
	if k < 2 || len(xs) < 2 {
		return math.NaN()
	}
	sizes := make([]int, k)
	for _, l := range labels {
		sizes[l]++
	}
	sum := 0.0
	sums := make([]float64, k)
	for i, x := range xs {
		clear(sums)
		for j, y := range xs {
			if i != j {
				sums[labels[j]] += math.Sqrt(dist2(x, y))
			}
		}
		own := labels[i]
		if sizes[own] == 1 {
			continue
		}
		a := sums[own] / float64(sizes[own]-1)
		b := math.Inf(1)
		for c := range k {
			if c != own && sizes[c] > 0 {
				b = min(b, sums[c]/float64(sizes[c]))
			}
		}
		if m := max(a, b); m > 0 && !math.IsInf(b, 1) {
			sum += (b - a) / m
		}
	}
	return sum / float64(len(xs))
}

// Best clusters xs for every k in [kmin, kmax] and returns the one with
// the highest mean silhouette (k >= 2), with all of them for reporting.
func Best(xs [][]float64, kmin, kmax, restarts int, rng *rand.Rand) (Result, []Result, error) {
	kmin, kmax = max(kmin, 2), min(kmax, len(xs)-1)
	if kmin > kmax {
		return Result{}, nil, fmt.Errorf("cluster: %d points are too few to compare k in [%d, %d]", len(xs), kmin, kmax)
	}
	var all []Result
	best := -1
	for k := kmin; k <= kmax; k++ {
		r, err := KMeans(xs, k, restarts, rng)
		if err != nil {
			return Result{}, nil, err
		}
		all = append(all, r)
		if best < 0 || r.Silhouette > all[best].Silhouette {
			best = len(all) - 1
		}
	}
	return all[best], all, nil
}
