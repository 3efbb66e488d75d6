package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/stats"
)

// JobView is the job-level distribution of one value of the compared axis
// in one group, pooled over its runs.
type JobView struct {
	Group []AxisValue
	Value string
	// Runs and Jobs count what is pooled.
	Runs, Jobs int
	// Wait (seconds) and BSLD (bounded slowdown with the runs' floor) are
	// the jobs' empirical distributions.
	Wait, BSLD stats.ECDF
	// WaitQ and BSLDQ are the quantiles at Probs.
	Probs        []float64
	WaitQ, BSLDQ []float64
	// WaitMax and BSLDMax are the largest wait and bounded slowdown: the
	// starvation that quantiles up to the 99th can hide.
	WaitMax, BSLDMax float64
	// Improved, Worsened and Unchanged count the jobs whose wait is lower,
	// higher or equal than in the paired baseline run (zero for the
	// baseline itself).
	Improved, Worsened, Unchanged int
}

// DefaultProbs are the quantiles a job view reports.
func DefaultProbs() []float64 { return []float64{0.5, 0.9, 0.95, 0.99} }

// JobWaitBSLD returns the waits and bounded slowdowns of a jobs file's rows:
// bsld = max(1, (wait + runtime) / max(runtime, tau)).
func JobWaitBSLD(rows []results.JobRow, tau int64) (wait, bsld []float64) {
	wait = make([]float64, len(rows))
	bsld = make([]float64, len(rows))
	for i, j := range rows {
		wait[i] = float64(j.Wait)
		bsld[i] = math.Max(1, float64(j.Wait+j.Runtime)/float64(max(j.Runtime, tau)))
	}
	return wait, bsld
}

// Jobs computes the job-level views of a comparison: for every group and
// value, the pooled distributions of wait and bounded slowdown, and, for
// the values other than the baseline, how many jobs waited less or more
// than in the paired baseline run.
func Jobs(c *Campaign, res *Result) ([]JobView, error) {
	var out []JobView
	for _, g := range res.Groups {
		for _, lv := range g.Levels {
			v := JobView{Group: g.Key, Value: lv.Value, Probs: DefaultProbs()}
			var waits, bslds []float64
			runs := runsOf(c, res, g, lv.Value)
			for _, r := range runs {
				rows, _, err := results.ReadJobs(c.JobsPath(r))
				if err != nil {
					return nil, err
				}
				w, b := JobWaitBSLD(rows, r.BSLDTau)
				waits = append(waits, w...)
				bslds = append(bslds, b...)
				v.Runs++
			}
			v.Jobs = len(waits)
			if v.Jobs == 0 {
				continue
			}
			v.Wait, v.BSLD = stats.NewECDF(waits), stats.NewECDF(bslds)
			v.WaitQ, v.BSLDQ = stats.Quantiles(waits, v.Probs), stats.Quantiles(bslds, v.Probs)
			v.WaitMax, v.BSLDMax = slices.Max(waits), slices.Max(bslds)
			for _, cmp := range g.Comparisons {
				if cmp.Value != lv.Value {
					continue
				}
				for _, p := range cmp.Pairs {
					if err := countImproved(c, p, &v); err != nil {
						return nil, err
					}
				}
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// runsOf lists the completed runs of one value in a group.
func runsOf(c *Campaign, res *Result, g Group, value string) []Run {
	var out []Run
	for _, r := range c.Runs {
		if r.Status != "ok" || r.Axes[res.Axis] != value {
			continue
		}
		if _, ok := r.Values[res.Metric]; !ok {
			continue
		}
		if value == res.Baseline && compatible(r, g.Key) {
			// A baseline run that leaves a grouping axis unset belongs to
			// every group, as in Compare.
			out = append(out, r)
			continue
		}
		in := true
		for _, kv := range g.Key {
			if r.Axes[kv.Axis] != kv.Value {
				in = false
				break
			}
		}
		if in {
			out = append(out, r)
		}
	}
	return out
}

// countImproved compares the waits of the same jobs in a pair of runs.
func countImproved(c *Campaign, p Pair, v *JobView) error {
	a, _, err := results.ReadJobs(c.JobsPath(p.BaselineRun))
	if err != nil {
		return err
	}
	b, _, err := results.ReadJobs(c.JobsPath(p.ValueRun))
	if err != nil {
		return err
	}
	if len(a) != len(b) {
		return fmt.Errorf("runs %s and %s are paired but have %d and %d jobs", p.BaselineRun.Label, p.ValueRun.Label, len(a), len(b))
	}
	for i := range a {
		if a[i].JobID != b[i].JobID {
			return fmt.Errorf("runs %s and %s are paired but job %d differs (%d, %d)", p.BaselineRun.Label, p.ValueRun.Label, i, a[i].JobID, b[i].JobID)
		}
		switch {
		case b[i].Wait < a[i].Wait:
			v.Improved++
		case b[i].Wait > a[i].Wait:
			v.Worsened++
		default:
			v.Unchanged++
		}
	}
	return nil
}
