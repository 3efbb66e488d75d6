package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestCycleTable: the mean cycle from the policy's counts (0 without
// timed cycles), the refusals per run, the share of global jobs refused at
// least once, and the starts at reservations summed over runs.
func TestCycleTable(t *testing.T) {
	for _, c := range []struct {
		name string
		runs []runOf
		want string
	}{
		{"timed cycles", []runOf{
			{group: "open requested 1", metrics: map[string]float64{"refusals": 4, "global_mean_wait": 3600},
				counts: map[string]int64{"cycles_timed": 10, "cycle_seconds": 30}, refused: 2, exact: 10, started: 10},
			{group: "open requested 1", metrics: map[string]float64{"refusals": 6, "global_mean_wait": 7200},
				counts: map[string]int64{"cycles_timed": 5, "cycle_seconds": 25}, refused: 4, exact: 9, started: 10},
		},
			// Cycles of 3 and 5 s: mean 4 +- t(0.975, 1) x sd / sqrt(2) = 12.706 x 1.
			"| open requested 1 | 2 | 4.0 [-8.7, 16.7] | 5.0 [-7.7, 17.7] | 0.3000 [-0.9706, 1.5706] | 19/20 | 1.50 [-4.85, 7.85] |"},
		{"no timed cycle", []runOf{{group: "grid exact 0", metrics: map[string]float64{}, started: 3, exact: 3}},
			"| grid exact 0 | 1 | 0.0 | 0.0 | 0.0000 | 3/3 | 0.00 |"},
	} {
		var b bytes.Buffer
		cycleTable(&b, "workload, estimates, a1", c.runs)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%s: the table lacks %q:\n%s", c.name, c.want, b.String())
		}
	}
}
