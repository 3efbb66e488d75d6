package export

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/layout"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/workload/swf"
)

// handRun is a run of four jobs on a pool of 4 processors: one completed,
// one killed at its walltime, one of zero runtime, one waiting for the
// first.
func handRun() *layout.Run {
	return &layout.Run{
		Jobs: []results.JobRow{
			{JobID: 1, Submit: 0, Start: 0, End: 10, Walltime: 20, Procs: 3, User: 7, Group: 1, App: -1, Queue: 2, Partition: 1},
			{JobID: 2, Submit: 1, Start: 1, End: 6, Walltime: 5, Procs: 1, Killed: true, User: 8, Group: 1, App: -1, Queue: 2, Partition: 1},
			{JobID: 3, Submit: 2, Start: 4, End: 4, Walltime: 9, Procs: 1, User: 7, Group: 1, App: -1, Queue: 2, Partition: 1},
			{JobID: 4, Submit: 3, Start: 10, End: 15, Walltime: 30, Procs: 4, Backfilled: false, User: 9, Group: 2, App: 3, Queue: 2, Partition: 1},
		},
		Meta:     results.Metadata{"workload.name": "hand", "run.key": "abc", "policy.ref": "easy", "policy.params": `{"order":"submit"}`},
		Platform: sdk.Platform{Name: "four", Resources: []string{"procs"}, Clusters: []sdk.Cluster{{Capacity: sdk.Vector{4}}}},
	}
}

func TestBatsim(t *testing.T) {
	r := handRun()
	l, err := r.Layout()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Batsim(&b, r, l, Hosts); err != nil {
		t.Fatal(err)
	}
	want := strings.Join(BatsimColumns, ",") + "\n" +
		"1,hand,delay,0.000000,3,20.000000,1,COMPLETED_SUCCESSFULLY,0.000000,10.000000,10.000000,0.000000,10.000000,1.000000,0-2,-1,\n" +
		"2,hand,delay,1.000000,1,5.000000,0,COMPLETED_WALLTIME_REACHED,1.000000,5.000000,6.000000,0.000000,5.000000,1.000000,3,-1,\n" +
		"3,hand,delay,2.000000,1,9.000000,1,COMPLETED_SUCCESSFULLY,4.000000,0.000000,4.000000,2.000000,2.000000,,,-1,\n" +
		"4,hand,delay,3.000000,4,30.000000,1,COMPLETED_SUCCESSFULLY,10.000000,5.000000,15.000000,7.000000,12.000000,2.400000,0-3,-1,\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range recs {
		if len(rec) != len(BatsimColumns) {
			t.Errorf("line %d has %d fields", i+1, len(rec))
		}
	}
}

func TestBatsimRejectedAndNodes(t *testing.T) {
	r := handRun()
	r.Jobs = r.Jobs[:2]
	r.Extras.Grid = []results.GridRow{{Home: -1}, {Home: -1, Rejected: true}}
	r.Jobs[1].Start, r.Jobs[1].End, r.Jobs[1].Cluster, r.Jobs[1].Killed = 1, 1, -1, false
	r.Meta["workload.name"] = `a,"b"`
	l, err := r.Layout()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Batsim(&b, r, l, Lanes); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := recs[2]; got[1] != `a,"b"` || got[7] != "REJECTED" || got[8] != "" || got[14] != "" || len(got) != 17 {
		t.Errorf("rejected row %q", got)
	}

	// On nodes, Batsim's resources are hosts: two nodes of 4 cores.
	n := handRun()
	n.Jobs = n.Jobs[:1]
	n.Platform.Clusters[0].Nodes = []sdk.NodeGroup{{Name: "a", Count: 2, Cores: 4}}
	n.Extras.Nodes = []results.NodeRow{{AllocNodes: []int32{0, 1}, AllocCores: []int32{1, 2}}}
	l, err = n.Layout()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		res        Resources
		count, set string
	}{{Hosts, "2", "0-1"}, {Lanes, "3", "0 4-5"}} {
		b.Reset()
		if err := Batsim(&b, n, l, tc.res); err != nil {
			t.Fatal(err)
		}
		recs, _ := csv.NewReader(&b).ReadAll()
		if recs[1][4] != tc.count || recs[1][14] != tc.set {
			t.Errorf("resources %d: %q", tc.res, recs[1])
		}
	}
}

func TestSWFReadsBack(t *testing.T) {
	r := handRun()
	var b bytes.Buffer
	if err := SWF(&b, r); err != nil {
		t.Fatal(err)
	}
	rd := swf.NewReader(&b, "export.swf")
	var got []swf.Record
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec)
	}
	if len(got) != len(r.Jobs) {
		t.Fatalf("%d records, want %d", len(got), len(r.Jobs))
	}
	for i, j := range r.Jobs {
		g := got[i]
		status := int64(1)
		if j.Killed {
			status = 0
		}
		if g.JobNumber != j.JobID || g.Submit != j.Submit || g.Wait != j.Start-j.Submit || g.RunTime != j.End-j.Start ||
			g.AllocProcs != j.Procs || g.ReqTime != j.Walltime || g.Status != status || g.User != j.User || g.Queue != j.Queue {
			t.Errorf("record %d: %+v for %+v", i, g, j)
		}
	}
	if v, _ := rd.Header().MaxProcs(); v != 4 {
		t.Errorf("MaxProcs %d", v)
	}
}
