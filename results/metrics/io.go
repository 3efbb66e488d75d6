package metrics

import (
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// IOKeys returns the JSON names of the metrics of a run with an I/O model.
func IOKeys() []string {
	return []string{"io_jobs", "io_killed", "io_seconds_mean", "io_bytes"}
}

// AddIO fills the metrics of a run with I/O model m into sum, from the
// records: the jobs that moved data (started, holding some of the burst
// buffer); of those, the ones killed at their walltime although their
// compute time fits it (their data, and others', took them past it); the
// mean over those that completed of their seconds beyond their compute
// time (End - Start - min(runtime, walltime)); and the bytes the
// completed ones moved: each piece its stage-in, a checkpoint between two
// compute phases (twice with drains, once written and once drained) and
// its stage-out.
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
