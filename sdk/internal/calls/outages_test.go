package calls_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	. "github.com/schedlab/schedlab/sdk/internal/calls"
)

// TestOutagesSection encodes, by hand, two States of a run with outages:
// the first adds a window and a failure to the empty list; the second,
// where the failure is over, a drain has begun and job 0, which a failure
// ended, is requeued behind job 1, removes the failure and adds the drain
// at its place, and tells where job 0 stands. An encoder of a run without
// outages writes neither the section nor the completion's outage bytes.
func TestOutagesSection(t *testing.T) {
	p := sdk.NodesPlatform("m", []sdk.NodeGroup{{Name: "n", Count: 3, Cores: 4}}, nil, sdk.FirstFit)
	window := sdk.Outage{Start: 100, End: 200, Kind: sdk.Maintenance}
	failure := sdk.Outage{Nodes: []int32{1}, Start: 5, End: -1, Kind: sdk.Failure}
	drain := sdk.Outage{Nodes: []int32{0, 2}, Start: 20, End: 60, Kind: sdk.Drain}
	nodes := []*sdk.Nodes{sdk.NewLayout(p, 0).NewNodes()}
	tasks := sdk.Tasks{Count: 1, Cores: 1}
	j0 := &sdk.Job{Index: 0, ID: 1, Walltime: 50, Request: sdk.Vector{1}, Tasks: &tasks}
	j1 := &sdk.Job{Index: 1, ID: 2, Walltime: 50, Request: sdk.Vector{1}, Tasks: &tasks}

	le := binary.LittleEndian
	u32 := func(b []byte, xs ...uint32) []byte {
		for _, x := range xs {
			b = le.AppendUint32(b, x)
		}
		return b
	}
	u64 := func(b []byte, xs ...int64) []byte {
		for _, x := range xs {
			b = le.AppendUint64(b, uint64(x))
		}
		return b
	}
	enc := NewEncoder(p, false, true)
	s := &sdk.State{Now: 5, Platform: p, Free: []sdk.Vector{{8}}, Nodes: nodes, Outages: []sdk.Outage{failure, window}}
	got, err := enc.State(s)
	if err != nil {
		t.Fatal(err)
	}
	head := u64(u32(u64(nil, 5), 0, 0, 0, 0, 0), 8)
	want := u32(head, 0, 2)                          // none removed, two added
	want = append(u64(u32(want, 0, 0), 5, -1), 1)    // at 0: cluster 0, from 5, end unknown, a failure
	want = u32(want, 1, 1)                           // of node 1
	want = append(u64(u32(want, 1, 0), 100, 200), 3) // at 1: the window
	want = u32(want, 0, 0)                           // of every node; no job requeued
	if !bytes.Equal(got, want) {
		t.Fatalf("first State\n%x\nwant\n%x", got, want)
	}

	// Job 0 and job 1 arrived, job 0 ran; a failure ended it at 15 and it
	// went back to the end of the queue.
	enc = NewEncoder(p, false, true)
	s.Outages = []sdk.Outage{failure, window}
	s.Queue = []*sdk.Job{j0, j1}
	if _, err := enc.State(s); err != nil {
		t.Fatal(err)
	}
	s.Now, s.Queue = 30, []*sdk.Job{j1, j0}
	s.Completed = []sdk.Completion{{Job: j0, Start: 10, End: 15, Interrupted: sdk.Failure, Requeued: true}}
	s.Outages = []sdk.Outage{drain, window}
	got, err = enc.State(s)
	if err != nil {
		t.Fatal(err)
	}
	want = u64(u32(u64(nil, 30), 0, 0, 1, 0, 0), 8)      // one completion
	want = append(u64(u32(want, 0, 0), 10, 15), 0, 1, 1) // job 0, not killed, a failure's, requeued
	want = u32(want, 1, 1, 0)                            // the failure (at 0) removed, one added
	want = append(u64(u32(want, 0, 0), 20, 60), 2)       // at 0: the drain
	want = u32(want, 2, 0, 2)                            // of nodes 0 and 2
	want = u32(want, 1, 0, 1)                            // job 0 requeued, at 1 in the queue
	if !bytes.Equal(got, want) {
		t.Fatalf("second State\n%x\nwant\n%x", got, want)
	}

	plain, err := NewEncoder(p, false, false).State(&sdk.State{Now: 30, Platform: p, Free: s.Free, Nodes: nodes,
		Completed: []sdk.Completion{{Job: j0, Start: 10, End: 15, Killed: true}}, Outages: s.Outages})
	if err != nil {
		t.Fatal(err)
	}
	if want := append(u64(u32(u64(u32(u64(nil, 30), 0, 0, 1, 0, 0), 8), 0, 0), 10, 15), 1); !bytes.Equal(plain, want) {
		t.Fatalf("without outages\n%x\nwant\n%x", plain, want)
	}
}
