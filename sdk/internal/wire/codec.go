// Package wire is the protocol between a schedlab host and a policy plugin:
// the go-plugin handshake, the gRPC service, and the binary frames that carry
// a run's jobs to the plugin and its records back.
//
// A run is one bidirectional gRPC stream of frames. The host sends a header
// frame (a JSON document, schema.go), job frames of at most JobsPerFrame packed jobs, and an
// end frame; the plugin simulates the run with package sim and answers with
// record frames, units frames on divided resources, and a final stats frame
// (JSON, schema.go). Packing jobs and records keeps every message far below
// gRPC's 4 MiB limit and costs one round trip per run instead of one per
// scheduling event. Both directions stream (protocol 3): the plugin's engine
// starts with the first job frame and takes the others as the simulation
// reaches them, and the plugin sends the records as they become final, in
// frames of StreamRecords or more, while the host still sends jobs and
// checks the records it has.
//
// The package is internal to the SDK module: policy authors see none of it;
// packages serve (the plugin side) and host (the host side) use it.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// Frame kinds, the first byte of every frame.
const (
	FrameHeader  byte = 'H'
	FrameJobs    byte = 'J'
	FrameEnd     byte = 'E'
	FrameRecords byte = 'R'
	FrameStats   byte = 'S'
	// FrameUnits carries a slice of sim.Result.Units (placements on divided
	// resources), after the records.
	FrameUnits byte = 'U'
	// FrameAllocs carries a piece of sim.Result.Allocs (protocol 6), after
	// the records: for each job in index order, its number of nodes, then
	// a node index and a task count for each, all little-endian uint32s,
	// cut into frames anywhere between two of them.
	FrameAllocs byte = 'A'
	// FrameAttempts carries a piece of sim.Result.Attempts (protocol 8),
	// after the records and before the allocations, whose stream then
	// holds, after every job's allocation, every attempt's.
	FrameAttempts byte = 'T'
	// FramePower carries a piece of sim.PowerResult.Events (protocol 9),
	// after the attempts and before the allocations: per event its time
	// (int64), cluster and node (int32) and mode (a byte), little-endian.
	FramePower byte = 'W'
	// FrameDrains carries a piece of sim.Result.Drains (protocol 11),
	// after the power events and before the allocations: per drain its
	// cluster and node (int32), start and end (int64), little-endian.
	FrameDrains byte = 'D'
	// FrameProgress is the plugin's heartbeat (protocol 4): the number of
	// events the engine has processed and its simulated time, sent every
	// ProgressEvery while the run goes on.
	FrameProgress byte = 'P'
)

// ProgressEvery is how often a plugin of protocol 4 sends its heartbeat.
const ProgressEvery = time.Second

// AppendProgress packs a heartbeat after a FrameProgress byte.
func AppendProgress(dst []byte, events, now int64) []byte {
	dst = append(dst, FrameProgress)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(events))
	return binary.LittleEndian.AppendUint64(dst, uint64(now))
}

// DecodeProgress unpacks a FrameProgress frame.
func DecodeProgress(frame []byte) (events, now int64, err error) {
	if len(frame) != 17 || frame[0] != FrameProgress {
		return 0, 0, errors.New("wire: malformed progress frame")
	}
	le := binary.LittleEndian
	return int64(le.Uint64(frame[1:])), int64(le.Uint64(frame[9:])), nil
}

// UnitsPerFrame is the number of placement entries in a full units frame.
const UnitsPerFrame = FrameBytes / 4

// FrameBytes bounds the size of job and record frames, far below gRPC's
// default 4 MiB message limit.
const FrameBytes = 1 << 20

// AllocsPerFrame is the number of uint32s in a full allocations frame.
const AllocsPerFrame = FrameBytes / 4

// RecordsPerFrame is the number of records in a full records frame of
// this SDK's protocol (8).
const RecordsPerFrame = FrameBytes / recordSizeV8

// AttemptsPerFrame is the number of attempts in a full attempts frame.
const AttemptsPerFrame = FrameBytes / attemptSize

