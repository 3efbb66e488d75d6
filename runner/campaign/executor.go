package campaign

import (
	"os"
	"strconv"
)

// Executor says where a run ran, recorded in its status and in
// runs.parquet.
type Executor struct {
	// Name is "local", or "slurm" inside a Slurm job.
	Name string
	// Host is the machine's host name, empty when the system does not say.
	Host string
	// SlurmJobID is the Slurm job: the array's job ID for a task of a job
	// array (sacct names the task ID_TASK), else the job's; 0 outside Slurm.
	SlurmJobID int64
	// SlurmArrayTaskID is the task of a job array; -1 outside one.
	SlurmArrayTaskID int64
}

// The executors.
const (
	ExecutorLocal = "local"
	ExecutorSlurm = "slurm"
)

// ExecutorFromEnv tells where this process runs from the environment Slurm
// gives the processes of its jobs (SLURM_JOB_ID, SLURM_ARRAY_JOB_ID,
// SLURM_ARRAY_TASK_ID), getenv being os.Getenv or a stand-in.
func ExecutorFromEnv(getenv func(string) string) Executor {
	e := Executor{Name: ExecutorLocal, SlurmArrayTaskID: -1}
	e.Host, _ = os.Hostname()
	num := func(k string) (int64, bool) {
		n, err := strconv.ParseInt(getenv(k), 10, 64)
		return n, err == nil
	}
	id, ok := num("SLURM_JOB_ID")
	if !ok {
		return e
	}
	e.Name, e.SlurmJobID = ExecutorSlurm, id
	if arr, ok := num("SLURM_ARRAY_JOB_ID"); ok {
		e.SlurmJobID = arr
		if task, ok := num("SLURM_ARRAY_TASK_ID"); ok {
			e.SlurmArrayTaskID = task
		}
	}
	return e
}
