package series

import (
	"math"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/results"
)

// handJobs is a small schedule worked out by hand:
//
//	job  submit start end procs
//	1    0      0     10  4      runs [0,10)
//	2    2      5     15  2      waits [2,5), runs [5,15)
//	3    3      10    12  8      waits [3,10), runs [10,12)
//	4    4      4     4   16     zero runtime: never holds a processor, never waits
//	5    12     20    30  1      waits [12,20), runs [20,30), after an idle gap
//
// Processors in use: [0,5) 4, [5,10) 6, [10,12) 10 (job 1 ends as job 3
// starts: one change, no dip), [12,15) 2, [15,20) 0, [20,30) 1, then 0.
// Queue length: [0,2) 0, [2,3) 1, [3,5) 2, [5,10) 1, [10,12) 0, [12,20) 1,
// then 0.
func handJobs() []results.JobRow {
	return []results.JobRow{
		{JobID: 1, Submit: 0, Start: 0, End: 10, Procs: 4, Walltime: 10},
		{JobID: 2, Submit: 2, Start: 5, End: 15, Procs: 2, Walltime: 20},
		{JobID: 3, Submit: 3, Start: 10, End: 12, Procs: 8, Walltime: 5},
		{JobID: 4, Submit: 4, Start: 4, End: 4, Procs: 16, Walltime: 1},
		{JobID: 5, Submit: 12, Start: 20, End: 30, Procs: 1, Walltime: 100},
	}
}

func TestStepFunctions(t *testing.T) {
	for _, tc := range []struct {
		name string
		step func([]results.JobRow) Step
		jobs []results.JobRow
		want Step
		at   map[int64]float64
	}{
		{
			name: "procs in use",
			step: ProcsInUse,
			jobs: handJobs(),
			want: Step{T: []int64{0, 5, 10, 12, 15, 20, 30}, V: []float64{4, 6, 10, 2, 0, 1, 0}},
			at:   map[int64]float64{-1: 0, 0: 4, 4: 4, 5: 6, 9: 6, 10: 10, 11: 10, 12: 2, 14: 2, 15: 0, 19: 0, 20: 1, 29: 1, 30: 0, 100: 0},
		},
		{
			name: "queue length",
			step: QueueLength,
			jobs: handJobs(),
			want: Step{T: []int64{2, 3, 5, 10, 12, 20}, V: []float64{1, 2, 1, 0, 1, 0}},
			at:   map[int64]float64{0: 0, 1: 0, 2: 1, 3: 2, 4: 2, 5: 1, 9: 1, 10: 0, 11: 0, 12: 1, 19: 1, 20: 0},
		},
		{
			// Running: [0,5) 1, [5,10) 2, [10,12) 2 (job 1 ends as job 3
			// starts), [12,15) 1, [15,20) 0, [20,30) 1.
			name: "running jobs",
			step: RunningJobs,
			jobs: handJobs(),
			want: Step{T: []int64{0, 5, 12, 15, 20, 30}, V: []float64{1, 2, 1, 0, 1, 0}},
			at:   map[int64]float64{0: 1, 10: 2, 12: 1, 20: 1, 30: 0},
		},
		{
			// Waiting work, procs x walltime: job 2 40 over [2,5), job 3
			// 40 over [3,10), job 5 100 over [12,20).
			name: "queued work",
			step: QueuedWork,
			jobs: handJobs(),
			want: Step{T: []int64{2, 3, 5, 10, 12, 20}, V: []float64{40, 80, 40, 0, 100, 0}},
			at:   map[int64]float64{2: 40, 4: 80, 7: 40, 15: 100, 20: 0},
		},
		{
			name: "procs in use, no jobs",
			step: ProcsInUse,
			want: Step{},
			at:   map[int64]float64{0: 0, 10: 0},
		},
		{
			name: "queue length, no job waits",
			step: QueueLength,
			jobs: []results.JobRow{{Submit: 0, Start: 0, End: 5, Procs: 1}, {Submit: 3, Start: 3, End: 4, Procs: 1}},
			want: Step{},
			at:   map[int64]float64{0: 0, 3: 0},
		},
		{
			name: "procs in use, jobs in any order, equal instants merged",
			step: ProcsInUse,
			jobs: []results.JobRow{
				{Submit: 0, Start: 5, End: 10, Procs: 3},
				{Submit: 0, Start: 0, End: 5, Procs: 3},  // ends as the first starts: no change at 5
				{Submit: 0, Start: 5, End: 10, Procs: 2}, // same instants as the first
			},
			want: Step{T: []int64{0, 5, 10}, V: []float64{3, 5, 0}},
			at:   map[int64]float64{4: 3, 5: 5, 10: 0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.step(tc.jobs)
			if !slices.Equal(got.T, tc.want.T) || !slices.Equal(got.V, tc.want.V) {
				t.Errorf("step = %+v, want %+v", got, tc.want)
			}
			for at, want := range tc.at {
				if v := got.At(at); v != want {
					t.Errorf("At(%d) = %v, want %v", at, v, want)
				}
			}
		})
	}
}

