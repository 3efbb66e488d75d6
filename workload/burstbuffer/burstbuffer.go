// Package burstbuffer generates the burst-buffer requests of Kopański and
// Rządca (Euro-Par 2021, "Plan-based job scheduling for supercomputers with
// shared burst buffers"): every job asks for the same number of bytes on each
// of its compute nodes, drawn from a log-normal distribution fitted to the
// memory-per-processor requests of METACENTRUM-2013-3, clamped, reduced when
// the job could not fit on the burst-buffer units under the no-split rule
// (one compute node's space lies whole on one unit), and replaced by a small
// constant for very short jobs.
//
// The package knows nothing of manifests: Model.Apply fills one resource of
// engine jobs (sim.Input) from a random source. The manifest transform
// burst-buffer-lognormal (runner/manifest) wraps it; docs/manifest.md lists
// where this follows the authors' generator and where it departs from it.
package burstbuffer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// The paper's constants. Sizes are decimal, as in the authors' generator
// (burstbuffer/constants.py: MB = 10**6, GB = 10**9, KiB = 1024).
const (
	// Shape, Loc and Scale are SciPy's lognorm(s, loc, scale) parameters of
	// the per-node request in KiB: X = Loc + Scale*exp(Shape*Z) with Z
	// standard normal.
	Shape = 1.0972516604048774
	Loc   = -150361.59523836235
	Scale = 2714115.5724594607
	// KiB is the number of bytes per unit of X.
	KiB = 1024
	// MinBytes is the floor of the per-node request: 100 MB.
	MinBytes = 100_000_000
	// ShortWalltime is the walltime, in seconds, at or below which a job is
	// short: it asks for ShortBytes per node whatever the draw.
	ShortWalltime = 120
	// ShortBytes is a short job's per-node request: 10 MB.
	ShortBytes = 10_000_000
)

// Model is the request model. The zero value is not useful; start from
// Default.
type Model struct {
	// Shape, Loc and Scale parametrise the distribution of X, in units of
	// XBytes bytes per node, as SciPy's lognorm: X = Loc + Scale*exp(Shape*Z).
	Shape, Loc, Scale float64
	// XBytes is the number of bytes per unit of X (KiB).
	XBytes float64
	// MinBytes and MaxBytes bound the per-node request: bytes =
	// round(clamp(X*XBytes, MinBytes, MaxBytes)), rounding half to even as
	// Python's round does. MaxBytes <= 0 means the capacity of the largest
	// unit the request is placed on (Target.Units), or the whole capacity
	// on a pooled resource.
	MinBytes, MaxBytes int64
	// ShortWalltime and ShortBytes: a job whose walltime is at most
	// ShortWalltime seconds asks for ShortBytes per node. ShortWalltime < 0
	// disables the rule.
	ShortWalltime, ShortBytes int64
}

// Default returns the paper's model: Shape, Loc, Scale in KiB, 100 MB floor,
// clamped to the unit capacity (the paper's platform has 12 units of 40 GB,
// which a platform declares; they are not repeated here), 10 MB for jobs of
// at most 120 s.
func Default() Model {
	return Model{Shape: Shape, Loc: Loc, Scale: Scale, XBytes: KiB, MinBytes: MinBytes,
		ShortWalltime: ShortWalltime, ShortBytes: ShortBytes}
}

// Validate reports a parameter that makes no model: a non-positive or
// non-finite shape, scale or byte unit, a non-finite loc, a negative
// minimum, a maximum below the minimum, a negative short-job request.
func (m Model) Validate() error {
	finitePos := func(x float64) bool { return x > 0 && !math.IsInf(x, 1) }
	switch {
	case !finitePos(m.Shape):
		return fmt.Errorf("shape s must be positive and finite, got %v", m.Shape)
	case !finitePos(m.Scale):
		return fmt.Errorf("scale must be positive and finite, got %v", m.Scale)
	case math.IsNaN(m.Loc) || math.IsInf(m.Loc, 0):
		return fmt.Errorf("loc must be finite, got %v", m.Loc)
	case !finitePos(m.XBytes):
		return fmt.Errorf("bytes per unit of the distribution must be positive and finite, got %v", m.XBytes)
	case m.MinBytes < 1:
		return fmt.Errorf("minimum request must be at least 1 byte, got %d", m.MinBytes)
	case m.MaxBytes > 0 && m.MaxBytes < m.MinBytes:
		return fmt.Errorf("maximum request %d is below the minimum %d", m.MaxBytes, m.MinBytes)
	case m.ShortBytes < 0:
		return fmt.Errorf("short-job request must not be negative, got %d", m.ShortBytes)
	}
	return nil
}

