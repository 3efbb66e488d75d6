package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/groupsel/table1"
	"github.com/schedlab/schedlab/results"
)

// TestSummarize runs a small benchmark and a small sweep, and checks the
// tables: the paper's times beside ours, every solve agreeing, the
// sweep's 2^n and its columns for 2 workers.
func TestSummarize(t *testing.T) {
	dir := t.TempDir()
	p := table1.Paper(0)
	p.Vars, p.Degree = 10, 10
	b := table1.Bench{Params: p, Terms: []int{50, 60}, Instances: 3, Workers: []int{1, 2}, Seed: 1}
	rows, err := b.Run(nil)
	if err != nil {
		t.Fatal(err)
	}
	meta := results.Metadata{"host": "test"}
	if err := b.Write(filepath.Join(dir, "table1.parquet"), rows, meta); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{8, 9} {
		s := b
		s.Params.Vars, s.Params.Degree, s.Terms, s.Workers = n, n, []int{40}, []int{1, 2}
		rows, err := s.Run(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(filepath.Join(dir, "vars-"+string(rune('0'+n))+".parquet"), rows, meta); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []float64{0.5, 0.05} {
		s := b
		s.Params.Vars, s.Params.Degree, s.Params.Capacity, s.Terms, s.Workers = 8, 8, c, []int{40}, []int{1}
		rows, err := s.Run(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(filepath.Join(dir, fmt.Sprintf("capsweep-%g.parquet", c)), rows, meta); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []float64{0.5, 0.05} {
		s := b
		s.Params.Vars, s.Params.Degree, s.Params.Capacity, s.Terms, s.Workers = 8, 8, c, []int{50, 55, 60}, []int{1}
		rows, err := s.Run(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(filepath.Join(dir, fmt.Sprintf("terms-%g.parquet", c)), rows, meta); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := run(&out, dir, 0, mknapRun{}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"| 50 | 0.05 | 0.04 | 0.80 |", "| 60 | 0.07 | 0.05 | 0.71 |",
		"agrees with the branch and bound, value and selection, on 12 of 12 solves",
		"| 8 | 256 |", "| 9 | 512 |", "6/6 |", "| rank, 2 workers (s) | 2 / 1 worker |",
		"### Work and time against the capacity", "| 0.5 | ", "| 0.05 | ", "| 3/3 |\n", "| rank: paths |", "| bnb (µs per node) |",
		"### Growth from 50 to 60 terms at each capacity", "grows 1.4x over 1.2x the terms: terms^1.85.", "\n| 0.05 | ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary lacks %q:\n%s", want, text)
		}
	}
}

// TestMknapcb runs the mknapcb part on a one-problem file: a published
// best value the proved optimum equals lies between value and bound, one
// above it does not.
func TestMknapcb(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mknapcb0.txt")
	// profits 3 4 5, weights 1 2 3, capacity 3: the optimum is 7 (x1 x2).
	if err := os.WriteFile(file, []byte("1\n3 1 0\n3 4 5\n1 2 3\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		best float64
		want []string
	}{
		{7, []string{"| 1.3-00 | 3, 1 | 7 | 7.5 | 7 | 7.0 | 1.000 | 0.933 | yes | yes |", "| 1 of 1 | 1 of 1 | 1 of 1 |"}},
		{8, []string{"| 1.3-00 | 3, 1 | 8 | 8.5 | 7 | 7.0 | 0.875 | 0.824 | yes | NO |", "| 1 of 1 | 0 of 1 | 1 of 1 |"}},
	} {
		best := filepath.Join(dir, "best.txt")
		text := fmt.Sprintf("Problem Name  Best Feasible Solution Value\n1.3-00 %v\n\nProblem Name  LP optimal\n1.3-00 %v\n", c.best, c.best+0.5)
		if err := os.WriteFile(best, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(&out, dir, 0, mknapRun{file: file, best: best, maxNodes: 1000}); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("best %v: the summary lacks %q:\n%s", c.best, w, out.String())
			}
		}
	}
}
