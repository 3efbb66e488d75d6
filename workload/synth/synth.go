// Package synth generates synthetic workloads from simple stochastic
// models, seeded, as SWF records: the model of Mazalov & Nikitina (2012)
// with exponential inter-arrival times, processor requests and runtimes,
// and its variant with truncated-Pareto processor requests. Every
// parameter is named, has the paper's value as default, and is recorded
// with the runs that use it.
package synth

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedlab/schedlab/workload/swf"
)

// The processor-request distributions.
const (
	// ProcsExponential draws ceil(X), X exponential with rate Mu, clamped
	// to [1, Procs].
	ProcsExponential = "exponential"
	// ProcsPareto draws ceil(X), X Pareto with shape ParetoAlpha and scale
	// 1 truncated to [1, Procs] (inverse-CDF sampling of the truncated
	// law), then clamped to [1, Procs].
	ProcsPareto = "pareto"
)

// The walltime (requested time) estimate models.
const (
	// EstimateExact requests exactly the runtime.
	EstimateExact = "exact"
	// EstimateFactor requests the runtime times EstimateFactor, rounded up.
	EstimateFactor = "factor"
	// EstimateUniform requests the runtime times a factor drawn uniformly
	// in [1, EstimateFactor], rounded up (Mu'alem & Feitelson's model).
	EstimateUniform = "uniform"
	// EstimateMax requests the same walltime for every job:
	// EstimateFactor times the mean runtime, rounded up, at least the
	// runtime (a job is never killed); users who do not estimate.
	EstimateMax = "max"
)

// Model is a synthetic workload model. Rates are per minute, as in the
// paper; the records are in seconds.
type Model struct {
	// Jobs is the number of jobs, Procs the platform size.
	Jobs  int
	Procs int64
	// ArrivalRate is the rate of the exponential inter-arrival times
	// (lambda_a; 0.00944 /min: a job every 106 min on average).
	ArrivalRate float64
	// RuntimeRate is the rate of the exponential runtimes (a; 0.0048 /min:
	// 208 min on average).
	RuntimeRate float64
	// ProcsDist is ProcsExponential or ProcsPareto.
	ProcsDist string
	// Mu is the rate of the exponential processor requests (0.10493: about
	// 9.5 processors on average).
	Mu float64
	// ParetoAlpha is the shape of the truncated Pareto; 0 chooses the
	// shape whose mean request equals the exponential model's (see
	// ParetoAlphaForMean).
	ParetoAlpha float64
	// Estimate is the walltime model and EstimateFactor its factor.
	Estimate       string
	EstimateFactor float64
}

// Mazalov2012 returns the model of the paper's section 3, with exact
// estimates.
func Mazalov2012() Model {
	return Model{Jobs: 1000, Procs: 64, ArrivalRate: 0.00944, RuntimeRate: 0.0048,
		ProcsDist: ProcsExponential, Mu: 0.10493, Estimate: EstimateExact, EstimateFactor: 1}
}

// Check reports the first invalid parameter.
func (m Model) Check() error {
	switch {
	case m.Jobs < 1:
		return fmt.Errorf("jobs = %d: at least 1", m.Jobs)
	case m.Procs < 1:
		return fmt.Errorf("procs = %d: at least 1", m.Procs)
	case !(m.ArrivalRate > 0) || math.IsInf(m.ArrivalRate, 0):
		return fmt.Errorf("arrival_rate = %v: a positive rate per minute", m.ArrivalRate)
	case !(m.RuntimeRate > 0) || math.IsInf(m.RuntimeRate, 0):
		return fmt.Errorf("runtime_rate = %v: a positive rate per minute", m.RuntimeRate)
	case m.ProcsDist != ProcsExponential && m.ProcsDist != ProcsPareto:
		return fmt.Errorf("procs_dist = %q: %s or %s", m.ProcsDist, ProcsExponential, ProcsPareto)
	case !(m.Mu > 0):
		return fmt.Errorf("mu = %v: a positive rate", m.Mu)
	case m.ParetoAlpha < 0:
		return fmt.Errorf("pareto_alpha = %v: positive, or 0 to match the exponential mean", m.ParetoAlpha)
	case m.Estimate != EstimateExact && m.Estimate != EstimateFactor && m.Estimate != EstimateUniform && m.Estimate != EstimateMax:
		return fmt.Errorf("estimate = %q: %s, %s, %s or %s", m.Estimate, EstimateExact, EstimateFactor, EstimateUniform, EstimateMax)
	case m.Estimate != EstimateExact && !(m.EstimateFactor >= 1):
		return fmt.Errorf("estimate_factor = %v: at least 1", m.EstimateFactor)
	}
	return nil
}

