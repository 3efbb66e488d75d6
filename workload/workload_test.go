package workload_test

import (
	"compress/gzip"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/swf"
)

// job describes a test record by the fields the rules look at; the rest
// get ordinary values.
type job struct {
	id, submit, runtime, alloc, req, reqTime int64
}

func (j job) record() swf.Record {
	return swf.Record{
		JobNumber: j.id, Submit: j.submit, Wait: 0, RunTime: j.runtime, AllocProcs: j.alloc,
		AvgCPUTime: -1, UsedMemory: -1, ReqProcs: j.req, ReqTime: j.reqTime, ReqMemory: -1,
		Status: 1, User: 3, Group: -1, App: 7, Queue: 1, Partition: -1, PrecedingJob: -1, ThinkTime: -1,
	}
}

func records(js ...job) []swf.Record {
	out := make([]swf.Record, len(js))
	for i, j := range js {
		out[i] = j.record()
	}
	return out
}

// counts returns the report's counts by rule, and checks that every rule
// appears once in the documented order.
func counts(t *testing.T, r workload.Report) map[string]int {
	t.Helper()
	order := []string{
		workload.RuleOutsideJobIDs, workload.RuleMissingSubmit, workload.RuleHugeTime, workload.RuleMissingProcs, workload.RuleProcsFallback,
		workload.RuleNonPositiveRuntime, workload.RuleMissingWalltime, workload.RuleOversize,
		workload.RuleRuntimeOverWalltime, workload.RuleSubmitOrder, workload.RuleDuplicateID,
	}
	if len(r.Counts) != len(order) {
		t.Fatalf("report has %d rules, want %d", len(r.Counts), len(order))
	}
	m := map[string]int{}
	for i, c := range r.Counts {
		if c.Rule != order[i] {
			t.Errorf("rule %d is %q, want %q", i, c.Rule, order[i])
		}
		if c.Jobs != 0 {
			m[c.Rule] = c.Jobs
		}
	}
	return m
}

// checkWorkload checks what must hold of every workload, whatever the
// settings: the counts add up and the engine would accept the jobs.
func checkWorkload(t *testing.T, w *workload.Workload) {
	t.Helper()
	r := w.Report
	if r.Kept != len(w.Jobs) || r.Records-r.Dropped() != r.Kept {
		t.Errorf("records %d - dropped %d != kept %d (jobs %d)", r.Records, r.Dropped(), r.Kept, len(w.Jobs))
	}
	for i, in := range w.Jobs {
		j := in.Job
		if j.Index != i {
			t.Fatalf("job %d has index %d", i, j.Index)
		}
		if i > 0 {
			p := w.Jobs[i-1].Job
			if j.Submit < p.Submit || j.Submit == p.Submit && j.ID < p.ID {
				t.Fatalf("job %d (id %d) out of (submit, id) order", i, j.ID)
			}
		}
		if in.Runtime < 1 || j.Walltime < 1 || len(j.Request) != 1 || j.Request[0] < 1 || j.Request[0] > w.Procs {
			t.Fatalf("job id %d not valid for the engine: runtime %d walltime %d request %v on %d procs",
				j.ID, in.Runtime, j.Walltime, j.Request, w.Procs)
		}
	}
}

