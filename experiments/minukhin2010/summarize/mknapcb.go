package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/schedlab/schedlab/groupsel/mknap"
	"github.com/schedlab/schedlab/sdk/groupsel"
)

// mknapcb runs the branch and bound, stopped at maxNodes nodes (a limit in
// steps, so the table is the same on every machine), on every problem of
// an OR-Library mknapcb file and prints, beside the published best value
// (Chu & Beasley's, a feasible value) and LP relaxation of each, the value
// found, the bound proved and whether the published value lies between
// them.
func mknapcb(w io.Writer, file, bestFile string, maxNodes int64) error {
	probs, err := mknap.ReadFile(file)
	if err != nil {
		return err
	}
	best, err := mknap.ReadBestFile(bestFile)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "### OR-Library's mknapcb against the published values\n\n%s, the branch and bound stopped at %d nodes per problem.\n\n", filepath.Base(file), maxNodes)
	fmt.Fprintln(w, "| problem | items, constraints | published best | published LP bound | ours: value | ours: bound | value / published best | bound / published LP | proved optimal | published best within ours |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	var short, over []float64
	proved, within, leaves := 0, 0, 0
	for i, p := range probs {
		name := mknap.Name(p, i+1)
		b, ok := best[name]
		if !ok || b.Value == 0 || b.LP == 0 {
			return fmt.Errorf("%s, problem %d: %s has no published best and LP values in %s", file, i+1, name, bestFile)
		}
		s, err := groupsel.BranchAndBound(p.Instance, groupsel.Options{MaxNodes: maxNodes})
		if err != nil && !errors.Is(err, groupsel.ErrBudget) || s == nil {
			return fmt.Errorf("%s, problem %d: %w", file, i+1, err)
		}
		if s.Stats.Feasible > 0 {
			leaves++
		}
		bound := s.Bound
		if s.Optimal {
			bound = s.Value
			proved++
		}
		in := s.Value <= b.Value && b.Value <= bound
		if in {
			within++
		}
		short = append(short, 1-s.Value/b.Value)
		over = append(over, bound/b.LP-1)
		fmt.Fprintf(w, "| %s | %d, %d | %.0f | %.1f | %.0f | %.1f | %.3f | %.3f | %s | %s |\n", name, p.Instance.N,
			len(p.Instance.Constraints), b.Value, b.LP, s.Value, bound, s.Value/b.Value, bound/b.LP,
			map[bool]string{true: "yes", false: "no"}[s.Optimal], map[bool]string{true: "yes", false: "NO"}[in])
	}
	fmt.Fprintf(w, "\n%d problems, the branch and bound stopped at %d nodes each:\n\n", len(probs), maxNodes)
	fmt.Fprintln(w, "| proved optimal | published best between our value and bound | a feasible leaf reached (else the greedy first selection) | value below the published best: min, mean, max | bound above the published LP bound: min, max |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	fmt.Fprintf(w, "| %d of %d | %d of %d | %d of %d | %.1f %%, %.1f %%, %.1f %% | %.2f %%, %.2f %% |\n\n", proved, len(probs), within, len(probs),
		leaves, len(probs), 100*slices.Min(short), 100*mean(short), 100*slices.Max(short), 100*slices.Min(over), 100*slices.Max(over))
	return nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// mknapRun is the mknapcb part's settings; an empty file skips it.
type mknapRun struct {
	file, best string
	maxNodes   int64
}
