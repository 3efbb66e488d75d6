package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedlab/schedlab/results/fit"
)

// ParamFit is the distribution fits of one parameter over the jobs of one
// cluster of a factor's values.
type ParamFit struct {
	Factor  string
	Cluster int
	Param   string
	// N counts the values fitted; Dropped the jobs left out: unknown or
	// non-positive values (every family lives on x > 0, so waits of 0 are
	// dropped and their share reported), and for the runtime the jobs that
	// were killed at their limit (right-censored) or never ran (Rules).
	N, Dropped int
	// Fits holds every family, best AIC first, and GoF their
	// goodness-of-fit statistics and parametric-bootstrap p-values, in
	// the same order, computed on GoFN values: all N, or a subsample of
	// GoFSample when N is larger. GoF's KS and CvM are computed on those
	// GoFN values, so a statistic of a subsample is not that of the whole
	// sample (CvM grows with n): compare statistics of equal GoFN.
	Fits []fit.Fit
	GoF  []fit.GoF
	GoFN int
	// KS and CvM hold each family's statistics on all N values, in Fits
	// order: the whole cluster's, as paper 002 reports them. Only GoF's
	// p-values need the subsample.
	KS, CvM []float64
}

// GoFSample is the largest sample the bootstrap goodness-of-fit tests use;
// larger ones are subsampled (without replacement, seeded), since each
// resample refits the family and a p-value for 100,000 values adds nothing
// a 5,000-value one does not show.
const GoFSample = 5000

// FittedParameters are the parameters FitParameters fits, in order.
func FittedParameters() []string { return []string{"procs", "req_time", "runtime", "wait"} }

// Sample returns the values of parameter p over the jobs whose factor value
// is in cluster k of c, as FitParameters fits them, and the number of jobs
// of the cluster left out: unknown or non-positive values and, for the
// runtime, the jobs killed at their limit (right-censored); the runtime and
// wait of jobs that never ran are unknown (Rules).
func (c Clusters) Sample(jobs []Job, k int, p string) (xs []float64, dropped int) {
	label := make(map[string]int, len(c.Values))
	for i, v := range c.Values {
		label[v] = c.Labels[i]
	}
	for _, j := range jobs {
		l, ok := label[j.Factors[c.Factor]]
		if !ok || l != k {
			continue
		}
		x := param(j, p)
		if math.IsNaN(x) || x <= 0 || (p == "runtime" && j.Censored()) {
			dropped++
			continue
		}
		xs = append(xs, x)
	}
	return xs, dropped
}

// FitParameters returns the fits of procs, req_time, runtime and wait for
// each cluster of c, over the jobs whose factor value is in the cluster.
// resamples is the number of bootstrap resamples per test.
func FitParameters(jobs []Job, c Clusters, resamples int, rng *rand.Rand) ([]ParamFit, error) {
	var out []ParamFit
	for k := range c.Result.K {
		for _, p := range FittedParameters() {
			pf := ParamFit{Factor: c.Factor, Cluster: k, Param: p}
			var xs []float64
			xs, pf.Dropped = c.Sample(jobs, k, p)
			pf.N = len(xs)
			if len(xs) < 10 {
				out = append(out, pf) // too few to fit: reported empty
				continue
			}
			fits, err := fit.FitAll(xs)
			if err != nil {
				// All-equal values (a cluster whose jobs all ask for one
				// processor) fit no continuous family; say so, go on.
				out = append(out, pf)
				continue
			}
			pf.Fits = fits
			for _, f := range fits {
				pf.KS = append(pf.KS, fit.KS(xs, f))
				pf.CvM = append(pf.CvM, fit.CvM(xs, f))
			}
			sample := subsample(xs, GoFSample, rng)
			pf.GoFN = len(sample)
			for _, f := range fits {
				g, err := fit.Test(sample, f, resamples, rng)
				if err != nil {
					return nil, fmt.Errorf("analysis: %s cluster %d %s %s: %w", c.Factor, k, p, f.Family, err)
				}
				pf.GoF = append(pf.GoF, g)
			}
			out = append(out, pf)
		}
	}
	return out, nil
}

// subsample returns n values of xs drawn without replacement (a partial
// Fisher-Yates shuffle of a copy), or xs itself when it is not larger.
func subsample(xs []float64, n int, rng *rand.Rand) []float64 {
	if len(xs) <= n {
		return xs
	}
	c := append([]float64(nil), xs...)
	for i := range n {
		j := i + rng.IntN(len(c)-i)
		c[i], c[j] = c[j], c[i]
	}
	return c[:n]
}