// The sizes of a packed record in protocols 3-4, 5-7 and 8, and of an
// attempt.
const (
	recordSizeV4 = 4 + 4 + 8 + 8 + 8 + 1
	recordSizeV5 = recordSizeV4 + 8 + 8 + 4 + 4 + 8
	recordSizeV8 = recordSizeV5 + 4 + 1
	attemptSize  = 4 + 4 + 8 + 8 + 1 + 4 + 8
)

// JobsPerFrame returns the number of jobs in a full jobs frame for a
// platform of dims resources: each resource adds 8 bytes per job.
func JobsPerFrame(dims int) int { return max(1, FrameBytes/(jobFixed(sdk.ProtocolVersion)+8*dims)) }

// RunSpec is everything about a run except its jobs. The header frame
// carries it, with the protocol version and the number of jobs (schema.go).
type RunSpec struct {
	Platform       *sdk.Platform
	Params         map[string]string
	Seed           uint64
	ExactEstimates bool
	// Dependencies says that some jobs depend on others (sim.Input.After,
	// protocol 7): the plugin's engine then loads every job before it
	// starts (sim.Config.Dependencies).
	Dependencies bool
	// Outages and Faults are the run's outages of nodes and their rules
	// (sim.Config.Outages and Faults, protocol 8).
	Outages []sdk.Outage
	Faults  sim.Faults
	// Power is the run's power model (sim.Config.Power, protocol 9).
	Power *sdk.Power
	// IO is the run's I/O model (sim.Config.IO, protocol 10).
	IO *sdk.IO
	// Progress, on the host side, is given each heartbeat of the plugin
	// (protocol 4), on the receiving goroutine.
	Progress func(events, now int64)
}

// jobFixed is the bytes of a packed job before its request vector: ID,
// Submit, Walltime, Runtime, five int32 attributes, Priority; from
// protocol 5, Home and Transfer; from protocol 6, the tasks (Count,
// Cores, Memory, GPUs, Nodes, Partition, Features and a flag byte for
// Exclusive); from protocol 7, the dependency (After, Think); from
// protocol 11, the cluster features the job requires (Requires).
func jobFixed(version int) int {
	switch {
	case version >= 11:
		return 4*8 + 5*4 + 8 + 4 + 8 + tasksSize + 4 + 8 + 8
	case version >= 7:
		return 4*8 + 5*4 + 8 + 4 + 8 + tasksSize + 4 + 8
	case version == 6:
		return 4*8 + 5*4 + 8 + 4 + 8 + tasksSize
	case version == 5:
		return 4*8 + 5*4 + 8 + 4 + 8
	}
	return 4*8 + 5*4 + 8
}

// noTasks is what a job without tasks sends: zeros, which decode as none.
var noTasks sdk.Tasks

// tasksSize is the bytes of a job's packed sdk.Tasks.
const tasksSize = 4 + 4 + 8 + 4 + 4 + 4 + 8 + 1

// recordSize is the size of a packed record: Index, Cluster, Start, End,
// Promised, from protocol 5 ShipTime, ReservedAt, ReservedCluster,
// Refusals and Cost, from protocol 8 Attempts and Interrupted, and a flag
// byte, always the last.
func recordSize(version int) int {
	switch {
	case version >= 8:
		return recordSizeV8
	case version >= 5:
		return recordSizeV5
	}
	return recordSizeV4
}

const (
	flagPromise byte = 1 << iota
	flagKilled
	flagBackfilled
	// From protocol 5.
	flagShipped
	flagReserved
	flagCharged
	flagRejected
)

// DependentJobs reports whether any job has what only protocol 7 carries:
// a dependency on another job.
func DependentJobs(jobs []sim.Input) bool {
	for i := range jobs {
		if jobs[i].After != 0 || jobs[i].Think != 0 {
			return true
		}
	}
	return false
}

