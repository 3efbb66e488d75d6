package plan_test

import (
	"testing"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// benchState returns a state of one cluster with procs and burst-buffer
// bytes, n running jobs with distinct expected ends (ordered as the engine
// orders them), and n/2 queued jobs.
func benchState(n int) *sdk.State {
	s := &sdk.State{
		Now:  1_000_000,
		Free: []sdk.Vector{{16, 1 << 38}},
	}
	for i := range n {
		j := &sdk.Job{Index: i, Walltime: 3600, Request: sdk.Vector{1 + int64(i%4), int64(i%7) << 30}}
		s.Running = append(s.Running, sdk.Running{Job: j, Start: s.Now - 100, ExpectedEnd: s.Now + 1 + int64(i)*37})
	}
	for i := range n / 2 {
		s.Queue = append(s.Queue, &sdk.Job{
			Index:    n + i,
			Walltime: 60 + int64(i*7919%86400),
			Request:  sdk.Vector{1 + int64(i*31%64), int64(i%5) << 32},
		})
	}
	return s
}

func BenchmarkResetFromState(b *testing.B) {
	s := benchState(1000)
	var p plan.Profile
	b.ReportAllocs()
	for b.Loop() {
		p.ResetFromState(s, 0)
	}
	b.ReportMetric(float64(p.Steps()), "steps")
}

func BenchmarkEarliestFit(b *testing.B) {
	p := plan.FromState(benchState(1000), 0)
	if p.Steps() != 1001 {
		b.Fatalf("%d steps", p.Steps())
	}
	for _, bc := range []struct {
		name   string
		amount sdk.Vector
	}{
		// Fits only at step 994 of 1,001: a nearly full scan.
		{"near-end", sdk.Vector{2500, 0}},
		// Fits at step 494.
		{"mid", sdk.Vector{1250, 1 << 30}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var t int64
			for b.Loop() {
				t = p.EarliestFit(bc.amount, 3600)
			}
			if t < 0 {
				b.Fatal("no fit")
			}
		})
	}
}

// BenchmarkConservative is one Schedule call of conservative backfilling:
// rebuild the profile from 1,000 running jobs, then give each of 500 queued
// jobs the earliest start that fits and reserve it.
func BenchmarkConservative(b *testing.B) {
	s := benchState(1000)
	var p plan.Profile
	b.ReportAllocs()
	for b.Loop() {
		p.ResetFromState(s, 0)
		for _, j := range s.Queue {
			t := p.EarliestFit(j.Request, j.Walltime)
			if err := p.Reserve(t, j.Walltime, j.Request); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(p.Steps()), "steps")
}
