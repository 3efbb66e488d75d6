// Package report writes the report of a campaign: one self-contained HTML
// file (inline SVG plots and CSS, no script, no network access) with the
// campaign's provenance, the comparisons of package compare for one or more
// metrics, and plots: each metric per value of the compared axis with
// confidence intervals, box plots of the per-pair ratio to the baseline,
// the metric against numeric policy parameters, box plots over replicates,
// job-level ECDFs of wait and bounded slowdown, and utilisation and queue
// length over time for the runs of one group.
//
// It reads only the campaign folder (runs.parquet and the jobs files), so a
// reproduction that has the folder can rebuild the same page: for the same
// folder and Options, Write produces the same bytes.
package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"html/template"
	"image/color"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/compare"
)

// Options say what the report compares and shows. The zero value is a
// usable default: mean_wait and mean_bsld compared along the policy axis
// against its first policy.
type Options struct {
	// Metrics are numeric columns of runs.parquet to compare, in order;
	// nil means DefaultMetrics, or GridMetrics in a grid campaign.
	Metrics []string
	// Axis is the compared axis, "policy" by default; a parameter axis may
	// be written param.NAME or param_NAME.
	Axis string
	// Baseline is the reference value of Axis; empty means the axis's first
	// value in matrix order.
	Baseline string
	// By lists the axes that define the groups, as in compare.Options; nil
	// means every axis but the compared one, an empty non-nil slice no
	// grouping axis (one group of all runs, paired across the other axes;
	// compare.ParseBy turns --by none into it).
	By []string
	// Level is the confidence level, 0.95 by default.
	Level float64
	// Resamples is the number of bootstrap resamples, 10,000 by default.
	Resamples int
	// Seed seeds the bootstrap, so that a report is reproducible.
	Seed uint64
	// Title heads the page; empty means "Campaign report: NAME".
	Title string
	// Series selects the runs whose utilisation and queue length are
	// plotted over time: the completed runs with these axis values. Nil
	// means the first group of the comparison.
	Series []compare.AxisValue
	// Points is the number of points of each time-series curve, 300 by
	// default.
	Points int
	// MaxSeriesRuns bounds the runs plotted over time, 12 by default, so a
	// group with many replicates does not make a page of curves.
	MaxSeriesRuns int
}

// DefaultMetrics are the metrics a report compares unless told otherwise:
// the mean wait and the mean bounded slowdown, the two numbers most
// scheduling papers report.
func DefaultMetrics() []string { return []string{"mean_wait", "mean_bsld"} }

// InputError is an error caused by the campaign folder or the options
// rather than by the machine: no campaign there, an unknown metric or axis,
// a baseline the campaign does not have. Commands map it to their bad-input
// exit status.
type InputError struct{ Err error }

// Error returns the underlying error's message.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *InputError) Unwrap() error { return e.Err }

