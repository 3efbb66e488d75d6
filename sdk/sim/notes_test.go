package sim_test

import (
	"context"
	"errors"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// noter starts jobs in queue order while they fit and keeps the notes
// its test sets: a reason for job index 1 from from.
type noter struct{ from int64 }

func (p *noter) Init(sdk.Env) error { return nil }

func (p *noter) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	var out []sdk.Decision
	free := s.Free[0].Clone()
	for _, j := range s.Queue {
		if !j.Request.Fits(free) {
			break
		}
		free.Sub(j.Request)
		out = append(out, sdk.Start(j))
	}
	return out, nil
}

// Notes keeps a column shorter than the jobs, which the engine pads.
func (p *noter) Notes() *sdk.Notes {
	return &sdk.Notes{Columns: []sdk.NoteColumn{{Name: "one", Values: []float64{1}}},
		Waits: [][]sdk.WaitSpell{nil, {{From: p.from, Reason: "Why"}}}}
}

// TestCheckNotes: job index 1 (submitted at 10) waits until job index 0
// ends at 100; a reason for it from 10 to 99 is kept, one from before its
// submission or from its start on fails the run.
func TestCheckNotes(t *testing.T) {
	jobs := []sim.Input{
		{Job: sdk.Job{ID: 1, Submit: 0, Walltime: 100, Request: sdk.Vector{4}}, Runtime: 100},
		{Job: sdk.Job{ID: 2, Submit: 10, Walltime: 100, Request: sdk.Vector{4}}, Runtime: 100},
		{Job: sdk.Job{ID: 3, Submit: 20, Walltime: 100, Request: sdk.Vector{1}}, Runtime: 100},
	}
	sim.Sort(jobs)
	for _, c := range []struct {
		from int64
		ok   bool
	}{{10, true}, {99, true}, {9, false}, {100, false}} {
		p := sdk.Plugin{Info: sdk.Info{Name: "noter"}, New: func() sdk.Policy { return &noter{from: c.from} }}
		_, err := sim.Run(context.Background(), p, sim.Config{Platform: sdk.SingleCluster("m", 4), Jobs: jobs})
		if c.ok != (err == nil) || err != nil && !errors.Is(err, sdk.ErrNotes) {
			t.Errorf("a reason from %d: %v", c.from, err)
		}
	}
}
