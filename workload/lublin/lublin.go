// Package lublin generates rigid parallel jobs from the workload model of
// Lublin & Feitelson, "The workload on parallel supercomputers: modeling
// the characteristics of rigid jobs" (JPDC 63(11), 2003), as the authors'
// program m_lublin99.c draws them: sizes from a two-stage uniform on log2
// of the size with serial and power-of-two jobs apart, runtimes from a
// hyper-gamma on log runtime whose mixing depends on the size, arrivals
// from a gamma on log inter-arrival time run through a daily cycle of 48
// half-hour buckets, for batch and interactive jobs as two streams. Every
// parameter is named, has the published value as default, and may be
// overridden; docs/workloads.md lists them.
package lublin

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/schedlab/schedlab/workload/swf"
)

// Class holds the parameters of one kind of job (batch, interactive, or
// the model fitted on all jobs without types). Names follow m_lublin99.c.
type Class struct {
	// SerialProb is the share of serial jobs and Pow2Prob of parallel jobs
	// whose size is rounded to a power of two.
	SerialProb, Pow2Prob float64
	// ULow, UMed, UHi and UProb define the two-stage uniform on log2 of a
	// parallel job's size: uniform on [ULow, UMed] with probability UProb,
	// else on [UMed, UHi]. UHi is log2 of the largest job.
	ULow, UMed, UHi, UProb float64
	// A1, B1, A2, B2 are the shapes and scales of the two gammas of the
	// hyper-gamma on the natural log of the runtime; the first is drawn
	// with probability PA*size + PB, clamped to [0, 1].
	A1, B1, A2, B2, PA, PB float64
	// AArr and BArr are the shape and scale of the gamma on the natural log
	// of the inter-arrival time at rush hours; ARAR scales AArr to all
	// hours. ANum and BNum are the shape and scale of the gamma whose
	// density over half-hour buckets, starting at bucket 11, gives the
	// daily cycle.
	AArr, BArr, ANum, BNum, ARAR float64
}

// The modes: which streams a workload has.
const (
	// ModeMixed draws batch and interactive jobs as two streams, each job
	// of the stream whose next arrival comes first (INCLUDE_JOBS_TYPE 1,
	// the authors' default).
	ModeMixed = "mixed"
	// ModeBatch and ModeInteractive draw one of the two streams alone.
	ModeBatch       = "batch"
	ModeInteractive = "interactive"
	// ModeTypeless draws one stream with the parameters fitted on all jobs
	// regardless of type (INCLUDE_JOBS_TYPE 0).
	ModeTypeless = "typeless"
)

// The queue numbers of the SWF records, as m_lublin99.c writes them.
const (
	QueueInteractive = 0
	QueueBatch       = 1
)

// PublishedProcs is the machine size the published parameters describe:
// UHi = 7 for batch jobs, log2 of 128 nodes.
const PublishedProcs = 128

// Model is a configured generator.
type Model struct {
	// Jobs is the number of jobs to draw.
	Jobs int
	// Procs is the machine's size. With ScaleSizes, UMed and UHi of every
	// class are shifted by log2(Procs / PublishedProcs), keeping the
	// published distances between them (Lublin's advice: UHi is log2 of
	// the system size, UMed 1.5 to 3.5 below).
	Procs      int64
	ScaleSizes bool
	// Mode says which streams to draw (ModeMixed, ...).
	Mode string
	// Batch, Interactive and Typeless are the classes' parameters.
	Batch, Interactive, Typeless Class
	// StartHour is the hour of the day (0-23) at which the log starts.
	StartHour int
	// MaxLogRuntime and MaxLogInterarrival bound the natural logs of
	// runtimes and inter-arrival times: larger draws are drawn again
	// (TOO_MUCH_TIME 12, about 45 hours; TOO_MUCH_ARRIVE_TIME 13, about 5
	// days).
	MaxLogRuntime, MaxLogInterarrival float64
	// TruncateClock keeps each stream's clock in whole seconds, truncated
	// at every arrival, as m_lublin99.c does (an unsigned long). It loses
	// half a second per arrival on average, against the buckets, so that
	// the daily cycle drifts and smears over a long log (half a second times
	// 100,000 arrivals is about 14 hours). Off by default: the clock is kept exactly
	// and only submit times are truncated.
	TruncateClock bool
	// Sessions is the optional user session model; off (Users 0) by
	// default.
	Sessions Sessions
}

