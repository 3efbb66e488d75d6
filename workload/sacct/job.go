package sacct

import "math"

// Missing is the value of an integer field the log does not give (an
// absent column, an empty field, "Unknown"). Fractional fields use NaN,
// strings "", maps nil.
const Missing = -1

// Job is one job of a log: its allocation record, with what its steps and
// het-job components add (see the package documentation). Times are Unix
// seconds, durations seconds, memory bytes.
type Job struct {
	// Line is the 1-based line of the allocation record (its first line if
	// it spans several).
	Line int

	// ID is the job's JobID without step or het-component suffix: "123",
	// "123_4" for an array task, "123_[1-5]" for an array's pending
	// tasks, "123" for the components "123+0", "123+1" of a het job.
	ID string
	// JobID is the leading number of ID: the array's or het job's id.
	JobID int64
	// ArrayTask is the array task index (4 of "123_4"), or Missing.
	ArrayTask int64
	// RawID is the JobIDRaw of the allocation record: Slurm's own id of the
	// record, distinct for every array task; Missing without the column.
	RawID int64
	// HetComponents is the number of het-job component records folded
	// into the job ("123+0", "123+1": 2); 0 for an ordinary job.
	HetComponents int
	// Steps lists the folded steps by the text after the job's ID:
	// "batch", "extern", "0", or "+1.0" for a het job's component 1.
	Steps []string

	// Cluster, User, Group, Account, Partition, QOS and JobName are the
	// fields of the same names ("" when absent).
	Cluster, User, Group, Account, Partition, QOS, JobName string
	// NodeList is the allocated nodes, in Slurm's compressed form.
	NodeList string
	// Constraints is the job's constraint expression (--constraint,
	// "intel&ib"), as the log gives it; "" when none or absent.
	Constraints string
	// UID and GID are the numeric user and group ids, or Missing.
	UID, GID int64
	// Priority is the job's priority (Priority: Slurm's at its last
	// computation, for a job that ran its priority when it started), read
	// with Options.Priority only; Missing otherwise.
	Priority int64

	// State is the normalised state (see NormalizeState): COMPLETED,
	// FAILED, CANCELLED, TIMEOUT, OUT_OF_MEMORY, ...; "" when absent.
	State string
	// CancelledBy is the uid of "CANCELLED by <uid>", or Missing.
	CancelledBy int64
	// ExitStatus and ExitSignal are the two halves of ExitCode
	// ("status:signal"), or Missing.
	ExitStatus, ExitSignal int64

	// Submit, Eligible, Start and End are Unix seconds, or Missing
	// ("Unknown", "None", empty).
	Submit, Eligible, Start, End int64
	// Elapsed is the run time in seconds (ElapsedRaw when Elapsed is
	// absent), or Missing.
	Elapsed int64
	// Timelimit is the requested time in seconds (TimelimitRaw minutes
	// when Timelimit is absent), or Missing: unknown, unlimited or the
	// partition's limit, told apart by the two flags.
	Timelimit int64
	// TimelimitUnlimited is set for "UNLIMITED".
	TimelimitUnlimited bool
	// TimelimitPartition is set for "Partition_Limit": the partition's
	// limit applied, and the log does not say what it was.
	TimelimitPartition bool

	// AllocCPUS, NCPUS (allocated, else requested), ReqCPUS, AllocNodes,
	// NNodes (allocated, else requested) and ReqNodes are counts, or
	// Missing.
	AllocCPUS, NCPUS, ReqCPUS, AllocNodes, NNodes, ReqNodes int64
	// ReqMem is the requested memory in bytes, or Missing; ReqMemPer says
	// per what (CPU, node, or the job's total on Slurm 21.08 and later).
	ReqMem    int64
	ReqMemPer MemPer
	// MaxRSS and MaxVMSize are peak memory in bytes, or Missing.
	MaxRSS, MaxVMSize int64
	// TotalCPU, UserCPU and SystemCPU are consumed CPU seconds
	// (TotalCPU = user + system), or NaN.
	TotalCPU, UserCPU, SystemCPU float64
	// CPUTime is the allocated CPU seconds (Elapsed x AllocCPUS), from
	// CPUTimeRAW when present, or Missing.
	CPUTime int64
	// AllocTRES and ReqTRES are the allocated and requested trackable
	// resources (nil when absent).
	AllocTRES, ReqTRES TRES

	// Header names the fields of Raw; it is shared by the jobs of a log.
	Header *Header
	// Raw holds the allocation record's fields as read (after the
	// attribution of extra '|'), in header order.
	Raw []string
}

// newJob returns a Job with every field missing except the raw fields.
func newJob(h *Header, raw []string) Job {
	nan := math.NaN()
	return Job{
		ArrayTask: Missing, RawID: Missing, UID: Missing, GID: Missing, Priority: Missing,
		CancelledBy: Missing, ExitStatus: Missing, ExitSignal: Missing,
		Submit: Missing, Eligible: Missing, Start: Missing, End: Missing,
		Elapsed: Missing, Timelimit: Missing,
		AllocCPUS: Missing, NCPUS: Missing, ReqCPUS: Missing,
		AllocNodes: Missing, NNodes: Missing, ReqNodes: Missing,
		ReqMem: Missing, MaxRSS: Missing, MaxVMSize: Missing,
		TotalCPU: nan, UserCPU: nan, SystemCPU: nan, CPUTime: Missing,
		Header: h, Raw: raw,
	}
}

// Field returns the raw text of the named field (case-insensitive), and
// whether the log has it. Every field of the header is available, known
// to this package or not.
func (j Job) Field(name string) (string, bool) {
	if j.Header == nil {
		return "", false
	}
	i := j.Header.Index(name)
	if i < 0 || i >= len(j.Raw) {
		return "", false
	}
	return j.Raw[i], true
}

// Wait is Start - Submit in seconds, or Missing when either is unknown.
func (j Job) Wait() int64 {
	if j.Start < 0 || j.Submit < 0 {
		return Missing
	}
	return j.Start - j.Submit
}

// KWall is T_run / T_lim = Elapsed / Timelimit (paper 002), or NaN when
// either is unknown or the limit is not positive (unlimited, partition
// limit).
func (j Job) KWall() float64 {
	if j.Elapsed < 0 || j.Timelimit <= 0 {
		return math.NaN()
	}
	return float64(j.Elapsed) / float64(j.Timelimit)
}

// KEf1 is T_sys / (T_sys + T_user) = SystemCPU / (SystemCPU + UserCPU)
// (paper 002), or NaN when either is unknown or both are 0. Paper 002
// computes it on completed jobs; filter on State == StateCompleted.
func (j Job) KEf1() float64 {
	s := j.SystemCPU + j.UserCPU
	if math.IsNaN(s) || s <= 0 {
		return math.NaN()
	}
	return j.SystemCPU / s
}

// KEf2 is (T_CPU - (T_sys + T_user)) / T_CPU with T_CPU = CPUTime, the
// allocated CPU seconds (paper 002): the share of the allocation left
// idle. It is NaN when a term is unknown or CPUTime is 0. Like KEf1, paper
// 002 computes it on completed jobs.
func (j Job) KEf2() float64 {
	s := j.SystemCPU + j.UserCPU
	if math.IsNaN(s) || j.CPUTime <= 0 {
		return math.NaN()
	}
	t := float64(j.CPUTime)
	return (t - s) / t
}
