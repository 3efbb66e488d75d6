// Package opb reads pseudo-Boolean instances in the OPB format of the
// pseudo-Boolean competitions (Roussel & Manquinho, "Input/Output Format
// and Solver Requirements for the Competitions of Pseudo-Boolean Solvers"):
// an optional objective "min: ... ;" (or "max: ... ;"), then constraints
// "... >= K ;" or "... = K ;" (and "<=", which the format lacks but people
// write), each a sum of integer coefficients times products of literals
// x1, x2, ... or their negations ~x1. Lines starting with "*" are comments.
package opb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk/groupsel"
)

// Error is a problem at a line of an OPB file.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// MaxNegated bounds the negated literals of one product: a product with k
// of them expands into 2^k products of plain variables.
const MaxNegated = 12

// ReadFile reads the OPB file at path.
func ReadFile(path string) (*groupsel.Instance, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads an OPB instance; name is used in errors. Products with
// negated literals are expanded ((1 - x) y = y - x y), a constraint's
// constants move to its bound, an objective's constant becomes a term of no
// variables (so values are the file's), and products of the same variables
// are merged into one term. Without an objective the instance minimises 0:
// any feasible selection is optimal.
func Read(r io.Reader, name string) (*groupsel.Instance, error) {
	p := &parser{name: name, index: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var stmt strings.Builder
	start, line := 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(text, "*") {
			p.header(text)
			continue
		}
		for text != "" {
			if stmt.Len() == 0 {
				start = line
			}
			before, after, done := strings.Cut(text, ";")
			stmt.WriteString(before)
			stmt.WriteByte(' ')
			if !done {
				break
			}
			if err := p.statement(strings.TrimSpace(stmt.String()), start); err != nil {
				return nil, err
			}
			stmt.Reset()
			text = strings.TrimSpace(after)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if s := strings.TrimSpace(stmt.String()); s != "" {
		return nil, &Error{name, start, fmt.Sprintf("statement %q does not end with ;", clip(s))}
	}
	// An empty file (or comments only) is not an instance with nothing to
	// choose: more likely a truncated or wrong file, so it is an error.
	if !p.seenObj && len(p.cons) == 0 {
		return nil, &Error{name, max(line, 1), "no objective and no constraint: the file holds no instance"}
	}
	// A literal beyond the header's count is a file that contradicts
	// itself; growing N silently would hide the mistake. The statements
	// check it as they go; this catches a header after them.
	if p.declared > 0 && p.maxVar > p.declared {
		return nil, &Error{name, p.maxVarLine, fmt.Sprintf("literal x%d beyond the header's #variable= %d", p.maxVar, p.declared)}
	}
	in := &groupsel.Instance{N: max(p.declared, p.maxVar), Terms: p.terms, Sense: p.sense, Constraints: p.cons}
	in.Objective = make([]float64, len(p.terms))
	for t, v := range p.obj {
		in.Objective[t] = v
	}
	if err := in.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return in, nil
}

type parser struct {
	name       string
	declared   int // #variable= of the header
	maxVar     int
	maxVarLine int // the line of the statement where maxVar was first used
	terms      [][]int
	index      map[string]int // a term's variables, as text, to its index
	obj        map[int]float64
	sense      groupsel.Sense
	seenObj    bool
	cons       []groupsel.Constraint
	line       int // the line where the current statement starts
}

// header reads "#variable= N" from a comment line.
func (p *parser) header(text string) {
	f := strings.Fields(text)
	for i, w := range f {
		if w == "#variable=" && i+1 < len(f) {
			if n, err := strconv.Atoi(f[i+1]); err == nil && n > 0 {
				p.declared = n
			}
		}
	}
}

func (p *parser) statement(s string, line int) error {
	bad := func(format string, args ...any) error {
		return &Error{p.name, line, fmt.Sprintf(format, args...)}
	}
	if s == "" {
		return bad("an empty statement (a lone ;)")
	}
	p.line = line
	for _, head := range []string{"min:", "max:"} {
		if rest, ok := strings.CutPrefix(s, head); ok {
			if p.seenObj {
				return bad("a second objective")
			}
			if len(p.cons) > 0 {
				return bad("the objective comes after constraints; OPB puts it first")
			}
			p.seenObj = true
			if head == "max:" {
				p.sense = groupsel.Maximise
			} else {
				p.sense = groupsel.Minimise
			}
			sum, konst, err := p.sum(strings.Fields(rest), bad)
			if err != nil {
				return err
			}
			p.obj = map[int]float64{}
			for t, v := range sum {
				p.obj[t] += v
			}
			if konst != 0 {
				p.obj[p.term(nil)] += konst
			}
			return nil
		}
	}
	fields := strings.Fields(s)
	rel, at := groupsel.LE, -1
	for i, w := range fields {
		switch w {
		case ">=":
			rel, at = groupsel.GE, i
		case "=":
			rel, at = groupsel.EQ, i
		case "<=":
			rel, at = groupsel.LE, i
		case ">", "<", "==", "!=":
			return bad("relation %q: OPB has >= and = (and we accept <=)", w)
		}
		if at >= 0 {
			break
		}
	}
	if at < 0 {
		return bad("constraint %q has no relation (>=, = or <=)", clip(s))
	}
	if at != len(fields)-2 {
		return bad("constraint %q: want one integer after %s", clip(s), fields[at])
	}
	bound, err := number(fields[at+1])
	if err != nil {
		return bad("bound %q: %v", fields[at+1], err)
	}
	sum, konst, err := p.sum(fields[:at], bad)
	if err != nil {
		return err
	}
	c := groupsel.Constraint{Rel: rel, Bound: bound - konst}
	for _, t := range slices.Sorted(maps.Keys(sum)) {
		if sum[t] != 0 {
			c.Coefs = append(c.Coefs, groupsel.Coef{Term: t, Value: sum[t]})
		}
	}
	p.cons = append(p.cons, c)
	return nil
}

// sum reads coefficient-product pairs: "+3 x1 x2 -2 ~x3". It returns the
// coefficient of each term and the constant that negations produced.
func (p *parser) sum(f []string, bad func(string, ...any) error) (map[int]float64, float64, error) {
	out := map[int]float64{}
	konst := 0.0
	for i := 0; i < len(f); {
		coef, err := number(f[i])
		if err != nil {
			return nil, 0, bad("coefficient %q: %v", f[i], err)
		}
		i++
		var plain, neg []int
		for i < len(f) && isLiteral(f[i]) {
			v, negated, err := literal(f[i])
			if err != nil {
				return nil, 0, bad("literal %q: %v", f[i], err)
			}
			if p.declared > 0 && v+1 > p.declared {
				return nil, 0, bad("literal %q beyond the header's #variable= %d", f[i], p.declared)
			}
			if v+1 > p.maxVar {
				p.maxVar, p.maxVarLine = v+1, p.line
			}
			if negated {
				neg = append(neg, v)
			} else {
				plain = append(plain, v)
			}
			i++
		}
		if len(plain)+len(neg) == 0 {
			if i < len(f) {
				if _, err := number(f[i]); err != nil {
					return nil, 0, bad("after coefficient %s: %q is not a literal (x1, ~x1, ...)", f[i-1], f[i])
				}
			}
			return nil, 0, bad("coefficient %s has no literal after it (a sum is integer coefficients, each followed by a product of literals)", f[i-1])
		}
		if len(neg) > MaxNegated {
			return nil, 0, bad("a product with %d negated literals (at most %d: each doubles the terms it expands to)", len(neg), MaxNegated)
		}
		// c * prod(plain) * prod(1 - y for y in neg) = sum over subsets S
		// of neg of c * (-1)^|S| * prod(plain) * prod(S).
		for s := range 1 << len(neg) {
			vars := slices.Clone(plain)
			sign := 1.0
			for j, y := range neg {
				if s&(1<<j) != 0 {
					vars = append(vars, y)
					sign = -sign
				}
			}
			if len(vars) == 0 {
				konst += sign * coef
				continue
			}
			out[p.term(vars)] += sign * coef
		}
	}
	return out, konst, nil
}

// term returns the index of the product of vars (x x is x), adding it.
func (p *parser) term(vars []int) int {
	vars = slices.Compact(slices.Sorted(slices.Values(vars)))
	key := fmt.Sprint(vars)
	if t, ok := p.index[key]; ok {
		return t
	}
	p.index[key] = len(p.terms)
	p.terms = append(p.terms, vars)
	return len(p.terms) - 1
}

func isLiteral(w string) bool {
	return strings.HasPrefix(w, "x") || strings.HasPrefix(w, "~x")
}

// literal reads x<i> or ~x<i>, i >= 1, as variable i-1.
func literal(w string) (v int, negated bool, err error) {
	s, negated := strings.CutPrefix(w, "~")
	n, err := strconv.Atoi(strings.TrimPrefix(s, "x"))
	if err != nil || n < 1 {
		return 0, false, fmt.Errorf("want x1, x2, ... or ~x1, ~x2, ... (variables count from 1)")
	}
	return n - 1, negated, nil
}

// number reads an integer coefficient, which a float64 must hold exactly.
func number(w string) (float64, error) {
	const beyond = "beyond 2^53, which the solvers cannot hold exactly"
	n, err := strconv.ParseInt(w, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, errors.New(beyond) // an integer, too long for int64
	}
	if err != nil {
		return 0, fmt.Errorf("not an integer")
	}
	if n > 1<<53 || n < -(1<<53) {
		return 0, errors.New(beyond)
	}
	return float64(n), nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
