package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

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
// State is the job's state, and the jobs are marked by DefaultRules: a job
// in state TIMEOUT was killed at its limit.
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
			Wait: num(j.Wait()), Submit: num(j.Submit), KEf1: math.NaN(), KEf2: math.NaN(), State: j.State}
		if n := cmp.Or(max(j.NNodes, 0), max(j.AllocNodes, 0), max(j.ReqNodes, 0)); n > 0 {
			out[i].Nodes = float64(n)
		}
		if j.State == "COMPLETED" {
			out[i].KEf1, out[i].KEf2 = j.KEf1(), j.KEf2()
		}
	}
	DefaultRules().Apply(out)
	return out
}

// KEf1Alarm is the share of system time above which paper 002 calls a
// program's efficiency alarming, K_ef1 > 0.5 (section 4: «Если его
// величина, находящаяся в интервале (0,1), превышает значение 0.5 – это
// говорит о том, что более половины времени своего выполнения программа
// тратила на вызовы ядра»).
//
// KEf2Alarm is ours: paper 002 raises its alarm on K_ef2, the share of
// the allocated CPU time left unused, without a number (section 4:
// «Высокие значения показателя неиспользования процессорного времени
// K_ef2 у P_11 являются тревожным сигналом»), on a table where P_11 has a
// mean K_ef2 of 0.78 and the next program 0.40. Any threshold from 0.40 up
// to 0.78 flags P_11 alone; 0.5, more than half of the allocation unused,
// is K_ef1's.
const (
	KEf1Alarm = 0.5
	KEf2Alarm = 0.5
)

// Alarms are the thresholds above which a program's mean K_ef1 or K_ef2
// over its completed jobs is flagged alarming.
type Alarms struct {
	KEf1, KEf2 float64
}

// DefaultAlarms are KEf1Alarm (the paper's) and KEf2Alarm (ours).
func DefaultAlarms() Alarms { return Alarms{KEf1: KEf1Alarm, KEf2: KEf2Alarm} }

// Check reports a threshold that is not a share in [0, 1], naming it.
func (a Alarms) Check() error {
	for _, x := range []struct {
		name string
		v    float64
	}{{"kef1-alarm", a.KEf1}, {"kef2-alarm", a.KEf2}} {
		if !(x.v >= 0 && x.v <= 1) {
			return fmt.Errorf("analysis: %s %v: want a share in [0, 1]", x.name, x.v)
		}
	}
	return nil
}

// Of names the indicators whose mean over the value's completed jobs is
// above its threshold: "K_ef2", "K_ef1", both or none.
func (a Alarms) Of(s Stats) []string {
	var out []string
	if e := s.Params["k_ef2"]; e.N > 0 && e.Mean > a.KEf2 {
		out = append(out, "K_ef2")
	}
	if e := s.Params["k_ef1"]; e.N > 0 && e.Mean > a.KEf1 {
		out = append(out, "K_ef1")
	}
	return out
}

// Flag is Of as the table of programs prints it: "alarming (K_ef2)",
// "alarming (K_ef2, K_ef1)", or "".
func (a Alarms) Flag(s Stats) string {
	if of := a.Of(s); len(of) > 0 {
		return "alarming (" + strings.Join(of, ", ") + ")"
	}
	return ""
}

// Text says what is flagged, for captions: "K_ef2 above 0.5 or K_ef1
// above 0.5".
func (a Alarms) Text() string {
	return fmt.Sprintf("K_ef2 above %g or K_ef1 above %g", a.KEf2, a.KEf1)
}

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
