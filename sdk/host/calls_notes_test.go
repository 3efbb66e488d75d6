package host_test

import (
	"context"
	"fmt"
	"math"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/internal/calls"
	"github.com/schedlab/schedlab/sdk/sim"
)

// startIndex is the Decisions payload of a start of job index i where
// the engine places it.
func startIndex(i byte) []byte {
	b := []byte{1, 0, 0, 0, byte(sdk.ActionStart), i, 0, 0, 0, 0, 0, 0, 0}
	return append(b, make([]byte, 16+4+4)...)
}

// TestCallsNotes: a policy of the call protocol (Python) whose Ready says
// it keeps notes is asked for them once its run's last call is answered,
// and they are the run's, padded to its jobs; one whose Ready says
// nothing (a package from before notes) is not asked; notes the engine
// refuses, a Notes frame cut short and a policy's failure to give them
// fail the run with the reason.
func TestCallsNotes(t *testing.T) {
	// One node of 8 cores; job 1 waits from 10 for job 0's end, at 100.
	plat := sdk.NodesPlatform("one", []sdk.NodeGroup{{Name: "n", Count: 1, Cores: 8}}, nil, sdk.FirstFit)
	l := sdk.NewLayout(plat, 0)
	var jobs []sim.Input
	for i, submit := range []int64{0, 10} {
		tasks := sdk.Tasks{Count: 8, Cores: 1}
		req := make(sdk.Vector, plat.Dims())
		l.Request(&tasks, req)
		jobs = append(jobs, sim.Input{Job: sdk.Job{ID: int64(i + 1), Submit: submit, Walltime: 100, Request: req, Tasks: &tasks}, Runtime: 90})
	}
	sim.Sort(jobs)
	// By hand: notes of one job, a column x of 2.5, no waits.
	byHand := []byte{1, 0, 0, 0, 1, 0, 0, 0, 1, 'x', 0, 0, 0, 0, 0, 0, 4, 0x40, 0}
	spells := &sdk.Notes{Columns: []sdk.NoteColumn{{Name: "score", Values: []float64{1, math.NaN()}}},
		Waits: [][]sdk.WaitSpell{nil, {{From: jobs[1].Job.Submit, Reason: "Resources"}}}}
	bad := &sdk.Notes{Columns: []sdk.NoteColumn{{Name: "Score", Values: []float64{1}}}}
	cases := []struct {
		name       string
		ready      []byte
		typ        byte
		notes      []byte
		want       *sdk.Notes
		wantAsked  bool
		wantErrHas string
	}{
		{"no notes said", nil, 'N', byHand, nil, false, ""},
		{"a column by hand", []byte(`{"notes":true}`), 'N', byHand,
			&sdk.Notes{Columns: []sdk.NoteColumn{{Name: "x", Values: []float64{2.5, math.NaN()}}}}, true, ""},
		{"a column and waits", []byte(`{"notes":true}`), 'N', calls.AppendNotes(nil, spells, 2), spells, true, ""},
		{"none after all", []byte(`{"notes":true}`), 'N', nil, nil, true, ""},
		{"a bad name", []byte(`{"notes":true}`), 'N', calls.AppendNotes(nil, bad, 1), nil, true, "policy notes"},
		{"cut short", []byte(`{"notes":true}`), 'N', byHand[:len(byHand)-3], nil, true, "the policy's notes"},
		{"the policy failed", []byte(`{"notes":true}`), 'E', []byte("notes raised KeyError"), nil, true, "notes raised KeyError"},
		{"a Ready not JSON", []byte(`notes`), 'N', nil, nil, false, "the policy's Ready"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hostEnd, side := net.Pipe()
			// Job 0 starts at the first call, job 1 at the third (job 0's
			// end).
			ps := &policySide{ready: tc.ready, answers: [][]byte{startIndex(0), {0, 0, 0, 0}, startIndex(1)}, notesType: tc.typ, notes: tc.notes}
			ps.serve(t, side)
			res, err := host.CallsPolicy(sdk.Info{Name: "noter"}, hostEnd).Run(context.Background(),
				host.RunSpec{Platform: plat, Seed: 1}, jobs, nil)
			if tc.wantErrHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrHas) {
					t.Fatalf("%v, want an error with %q", err, tc.wantErrHas)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if ps.asked != tc.wantAsked {
				t.Fatalf("asked for notes: %v, want %v", ps.asked, tc.wantAsked)
			}
			if err != nil {
				return
			}
			if !reflect.DeepEqual(notesText(res.Notes), notesText(tc.want)) {
				t.Fatalf("notes %+v, want %+v", res.Notes, tc.want)
			}
		})
	}
}

// notesText spells n out, so that DeepEqual takes NaN for NaN.
func notesText(n *sdk.Notes) []string {
	if n == nil {
		return nil
	}
	var out []string
	for _, c := range n.Columns {
		out = append(out, fmt.Sprint(c.Name, c.Values))
	}
	return append(out, fmt.Sprint(n.Waits == nil, n.Waits))
}