func TestRules(t *testing.T) {
	const procs = 128
	mix := []job{
		{id: 1, submit: 0, runtime: 100, alloc: 4, req: 4, reqTime: 200},     // ordinary
		{id: 2, submit: -1, runtime: -1, alloc: -1, req: -1, reqTime: -1},    // missing submit
		{id: 3, submit: 5, runtime: 100, alloc: -1, req: -1, reqTime: 200},   // no processors
		{id: 4, submit: 5, runtime: 100, alloc: 0, req: 0, reqTime: 200},     // zero processors
		{id: 5, submit: 6, runtime: 100, alloc: 16, req: -1, reqTime: 200},   // request lost
		{id: 6, submit: 7, runtime: 0, alloc: 4, req: 4, reqTime: 200},       // zero runtime
		{id: 7, submit: 8, runtime: -1, alloc: 4, req: 4, reqTime: -1},       // unknown runtime and walltime
		{id: 8, submit: 9, runtime: 50, alloc: 4, req: 4, reqTime: -1},       // no walltime
		{id: 9, submit: 10, runtime: 50, alloc: 100, req: 200, reqTime: 100}, // oversize request
		{id: 10, submit: 11, runtime: 500, alloc: 4, req: 4, reqTime: 300},   // overruns its walltime
		{id: 11, submit: 3, runtime: 10, alloc: 2, req: 2, reqTime: 20},      // out of order
		{id: 11, submit: 12, runtime: 10, alloc: 2, req: 2, reqTime: 20},     // duplicate ID
		{id: 13, submit: 12, runtime: 10, alloc: 130, req: -1, reqTime: 20},  // fallback, then oversize
		{id: 14, submit: 13, runtime: 0, alloc: 4, req: 300, reqTime: 0},     // zero runtime and oversize
	}
	type want struct {
		kept   int
		counts map[string]int
		jobs   map[int64][3]int64 // id -> procs, runtime, walltime of kept jobs checked
		err    string
	}
	cases := []struct {
		name  string
		clean workload.Clean
		want  want
	}{
		{"defaults", workload.Clean{}, want{kept: 6, counts: map[string]int{
			workload.RuleMissingSubmit:       1,
			workload.RuleMissingProcs:        2,
			workload.RuleProcsFallback:       1, // job 5 (job 13 is dropped as oversize)
			workload.RuleNonPositiveRuntime:  3, // jobs 6, 7, 14
			workload.RuleMissingWalltime:     1, // job 8
			workload.RuleOversize:            2, // jobs 9, 13
			workload.RuleRuntimeOverWalltime: 1, // job 10
			workload.RuleSubmitOrder:         1, // job 11 (submit 3 after 11)
			workload.RuleDuplicateID:         1, // the second job 11
		}, jobs: map[int64][3]int64{1: {4, 100, 200}, 5: {16, 100, 200}, 8: {4, 50, 50}, 10: {4, 500, 300}}}},
		{"spelled-out defaults", workload.DefaultClean(), want{kept: 6, counts: map[string]int{
			workload.RuleMissingSubmit: 1, workload.RuleMissingProcs: 2, workload.RuleProcsFallback: 1,
			workload.RuleNonPositiveRuntime: 3, workload.RuleMissingWalltime: 1, workload.RuleOversize: 2,
			workload.RuleRuntimeOverWalltime: 1, workload.RuleSubmitOrder: 1, workload.RuleDuplicateID: 1,
		}}},
		{"clamp runtime", workload.Clean{NonPositiveRuntime: workload.Clamp}, want{kept: 8, counts: map[string]int{
			workload.RuleMissingSubmit: 1, workload.RuleMissingProcs: 2, workload.RuleProcsFallback: 1,
			workload.RuleNonPositiveRuntime:  2, // jobs 6, 7 clamped; 14 clamped then dropped as oversize
			workload.RuleMissingWalltime:     2, // jobs 7, 8 (14 too, but it is dropped later, so not counted)
			workload.RuleOversize:            3, // jobs 9, 13, 14
			workload.RuleRuntimeOverWalltime: 1, workload.RuleSubmitOrder: 1, workload.RuleDuplicateID: 1,
		}, jobs: map[int64][3]int64{6: {4, 1, 200}, 7: {4, 1, 1}}}},
		{"drop missing walltime", workload.Clean{MissingWalltime: workload.Drop}, want{kept: 5, counts: map[string]int{
			workload.RuleMissingSubmit: 1, workload.RuleMissingProcs: 2, workload.RuleProcsFallback: 1,
			workload.RuleNonPositiveRuntime: 3, workload.RuleMissingWalltime: 1, workload.RuleOversize: 2,
			workload.RuleRuntimeOverWalltime: 1, workload.RuleSubmitOrder: 1, workload.RuleDuplicateID: 1,
		}}},
		{"clamp oversize", workload.Clean{Oversize: workload.Clamp}, want{kept: 8, counts: map[string]int{
			workload.RuleMissingSubmit: 1, workload.RuleMissingProcs: 2,
			workload.RuleProcsFallback:      2, // jobs 5 and 13
			workload.RuleNonPositiveRuntime: 3, workload.RuleMissingWalltime: 1,
			workload.RuleOversize:            2, // jobs 9, 13 clamped to 128
			workload.RuleRuntimeOverWalltime: 1, workload.RuleSubmitOrder: 1, workload.RuleDuplicateID: 1,
		}, jobs: map[int64][3]int64{9: {procs, 50, 100}, 13: {procs, 10, 20}}}},
		{"oversize is an error", workload.Clean{Oversize: workload.Fail},
			want{err: "mix.swf: record 9: job 9 needs 200 processors, the platform has 128 (oversize=error)"}},
		{"allocated else requested", workload.Clean{Procs: workload.ProcsAllocatedElseRequested}, want{kept: 7, counts: map[string]int{
			workload.RuleMissingSubmit: 1, workload.RuleMissingProcs: 2,
			workload.RuleNonPositiveRuntime: 3, workload.RuleMissingWalltime: 1,
			workload.RuleOversize:            1, // job 13 (allocated 130); job 9 now uses its allocation of 100
			workload.RuleRuntimeOverWalltime: 1, workload.RuleSubmitOrder: 1, workload.RuleDuplicateID: 1,
		}, jobs: map[int64][3]int64{9: {100, 50, 100}, 5: {16, 100, 200}}}},
		{"requested only", workload.Clean{Procs: workload.ProcsRequested}, want{kept: 5, counts: map[string]int{
			workload.RuleMissingSubmit:      1,
			workload.RuleMissingProcs:       4, // jobs 3, 4, 5, 13
			workload.RuleNonPositiveRuntime: 3, workload.RuleMissingWalltime: 1,
			workload.RuleOversize:            1, // job 9
			workload.RuleRuntimeOverWalltime: 1, workload.RuleSubmitOrder: 1, workload.RuleDuplicateID: 1,
		}}},
		{"allocated only", workload.Clean{Procs: workload.ProcsAllocated}, want{kept: 7, counts: map[string]int{
			workload.RuleMissingSubmit: 1, workload.RuleMissingProcs: 2,
			workload.RuleNonPositiveRuntime: 3, workload.RuleMissingWalltime: 1,
			workload.RuleOversize:            1, // job 13
			workload.RuleRuntimeOverWalltime: 1, workload.RuleSubmitOrder: 1, workload.RuleDuplicateID: 1,
		}, jobs: map[int64][3]int64{9: {100, 50, 100}}}},
		// The selection comes first: job 2 (no submit time) is outside it,
		// so the missing-submit rule never sees it, and the other rules
		// count within the selection only.
		{"job ids 5-11", workload.Clean{JobIDs: "5-11"}, want{kept: 5, counts: map[string]int{
			workload.RuleOutsideJobIDs:       6, // jobs 1, 2, 3, 4, 13, 14
			workload.RuleProcsFallback:       1, // job 5
			workload.RuleNonPositiveRuntime:  2, // jobs 6, 7
			workload.RuleMissingWalltime:     1, // job 8
			workload.RuleOversize:            1, // job 9
			workload.RuleRuntimeOverWalltime: 1, workload.RuleSubmitOrder: 1, workload.RuleDuplicateID: 1,
		}, jobs: map[int64][3]int64{5: {16, 100, 200}, 8: {4, 50, 50}, 10: {4, 500, 300}}}},
		{"job ids 1-1", workload.Clean{JobIDs: "1-1"}, want{kept: 1, counts: map[string]int{
			workload.RuleOutsideJobIDs: 13,
		}, jobs: map[int64][3]int64{1: {4, 100, 200}}}},
		// No job left is an error that says what the cleaning dropped.
		{"job ids beyond the trace", workload.Clean{JobIDs: "100-200"}, want{
			err: "mix.swf: no job to simulate: the cleaning dropped all 14 job records (14 by outside-job-ids=100-200; on 128 processors)"}},
	}
	// Times beyond sim.MaxTime: dropped by default, so the engine never
	// sees them, and counted.
	huge := append(slices.Clone(mix),
		job{id: 20, submit: 20, runtime: math.MaxInt64 - 99, alloc: 4, req: 4, reqTime: math.MaxInt64 - 99},
		job{id: 21, submit: math.MaxInt64, runtime: 10, alloc: 4, req: 4, reqTime: 20},
		job{id: 22, submit: 22, runtime: 10, alloc: 4, req: 4, reqTime: sim.MaxTime + 1},
		job{id: 23, submit: sim.MaxTime, runtime: sim.MaxTime, alloc: 4, req: 4, reqTime: sim.MaxTime}) // the bound itself is kept
	w, err := workload.FromRecords("huge.swf", records(huge...), procs, workload.Clean{})
	if err != nil {
		t.Fatal(err)
	}
	checkWorkload(t, w)
	if got := counts(t, w.Report); got[workload.RuleHugeTime] != 3 || w.Report.Kept != 7 {
		t.Errorf("huge times: counts %v, kept %d; want 3 dropped by %s and 7 kept", got, w.Report.Kept, workload.RuleHugeTime)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := workload.FromRecords("mix.swf", records(mix...), procs, c.clean)
			if c.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.want.err) {
					t.Fatalf("error %v, want %q", err, c.want.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkWorkload(t, w)
			if w.Report.Records != len(mix) || w.Report.Kept != c.want.kept {
				t.Errorf("records %d kept %d, want %d, %d", w.Report.Records, w.Report.Kept, len(mix), c.want.kept)
			}
			if got := counts(t, w.Report); !reflect.DeepEqual(got, c.want.counts) {
				t.Errorf("counts\n got %v\nwant %v", got, c.want.counts)
			}
			byID := map[int64]sim.Input{}
			for _, in := range w.Jobs {
				byID[in.Job.ID] = in
			}
			for id, v := range c.want.jobs {
				in, ok := byID[id]
				if !ok {
					t.Errorf("job %d dropped", id)
					continue
				}
				if got := [3]int64{in.Job.Procs(), in.Runtime, in.Job.Walltime}; got != v {
					t.Errorf("job %d: procs, runtime, walltime = %v, want %v", id, got, v)
				}
			}
			if w.ProcsSource != workload.ProcsFromArgument || w.Procs != procs {
				t.Errorf("procs %d from %q", w.Procs, w.ProcsSource)
			}
		})
	}
}