// GridJobs reports whether any job has what only protocol 5 carries: a
// home cluster or a transfer time.
func GridJobs(jobs []sim.Input) bool {
	for i := range jobs {
		if jobs[i].Job.Home != 0 || jobs[i].Job.Transfer != 0 {
			return true
		}
	}
	return false
}

// RequiringJobs reports whether any job has what only protocol 11
// carries: cluster features it requires.
func RequiringJobs(jobs []sim.Input) bool {
	for i := range jobs {
		if jobs[i].Job.Requires != 0 {
			return true
		}
	}
	return false
}

// AppendJobs packs jobs after a FrameJobs byte, in this SDK's protocol.
func AppendJobs(dst []byte, jobs []sim.Input) []byte {
	return AppendJobsVersion(dst, jobs, sdk.ProtocolVersion)
}

// AppendJobsVersion packs jobs after a FrameJobs byte in the given
// protocol version; what the version cannot carry is left out (GridJobs
// says whether there is any).
func AppendJobsVersion(dst []byte, jobs []sim.Input, version int) []byte {
	dst = append(dst, FrameJobs)
	le := binary.LittleEndian
	for i := range jobs {
		j := &jobs[i].Job
		dst = le.AppendUint64(dst, uint64(j.ID))
		dst = le.AppendUint64(dst, uint64(j.Submit))
		dst = le.AppendUint64(dst, uint64(j.Walltime))
		dst = le.AppendUint64(dst, uint64(jobs[i].Runtime))
		for _, a := range [...]int32{j.User, j.Group, j.App, j.Queue, j.Partition} {
			dst = le.AppendUint32(dst, uint32(a))
		}
		dst = le.AppendUint64(dst, math.Float64bits(j.Priority))
		if version >= 5 {
			dst = le.AppendUint32(dst, uint32(j.Home))
			dst = le.AppendUint64(dst, uint64(j.Transfer))
		}
		if version >= 6 {
			t := j.Tasks
			if t == nil {
				t = &noTasks
			}
			dst = le.AppendUint32(dst, uint32(t.Count))
			dst = le.AppendUint32(dst, uint32(t.Cores))
			dst = le.AppendUint64(dst, uint64(t.Memory))
			dst = le.AppendUint32(dst, uint32(t.GPUs))
			dst = le.AppendUint32(dst, uint32(t.Nodes))
			dst = le.AppendUint32(dst, uint32(t.Partition))
			dst = le.AppendUint64(dst, t.Features)
			var f byte
			if t.Exclusive {
				f = 1
			}
			dst = append(dst, f)
		}
		if version >= 7 {
			dst = le.AppendUint32(dst, uint32(jobs[i].After))
			dst = le.AppendUint64(dst, uint64(jobs[i].Think))
		}
		if version >= 11 {
			dst = le.AppendUint64(dst, j.Requires)
		}
		for _, x := range j.Request {
			dst = le.AppendUint64(dst, uint64(x))
		}
	}
	return dst
}

// DecodeJobs unpacks a FrameJobs frame of this SDK's protocol for a
// platform of dims resources, appending to dst. Job indexes continue from
// len(dst).
func DecodeJobs(dst []sim.Input, frame []byte, dims int) ([]sim.Input, error) {
	dst, _, err := decodeJobs(dst, nil, frame, dims, len(dst), sdk.ProtocolVersion)
	return dst, err
}

// DecodeJobsVersion is DecodeJobs for a frame of the given protocol
// version.
func DecodeJobsVersion(dst []sim.Input, frame []byte, dims, version int) ([]sim.Input, error) {
	dst, _, err := decodeJobs(dst, nil, frame, dims, len(dst), version)
	return dst, err
}

