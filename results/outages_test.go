package results

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// outageExtras returns node, feedback and outage columns for n rows: every
// third job with one or two attempts, every fifth ended by an outage.
func outageExtras(n int) JobExtras {
	x := nodeExtras(n, NodeColumns{Memory: true})
	for i := range n {
		after, think := int64(i-1), int64(60*i)
		fb := FeedbackRow{TraceSubmit: int64(100 * i)}
		if i%4 == 1 {
			fb.AfterIndex, fb.ThinkTime = &after, &think
		}
		x.Feedback = append(x.Feedback, fb)
		o := OutageRow{AttemptStarts: []int64{}, AttemptEnds: []int64{}, AttemptCauses: []string{}, AttemptNodes: []int32{}, AttemptSaved: []int64{}}
		for a := range i % 3 {
			o.Attempts++
			o.AttemptStarts = append(o.AttemptStarts, int64(10*i+a))
			o.AttemptEnds = append(o.AttemptEnds, int64(10*i+a+5))
			o.AttemptCauses = append(o.AttemptCauses, []string{"failure", "maintenance"}[a%2])
			o.AttemptNodes = append(o.AttemptNodes, int32(i+a))
			o.AttemptSaved = append(o.AttemptSaved, int64(a))
			o.LostCoreSeconds += 5 - int64(a)
		}
		if i%5 == 0 && o.Attempts > 0 {
			s := "failure"
			o.Interrupted = &s
		}
		x.Outages = append(x.Outages, o)
	}
	return x
}

// TestOutageColumnsRoundTrip writes a jobs file with node, feedback and
// outage columns, all three, and reads it back: each group where it
// belongs. DuckDB, an independent reader, reads the outage lists.
func TestOutageColumnsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.parquet")
	jobs := sampleJobs(30)
	x := outageExtras(30)
	if err := WriteJobsWith(path, jobs, x, sampleMeta()); err != nil {
		t.Fatal(err)
	}
	rows, got, _, err := ReadJobsWith(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows, jobs) || !reflect.DeepEqual(got.Feedback, x.Feedback) || !reflect.DeepEqual(got.Outages, x.Outages) {
		t.Fatalf("rows, feedback or outages read back differ:\n%+v\nwant\n%+v", got.Outages[:3], x.Outages[:3])
	}
	for i := range got.Nodes {
		if !reflect.DeepEqual(got.Nodes[i].AllocCores, x.Nodes[i].AllocCores) && len(x.Nodes[i].AllocCores) > 0 {
			t.Fatalf("row %d: node columns read back %+v, want %+v", i, got.Nodes[i], x.Nodes[i])
		}
	}
	rep := duckChecker(t)(path, true)
	if len(rep.Data) != 30 {
		t.Fatalf("DuckDB read %d rows", len(rep.Data))
	}
	for i, row := range rep.Data {
		want := strings.ReplaceAll(fmt.Sprint(x.Outages[i].AttemptEnds), " ", ",")
		if got := strings.ReplaceAll(fmt.Sprint(row["attempt_ends"]), " ", ","); got != want {
			t.Errorf("row %d: DuckDB reads attempt_ends %s, want %s", i, got, want)
		}
		if fmt.Sprint(row["trace_submit"]) != fmt.Sprint(x.Feedback[i].TraceSubmit) {
			t.Errorf("row %d: DuckDB reads trace_submit %v, want %d", i, row["trace_submit"], x.Feedback[i].TraceSubmit)
		}
	}
}
