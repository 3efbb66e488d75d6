// Package lp writes a group-selection instance as a mixed-integer linear
// program in the CPLEX LP format, which GLPK's glpsol (--lp) and COIN-OR's
// cbc read, so that a real MILP solver can check the solvers' optima. A
// product of variables x_i x_j ... becomes a binary y_t linearised as
// y_t <= x_i for each of its variables and y_t >= sum x_i - (k - 1), so that
// y_t is exactly the product for any sign of its coefficients.
package lp

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/schedlab/schedlab/sdk/groupsel"
)

// WriteFile writes the instance as an LP file at path.
func WriteFile(path string, in *groupsel.Instance) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, in); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Write writes the instance as an LP file.
func Write(w io.Writer, in *groupsel.Instance) error {
	if err := in.Validate(); err != nil {
		return err
	}
	b := bufio.NewWriter(w)
	name := func(t int) string {
		if vars := in.Terms[t]; len(vars) == 1 {
			return "x" + strconv.Itoa(vars[0]+1)
		}
		return "y" + strconv.Itoa(t+1)
	}
	sense := "Maximize"
	if in.Sense == groupsel.Minimise {
		sense = "Minimize"
	}
	fmt.Fprintf(b, "\\ group selection: %d variables, %d terms, %d constraints\n%s\n obj:", in.N, len(in.Terms), len(in.Constraints), sense)
	konst := 0.0
	var obj row
	for t, v := range in.Objective {
		if len(in.Terms[t]) == 0 {
			konst += v
			continue
		}
		obj.add(name(t), v)
	}
	if konst != 0 {
		// LP objectives take no constant: write it as a fixed variable.
		obj.add("one", konst)
	}
	obj.write(b)
	b.WriteString("\nSubject To\n")
	for c, con := range in.Constraints {
		fmt.Fprintf(b, " c%d:", c+1)
		bound := con.Bound
		var r row
		for _, k := range con.Coefs {
			if len(in.Terms[k.Term]) == 0 {
				bound -= k.Value
				continue
			}
			r.add(name(k.Term), k.Value)
		}
		r.write(b)
		rel := map[groupsel.Relation]string{groupsel.LE: "<=", groupsel.GE: ">=", groupsel.EQ: "="}[con.Rel]
		fmt.Fprintf(b, " %s %s\n", rel, num(bound))
	}
	for t, vars := range in.Terms {
		if len(vars) < 2 {
			continue
		}
		for _, v := range vars {
			fmt.Fprintf(b, " p%d_%d: y%d - x%d <= 0\n", t+1, v+1, t+1, v+1)
		}
		fmt.Fprintf(b, " q%d: y%d", t+1, t+1)
		for _, v := range vars {
			fmt.Fprintf(b, " - x%d", v+1)
		}
		fmt.Fprintf(b, " >= %d\n", 1-len(vars))
	}
	if konst != 0 {
		b.WriteString(" fix: one = 1\n")
	}
	b.WriteString("Binary\n")
	for v := range in.N {
		fmt.Fprintf(b, " x%d\n", v+1)
	}
	for t, vars := range in.Terms {
		if len(vars) >= 2 {
			fmt.Fprintf(b, " y%d\n", t+1)
		}
	}
	if konst != 0 {
		b.WriteString(" one\n")
	}
	b.WriteString("End\n")
	return b.Flush()
}

// row is a linear expression, each variable once (terms that are the same
// variable add up), in order of first appearance.
type row struct {
	names []string
	coefs map[string]float64
}

func (r *row) add(name string, v float64) {
	if r.coefs == nil {
		r.coefs = map[string]float64{}
	}
	if _, ok := r.coefs[name]; !ok {
		r.names = append(r.names, name)
	}
	r.coefs[name] += v
}

func (r *row) write(b *bufio.Writer) {
	wrote := false
	for _, n := range r.names {
		if v := r.coefs[n]; v != 0 {
			fmt.Fprintf(b, " %s %s", signed(v), n)
			wrote = true
		}
	}
	if !wrote {
		b.WriteString(" 0 x1") // an empty expression is not valid LP
	}
}

// signed writes a coefficient with its sign and every digit a float64
// needs, never in exponent form (which not every LP reader takes).
func signed(v float64) string {
	s := num(v)
	if v >= 0 {
		s = "+" + s
	}
	return s
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
