package manifest

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/lublin"
)

// applyEstimates runs an estimate transform on a copy of the workload's
// jobs.
func applyEstimates(t *testing.T, name string, params map[string]string, jobs []sim.Input) ([]sim.Input, map[string]int64) {
	t.Helper()
	tr, ok := LookupTransform(name)
	if !ok {
		t.Fatalf("no transform %s", name)
	}
	p, err := sdk.ResolveParams(tr.Params, params)
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(jobs)
	counts, err := tr.Apply(p, nil, out, rand.New(rand.NewPCG(42, 0)))
	if err != nil {
		t.Fatal(err)
	}
	return out, counts
}

// accuracy returns the mean runtime/estimate of the jobs and the share of
// jobs whose 20 most common estimates take.
func accuracy(jobs []sim.Input) (mean, head float64) {
	count := map[int64]int{}
	for _, j := range jobs {
		mean += float64(j.Runtime) / float64(j.Job.Walltime)
		count[j.Job.Walltime]++
	}
	var sizes []int
	for _, c := range count {
		sizes = append(sizes, c)
	}
	slices.SortFunc(sizes, func(a, b int) int { return b - a })
	top := 0
	for _, c := range sizes[:min(20, len(sizes))] {
		top += c
	}
	return mean / float64(len(jobs)), float64(top) / float64(len(jobs))
}

// TestEstimatesOnKTH gives KTH-SP2's jobs model estimates in place of its
// users' and checks them: every job's estimate covers its runtime, the 20
// most common estimates hold 89 % of the jobs, the longest runtime rounded
// up to hours is the most popular; the f-model's mean accuracy is the
// expected E[1/U(1, 3)] = ln(3)/2. The users' own estimates are logged
// beside, for docs/workloads.md.
func TestEstimatesOnKTH(t *testing.T) {
	wl, err := workload.LoadSWF(filepath.Join("..", "..", "experiments", "data", "KTH-SP2-1996-2.1-cln.swf.gz"), 0, workload.DefaultClean())
	if err != nil {
		t.Fatal(err)
	}
	users, usersHead := accuracy(wl.Jobs)
	jobs, c := applyEstimates(t, TransformEstimatesTsafrir, map[string]string{"jobs": "all"}, wl.Jobs)
	if c["jobs"] != int64(len(jobs)) || c["killed"] != 0 {
		t.Errorf("counts %v for %d jobs", c, len(jobs))
	}
	maxest := c["max_estimate"]
	longest := slices.MaxFunc(jobs, func(a, b sim.Input) int { return int(a.Runtime - b.Runtime) }).Runtime
	if maxest != (longest+3599)/3600*3600 {
		t.Errorf("max_estimate %d for a longest runtime of %d s", maxest, longest)
	}
	for _, j := range jobs {
		if j.Job.Walltime < j.Runtime || j.Job.Walltime > maxest {
			t.Fatalf("job %d: runtime %d, estimate %d", j.Job.ID, j.Runtime, j.Job.Walltime)
		}
	}
	mean, head := accuracy(jobs)
	t.Logf("KTH-SP2: users' estimates: mean accuracy %.3f, top 20 values %.1f %% of jobs; the model's: %.3f and %.1f %% (%d values, max %d s, %d maximal, %d exact)",
		users, 100*usersHead, mean, 100*head, c["distinct"], maxest, c["maximal"], c["exact"])
	if math.Abs(head-0.89) > 0.005 {
		t.Errorf("the 20 most common estimates hold %.1f %% of jobs, the model says 89 %%", 100*head)
	}
	fjobs, fc := applyEstimates(t, TransformEstimatesF, map[string]string{"jobs": "all", "f": "3"}, wl.Jobs)
	// Rounding up to whole seconds lowers the accuracy of short jobs: the
	// expected ln(3)/2 holds for jobs of 1,000 s or more, within 0.001 of
	// rounding and 5 standard errors (the sd of 1/U(1, 3) is below 0.15).
	long := slices.DeleteFunc(fjobs, func(j sim.Input) bool { return j.Runtime < 1000 })
	fmean, _ := accuracy(long)
	t.Logf("f-model, f = 3: mean accuracy %.4f on the %d jobs of 1,000 s or more (ln 3 / 2 = %.4f), %v", fmean, len(long), math.Log(3)/2, fc)
	if math.Abs(fmean-math.Log(3)/2) > 0.001+5*0.15/math.Sqrt(float64(len(long))) {
		t.Errorf("f-model mean accuracy %.4f, want about %.4f", fmean, math.Log(3)/2)
	}
	// jobs = exact leaves KTH's jobs with real estimates alone.
	_, ec := applyEstimates(t, TransformEstimatesF, map[string]string{}, wl.Jobs)
	exact := 0
	for _, j := range wl.Jobs {
		if j.Job.Walltime == j.Runtime {
			exact++
		}
	}
	if ec["jobs"] != int64(exact) {
		t.Errorf("jobs = exact changed %d jobs, %d have exact estimates", ec["jobs"], exact)
	}
}

// TestEstimatesOnLublin gives a Lublin-Feitelson workload, which has no
// estimates, the model's.
func TestEstimatesOnLublin(t *testing.T) {
	m := lublin.Published()
	recs, err := m.Generate(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	wl, err := workload.FromRecords("lublin", recs, 128, workload.DefaultClean())
	if err != nil {
		t.Fatal(err)
	}
	jobs, c := applyEstimates(t, TransformEstimatesTsafrir, nil, wl.Jobs)
	if c["jobs"] != int64(len(jobs)) || c["changed"] < c["jobs"]*9/10 {
		t.Errorf("counts %v for %d jobs without estimates", c, len(jobs))
	}
	mean, head := accuracy(jobs)
	t.Logf("Lublin-Feitelson: mean accuracy %.3f, top 20 values %.1f %%, %v", mean, 100*head, c)
}