func TestJobMapping(t *testing.T) {
	r := swf.Record{
		JobNumber: 42, Submit: 1000, Wait: 7, RunTime: 60, AllocProcs: 8, AvgCPUTime: 1.5, UsedMemory: 2,
		ReqProcs: 6, ReqTime: 120, ReqMemory: 3, Status: 1, User: 5, Group: 6, App: 7, Queue: 8, Partition: -1,
		PrecedingJob: -1, ThinkTime: -1,
	}
	w, err := workload.FromRecords("one", []swf.Record{r}, 64, workload.Clean{})
	if err != nil {
		t.Fatal(err)
	}
	want := sim.Input{Job: sdk.Job{Index: 0, ID: 42, Submit: 1000, Walltime: 120, Request: sdk.Vector{6},
		User: 5, Group: 6, App: 7, Queue: 8, Partition: -1}, Runtime: 60}
	if !reflect.DeepEqual(w.Jobs, []sim.Input{want}) {
		t.Errorf("got %+v\nwant %+v", w.Jobs, want)
	}
}

func TestSortedOutput(t *testing.T) {
	js := []job{
		{id: 3, submit: 50, runtime: 1, alloc: 1, req: 1, reqTime: 1},
		{id: 2, submit: 50, runtime: 1, alloc: 1, req: 1, reqTime: 1},
		{id: 1, submit: 60, runtime: 1, alloc: 1, req: 1, reqTime: 1},
		{id: 9, submit: 10, runtime: 1, alloc: 1, req: 1, reqTime: 1},
	}
	w, err := workload.FromRecords("s", records(js...), 1, workload.Clean{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, in := range w.Jobs {
		ids = append(ids, in.Job.ID)
	}
	if !reflect.DeepEqual(ids, []int64{9, 2, 3, 1}) {
		t.Errorf("order %v, want [9 2 3 1]", ids)
	}
	if c, _ := w.Report.Get(workload.RuleSubmitOrder); c.Jobs != 2 || c.Action != workload.Counted {
		t.Errorf("out-of-order count %+v, want 2 (job 2 after 3, job 9 after 1)", c)
	}
	if w.Jobs[0].Job.Submit != 10 {
		t.Errorf("submit times were shifted: first is %d, want 10", w.Jobs[0].Job.Submit)
	}
	// Appending to one job's request must not change another's.
	_ = append(w.Jobs[0].Job.Request, 99)
	if w.Jobs[1].Job.Request[0] != 1 {
		t.Error("requests share spare capacity")
	}
}

// TestManyJobs loads workloads of many jobs (the cleaner holds them in
// chunks of some thousands), in file order and shuffled with repeated
// (submit, id) pairs, and checks them against the jobs made one by one and
// ordered by sim.Sort: same jobs, same order (equal pairs in file order),
// indices set, and no request sharing spare capacity with the next.
func TestManyJobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name     string
		n        int
		shuffled bool
	}{{"in order", 10_000, false}, {"shuffled", 10_000, true}, {"one chunk shuffled", 300, true}} {
		t.Run(tc.name, func(t *testing.T) {
			js := make([]job, tc.n)
			for i := range js {
				js[i] = job{id: int64(i / 3), submit: int64(i / 5), runtime: 1 + rng.Int64N(100), alloc: 1 + rng.Int64N(8), reqTime: 200}
				js[i].req = js[i].alloc
			}
			if tc.shuffled {
				rng.Shuffle(len(js), func(a, b int) { js[a], js[b] = js[b], js[a] })
			}
			recs := records(js...)
			for i := range recs {
				recs[i].User = int64(i % 1000) // tells equal (submit, id) pairs apart
			}
			w, err := workload.FromRecords("many", recs, 8, workload.Clean{})
			if err != nil {
				t.Fatal(err)
			}
			want := make([]sim.Input, len(recs))
			for i, r := range recs {
				want[i] = sim.Input{Job: sdk.Job{ID: r.JobNumber, Submit: r.Submit, Walltime: r.ReqTime, Request: sdk.Vector{r.ReqProcs},
					User: int32(r.User), Group: -1, App: 7, Queue: 1, Partition: -1}, Runtime: r.RunTime}
			}
			sim.Sort(want)
			if !reflect.DeepEqual(w.Jobs, want) {
				for i := range want {
					if !reflect.DeepEqual(w.Jobs[i], want[i]) {
						t.Fatalf("job %d: got %+v, want %+v", i, w.Jobs[i], want[i])
					}
				}
				t.Fatalf("got %d jobs, want %d", len(w.Jobs), len(want))
			}
			if c, _ := w.Report.Get(workload.RuleSubmitOrder); (c.Jobs > 0) != tc.shuffled {
				t.Errorf("out-of-order count %d for a workload shuffled %t", c.Jobs, tc.shuffled)
			}
			for i := range w.Jobs {
				if cap(w.Jobs[i].Job.Request) != 1 {
					t.Fatalf("job %d: request capacity %d, want 1", i, cap(w.Jobs[i].Job.Request))
				}
			}
		})
	}
}