// Published returns the parameters of m_lublin99.c, for 128 nodes.
func Published() Model {
	return Model{
		Jobs: 10000, Procs: PublishedProcs, ScaleSizes: true, Mode: ModeMixed,
		Batch: Class{SerialProb: 0.2927, Pow2Prob: 0.6686, ULow: 1.2, UMed: 5, UHi: 7, UProb: 0.875,
			A1: 6.57, B1: 0.823, A2: 639.1, B2: 0.0156, PA: -0.003, PB: 0.6986,
			AArr: 6.0415, BArr: 0.8531, ANum: 6.1271, BNum: 5.2740, ARAR: 1.0519},
		Interactive: Class{SerialProb: 0.1541, Pow2Prob: 0.625, ULow: 1, UMed: 3, UHi: 5.5, UProb: 0.705,
			A1: 3.8351, B1: 0.6605, A2: 7.073, B2: 0.6856, PA: -0.0118, PB: 0.9156,
			AArr: 6.5510, BArr: 0.6621, ANum: 8.9186, BNum: 3.6680, ARAR: 0.9797},
		Typeless: Class{SerialProb: 0.244, Pow2Prob: 0.576, ULow: 0.8, UMed: 4.5, UHi: 7, UProb: 0.86,
			A1: 4.2, B1: 0.94, A2: 312, B2: 0.03, PA: -0.0054, PB: 0.78,
			AArr: 10.2303, BArr: 0.4871, ANum: 8.1737, BNum: 3.9631, ARAR: 1.0225},
		MaxLogRuntime: 12, MaxLogInterarrival: 13,
	}
}

// Buckets is the number of half-hour buckets of the daily cycle, and
// BucketSeconds their length.
const (
	Buckets       = 48
	BucketSeconds = 86400 / Buckets
	// cycleStart is the bucket at which the daily-cycle gamma starts
	// (CYCLIC_DAY_START).
	cycleStart = 11
)

