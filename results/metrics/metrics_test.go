package metrics_test

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// example is five jobs on one cluster of 4 processors, every time shifted by
// +100 so that the first submission is not 0 (the makespan counts from it).
//
//	idx id submit start  end  procs runtime walltime  wait  run
//	 0   1   100   100  1100    2    1000    1000        0  1000
//	 1   2   100   100   105    2       5      10        0     5
//	 2   3   110  1100  1300    4     200     300      990   200  promised 1100, kept
//	 3   4   120  1300  1303    1      50       3     1180     3  killed; promised 1200, broken
//	 4   5   125   130   190    2      60      60        5    60  backfilled (3, 4 wait)
//
// Usage: [100,105) 4 procs, [105,130) 2, [130,190) 4, [190,1100) 2,
// [1100,1300) 4, [1300,1303) 1: never over 4, and verify accepts it.
func example() (*sdk.Platform, []sim.Input, []sim.Record) {
	p := sdk.SingleCluster("m", 4)
	type spec struct{ id, submit, runtime, walltime, procs int64 }
	specs := []spec{
		{1, 100, 1000, 1000, 2},
		{2, 100, 5, 10, 2},
		{3, 110, 200, 300, 4},
		{4, 120, 50, 3, 1},
		{5, 125, 60, 60, 2},
	}
	jobs := make([]sim.Input, len(specs))
	for i, s := range specs {
		jobs[i] = sim.Input{
			Job:     sdk.Job{ID: s.id, Submit: s.submit, Walltime: s.walltime, Request: sdk.Vector{s.procs}},
			Runtime: s.runtime,
		}
	}
	sim.Sort(jobs)
	recs := []sim.Record{
		{Index: 0, Start: 100, End: 1100},
		{Index: 1, Start: 100, End: 105},
		{Index: 2, Start: 1100, End: 1300, Promised: 1100, HasPromise: true},
		{Index: 3, Start: 1300, End: 1303, Promised: 1200, HasPromise: true, Killed: true},
		{Index: 4, Start: 130, End: 190, Backfilled: true},
	}
	return p, jobs, recs
}

func TestExampleIsValid(t *testing.T) {
	p, jobs, recs := example()
	if err := verify.Records(p, jobs, recs); err != nil {
		t.Fatal(err)
	}
}

// Counts and whole-run figures, the same under every setting:
//
//	killed 1 (idx 3), backfilled 1 (idx 4), promised 2 (idx 2, 3), broken 1
//	(idx 3 started at 1300 > 1200; idx 2 started exactly at its promise).
//	Processor-seconds: 2*1000 + 2*5 + 4*200 + 1*3 + 2*60 = 2933.
//	Makespan: last end 1303 - first submit 100 = 1203.
//	Utilisation: 2933 / (4 * 1203) = 2933/4812.
const (
	wantKilled, wantBackfilled, wantPromised, wantBroken = 1, 1, 2, 1
	wantMakespan                                         = 1203
	wantUtil                                             = 2933.0 / 4812.0
)