func TestSettings(t *testing.T) {
	var c workload.Clean
	if got, want := c.Settings(), workload.DefaultClean().Settings(); !reflect.DeepEqual(got, want) {
		t.Errorf("zero Clean settings %v, defaults %v", got, want)
	}
	want := map[string]string{"procs": "requested-else-allocated", "missing-walltime": "runtime",
		"nonpositive-runtime": "drop", "oversize": "drop", "job-ids": "all", "huge-time": "drop"}
	if got := c.Settings(); !reflect.DeepEqual(got, want) {
		t.Errorf("default settings %v, want %v", got, want)
	}
	if err := c.Set("oversize", "clamp"); err != nil || c.Oversize != "clamp" {
		t.Errorf("Set oversize=clamp: %v, %q", err, c.Oversize)
	}
	// A range is stored in its canonical spelling, so equal selections
	// have equal provenance and run identities.
	for _, v := range []string{"15-1780", " 15 - 1780", "015-1780", "+15-1780"} {
		if err := c.Set("job-ids", v); err != nil || c.JobIDs != "15-1780" {
			t.Errorf("Set job-ids=%q: %v, %q", v, err, c.JobIDs)
		}
	}
	if r, err := (workload.Clean{JobIDs: "7-7"}).Resolved(); err != nil || r.JobIDs != "7-7" {
		t.Errorf("Resolved job-ids 7-7: %v, %q", err, r.JobIDs)
	}
	errs := []struct {
		name  string
		clean workload.Clean
		set   [2]string
		has   string
	}{
		{name: "unknown procs", clean: workload.Clean{Procs: "nodes"},
			has: `cleaning setting procs: unknown value "nodes" (allowed: requested-else-allocated, allocated-else-requested, requested, allocated)`},
		{name: "unknown oversize", clean: workload.Clean{Oversize: "shrink"},
			has: `cleaning setting oversize: unknown value "shrink" (allowed: drop, clamp, error)`},
		{name: "unknown walltime", clean: workload.Clean{MissingWalltime: "guess"},
			has: `missing-walltime: unknown value "guess" (allowed: runtime, drop)`},
		{name: "unknown runtime", clean: workload.Clean{NonPositiveRuntime: "zero"},
			has: `nonpositive-runtime: unknown value "zero" (allowed: drop, clamp)`},
		{name: "Set unknown name", set: [2]string{"runtime", "drop"},
			has: `unknown cleaning setting "runtime" (known: huge-time, job-ids, missing-walltime, nonpositive-runtime, oversize, procs)`},
		{name: "job-ids reversed", clean: workload.Clean{JobIDs: "1780-15"},
			has: `cleaning setting job-ids: value "1780-15": want "all" or FIRST-LAST`},
		{name: "job-ids one number", set: [2]string{"job-ids", "15"}, has: `cleaning setting job-ids: value "15"`},
		{name: "job-ids negative", set: [2]string{"job-ids", "-5-10"}, has: `cleaning setting job-ids: value "-5-10"`},
		{name: "job-ids words", set: [2]string{"job-ids", "first-last"}, has: `cleaning setting job-ids: value "first-last"`},
		{name: "Set unknown value", set: [2]string{"procs", "cores"}, has: `cleaning setting procs: unknown value "cores"`},
	}
	for _, e := range errs {
		t.Run(e.name, func(t *testing.T) {
			var err error
			if e.set[0] != "" {
				err = e.clean.Set(e.set[0], e.set[1])
			} else {
				_, err = workload.FromRecords("x", nil, 1, e.clean)
			}
			if err == nil || !strings.Contains(err.Error(), e.has) {
				t.Errorf("error %v, want %q", err, e.has)
			}
		})
	}
	if got := workload.Allowed("oversize"); !reflect.DeepEqual(got, []string{"drop", "clamp", "error"}) {
		t.Errorf("Allowed(oversize) = %v", got)
	}
}

