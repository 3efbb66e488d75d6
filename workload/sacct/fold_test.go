package sacct_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload/sacct"
)

// foldHeader has the fields step folding touches.
const foldHeader = "JobID|JobIDRaw|State|Start|End|Elapsed|TotalCPU|UserCPU|SystemCPU|MaxRSS|MaxVMSize|AllocCPUS|ReqCPUS|NNodes|CPUTimeRAW|AllocTRES"

// TestStepFolding folds hand-written steps: each case is a small log and
// what its jobs must hold.
func TestStepFolding(t *testing.T) {
	type want struct {
		id                 string
		steps              []string
		total, user, sys   float64
		maxRSS, maxVM      int64
		start, end, elapsd int64
	}
	const t0 = 1633433172 // 2021-10-05T11:26:12 UTC
	cases := []struct {
		name  string
		lines []string
		want  []want
		rep   sacct.Report // only the folding counts are compared
	}{
		{
			name: "job record has CPU times: kept; MaxRSS from the steps",
			lines: []string{
				"10|10|COMPLETED|2021-10-05T11:26:12|2021-10-05T11:27:08|00:00:56|00:10.000|00:07.000|00:03.000|||2|2|1|112|cpu=2",
				"10.batch|10.batch|COMPLETED|2021-10-05T11:26:12|2021-10-05T11:27:08|00:00:56|00:04.000|00:03.000|00:01.000|100K|2M|2||1||cpu=2",
				"10.extern|10.extern|COMPLETED|2021-10-05T11:26:12|2021-10-05T11:27:08|00:00:56|00:00:00|00:00:00|00:00:00|4K|1M|2||1||cpu=2",
				"10.0|10.0|COMPLETED|2021-10-05T11:26:13|2021-10-05T11:27:00|00:00:47|00:06.000|00:04.000|00:02.000|2M|3M|2||1||cpu=2",
			},
			want: []want{{id: "10", steps: []string{"batch", "extern", "0"}, total: 10, user: 7, sys: 3,
				maxRSS: 2 << 20, maxVM: 3 << 20, start: t0, end: t0 + 56, elapsd: 56}},
			rep: sacct.Report{Jobs: 1, Steps: 3},
		},
		{
			name: "job record lacks CPU times and times: summed and widened from the steps",
			lines: []string{
				"11|11|RUNNING|Unknown|Unknown|||||||2|2|1||",
				"11.batch|11.batch|COMPLETED|2021-10-05T11:26:12|2021-10-05T11:27:08|00:00:56|00:04.500|00:03.000|00:01.500|100K||2||1||",
				"11.extern|11.extern|COMPLETED|2021-10-05T11:26:10|2021-10-05T11:27:09|00:00:59||||4K||2||1||", // no CPU times: not counted
				"11.0|11.0|COMPLETED|2021-10-05T11:26:13|2021-10-05T11:27:00|00:00:47|00:06.000|00:04.000|00:02.000|||2||1||",
			},
			want: []want{{id: "11", steps: []string{"batch", "extern", "0"}, total: 10.5, user: 7, sys: 3.5,
				maxRSS: 100 << 10, maxVM: sacct.Missing, start: t0 - 2, end: t0 + 57, elapsd: 59}},
			rep: sacct.Report{Jobs: 1, Steps: 3},
		},
		{
			name: "array tasks, and a step before its job",
			lines: []string{
				"12_4.batch|13.batch|COMPLETED||||00:01.000|00:01.000|00:00:00|1K||1||||",
				"12_4|13|COMPLETED|||||||||1|1|1||",
				"12_4.0|13.0|COMPLETED||||00:02.000|00:01.000|00:01.000|3K||1||||",
				"12_5|14|COMPLETED|||||||||1|1|1||",
			},
			want: []want{
				{id: "12_4", steps: []string{"batch", "0"}, total: 3, user: 2, sys: 1, maxRSS: 3 << 10, maxVM: sacct.Missing,
					start: sacct.Missing, end: sacct.Missing, elapsd: sacct.Missing},
				{id: "12_5", total: math.NaN(), user: math.NaN(), sys: math.NaN(), maxRSS: sacct.Missing, maxVM: sacct.Missing,
					start: sacct.Missing, end: sacct.Missing, elapsd: sacct.Missing},
			},
			rep: sacct.Report{Jobs: 2, Steps: 2},
		},
		{
			name: "orphan steps are reported, not folded",
			lines: []string{
				"14|14|COMPLETED|||||||||1|1|1||",
				"15.batch|15.batch|COMPLETED||||00:01.000|||||1||||",
				"14_2.0|16.0|COMPLETED||||00:01.000|||||1||||",
			},
			want: []want{{id: "14", total: math.NaN(), user: math.NaN(), sys: math.NaN(), maxRSS: sacct.Missing, maxVM: sacct.Missing,
				start: sacct.Missing, end: sacct.Missing, elapsd: sacct.Missing}},
			rep: sacct.Report{Jobs: 1, Orphans: 2, Skipped: []sacct.Skip{
				{Line: 3, ID: "15.batch", Reason: "step without its job record"},
				{Line: 4, ID: "14_2.0", Reason: "step without its job record"},
			}},
		},
		{
			name: "duplicate ids (sacct -D): separate jobs, steps to the latest",
			lines: []string{
				"17|17|REQUEUED|||||||||1|1|1||",
				"17.batch|17.batch|CANCELLED||||00:01.000|||||1||||",
				"17|17|COMPLETED|||||||||1|1|1||",
				"17.batch|17.batch|COMPLETED||||00:05.000|||||1||||",
			},
			want: []want{
				{id: "17", steps: []string{"batch"}, total: 1, user: math.NaN(), sys: math.NaN(), maxRSS: sacct.Missing, maxVM: sacct.Missing,
					start: sacct.Missing, end: sacct.Missing, elapsd: sacct.Missing},
				{id: "17", steps: []string{"batch"}, total: 5, user: math.NaN(), sys: math.NaN(), maxRSS: sacct.Missing, maxVM: sacct.Missing,
					start: sacct.Missing, end: sacct.Missing, elapsd: sacct.Missing},
			},
			rep: sacct.Report{Jobs: 2, Steps: 2, DuplicateIDs: 1},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			jobs, rep := read(t, lines(append([]string{foldHeader}, c.lines...)...))
			if len(jobs) != len(c.want) {
				t.Fatalf("%d jobs, want %d", len(jobs), len(c.want))
			}
			for i, w := range c.want {
				j := jobs[i]
				got := want{j.ID, j.Steps, j.TotalCPU, j.UserCPU, j.SystemCPU, j.MaxRSS, j.MaxVMSize, j.Start, j.End, j.Elapsed}
				if !sameWant(got.total, w.total) || !sameWant(got.user, w.user) || !sameWant(got.sys, w.sys) {
					t.Errorf("job %d CPU = %v %v %v, want %v %v %v", i, got.total, got.user, got.sys, w.total, w.user, w.sys)
				}
				got.total, got.user, got.sys, w.total, w.user, w.sys = 0, 0, 0, 0, 0, 0
				if !reflect.DeepEqual(got, w) {
					t.Errorf("job %d = %+v\nwant %+v", i, got, w)
				}
			}
			if rep.Jobs != c.rep.Jobs || rep.Steps != c.rep.Steps || rep.DuplicateIDs != c.rep.DuplicateIDs ||
				rep.Orphans != c.rep.Orphans || rep.HetComponents != c.rep.HetComponents || !reflect.DeepEqual(rep.Skipped, c.rep.Skipped) {
				t.Errorf("report %+v\nwant %+v", rep, c.rep)
			}
		})
	}
}

