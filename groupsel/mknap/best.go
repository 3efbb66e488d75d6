package mknap

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Best is what OR-Library's results file for mknapcb1..9 (mkcbres.txt)
// states of one problem: the best feasible value Chu & Beasley's genetic
// algorithm found (a lower bound on the optimum, not a proved optimum) and
// the value of the LP relaxation (an upper bound on it).
type Best struct {
	// Value is the best feasible value published, 0 when the file has none.
	Value float64
	// LP is the LP relaxation's value, 0 when the file has none.
	LP float64
	// Line is the line of Value (of LP when Value is absent).
	Line int
}

// Name is the results file's name of problem k (from 1) of an mknapcb
// file, m.n-(k-1): 5.100-00 is mknapcb1's first problem.
func Name(p Problem, k int) string {
	return fmt.Sprintf("%d.%d-%02d", len(p.Instance.Constraints), p.Instance.N, k-1)
}

// ReadBestFile reads a results file at path.
func ReadBestFile(path string) (map[string]Best, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("published values: %w", err)
	}
	defer f.Close()
	return ReadBest(f, path)
}

var (
	bestName = regexp.MustCompile(`^\d+\.\d+-\d+$`)
	bestHead = regexp.MustCompile(`(?i)^problem name\s+(best feasible|lp optimal)`)
)

// ReadBest reads OR-Library's mkcbres.txt: prose, then a table headed
// "Problem Name  Best Feasible Solution Value" and one headed "Problem Name
// LP optimal", each a line "m.n-kk value" per problem. A table's line that
// names a problem with no number, or a problem named twice in a table, is
// an error naming its line; name is used in errors.
func ReadBest(r io.Reader, name string) (map[string]Best, error) {
	out := map[string]Best{}
	sc := bufio.NewScanner(r)
	line, table := 0, ""
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if m := bestHead.FindStringSubmatch(text); m != nil {
			table = strings.ToLower(m[1])
			continue
		}
		f := strings.Fields(text)
		if len(f) == 0 || !bestName.MatchString(f[0]) {
			continue // prose, or a line between the tables
		}
		if table == "" {
			return nil, &Error{name, line, fmt.Sprintf("problem %s before a table's heading (Problem Name  Best Feasible Solution Value, or LP optimal)", f[0])}
		}
		if len(f) != 2 {
			return nil, &Error{name, line, fmt.Sprintf("problem %s: want one value after the name, got %d fields", f[0], len(f)-1)}
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return nil, &Error{name, line, fmt.Sprintf("problem %s: %q is not a number", f[0], f[1])}
		}
		b := out[f[0]]
		switch table {
		case "best feasible":
			if b.Value != 0 {
				return nil, &Error{name, line, fmt.Sprintf("problem %s named twice in the table of best values", f[0])}
			}
			b.Value, b.Line = v, line
		default:
			if b.LP != 0 {
				return nil, &Error{name, line, fmt.Sprintf("problem %s named twice in the table of LP values", f[0])}
			}
			b.LP = v
			if b.Line == 0 {
				b.Line = line
			}
		}
		out[f[0]] = b
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, &Error{name, max(line, 1), "no problem's value: not an OR-Library results file (mkcbres.txt)"}
	}
	return out, nil
}