func TestAttributeRange(t *testing.T) {
	cases := []struct {
		name string
		set  func(r *swf.Record)
		has  string
	}{
		{"user too large", func(r *swf.Record) { r.User = 1 << 31 }, "a.swf: record 2: field 12 (user): must be -1"},
		{"negative partition", func(r *swf.Record) { r.Partition = -2 }, "a.swf: record 2: field 16 (partition)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs := records(job{1, 0, 1, 1, 1, 1}, job{2, 0, 1, 1, 1, 1})
			c.set(&recs[1])
			_, err := workload.FromRecords("a.swf", recs, 4, workload.Clean{})
			if err == nil || !strings.Contains(err.Error(), c.has) {
				t.Errorf("error %v, want %q", err, c.has)
			}
		})
	}
}

func TestLoadSWFPlatformSize(t *testing.T) {
	const body = "1 0 1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 1 -1 -1\n" +
		"2 5 1 100 64 -1 -1 64 200 -1 1 1 1 -1 1 1 -1 -1\n"
	cases := []struct {
		name   string
		header string
		procs  int64
		want   int64
		source string
		kept   int
		err    string
	}{
		{"MaxProcs", "; MaxNodes: 8\n; MaxProcs: 64\n", 0, 64, workload.ProcsFromMaxProcs, 2, ""},
		{"MaxNodes only", "; MaxNodes: 8\n", 0, 8, workload.ProcsFromMaxNodes, 1, ""},
		{"MaxProcs -1 falls back", "; MaxProcs: -1\n; MaxNodes: 16\n", -1, 16, workload.ProcsFromMaxNodes, 1, ""},
		{"argument wins", "; MaxProcs: 64\n", 32, 32, workload.ProcsFromArgument, 1, ""},
		{"no size", "; Version: 2.2\n", 0, 0, "", 0, "the header gives no positive MaxProcs or MaxNodes; give the platform size explicitly"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".swf")
			if err := os.WriteFile(p, []byte(c.header+body), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := workload.LoadSWF(p, c.procs, workload.Clean{})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), p+": "+c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkWorkload(t, w)
			if w.Procs != c.want || w.ProcsSource != c.source || w.Report.Kept != c.kept {
				t.Errorf("procs %d from %q, kept %d; want %d from %q, kept %d",
					w.Procs, w.ProcsSource, w.Report.Kept, c.want, c.source, c.kept)
			}
			if w.Path != p || len(w.SHA256) != 64 || len(w.Header.Lines) == 0 {
				t.Errorf("provenance: path %q sha %q header %d lines", w.Path, w.SHA256, len(w.Header.Lines))
			}
		})
	}
}

func TestLoadSWFErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, text string
		clean      workload.Clean
		has        string
	}{
		{"malformed line", "; MaxProcs: 8\n1 0 1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 1 -1\n", workload.Clean{},
			"bad.swf:2: wrong number of fields: found 17, want 18"},
		{"oversize error", "; MaxProcs: 8\n;\n1 0 1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 1 -1 -1\n2 0 1 100 9 -1 -1 9 200 -1 1 1 1 -1 1 1 -1 -1\n",
			workload.Clean{Oversize: workload.Fail}, "bad.swf:4: job 2 needs 9 processors, the platform has 8"},
		{"bad setting", "; MaxProcs: 8\n", workload.Clean{Procs: "x"}, "bad.swf: cleaning setting procs"},
		// Times that overflow int64 sums (issue 22): a runtime and a
		// requested time near the limit, a submit time at it.
		{"huge runtime", "; MaxProcs: 8\n1 100 1 9223372036854775707 4 -1 -1 4 9223372036854775707 -1 1 1 1 -1 1 1 -1 -1\n",
			workload.Clean{HugeTime: workload.Fail}, "bad.swf:2: job 1: submit time 100, run time 9223372036854775707 or requested time 9223372036854775707 exceeds 34359738368 s"},
		{"submit at the int64 limit", "; MaxProcs: 8\n;\n7 9223372036854775807 1 10 4 -1 -1 4 20 -1 1 1 1 -1 1 1 -1 -1\n",
			workload.Clean{HugeTime: workload.Fail}, "bad.swf:3: job 7: submit time 9223372036854775807"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "bad.swf")
			if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := workload.LoadSWF(p, 0, c.clean)
			if err == nil || !strings.Contains(err.Error(), c.has) {
				t.Errorf("error %v, want %q", err, c.has)
			}
		})
	}
	if _, err := workload.LoadSWF(filepath.Join(dir, "absent.swf"), 1, workload.Clean{}); err == nil {
		t.Error("LoadSWF of a missing file succeeded")
	}
}