// Per-job figures, by index (w = wait, r = run):
//
//	w:    0, 0, 990, 1180, 5
//	w+r:  1000, 5, 1190, 1183, 65   (turnaround)
//	bsld tau 10:  max(1, 1000/1000) = 1
//	              max(1, 5/max(5,10) = 0.5) = 1   (the floor at work)
//	              1190/200 = 5.95
//	              1183/max(3,10) = 118.3          (without the floor: 394.33)
//	              65/60 = 1.083333...
//	bsld tau 600: max(1, 1000/1000) = 1, max(1, 5/600) = 1,
//	              1190/600 = 1.983333..., 1183/600 = 1.971666...,
//	              max(1, 65/600) = 1
func TestCompute(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    metrics.Settings
		want metrics.Summary
	}{
		{
			// Waits sorted: 0 0 5 990 1180. Mean 2175/5 = 435.
			// Median: smallest w with >= 50% (2.5 of 5) <= w: the 3rd, 5.
			// P95: >= 4.75 of 5 waits: the 5th, 1180.
			// BSLD mean (1+1+5.95+118.3+65/60)/5 = (126.25 + 65/60)/5.
			// Turnaround (1000+5+1190+1183+65)/5 = 3443/5 = 688.6.
			name: "tau 10, no trimming",
			s:    metrics.Settings{SlowdownTau: 10},
			want: metrics.Summary{
				Jobs: 5, MeasuredJobs: 5,
				MeanWait: 435, MedianWait: 5, P95Wait: 1180, MaxWait: 1180,
				MeanBSLD: (126.25 + 65.0/60) / 5, MaxBSLD: 118.3,
				MeanTurnaround: 688.6,
			},
		},
		{
			// Same waits and turnaround; BSLD (1+1+1190/600+1183/600+1)/5 =
			// (3 + 2373/600)/5 = 1.391; max 1190/600.
			name: "tau 600, no trimming",
			s:    metrics.Settings{SlowdownTau: 600},
			want: metrics.Summary{
				Jobs: 5, MeasuredJobs: 5,
				MeanWait: 435, MedianWait: 5, P95Wait: 1180, MaxWait: 1180,
				MeanBSLD: 1.391, MaxBSLD: 1190.0 / 600,
				MeanTurnaround: 688.6,
			},
		},
		{
			// Warm-up 1 drops idx 0: waits 0 990 1180 5, sorted 0 5 990
			// 1180. Mean 2175/4 = 543.75. Median: >= 2 of 4: the 2nd, 5 (an
			// interpolating median would give 497.5). P95: >= 3.8 of 4: 1180.
			// BSLD (1+5.95+118.3+65/60)/4; turnaround (5+1190+1183+65)/4 =
			// 2443/4 = 610.75.
			name: "warm-up 1",
			s:    metrics.Settings{SlowdownTau: 10, WarmupJobs: 1},
			want: metrics.Summary{
				Jobs: 5, MeasuredJobs: 4,
				MeanWait: 543.75, MedianWait: 5, P95Wait: 1180, MaxWait: 1180,
				MeanBSLD: (125.25 + 65.0/60) / 4, MaxBSLD: 118.3,
				MeanTurnaround: 610.75,
			},
		},
		{
			// Cool-down 2 drops idx 3 and 4 (the last in submit order): waits
			// 0 0 990. Mean 330, median (>= 1.5 of 3) the 2nd = 0, P95 (>=
			// 2.85 of 3) 990. BSLD (1+1+5.95)/3 = 2.65; turnaround
			// (1000+5+1190)/3 = 2195/3.
			name: "cool-down 2",
			s:    metrics.Settings{SlowdownTau: 10, CooldownJobs: 2},
			want: metrics.Summary{
				Jobs: 5, MeasuredJobs: 3,
				MeanWait: 330, MedianWait: 0, P95Wait: 990, MaxWait: 990,
				MeanBSLD: 2.65, MaxBSLD: 5.95,
				MeanTurnaround: 2195.0 / 3,
			},
		},
		{
			// Warm-up 1 and cool-down 1 keep idx 1..3: waits 0 990 1180, mean
			// 2170/3, median 990, P95 1180. BSLD (1+5.95+118.3)/3 = 125.25/3.
			// Turnaround (5+1190+1183)/3 = 2378/3.
			name: "warm-up 1, cool-down 1",
			s:    metrics.Settings{SlowdownTau: 10, WarmupJobs: 1, CooldownJobs: 1},
			want: metrics.Summary{
				Jobs: 5, MeasuredJobs: 3,
				MeanWait: 2170.0 / 3, MedianWait: 990, P95Wait: 1180, MaxWait: 1180,
				MeanBSLD: 125.25 / 3, MaxBSLD: 118.3,
				MeanTurnaround: 2378.0 / 3,
			},
		},
		{
			// 3 + 2 = 5: every job trimmed, statistics stay zero.
			name: "trimming covers every job",
			s:    metrics.Settings{SlowdownTau: 10, WarmupJobs: 3, CooldownJobs: 2},
			want: metrics.Summary{Jobs: 5, MeasuredJobs: 0},
		},
		{
			name: "trimming overlaps",
			s:    metrics.Settings{SlowdownTau: 10, WarmupJobs: 4, CooldownJobs: 4},
			want: metrics.Summary{Jobs: 5, MeasuredJobs: 0},
		},
		{
			name: "warm-up beyond the workload",
			s:    metrics.Settings{SlowdownTau: 10, WarmupJobs: 100},
			want: metrics.Summary{Jobs: 5, MeasuredJobs: 0},
		},
		{
			name: "cool-down beyond the workload",
			s:    metrics.Settings{SlowdownTau: 10, CooldownJobs: 100},
			want: metrics.Summary{Jobs: 5, MeasuredJobs: 0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, jobs, recs := example()
			got, err := metrics.Compute(p, jobs, recs, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			// Counts and whole-run figures ignore trimming.
			w.Killed, w.Backfilled, w.Promised, w.PromisesBroken = wantKilled, wantBackfilled, wantPromised, wantBroken
			w.Makespan, w.Utilisation = wantMakespan, wantUtil
			compare(t, got, w)
		})
	}
}