// decodeJobs unpacks a FrameJobs frame, appending to dst, the jobs' indexes
// counting from first, their request vectors in reqs (reused when large
// enough), which it returns.
func decodeJobs(dst []sim.Input, reqs []int64, frame []byte, dims, first, version int) ([]sim.Input, []int64, error) {
	if len(frame) == 0 || frame[0] != FrameJobs {
		return dst, reqs, errors.New("wire: not a jobs frame")
	}
	b := frame[1:]
	fixed := jobFixed(version)
	size := fixed + 8*dims
	if len(b)%size != 0 {
		return dst, reqs, fmt.Errorf("wire: jobs frame of %d bytes is not a multiple of %d", len(b), size)
	}
	le := binary.LittleEndian
	// One backing array for all request vectors of the frame.
	if n := len(b) / size * dims; cap(reqs) >= n {
		reqs = reqs[:n]
	} else {
		reqs = make([]int64, n)
	}
	all := reqs
	dst = slices.Grow(dst, len(b)/size)
	for len(b) > 0 {
		var in sim.Input
		j := &in.Job
		j.Index = first
		j.ID = int64(le.Uint64(b[0:]))
		j.Submit = int64(le.Uint64(b[8:]))
		j.Walltime = int64(le.Uint64(b[16:]))
		in.Runtime = int64(le.Uint64(b[24:]))
		j.User = int32(le.Uint32(b[32:]))
		j.Group = int32(le.Uint32(b[36:]))
		j.App = int32(le.Uint32(b[40:]))
		j.Queue = int32(le.Uint32(b[44:]))
		j.Partition = int32(le.Uint32(b[48:]))
		j.Priority = math.Float64frombits(le.Uint64(b[52:]))
		if version >= 5 {
			j.Home = int32(le.Uint32(b[60:]))
			j.Transfer = int64(le.Uint64(b[64:]))
		}
		if version >= 6 {
			var t sdk.Tasks
			t.Count = int32(le.Uint32(b[72:]))
			t.Cores = int32(le.Uint32(b[76:]))
			t.Memory = int64(le.Uint64(b[80:]))
			t.GPUs = int32(le.Uint32(b[88:]))
			t.Nodes = int32(le.Uint32(b[92:]))
			t.Partition = int32(le.Uint32(b[96:]))
			t.Features = le.Uint64(b[100:])
			switch b[108] {
			case 0:
			case 1:
				t.Exclusive = true
			default:
				return dst, reqs, fmt.Errorf("wire: job id %d: tasks flag %d", j.ID, b[108])
			}
			if t != (sdk.Tasks{}) {
				j.Tasks = &t
			}
		}
		if version >= 7 {
			in.After = int32(le.Uint32(b[109:]))
			in.Think = int64(le.Uint64(b[113:]))
		}
		if version >= 11 {
			j.Requires = le.Uint64(b[121:])
		}
		j.Request, reqs = sdk.Vector(reqs[:dims:dims]), reqs[dims:]
		for k := range dims {
			j.Request[k] = int64(le.Uint64(b[fixed+8*k:]))
		}
		dst = append(dst, in)
		first++
		b = b[size:]
	}
	return dst, all, nil
}

// AppendRecords packs records after a FrameRecords byte, in this SDK's
// protocol.
func AppendRecords(dst []byte, recs []sim.Record) []byte {
	return appendRecords(append(dst, FrameRecords), recs, sdk.ProtocolVersion)
}

// AppendRecordsVersion packs records after a FrameRecords byte in the
// given protocol version.
func AppendRecordsVersion(dst []byte, recs []sim.Record, version int) []byte {
	return appendRecords(append(dst, FrameRecords), recs, version)
}

