package analysis

import (
	"cmp"
	"math"
	"slices"

	"github.com/schedlab/schedlab/workload/sacct"
)

// NodeGroup is the factor of sacct input that groups jobs by node count
// (1, 2-4, 5-16, 17-64, >64), for the efficiency indicators by size.
const NodeGroup = "nodes"

// NodeGroups lists the values of the NodeGroup factor, smallest first.
func NodeGroups() []string { return []string{"1", "2-4", "5-16", "17-64", ">64"} }

// nodeGroup names the node-count class of n nodes.
func nodeGroup(n int64) string {
	switch {
	case n < 1:
		return ""
	case n == 1:
		return "1"
	case n <= 4:
		return "2-4"
	case n <= 16:
		return "5-16"
	case n <= 64:
		return "17-64"
	}
	return ">64"
}

// FromSacct converts Slurm accounting jobs: factors user, group, account,
// partition, queue (the QOS), app (the job name) and nodes (the node-count
// group); nodes are NNodes (else the allocated, else the requested ones);
// processors are the allocated CPUs (else the requested ones),
// T_lim the time limit (unknown when unlimited or the partition's), the
// runtime the elapsed time. The efficiency indicators K_ef1 and K_ef2 are
// set on completed jobs only, as paper 002 computes them; NaN elsewhere.
func FromSacct(jobs []sacct.Job) []Job {
	num := func(v int64) float64 {
		if v < 0 {
			return math.NaN()
		}
		return float64(v)
	}
	out := make([]Job, len(jobs))
	for i, j := range jobs {
		f := map[string]string{}
		for name, v := range map[string]string{User: j.User, Group: j.Group, Account: j.Account, Partition: j.Partition,
			Queue: j.QOS, App: j.JobName, NodeGroup: nodeGroup(j.NNodes)} {
			if v != "" {
				f[name] = v
			}
		}
		procs := j.AllocCPUS
		if procs <= 0 {
			procs = j.ReqCPUS
		}
		out[i] = Job{Factors: f, Procs: num(procs), Nodes: math.NaN(), ReqTime: num(j.Timelimit), Runtime: num(j.Elapsed),
			Wait: num(j.Wait()), Submit: num(j.Submit), KEf1: math.NaN(), KEf2: math.NaN()}
		if n := cmp.Or(max(j.NNodes, 0), max(j.AllocNodes, 0), max(j.ReqNodes, 0)); n > 0 {
			out[i].Nodes = float64(n)
		}
		if j.State == "COMPLETED" {
			out[i].KEf1, out[i].KEf2 = j.KEf1(), j.KEf2()
		}
	}
	return out
}

// KEf1Alarm is the share of system time above which paper 002 calls a
// program's efficiency alarming: K_ef1 > 0.5, more time in the system than
// in the program itself.
const KEf1Alarm = 0.5

// Alarming reports whether the value's mean K_ef1 over its completed jobs
// is above KEf1Alarm.
func (s Stats) Alarming() bool { return s.Params["k_ef1"].N > 0 && s.Params["k_ef1"].Mean > KEf1Alarm }

// ByJobs returns the values of st with the most jobs first (ties by
// value), as paper 002's table of programs lists them; st is unchanged.
func ByJobs(st []Stats) []Stats {
	out := slices.Clone(st)
	slices.SortStableFunc(out, func(a, b Stats) int {
		if a.Jobs != b.Jobs {
			return b.Jobs - a.Jobs
		}
		return compareStrings(a.Value, b.Value)
	})
	return out
}
