package burstbuffer

import (
	"errors"
	"fmt"
	"math"

	"github.com/schedlab/schedlab/sdk/sim"
)

// Shortening is the authors' rule for the compute time of a job whose
// data an I/O model moves (their scripts/generate_swf_workload.py): a job
// whose walltime is above ShortWalltime computes max(runtime - Factor x
// bytes per piece / Bandwidth, Floor x runtime) seconds, so that its
// stage-in, checkpoints and stage-out take about the rest of its logged
// runtime; a short job computes its whole runtime. Their constants:
// Factor 40, Bandwidth 1,250 MB/s (a node's link), Floor 0.05,
// ShortWalltime 120 s. The result is rounded to the nearest second (half
// to even), at least 1: the engine's runtimes are whole seconds, where
// the authors' are floating point.
type Shortening struct {
	Factor        float64
	Bandwidth     float64
	Floor         float64
	ShortWalltime int64
}

// DefaultShortening returns the authors' constants.
func DefaultShortening() Shortening {
	return Shortening{Factor: 40, Bandwidth: 1.25e9, Floor: 0.05, ShortWalltime: ShortWalltime}
}

// ShortenCounts counts what Shorten did.
type ShortenCounts struct {
	// Shortened counts the jobs whose compute time is below their
	// runtime, AtFloor those of them held at Floor x runtime, and Kept
	// the jobs left at their runtime (short jobs, and jobs without data).
	Shortened, AtFloor, Kept int64
	// SecondsCut sums what the rule took from the runtimes.
	SecondsCut int64
}

// Validate reports constants that make no rule.
func (s Shortening) Validate() error {
	switch {
	case s.Factor < 0 || math.IsNaN(s.Factor) || math.IsInf(s.Factor, 0):
		return fmt.Errorf("compute shortening factor %v is not a non-negative number", s.Factor)
	case !(s.Bandwidth > 0) || math.IsInf(s.Bandwidth, 0):
		return fmt.Errorf("compute shortening bandwidth %v is not a positive number of bytes per second", s.Bandwidth)
	case !(s.Floor >= 0 && s.Floor <= 1):
		return errors.New("compute shortening floor must be within [0, 1]")
	}
	return nil
}

// Shorten sets every job's runtime to its compute time under s, from its
// request of target t (bytes per piece).
func (s Shortening) Shorten(jobs []sim.Input, t Target) (ShortenCounts, error) {
	var c ShortenCounts
	if err := s.Validate(); err != nil {
		return c, err
	}
	for i := range jobs {
		in := &jobs[i]
		j := &in.Job
		pieces, bytes := j.Request[t.PiecesBy], j.Request[t.Resource]
		if j.Walltime <= s.ShortWalltime || pieces <= 0 || bytes == 0 {
			c.Kept++
			continue
		}
		per := float64(bytes) / float64(pieces)
		run := float64(in.Runtime)
		cut := run - s.Factor*per/s.Bandwidth
		floor := s.Floor * run
		atFloor := cut <= floor
		if atFloor {
			cut = floor
		}
		compute := max(int64(math.RoundToEven(cut)), 1)
		if compute >= in.Runtime {
			c.Kept++
			continue
		}
		c.Shortened++
		if atFloor {
			c.AtFloor++
		}
		c.SecondsCut += in.Runtime - compute
		in.Runtime = compute
	}
	return c, nil
}
