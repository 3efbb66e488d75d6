// Package mknap reads OR-Library's multidimensional 0-1 knapsack files
// (J. E. Beasley, "OR-Library: distributing test problems by electronic
// mail", JORS 41(11), 1990; the files mknap1 and mknapcb1..9): the number
// of problems, then for each the number of variables n, of constraints m
// and the optimal value (0 when unknown), the n profits, the m rows of n
// weights, and the m capacities, all separated by white space.
package mknap

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk/groupsel"
)

// Problem is one knapsack of a file.
type Problem struct {
	// Instance maximises the profit of the selected items within every
	// capacity; each item is a variable of its own term.
	Instance *groupsel.Instance
	// Optimum is the optimal value the file states, 0 when unknown.
	Optimum float64
	// Line is where the problem starts in the file.
	Line int
}

// Error is a problem at a line of a file.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ReadFile reads the file at path.
func ReadFile(path string) ([]Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

type token struct {
	text string
	line int
}

// Read reads every problem of a file; name is used in errors.
func Read(r io.Reader, name string) ([]Problem, error) {
	var toks []token
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	line := 0
	for sc.Scan() {
		line++
		for _, w := range strings.Fields(sc.Text()) {
			toks = append(toks, token{w, line})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	at := 0
	lastLine := line
	next := func(what string) (float64, int, error) {
		if at >= len(toks) {
			return 0, lastLine, &Error{name, lastLine, fmt.Sprintf("the file ends where %s should be", what)}
		}
		t := toks[at]
		at++
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return 0, t.line, &Error{name, t.line, fmt.Sprintf("%s: %q is not a number", what, t.text)}
		}
		return v, t.line, nil
	}
	count := func(what string) (int, int, error) {
		v, l, err := next(what)
		if err != nil {
			return 0, l, err
		}
		if v != float64(int(v)) || v < 0 || v > 1<<24 {
			return 0, l, &Error{name, l, fmt.Sprintf("%s: %v is not a count", what, v)}
		}
		return int(v), l, nil
	}
	k, _, err := count("the number of problems")
	if err != nil {
		return nil, err
	}
	out := make([]Problem, 0, k)
	for i := range k {
		n, start, err := count(fmt.Sprintf("problem %d's number of variables", i+1))
		if err != nil {
			return nil, err
		}
		m, _, err := count(fmt.Sprintf("problem %d's number of constraints", i+1))
		if err != nil {
			return nil, err
		}
		opt, _, err := next(fmt.Sprintf("problem %d's optimum", i+1))
		if err != nil {
			return nil, err
		}
		in := &groupsel.Instance{N: n, Sense: groupsel.Maximise, Objective: make([]float64, n)}
		for j := range n {
			in.Terms = append(in.Terms, []int{j})
			if in.Objective[j], _, err = next(fmt.Sprintf("problem %d's profit %d", i+1, j+1)); err != nil {
				return nil, err
			}
		}
		for c := range m {
			con := groupsel.Constraint{Rel: groupsel.LE}
			for j := range n {
				w, l, err := next(fmt.Sprintf("problem %d's weight %d of constraint %d", i+1, j+1, c+1))
				if err != nil {
					return nil, err
				}
				if w < 0 {
					return nil, &Error{name, l, fmt.Sprintf("problem %d: weight %v is negative", i+1, w)}
				}
				if w != 0 {
					con.Coefs = append(con.Coefs, groupsel.Coef{Term: j, Value: w})
				}
			}
			in.Constraints = append(in.Constraints, con)
		}
		for c := range m {
			if in.Constraints[c].Bound, _, err = next(fmt.Sprintf("problem %d's capacity %d", i+1, c+1)); err != nil {
				return nil, err
			}
		}
		if err := in.Validate(); err != nil {
			return nil, &Error{name, start, fmt.Sprintf("problem %d: %v", i+1, err)}
		}
		out = append(out, Problem{Instance: in, Optimum: opt, Line: start})
	}
	if at < len(toks) {
		return nil, &Error{name, toks[at].line, fmt.Sprintf("%q after the %d problems the file announces", toks[at].text, k)}
	}
	return out, nil
}
