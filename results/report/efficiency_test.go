package report

import (
	"math"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload/analysis"
)

// TestEfficiencyPrograms: the efficiency section's table of programs and
// its K_ef2 figure per program, by hand. Program "hot" has 3 jobs, two
// completed with K_ef1 0.7 and 0.9 (alarming); "cool" 2 jobs with K_ef1
// 0.1; "idle" 1 job, never completed (no K_ef). With MaxClusters 1 the
// figure has one panel, for "hot", the program with the most jobs.
func TestEfficiencyPrograms(t *testing.T) {
	nan := math.NaN()
	job := func(app, nodes string, kef1, kef2 float64) analysis.Job {
		return analysis.Job{Factors: map[string]string{analysis.App: app, analysis.NodeGroup: nodes},
			Procs: 1, ReqTime: 10, Runtime: 5, KEf1: kef1, KEf2: kef2}
	}
	a := &Analysis{Top: 10, MaxClusters: 1, Jobs: []analysis.Job{
		job("hot", "1", 0.7, 0.2), job("hot", "2-4", 0.9, 0.4), job("hot", "1", nan, nan),
		job("cool", "1", 0.1, 0.5), job("cool", "5-16", 0.1, 0.6), job("idle", "1", nan, nan)}}
	s, err := a.efficiency()
	if err != nil {
		t.Fatal(err)
	}
	var programs *table
	var figures []string
	for _, b := range s.Blocks {
		if b.Table != nil && strings.HasPrefix(b.Table.Caption, "Programs") {
			programs = b.Table
		}
		if b.Figure != nil {
			figures = append(figures, b.Figure.Title)
		}
	}
	if programs == nil || len(programs.Rows) != 3 {
		t.Fatalf("table of programs: %+v", programs)
	}
	want := []struct {
		name, jobs, n string
		alarming      bool
	}{{"hot", "3", "2", true}, {"cool", "2", "2", false}, {"idle", "1", "0", false}}
	for i, w := range want {
		r := programs.Rows[i]
		if r.Cells[0] != w.name || r.Cells[1] != w.jobs || r.Cells[2] != w.n || r.Mark != w.alarming || (r.Cells[5] == "alarming") != w.alarming {
			t.Errorf("row %d: %v (marked %v), want %s with %s jobs, %s with K_ef1, alarming %v", i, r.Cells, r.Mark, w.name, w.jobs, w.n, w.alarming)
		}
	}
	if len(figures) != 2 || figures[1] != "K_ef2 by node-count group per program" {
		t.Errorf("figures %v", figures)
	}
	for _, b := range s.Blocks {
		if b.Figure != nil && b.Figure.ID == "efficiency-programs" && !strings.Contains(string(b.Figure.SVG), ">hot<") {
			t.Errorf("the per-program figure does not name hot")
		}
	}
}
