package layout

import (
	"errors"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/sdk"
)

// job is a row of a hand-made jobs file: on cluster c, from start to end on
// procs processors.
func job(id, start, end, procs, c int64) results.JobRow {
	return results.JobRow{JobID: id, Submit: 0, Start: start, End: end, Procs: procs, Cluster: c}
}

func pool(caps ...int64) *sdk.Platform {
	p := &sdk.Platform{Name: "p", Resources: []string{"procs"}}
	for _, c := range caps {
		p.Clusters = append(p.Clusters, sdk.Cluster{Capacity: sdk.Vector{c}})
	}
	return p
}

func TestPool(t *testing.T) {
	tests := []struct {
		name string
		caps []int64
		jobs []results.JobRow
		want []string // each job's lanes as String writes them
	}{
		{"a job ending frees its processors for one starting then", []int64{4},
			[]results.JobRow{job(1, 0, 10, 2, 0), job(2, 0, 5, 1, 0), job(3, 5, 10, 1, 0), job(4, 10, 20, 4, 0)},
			[]string{"0-1", "2", "2", "0-3"}},
		{"the lowest free processors, in pieces", []int64{4},
			[]results.JobRow{job(1, 0, 10, 1, 0), job(2, 0, 5, 1, 0), job(3, 0, 10, 1, 0), job(4, 5, 8, 2, 0)},
			[]string{"0", "1", "2", "1 3"}},
		{"a job of no runtime holds nothing", []int64{2},
			[]results.JobRow{job(1, 0, 10, 2, 0), job(2, 5, 5, 2, 0)},
			[]string{"0-1", ""}},
		{"the second cluster's processors come after the first's", []int64{2, 3},
			[]results.JobRow{job(1, 0, 10, 2, 0), job(2, 0, 10, 3, 1), job(3, 10, 11, 1, 1)},
			[]string{"0-1", "2-4", "2"}},
		{"a rejected job (cluster -1) holds nothing", []int64{2},
			[]results.JobRow{job(1, 3, 3, 2, -1), job(2, 0, 4, 2, 0)},
			[]string{"", "0-1"}},
		{"starts at one instant go in row order", []int64{3},
			[]results.JobRow{job(1, 0, 9, 1, 0), job(2, 0, 9, 2, 0)},
			[]string{"0", "1-2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Of(tc.jobs, results.JobExtras{}, pool(tc.caps...))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range l.Spans {
				got = append(got, String(s))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("lanes %q, want %q", got, tc.want)
			}
			var sum int64
			for _, c := range tc.caps {
				sum += c
			}
			if int64(l.Lanes) != sum || len(l.Rows) != len(tc.caps) || l.Unit != "processor" {
				t.Errorf("lanes %d rows %v unit %s", l.Lanes, l.Rows, l.Unit)
			}
		})
	}
}

func TestOverlapIsAnError(t *testing.T) {
	tests := []struct {
		name string
		jobs []results.JobRow
	}{
		{"more processors than the cluster", []results.JobRow{job(1, 0, 10, 3, 0)}},
		{"two jobs at once", []results.JobRow{job(1, 0, 10, 2, 0), job(2, 5, 6, 1, 0)}},
		{"a start before an end at one instant is not a free slot", []results.JobRow{job(1, 0, 10, 2, 0), job(2, 9, 11, 1, 0)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Of(tc.jobs, results.JobExtras{}, pool(2))
			if !errors.Is(err, ErrOverlap) {
				t.Fatalf("err %v, want ErrOverlap", err)
			}
		})
	}
	if _, err := Of([]results.JobRow{job(1, 0, 1, 1, 3)}, results.JobExtras{}, pool(2)); err == nil {
		t.Error("a job on a cluster the platform lacks is accepted")
	}
}

