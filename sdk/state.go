package sdk

// State is what the engine shows a policy at a scheduling point. It is valid
// only during the Schedule call it is passed to: the engine reuses its slices,
// so a policy that keeps anything past the call must copy it.
type State struct {
	// Now is the current simulated time in seconds.
	Now int64
	// Platform is the simulated machine.
	Platform *Platform
	// Queue holds the waiting jobs in submit order (ties by Index). The
	// jobs submitted since the previous call end it; a job submitted
	// during the run (it depends on another's end: sim.Input.After) may
	// have a lower Index than jobs shown before it, so tell new jobs by
	// their own mark rather than by a bound on Index. (A job released by
	// a rejection in the previous call at this same instant comes last,
	// even before a job of this instant with a higher Index.)
	Queue []*Job
	// Running holds the running jobs ordered by ExpectedEnd, then Index.
	Running []Running
	// Free is the free capacity of each cluster, indexed like
	// Platform.Clusters.
	Free []Vector
	// FreeUnits is the free amount of each unit of each cluster's divided
	// resources (Cluster.Units, in order, flattened), indexed like
	// Platform.Clusters; nil for a cluster without units.
	FreeUnits [][]int64
	// Nodes is the state of each cluster's nodes, indexed like
	// Platform.Clusters; nil for a cluster without nodes. The engine
	// updates it in place as jobs start and end, so reading it costs
	// nothing however many nodes there are; a policy must not change it
	// (CopyFrom makes a copy to change).
	Nodes []*Nodes
	// Completed lists the jobs that ended since the previous call, in the
	// order they ended. A policy may learn from them (their actual runtime is
	// End - Start, now that it is history).
	Completed []Completion
	// Refused lists the reservations (Reserve) the engine refused since the
	// previous call, in the order they were asked: the resources were not
	// free for the whole of the job's walltime.
	Refused []Refusal
	// Outages lists, in CompareOutages order, the outages of nodes the
	// policy knows of: every maintenance window not yet over (known from
	// the run's start), the failures and drains in effect, and the nodes
	// the policy drained itself (PolicyDrain, one outage per node). A
	// failed node's repair time is not known, nor when the policy will
	// resume a node: those outages show End -1. Nil on a run without
	// outages until the policy drains a node. Nodes out of service have
	// nothing free in Nodes (and Free counts nothing of them) while the
	// outage lasts.
	Outages []Outage
	// Power is the power of the nodes, on a run with a power model
	// (sim.Config.Power); nil otherwise.
	Power *PowerState
	// IO shows where running jobs are in their data phases, on a run with
	// an I/O model (sim.Config.IO); nil otherwise. Running.ExpectedEnd
	// stays start plus walltime, the latest a job can end.
	IO IOView
}

// Refusal is a reservation the engine refused.
type Refusal struct {
	Job     *Job
	Cluster int
	At      int64
}

// Running is a job that holds resources.
type Running struct {
	Job     *Job
	Cluster int
	Start   int64
	// ExpectedEnd is Start + Job.Walltime: the latest time the job can end.
	ExpectedEnd int64
	// Units is the job's placement on the cluster's divided resources: the
	// number of its pieces on each unit, laid out like State.FreeUnits; nil
	// on a cluster without units.
	Units []int32
	// Alloc is where the job runs on a cluster of nodes; nil elsewhere.
	Alloc *Alloc
}

// Completion is a job that has ended.
type Completion struct {
	Job     *Job
	Cluster int
	Start   int64
	End     int64
	// Killed reports whether the engine ended the job at its walltime.
	Killed bool
	// Alloc is where the job ran on a cluster of nodes; nil elsewhere.
	Alloc *Alloc
	// Interrupted, when not 0, is the kind of outage of one of the job's
	// nodes that ended it at End: End - Start is then not its runtime.
	// Requeued says that the job went back to the queue (it is in Queue)
	// to start again, from its beginning or, when the run checkpoints,
	// from its last checkpoint.
	Interrupted OutageKind
	Requeued    bool
}

// Action says what a Decision asks the engine to do.
type Action uint8

