// Package series holds the time series of a run: step functions of
// simulation time built from its jobs (processors in use, jobs running and
// waiting, the work waiting), exact at every change, and their time
// averages over bins, which keep the area under each curve.
package series

import (
	"slices"
	"sort"

	"github.com/schedlab/schedlab/results"
)

// Step is a step function of simulation time: the value V[i] holds on
// [T[i], T[i+1]), the last value from T[len(T)-1] on, and 0 before T[0].
// T is strictly increasing and consecutive values differ, so a Step has one
// point per change and no more.
type Step struct {
	T []int64
	V []float64
}

// ProcsInUse is the number of processors in use over time: at t, the sum of
// the procs of the jobs with start <= t < end. A job of zero runtime never
// holds a processor.
func ProcsInUse(jobs []results.JobRow) Step {
	ev := make([]event, 0, 2*len(jobs))
	for _, j := range jobs {
		if j.End > j.Start {
			ev = append(ev, event{j.Start, float64(j.Procs)}, event{j.End, -float64(j.Procs)})
		}
	}
	return sweep(ev)
}

// QueueLength is the number of jobs waiting over time: at t, the jobs with
// submit <= t < start. A job that starts when it is submitted never waits.
func QueueLength(jobs []results.JobRow) Step {
	ev := make([]event, 0, 2*len(jobs))
	for _, j := range jobs {
		if j.Start > j.Submit {
			ev = append(ev, event{j.Submit, 1}, event{j.Start, -1})
		}
	}
	return sweep(ev)
}

// event is a change of a step function's value at an instant.
type event struct {
	t     int64
	delta float64
}

// sweep adds up the changes in time order. Changes at one instant are
// merged before the value is recorded, so a job ending when another starts
// makes one point, not a spike or a dip of zero width.
func sweep(ev []event) Step {
	slices.SortFunc(ev, func(a, b event) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
	var s Step
	cur := 0.0
	for i := 0; i < len(ev); {
		t := ev[i].t
		for ; i < len(ev) && ev[i].t == t; i++ {
			cur += ev[i].delta
		}
		last := 0.0
		if n := len(s.V); n > 0 {
			last = s.V[n-1]
		}
		if cur != last {
			s.T = append(s.T, t)
			s.V = append(s.V, cur)
		}
	}
	return s
}

// At is the value at time t.
func (s Step) At(t int64) float64 {
	// i counts the points at or before t.
	i := sort.Search(len(s.T), func(i int) bool { return s.T[i] > t })
	if i == 0 {
		return 0
	}
	return s.V[i-1]
}

// integral is the area under s from -inf (where it is 0) to t.
func (s Step) integral(cum []float64, t float64) float64 {
	i := sort.Search(len(s.T), func(i int) bool { return float64(s.T[i]) > t })
	if i == 0 {
		return 0
	}
	return cum[i-1] + s.V[i-1]*(t-float64(s.T[i-1]))
}

// BinMeans divides [from, to) into n bins of equal width and returns each
// bin's middle and the time average of s over it. A time average, rather
// than a sample at the bin's middle, keeps the area under the curve, so a
// downsampled utilisation curve still averages to the run's utilisation
// and short bursts are not lost or exaggerated by where a sample falls.
// It returns nil slices when n < 1 or to <= from.
func (s Step) BinMeans(from, to float64, n int) (mid, mean []float64) {
	if n < 1 || !(to > from) {
		return nil, nil
	}
	integral := s.Integral()
	mid, mean = make([]float64, n), make([]float64, n)
	width := (to - from) / float64(n)
	prev := integral(from)
	for b := range n {
		lo := from + float64(b)*width
		hi := from + float64(b+1)*width
		if b == n-1 {
			hi = to // no rounding drift at the end
		}
		area := integral(hi)
		mid[b] = (lo + hi) / 2
		mean[b] = (area - prev) / (hi - lo)
		prev = area
	}
	return mid, mean
}

// Span is the time a run's jobs cover: from the first submit to the last
// end. ok is false for no jobs.
func Span(jobs []results.JobRow) (from, to int64, ok bool) {
	if len(jobs) == 0 {
		return 0, 0, false
	}
	from, to = jobs[0].Submit, jobs[0].End
	for _, j := range jobs {
		from = min(from, j.Submit)
		to = max(to, j.End)
	}
	return from, to, true
}

// RunningJobs is the number of jobs running over time: at t, the jobs with
// start <= t < end.
func RunningJobs(jobs []results.JobRow) Step {
	ev := make([]event, 0, 2*len(jobs))
	for _, j := range jobs {
		if j.End > j.Start {
			ev = append(ev, event{j.Start, 1}, event{j.End, -1})
		}
	}
	return sweep(ev)
}

// QueuedWork is the work waiting over time, in processor-seconds as the
// policy sees it: at t, the sum of procs x requested walltime over the
// jobs with submit <= t < start.
func QueuedWork(jobs []results.JobRow) Step {
	ev := make([]event, 0, 2*len(jobs))
	for _, j := range jobs {
		if j.Start > j.Submit {
			w := float64(j.Procs) * float64(j.Walltime)
			ev = append(ev, event{j.Submit, w}, event{j.Start, -w})
		}
	}
	return sweep(ev)
}

// Held is what the jobs hold of one resource over time, on a platform of
// nodes: at t, the sum over the jobs with start <= t < end of amount(i),
// the amount job i holds (its cores, memory or GPUs over its nodes).
func Held(jobs []results.JobRow, amount func(i int) float64) Step {
	ev := make([]event, 0, 2*len(jobs))
	for i, j := range jobs {
		if j.End > j.Start {
			if a := amount(i); a != 0 {
				ev = append(ev, event{j.Start, a}, event{j.End, -a})
			}
		}
	}
	return sweep(ev)
}

// Integral returns a function that gives the area under s from -inf
// (where s is 0) to t, in O(log n) a call after O(n) once.
func (s Step) Integral() func(t float64) float64 {
	cum := make([]float64, len(s.T))
	for i := 1; i < len(s.T); i++ {
		cum[i] = cum[i-1] + s.V[i-1]*float64(s.T[i]-s.T[i-1])
	}
	return func(t float64) float64 { return s.integral(cum, t) }
}

// TimeUnit chooses the unit of a time axis spanning span seconds: its
// length in seconds and its name (days, hours, minutes, seconds).
func TimeUnit(span float64) (seconds float64, name string) {
	switch {
	case span >= 3*86400:
		return 86400, "days"
	case span >= 3*3600:
		return 3600, "hours"
	case span >= 180:
		return 60, "minutes"
	}
	return 1, "seconds"
}
