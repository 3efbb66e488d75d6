package sdk

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// ErrFeatures is wrapped by the errors of Platform.Validate about the
// features of a grid's clusters (Cluster.Features).
var ErrFeatures = errors.New("invalid cluster features")

// ClusterFeatures returns the distinct features of p's clusters
// (Cluster.Features), sorted: bit k of Job.Requires is name k.
func (p *Platform) ClusterFeatures() []string {
	var names []string
	for i := range p.Clusters {
		names = append(names, p.Clusters[i].Features...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// FeatureMask returns the mask over ClusterFeatures of cluster c's
// features.
func (p *Platform) FeatureMask(c int) uint64 {
	fs := p.Clusters[c].Features
	if len(fs) == 0 {
		return 0
	}
	names := p.ClusterFeatures()
	var m uint64
	for _, f := range fs {
		if k, ok := slices.BinarySearch(names, f); ok {
			m |= 1 << k
		}
	}
	return m
}

// Serves reports whether cluster c has every feature job j requires
// (Job.Requires); a job that requires none is served everywhere.
func (p *Platform) Serves(c int, j *Job) bool {
	return j.Requires == 0 || p.FeatureMask(c)&j.Requires == j.Requires
}

// FeatureList spells a mask over ClusterFeatures as its names, for
// messages: "[gpu fast]", or "[]" for none; a bit beyond the names shows
// as its number.
func (p *Platform) FeatureList(mask uint64) string {
	names := p.ClusterFeatures()
	var out []string
	for mask != 0 {
		k := bits.TrailingZeros64(mask)
		mask &^= 1 << k
		if k < len(names) {
			out = append(out, names[k])
		} else {
			out = append(out, fmt.Sprintf("bit %d", k))
		}
	}
	return "[" + strings.Join(out, " ") + "]"
}

// validateFeatures checks the features of cluster c: named, each once,
// and on a pool (a cluster of nodes has its features on its nodes).
func (p *Platform) validateFeatures(c *Cluster) error {
	if len(c.Features) == 0 {
		return nil
	}
	if c.HasNodes() {
		return fmt.Errorf("%w: a cluster of nodes has its features on its node groups", ErrFeatures)
	}
	seen := map[string]bool{}
	for _, f := range c.Features {
		if f == "" || seen[f] {
			return fmt.Errorf("%w: feature %q is empty or repeated", ErrFeatures, f)
		}
		seen[f] = true
	}
	return nil
}

// validateAllFeatures bounds the features of p's clusters: a job's are a
// 64-bit mask.
func (p *Platform) validateAllFeatures() error {
	if n := len(p.ClusterFeatures()); n > maxFeatures {
		return fmt.Errorf("platform %q: %w: %d features across the clusters, at most %d", p.Name, ErrFeatures, n, maxFeatures)
	}
	return nil
}
