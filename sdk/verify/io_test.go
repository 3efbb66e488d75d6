package verify_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/sdk/verify"
)

// fitUnits starts, in queue order, every job whose request and pieces fit
// on the free units, and stops at the first that does not.
type fitUnits struct{}

func (fitUnits) Init(sdk.Env) error { return nil }

func (fitUnits) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	var out []sdk.Decision
	free, units := s.Free[0].Clone(), slices.Clone(s.FreeUnits[0])
	u := s.Platform.Clusters[0].Units[0]
	for _, j := range s.Queue {
		n, size, _ := u.Pieces(j.Request)
		if !j.Request.Fits(free) || !sdk.PiecesFit(units, n, size) {
			break
		}
		free.Sub(j.Request)
		pl := make([]int32, len(units))
		sdk.PlacePieces(pl, units, n, size)
		for k := range units {
			units[k] -= int64(pl[k]) * size
		}
		out = append(out, sdk.Start(j))
	}
	return out, nil
}

// randomIORun draws a burst-buffer machine, a workload and an I/O model,
// and runs them under fitUnits.
func randomIORun(t *testing.T, r *rand.Rand) (*sdk.Platform, *sdk.IO, []sim.Input, *sim.Result) {
	t.Helper()
	units := make([]int64, 1+r.IntN(3))
	var total int64
	for k := range units {
		units[k] = 20 + r.Int64N(60)
		total += units[k]
	}
	procs := 1 + r.Int64N(8)
	p := &sdk.Platform{Name: "r", Resources: []string{sdk.Processors, "bb"},
		Clusters: []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{procs, total},
			Units: []sdk.Units{{Resource: 1, Capacity: units}}}}}
	m := &sdk.IO{Resource: 1, FSBandwidth: float64(1 + r.IntN(30)), UnitBandwidth: float64(1 + r.IntN(20)),
		SplitDuplex: r.IntN(2) == 0, StageIn: float64(r.IntN(5)) / 4, Checkpoint: float64(r.IntN(3)) / 2,
		StageOut: float64(r.IntN(5)) / 4, PhaseSeconds: r.Int64N(15), MaxPhases: r.IntN(5)}
	if r.IntN(3) == 0 {
		m.NodeBandwidth = float64(1 + r.IntN(10))
	}
	m.Drain = m.Checkpoint > 0 && r.IntN(2) == 0
	var jobs []sim.Input
	for k := range 1 + r.IntN(30) {
		n := 1 + r.Int64N(procs)
		size := r.Int64N(20)
		if size > 0 && !sdk.PiecesFit(units, n, size) {
			size = 0
		}
		run := 1 + r.Int64N(30)
		wall := max(1, run+r.Int64N(40)-5)
		jobs = append(jobs, sim.Input{Job: sdk.Job{ID: int64(k), Submit: r.Int64N(60), Walltime: wall, Request: sdk.Vector{n, n * size}}, Runtime: run})
	}
	sim.Sort(jobs)
	res, err := sim.Run(context.Background(), sdk.Plugin{Info: sdk.Info{Name: "fit"}, New: func() sdk.Policy { return fitUnits{} }},
		sim.Config{Platform: p, Jobs: jobs, IO: m})
	if err != nil {
		t.Fatal(err)
	}
	return p, m, jobs, res
}

func checkIO(p *sdk.Platform, m *sdk.IO, jobs []sim.Input, res *sim.Result) error {
	c := verify.NewChecker(p, jobs)
	c.ExpectIO(m)
	c.Add(res.Records)
	if err := c.Finish(res.Units, res.Allocs); err != nil {
		return err
	}
	return verify.IO(p, m, jobs, res)
}

// TestIORandom recomputes 500 random runs with an I/O model independently
// (verify.IO) and finds every engine schedule valid; moving one end by a
// second, or killing a job that completed, is found in every run.
func TestIORandom(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 41))
	caught, tampered, slowed, killed := 0, 0, 0, 0
	for it := range 500 {
		p, m, jobs, res := randomIORun(t, r)
		if err := checkIO(p, m, jobs, res); err != nil {
			t.Fatalf("iteration %d: engine schedule rejected: %v (model %+v)", it, err, *m)
		}
		for i, rec := range res.Records {
			if rec.Killed {
				killed++
			}
			if rec.End > rec.Start+min(jobs[i].Runtime, jobs[i].Job.Walltime) {
				slowed++
			}
		}
		k := r.IntN(len(jobs))
		rec := &res.Records[k]
		if rec.Killed {
			continue
		}
		tampered++
		if it%2 == 0 {
			rec.End++
			if rec.End > rec.Start+jobs[k].Job.Walltime {
				rec.End--
				rec.Killed = true
			}
		} else if rec.End--; rec.End < rec.Start+min(jobs[k].Runtime, jobs[k].Job.Walltime) {
			rec.End++
			rec.End = rec.Start + jobs[k].Job.Walltime
			rec.Killed = true
		}
		if err := verify.IO(p, m, jobs, res); err != nil {
			if !errors.Is(err, verify.ErrIO) {
				t.Fatalf("iteration %d: %v is not an ErrIO", it, err)
			}
			caught++
		} else {
			t.Errorf("iteration %d: job id %d's end moved to %d (killed %v) not caught", it, jobs[k].Job.ID, rec.End, rec.Killed)
		}
	}
	t.Logf("%d jobs slowed by data, %d killed; %d of %d tampered runs caught", slowed, killed, caught, tampered)
	if slowed < 500 || killed < 50 {
		t.Errorf("%d jobs slowed, %d killed: the random runs exercise little of the model", slowed, killed)
	}
}

// TestIONoDataNoChange: a model under which no job moves data leaves
// every record as the run without one has it.
func TestIONoDataNoChange(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for it := range 200 {
		p, m, jobs, _ := randomIORun(t, r)
		none := *m
		none.StageIn, none.Checkpoint, none.StageOut, none.Drain = 0, 0, 0, false
		pol := sdk.Plugin{Info: sdk.Info{Name: "fit"}, New: func() sdk.Policy { return fitUnits{} }}
		with, err := sim.Run(context.Background(), pol, sim.Config{Platform: p, Jobs: jobs, IO: &none})
		if err != nil {
			t.Fatal(err)
		}
		without, err := sim.Run(context.Background(), pol, sim.Config{Platform: p, Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(with.Records, without.Records) || !slices.Equal(with.Units, without.Units) {
			t.Fatalf("iteration %d: records differ with a model that moves nothing", it)
		}
	}
}
