package metrics

import (
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// IOKeys returns the JSON names of the metrics of a run with an I/O model.
func IOKeys() []string {
	return []string{"io_jobs", "io_killed", "io_seconds_mean", "io_bytes", "io_unfit"}
}

// AddIO fills the metrics of a run with I/O model m into sum, from the
// records: the jobs that moved data (started, holding some of the burst
// buffer); of those, the ones killed at their walltime although their
// compute time fits it (their data, and others', took them past it); the
// mean over those that completed of their seconds beyond their compute
// time (End - Start - min(runtime, walltime)); and the bytes the
// completed ones moved: each piece its stage-in, a checkpoint between two
// compute phases (twice with drains, once written and once drained) and
// its stage-out; and the jobs whose data could not move within their
// walltime even alone on the machine (IOAlone), which the run kills at
// their walltime whatever the policy does.
func AddIO(sum *Summary, p *sdk.Platform, m *sdk.IO, jobs []sim.Input, recs []sim.Record) {
	sum.IO = true
	var units sdk.Units
	for _, u := range p.Clusters[0].Units {
		if u.Resource == m.Resource {
			units = u
		}
	}
	var extra float64
	done := 0
	for i := range recs {
		r := &recs[i]
		in := &jobs[i]
		n, size, _ := units.Pieces(in.Job.Request)
		if r.Rejected || n == 0 {
			continue
		}
		sum.IOJobs++
		compute := min(in.Runtime, in.Job.Walltime)
		if float64(compute)+IOAlone(m, n, size, compute) > float64(in.Job.Walltime)+sdk.IOEpsilon {
			sum.IOUnfit++
		}
		if r.Killed {
			if in.Runtime <= in.Job.Walltime {
				sum.IOKilled++
			}
			continue
		}
		done++
		extra += float64(r.End - r.Start - compute)
		phases, _ := m.Phases(compute)
		per := m.StageIn + m.StageOut + float64(phases-1)*m.Checkpoint
		if m.Drain {
			per += float64(phases-1) * m.Checkpoint
		}
		sum.IOBytes += float64(n) * float64(size) * per
	}
	if done > 0 {
		sum.IOSecondsMean = extra / float64(done)
	}
}

// IOAlone returns a lower bound of the seconds the data phases of a job of
// n pieces of size bytes and compute seconds of compute take with the
// machine to itself: its stage-in, at most the file system's bandwidth
// for all pieces and a unit's for one; the same for its stage-out; and
// its checkpoints, one piece's at a unit's bandwidth or its node's link,
// whichever is slower. Drains overlap the compute and are not counted.
func IOAlone(m *sdk.IO, n, size, compute int64) float64 {
	phases, _ := m.Phases(compute)
	piece, pieces := float64(size), float64(n)
	in, out := m.StageIn*piece, m.StageOut*piece
	ckptBW := m.UnitBandwidth
	if m.NodeBandwidth > 0 {
		ckptBW = min(ckptBW, m.NodeBandwidth)
	}
	return max(pieces*in/m.FSBandwidth, in/m.UnitBandwidth) + max(pieces*out/m.FSBandwidth, out/m.UnitBandwidth) +
		float64(phases-1)*m.Checkpoint*piece/ckptBW
}