func compare(t *testing.T, got, want metrics.Summary) {
	t.Helper()
	ints := []struct {
		name      string
		got, want int64
	}{
		{"Jobs", int64(got.Jobs), int64(want.Jobs)},
		{"MeasuredJobs", int64(got.MeasuredJobs), int64(want.MeasuredJobs)},
		{"Killed", int64(got.Killed), int64(want.Killed)},
		{"Backfilled", int64(got.Backfilled), int64(want.Backfilled)},
		{"Promised", int64(got.Promised), int64(want.Promised)},
		{"PromisesBroken", int64(got.PromisesBroken), int64(want.PromisesBroken)},
		{"Makespan", got.Makespan, want.Makespan},
	}
	for _, c := range ints {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	floats := []struct {
		name      string
		got, want float64
	}{
		{"MeanWait", got.MeanWait, want.MeanWait},
		{"MedianWait", got.MedianWait, want.MedianWait},
		{"P95Wait", got.P95Wait, want.P95Wait},
		{"MaxWait", got.MaxWait, want.MaxWait},
		{"MeanBSLD", got.MeanBSLD, want.MeanBSLD},
		{"MaxBSLD", got.MaxBSLD, want.MaxBSLD},
		{"MeanTurnaround", got.MeanTurnaround, want.MeanTurnaround},
		{"Utilisation", got.Utilisation, want.Utilisation},
	}
	for _, c := range floats {
		if math.Abs(c.got-c.want) > 1e-9*max(1, math.Abs(c.want)) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestQuantiles checks the empirical quantile on 20 waits 1..20 (given in
// reverse order, so Compute must sort): the median is the smallest wait with
// at least 10 of 20 waits <= it, 10 (not 10.5); P95 the smallest with at least
// 19 of 20, 19 (not 20, and not an interpolated 19.05).
func TestQuantiles(t *testing.T) {
	const n = 20
	p := sdk.SingleCluster("m", n)
	jobs := make([]sim.Input, n)
	recs := make([]sim.Record, n)
	for i := range n {
		jobs[i] = sim.Input{Job: sdk.Job{Index: i, ID: int64(i + 1), Submit: 0, Walltime: 10, Request: sdk.Vector{1}}, Runtime: 10}
		wait := int64(n - i) // 20, 19, ..., 1
		recs[i] = sim.Record{Index: int32(i), Start: wait, End: wait + 10, Backfilled: i > 0}
	}
	if err := verify.Records(p, jobs, recs); err != nil {
		t.Fatal(err)
	}
	got, err := metrics.Compute(p, jobs, recs, metrics.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	// Mean wait 210/20 = 10.5. Utilisation 20*10 / (20 * 30) = 1/3: the last
	// job ends at 20+10 = 30. Backfilled: every job but the first.
	if got.MedianWait != 10 || got.P95Wait != 19 || got.MaxWait != 20 || got.MeanWait != 10.5 {
		t.Errorf("median %v p95 %v max %v mean %v, want 10 19 20 10.5", got.MedianWait, got.P95Wait, got.MaxWait, got.MeanWait)
	}
	if got.Makespan != 30 || math.Abs(got.Utilisation-1.0/3) > 1e-12 || got.Backfilled != 19 {
		t.Errorf("makespan %d utilisation %v backfilled %d, want 30 1/3 19", got.Makespan, got.Utilisation, got.Backfilled)
	}
}

// TestMultiClusterUtilisation: processors of all clusters count. Clusters of
// 4 and 12 processors; one 4-proc job runs [0,100) on the second: 400
// processor-seconds of 16*100.
func TestMultiClusterUtilisation(t *testing.T) {
	p := &sdk.Platform{
		Name:      "two",
		Resources: []string{sdk.Processors},
		Clusters:  []sdk.Cluster{{Name: "a", Capacity: sdk.Vector{4}}, {Name: "b", Capacity: sdk.Vector{12}}},
	}
	jobs := []sim.Input{{Job: sdk.Job{ID: 1, Walltime: 100, Request: sdk.Vector{4}}, Runtime: 100}}
	recs := []sim.Record{{Index: 0, Cluster: 1, Start: 0, End: 100}}
	got, err := metrics.Compute(p, jobs, recs, metrics.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if got.Utilisation != 0.25 || got.Makespan != 100 {
		t.Errorf("utilisation %v makespan %d, want 0.25 100", got.Utilisation, got.Makespan)
	}
}

func TestEmpty(t *testing.T) {
	got, err := metrics.Compute(sdk.SingleCluster("m", 4), nil, nil, metrics.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, metrics.Summary{}) {
		t.Errorf("%+v, want zero summary", got)
	}
}

func TestSettingErrors(t *testing.T) {
	p, jobs, recs := example()
	for _, tc := range []struct {
		name string
		s    metrics.Settings
		want string
	}{
		{"tau 0", metrics.Settings{SlowdownTau: 0}, "slowdown floor 0 s"},
		{"zero settings", metrics.Settings{}, "slowdown floor 0 s"},
		{"negative tau", metrics.Settings{SlowdownTau: -10}, "slowdown floor -10 s"},
		{"negative warm-up", metrics.Settings{SlowdownTau: 10, WarmupJobs: -1}, "negative trimming (warm-up -1, cool-down 0)"},
		{"negative cool-down", metrics.Settings{SlowdownTau: 10, CooldownJobs: -2}, "negative trimming (warm-up 0, cool-down -2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := metrics.Compute(p, jobs, recs, tc.s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Tau 1 is the smallest valid floor: no error.
	if _, err := metrics.Compute(p, jobs, recs, metrics.Settings{SlowdownTau: 1}); err != nil {
		t.Errorf("tau 1: %v", err)
	}
}

func TestSettingsMap(t *testing.T) {
	m := metrics.Settings{SlowdownTau: 600, WarmupJobs: 3, CooldownJobs: 7}.Map()
	want := map[string]string{"metrics.bsld_tau": "600", "metrics.warmup_jobs": "3", "metrics.cooldown_jobs": "7"}
	if len(m) != len(want) {
		t.Errorf("%v, want %v", m, want)
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %q", k, m[k], v)
		}
	}
	if d := metrics.DefaultSettings(); d != (metrics.Settings{SlowdownTau: 10}) {
		t.Errorf("defaults %+v", d)
	}
}

// TestRejected: a rejected job counts apart and in no other statistic.
// Job 1 waits 10 s and runs 100; job 2, rejected at 500, would otherwise
// weigh on the waits and the makespan.
func TestRejected(t *testing.T) {
	jobs := []sim.Input{
		{Job: sdk.Job{ID: 1, Walltime: 100, Request: sdk.Vector{2}}, Runtime: 100},
		{Job: sdk.Job{ID: 2, Walltime: 100, Request: sdk.Vector{4}}, Runtime: 100},
	}
	recs := []sim.Record{{Index: 0, Cluster: 0, Start: 10, End: 110}, {Index: 1, Cluster: -1, Start: 500, End: 500, Rejected: true}}
	got, err := metrics.Compute(sdk.SingleCluster("m", 4), jobs, recs, metrics.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if got.Rejected != 1 || got.MeasuredJobs != 1 || got.MeanWait != 10 || got.MaxWait != 10 || got.Makespan != 110 ||
		got.Utilisation != 200.0/440 || got.BackfillErrors != -1 {
		t.Errorf("%+v, want 1 rejected, 1 measured job waiting 10 s, makespan 110, utilisation 200/440, no backfill errors", got)
	}
}

// TestGridMetrics: on a grid, local and global jobs are measured apart,
// with rejections, refusals and broken reservations; a run that is not of
// a grid has none of these keys in its JSON.
func TestGridMetrics(t *testing.T) {
	p := &sdk.Platform{Name: "g", Resources: []string{sdk.Processors}, Clusters: []sdk.Cluster{
		{Name: "a", Capacity: sdk.Vector{4}}, {Name: "b", Capacity: sdk.Vector{4}}}}
	jobs := []sim.Input{
		{Job: sdk.Job{ID: 1, Walltime: 100, Request: sdk.Vector{1}, Home: 1}, Runtime: 100},
		{Job: sdk.Job{ID: 2, Walltime: 100, Request: sdk.Vector{1}, Home: 2}, Runtime: 100},
		{Job: sdk.Job{ID: 3, Walltime: 100, Request: sdk.Vector{1}, Transfer: 5}, Runtime: 100},
		{Job: sdk.Job{ID: 4, Walltime: 100, Request: sdk.Vector{1}}, Runtime: 100},
	}
	recs := []sim.Record{
		{Index: 0, Cluster: 0, Start: 10, End: 110},
		{Index: 1, Cluster: 1, Start: 30, End: 130},
		{Index: 2, Cluster: 1, Start: 50, End: 150, Shipped: true, Reserved: true, ReservedAt: 40, ReservedCluster: 1, Refusals: 2},
		{Index: 3, Cluster: -1, Start: 7, End: 7, Rejected: true},
	}
	got, err := metrics.Compute(p, jobs, recs, metrics.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	// Local waits 10 and 30, bounded slowdowns 1.1 and 1.3; the global job
	// waits 50 (slowdown 1.5); job 4 is rejected.
	if !got.Grid || got.LocalJobs != 2 || got.GlobalJobs != 1 || got.LocalMeanWait != 20 || got.GlobalMeanWait != 50 ||
		got.GlobalMaxWait != 50 || math.Abs(got.LocalMeanBSLD-1.2) > 1e-12 || got.GlobalMeanBSLD != 1.5 ||
		got.GlobalRejected != 1 || got.Refusals != 2 || got.BrokenReservations != 1 || got.Rejected != 1 ||
		!reflect.DeepEqual(got.ClusterUtilisation, map[string]float64{"a": 100.0 / (4 * 150), "b": 200.0 / (4 * 150)}) {
		t.Errorf("%+v", got)
	}
	b, _ := json.Marshal(got)
	if !strings.Contains(string(b), `"global_mean_wait":50`) {
		t.Errorf("grid JSON %s", b)
	}
	one, err := metrics.Compute(sdk.SingleCluster("m", 4), jobs[3:], []sim.Record{{Index: 0, Cluster: 0, Start: 0, End: 100}}, metrics.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(one)
	for _, k := range metrics.GridKeys() {
		if strings.Contains(string(b), `"`+k+`"`) {
			t.Errorf("%s in the JSON of a run that is not of a grid: %s", k, b)
		}
	}
}

// TestSummaryJSONOrder: a summary's JSON keeps the fields' order, grid or
// not, as encoding/json would write it without the grid fields.
func TestSummaryJSONOrder(t *testing.T) {
	s := metrics.Summary{Jobs: 3, MeasuredJobs: 2, MeanWait: 1.5, Utilisation: 0.5, Makespan: 9}
	got, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jobs":3,"measured_jobs":2,"killed":0,"backfilled":0,"rejected":0,"backfill_errors":0,"promised":0,"promises_broken":0,` +
		`"mean_wait":1.5,"median_wait":0,"p95_wait":0,"max_wait":0,"mean_bsld":0,"max_bsld":0,"mean_turnaround":0,` +
		`"users":0,"user_mean_bsld_min":0,"user_mean_bsld_max":0,"user_bsld_jain":0,"utilisation":0.5,"makespan":9}`
	if string(got) != want {
		t.Errorf("%s\nwant\n%s", got, want)
	}
	s.Grid, s.LocalJobs, s.LocalMeanWait = true, 2, 4
	got, _ = json.Marshal(s)
	if !strings.HasSuffix(string(got), `"makespan":9,"local_jobs":2,"global_jobs":0,"local_mean_wait":4,"local_mean_bsld":0,"global_rejected":0,"refusals":0,"broken_reservations":0,"cluster_utilisation":null}`) {
		t.Errorf("a grid with no global job measured: %s", got)
	}
}

// TestAddNodes checks the metrics of a run on nodes worked out by hand:
// two nodes of 4 cores and 8 GiB; job A, shared, 2 tasks of 1 core and 1
// GiB on node 0 from 0 to 10; job B, exclusive, 1 task on node 1 from 0 to
// 5. Makespan 10 s.
func TestAddNodes(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 2, Cores: 4, Memory: 8 << 30}}, nil, sdk.FirstFit)
	a := &sdk.Tasks{Count: 2, Cores: 1, Memory: 1 << 30}
	b := &sdk.Tasks{Count: 1, Cores: 1, Nodes: 1, Exclusive: true}
	jobs := []sim.Input{
		{Job: sdk.Job{ID: 1, Walltime: 10, Request: sdk.Vector{2, 2 << 30}, Tasks: a}, Runtime: 10},
		{Job: sdk.Job{ID: 2, Index: 1, Walltime: 5, Request: sdk.Vector{4, 8 << 30}, Tasks: b}, Runtime: 5},
	}
	recs := []sim.Record{{Index: 0, Start: 0, End: 10}, {Index: 1, Start: 0, End: 5}}
	allocs := &sim.Allocs{Start: []int32{0, 1, 2}, Nodes: []int32{0, 1}, Tasks: []int32{2, 1}}
	sum, err := metrics.Compute(p, jobs, recs, metrics.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	metrics.AddNodes(&sum, p, jobs, recs, allocs)
	// Tasks' cores 2x10 + 1x5 = 25 of 80 core-seconds; held 20 + 4x5 =
	// 40; memory 2 GiB x 10 + 8 GiB x 5 = 60 of 160 GiB-seconds; nodes
	// busy 10 + 5 of 20 node-seconds; node 0 has 2 idle cores for 10 s
	// while partly busy (node 1 is held whole): 20 of 80.
	want := map[string]float64{"task": 25.0 / 80, "held": 0.5, "mem": 60.0 / 160, "node": 0.75, "frag": 0.25}
	got := map[string]float64{"task": sum.TaskCoreUtil, "held": sum.HeldCoreUtil, "mem": *sum.MemoryUtil, "node": sum.NodeUtil, "frag": sum.Fragmentation}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-12 {
			t.Errorf("%s: %v, want %v", k, got[k], w)
		}
	}
	if sum.GPUUtil != nil || !sum.Nodes {
		t.Errorf("GPU utilisation %v on nodes without GPUs; Nodes %v", sum.GPUUtil, sum.Nodes)
	}
	js, _ := json.Marshal(sum)
	if !strings.Contains(string(js), `"gpu_utilisation":null`) || !strings.Contains(string(js), `"fragmentation":0.25`) {
		t.Errorf("summary JSON %s", js)
	}
	// A pool's summary has none of them.
	pool, _ := metrics.Compute(sdk.SingleCluster("p", 8), []sim.Input{{Job: sdk.Job{ID: 1, Walltime: 1, Request: sdk.Vector{1}}, Runtime: 1}},
		[]sim.Record{{Start: 0, End: 1}}, metrics.DefaultSettings())
	if js, _ := json.Marshal(pool); strings.Contains(string(js), "fragmentation") {
		t.Errorf("a pool's summary has node metrics: %s", js)
	}
}

// TestNoJobStatistic: a statistic with no job to stand on is left out of
// the summary's JSON (null in runs.parquet), never written as 0: the waits,
// slowdowns and turnaround when no job is measured (every job rejected,
// trimmed by warm-up and cool-down, or none at all), the makespan and
// utilisation when no job ran. Where jobs are measured every key is there.
func TestNoJobStatistic(t *testing.T) {
	twoJobs := []sim.Input{
		{Job: sdk.Job{ID: 1, Submit: 1000, Walltime: 100, Request: sdk.Vector{2}}, Runtime: 100},
		{Job: sdk.Job{ID: 2, Submit: 1000, Walltime: 100, Request: sdk.Vector{4}}, Runtime: 100},
	}
	ran := []sim.Record{{Index: 0, Start: 1010, End: 1110}, {Index: 1, Start: 1110, End: 1210}}
	rejected := []sim.Record{{Index: 0, Cluster: -1, Start: 1000, End: 1000, Rejected: true}, {Index: 1, Cluster: -1, Start: 1000, End: 1000, Rejected: true}}
	p, jobs, recs := example()
	jobStats := []string{"mean_wait", "median_wait", "p95_wait", "max_wait", "mean_bsld", "max_bsld", "mean_turnaround"}
	span := []string{"utilisation", "makespan"}
	for _, tc := range []struct {
		name     string
		jobs     []sim.Input
		recs     []sim.Record
		s        metrics.Settings
		absent   []string
		measured int
	}{
		{"jobs measured", jobs, recs, metrics.DefaultSettings(), nil, 5},
		{"every job rejected", twoJobs, rejected, metrics.DefaultSettings(), append(jobStats, span...), 0},
		{"warm-up and cool-down leave none", twoJobs, ran, metrics.Settings{SlowdownTau: 10, WarmupJobs: 1, CooldownJobs: 1}, jobStats, 0},
		{"warm-up past the end", twoJobs, ran, metrics.Settings{SlowdownTau: 10, WarmupJobs: 5}, jobStats, 0},
		{"no job", nil, nil, metrics.DefaultSettings(), append(jobStats, span...), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := metrics.Compute(p, tc.jobs, tc.recs, tc.s) // 4 processors, as twoJobs needs
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			for _, k := range append(jobStats, span...) {
				_, has := m[k]
				if want := !slices.Contains(tc.absent, k); has != want {
					t.Errorf("%s in the JSON: %v, want %v: %s", k, has, want, b)
				}
			}
			if got.MeasuredJobs != tc.measured || m["measured_jobs"] != float64(tc.measured) || m["jobs"] != float64(len(tc.jobs)) {
				t.Errorf("measured %d of %v jobs, want %d of %d: %s", got.MeasuredJobs, m["jobs"], tc.measured, len(tc.jobs), b)
			}
			if got.HasJobStats() != !slices.Contains(tc.absent, "mean_wait") || got.HasSpan() != !slices.Contains(tc.absent, "makespan") {
				t.Errorf("HasJobStats %v HasSpan %v, want them true for the statistics written", got.HasJobStats(), got.HasSpan())
			}
			if got.Makespan < 0 {
				t.Errorf("makespan %d", got.Makespan)
			}
		})
	}
}

// TestUserFairness: the example's jobs of users 1 (idx 0, 1), 2 (idx 2,
// 3) and 3 (idx 4), bounded slowdowns (tau 10) 1, 1, 5.95, 118.3 and
// 65/60: user means 1, 62.125 and 13/12; Jain's index (sum)^2 / (3 x sum
// of squares). With one user, its mean and an index of 1.
func TestUserFairness(t *testing.T) {
	p, jobs, recs := example()
	for i, u := range []int32{1, 1, 2, 2, 3} {
		jobs[i].Job.User = u
	}
	got, err := metrics.Compute(p, jobs, recs, metrics.Settings{SlowdownTau: 10})
	if err != nil {
		t.Fatal(err)
	}
	m := []float64{1, 62.125, 13.0 / 12}
	jain := (m[0] + m[1] + m[2]) * (m[0] + m[1] + m[2]) / (3 * (m[0]*m[0] + m[1]*m[1] + m[2]*m[2]))
	if got.Users != 3 || got.UserMeanBSLDMin != 1 || math.Abs(got.UserMeanBSLDMax-62.125) > 1e-12 || math.Abs(got.UserBSLDJain-jain) > 1e-12 {
		t.Errorf("users %d, min %g, max %g, Jain %g; want 3, 1, 62.125, %g", got.Users, got.UserMeanBSLDMin, got.UserMeanBSLDMax, got.UserBSLDJain, jain)
	}
	for i := range jobs {
		jobs[i].Job.User = -1
	}
	got, _ = metrics.Compute(p, jobs, recs, metrics.Settings{SlowdownTau: 10})
	if got.Users != 1 || got.UserBSLDJain != 1 || math.Abs(got.UserMeanBSLDMin-got.MeanBSLD) > 1e-12 || got.UserMeanBSLDMin != got.UserMeanBSLDMax {
		t.Errorf("one user: %+v", got)
	}
}