func TestNodes(t *testing.T) {
	plat := &sdk.Platform{Name: "n", Resources: []string{"procs"}, Clusters: []sdk.Cluster{{
		Capacity: sdk.Vector{12},
		Nodes:    []sdk.NodeGroup{{Name: "thin", Count: 2, Cores: 4}, {Name: "fat", Count: 1, Cores: 4}},
	}}}
	jobs := []results.JobRow{job(1, 0, 10, 6, 0), job(2, 0, 5, 2, 0), job(3, 5, 10, 3, 0), job(4, 0, 0, 4, 0)}
	x := results.JobExtras{Nodes: []results.NodeRow{
		{AllocNodes: []int32{0, 1}, AllocCores: []int32{2, 4}},
		{AllocNodes: []int32{0}, AllocCores: []int32{2}},
		{AllocNodes: []int32{0, 2}, AllocCores: []int32{2, 1}},
		{},
	}}
	l, err := Of(jobs, x, plat)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range l.Spans {
		got = append(got, String(s))
	}
	// Job 3 starts when job 2 ends, and takes node 0's cores 2-3 that job
	// 2 freed, then the fat node's first core (lane 8).
	want := []string{"0-1 4-7", "2-3", "2-3 8", ""}
	if !slices.Equal(got, want) {
		t.Errorf("lanes %q, want %q", got, want)
	}
	if l.Unit != "core" || l.Lanes != 12 || len(l.Rows) != 3 || l.Rows[2] != (Row{Name: "fat[0]", Lo: 8, N: 4}) {
		t.Errorf("unit %s lanes %d rows %v", l.Unit, l.Lanes, l.Rows)
	}

	x.Nodes[1].AllocCores[0] = 3 // 2 + 3 cores on a node of 4
	if _, err := Of(jobs, x, plat); !errors.Is(err, ErrOverlap) {
		t.Errorf("err %v, want ErrOverlap", err)
	}
	if _, err := Of(jobs, results.JobExtras{}, plat); err == nil {
		t.Error("a platform of nodes without node columns is accepted")
	}
}

// TestNodePieces: a job whose cores on one node come in two pieces frees
// both on that node when it ends.
func TestNodePieces(t *testing.T) {
	plat := &sdk.Platform{Name: "n", Resources: []string{"procs"}, Clusters: []sdk.Cluster{{
		Capacity: sdk.Vector{8},
		Nodes:    []sdk.NodeGroup{{Name: "a", Count: 2, Cores: 4}},
	}}}
	jobs := []results.JobRow{job(1, 0, 5, 1, 0), job(2, 0, 10, 1, 0), job(3, 2, 8, 4, 0), job(4, 8, 9, 4, 0), job(5, 9, 12, 4, 0)}
	x := results.JobExtras{Nodes: []results.NodeRow{
		{AllocNodes: []int32{0}, AllocCores: []int32{1}},       // core 0 until 5
		{AllocNodes: []int32{0}, AllocCores: []int32{1}},       // core 1 until 10
		{AllocNodes: []int32{0, 1}, AllocCores: []int32{2, 2}}, // node 0's 2-3, node 1's 4-5
		{AllocNodes: []int32{0, 1}, AllocCores: []int32{3, 1}}, // node 0's 0, 2-3 (two pieces); node 1's 4
		{AllocNodes: []int32{1}, AllocCores: []int32{4}},       // all of node 1, once job 4 freed 4
	}}
	l, err := Of(jobs, x, plat)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range l.Spans {
		got = append(got, String(s))
	}
	if want := []string{"0", "1", "2-3 4-5", "0 2-3 4", "4-7"}; !slices.Equal(got, want) {
		t.Errorf("lanes %q, want %q", got, want)
	}
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		spans []Span
		want  string
	}{
		{nil, ""},
		{[]Span{{0, 1}}, "0"},
		{[]Span{{0, 4}, {8, 1}, {10, 2}}, "0-3 8 10-11"},
	} {
		if got := String(tc.spans); got != tc.want {
			t.Errorf("String(%v) = %q, want %q", tc.spans, got, tc.want)
		}
	}
}

func TestFreeSetMerges(t *testing.T) {
	f := freeSet{{0, 10}}
	a, _ := f.take(3)
	b, _ := f.take(3)
	c, _ := f.take(4)
	if len(f) != 0 {
		t.Fatalf("left %v", f)
	}
	f.put(b[0])
	f.put(a[0])
	f.put(c[0])
	if !slices.Equal(f, freeSet{{0, 10}}) {
		t.Errorf("after putting back: %v", f)
	}
	if _, ok := f.take(11); ok || !slices.Equal(f, freeSet{{0, 10}}) {
		t.Errorf("a failed take changed the set: %v", f)
	}
}