// appendRecords packs records, without the frame kind.
func appendRecords(dst []byte, recs []sim.Record, version int) []byte {
	le := binary.LittleEndian
	for i := range recs {
		r := &recs[i]
		dst = le.AppendUint32(dst, uint32(r.Index))
		dst = le.AppendUint32(dst, uint32(r.Cluster))
		dst = le.AppendUint64(dst, uint64(r.Start))
		dst = le.AppendUint64(dst, uint64(r.End))
		dst = le.AppendUint64(dst, uint64(r.Promised))
		if version >= 5 {
			dst = le.AppendUint64(dst, uint64(r.ShipTime))
			dst = le.AppendUint64(dst, uint64(r.ReservedAt))
			dst = le.AppendUint32(dst, uint32(r.ReservedCluster))
			dst = le.AppendUint32(dst, uint32(r.Refusals))
			dst = le.AppendUint64(dst, math.Float64bits(r.Cost))
		}
		if version >= 8 {
			dst = le.AppendUint32(dst, uint32(r.Attempts))
			dst = append(dst, byte(r.Interrupted))
		}
		var f byte
		for _, b := range []struct {
			on   bool
			flag byte
		}{{r.HasPromise, flagPromise}, {r.Killed, flagKilled}, {r.Backfilled, flagBackfilled},
			{r.Shipped, flagShipped}, {r.Reserved, flagReserved}, {r.Charged, flagCharged}, {r.Rejected, flagRejected}} {
			if b.on && (version >= 5 || b.flag < flagShipped) {
				f |= b.flag
			}
		}
		dst = append(dst, f)
	}
	return dst
}

// DecodeRecords unpacks a FrameRecords frame of this SDK's protocol,
// appending to dst.
func DecodeRecords(dst []sim.Record, frame []byte) ([]sim.Record, error) {
	return DecodeRecordsVersion(dst, frame, sdk.ProtocolVersion)
}

// DecodeRecordsVersion unpacks a FrameRecords frame of the given protocol
// version, appending to dst.
func DecodeRecordsVersion(dst []sim.Record, frame []byte, version int) ([]sim.Record, error) {
	if len(frame) == 0 || frame[0] != FrameRecords {
		return dst, errors.New("wire: not a records frame")
	}
	b := frame[1:]
	size := recordSize(version)
	if len(b)%size != 0 {
		return dst, fmt.Errorf("wire: records frame of %d bytes is not a multiple of %d", len(b), size)
	}
	le := binary.LittleEndian
	for ; len(b) > 0; b = b[size:] {
		f := b[size-1]
		r := sim.Record{
			Index:      int32(le.Uint32(b[0:])),
			Cluster:    int32(le.Uint32(b[4:])),
			Start:      int64(le.Uint64(b[8:])),
			End:        int64(le.Uint64(b[16:])),
			Promised:   int64(le.Uint64(b[24:])),
			HasPromise: f&flagPromise != 0,
			Killed:     f&flagKilled != 0,
			Backfilled: f&flagBackfilled != 0,
		}
		if version >= 5 {
			r.Shipped, r.Reserved, r.Charged = f&flagShipped != 0, f&flagReserved != 0, f&flagCharged != 0
			r.Rejected = f&flagRejected != 0
			r.ShipTime = int64(le.Uint64(b[32:]))
			r.ReservedAt = int64(le.Uint64(b[40:]))
			r.ReservedCluster = int32(le.Uint32(b[48:]))
			r.Refusals = int32(le.Uint32(b[52:]))
			r.Cost = math.Float64frombits(le.Uint64(b[56:]))
		}
		if version >= 8 {
			r.Attempts = int32(le.Uint32(b[64:]))
			r.Interrupted = sdk.OutageKind(b[68])
		}
		dst = append(dst, r)
	}
	return dst, nil
}

// AppendAttempts packs attempts after a FrameAttempts byte.
func AppendAttempts(dst []byte, atts []sim.Attempt) []byte {
	dst = append(dst, FrameAttempts)
	le := binary.LittleEndian
	for _, a := range atts {
		dst = le.AppendUint32(dst, uint32(a.Index))
		dst = le.AppendUint32(dst, uint32(a.Cluster))
		dst = le.AppendUint64(dst, uint64(a.Start))
		dst = le.AppendUint64(dst, uint64(a.End))
		dst = append(dst, byte(a.Cause))
		dst = le.AppendUint32(dst, uint32(a.Node))
		dst = le.AppendUint64(dst, uint64(a.Saved))
	}
	return dst
}

