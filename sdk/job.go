package sdk

// Vector is an amount of each resource of a platform, indexed like
// Platform.Resources. Index 0 is processors on every platform.
type Vector []int64

// Fits reports whether v is at most avail in every resource.
func (v Vector) Fits(avail Vector) bool {
	for i, x := range v {
		if x > avail[i] {
			return false
		}
	}
	return true
}

// Add adds w to v in place.
func (v Vector) Add(w Vector) {
	for i, x := range w {
		v[i] += x
	}
}

// Sub subtracts w from v in place.
func (v Vector) Sub(w Vector) {
	for i, x := range w {
		v[i] -= x
	}
}

// Clone returns a copy of v that shares no memory with it.
func (v Vector) Clone() Vector {
	return append(Vector(nil), v...)
}

// Job is what a policy knows about a job: everything the user declared at
// submission, never its actual runtime.
type Job struct {
	// Index is the job's position in the run's workload, in submit order
	// (ties broken by ID). It is dense (0..n-1), so policies may use it to
	// index their own per-job slices.
	Index int
	// ID is the job's number in the source trace (SWF field 1).
	ID int64
	// Submit is the submission time in seconds: for a job that depends on
	// another (sim.Input.After), its submission in the run, that job's end
	// plus its think time.
	Submit int64
	// Walltime is the requested walltime in seconds: the engine kills the job
	// when it has run this long. It is the only runtime estimate a policy
	// gets; with exact estimates it equals the job's actual runtime.
	Walltime int64
	// Request is the amount of each platform resource the job needs while it
	// runs. Request[0] is processors.
	Request Vector
	// User, Group, App, Queue and Partition are the trace's numeric
	// attributes; -1 where the trace has none.
	User, Group, App, Queue, Partition int32
	// Priority is an optional priority or payment declared with the job
	// (zero when the workload has none).
	Priority float64
	// Home is 1 + the index of the cluster whose local stream the job
	// belongs to, the only cluster it may run on; 0 for a job free to run
	// on any cluster (a grid's global job, or any job of a workload without
	// streams). HomeCluster reads it.
	Home int32
	// Transfer is the time, in seconds, to ship the job to the cluster it
	// runs on: a job with a Transfer starts only on a cluster it was
	// shipped to (Ship), Transfer seconds after. 0 for a job already where
	// it runs.
	Transfer int64
	// Requires is the set of cluster features (Cluster.Features) the job
	// needs, as a mask over Platform.ClusterFeatures (bit k for name k): it
	// runs, is shipped and is reserved for only on a cluster that has them
	// all (Platform.Serves). 0 for a job any cluster serves.
	Requires uint64
	// Tasks says how the job's request lies on nodes, on a platform of
	// nodes; nil elsewhere. Request then holds the totals the tasks add up
	// to (see Layout.Demand).
	Tasks *Tasks
}

// HomeCluster returns the cluster whose local stream the job belongs to,
// and false for a job free to run on any cluster.
func (j *Job) HomeCluster() (int, bool) { return int(j.Home) - 1, j.Home > 0 }

// Procs returns the number of processors the job requests.
func (j *Job) Procs() int64 { return j.Request[0] }