// MuForShare returns the rate mu whose mean processor request is share
// times the platform size (the paper's p), by bisection.
func (m Model) MuForShare(share float64) (float64, error) {
	target := share * float64(m.Procs)
	if !(target > 1) || target >= float64(m.Procs) {
		return 0, fmt.Errorf("mean share %v: the mean request must be between 1 and %d processors", share, m.Procs)
	}
	lo, hi := 1e-9, 50.0 // mean request falls from about procs to 1
	for range 200 {
		mid := (lo + hi) / 2
		m.Mu = mid
		if m.MeanProcs() > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}

// MeanProcs is the mean processor request of the model's exponential law
// after rounding up and clamping: sum over k of P(request >= k).
func (m Model) MeanProcs() float64 {
	// P(ceil(X) >= k) = P(X > k-1) = exp(-mu (k-1)) for k >= 2; k = 1 always.
	s := 1.0
	for k := int64(2); k <= m.Procs; k++ {
		s += math.Exp(-m.Mu * float64(k-1))
	}
	return s
}

// paretoMean is the mean of ceil(X) for X truncated Pareto(alpha) on
// [1, procs].
func paretoMean(alpha float64, procs int64) float64 {
	// P(ceil(X) >= k) = P(X > k-1) = (F(procs) - F(k-1)) / F(procs) with
	// F(x) = 1 - x^-alpha the untruncated CDF.
	h := float64(procs)
	fh := 1 - math.Pow(h, -alpha)
	s := 1.0
	for k := int64(2); k <= procs; k++ {
		s += (fh - (1 - math.Pow(float64(k-1), -alpha))) / fh
	}
	return s
}

// ParetoAlphaForMean returns the Pareto shape whose truncated, rounded
// mean request equals mean, by bisection; an error when none does.
func ParetoAlphaForMean(mean float64, procs int64) (float64, error) {
	lo, hi := 1e-3, 50.0
	if mean >= paretoMean(lo, procs) || mean <= paretoMean(hi, procs) {
		return 0, fmt.Errorf("no truncated Pareto on [1, %d] has a mean request of %.3f", procs, mean)
	}
	for range 200 {
		mid := (lo + hi) / 2
		if paretoMean(mid, procs) > mean {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}

// Generate draws the workload's jobs with rng. Submit times start at 0;
// every job completes (status 1) and the record's wait is unknown.
func (m Model) Generate(rng *rand.Rand) ([]swf.Record, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, errors.New("synth: no random source")
	}
	alpha := m.ParetoAlpha
	if m.ProcsDist == ProcsPareto && alpha == 0 {
		var err error
		if alpha, err = ParetoAlphaForMean(m.MeanProcs(), m.Procs); err != nil {
			return nil, err
		}
	}
	meanRuntime := 60 / m.RuntimeRate // seconds
	recs := make([]swf.Record, m.Jobs)
	t := 0.0
	for i := range recs {
		if i > 0 {
			t += rng.ExpFloat64() / m.ArrivalRate * 60
		}
		runtime := max(1, int64(math.Ceil(rng.ExpFloat64()/m.RuntimeRate*60)))
		var x float64
		switch m.ProcsDist {
		case ProcsExponential:
			x = rng.ExpFloat64() / m.Mu
		case ProcsPareto:
			// Inverse CDF of the Pareto truncated to [1, h]:
			// F(x) = (1 - x^-a) / (1 - h^-a).
			h := float64(m.Procs)
			u := rng.Float64()
			x = math.Pow(1-u*(1-math.Pow(h, -alpha)), -1/alpha)
		}
		procs := min(max(int64(math.Ceil(x)), 1), m.Procs)
		var req int64
		switch m.Estimate {
		case EstimateExact:
			req = runtime
		case EstimateFactor:
			req = int64(math.Ceil(float64(runtime) * m.EstimateFactor))
		case EstimateUniform:
			req = int64(math.Ceil(float64(runtime) * (1 + rng.Float64()*(m.EstimateFactor-1))))
		case EstimateMax:
			// The tolerance keeps 62500.000000001 from rounding up to 62501.
			req = max(runtime, int64(math.Ceil(meanRuntime*m.EstimateFactor-1e-6)))
		}
		recs[i] = swf.Record{
			JobNumber: int64(i + 1), Submit: int64(t), Wait: swf.Missing, RunTime: runtime,
			AllocProcs: procs, AvgCPUTime: swf.Missing, UsedMemory: swf.Missing, ReqProcs: procs,
			ReqTime: max(req, runtime), ReqMemory: swf.Missing, Status: 1,
			User: swf.Missing, Group: swf.Missing, App: swf.Missing, Queue: swf.Missing,
			Partition: swf.Missing, PrecedingJob: swf.Missing, ThinkTime: swf.Missing,
		}
	}
	return recs, nil
}
