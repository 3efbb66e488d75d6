package lublin

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/workload/swf"
)

// Sessions is the optional user session model of the generator. The
// model's arrivals become the starts of sessions; each session belongs to
// one of Users users, drawn uniformly, and holds a geometric number of
// jobs, JobsMean on average. Its first job comes at the arrival; each next
// job is submitted a think time after the previous one ends, as if it
// started when submitted (the generated log has no waits), and names that
// job in its SWF fields 17 (preceding job) and 18 (think time), which a
// workload's feedback = "swf" honours. Think times are lognormal (median
// ThinkMedian, log-deviation ThinkSigma), drawn again while at least
// ThinkMax: a longer gap would end the session (the 20-minute session
// threshold of Zakay and Feitelson). Size and runtime of each job are drawn
// as without sessions, from its session's class.
//
// This is the structure of the user-based models of Shmueli and Feitelson
// (site-level modelling, MASCOTS 2006) and Zakay and Feitelson (MASCOTS
// 2014): users in sessions, each next job after the previous one's end
// and a think time. Their fitted values could not be read here; the
// defaults (DefaultSessions) are fitted to KTH-SP2's sessions as this lab
// infers them (docs/workloads.md).
type Sessions struct {
	// Users is the number of users; 0 leaves the model off (the default):
	// the generator draws what it drew before the model existed.
	Users int
	// JobsMean is the mean number of jobs of a session, at least 1.
	JobsMean float64
	// ThinkMedian and ThinkSigma are the lognormal of think times: its
	// median in seconds and the standard deviation of its log. ThinkMax is
	// the session threshold in seconds: think times are below it.
	ThinkMedian, ThinkSigma, ThinkMax float64
	// StretchArrivals multiplies the gaps between session starts by
	// JobsMean, so that the model's job rate stays about what it is
	// without sessions (the model's arrivals are jobs, here sessions).
	StretchArrivals bool
}

// DefaultSessions returns the session model's defaults, on: fitted to
// KTH-SP2-1996-2.1-cln under feedback = "sessions" with its defaults
// (TestSessionDefaultsFitKTH): its users, its jobs per session (kept jobs
// over jobs not dependent), the median and log-deviation of its positive
// think times; the threshold of 1200 s that inferred them.
func DefaultSessions() Sessions {
	return Sessions{Users: 214, JobsMean: 1.679, ThinkMedian: 232, ThinkSigma: 1.17, ThinkMax: 1200, StretchArrivals: true}
}

// On reports whether the session model is on.
func (s Sessions) On() bool { return s.Users > 0 }

func (s Sessions) validate() error {
	if !s.On() {
		if s.Users < 0 {
			return fmt.Errorf("session_users %d must be 0 (off) or more", s.Users)
		}
		return nil
	}
	var errs []error
	if !(s.JobsMean >= 1) || math.IsInf(s.JobsMean, 1) {
		errs = append(errs, fmt.Errorf("session_jobs_mean = %v must be at least 1", s.JobsMean))
	}
	if !(s.ThinkMedian > 0) || !(s.ThinkSigma >= 0) || math.IsInf(s.ThinkSigma, 1) {
		errs = append(errs, fmt.Errorf("think_median = %v must be positive and think_sigma = %v at least 0", s.ThinkMedian, s.ThinkSigma))
	}
	if !(s.ThinkMax > 0) || s.ThinkMax > 365*86400 {
		errs = append(errs, fmt.Errorf("think_max = %v must be positive and at most a year", s.ThinkMax))
	}
	if s.ThinkSigma == 0 && s.ThinkMedian >= s.ThinkMax {
		errs = append(errs, fmt.Errorf("think_median = %v is not below think_max = %v with think_sigma 0", s.ThinkMedian, s.ThinkMax))
	}
	return errors.Join(errs...)
}

// think draws a think time in whole seconds, below ThinkMax.
func (s Sessions) think(rng *rand.Rand) int64 {
	for {
		x := s.ThinkMedian * math.Exp(s.ThinkSigma*rng.NormFloat64())
		if x < s.ThinkMax {
			return int64(x)
		}
	}
}

// length draws a session's number of jobs: geometric on 1, 2, ... with
// mean JobsMean.
func (s Sessions) length(rng *rand.Rand) int {
	q := 1 / s.JobsMean
	k := 1
	for rng.Float64() >= q {
		k++
	}
	return k
}

// sessionJob is a job drawn in a session, before the records are sorted.
type sessionJob struct {
	rec  swf.Record
	pred int // index in the drawn jobs of the previous job of the session, -1 for none
	seq  int // the order in which it was drawn, for ties
}

// generateSessions draws m.Jobs jobs in sessions from the streams.
func (m Model) generateSessions(streams []*stream, rng *rand.Rand) []swf.Record {
	var drawn []sessionJob
	cutoff := math.Inf(1) // once enough jobs are drawn: the m.Jobs-th submit time
	for {
		s := streams[0]
		if len(streams) == 2 && !(streams[0].next < streams[1].next) {
			s = streams[1]
		}
		at := s.next
		if len(drawn) >= m.Jobs {
			if math.IsInf(cutoff, 1) {
				subs := make([]float64, len(drawn))
				for i, d := range drawn {
					subs[i] = float64(d.rec.Submit)
				}
				slices.Sort(subs)
				cutoff = subs[m.Jobs-1]
			}
			if math.Floor(at) > cutoff {
				break
			}
		}
		s.advance(m.MaxLogInterarrival)
		user := int64(1 + rng.IntN(m.Sessions.Users))
		t := int64(math.Floor(at))
		pred, think := -1, int64(0)
		n := m.Sessions.length(rng)
		for k := range n {
			nodes := Size(s.class, rng)
			run := Runtime(s.class, nodes, m.MaxLogRuntime, rng)
			r := swf.Record{Submit: t, Wait: -1, RunTime: run, AllocProcs: nodes,
				AvgCPUTime: -1, UsedMemory: -1, ReqProcs: -1, ReqTime: -1, ReqMemory: -1, Status: 1,
				User: user, Group: -1, App: -1, Queue: s.queue, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
			if pred >= 0 {
				r.ThinkTime = think
			}
			drawn = append(drawn, sessionJob{rec: r, pred: pred, seq: len(drawn)})
			pred = len(drawn) - 1
			if k+1 < n {
				think = m.Sessions.think(rng)
				t += run + think
			}
		}
	}
	return finish(drawn, m.Jobs)
}

// finish sorts the drawn jobs by submit time (ties in the order drawn),
// keeps the first n, numbers them from 1 and fills in each one's
// preceding job. A job's predecessor is submitted strictly before it (a
// runtime is at least 1 s), so it is kept with it.
func finish(drawn []sessionJob, n int) []swf.Record {
	order := make([]int, len(drawn))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(drawn[a].rec.Submit, drawn[b].rec.Submit), cmp.Compare(drawn[a].seq, drawn[b].seq))
	})
	number := make([]int64, len(drawn))
	recs := make([]swf.Record, n)
	for k, i := range order[:n] {
		number[i] = int64(k + 1)
		r := drawn[i].rec
		r.JobNumber = number[i]
		if p := drawn[i].pred; p >= 0 {
			r.PrecedingJob = number[p]
		}
		recs[k] = r
	}
	return recs
}
