package manifest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload/estimates"
)

// The names of the runtime-estimate transforms.
const (
	TransformEstimatesTsafrir = "estimates-tsafrir"
	TransformEstimatesF       = "estimates-f"
)

// The jobs an estimate transform changes (its jobs parameter).
const (
	// EstimateJobsExact changes the jobs whose walltime equals their runtime:
	// exact estimates, and the estimates a trace lacks, which cleaning sets
	// to the runtime (clean.missing-walltime = use-runtime).
	EstimateJobsExact = "exact"
	// EstimateJobsAll changes every job.
	EstimateJobsAll = "all"
)

// estimateTargets returns the indexes of the jobs to give estimates.
func estimateTargets(p sdk.Params, jobs []sim.Input) []int {
	var out []int
	for i := range jobs {
		if p.String("jobs") == EstimateJobsAll || jobs[i].Job.Walltime == jobs[i].Runtime {
			out = append(out, i)
		}
	}
	return out
}

// estimateJobsParam declares the jobs parameter of the estimate transforms.
func estimateJobsParam() sdk.Param {
	return sdk.Param{Name: "jobs", Type: sdk.String, Default: EstimateJobsExact, Choices: []string{EstimateJobsExact, EstimateJobsAll},
		Doc: "exact: the jobs whose walltime is their runtime (with the traces' missing estimates, which cleaning sets so); all: every job"}
}

// estimateCounts are what both estimate transforms count.
func estimateCounts(jobs []sim.Input, targets []int, before []int64, maxest int64) map[string]int64 {
	c := map[string]int64{"jobs": int64(len(targets))}
	for k, i := range targets {
		j := jobs[i]
		if j.Job.Walltime != before[k] {
			c["changed"]++
		}
		if j.Job.Walltime == j.Runtime {
			c["exact"]++
		}
		if maxest > 0 && j.Job.Walltime == maxest {
			c["maximal"]++
		}
		if j.Runtime > j.Job.Walltime {
			c["killed"]++
		}
	}
	return c
}

func tsafrirTransform() Transform {
	d := estimates.Published()
	f := formatFloat
	model := func(p sdk.Params) estimates.Tsafrir {
		m := estimates.Published()
		m.MaxEstimate, m.Bins = p.Int("max_estimate"), int(p.Int("bins"))
		m.HeadSum, m.HeadA, m.HeadB, m.HeadC = p.Float("head_sum"), p.Float("head_a"), p.Float("head_b"), p.Float("head_c")
		m.TailA, m.TailB, m.TimeParam = p.Float("tail_a"), p.Float("tail_b"), p.Float("time_param")
		return m
	}
	return Transform{
		Name: TransformEstimatesTsafrir,
		Doc: "user runtime estimates of Tsafrir, Etsion & Feitelson (JSSPP 2005), as est_model.cc draws them: " +
			"20 popular round values (the maximum the most popular) for head_sum % of the jobs and a tail of others, " +
			"each job an estimate at least its runtime",
		Params: []sdk.Param{
			estimateJobsParam(),
			{Name: "max_estimate", Type: sdk.Int, Default: "0", Doc: "the largest estimate, in seconds (at least 3600); 0: the longest runtime of the jobs changed, rounded up to whole hours"},
			{Name: "bins", Type: sdk.Int, Default: "0", Doc: "number of distinct estimates; 0: the model's function of the number of jobs"},
			{Name: "head_sum", Type: sdk.Float, Default: f(d.HeadSum), Doc: "percentage of jobs using one of the 20 most popular estimates"},
			{Name: "head_a", Type: sdk.Float, Default: f(d.HeadA), Doc: "percentage of popularity rank x = 2..20: head_a * exp(head_b * x) + head_c"},
			{Name: "head_b", Type: sdk.Float, Default: f(d.HeadB), Doc: "see head_a"},
			{Name: "head_c", Type: sdk.Float, Default: f(d.HeadC), Doc: "see head_a"},
			{Name: "tail_a", Type: sdk.Float, Default: f(d.TailA), Doc: "size of popularity rank x >= 21: tail_a * x^tail_b, scaled to 100 - head_sum in all"},
			{Name: "tail_b", Type: sdk.Float, Default: f(d.TailB), Doc: "see tail_a"},
			{Name: "time_param", Type: sdk.Float, Default: "0", Doc: "a of the tail's times, y = (a-1) x / (a-x); 0: 1 + 12.1039 * bins^-0.6026"},
		},
		Counts: []string{"jobs", "changed", "exact", "maximal", "killed", "distinct", "max_estimate"},
		Check: func(p sdk.Params, _ *sdk.Platform) error {
			if m := model(p); m.MaxEstimate != 0 && m.MaxEstimate < 3600 {
				return fmt.Errorf("max_estimate %d s: the model needs at least an hour (or 0)", m.MaxEstimate)
			}
			return nil
		},
		Apply: func(p sdk.Params, _ *sdk.Platform, jobs []sim.Input, rng *rand.Rand) (map[string]int64, error) {
			m := model(p)
			targets := estimateTargets(p, jobs)
			if len(targets) == 0 {
				return map[string]int64{"jobs": 0}, nil
			}
			runtimes := make([]int64, len(targets))
			before := make([]int64, len(targets))
			longest := int64(0)
			for k, i := range targets {
				runtimes[k], before[k] = jobs[i].Runtime, jobs[i].Job.Walltime
				longest = max(longest, jobs[i].Runtime)
			}
			if m.MaxEstimate == 0 {
				m.MaxEstimate = max(3600, (longest+3599)/3600*3600)
			}
			bins, err := m.Distribution(len(targets), rng)
			if err != nil {
				return nil, err
			}
			ests, err := estimates.Assign(bins, runtimes, rng)
			if err != nil {
				return nil, err
			}
			for k, i := range targets {
				jobs[i].Job.Walltime = ests[k]
			}
			c := estimateCounts(jobs, targets, before, m.MaxEstimate)
			c["distinct"], c["max_estimate"] = int64(len(bins)), m.MaxEstimate
			return c, nil
		},
	}
}

func fModelTransform() Transform {
	return Transform{
		Name:   TransformEstimatesF,
		Doc:    "estimates of the f-model: each job's runtime times a factor drawn uniformly in [1, f], rounded up",
		Params: []sdk.Param{estimateJobsParam(), {Name: "f", Type: sdk.Float, Default: "3", Doc: "the largest factor (1: exact estimates)"}},
		Counts: []string{"jobs", "changed", "exact", "killed"},
		Check: func(p sdk.Params, _ *sdk.Platform) error {
			if f := p.Float("f"); !(f >= 1) {
				return errors.New("f " + strconv.FormatFloat(f, 'g', -1, 64) + ": the factor must be at least 1")
			}
			return nil
		},
		Apply: func(p sdk.Params, _ *sdk.Platform, jobs []sim.Input, rng *rand.Rand) (map[string]int64, error) {
			targets := estimateTargets(p, jobs)
			before := make([]int64, len(targets))
			for k, i := range targets {
				before[k] = jobs[i].Job.Walltime
				jobs[i].Job.Walltime = min(estimates.FModel(jobs[i].Runtime, p.Float("f"), rng), sim.MaxTime)
			}
			return estimateCounts(jobs, targets, before, 0), nil
		},
	}
}