func badInput(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// Write writes the report of the campaign in folder dir to w. Nothing is
// written when it fails.
func Write(w io.Writer, dir string, opts Options) error {
	_, err := WriteFigures(w, dir, opts)
	return err
}

// Figure is one plot of a report as a standalone SVG document.
type Figure struct {
	// Name is a file name for it: the figure's number and id, such as
	// 01-metric-mean_wait.svg.
	Name string
	// Title is its title.
	Title string
	// SVG is the document, with its XML prologue.
	SVG []byte
}

// WriteFigures writes the report, as Write does, and returns its plots as
// standalone SVG files, for a paper or a write-up.
func WriteFigures(w io.Writer, dir string, opts Options) ([]Figure, error) {
	pg, err := build(dir, opts)
	if err != nil {
		return nil, err
	}
	if err := render(w, pg); err != nil {
		return nil, fmt.Errorf("report of %s: %w", dir, err)
	}
	var figs []Figure
	for _, s := range pg.Sections {
		for _, b := range s.Blocks {
			if f := b.Figure; f != nil {
				figs = append(figs, Figure{Name: fmt.Sprintf("%02d-%s.svg", b.Number, f.ID), Title: f.Title,
					SVG: []byte(xml.Header + string(f.SVG) + "\n")})
			}
		}
	}
	return figs, nil
}

// render numbers the page's figures and writes it with pageTemplate; nothing
// is written when the template fails.
func render(w io.Writer, pg *page) error {
	fitTables(pg)
	n := 0
	for i := range pg.Sections {
		for j := range pg.Sections[i].Blocks {
			if pg.Sections[i].Blocks[j].Figure != nil {
				n++
				pg.Sections[i].Blocks[j].Number = n
			}
		}
	}
	t, err := template.New("report").Funcs(template.FuncMap{"code": code}).Parse(pageTemplate)
	if err != nil {
		return fmt.Errorf("page template: %w", err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, pg); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// The page's model, which pageTemplate renders.
type (
	page struct {
		Title    string
		Subtitle string
		Sections []section
		Footer   string
	}
	section struct {
		ID, Title string
		Blocks    []block
	}
	// block is one element of a section: one of Heading, Para, Note, Table
	// and Figure is set.
	block struct {
		Heading string
		Para    string
		Note    string
		Table   *table
		Figure  *figure
		Number  int // the figure's number
	}
	table struct {
		Caption string
		Head    []string
		// Class holds each column's CSS class: "n" for numbers (right
		// aligned), "hash" for digests (monospace, may wrap), "wrap" for
		// text that may wrap, or "".
		Class []string
		Rows  []tableRow
		// Keys is the number of leading columns that identify a row,
		// repeated in each part of a table too wide for the page (at
		// least 1).
		Keys int
	}
	tableRow struct {
		Cells []string
		Mark  bool // the baseline's row
		// Swatch, when set, draws a square of the row's colour before
		// the first cell: the colour of its value in every plot.
		Swatch template.CSS
	}
)

// normalised fills in the defaults and spells axes as runs.parquet columns
// (param.order is the column param_order).
func (o Options) normalised(c *compare.Campaign) (Options, error) {
	col := func(a string) string { return strings.ReplaceAll(a, ".", "_") }
	if len(o.Metrics) == 0 {
		o.Metrics = DefaultMetrics()
		if isGrid(c) {
			o.Metrics = GridMetrics()
		}
	}
	seen := map[string]bool{}
	for _, m := range o.Metrics {
		if seen[m] {
			return o, fmt.Errorf("metric %s given twice", m)
		}
		seen[m] = true
		if !slices.Contains(c.Numeric, m) {
			return o, fmt.Errorf("metric %q is not a numeric column (have: %s)", m, strings.Join(c.Numeric, ", "))
		}
	}
	if o.Axis == "" {
		o.Axis = "policy"
	}
	o.Axis = col(o.Axis)
	if !slices.Contains(c.Axes, o.Axis) {
		return o, fmt.Errorf("axis %q is not an axis of the campaign (axes: %s)", o.Axis, strings.Join(c.Axes, ", "))
	}
	if o.Baseline == "" {
		o.Baseline = c.Values(o.Axis)[0]
	}
	if o.By != nil {
		by := make([]string, len(o.By))
		for i, b := range o.By {
			by[i] = col(b)
		}
		o.By = by
	}
	if o.Level == 0 {
		o.Level = 0.95
	}
	if !(o.Level > 0 && o.Level < 1) {
		return o, fmt.Errorf("confidence level %v: want a number between 0 and 1", o.Level)
	}
	if o.Resamples == 0 {
		o.Resamples = 10_000
	}
	if o.Points == 0 {
		o.Points = 300
	}
	if o.Points < 2 {
		return o, fmt.Errorf("%d points per curve: want at least 2", o.Points)
	}
	if o.MaxSeriesRuns == 0 {
		o.MaxSeriesRuns = 12
	}
	series := make([]compare.AxisValue, len(o.Series))
	for i, kv := range o.Series {
		kv.Axis = col(kv.Axis)
		if !slices.Contains(c.Axes, kv.Axis) {
			return o, fmt.Errorf("series %s=%s: %q is not an axis of the campaign (axes: %s)", kv.Axis, kv.Value, kv.Axis, strings.Join(c.Axes, ", "))
		}
		if !slices.Contains(c.Values(kv.Axis), kv.Value) {
			return o, fmt.Errorf("series %s=%s: the campaign has no such run (values: %s)", kv.Axis, kv.Value, strings.Join(c.Values(kv.Axis), ", "))
		}
		series[i] = kv
	}
	if o.Series != nil {
		o.Series = series
	}
	return o, nil
}

// build reads the campaign and lays out the page.
func build(dir string, opts Options) (*page, error) {
	c, err := compare.Load(dir)
	if err != nil {
		return nil, &InputError{err}
	}
	if len(c.Runs) == 0 {
		return nil, badInput("%s: the campaign has no run", filepath.Join(dir, results.RunsFile))
	}
	runsPath := filepath.Join(dir, results.RunsFile)
	opts, err = opts.normalised(c)
	if err != nil {
		return nil, &InputError{fmt.Errorf("%s: %w", runsPath, err)}
	}
	cols, rows, _, err := results.ReadTable(runsPath)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	raw := rawRuns{path: runsPath, cols: cols, rows: rows}

	var res []*compare.Result
	for _, m := range opts.Metrics {
		r, err := compare.Compare(c, compare.Options{Metric: m, Axis: opts.Axis, Baseline: opts.Baseline, By: opts.By,
			Level: opts.Level, Resamples: opts.Resamples, Seed: opts.Seed})
		if err != nil {
			return nil, &InputError{fmt.Errorf("%s: %w", runsPath, err)}
		}
		res = append(res, r)
	}
	b := &builder{c: c, opts: opts, res: res, raw: raw, values: c.Values(opts.Axis)}
	b.colours = valueColours(b.values)
	for _, r := range c.Runs {
		b.replicates = max(b.replicates, r.Replicate+1)
	}
	name := c.Meta["campaign.name"]
	pg := &page{Title: opts.Title}
	if pg.Title == "" {
		pg.Title = "Campaign report: " + cmp.Or(name, filepath.Base(filepath.Clean(dir)))
	}
	pg.Subtitle = fmt.Sprintf("%s — %d runs; %s compared against %s=%s", filepath.Clean(dir), len(c.Runs),
		strings.Join(opts.Metrics, ", "), opts.Axis, opts.Baseline)
	for _, f := range []func() (section, error){b.overview, b.comparisons, b.parameters, b.replicateSection, b.jobs, b.grid, b.series, b.provenance} {
		s, err := f()
		if err != nil {
			return nil, err
		}
		if len(s.Blocks) > 0 {
			pg.Sections = append(pg.Sections, s)
		}
	}
	pg.Footer = fmt.Sprintf("Written by schedlab report from %s: campaign %s, seed %s, run by schedlab %s (commit %s%s), %s. "+
		"Figures and tables are rebuilt identically by the same command on the same folder.",
		filepath.Join(filepath.Clean(dir), results.RunsFile), cmp.Or(name, "?"), cmp.Or(c.Meta["campaign.seed"], "?"),
		cmp.Or(c.Meta["schedlab.version"], "?"), cmp.Or(c.Meta["vcs.revision"], "unknown"), modified(c.Meta["vcs.modified"]),
		cmp.Or(c.Meta["go.version"], "Go ?"))
	return pg, nil
}

// builder holds what the sections are built from.
type builder struct {
	c          *compare.Campaign
	opts       Options
	res        []*compare.Result
	raw        rawRuns
	values     []string // of the compared axis, in matrix order
	colours    map[string]color.RGBA
	replicates int
}

// position is the place of a value of the compared axis in matrix order:
// where plots put it along their axis, and the order of their legends.
func (b *builder) position(value string) int { return slices.Index(b.values, value) }

// colourOf is the colour of a value of the compared axis, the same in every
// plot of the report and, as it derives from the value (a policy's name)
// and not from its position, in every report (valueColours).
func (b *builder) colourOf(value string) color.RGBA {
	if c, ok := b.colours[value]; ok {
		return c
	}
	return colour(0)
}

// valueColours gives each value its colour: the entry of valuePalette that
// its name's FNV-1a hash picks, so that a policy keeps its colour from
// report to report whatever else the report holds. Values whose entries
// collide take, in the order of their names, the next free entries, so
// that no two values of one report share a colour while the palette lasts;
// only a value that collides with another of the report then changes
// colour.
func valueColours(values []string) map[string]color.RGBA {
	pal := valuePalette()
	out := make(map[string]color.RGBA, len(values))
	taken := make([]bool, len(pal))
	sorted := slices.Sorted(slices.Values(values))
	for i, v := range sorted {
		if _, dup := out[v]; dup {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(v))
		k := int(h.Sum32() % uint32(len(pal)))
		if i < len(pal) {
			for taken[k] {
				k = (k + 1) % len(pal)
			}
		}
		taken[k] = true
		out[v] = pal[k]
	}
	return out
}

func (b *builder) overview() (section, error) {
	s := section{ID: "overview", Title: "Overview"}
	c := b.c
	count := map[string]int{}
	for _, r := range c.Runs {
		count[r.Status]++
	}
	groups := "in groups by " + groupAxes(b.res[0].By)
	if len(b.res[0].By) == 0 {
		groups = "in one group of all runs (no grouping axis: runs are paired across every other axis and the replicate)"
	}
	s.Blocks = append(s.Blocks, block{Para: fmt.Sprintf("The campaign %q has %d runs: %d completed, %d failed, %d not run. "+
		"Its matrix axes are %s. This report compares the values of %s (%s) against the baseline %s=%s, %s.",
		c.Meta["campaign.name"], len(c.Runs), count["ok"], count["failed"], count["pending"], strings.Join(c.Axes, ", "),
		b.opts.Axis, strings.Join(b.values, ", "), b.opts.Axis, b.opts.Baseline, groups)})
	s.Blocks = append(s.Blocks, block{Table: b.valuesTable()})
	if b.replicates > 1 {
		s.Blocks = append(s.Blocks, block{Para: fmt.Sprintf("Every combination of axis values ran %d replicates, with different seeds. "+
			"Runs are paired with the baseline run of the same replicate and other axes (hence the same workload seed), so the "+
			"confidence intervals and tests below rest on the paired differences across replicates.", b.replicates)})
	} else {
		s.Blocks = append(s.Blocks, block{Note: "Each combination of axis values ran once (one replicate). A run on a trace " +
			"is deterministic: running it again gives the same records, so there is no spread to estimate and no " +
			"interval or test to compute. The tables and plots show the per-run values and their differences; a " +
			"campaign with replicates = N and a policy that uses its seed (or a generated workload) gets intervals."})
	}
	var bad []tableRow
	for _, r := range c.Runs {
		if r.Status != "ok" {
			bad = append(bad, tableRow{Cells: []string{r.Label, r.Status, b.raw.text(r.Key, "error")}})
		}
	}
	if len(bad) > 0 {
		s.Blocks = append(s.Blocks, block{Table: &table{Caption: "Runs that did not complete (left out of every statistic)",
			Head: []string{"run", "status", "error"}, Class: []string{"", "", "wrap"}, Rows: bad}})
	}
	return s, nil
}

// valuesTable lists the values of the compared axis, each with its colour
// in the plots and, for policies, what runs it: its reference and its
// parameters, which tell apart two policies of one plugin (a variant of
// EASY is otherwise a second row like EASY's).
func (b *builder) valuesTable() *table {
	axis := b.opts.Axis
	t := &table{Caption: fmt.Sprintf("The values of %s compared, each with its colour in the plots (a colour follows the value's name, "+
		"the same in every report); the baseline's row is highlighted", axis), Head: []string{axis}, Class: []string{""}, Keys: 1}
	policies := axis == "policy" && b.raw.col("policy") >= 0
	if policies {
		t.Head = append(t.Head, "ref", "parameters")
		t.Class = append(t.Class, "wrap", "wrap")
	}
	t.Head = append(t.Head, "runs")
	t.Class = append(t.Class, "n")
	for _, v := range b.values {
		row := tableRow{Mark: v == b.opts.Baseline, Swatch: template.CSS("background-color: " + hexColour(b.colourOf(v)))}
		row.Cells = append(row.Cells, v)
		runs := 0
		for _, r := range b.c.Runs {
			if r.Axes[axis] == v {
				runs++
			}
		}
		if policies {
			row.Cells = append(row.Cells, strings.Join(b.raw.values("policy", v, "policy_ref", cell), "; "),
				strings.Join(b.raw.values("policy", v, "params", paramsText), "; "))
		}
		row.Cells = append(row.Cells, strconv.Itoa(runs))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// paramsText writes a params cell of runs.parquet (JSON) as k=v pairs in
// key order, or "defaults" when it sets none.
func paramsText(v any) string {
	s, _ := v.(string)
	var m map[string]string
	if json.Unmarshal([]byte(s), &m) != nil {
		return s
	}
	if len(m) == 0 {
		return "defaults"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, " ")
}

// plural says "1 run" or "3 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func modified(v string) string {
	if v == "true" {
		return ", with uncommitted changes"
	}
	return ""
}

func groupAxes(by []string) string {
	if len(by) == 0 {
		return "no grouping axis, so all runs form one group"
	}
	return strings.Join(by, ", ")
}

func groupName(key []compare.AxisValue) string {
	if len(key) == 0 {
		return "all runs"
	}
	parts := make([]string, len(key))
	for i, kv := range key {
		parts[i] = kv.Axis + "=" + kv.Value
	}
	return strings.Join(parts, ", ")
}

func (b *builder) comparisons() (section, error) {
	s := section{ID: "comparisons", Title: "Comparisons"}
	for _, res := range b.res {
		s.Blocks = append(s.Blocks, block{Heading: res.Metric}, block{Para: res.Method()})
		s.Blocks = append(s.Blocks, block{Table: compareTable(res)})
		fig, err := b.metricFigure(res)
		if err != nil {
			return s, err
		}
		s.Blocks = append(s.Blocks, block{Figure: fig})
		ratio, err := b.ratioFigure(res)
		if err != nil {
			return s, err
		}
		if ratio != nil {
			s.Blocks = append(s.Blocks, block{Figure: ratio})
		}
		if res.Skipped > 0 {
			s.Blocks = append(s.Blocks, block{Note: fmt.Sprintf("%s left out: not completed, or without %s.", plural(res.Skipped, "run"), res.Metric)})
		}
	}
	return s, nil
}

// compareTable is the comparison's flat table (compare.Result.Table, the
// CSV and Parquet output of schedlab compare) made to fit a page: each
// interval's _lo and _hi columns become one "[lo, hi]" column, the pair
// counts one better/worse/tied column, and all-empty columns go (with one
// replicate most interval and test columns are NULL).
func compareTable(res *compare.Result) *table {
	t := res.Table()
	level := fmt.Sprintf("%g%%", 100*res.Level)
	intervals := map[string]string{
		"ci_lo": "mean " + level + " CI (t)", "boot_lo": "mean " + level + " CI (boot)",
		"diff_lo": "diff " + level + " CI (t)", "diff_boot_lo": "diff " + level + " CI (boot)",
		"ratio_lo": "ratio " + level + " CI (boot)",
	}
	type column struct {
		head, class string
		cells       []string
	}
	var cols []column
	base := -1
	get := func(row []any, i int) string { return cell(row[i]) }
	for i := 0; i < len(t.Columns); i++ {
		name := t.Columns[i].Name
		col := column{head: name, class: kindClass(t.Columns[i].Kind)}
		switch {
		case name == "baseline":
			base = i
			continue // shown by highlighting the row
		case intervals[name] != "" && i+1 < len(t.Columns):
			col.head = intervals[name]
			lo, hi := i, i+1
			i++
			for _, r := range t.Rows {
				c := ""
				if r[lo] != nil && r[hi] != nil {
					c = "[" + get(r, lo) + ", " + get(r, hi) + "]"
				}
				col.cells = append(col.cells, c)
			}
		case name == "better" && i+2 < len(t.Columns):
			col.head = "better/worse/tied"
			for _, r := range t.Rows {
				c := ""
				if r[i] != nil {
					c = get(r, i) + "/" + get(r, i+1) + "/" + get(r, i+2)
				}
				col.cells = append(col.cells, c)
			}
			i += 2
		case name == "test":
			col.head = "Wilcoxon"
			for _, r := range t.Rows {
				col.cells = append(col.cells, strings.TrimPrefix(get(r, i), "wilcoxon signed-rank, "))
			}
		default:
			for _, r := range t.Rows {
				col.cells = append(col.cells, get(r, i))
			}
		}
		if slices.ContainsFunc(col.cells, func(c string) bool { return c != "" }) {
			cols = append(cols, col)
		}
	}
	out := &table{Caption: fmt.Sprintf("%s: one row per group and %s; the baseline's rows are highlighted. The columns are "+
		"those of `schedlab compare --format csv`, with each interval's _lo and _hi in one cell.", res.Metric, res.Axis)}
	for _, c := range cols {
		out.Head = append(out.Head, c.head)
		out.Class = append(out.Class, c.class)
	}
	// The group's axes and the compared value identify a row.
	out.Keys = len(res.By) + 1
	for k, r := range t.Rows {
		row := tableRow{Mark: base >= 0 && r[base] == true}
		for _, c := range cols {
			row.Cells = append(row.Cells, c.cells[k])
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// cell formats a table value: 4 significant digits, whole numbers from
// 1000 on without exponent (as schedlab compare prints them).
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return num(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case string:
		return x
	}
	return fmt.Sprint(v)
}

func num(x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case math.Abs(x) >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func (b *builder) parameters() (section, error) {
	s := section{ID: "parameters", Title: "Metrics against numeric parameters"}
	for _, p := range numericParams(b.c) {
		for _, res := range b.res {
			fig, err := b.paramFigure(res.Metric, p)
			if err != nil {
				return s, err
			}
			s.Blocks = append(s.Blocks, block{Figure: fig})
		}
	}
	return s, nil
}

// numericParams lists the parameter axes whose values are all numbers,
// and more than one.
func numericParams(c *compare.Campaign) []string {
	var out []string
	for _, a := range c.Axes {
		if !strings.HasPrefix(a, "param_") {
			continue
		}
		// An empty value is a run that leaves the parameter unset (a
		// policy without it, added by an include entry), not a number.
		vals := slices.DeleteFunc(c.Values(a), func(v string) bool { return v == "" })
		numeric := len(vals) > 1
		for _, v := range vals {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				numeric = false
			}
		}
		if numeric {
			out = append(out, a)
		}
	}
	return out
}

func (b *builder) replicateSection() (section, error) {
	s := section{ID: "replicates", Title: "Spread over replicates"}
	if b.replicates < 2 {
		s.Blocks = append(s.Blocks, block{Note: "No box plots: the runs are deterministic single replicates " +
			"(replicates = 1), so each box would be a single value. Set replicates = N in the manifest's [campaign] " +
			"table, with a policy that uses its seed or a generated workload, to see the spread."})
		return s, nil
	}
	for _, res := range b.res {
		fig, err := b.boxFigure(res)
		if err != nil {
			return s, err
		}
		s.Blocks = append(s.Blocks, block{Figure: fig})
	}
	return s, nil
}

func (b *builder) jobs() (section, error) {
	s := section{ID: "jobs", Title: "Job-level distributions"}
	res := b.res[0]
	views, err := compare.Jobs(b.c, res)
	if err != nil {
		return s, fmt.Errorf("report: job-level views of %s: %w", b.c.Dir, err)
	}
	if len(views) == 0 {
		return s, nil
	}
	s.Blocks = append(s.Blocks, block{Para: fmt.Sprintf("Every job of the completed runs, pooled per group and value of %s "+
		"(over replicates and the axes outside the group). Bounded slowdown is max(1, (wait + runtime) / max(runtime, τ)) "+
		"with the campaign's floor τ = %s s. The maxima are the longest wait and largest slowdown of any job, where "+
		"starvation shows that quantiles up to the 99th hide. The last columns count the jobs that waited less or more "+
		"than in the paired baseline run.", b.opts.Axis, cmp.Or(b.c.Meta["metrics.bsld_tau"], "?"))})
	t := &table{Caption: "Quantiles and maxima of job wait (s) and bounded slowdown per group and value; the baseline's rows are highlighted",
		Head: append(slices.Clone(res.By), b.opts.Axis, "runs", "jobs"), Keys: len(res.By) + 1}
	for _, p := range views[0].Probs {
		t.Head = append(t.Head, fmt.Sprintf("wait p%g", 100*p))
	}
	t.Head = append(t.Head, "wait max")
	for _, p := range views[0].Probs {
		t.Head = append(t.Head, fmt.Sprintf("bsld p%g", 100*p))
	}
	t.Head = append(t.Head, "bsld max")
	t.Head = append(t.Head, "waits less than "+b.opts.Baseline, "waits more")
	for i := range t.Head {
		t.Class = append(t.Class, "")
		if i > len(res.By) {
			t.Class[i] = "n"
		}
	}
	for _, v := range views {
		row := tableRow{Mark: v.Value == b.opts.Baseline}
		for _, kv := range v.Group {
			row.Cells = append(row.Cells, kv.Value)
		}
		row.Cells = append(row.Cells, v.Value, strconv.Itoa(v.Runs), strconv.Itoa(v.Jobs))
		for _, q := range slices.Concat(v.WaitQ, []float64{v.WaitMax}, v.BSLDQ, []float64{v.BSLDMax}) {
			row.Cells = append(row.Cells, num(q))
		}
		if n := v.Improved + v.Worsened + v.Unchanged; n > 0 {
			row.Cells = append(row.Cells, fmt.Sprintf("%.1f%%", 100*float64(v.Improved)/float64(n)),
				fmt.Sprintf("%.1f%%", 100*float64(v.Worsened)/float64(n)))
		} else {
			row.Cells = append(row.Cells, "", "")
		}
		t.Rows = append(t.Rows, row)
	}
	s.Blocks = append(s.Blocks, block{Table: t})
	for _, kind := range []string{"wait", "bsld"} {
		fig, err := b.ecdfFigure(views, kind)
		if err != nil {
			return s, err
		}
		s.Blocks = append(s.Blocks, block{Figure: fig})
	}
	return s, nil
}

func (b *builder) series() (section, error) {
	s := section{ID: "timeseries", Title: "Utilisation and queue over time"}
	sel := b.opts.Series
	if sel == nil && len(b.res[0].Groups) > 0 {
		sel = b.res[0].Groups[0].Key
	}
	var runs []compare.Run
	for _, r := range b.c.Runs {
		if r.Status == "ok" && matches(r, sel) {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return s, badInput("%s: series %s: no completed run has these axis values", b.raw.path, groupName(sel))
	}
	byValue := func(x, y compare.Run) int {
		return cmp.Compare(b.position(x.Axes[b.opts.Axis]), b.position(y.Axes[b.opts.Axis]))
	}
	byReplicate := func(x, y compare.Run) int { return cmp.Compare(x.Replicate, y.Replicate) }
	if len(runs) > b.opts.MaxSeriesRuns {
		// Keep the lowest replicates of every value rather than every
		// replicate of the first values, so that no value goes missing.
		slices.SortStableFunc(runs, func(x, y compare.Run) int { return cmp.Or(byReplicate(x, y), byValue(x, y)) })
		s.Blocks = append(s.Blocks, block{Note: fmt.Sprintf("The group has %d completed runs; %d are plotted, "+
			"the lowest replicates of each value of %s.", len(runs), b.opts.MaxSeriesRuns, b.opts.Axis)})
		runs = runs[:b.opts.MaxSeriesRuns]
	}
	// Values of the compared axis in matrix order, then replicates.
	slices.SortStableFunc(runs, func(x, y compare.Run) int { return cmp.Or(byValue(x, y), byReplicate(x, y)) })
	figs, err := b.seriesFigures(sel, runs)
	if err != nil {
		return s, err
	}
	for _, f := range figs {
		s.Blocks = append(s.Blocks, block{Figure: f})
	}
	return s, nil
}

// matches says whether a run has the selected axis values. A run that
// leaves an axis unset (empty) matches any value of it, as package compare
// pairs such a baseline run with every group.
func matches(r compare.Run, sel []compare.AxisValue) bool {
	for _, kv := range sel {
		if v := r.Axes[kv.Axis]; v != kv.Value && v != "" {
			return false
		}
	}
	return true
}

// provenanceKeys come first in the provenance table, in this order; the
// other footer keys follow sorted.
func provenanceKeys() []string {
	return []string{"campaign.name", "campaign.seed", "schedlab.version", "sdk.version", "vcs.revision", "vcs.modified",
		"vcs.source", "go.version", "os_arch", "host", "written_time", "metrics.bsld_tau", "metrics.warmup_jobs",
		"metrics.cooldown_jobs", "campaign.axes", "campaign.runs", "campaign.ok", "campaign.failed", "campaign.pending"}
}

func (b *builder) provenance() (section, error) {
	s := section{ID: "provenance", Title: "Provenance"}
	s.Blocks = append(s.Blocks, block{Para: fmt.Sprintf("From the footer of %s, written by the schedlab that ran the "+
		"campaign; the lock file manifest.lock.toml next to it holds the manifest fully resolved, and `schedlab rerun` "+
		"executes it again.", b.raw.path)})
	meta := b.c.Meta
	keys := provenanceKeys()
	t := &table{Caption: "Build and campaign provenance (runs.parquet footer)", Head: []string{"key", "value"}, Class: []string{"", "wrap"}}
	for _, k := range keys {
		if v, ok := meta[k]; ok {
			t.Rows = append(t.Rows, tableRow{Cells: []string{k, v}})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		if !slices.Contains(keys, k) {
			t.Rows = append(t.Rows, tableRow{Cells: []string{k, meta[k]}})
		}
	}
	s.Blocks = append(s.Blocks, block{Table: t})
	s.Blocks = append(s.Blocks, block{Table: b.raw.distinct("Policies as resolved (one row per policy, parameters and plugin binary)",
		[]string{"policy", "params", "policy_ref", "policy_kind", "policy_name", "policy_version", "policy_sdk_version", "policy_sha256"})})
	s.Blocks = append(s.Blocks, block{Table: b.raw.distinct("Workloads and platforms",
		[]string{"workload", "platform", "workload_sha256", "workload_jobs", "procs"})})
	return s, nil
}

// kindClass is the CSS class of a column of the given kind.
func kindClass(k results.Kind) string {
	if k == results.Int64 || k == results.Float64 {
		return "n"
	}
	return ""
}

// rawRuns is runs.parquet as read, for the string columns package compare
// does not keep (errors, plugin hashes).
type rawRuns struct {
	path string
	cols []results.Column
	rows [][]any
}

func (r rawRuns) col(name string) int {
	return slices.IndexFunc(r.cols, func(c results.Column) bool { return c.Name == name })
}

// text is a column's value in the row of the run with the given key.
func (r rawRuns) text(key, column string) string {
	k, i := r.col("run_key"), r.col(column)
	if k < 0 || i < 0 {
		return ""
	}
	for _, row := range r.rows {
		if row[k] == key {
			return cell(row[i])
		}
	}
	return ""
}

// values returns the distinct values of a column, formatted, over the rows
// whose column key holds want, in order of first appearance.
func (r rawRuns) values(key string, want any, column string, format func(any) string) []string {
	k, i := r.col(key), r.col(column)
	if k < 0 || i < 0 {
		return nil
	}
	var out []string
	for _, row := range r.rows {
		if row[k] == want {
			if v := format(row[i]); !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// distinct tabulates the distinct combinations of the given columns (those
// the file has) with the number of runs of each, in order of first
// appearance.
func (r rawRuns) distinct(caption string, columns []string) *table {
	t := &table{Caption: caption}
	var idx []int
	for _, c := range columns {
		if i := r.col(c); i >= 0 {
			idx = append(idx, i)
			t.Head = append(t.Head, c)
			if strings.HasSuffix(c, "sha256") {
				t.Class = append(t.Class, "hash")
			} else {
				t.Class = append(t.Class, kindClass(r.cols[i].Kind))
			}
		}
	}
	t.Head = append(t.Head, "runs")
	t.Class = append(t.Class, "n")
	count := map[string]int{}
	var order []string
	cells := map[string][]string{}
	for _, row := range r.rows {
		var cs []string
		for _, i := range idx {
			cs = append(cs, cell(row[i]))
		}
		k := strings.Join(cs, "\x00")
		if count[k] == 0 {
			order = append(order, k)
			cells[k] = cs
		}
		count[k]++
	}
	for _, k := range order {
		t.Rows = append(t.Rows, tableRow{Cells: append(cells[k], strconv.Itoa(count[k]))})
	}
	return t
}
