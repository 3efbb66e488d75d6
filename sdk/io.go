package sdk

import (
	"errors"
	"fmt"
	"math"
)

// IO is a model of jobs that move data through a burst buffer: each job
// stages its input from the parallel file system into its burst-buffer
// space, computes in phases separated by checkpoints written to the burst
// buffer (and drained to the file system while the next phase computes),
// and stages its output back. Transfers share the file system's bandwidth
// and each burst-buffer unit's by max-min fairness, so a job's duration
// depends on what else moves data at the same time; a job still ends at
// its walltime at the latest, killed.
//
// The sizes are rules over each job's request of the divided resource
// Resource (a burst buffer, sdk.Units), as in Kopański and Rządca's
// I/O-aware simulator: every piece of the job's space (one per compute
// node or processor) moves StageIn times its size in, Checkpoint times it
// at each checkpoint, StageOut times it out. A job that asks for none of
// the resource only computes. A job's actual runtime (sim.Input.Runtime)
// is its compute time, cut into phases of about PhaseSeconds.
type IO struct {
	// Resource is the index in Platform.Resources of the burst buffer: a
	// divided resource of the run's one cluster.
	Resource int `json:"resource"`
	// FSBandwidth is the parallel file system's aggregate bandwidth, in
	// bytes per second, shared by every stage-in, drain and stage-out.
	FSBandwidth float64 `json:"fs_bandwidth"`
	// UnitBandwidth is each burst-buffer unit's bandwidth, in bytes per
	// second, shared by the transfers to and from the unit.
	UnitBandwidth float64 `json:"unit_bandwidth"`
	// SplitDuplex gives the file system and each unit their bandwidth
	// into them and as much out of them, instead of one capacity for both
	// directions (SimGrid's SPLITDUPLEX links against SHARED ones).
	SplitDuplex bool `json:"split_duplex,omitempty"`
	// NodeBandwidth, when not 0, bounds each piece's checkpoint write, in
	// bytes per second: the compute node's own link, which its checkpoint
	// alone uses.
	NodeBandwidth float64 `json:"node_bandwidth,omitempty"`
	// StageIn, Checkpoint and StageOut are the bytes each piece moves in
	// those phases, as a share of the piece's size, from 0 (none) to 1:
	// what a phase moves lies in the job's burst-buffer space.
	StageIn    float64 `json:"stage_in"`
	Checkpoint float64 `json:"checkpoint"`
	StageOut   float64 `json:"stage_out"`
	// Drain says that each checkpoint is then copied from the burst buffer
	// to the file system, while the next compute phase runs; the job ends
	// when its last drain has too.
	Drain bool `json:"drain,omitempty"`
	// PhaseSeconds is the target length of a compute phase: a job of C
	// seconds of compute runs n = min(max(round(C / PhaseSeconds), 1),
	// MaxPhases) phases of C / n seconds, with a checkpoint between two.
	PhaseSeconds int64 `json:"phase_seconds"`
	// MaxPhases bounds the number of compute phases of a job.
	MaxPhases int `json:"max_phases"`
}

// IOEpsilon is the slack, in seconds, by which a completion computed in
// floating point just after a whole second counts as that second: a job's
// end is the first whole second at or after its data and compute phases
// complete (IOEnd).
const IOEpsilon = 1e-6

// IOEnd returns the whole second at which a job whose phases complete at
// t ends: t rounded up, within IOEpsilon.
func IOEnd(t float64) int64 { return int64(math.Ceil(t - IOEpsilon)) }

// Phases returns the number of compute phases of a job of compute
// seconds of compute under m, and each one's length.
func (m *IO) Phases(compute int64) (n int, each float64) {
	if compute <= 0 {
		return 1, 0
	}
	n = 1
	if m.PhaseSeconds > 0 {
		n = int(math.RoundToEven(float64(compute) / float64(m.PhaseSeconds)))
	}
	n = min(max(n, 1), max(m.MaxPhases, 1))
	return n, float64(compute) / float64(n)
}

// Validate reports a model that cannot run on p: a resource that is not a
// divided resource of p's one cluster, a bandwidth that is not positive
// and finite (NodeBandwidth may be 0), a size factor outside [0, 1] (a
// phase larger than the job's burst-buffer space), or a negative phase
// length or count.
func (m *IO) Validate(p *Platform) error {
	if len(p.Clusters) != 1 {
		return fmt.Errorf("io: a platform of %d clusters: the model takes one", len(p.Clusters))
	}
	if m.Resource <= 0 || m.Resource >= len(p.Resources) {
		return fmt.Errorf("io: resource %d is not a resource of the platform other than processors", m.Resource)
	}
	divided := false
	for _, u := range p.Clusters[0].Units {
		divided = divided || u.Resource == m.Resource
	}
	if !divided {
		return fmt.Errorf("io: resource %q is not divided into units", p.Resources[m.Resource])
	}
	pos := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
	switch {
	case !pos(m.FSBandwidth):
		return fmt.Errorf("io: file system bandwidth %v is not a positive number of bytes per second", m.FSBandwidth)
	case !pos(m.UnitBandwidth):
		return fmt.Errorf("io: unit bandwidth %v is not a positive number of bytes per second", m.UnitBandwidth)
	case m.NodeBandwidth != 0 && !pos(m.NodeBandwidth):
		return fmt.Errorf("io: node bandwidth %v is not a positive number of bytes per second", m.NodeBandwidth)
	case m.PhaseSeconds < 0:
		return fmt.Errorf("io: phase length %d s is negative", m.PhaseSeconds)
	case m.MaxPhases < 0:
		return fmt.Errorf("io: at most %d phases", m.MaxPhases)
	}
	for _, f := range []struct {
		name string
		x    float64
	}{{"stage_in", m.StageIn}, {"checkpoint", m.Checkpoint}, {"stage_out", m.StageOut}} {
		if !(f.x >= 0 && f.x <= 1) {
			return fmt.Errorf("io: %s %v is not a share of a piece from 0 to 1: a phase moves at most the job's burst-buffer space", f.name, f.x)
		}
	}
	if m.Drain && m.Checkpoint == 0 {
		return errors.New("io: drain without checkpoints")
	}
	return nil
}

// IOView answers, at a policy call, where a running job of a run with an
// I/O model is. It reads the engine's own state: nothing is copied per
// call.
type IOView interface {
	// Phase returns running job j's phase and the compute phases it has
	// done and has in all; PhaseStageIn and 0, 0 for a job not running.
	Phase(j *Job) (phase IOPhase, done, phases int)
	// Left returns, for a running job moving data (stage-in, checkpoint
	// or stage-out), the bytes it has left to move in that phase, all its
	// pieces together, and when that phase ends at the current rates
	// (seconds, not rounded); for a computing job, 0 and the end of its
	// compute phase.
	Left(j *Job) (bytes, at float64)
}

// IOPhase is where a running job of a run with an I/O model is.
type IOPhase uint8

// The phases of a job that moves data, in their order.
const (
	PhaseStageIn IOPhase = iota
	PhaseCompute
	PhaseCheckpoint
	PhaseStageOut
	// PhaseDraining is a job whose stage-out is done and whose last
	// checkpoints still drain to the file system.
	PhaseDraining
)

// String returns the phase's name as results spell it.
func (p IOPhase) String() string {
	switch p {
	case PhaseStageIn:
		return "stage-in"
	case PhaseCompute:
		return "compute"
	case PhaseCheckpoint:
		return "checkpoint"
	case PhaseStageOut:
		return "stage-out"
	case PhaseDraining:
		return "draining"
	}
	return fmt.Sprintf("phase %d", uint8(p))
}