// DecodeAttempts unpacks a FrameAttempts frame, appending to dst.
func DecodeAttempts(dst []sim.Attempt, frame []byte) ([]sim.Attempt, error) {
	if len(frame) == 0 || frame[0] != FrameAttempts {
		return dst, errors.New("wire: not an attempts frame")
	}
	b := frame[1:]
	if len(b)%attemptSize != 0 {
		return dst, fmt.Errorf("wire: attempts frame of %d bytes is not a multiple of %d", len(b), attemptSize)
	}
	le := binary.LittleEndian
	for ; len(b) > 0; b = b[attemptSize:] {
		dst = append(dst, sim.Attempt{
			Index: int32(le.Uint32(b[0:])), Cluster: int32(le.Uint32(b[4:])),
			Start: int64(le.Uint64(b[8:])), End: int64(le.Uint64(b[16:])),
			Cause: sdk.OutageKind(b[24]), Node: int32(le.Uint32(b[25:])), Saved: int64(le.Uint64(b[29:])),
		})
	}
	return dst, nil
}

// powerEventSize is the bytes of a packed power event.
const powerEventSize = 8 + 4 + 4 + 1

// PowerPerFrame is the number of power events in a full power frame.
const PowerPerFrame = FrameBytes / powerEventSize

// AppendPower packs power events after a FramePower byte.
func AppendPower(dst []byte, evs []sim.PowerEvent) []byte {
	dst = append(dst, FramePower)
	le := binary.LittleEndian
	for _, ev := range evs {
		dst = le.AppendUint64(dst, uint64(ev.At))
		dst = le.AppendUint32(dst, uint32(ev.Cluster))
		dst = le.AppendUint32(dst, uint32(ev.Node))
		dst = append(dst, byte(ev.Mode))
	}
	return dst
}

// DecodePower unpacks a FramePower frame, appending to dst.
func DecodePower(dst []sim.PowerEvent, frame []byte) ([]sim.PowerEvent, error) {
	if len(frame) == 0 || frame[0] != FramePower {
		return dst, errors.New("wire: not a power frame")
	}
	b := frame[1:]
	if len(b)%powerEventSize != 0 {
		return dst, fmt.Errorf("wire: power frame of %d bytes is not a multiple of %d", len(b), powerEventSize)
	}
	le := binary.LittleEndian
	for ; len(b) > 0; b = b[powerEventSize:] {
		m := sdk.PowerMode(b[16])
		if m > sdk.NodeSwitchingOff {
			return dst, fmt.Errorf("wire: power event of mode %d", b[16])
		}
		dst = append(dst, sim.PowerEvent{At: int64(le.Uint64(b[0:])), Cluster: int32(le.Uint32(b[8:])), Node: int32(le.Uint32(b[12:])), Mode: m})
	}
	return dst, nil
}

// drainSize is the bytes of a packed drain.
const drainSize = 4 + 4 + 8 + 8

// DrainsPerFrame is the number of drains in a full drains frame.
const DrainsPerFrame = FrameBytes / drainSize

// AppendDrains packs drains after a FrameDrains byte.
func AppendDrains(dst []byte, ds []sim.PolicyDrain) []byte {
	dst = append(dst, FrameDrains)
	le := binary.LittleEndian
	for _, d := range ds {
		dst = le.AppendUint32(dst, uint32(d.Cluster))
		dst = le.AppendUint32(dst, uint32(d.Node))
		dst = le.AppendUint64(dst, uint64(d.Start))
		dst = le.AppendUint64(dst, uint64(d.End))
	}
	return dst
}

// DecodeDrains unpacks a FrameDrains frame, appending to dst. Only the
// form is checked: the host's verification checks the drains.
func DecodeDrains(dst []sim.PolicyDrain, frame []byte) ([]sim.PolicyDrain, error) {
	if len(frame) == 0 || frame[0] != FrameDrains {
		return dst, errors.New("wire: not a drains frame")
	}
	b := frame[1:]
	if len(b)%drainSize != 0 {
		return dst, fmt.Errorf("wire: drains frame of %d bytes is not a multiple of %d", len(b), drainSize)
	}
	le := binary.LittleEndian
	for ; len(b) > 0; b = b[drainSize:] {
		dst = append(dst, sim.PolicyDrain{Cluster: int32(le.Uint32(b[0:])), Node: int32(le.Uint32(b[4:])),
			Start: int64(le.Uint64(b[8:])), End: int64(le.Uint64(b[16:]))})
	}
	return dst, nil
}

