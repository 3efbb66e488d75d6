// Package gantt draws a run's schedule as a Gantt chart: time across, the
// lanes of package layout down (a pool's processors, packed as evalys
// packs them, or each node's cores, a row per node), one rectangle per job
// and run of consecutive lanes. It writes a static SVG for papers and an
// HTML page that pans and zooms over a whole log.
package gantt

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/results/layout"
)

// ErrInput is matched (errors.Is) by the errors of options that do not fit
// the run: a window outside it, an unknown colour column.
var ErrInput = errors.New("bad gantt option")

// Colour columns besides the jobs file's own: by decision and none.
const (
	// ByDecision colours a job by what its policy did: killed at its
	// walltime, else backfilled, else started at a promised start
	// (reserved), else started in queue order.
	ByDecision = "decision"
	// ByNone draws every job in one colour.
	ByNone = "none"
)

// Options choose what a chart shows.
type Options struct {
	// Colour is the column that colours the jobs: ByDecision, ByNone or a
	// column of the jobs file (Columns lists them).
	Colour string
	// From and To bound the time window, in the jobs file's seconds; nil
	// for the run's first submit and last end.
	From, To *int64
	// Title heads the chart; empty for the run's label.
	Title string
}

// Columns are the jobs file columns a chart may be coloured by.
func Columns() []string {
	return []string{ByDecision, ByNone, "user", "group", "app", "queue", "partition", "cluster", "procs", "node_partition", "home"}
}

// Chart is a run laid out and coloured, ready to draw.
type Chart struct {
	run    *layout.Run
	lay    *layout.Layout
	from   int64
	to     int64
	title  string
	colour string
	// cat is each job's category (an index into cats), cats the
	// categories by decreasing job count (ties by name).
	cat  []int32
	cats []Category
}

// Category is one value of the colour column, with its colour and jobs.
type Category struct {
	Name   string
	Colour string
	Jobs   int
}

// New lays out r and colours it as opts say.
func New(r *layout.Run, opts Options) (*Chart, error) {
	c := &Chart{run: r, colour: opts.Colour, title: opts.Title}
	if c.colour == "" {
		c.colour = ByDecision
	}
	if !slices.Contains(Columns(), c.colour) {
		return nil, fmt.Errorf("%w: --colour %q: want one of %s", ErrInput, c.colour, strings.Join(Columns(), ", "))
	}
	if c.colour == "node_partition" && r.Extras.Nodes == nil {
		return nil, fmt.Errorf("%w: --colour node_partition: the run is not on a platform of nodes", ErrInput)
	}
	if c.colour == "home" && r.Extras.Grid == nil {
		return nil, fmt.Errorf("%w: --colour home: the run is not of a grid", ErrInput)
	}
	lo, hi, ok := span(r)
	if !ok {
		return nil, fmt.Errorf("%w: the run has no job that ran", ErrInput)
	}
	c.from, c.to = lo, hi
	if opts.From != nil {
		c.from = *opts.From
	}
	if opts.To != nil {
		c.to = *opts.To
	}
	if c.from >= c.to {
		return nil, fmt.Errorf("%w: the window [%d, %d) is empty", ErrInput, c.from, c.to)
	}
	if c.to <= lo || c.from >= hi {
		return nil, fmt.Errorf("%w: the window [%d, %d) is outside the run, which spans [%d, %d)", ErrInput, c.from, c.to, lo, hi)
	}
	if c.title == "" {
		c.title = r.Meta["run.label"]
		if c.title == "" {
			c.title = r.Meta["policy.ref"] + " on " + r.WorkloadName()
		}
	}
	l, err := r.Layout()
	if err != nil {
		return nil, err
	}
	c.lay = l
	c.categorise()
	return c, nil
}

// span returns the first submit and the last end of the jobs that ran.
func span(r *layout.Run) (lo, hi int64, ok bool) {
	for _, j := range r.Jobs {
		if j.End <= j.Start || j.Cluster < 0 {
			continue
		}
		if !ok || j.Submit < lo {
			lo = j.Submit
		}
		if !ok || j.End > hi {
			hi = j.End
		}
		ok = true
	}
	return lo, hi, ok
}