// Target is where the requests go: a resource of the platform, divided into
// units or pooled.
type Target struct {
	// Resource is the index in sdk.Platform.Resources of the resource the
	// requests fill (Job.Request[Resource] receives nodes x bytes per node).
	Resource int
	// PiecesBy is the index of the resource whose requested amount is the
	// job's number of nodes (0: processors).
	PiecesBy int
	// Units holds the capacity of each unit; nil for a pooled resource.
	Units []int64
	// Capacity is the resource's total capacity.
	Capacity int64
}

// TargetOf returns the target of resource name on the platform's first
// cluster: its units and pieces rule when the cluster divides it, else the
// pooled capacity with one piece per processor.
func TargetOf(p *sdk.Platform, name string) (Target, error) {
	res := -1
	for i, r := range p.Resources {
		if r == name {
			res = i
		}
	}
	switch {
	case res < 0:
		return Target{}, fmt.Errorf("platform %s has no resource %q (it has %v)", p.Name, name, p.Resources)
	case res == 0:
		return Target{}, fmt.Errorf("resource %q is the processors; burst-buffer requests need a resource of their own", name)
	case len(p.Clusters) != 1:
		return Target{}, fmt.Errorf("platform %s has %d clusters; burst-buffer requests are defined on one", p.Name, len(p.Clusters))
	}
	c := p.Clusters[0]
	t := Target{Resource: res, Capacity: c.Capacity[res]}
	for _, u := range c.Units {
		if u.Resource == res {
			t.PiecesBy, t.Units = u.PiecesBy, u.Capacity
		}
	}
	if t.Capacity <= 0 {
		return Target{}, fmt.Errorf("resource %q of platform %s has no capacity", name, p.Name)
	}
	return t, nil
}

// maxUnit is the largest unit capacity, or the capacity when pooled.
func (t Target) maxUnit() int64 {
	if len(t.Units) == 0 {
		return t.Capacity
	}
	var m int64
	for _, c := range t.Units {
		m = max(m, c)
	}
	return m
}

// fits reports whether n pieces of size bytes fit on an empty target.
func (t Target) fits(n, size int64) bool {
	if len(t.Units) == 0 {
		return size <= t.Capacity/n
	}
	return sdk.PiecesFit(t.Units, n, size)
}

