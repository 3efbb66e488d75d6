// Package milp solves LP files with real MILP solvers from Debian, GLPK's
// glpsol and COIN-OR's cbc, so that tests can check schedlab's own solvers
// against them. Without a solver a test is skipped on a developer's
// machine but fails under CI, so CI never passes without the oracle (the
// pattern of package duckcheck).
package milp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Solver names a MILP solver.
type Solver string

// The solvers.
const (
	GLPK Solver = "glpsol"
	CBC  Solver = "cbc"
)

// Result is a solver's answer.
type Result struct {
	// Optimal says the solver proved optimality; Infeasible that no
	// solution exists.
	Optimal, Infeasible bool
	Objective           float64
}

// Require returns the path of the solver, or skips the test (fails it
// when CI is set) when it is not installed.
func Require(t testing.TB, s Solver) string {
	t.Helper()
	path, err := exec.LookPath(string(s))
	if err != nil {
		msg := fmt.Sprintf("%s is not on PATH; apt-get install glpk-utils coinor-cbc (or just deps) to check against real MILP solvers", s)
		if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
			t.Fatal(msg + " (CI is set, so this check may not be skipped)")
		}
		t.Skip(msg)
	}
	return path
}

// Solve runs the solver on the LP file and reads its solution.
func Solve(t testing.TB, s Solver, lp string) Result {
	t.Helper()
	bin := Require(t, s)
	sol := filepath.Join(t.TempDir(), "solution.txt")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	switch s {
	case GLPK:
		cmd = exec.CommandContext(ctx, bin, "--lp", lp, "-w", sol)
	case CBC:
		cmd = exec.CommandContext(ctx, bin, lp, "solve", "solu", sol)
	default:
		t.Fatalf("unknown solver %q", s)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", s, lp, err, out.Bytes())
	}
	text, err := os.ReadFile(sol)
	if err != nil {
		t.Fatalf("%s wrote no solution: %v\n%s", s, err, out.Bytes())
	}
	r, err := parse(s, string(text))
	if err != nil {
		t.Fatalf("%s's solution: %v\n%s", s, err, text)
	}
	return r
}

// parse reads glpsol's -w file ("s mip ROWS COLS STATUS OBJ") or cbc's
// solution file ("Optimal - objective value V").
func parse(s Solver, text string) (Result, error) {
	switch s {
	case GLPK:
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(line)
			if len(f) == 6 && f[0] == "s" && f[1] == "mip" {
				v, err := strconv.ParseFloat(f[5], 64)
				return Result{Optimal: f[4] == "o", Infeasible: f[4] == "n", Objective: v}, err
			}
		}
	case CBC:
		first, _, _ := strings.Cut(text, "\n")
		if _, v, ok := strings.Cut(first, "objective value "); ok {
			obj, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return Result{Optimal: strings.HasPrefix(first, "Optimal"), Infeasible: strings.HasPrefix(first, "Infeasible"), Objective: obj}, err
		}
		if strings.HasPrefix(first, "Infeasible") {
			return Result{Infeasible: true}, nil
		}
	}
	return Result{}, fmt.Errorf("no status line")
}