// sameWant compares floats with NaN equal to NaN.
func sameWant(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-9
}

// TestHetFolding folds the components of a heterogeneous job into one job.
func TestHetFolding(t *testing.T) {
	text := lines(foldHeader,
		"20+0|20|COMPLETED|2021-10-05T11:26:12|2021-10-05T11:27:08|00:00:56|00:02.000|00:01.000|00:01.000|||4|4|1|224|cpu=4,mem=1G,node=1",
		"20+0.batch|20.batch|COMPLETED|2021-10-05T11:26:12|2021-10-05T11:27:08|00:00:56|00:02.000|00:01.000|00:01.000|1M||4||1||cpu=4",
		"20+1|21|COMPLETED|2021-10-05T11:26:12|2021-10-05T11:28:00|00:01:48|00:06.000|00:05.000|00:01.000|||8|8|2|864|cpu=8,mem=2G,node=2",
		"20+1.0|21.0|COMPLETED|2021-10-05T11:26:12|2021-10-05T11:28:00|00:01:48|00:06.000|00:05.000|00:01.000|5M||8||2||cpu=8",
		"22|22|COMPLETED|||||||||1|1|1||")
	jobs, rep := read(t, text)
	if len(jobs) != 2 || rep.HetComponents != 1 || rep.Steps != 2 || rep.DuplicateIDs != 0 {
		t.Fatalf("%d jobs, report %+v", len(jobs), rep)
	}
	j := jobs[0]
	if j.ID != "20" || j.JobID != 20 || j.HetComponents != 2 || j.RawID != 20 || j.Line != 2 {
		t.Errorf("identity %+v", j)
	}
	if !reflect.DeepEqual(j.Steps, []string{"+0.batch", "+1.0"}) {
		t.Errorf("steps %v", j.Steps)
	}
	if j.AllocCPUS != 12 || j.ReqCPUS != 12 || j.NNodes != 3 || j.CPUTime != 1088 {
		t.Errorf("counts %d %d %d %d", j.AllocCPUS, j.ReqCPUS, j.NNodes, j.CPUTime)
	}
	if j.TotalCPU != 8 || j.UserCPU != 6 || j.SystemCPU != 2 || j.MaxRSS != 5<<20 {
		t.Errorf("usage %v %v %v %d", j.TotalCPU, j.UserCPU, j.SystemCPU, j.MaxRSS)
	}
	if j.End != 1633433172+108 || j.Elapsed != 108 {
		t.Errorf("end %d elapsed %d", j.End, j.Elapsed)
	}
	if want := (sacct.TRES{"cpu": 12, "mem": 3 << 30, "node": 3}); !reflect.DeepEqual(j.AllocTRES, want) {
		t.Errorf("AllocTRES %v, want %v", j.AllocTRES, want)
	}
	if jobs[1].ID != "22" || jobs[1].HetComponents != 0 {
		t.Errorf("next job %+v", jobs[1])
	}
	// A component seen twice is a duplicate job, not a third component.
	_, rep = read(t, text+"20+1|21|COMPLETED|||||||||1|1|1||\n")
	if rep.Jobs != 3 || rep.DuplicateIDs != 1 || rep.HetComponents != 1 {
		t.Errorf("repeated component: report %+v", rep)
	}
}

func TestReportString(t *testing.T) {
	_, rep, err := sacct.Options{SkipMalformed: true}.Read(strings.NewReader(lines("JobID|JobName|State",
		"1|a|b|COMPLETED", "1.batch|batch|COMPLETED", "2.batch|batch|COMPLETED", "3")), "x.log")
	if err != nil {
		t.Fatal(err)
	}
	s := rep.String()
	for _, w := range []string{"x.log: 5 lines, 3 records: 1 jobs, 1 steps folded", "1 records repaired map[JobName:1]", "2 skipped (1 orphan steps)"} {
		if !strings.Contains(s, w) {
			t.Errorf("%q does not contain %q", s, w)
		}
	}
}