// largestFit returns the largest piece size of which n fit on an empty
// target, 0 when not even n pieces of one byte do. With k equal units of
// capacity c it is floor(c / ceil(n/k)), the authors' reduction.
func (t Target) largestFit(n int64) int64 {
	lo, hi := int64(0), t.maxUnit() // fits(lo) holds (or lo = 0); find the largest
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if t.fits(n, mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// Outcome says which rule set a job's request.
type Outcome int

// The outcomes of PerNode.
const (
	// Drawn: the draw, rounded, within the bounds.
	Drawn Outcome = iota
	// ClampedLow: the draw was below MinBytes.
	ClampedLow
	// ClampedHigh: the draw was above the maximum.
	ClampedHigh
	// Reduced: the nodes' pieces did not fit on the units and the request
	// was reduced to the largest that fits (whatever the draw was).
	Reduced
	// Short: the job's walltime is at most ShortWalltime.
	Short
	// NoPieces: the job requests none of the resource that counts its
	// pieces, so it gets no burst buffer.
	NoPieces
)

// Bytes returns the per-node request in bytes, before clamping and
// rounding, for the standard normal draw z: (Loc + Scale*exp(Shape*z)) *
// XBytes. With the default model it is SciPy's lognorm(s, loc,
// scale).ppf(Φ(z)) times 1024.
func (m Model) Bytes(z float64) float64 {
	return (m.Loc + m.Scale*math.Exp(m.Shape*z)) * m.XBytes
}

// PerNode returns the per-node request of a job with the given number of
// nodes and walltime, for the standard normal draw z, and which rule set
// it. It fails when not even one byte per node fits on the target.
func (m Model) PerNode(t Target, z float64, nodes, walltime int64) (int64, Outcome, error) {
	if nodes <= 0 {
		return 0, NoPieces, nil
	}
	var bytes int64
	out := Drawn
	if m.ShortWalltime >= 0 && walltime <= m.ShortWalltime {
		bytes, out = m.ShortBytes, Short
	} else {
		hi := m.MaxBytes
		if hi <= 0 {
			hi = t.maxUnit()
		}
		x := m.Bytes(z)
		switch {
		case x < float64(m.MinBytes):
			bytes, out = m.MinBytes, ClampedLow
		case x > float64(hi):
			bytes, out = hi, ClampedHigh
		default:
			bytes = int64(math.RoundToEven(x))
		}
	}
	if bytes > 0 && !t.fits(nodes, bytes) {
		bytes, out = t.largestFit(nodes), Reduced
		if bytes == 0 {
			return 0, Reduced, fmt.Errorf("%d nodes cannot each have one byte of a resource of %d bytes in %d units", nodes, t.Capacity, len(t.Units))
		}
	}
	return bytes, out, nil
}

// Counts are what Apply did, by rule. Every job is counted once, under the
// rule that set its request: a draw clamped low and then reduced to fit
// counts as reduced.
type Counts struct {
	// Jobs is the number of jobs given a request.
	Jobs int64 `json:"jobs"`
	// Drawn, ClampedLow, ClampedHigh, Reduced, Short and NoPieces count the
	// jobs by Outcome.
	Drawn       int64 `json:"drawn"`
	ClampedLow  int64 `json:"clamped_low"`
	ClampedHigh int64 `json:"clamped_high"`
	Reduced     int64 `json:"reduced_to_fit"`
	Short       int64 `json:"short"`
	NoPieces    int64 `json:"no_pieces"`
	// TotalBytes sums the requests (nodes x bytes per node) of all jobs.
	TotalBytes int64 `json:"total_bytes"`
}

// Map returns the counts by JSON name, for provenance.
func (c Counts) Map() map[string]int64 {
	return map[string]int64{"jobs": c.Jobs, "drawn": c.Drawn, "clamped_low": c.ClampedLow, "clamped_high": c.ClampedHigh,
		"reduced_to_fit": c.Reduced, "short": c.Short, "no_pieces": c.NoPieces, "total_bytes": c.TotalBytes}
}

// ErrRequestLength is returned when a job's request does not reach the
// target's resource: requests must be extended to the platform's resources
// first.
var ErrRequestLength = errors.New("job request shorter than the platform's resources")

// Apply sets Request[t.Resource] of every job, in index order, to its
// number of nodes (Request[t.PiecesBy]) times its per-node request. It draws
// one standard normal from rng per job, short ones included, so that job i
// gets the same draw whatever the short-job rule and the bounds: two
// models compared on the same seed differ only where their rules do. The
// jobs' requests are changed in place.
func (m Model) Apply(jobs []sim.Input, t Target, rng *rand.Rand) (Counts, error) {
	if err := m.Validate(); err != nil {
		return Counts{}, err
	}
	var c Counts
	for i := range jobs {
		j := &jobs[i].Job
		if len(j.Request) <= max(t.Resource, t.PiecesBy) {
			return c, fmt.Errorf("job id %d: %w", j.ID, ErrRequestLength)
		}
		z := rng.NormFloat64()
		nodes := j.Request[t.PiecesBy]
		bytes, out, err := m.PerNode(t, z, nodes, j.Walltime)
		if err != nil {
			return c, fmt.Errorf("job id %d: %w", j.ID, err)
		}
		total := nodes * bytes
		if nodes > 0 && total/nodes != bytes {
			return c, fmt.Errorf("job id %d: %d nodes x %d bytes overflows", j.ID, nodes, bytes)
		}
		j.Request[t.Resource] = total
		c.Jobs++
		c.TotalBytes += total
		switch out {
		case Drawn:
			c.Drawn++
		case ClampedLow:
			c.ClampedLow++
		case ClampedHigh:
			c.ClampedHigh++
		case Reduced:
			c.Reduced++
		case Short:
			c.Short++
		case NoPieces:
			c.NoPieces++
		}
	}
	return c, nil
}