func TestFromRecordsNeedsProcs(t *testing.T) {
	_, err := workload.FromRecords("gen", records(job{1, 0, 1, 1, 1, 1}), 0, workload.Clean{})
	if err == nil || !strings.Contains(err.Error(), "gen: platform size 0") {
		t.Errorf("error %v, want one about the platform size", err)
	}
}

// TestNoJobs: a trace or records that leave no job to simulate are an
// error wrapping ErrNoJobs that names the input and says why: no job
// record at all (an empty file, a header alone, plain or gzip), or every
// record dropped, by which rules and how many.
func TestNoJobs(t *testing.T) {
	dir := t.TempDir()
	gzipped := func(s string) string {
		var b strings.Builder
		w := gzip.NewWriter(&b)
		_, _ = w.Write([]byte(s))
		_ = w.Close()
		return b.String()
	}
	header := "; Version: 2.2\n; MaxProcs: 8\n"
	noRuntime := "1 0 1 -1 4 -1 -1 4 200 -1 1 1 1 -1 1 1 -1 -1\n2 5 1 0 4 -1 -1 4 200 -1 1 1 1 -1 1 1 -1 -1\n"
	tooBig := "3 9 1 50 16 -1 -1 16 200 -1 1 1 1 -1 1 1 -1 -1\n"
	for _, tc := range []struct {
		name, text string
		procs      int64
		want       string
	}{
		{"empty file", "", 8, "t.swf: no job to simulate: it has no job record (an empty file, or a header alone)"},
		{"header alone", header, 0, "t.swf: no job to simulate: it has no job record"},
		{"header alone, gzip", gzipped(header), 0, "t.swf: no job to simulate: it has no job record"},
		{"every job dropped", header + noRuntime + tooBig, 0,
			"t.swf: no job to simulate: the cleaning dropped all 3 job records (2 by nonpositive-runtime=drop, 1 by oversize=drop; on 8 processors)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "t.swf")
			if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := workload.LoadSWF(p, tc.procs, workload.Clean{})
			if !errors.Is(err, workload.ErrNoJobs) || !strings.HasPrefix(err.Error(), filepath.Join(dir, tc.want)) {
				t.Errorf("LoadSWF = %v, %v; want an error %q", w, err, tc.want)
			}
		})
	}
	_, err := workload.FromRecords("generator g", nil, 8, workload.Clean{})
	if !errors.Is(err, workload.ErrNoJobs) || !strings.Contains(err.Error(), "generator g: no job to simulate: it has no job record") {
		t.Errorf("FromRecords of no record: %v", err)
	}
}
