package table1

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/sdk/groupsel"
)

// Bench is a Table 1 benchmark: for each number of terms, Instances
// instances drawn with Params (Terms set per point), each solved by the
// rank approach on each worker count and checked by the branch and bound.
type Bench struct {
	// Params are the generator's settings; Terms is set per point.
	Params Params
	// Terms are the points (the paper: 50 to 240 in steps of 10).
	Terms []int
	// Instances per point (the paper: 50).
	Instances int
	// Workers are the worker counts the rank approach runs on (the paper:
	// sequential and 4 nodes).
	Workers []int
	// Seed seeds the instances: instance i of the point with t terms is
	// drawn from PCG(Seed, t*1_000_000+i), whatever else is run.
	Seed uint64
	// Options are the solvers' (Use, MaxPaths, MaxNodes; Workers is set
	// per row).
	Options groupsel.Options
}

// Row is one solve.
type Row struct {
	Terms, Instance int
	Seed            uint64
	Method          groupsel.Method
	Workers         int
	Value           float64
	Selected        []int
	Paths, Cuts     int64
	Nodes           int64
	TermEvals       int64
	Nanos           int64
	// Checked is the branch and bound's value, and Agrees says the
	// selection is the branch and bound's too.
	Checked float64
	Agrees  bool
}

// Run runs the benchmark, calling progress (when set) after each instance.
func (b Bench) Run(progress func(terms, instance int)) ([]Row, error) {
	var rows []Row
	for _, terms := range b.Terms {
		p := b.Params
		p.Terms = terms
		for i := range b.Instances {
			seed2 := uint64(terms)*1_000_000 + uint64(i)
			in, err := Generate(p, rand.New(rand.NewPCG(b.Seed, seed2)))
			if err != nil {
				return nil, err
			}
			opts := b.Options
			opts.Workers = 1
			began := time.Now()
			ref, err := groupsel.BranchAndBound(in, opts)
			if err != nil {
				return nil, fmt.Errorf("terms %d, instance %d: branch and bound: %w", terms, i, err)
			}
			check := Row{Terms: terms, Instance: i, Seed: seed2, Method: groupsel.MethodBnB, Workers: 1, Value: ref.Value,
				Selected: ref.Selected, Nodes: ref.Stats.Nodes, TermEvals: ref.Stats.TermEvals,
				Nanos: time.Since(began).Nanoseconds(), Checked: ref.Value, Agrees: true}
			rows = append(rows, check)
			for _, w := range b.Workers {
				opts.Workers = w
				began := time.Now()
				s, err := groupsel.Rank(in, opts)
				if err != nil {
					return nil, fmt.Errorf("terms %d, instance %d: rank approach on %d workers: %w", terms, i, w, err)
				}
				rows = append(rows, Row{Terms: terms, Instance: i, Seed: seed2, Method: groupsel.MethodRank, Workers: w,
					Value: s.Value, Selected: s.Selected, Paths: s.Stats.Paths, Cuts: s.Stats.Cuts, TermEvals: s.Stats.TermEvals,
					Nanos: time.Since(began).Nanoseconds(), Checked: ref.Value,
					Agrees: s.Value == ref.Value && slices.Equal(s.Selected, ref.Selected)})
			}
			if progress != nil {
				progress(terms, i)
			}
		}
	}
	return rows, nil
}

// Columns are the Parquet columns of the rows.
var columns = []results.Column{
	{Name: "terms", Kind: results.Int64}, {Name: "instance", Kind: results.Int64}, {Name: "seed", Kind: results.Int64},
	{Name: "method", Kind: results.String}, {Name: "workers", Kind: results.Int64}, {Name: "value", Kind: results.Float64},
	{Name: "selected", Kind: results.String}, {Name: "paths", Kind: results.Int64}, {Name: "cuts", Kind: results.Int64},
	{Name: "nodes", Kind: results.Int64}, {Name: "term_evals", Kind: results.Int64}, {Name: "ns", Kind: results.Int64},
	{Name: "checked_value", Kind: results.Float64}, {Name: "agrees", Kind: results.Bool},
}

// Write writes the rows as Parquet, with meta (provenance) and the
// benchmark's settings in the footer.
func (b Bench) Write(path string, rows []Row, meta results.Metadata) error {
	out := make([][]any, len(rows))
	for i, r := range rows {
		sel := make([]string, len(r.Selected))
		for j, v := range r.Selected {
			sel[j] = strconv.Itoa(v + 1)
		}
		out[i] = []any{int64(r.Terms), int64(r.Instance), int64(r.Seed), string(r.Method), int64(r.Workers), r.Value,
			strings.Join(sel, " "), r.Paths, r.Cuts, r.Nodes, r.TermEvals, r.Nanos, r.Checked, r.Agrees}
	}
	m := results.Metadata{}
	for k, v := range meta {
		m[k] = v
	}
	p := b.Params
	for k, v := range map[string]string{
		"table1.vars": strconv.Itoa(p.Vars), "table1.degree": strconv.Itoa(p.Degree), "table1.constraints": strconv.Itoa(p.Constraints),
		"table1.coefficients": fmt.Sprintf("%d..%d", p.MinCoef, p.MaxCoef), "table1.capacity": strconv.FormatFloat(p.Capacity, 'g', -1, 64),
		"table1.shared": strconv.FormatBool(p.Shared), "table1.instances": strconv.Itoa(b.Instances),
		"table1.seed": strconv.FormatUint(b.Seed, 10), "table1.use": string(cmp.Or(b.Options.Use, groupsel.UseSum)),
		"table1.terms": fmt.Sprint(b.Terms), "table1.workers": fmt.Sprint(b.Workers),
	} {
		m[k] = v
	}
	return results.WriteTable(path, columns, out, m)
}