// key returns the name of job i's category.
func (c *Chart) key(i int) string {
	j := c.run.Jobs[i]
	switch c.colour {
	case ByDecision:
		switch {
		case j.Killed:
			return "killed"
		case j.Backfilled:
			return "backfilled"
		case j.PromisedStart != nil:
			return "reserved"
		}
		return "in order"
	case ByNone:
		return "job"
	case "user":
		return "user " + strconv.FormatInt(j.User, 10)
	case "group":
		return "group " + strconv.FormatInt(j.Group, 10)
	case "app":
		return "app " + strconv.FormatInt(j.App, 10)
	case "queue":
		return "queue " + strconv.FormatInt(j.Queue, 10)
	case "partition":
		return "partition " + strconv.FormatInt(j.Partition, 10)
	case "cluster":
		return "cluster " + strconv.FormatInt(j.Cluster, 10)
	case "procs":
		return strconv.FormatInt(j.Procs, 10) + " procs"
	case "node_partition":
		return c.run.Extras.Nodes[i].NodePartition
	case "home":
		if h := c.run.Extras.Grid[i].Home; h >= 0 {
			return "home " + strconv.FormatInt(h, 10)
		}
		return "global"
	}
	return ""
}

// categorise gives each job its category and each category a colour: the
// most frequent categories the palette's colours in order, so that a
// legend's first entries are told apart best, and the rest cycle through
// it.
func (c *Chart) categorise() {
	index := map[string]int32{}
	var names []string
	var counts []int
	c.cat = make([]int32, len(c.run.Jobs))
	for i := range c.run.Jobs {
		k := c.key(i)
		x, ok := index[k]
		if !ok {
			x = int32(len(names))
			index[k] = x
			names = append(names, k)
			counts = append(counts, 0)
		}
		counts[x]++
		c.cat[i] = x
	}
	perm := make([]int, len(names))
	for i := range perm {
		perm[i] = i
	}
	slices.SortFunc(perm, func(a, b int) int {
		if d := cmp.Compare(counts[b], counts[a]); d != 0 {
			return d
		}
		return cmp.Compare(names[a], names[b])
	})
	rank := make([]int32, len(names))
	pal := palette()
	for r, x := range perm {
		rank[x] = int32(r)
		col := decisionColours[names[x]]
		if c.colour != ByDecision {
			col = pal[r%len(pal)]
		}
		c.cats = append(c.cats, Category{Name: names[x], Colour: col, Jobs: counts[x]})
	}
	for i, x := range c.cat {
		c.cat[i] = rank[x]
	}
}

// palette returns the colours of a colour column. By decision, the colours
// say what happened (vermillion killed, blue in order); otherwise the
// Okabe-Ito colours the report uses, then Paul Tol's muted ones.
func palette() []string {
	return []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#332288",
		"#882255", "#999933", "#8C510A", "#44AA99", "#AA4499", "#117733", "#DDCC77", "#6699CC", "#661100"}
}

// decisionColours are fixed so that every chart says the same.
var decisionColours = map[string]string{"in order": "#0072B2", "backfilled": "#009E73", "reserved": "#CC79A7", "killed": "#D55E00"}

// Categories returns the chart's categories by decreasing job count.
func (c *Chart) Categories() []Category { return c.cats }

// ticks returns about n round values between lo and hi.
func ticks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		return nil
	}
	raw := (hi - lo) / float64(n)
	step := 1.0
	for step*10 <= raw {
		step *= 10
	}
	for step > raw {
		step /= 10
	}
	for _, m := range []float64{1, 2, 5, 10} {
		if step*m >= raw {
			step *= m
			break
		}
	}
	var out []float64
	for v := float64(int64(lo/step)) * step; v <= hi+step*1e-9; v += step {
		if v >= lo-step*1e-9 {
			out = append(out, v)
		}
	}
	return out
}