// The actions a policy can take.
const (
	// ActionStart starts Job on Cluster now.
	ActionStart Action = iota + 1
	// ActionPromise records that Job should start no later than Time (a
	// reservation). The engine stores the first promise of each job, so
	// broken reservations are measured rather than guessed.
	ActionPromise
	// ActionWake asks the engine to call Schedule again at Time even if no
	// job ends or arrives then.
	ActionWake
	// ActionShip ships Job to Cluster now: it may start there Job.Transfer
	// seconds later, and nowhere else.
	ActionShip
	// ActionReserve reserves Job's request on Cluster from Time for its
	// walltime, an advance reservation: the engine refuses it when the
	// resources are not free for that whole time (running jobs counted to
	// their walltimes, other reservations kept), and refuses any later
	// start of another job that would take them. The job should start on
	// Cluster at Time; a reservation it does not start at is broken
	// (recorded, not an error).
	ActionReserve
	// ActionCharge records Cost as what the job's allocation costs, which
	// must not exceed the job's payment (Job.Priority).
	ActionCharge
	// ActionReject takes Job out of the queue for good: it never runs (a
	// grid broker turning away a job that no cluster will take at its
	// payment). Its record says so (sim.Record.Rejected) and metrics count
	// it apart.
	ActionReject
	// ActionPowerOn switches Nodes of Cluster on: each must be off; it is
	// switching on (out of service) for its group's NodePower.OnSeconds,
	// then on. Only on a run with a power model (State.Power).
	ActionPowerOn
	// ActionPowerOff switches Nodes of Cluster off: each must be on, in
	// service and idle (no job holds any of it); it is switching off for
	// NodePower.OffSeconds, then off.
	ActionPowerOff
	// ActionDrain drains Nodes of Cluster, a cluster of nodes, as Slurm's
	// scontrol update state=drain does: from now each takes no new job,
	// and the jobs on it run to their end. A node the policy drained
	// already is refused; a node out of service for another reason (an
	// outage, a power mode) may be drained, and stays drained after that
	// reason ends. State.Outages shows the drain (sdk.PolicyDrain).
	ActionDrain
	// ActionResume returns Nodes of Cluster to service, undoing the
	// policy's own drain (ActionDrain) of each, as scontrol update
	// state=resume does; a node the policy did not drain is refused. An
	// outage or a power mode in effect on the node keeps it out of
	// service by its own rule.
	ActionResume
)

// Decision is one thing a policy asks of the engine. Build it with Start,
// StartOn, Promise or WakeAt.
type Decision struct {
	Action  Action
	Job     *Job
	Cluster int
	Time    int64
	// Cost is the cost an ActionCharge records.
	Cost float64
	// Units, for a start on a cluster with divided resources, is the
	// placement the policy chose (pieces per unit, laid out like
	// State.FreeUnits); nil lets the engine place the pieces by best fit
	// (see PlacePieces).
	Units []int32
	// Alloc, for a start on a cluster of nodes, is the allocation the
	// policy chose; nil lets the engine place the job by the cluster's
	// placement rule (Cluster.Placement).
	Alloc *Alloc
	// Nodes are the nodes, in increasing order, of an ActionPowerOn,
	// ActionPowerOff, ActionDrain or ActionResume.
	Nodes []int32
}

// Start starts j on cluster 0 now.
func Start(j *Job) Decision { return Decision{Action: ActionStart, Job: j} }

// StartOn starts j on the given cluster now.
func StartOn(j *Job, cluster int) Decision {
	return Decision{Action: ActionStart, Job: j, Cluster: cluster}
}

// StartPlaced starts j on the given cluster now with the given placement of
// its pieces on the cluster's divided resources (see Decision.Units).
func StartPlaced(j *Job, cluster int, units []int32) Decision {
	return Decision{Action: ActionStart, Job: j, Cluster: cluster, Units: units}
}

// StartAlloc starts j on the given cluster of nodes now, on allocation a
// (see Decision.Alloc).
func StartAlloc(j *Job, cluster int, a Alloc) Decision {
	return Decision{Action: ActionStart, Job: j, Cluster: cluster, Alloc: &a}
}

// Promise records a reservation: j should start no later than at.
func Promise(j *Job, at int64) Decision { return Decision{Action: ActionPromise, Job: j, Time: at} }

// WakeAt asks for a Schedule call at time t, which must be later than now.
func WakeAt(t int64) Decision { return Decision{Action: ActionWake, Time: t} }

// Ship ships j to the given cluster now (see ActionShip).
func Ship(j *Job, cluster int) Decision {
	return Decision{Action: ActionShip, Job: j, Cluster: cluster}
}

// Reserve reserves j's resources on the given cluster from time at (see
// ActionReserve).
func Reserve(j *Job, cluster int, at int64) Decision {
	return Decision{Action: ActionReserve, Job: j, Cluster: cluster, Time: at}
}

// Charge records what j's allocation costs (see ActionCharge).
func Charge(j *Job, cost float64) Decision { return Decision{Action: ActionCharge, Job: j, Cost: cost} }

// Reject takes j out of the queue unstarted, for good (see ActionReject).
func Reject(j *Job) Decision { return Decision{Action: ActionReject, Job: j} }