func TestBinMeans(t *testing.T) {
	procs, queue := ProcsInUse(handJobs()), QueueLength(handJobs())
	for _, tc := range []struct {
		name      string
		step      Step
		from, to  float64
		n         int
		mid, mean []float64
	}{
		{
			name: "procs, bins on the changes",
			step: procs, from: 0, to: 15, n: 3,
			// [10,15): 10 for 2 s, 2 for 3 s.
			mid: []float64{2.5, 7.5, 12.5}, mean: []float64{4, 6, 26.0 / 5},
		},
		{
			name: "procs, bins across the changes",
			step: procs, from: 0, to: 16, n: 2,
			// [0,8): 4x5 + 6x3 = 38; [8,16): 6x2 + 10x2 + 2x3 + 0x1 = 38.
			mid: []float64{4, 12}, mean: []float64{38.0 / 8, 38.0 / 8},
		},
		{
			name: "procs, one bin over the whole run averages to the area",
			step: procs, from: 0, to: 30, n: 1,
			// 4x5 + 6x5 + 10x2 + 2x3 + 0x5 + 1x10 = 86.
			mid: []float64{15}, mean: []float64{86.0 / 30},
		},
		{
			name: "procs, bins before the first change and after the last",
			step: procs, from: -10, to: 40, n: 5,
			mid: []float64{-5, 5, 15, 25, 35}, mean: []float64{0, (4*5 + 6*5) / 10.0, (10*2 + 2*3) / 10.0, 1, 0},
		},
		{
			name: "queue, bins on the changes",
			step: queue, from: 0, to: 15, n: 3,
			// [0,5): 0x2 + 1x1 + 2x2 = 5; [5,10): 1x5; [10,15): 0x2 + 1x3.
			mid: []float64{2.5, 7.5, 12.5}, mean: []float64{1, 1, 3.0 / 5},
		},
		{
			name: "queue, bins inside one step",
			step: queue, from: 3, to: 5, n: 4,
			mid: []float64{3.25, 3.75, 4.25, 4.75}, mean: []float64{2, 2, 2, 2},
		},
		{
			name: "empty step",
			step: Step{}, from: 0, to: 10, n: 2,
			mid: []float64{2.5, 7.5}, mean: []float64{0, 0},
		},
		{name: "no bins", step: procs, from: 0, to: 10, n: 0},
		{name: "empty range", step: procs, from: 10, to: 10, n: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mid, mean := tc.step.BinMeans(tc.from, tc.to, tc.n)
			if !near(mid, tc.mid) || !near(mean, tc.mean) {
				t.Errorf("BinMeans(%v, %v, %d) = %v, %v, want %v, %v", tc.from, tc.to, tc.n, mid, mean, tc.mid, tc.mean)
			}
		})
	}
}

func near(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*math.Max(1, math.Abs(y)) })
}

func TestSpan(t *testing.T) {
	for _, tc := range []struct {
		name     string
		jobs     []results.JobRow
		from, to int64
		ok       bool
	}{
		{"hand jobs", handJobs(), 0, 30, true},
		{"no jobs", nil, 0, 0, false},
		{"a late submit ends first", []results.JobRow{{Submit: 5, End: 50}, {Submit: 7, End: 9}, {Submit: 1, End: 3}}, 1, 50, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, to, ok := Span(tc.jobs)
			if from != tc.from || to != tc.to || ok != tc.ok {
				t.Errorf("Span = %d, %d, %v, want %d, %d, %v", from, to, ok, tc.from, tc.to, tc.ok)
			}
		})
	}
}
