package sim_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// ioJobs: id, submit, compute, walltime, procs, burst buffer in total.
func ioJobs(specs ...[6]int64) []sim.Input {
	in := make([]sim.Input, len(specs))
	for i, s := range specs {
		in[i] = sim.Input{Job: sdk.Job{ID: s[0], Submit: s[1], Walltime: s[3], Request: sdk.Vector{s[4], s[5]}}, Runtime: s[2]}
	}
	sim.Sort(in)
	return in
}

type ioWant struct {
	start, end int64
	killed     bool
}

// ioPlatform has 4 processors and a burst buffer of two units of 200, one
// piece per processor.
func ioPlatform() *sdk.Platform {
	p := bbPlatform()
	p.Clusters[0].Capacity[1] = 400
	p.Clusters[0].Units[0].Capacity = []int64{200, 200}
	return p
}

// TestIOHandWorked runs schedules whose every end is computed by hand
// below, on ioPlatform under greedyUnits: pieces go to the unit with the
// least room that holds them (best fit), unit 0 on a tie.
func TestIOHandWorked(t *testing.T) {
	stageIn := func(factor, fs, unit float64) sdk.IO {
		return sdk.IO{Resource: 1, FSBandwidth: fs, UnitBandwidth: unit, StageIn: factor, MaxPhases: 1}
	}
	cases := []struct {
		name string
		io   sdk.IO
		jobs []sim.Input
		want []ioWant
	}{{
		// Both pieces on unit 0, 50 bytes each at 10 B/s shared: job 1
		// alone moves 20 by 2; then 5 B/s each, job 1's last 30 by 8,
		// when job 2 has 20 left, alone again: 10. Compute 10 s each:
		// ends 18 and 20.
		name: "two transfers on one unit, staggered",
		io:   stageIn(1, 1000, 10),
		jobs: ioJobs([6]int64{1, 0, 10, 100, 1, 50}, [6]int64{2, 2, 10, 100, 1, 50}),
		want: []ioWant{{0, 18, false}, {2, 20, false}},
	}, {
		// 60 bytes each through the file system at 12 B/s: job 1 alone
		// to 1 (48 left); two at 6 to 3 (36, 48); three at 4: job 1 ends
		// at 12 (job 2 12 left, job 3 24); two at 6: job 2 at 14 (job 3
		// 12 left); job 3 alone at 15. Compute 1 s: 13, 15, 16.
		name: "three transfers on the file system",
		io:   stageIn(1, 12, 1000),
		jobs: ioJobs([6]int64{1, 0, 1, 100, 1, 60}, [6]int64{2, 1, 1, 100, 1, 60}, [6]int64{3, 3, 1, 100, 1, 60}),
		want: []ioWant{{0, 13, false}, {1, 15, false}, {3, 16, false}},
	}, {
		// 10 bytes at 3 B/s end at 3.33; 1 s of compute to 4.33: the
		// job ends at the next whole second.
		name: "a completion between seconds",
		io:   stageIn(1, 1000, 3),
		jobs: ioJobs([6]int64{1, 0, 1, 100, 1, 10}),
		want: []ioWant{{0, 5, false}},
	}, {
		// 100 bytes at 10 B/s take 10 s, its walltime is 5: killed at
		// 5 mid-transfer, and job 2, which needs every processor,
		// starts then: its four pieces of 10 all on unit 0, at 2.5 B/s
		// each, to 9, then 1 s of compute.
		name: "killed at the walltime mid-transfer",
		io:   stageIn(1, 1000, 10),
		jobs: ioJobs([6]int64{1, 0, 2, 5, 1, 100}, [6]int64{2, 1, 1, 100, 4, 40}),
		want: []ioWant{{0, 5, true}, {5, 10, false}},
	}, {
		// Two compute phases of 10 s with a checkpoint of 20 bytes at
		// 10 B/s between them: 0-10, 10-12, 12-22.
		name: "a checkpoint stretches the compute",
		io:   sdk.IO{Resource: 1, FSBandwidth: 1000, UnitBandwidth: 10, Checkpoint: 1, PhaseSeconds: 10, MaxPhases: 10},
		jobs: ioJobs([6]int64{1, 0, 20, 100, 1, 20}),
		want: []ioWant{{0, 22, false}},
	}, {
		// The same under the compute node's own bound of 4 B/s: the
		// checkpoint takes 5 s: 0-10, 10-15, 15-25.
		name: "a checkpoint bound by the node's link",
		io:   sdk.IO{Resource: 1, FSBandwidth: 1000, UnitBandwidth: 10, NodeBandwidth: 4, Checkpoint: 1, PhaseSeconds: 10, MaxPhases: 10},
		jobs: ioJobs([6]int64{1, 0, 20, 100, 1, 20}),
		want: []ioWant{{0, 25, false}},
	}, {
		// Both stage in 20 bytes. Job 1: stage-in 0-2 alone, compute
		// 2-12, checkpoint of 20 alone at 10 B/s from 12; job 2, on unit
		// 0 too, arrives at 13, when the checkpoint has 10 left: 5 B/s
		// each, the checkpoint ends at 15 (job 2 has 10 left), then job
		// 1's drain of 20 and job 2's stage-in share the unit's link: 5
		// B/s each, job 2's ends at 17, the drain alone at 18. Job 1
		// computes 15-25, job 2 17-18.
		name: "a drain shares the unit with a stage-in",
		io:   sdk.IO{Resource: 1, FSBandwidth: 1000, UnitBandwidth: 10, StageIn: 1, Checkpoint: 1, Drain: true, PhaseSeconds: 10, MaxPhases: 10},
		jobs: ioJobs([6]int64{1, 0, 20, 100, 1, 20}, [6]int64{2, 13, 1, 100, 1, 20}),
		want: []ioWant{{0, 25, false}, {13, 18, false}},
	}, {
		// The same with each unit's two directions apart: from 15 the
		// drain goes out of the unit alone and job 2's stage-in in
		// alone, its 10 bytes left at 10 B/s to 16. Job 2 computes
		// 16-17.
		name: "split duplex",
		io:   sdk.IO{Resource: 1, FSBandwidth: 1000, UnitBandwidth: 10, SplitDuplex: true, StageIn: 1, Checkpoint: 1, Drain: true, PhaseSeconds: 10, MaxPhases: 10},
		jobs: ioJobs([6]int64{1, 0, 20, 100, 1, 20}, [6]int64{2, 13, 1, 100, 1, 20}),
		want: []ioWant{{0, 25, false}, {13, 17, false}},
	}, {
		// A drain outlasts the job's compute: compute 0-1, checkpoint of
		// 20 at 10 B/s 1-3, drain 3-5 through the file system's 10 B/s
		// while the job computes 3-4: it ends when the drain does, 5.
		name: "the last drain ends the job",
		io:   sdk.IO{Resource: 1, FSBandwidth: 10, UnitBandwidth: 1000, NodeBandwidth: 10, Checkpoint: 1, Drain: true, PhaseSeconds: 1, MaxPhases: 10},
		jobs: ioJobs([6]int64{1, 0, 2, 100, 1, 20}),
		want: []ioWant{{0, 5, false}},
	}, {
		// Job 1: stage-in of 20 through the file system's 10 B/s 0-2,
		// compute 2-3, stage-out of 20 from 3; job 2 stages in from 3:
		// sharing the file system's one link, both at 5 B/s to 7: job 1
		// ends then, job 2 computes 7-8 and stages out alone 8-10.
		name: "the file system shared both ways",
		io:   sdk.IO{Resource: 1, FSBandwidth: 10, UnitBandwidth: 1000, StageIn: 1, StageOut: 1, MaxPhases: 1},
		jobs: ioJobs([6]int64{1, 0, 1, 100, 1, 20}, [6]int64{2, 3, 1, 100, 1, 20}),
		want: []ioWant{{0, 7, false}, {3, 10, false}},
	}, {
		// The same, split: the stage-out writes the file system at 10
		// B/s while the stage-in reads it at 10: both end at 5; job 2
		// computes 5-6 and stages out 6-8.
		name: "the file system split",
		io:   sdk.IO{Resource: 1, FSBandwidth: 10, UnitBandwidth: 1000, SplitDuplex: true, StageIn: 1, StageOut: 1, MaxPhases: 1},
		jobs: ioJobs([6]int64{1, 0, 1, 100, 1, 20}, [6]int64{2, 3, 1, 100, 1, 20}),
		want: []ioWant{{0, 5, false}, {3, 8, false}},
	}, {
		// A piece of 40: stage-in of half of it, 20 at 10 B/s (0-2),
		// compute 5 (2-7), stage-out of all of it, 40 at 10 B/s (7-11).
		name: "stage-in, compute, stage-out",
		io:   sdk.IO{Resource: 1, FSBandwidth: 1000, UnitBandwidth: 10, StageIn: 0.5, StageOut: 1, MaxPhases: 1},
		jobs: ioJobs([6]int64{1, 0, 5, 100, 1, 40}),
		want: []ioWant{{0, 11, false}},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			io := c.io
			res, err := sim.Run(context.Background(), plugin(greedyUnits()), sim.Config{Platform: ioPlatform(), Jobs: c.jobs, IO: &io})
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range c.want {
				r := res.Records[k]
				if got := (ioWant{r.Start, r.End, r.Killed}); got != w {
					t.Errorf("job %d: start, end, killed = %v, want %v", c.jobs[k].Job.ID, got, w)
				}
			}
		})
	}
}