// AppendUnits packs placement entries after a FrameUnits byte.
func AppendUnits(dst []byte, units []int32) []byte {
	dst = append(dst, FrameUnits)
	for _, u := range units {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(u))
	}
	return dst
}

// DecodeUnits unpacks a FrameUnits frame, appending to dst.
func DecodeUnits(dst []int32, frame []byte) ([]int32, error) {
	if len(frame) == 0 || frame[0] != FrameUnits {
		return dst, errors.New("wire: not a units frame")
	}
	b := frame[1:]
	if len(b)%4 != 0 {
		return dst, fmt.Errorf("wire: units frame of %d bytes is not a multiple of 4", len(b))
	}
	for ; len(b) > 0; b = b[4:] {
		dst = append(dst, int32(binary.LittleEndian.Uint32(b)))
	}
	return dst, nil
}

// AppendAllocs packs values of an allocations stream (see FrameAllocs)
// after a FrameAllocs byte.
func AppendAllocs(dst []byte, vals []uint32) []byte {
	dst = append(dst, FrameAllocs)
	for _, v := range vals {
		dst = binary.LittleEndian.AppendUint32(dst, v)
	}
	return dst
}

// AllocsStream returns the values of the allocations stream of a (see
// FrameAllocs).
func AllocsStream(a *sim.Allocs) []uint32 {
	out := make([]uint32, 0, a.Len()+2*len(a.Nodes))
	for i := range a.Len() {
		x := a.Of(i)
		out = append(out, uint32(x.Len()))
		for k, n := range x.Nodes {
			out = append(out, uint32(n), uint32(x.Tasks[k]))
		}
	}
	return out
}

// DecodeAllocs unpacks a FrameAllocs frame, appending its values to dst.
func DecodeAllocs(dst []uint32, frame []byte) ([]uint32, error) {
	if len(frame) == 0 || frame[0] != FrameAllocs {
		return dst, errors.New("wire: not an allocations frame")
	}
	b := frame[1:]
	if len(b)%4 != 0 {
		return dst, fmt.Errorf("wire: allocations frame of %d bytes is not a multiple of 4", len(b))
	}
	for ; len(b) > 0; b = b[4:] {
		dst = append(dst, binary.LittleEndian.Uint32(b))
	}
	return dst, nil
}

// ParseAllocs reads the allocations of jobs jobs from a whole stream of
// values (see FrameAllocs). Only the form is checked: the host's
// verification checks the allocations.
func ParseAllocs(vals []uint32, jobs int) (*sim.Allocs, error) {
	a := &sim.Allocs{Start: make([]int32, jobs+1)}
	rest := vals
	for i := range jobs {
		if len(rest) == 0 {
			return nil, fmt.Errorf("wire: allocations of %d jobs for %d", i, jobs)
		}
		n := uint64(rest[0])
		if n > uint64(len(rest)-1)/2 {
			return nil, fmt.Errorf("wire: the allocation of job index %d has %d nodes, more than the stream holds", i, n)
		}
		for k := range n {
			a.Nodes = append(a.Nodes, int32(rest[1+2*k]))
			a.Tasks = append(a.Tasks, int32(rest[2+2*k]))
		}
		if len(a.Nodes) > math.MaxInt32 {
			return nil, errors.New("wire: too many allocation entries")
		}
		a.Start[i+1] = int32(len(a.Nodes))
		rest = rest[1+2*n:]
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("wire: %d values after the allocations of %d jobs", len(rest), jobs)
	}
	return a, nil
}
