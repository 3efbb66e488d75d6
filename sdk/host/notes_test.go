package host_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/host"
	"github.com/schedlab/schedlab/sdk/sim"
)

// noting is FCFS on a pool that keeps notes (sdk.Noter): each job's wait
// and queue position at its start (NaN for position 0's parity, so that
// NaN crosses the wire), and why it waited: "Head" while first in the
// queue, "Behind" while behind another.
type noting struct {
	wait, pos, odd []float64
	waits          [][]sdk.WaitSpell
	out            []sdk.Decision
}

func notingPlugin() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{Name: "noting", Version: "0.1.0", Description: "FCFS that keeps notes per job"},
		New:  func() sdk.Policy { return &noting{} },
	}
}

func (p *noting) Init(sdk.Env) error { return nil }

func (p *noting) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	for _, j := range s.Queue {
		for len(p.wait) <= j.Index {
			p.wait, p.pos, p.odd = append(p.wait, math.NaN()), append(p.pos, math.NaN()), append(p.odd, math.NaN())
			p.waits = append(p.waits, nil)
		}
	}
	free := s.Free[0].Clone()
	started := 0
	for k, j := range s.Queue {
		if started == k && j.Request.Fits(free) {
			free.Sub(j.Request)
			p.out = append(p.out, sdk.Start(j))
			p.wait[j.Index], p.pos[j.Index] = float64(s.Now-j.Submit), float64(k)
			if k%2 == 1 {
				p.odd[j.Index] = 1
			}
			started++
			continue
		}
		r := "Behind"
		if k == started {
			r = "Head"
		}
		if ws := p.waits[j.Index]; len(ws) == 0 || ws[len(ws)-1].Reason != r {
			p.waits[j.Index] = append(ws, sdk.WaitSpell{From: s.Now, Reason: r})
		}
	}
	return p.out, nil
}

func (p *noting) Notes() *sdk.Notes {
	return &sdk.Notes{Columns: []sdk.NoteColumn{{Name: "wait", Values: p.wait}, {Name: "position", Values: p.pos}, {Name: "odd", Values: p.odd}},
		Waits: p.waits}
}

// TestNotesOverTheWire runs a policy that keeps notes through a plugin
// of this SDK, with enough jobs that the notes take several frames: they
// come back as the in-process run's, NaN included.
func TestNotesOverTheWire(t *testing.T) {
	p := servedPlugin(t, "notes")
	plat := sdk.SingleCluster("m", 64)
	r := rand.New(rand.NewPCG(12, 12))
	jobs := make([]sim.Input, 50000)
	for i := range jobs {
		run := 1 + r.Int64N(1000)
		jobs[i] = sim.Input{Job: sdk.Job{ID: int64(i + 1), Submit: int64(i) * 400, Walltime: run, Request: sdk.Vector{1 + r.Int64N(64)}}, Runtime: run}
	}
	sim.Sort(jobs)
	spec := host.RunSpec{Platform: plat, Seed: 1}
	got, err := p.Run(context.Background(), spec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := host.InProcess(notingPlugin()).Run(context.Background(), spec, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want.Notes == nil || len(want.Notes.Columns[0].Values)*8*3 < 1<<20 {
		t.Fatal("the notes fit in one frame: the test crosses none")
	}
	waited := 0
	for _, ws := range want.Notes.Waits {
		if len(ws) > 1 {
			waited++
		}
	}
	if waited < 100 {
		t.Fatalf("%d jobs waited as Behind then Head: the test crosses too few", waited)
	}
	if !reflect.DeepEqual(got.Records, want.Records) || fmt.Sprint(got.Notes) != fmt.Sprint(want.Notes) {
		t.Fatal("the plugin's records or notes differ from the in-process run's")
	}
}