// TestIORefuses: what the model does not take is refused by name.
func TestIORefuses(t *testing.T) {
	io := sdk.IO{Resource: 1, FSBandwidth: 1, UnitBandwidth: 1, StageIn: 1}
	for _, c := range []struct {
		name string
		cfg  sim.Config
		want string
	}{
		{"exact estimates", sim.Config{ExactEstimates: true}, "exact estimates"},
		{"power", sim.Config{Power: &sdk.Power{}}, "power model"},
		{"a phase larger than the space", sim.Config{IO: &sdk.IO{Resource: 1, FSBandwidth: 1, UnitBandwidth: 1, StageOut: 1.5}}, "stage_out 1.5 is not a share of a piece from 0 to 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Platform, cfg.Jobs = ioPlatform(), ioJobs([6]int64{1, 0, 1, 1, 1, 0})
			if cfg.IO == nil {
				cfg.IO = &io
			}
			_, err := sim.Run(context.Background(), plugin(greedyUnits()), cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want one naming %q", err, c.want)
			}
		})
	}
}

// TestIOView: what a policy sees of a running job's data phases. Job 1
// computes 0-10, checkpoints 20 bytes at 10 B/s 10-12 and computes again
// 12-22; jobs 2 and 3, which move nothing, arrive at 11 and 12: two calls
// at which job 1 is seen checkpointing (10 bytes left, to 12), then
// computing its second phase (to 22).
func TestIOView(t *testing.T) {
	type seen struct {
		now         int64
		phase       sdk.IOPhase
		done, of    int
		left, until float64
	}
	var got []seen
	pol := greedyUnits()
	start := pol.fn
	pol.fn = func(s *sdk.State, call int) ([]sdk.Decision, error) {
		for _, r := range s.Running {
			if r.Job.ID == 1 {
				ph, done, of := s.IO.Phase(r.Job)
				left, until := s.IO.Left(r.Job)
				got = append(got, seen{s.Now, ph, done, of, left, until})
			}
		}
		return start(s, call)
	}
	io := sdk.IO{Resource: 1, FSBandwidth: 1000, UnitBandwidth: 10, Checkpoint: 1, PhaseSeconds: 10, MaxPhases: 10}
	jobs := ioJobs([6]int64{1, 0, 20, 100, 1, 20}, [6]int64{2, 11, 1, 100, 1, 0}, [6]int64{3, 12, 1, 100, 1, 0})
	if _, err := sim.Run(context.Background(), plugin(pol), sim.Config{Platform: ioPlatform(), Jobs: jobs, IO: &io}); err != nil {
		t.Fatal(err)
	}
	want := []seen{{11, sdk.PhaseCheckpoint, 1, 2, 10, 12}, {12, sdk.PhaseCompute, 1, 2, 0, 22}}
	if !slices.Equal(got, want) {
		t.Errorf("the policy saw %+v, want %+v", got, want)
	}
}
