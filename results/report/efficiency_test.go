package report

import (
	"math"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/workload/analysis"
)

// TestEfficiencyPrograms: the efficiency section's table of programs and
// its K_ef2 figure per program, by hand. Program "hot" has 3 jobs, two
// completed with K_ef1 0.7 and 0.9 (alarming on K_ef1) and K_ef2 0.2 and
// 0.4; "cool" 2 jobs with K_ef1 0.1 and K_ef2 0.5 and 0.6 (mean 0.55:
// alarming on K_ef2 by default, not above a threshold of 0.6); "idle" 1
// job, never completed (no K_ef). With MaxClusters 1 the figure has one
// panel, for "hot", the program with the most jobs.
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
		name, jobs, n, flag string
	}{{"hot", "3", "2", "alarming (K_ef1)"}, {"cool", "2", "2", "alarming (K_ef2)"}, {"idle", "1", "0", ""}}
	for i, w := range want {
		r := programs.Rows[i]
		if r.Cells[0] != w.name || r.Cells[1] != w.jobs || r.Cells[2] != w.n || r.Mark != (w.flag != "") || r.Cells[5] != w.flag {
			t.Errorf("row %d: %v (marked %v), want %s with %s jobs, %s with K_ef1, flag %q", i, r.Cells, r.Mark, w.name, w.jobs, w.n, w.flag)
		}
	}
	if !strings.Contains(programs.Caption, "K_ef2 above 0.5 or K_ef1 above 0.5 is flagged") {
		t.Errorf("caption %q does not give the thresholds", programs.Caption)
	}
	// A K_ef2 threshold of 0.6 leaves cool unflagged.
	a.Alarms = &analysis.Alarms{KEf1: 0.5, KEf2: 0.6}
	s2, err := a.efficiency()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range s2.Blocks {
		if b.Table != nil && strings.HasPrefix(b.Table.Caption, "Programs") {
			if r := b.Table.Rows[1]; r.Cells[0] != "cool" || r.Mark || r.Cells[5] != "" || !strings.Contains(b.Table.Caption, "K_ef2 above 0.6") {
				t.Errorf("--kef2-alarm 0.6: cool's row %v (marked %v), caption %q", r.Cells, r.Mark, b.Table.Caption)
			}
		}
	}
	// hot: K_ef2 mean (0.2 + 0.4) / 2, K_ef1 mean (0.7 + 0.9) / 2.
	if got := programs.Rows[0].Cells[3:5]; got[0] != num(0.3) || got[1] != num(0.8) {
		t.Errorf("hot's means %v, want %s and %s", got, num(0.3), num(0.8))
	}
	if len(figures) != 2 || figures[1] != "K_ef2 by node-count group per program" {
		t.Errorf("figures %v", figures)
	}
	// The per-program figure holds hot's jobs only: its groups 1 and 2-4,
	// not cool's 5-16.
	for _, b := range s.Blocks {
		if b.Figure == nil || b.Figure.ID != "efficiency-programs" {
			continue
		}
		svg := string(b.Figure.SVG)
		if !strings.Contains(svg, ">hot<") || strings.Contains(svg, ">cool<") || strings.Contains(svg, ">5-16<") || !strings.Contains(svg, ">2-4<") {
			t.Errorf("the per-program figure: hot %v, cool %v, 5-16 %v, 2-4 %v", strings.Contains(svg, ">hot<"),
				strings.Contains(svg, ">cool<"), strings.Contains(svg, ">5-16<"), strings.Contains(svg, ">2-4<"))
		}
	}
}

// TestEfficiencyProgramsBounds: the figure draws only programs of the
// table (Top), at most MaxClusters of them, skipping those without K_ef2
// and those whose K_ef2 jobs have no node count; the table stays when no
// job has a node count.
func TestEfficiencyProgramsBounds(t *testing.T) {
	nan := math.NaN()
	job := func(app, nodes string, kef float64) analysis.Job {
		return analysis.Job{Factors: map[string]string{analysis.App: app, analysis.NodeGroup: nodes}, Procs: 1, ReqTime: 10, Runtime: 5, KEf1: kef, KEf2: kef}
	}
	jobs := []analysis.Job{
		job("none", "1", nan), job("none", "1", nan), job("none", "1", nan), job("none", "1", nan), // no K_ef: skipped
		job("nogroup", "", 0.5), job("nogroup", "", 0.5), job("nogroup", "", 0.5), // K_ef, no node count: skipped
		job("a", "1", 0.1), job("a", "1", 0.2), job("b", "2-4", 0.3), job("c", "1", 0.4)}
	panels := func(a *Analysis) []string {
		s, err := a.efficiency()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, b := range s.Blocks {
			if b.Figure != nil && b.Figure.ID == "efficiency-programs" {
				for _, p := range []string{"none", "nogroup", "a", "b", "c"} {
					if strings.Contains(string(b.Figure.SVG), ">"+p+"<") {
						names = append(names, p)
					}
				}
			}
		}
		return names
	}
	if got := panels(&Analysis{Top: 10, MaxClusters: 2, Jobs: jobs}); strings.Join(got, " ") != "a b" {
		t.Errorf("MaxClusters 2: panels %v, want a b", got)
	}
	// Top 4 lists none, nogroup, a and b: c, fifth, is not drawn.
	if got := panels(&Analysis{Top: 4, MaxClusters: 5, Jobs: jobs}); strings.Join(got, " ") != "a b" {
		t.Errorf("Top 4: panels %v, want a b", got)
	}
	// No node count at all: no figure, but the table of programs.
	var flat []analysis.Job
	for _, j := range jobs {
		j.Factors = map[string]string{analysis.App: j.Factors[analysis.App]}
		flat = append(flat, j)
	}
	s, err := (&Analysis{Top: 10, MaxClusters: 5, Jobs: flat}).efficiency()
	if err != nil {
		t.Fatal(err)
	}
	tables := 0
	for _, b := range s.Blocks {
		if b.Table != nil && strings.HasPrefix(b.Table.Caption, "Programs") {
			tables++
		}
		if b.Figure != nil {
			t.Errorf("a figure without node counts: %s", b.Figure.Title)
		}
	}
	if tables != 1 {
		t.Errorf("%d tables of programs without node counts, want 1", tables)
	}
}