// Validate checks the model.
func (m Model) Validate() error {
	var errs []error
	if m.Jobs < 1 {
		errs = append(errs, fmt.Errorf("jobs must be at least 1, got %d", m.Jobs))
	}
	if m.Procs < 1 {
		errs = append(errs, fmt.Errorf("a platform of %d processors", m.Procs))
	}
	switch m.Mode {
	case ModeMixed, ModeBatch, ModeInteractive, ModeTypeless:
	default:
		errs = append(errs, fmt.Errorf("mode %q: want %s, %s, %s or %s", m.Mode, ModeMixed, ModeBatch, ModeInteractive, ModeTypeless))
	}
	if m.StartHour < 0 || m.StartHour > 23 {
		errs = append(errs, fmt.Errorf("start_hour %d: want 0 to 23", m.StartHour))
	}
	if !(m.MaxLogRuntime > 0) || !(m.MaxLogInterarrival > 0) {
		errs = append(errs, errors.New("the bounds on log runtime and log inter-arrival time must be positive"))
	}
	if err := m.Sessions.validate(); err != nil {
		errs = append(errs, err)
	}
	for _, c := range []struct {
		name  string
		class Class
	}{{"batch", m.Batch}, {"interactive", m.Interactive}, {"typeless", m.Typeless}} {
		if err := c.class.validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}

func (c Class) validate() error {
	var errs []error
	prob := func(name string, p float64) {
		if !(p >= 0 && p <= 1) {
			errs = append(errs, fmt.Errorf("%s = %v is not a probability", name, p))
		}
	}
	prob("serial_prob", c.SerialProb)
	prob("pow2_prob", c.Pow2Prob)
	prob("uprob", c.UProb)
	if c.SerialProb+c.Pow2Prob > 1 {
		errs = append(errs, fmt.Errorf("serial_prob + pow2_prob = %v exceeds 1", c.SerialProb+c.Pow2Prob))
	}
	if !(c.ULow <= c.UMed && c.UMed <= c.UHi) || c.ULow < 0 {
		errs = append(errs, fmt.Errorf("want 0 <= ulow <= umed <= uhi, got %v, %v, %v", c.ULow, c.UMed, c.UHi))
	}
	for _, f := range c.Fields() {
		switch f.Name {
		case "a1", "b1", "a2", "b2", "aarr", "barr", "anum", "bnum", "arar":
			if v := *f.Ptr; !(v > 0) || math.IsInf(v, 1) {
				errs = append(errs, fmt.Errorf("%s = %v must be positive", f.Name, v))
			}
		}
	}
	return errors.Join(errs...)
}

// scaled returns the class with UMed and UHi shifted by shift.
func (c Class) scaled(shift float64) Class {
	c.UMed += shift
	c.UHi += shift
	return c
}

// stream is the arrival process of one class (the static state of
// calc_next_arrive in m_lublin99.c).
type stream struct {
	class    Class
	queue    int64
	weights  [Buckets]float64
	bucket   int
	points   float64
	reminder float64
	next     float64 // the next job's arrival time, in seconds
	truncate bool    // Model.TruncateClock
	stretch  float64 // the factor of the gaps: Sessions.JobsMean when stretched, else 1
	gamma    distuv.Gamma
}

// Weights returns the daily cycle of a class: each half-hour bucket's share
// of arrivals relative to the mean bucket (they average 1), bucket 0
// starting at midnight.
func (c Class) Weights() [Buckets]float64 {
	var w [Buckets]float64
	g := distuv.Gamma{Alpha: c.ANum, Beta: 1 / c.BNum}
	mean := 0.0
	for i := cycleStart; i < Buckets+cycleStart; i++ {
		idx := (i - 1) % Buckets // buckets 1..48 of the program are 0..47 here
		w[idx] = g.CDF(float64(i)+0.5) - g.CDF(float64(i)-0.5)
		mean += w[idx]
	}
	mean /= Buckets
	for i := range w {
		w[i] /= mean
	}
	return w
}

func newStream(c Class, queue int64, m Model, rng *rand.Rand) *stream {
	stretch := 1.0
	if m.Sessions.On() && m.Sessions.StretchArrivals {
		stretch = m.Sessions.JobsMean
	}
	return &stream{class: c, queue: queue, weights: c.Weights(), bucket: m.StartHour * Buckets / 24, truncate: m.TruncateClock,
		stretch: stretch, gamma: distuv.Gamma{Alpha: c.AArr * c.ARAR, Beta: 1 / c.BArr, Src: rng}}
}

// advance draws the time to the stream's next arrival: a gamma draw on log
// seconds is turned into points (seconds over a bucket's length), which
// pay for the buckets passed at their weights, so that a bucket of weight
// 2 lets arrivals come twice as often.
func (s *stream) advance(maxLog float64) {
	var g float64
	for g = s.gamma.Rand(); g > maxLog; g = s.gamma.Rand() {
	}
	gap := math.Exp(g)
	if s.stretch != 1 {
		gap *= s.stretch
	}
	s.points += gap / BucketSeconds
	next := 0.0
	for s.points > s.weights[s.bucket] {
		s.points -= s.weights[s.bucket]
		s.bucket = (s.bucket + 1) % Buckets
		next += BucketSeconds
	}
	rem := s.points / s.weights[s.bucket]
	next += BucketSeconds * (rem - s.reminder)
	s.reminder = rem
	s.next += next
	if s.truncate {
		s.next = math.Trunc(s.next)
	}
}

// Generate draws the model's jobs as SWF records, in arrival order, with
// the requested processors and time unknown (-1), as the program writes
// them; the queue field says the job's type (QueueBatch or
// QueueInteractive). With the session model on (Model.Sessions), the
// records have users, preceding jobs and think times (generateSessions).
func (m Model) Generate(rng *rand.Rand) ([]swf.Record, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("lublin-feitelson: %w", err)
	}
	shift := 0.0
	if m.ScaleSizes {
		shift = math.Log2(float64(m.Procs) / PublishedProcs)
	}
	var streams []*stream
	switch m.Mode {
	case ModeMixed:
		// The program draws the batch stream's first arrival first.
		streams = []*stream{newStream(m.Batch.scaled(shift), QueueBatch, m, rng),
			newStream(m.Interactive.scaled(shift), QueueInteractive, m, rng)}
	case ModeBatch:
		streams = []*stream{newStream(m.Batch.scaled(shift), QueueBatch, m, rng)}
	case ModeInteractive:
		streams = []*stream{newStream(m.Interactive.scaled(shift), QueueInteractive, m, rng)}
	case ModeTypeless:
		streams = []*stream{newStream(m.Typeless.scaled(shift), QueueInteractive, m, rng)}
	}
	for _, s := range streams {
		s.advance(m.MaxLogInterarrival)
	}
	if m.Sessions.On() {
		return m.generateSessions(streams, rng), nil
	}
	recs := make([]swf.Record, m.Jobs)
	for i := range recs {
		// The batch stream's job when it comes strictly first, as the
		// program's arrive() chooses.
		s := streams[0]
		if len(streams) == 2 && !(streams[0].next < streams[1].next) {
			s = streams[1]
		}
		at := s.next
		s.advance(m.MaxLogInterarrival)
		nodes := Size(s.class, rng)
		run := Runtime(s.class, nodes, m.MaxLogRuntime, rng)
		recs[i] = swf.Record{JobNumber: int64(i + 1), Submit: int64(math.Floor(at)), Wait: -1, RunTime: run, AllocProcs: nodes,
			AvgCPUTime: -1, UsedMemory: -1, ReqProcs: -1, ReqTime: -1, ReqMemory: -1, Status: 1,
			User: -1, Group: -1, App: -1, Queue: s.queue, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
	}
	return recs, nil
}

// Size draws a job's size: 1 with probability SerialProb; else 2^x with x
// from the two-stage uniform, x rounded first with probability Pow2Prob
// (of all jobs), the size rounded to an integer.
func Size(c Class, rng *rand.Rand) int64 {
	u := rng.Float64()
	if u <= c.SerialProb {
		return 1
	}
	lo, hi := c.UMed, c.UHi
	if rng.Float64() <= c.UProb {
		lo, hi = c.ULow, c.UMed
	}
	par := lo + rng.Float64()*(hi-lo)
	if u <= c.SerialProb+c.Pow2Prob {
		par = math.Floor(par + 0.5)
	}
	return int64(math.Pow(2, par) + 0.5)
}

// MixProb is the probability of a job of the given size to draw its log
// runtime from the first gamma.
func (c Class) MixProb(nodes int64) float64 {
	return min(max(c.PA*float64(nodes)+c.PB, 0), 1)
}

// Runtime draws a job's runtime in seconds, exp of the hyper-gamma drawn
// again while above maxLog, truncated to whole seconds (at least 1).
func Runtime(c Class, nodes int64, maxLog float64, rng *rand.Rand) int64 {
	p := c.MixProb(nodes)
	g1 := distuv.Gamma{Alpha: c.A1, Beta: 1 / c.B1, Src: rng}
	g2 := distuv.Gamma{Alpha: c.A2, Beta: 1 / c.B2, Src: rng}
	for {
		var hg float64
		if rng.Float64() <= p {
			hg = g1.Rand()
		} else {
			hg = g2.Rand()
		}
		if hg <= maxLog {
			return max(int64(math.Exp(hg)), 1)
		}
	}
}

// Field is one parameter of a class, by the name manifests give it.
type Field struct {
	Name string
	Doc  string
	Ptr  *float64
}

// Fields lists the parameters of c, with pointers into it, in the order
// docs/workloads.md shows them.
func (c *Class) Fields() []Field {
	return []Field{
		{"serial_prob", "share of serial jobs", &c.SerialProb},
		{"pow2_prob", "share of jobs whose size is a power of two by rounding", &c.Pow2Prob},
		{"ulow", "two-stage uniform on log2 size: lower bound", &c.ULow},
		{"umed", "two-stage uniform on log2 size: the point between its two stages", &c.UMed},
		{"uhi", "two-stage uniform on log2 size: upper bound (log2 of the largest job)", &c.UHi},
		{"uprob", "two-stage uniform on log2 size: probability of the lower stage", &c.UProb},
		{"a1", "hyper-gamma on log runtime: shape of the first gamma", &c.A1},
		{"b1", "hyper-gamma on log runtime: scale of the first gamma", &c.B1},
		{"a2", "hyper-gamma on log runtime: shape of the second gamma", &c.A2},
		{"b2", "hyper-gamma on log runtime: scale of the second gamma", &c.B2},
		{"pa", "probability of the first gamma = pa * size + pb: slope", &c.PA},
		{"pb", "probability of the first gamma = pa * size + pb: intercept", &c.PB},
		{"aarr", "gamma on log inter-arrival time at rush hours: shape", &c.AArr},
		{"barr", "gamma on log inter-arrival time at rush hours: scale", &c.BArr},
		{"anum", "gamma of the daily cycle over half-hour buckets: shape", &c.ANum},
		{"bnum", "gamma of the daily cycle over half-hour buckets: scale", &c.BNum},
		{"arar", "ratio of the inter-arrival shape at all hours to that at rush hours", &c.ARAR},
	}
}
