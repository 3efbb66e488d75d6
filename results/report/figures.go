package report

import (
	"cmp"
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/compare"
	"github.com/schedlab/schedlab/results/series"
	"github.com/schedlab/schedlab/results/stats"
)

// logRatio is the spread (largest over smallest value) from which a
// metric's axis goes logarithmic: FCFS waits are often 50 times EASY's, and
// on a linear axis the good policies would sit indistinguishably at zero.
const logRatio = 30

// figureID makes an HTML id from a title.
func figureID(parts ...string) string {
	var b strings.Builder
	b.WriteString("fig")
	for _, p := range parts {
		b.WriteByte('-')
		for _, r := range strings.ToLower(p) {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
	}
	return b.String()
}

// metricFigure shows the metric per value of the compared axis, one panel
// per group: the mean over the value's runs with its Student t interval,
// and a dashed line at the baseline's mean.
func (b *builder) metricFigure(res *compare.Result) (*figure, error) {
	title := fmt.Sprintf("%s by %s", res.Metric, res.Axis)
	var panels []*plot.Plot
	anyCI := false
	names, common := panelNames(groupKeys(res))
	for gi, g := range res.Groups {
		p := newPlot(names[gi], res.Axis, metricLabel(res.Metric))
		p.NominalX(b.values...)
		p.X.Tick.Label.Font = sansFont(8.5, false)
		var all []float64
		for _, lv := range g.Levels {
			s := lv.Summary
			all = append(all, s.Mean)
			if finite(s.CI.Lo) && finite(s.CI.Hi) {
				all = append(all, s.CI.Lo, s.CI.Hi)
				anyCI = anyCI || s.CI.Hi > s.CI.Lo
			}
		}
		logY := useLog(meansOf(g.Levels), logRatio)
		lo, hi := minMax(all)
		var ys scale
		if logY {
			lo = minPositive(all)
			ys = logScale(lo, hi)
		}
		baseY := math.NaN()
		for _, lv := range g.Levels {
			if lv.Value != res.Baseline {
				continue
			}
			m := ys.at(lv.Summary.Mean)
			baseY = m
			ref, err := line(plotter.XYs{{X: -0.5, Y: m}, {X: float64(len(b.values)) - 0.5, Y: m}},
				b.colourOf(lv.Value), 1)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", title, err)
			}
			ref.Dashes = []vg.Length{4, 3}
			p.Add(ref)
		}
		// Each value's label goes on the side of its point away from the
		// baseline's dashed line, which so never runs through a label.
		var above, below plotter.XYLabels
		for _, lv := range g.Levels {
			x := float64(b.position(lv.Value))
			s := lv.Summary
			c := b.colourOf(lv.Value)
			m := ys.at(s.Mean)
			if finite(s.CI.Lo) && finite(s.CI.Hi) && s.CI.Hi > s.CI.Lo {
				eb, err := plotter.NewYErrorBars(errPoints{plotter.XYs{{X: x, Y: m}}, plotter.YErrors{{Low: m - ys.at(s.CI.Lo), High: ys.at(s.CI.Hi) - m}}})
				if err != nil {
					return nil, fmt.Errorf("figure %s: %w", title, err)
				}
				eb.LineStyle = draw.LineStyle{Color: c, Width: 1.5}
				eb.CapWidth = 8
				p.Add(eb)
			}
			sc, err := scatter(plotter.XYs{{X: x, Y: m}}, c, draw.CircleGlyph{}, 4)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", title, err)
			}
			p.Add(sc)
			side := &above
			if m < baseY {
				side = &below
			}
			side.XYs = append(side.XYs, plotter.XY{X: x, Y: m})
			side.Labels = append(side.Labels, human(s.Mean))
		}
		if err := addLabels(p, above, true); err != nil {
			return nil, fmt.Errorf("figure %s: %w", title, err)
		}
		if err := addLabels(p, below, false); err != nil {
			return nil, fmt.Errorf("figure %s: %w", title, err)
		}
		p.X.Min, p.X.Max = -0.5, float64(len(b.values))-0.5
		if logY {
			setLogY(p, lo, hi)
		} else {
			zeroBased(p, lo, hi)
		}
		panels = append(panels, p)
	}
	svg, err := tiles(title, panels, 2, tileW, tileH)
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("%s per value of %s (the mean over the value's runs in the group), one panel per group (%s)%s; "+
		"the dashed line is the baseline %s. ", res.Metric, res.Axis, groupAxes(res.By), common, res.Baseline)
	if anyCI {
		caption += fmt.Sprintf("Error bars are %.0f%% Student t intervals of the mean over the runs of each value.", 100*res.Level)
	} else {
		caption += "Each point is a single run (or runs with identical values): there is no interval to draw."
	}
	if strings.Contains(string(svg), "(log scale)") {
		caption += " Panels whose values span more than a factor of 30 use a log scale."
	}
	return &figure{ID: figureID("metric", res.Metric), Title: title, Caption: caption, SVG: svg}, nil
}

// labelSize is the font size of value labels, that of the tick labels: at
// the width the report is read (1280 px) it renders above 10 px.
const labelSize = 8.5

// addLabels writes each label beside its point, to the right and above it
// (or below), clear of the point's glyph.
func addLabels(p *plot.Plot, l plotter.XYLabels, above bool) error {
	if len(l.Labels) == 0 {
		return nil
	}
	lab, err := plotter.NewLabels(l)
	if err != nil {
		return err
	}
	y, dy := draw.YBottom, vg.Length(3)
	if !above {
		y, dy = draw.YTop, -3
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i] = text.Style{Color: fadedInk(), Font: sansFont(labelSize, false), XAlign: draw.XLeft, YAlign: y,
			Handler: plot.DefaultTextHandler}
	}
	lab.Offset = vg.Point{X: 3, Y: dy}
	p.Add(lab)
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func meansOf(lvs []compare.Level) []float64 {
	var out []float64
	for _, lv := range lvs {
		out = append(out, lv.Summary.Mean)
	}
	return out
}

func minMax(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		if finite(x) {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	return lo, hi
}

func minPositive(xs []float64) float64 {
	lo := math.Inf(1)
	for _, x := range xs {
		if finite(x) && x > 0 {
			lo = min(lo, x)
		}
	}
	return lo
}

// zeroBased makes a linear y axis start at zero for non-negative data, so
// that bar heights compare as ratios, and leaves headroom for labels.
func zeroBased(p *plot.Plot, lo, hi float64) {
	if !finite(lo) || !finite(hi) {
		return
	}
	if lo >= 0 {
		p.Y.Min = 0
	} else {
		p.Y.Min = lo - 0.08*(hi-lo)
	}
	p.Y.Max = hi + 0.08*(hi-math.Min(lo, 0))
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min + 1
	}
}

// paramFigure draws the metric against a numeric parameter axis: one panel
// per combination of the other axes, one line per value of the compared
// axis (or a single line when the parameter is the compared axis), the
// mean over replicates with a band for its Student t interval.
func (b *builder) paramFigure(metric, param string) (*figure, error) {
	name := strings.TrimPrefix(param, "param_")
	title := fmt.Sprintf("%s against %s", metric, name)
	lineAxis := b.opts.Axis
	if lineAxis == param {
		lineAxis = ""
	}
	type cellKey struct{ panel, line string }
	var panels []string
	panelKeys := map[string][]compare.AxisValue{}
	cells := map[cellKey]map[float64][]float64{}
	// A run that leaves the parameter unset (a policy without it, such as
	// FCFS in a sweep of a backfilling threshold) is drawn as a level line
	// across the sweep: the reference the other lines are read against.
	unset := map[cellKey][]float64{}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, v := range b.c.Values(param) {
		if x, err := strconv.ParseFloat(v, 64); err == nil {
			xmin, xmax = min(xmin, x), max(xmax, x)
		}
	}
	for _, r := range b.c.Runs {
		v, ok := r.Values[metric]
		if r.Status != "ok" || !ok || math.IsNaN(v) {
			continue
		}
		x, err := strconv.ParseFloat(r.Axes[param], 64)
		if err != nil && (r.Axes[param] != "" || lineAxis == "") {
			continue
		}
		var key []compare.AxisValue
		for _, a := range b.c.Axes {
			if a != param && a != lineAxis {
				key = append(key, compare.AxisValue{Axis: a, Value: r.Axes[a]})
			}
		}
		pk := groupName(key)
		if _, ok := panelKeys[pk]; !ok {
			panels = append(panels, pk)
			panelKeys[pk] = key
		}
		ck := cellKey{pk, r.Axes[lineAxis]}
		if err != nil {
			unset[ck] = append(unset[ck], v)
			continue
		}
		if cells[ck] == nil {
			cells[ck] = map[float64][]float64{}
		}
		cells[ck][x] = append(cells[ck][x], v)
	}
	lines := []string{""}
	if lineAxis != "" {
		lines = b.values
	}
	// Ticks at the parameter's values, when they are few enough to label,
	// say where the runs are.
	var ticks plot.ConstantTicks
	if vals := b.c.Values(param); len(vals) <= 12 {
		for _, v := range vals {
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				ticks = append(ticks, plot.Tick{Value: x, Label: human(x)})
			}
		}
	}
	var plots []*plot.Plot
	band, flat := false, false
	for _, pk := range panels {
		p := newPlot(pk, name, metricLabel(metric))
		var means, bounds []float64
		type series struct {
			line     string
			xs       []float64
			mean     []float64
			low, top []float64
			flat     bool // the level of runs without the parameter
		}
		var ss []series
		for _, l := range lines {
			if vs := unset[cellKey{pk, l}]; len(vs) > 0 {
				d := stats.Describe(vs, b.opts.Level)
				ss = append(ss, series{line: l, flat: true, xs: []float64{xmin, xmax}, mean: []float64{d.Mean, d.Mean},
					low: []float64{d.CI.Lo, d.CI.Lo}, top: []float64{d.CI.Hi, d.CI.Hi}})
				means = append(means, d.Mean)
				if finite(d.CI.Lo) {
					bounds = append(bounds, d.CI.Lo, d.CI.Hi)
				}
			}
			byX := cells[cellKey{pk, l}]
			if len(byX) == 0 {
				continue
			}
			s := series{line: l}
			for _, x := range slices.Sorted(maps.Keys(byX)) {
				d := stats.Describe(byX[x], b.opts.Level)
				s.xs = append(s.xs, x)
				s.mean = append(s.mean, d.Mean)
				s.low = append(s.low, d.CI.Lo)
				s.top = append(s.top, d.CI.Hi)
				means = append(means, d.Mean)
				if finite(d.CI.Lo) {
					bounds = append(bounds, d.CI.Lo, d.CI.Hi)
				}
			}
			ss = append(ss, s)
		}
		logY := useLog(means, logRatio)
		lo, hi := minMax(append(slices.Clone(means), bounds...))
		var ys scale
		if logY {
			// Bands reaching below the smallest mean are cut at the
			// axis rather than stretching it down by decades.
			lo = minPositive(means)
			ys = logScale(lo, hi)
		}
		for _, s := range ss {
			c := b.colourOf(s.line)
			if lineAxis == "" {
				c = colour(0)
			}
			var poly plotter.XYs
			for i := range s.xs {
				if finite(s.low[i]) && s.top[i] > s.low[i] {
					poly = append(poly, plotter.XY{X: s.xs[i], Y: ys.at(s.top[i])})
				}
			}
			for i := len(s.xs) - 1; i >= 0; i-- {
				if finite(s.low[i]) && s.top[i] > s.low[i] {
					poly = append(poly, plotter.XY{X: s.xs[i], Y: ys.at(s.low[i])})
				}
			}
			if len(poly) >= 4 {
				pg, err := plotter.NewPolygon(poly)
				if err != nil {
					return nil, fmt.Errorf("figure %s: %w", title, err)
				}
				pg.Color = translucent(c, 0x38)
				pg.LineStyle.Width = 0
				p.Add(pg)
				band = true
			}
			var xys plotter.XYs
			for i := range s.xs {
				xys = append(xys, plotter.XY{X: s.xs[i], Y: ys.at(s.mean[i])})
			}
			l, err := line(xys, c, 1.6)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", title, err)
			}
			if s.flat {
				l.Dashes = []vg.Length{5, 3}
				p.Add(l)
				p.Legend.Add(s.line+" (no "+name+")", l)
				flat = true
				continue
			}
			sc, err := scatter(xys, c, draw.CircleGlyph{}, 2.5)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", title, err)
			}
			p.Add(l, sc)
			if lineAxis != "" {
				p.Legend.Add(s.line, l, sc)
			}
		}
		p.Legend.Top = true
		if len(ticks) > 0 {
			p.X.Tick.Marker = ticks
		}
		if logY {
			setLogY(p, lo, hi)
		} else {
			zeroBased(p, lo, hi)
		}
		plots = append(plots, p)
	}
	svg, err := tiles(title, plots, 2, tileW, tileH)
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("%s (the mean over the replicates of each point) against the numeric policy parameter %s", metric, name)
	if lineAxis != "" {
		caption += fmt.Sprintf(", one line per %s", lineAxis)
	}
	caption += ", one panel per combination of the other axes. "
	if flat {
		caption += fmt.Sprintf("Dashed level lines are the runs that do not set %s (a policy without the parameter), "+
			"drawn across the sweep for reference. ", name)
	}
	if band {
		caption += fmt.Sprintf("Bands are %.0f%% Student t intervals of the mean over replicates.", 100*b.opts.Level)
	} else {
		caption += "With a single replicate per point there is no band."
	}
	return &figure{ID: figureID("param", name, metric), Title: title, Caption: caption, SVG: svg}, nil
}

// boxFigure shows the runs of each value as a box plot per group, with the
// runs themselves as dots.
func (b *builder) boxFigure(res *compare.Result) (*figure, error) {
	title := fmt.Sprintf("%s over replicates", res.Metric)
	var panels []*plot.Plot
	names, common := panelNames(groupKeys(res))
	for gi, g := range res.Groups {
		p := newPlot(names[gi], res.Axis, metricLabel(res.Metric))
		p.NominalX(b.values...)
		p.X.Tick.Label.Font = sansFont(8.5, false)
		var all []float64
		for _, lv := range g.Levels {
			all = append(all, lv.Values...)
		}
		logY := useLog(all, logRatio)
		lo, hi := minMax(all)
		var ys scale
		if logY {
			ys = logScale(lo, hi)
		}
		for _, lv := range g.Levels {
			i := b.position(lv.Value)
			c := b.colourOf(lv.Value)
			// The quartiles of log values are the logs of the quartiles
			// (up to interpolation between two runs), so a box drawn from
			// the transformed values is the box of the values.
			vals := make(plotter.Values, len(lv.Values))
			for k, v := range lv.Values {
				vals[k] = ys.at(v)
			}
			if err := boxAndDots(p, float64(i), vals, c, c); err != nil {
				return nil, fmt.Errorf("figure %s: %w", title, err)
			}
		}
		p.X.Min, p.X.Max = -0.6, float64(len(b.values))-0.4
		if logY {
			setLogY(p, lo, hi)
		} else {
			// The spread is the point here: the axis fits the runs
			// rather than starting at zero.
			pad := math.Max(0.08*(hi-lo), 1e-9*math.Max(1, math.Abs(hi)))
			p.Y.Min, p.Y.Max = lo-pad, hi+pad
		}
		panels = append(panels, p)
	}
	svg, err := tiles(title, panels, 2, tileW, tileH)
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("%s of every run, per value of %s and group (%s)%s: boxes span the quartiles with the "+
		"median inside, whiskers reach the most extreme runs within 1.5 interquartile ranges (circles beyond); the dots beside "+
		"each box are the runs. The y axis fits the runs and does not start at zero.",
		res.Metric, res.Axis, groupAxes(res.By), common)
	return &figure{ID: figureID("box", res.Metric), Title: title, Caption: caption, SVG: svg}, nil
}

// ratioLog is the spread of per-pair ratios (together with 1, which the
// axis always shows) from which the ratio figure's axis goes logarithmic.
const ratioLog = 10

// ratioFigure shows, per group and value of the compared axis other than
// the baseline, the per-pair ratio value / baseline of the metric over the
// comparison's pairs (compare.Comparison.Pairs) as a box plot, with the
// pairs as dots beside it and a dashed line at 1. Pairs whose baseline is 0
// have no ratio and are left out, and counted in the caption. It returns
// nil, and no error, when no comparison has at least 2 pairs with a ratio:
// a box of one value says nothing the comparison table does not.
func (b *builder) ratioFigure(res *compare.Result) (*figure, error) {
	title := fmt.Sprintf("%s ratio to %s per pair", res.Metric, res.Baseline)
	type box struct {
		value  string
		ratios []float64
	}
	var keys [][]compare.AxisValue
	var groups [][]box
	skipped, total, most, fewest := 0, 0, 0, math.MaxInt
	for _, g := range res.Groups {
		var boxes []box
		for _, c := range g.Comparisons {
			rs, left := pairRatios(c)
			skipped += left
			if len(rs) == 0 {
				continue
			}
			boxes = append(boxes, box{c.Value, rs})
			total += len(rs)
			most, fewest = max(most, len(rs)), min(fewest, len(rs))
		}
		if len(boxes) > 0 {
			keys = append(keys, g.Key)
			groups = append(groups, boxes)
		}
	}
	if most < 2 {
		return nil, nil
	}
	// Every panel puts the compared values at the same places, in matrix
	// order, the baseline left out.
	var xs []string
	for _, v := range b.values {
		if v != res.Baseline {
			xs = append(xs, v)
		}
	}
	// One choice of axis for the figure, so that panels read alike.
	every := []float64{1}
	for _, boxes := range groups {
		for _, bx := range boxes {
			every = append(every, bx.ratios...)
		}
	}
	logY := useLog(every, ratioLog)
	names, common := panelNames(keys)
	var panels []*plot.Plot
	for gi, boxes := range groups {
		p := newPlot(names[gi], res.Axis, "ratio to "+res.Baseline)
		labels := slices.Clone(xs)
		all := []float64{1}
		for _, bx := range boxes {
			labels[slices.Index(xs, bx.value)] = fmt.Sprintf("%s\n%s", bx.value, plural(len(bx.ratios), "pair"))
			all = append(all, bx.ratios...)
		}
		p.NominalX(labels...)
		p.X.Tick.Label.Font = sansFont(8.5, false)
		lo, hi := minMax(all)
		var ys scale
		if logY {
			ys = logScale(lo, hi)
		}
		one, err := line(plotter.XYs{{X: -0.6, Y: ys.at(1)}, {X: float64(len(xs)) - 0.4, Y: ys.at(1)}}, fadedInk(), 1)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", title, err)
		}
		one.Dashes = []vg.Length{4, 3}
		p.Add(one)
		for _, bx := range boxes {
			x := float64(slices.Index(xs, bx.value))
			c := b.colourOf(bx.value)
			// As in boxFigure: on a log axis the box is drawn from the log
			// ratios.
			vals := make(plotter.Values, len(bx.ratios))
			for k, r := range bx.ratios {
				vals[k] = ys.at(r)
			}
			if err := boxAndDots(p, x, vals, c, c); err != nil {
				return nil, fmt.Errorf("figure %s: %w", title, err)
			}
		}
		p.X.Min, p.X.Max = -0.6, float64(len(xs))-0.4
		if logY {
			setLogY(p, lo, hi)
		} else {
			pad := math.Max(0.08*(hi-lo), 1e-9*math.Max(1, math.Abs(hi)))
			p.Y.Min, p.Y.Max = lo-pad, hi+pad
		}
		// The dashed line gets its label, whatever ticks the range has.
		p.Y.Tick.Marker = markedTicks{Ticker: p.Y.Tick.Marker, At: ys.at(1), Label: "1"}
		panels = append(panels, p)
	}
	svg, err := tiles(title, panels, 2, tileW, tileH)
	if err != nil {
		return nil, err
	}
	perBox := plural(most, "pair") + " per box"
	if fewest != most {
		perBox = fmt.Sprintf("%d to %d pairs per box", fewest, most)
	}
	better := "better"
	if !res.LowerIsBetter {
		better = "worse"
	}
	where := fmt.Sprintf("in each group (by %s)%s", groupAxes(res.By), common)
	if len(res.By) == 0 {
		where = "over all runs, as one group (no grouping axis)"
	}
	caption := fmt.Sprintf("Per-pair ratio of %s to the baseline %s: for each value of %s other than %s, %s, the box "+
		"summarises %s of the value's run divided by %s of the %s run over the comparison's pairs, a pair being a run of "+
		"the value and the %s run with the same %s (%s in all, %s). Boxes span the quartiles of the ratios (the medians "+
		"of their lower and upper halves) with the median inside; whiskers reach the most extreme ratios within 1.5 "+
		"interquartile ranges of the box (circles beyond); the dots beside each box are the pairs. The dashed line is 1, "+
		"where a run equals its baseline; below it the value's %s is lower than the baseline's (%s, for %s). These are "+
		"ratios per pair: their median is not the ratio of means in the table above.",
		res.Metric, res.Baseline, res.Axis, res.Baseline, where, res.Metric, res.Metric, res.Baseline, res.Baseline,
		b.pairedOn(res), plural(total, "ratio"), perBox, res.Metric, better, res.Metric)
	if logY {
		axes := "y axes are"
		if len(panels) == 1 {
			axes = "y axis is"
		}
		caption += fmt.Sprintf(" The %s logarithmic, because the ratios, with 1, span more than a factor of %d; "+
			"the quartiles and whiskers are then those of the log ratios.", axes, ratioLog)
	}
	if skipped > 0 {
		caption += fmt.Sprintf(" Left out: %s whose baseline %s is 0 (no ratio).", plural(skipped, "pair"), res.Metric)
	}
	return &figure{ID: figureID("ratio", res.Metric), Title: title, Caption: caption, SVG: svg}, nil
}

// markedTicks are the ticks of a Ticker and one more, labelled, at At (in
// plot coordinates); the labels of ticks too close to it to read beside it
// are dropped.
type markedTicks struct {
	plot.Ticker
	At    float64
	Label string
}

// Ticks implements plot.Ticker.
func (m markedTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := m.Ticker.Ticks(lo, hi)
	if !(lo <= m.At && m.At <= hi) {
		return ts
	}
	out := make([]plot.Tick, 0, len(ts)+1)
	for _, t := range ts {
		d := math.Abs(t.Value - m.At)
		if d <= 1e-9*(hi-lo) {
			continue
		}
		if d < 0.07*(hi-lo) {
			t.Label = ""
		}
		out = append(out, t)
	}
	return append(out, plot.Tick{Value: m.At, Label: m.Label})
}

// pairRatios are the ratios value / baseline of a comparison's pairs, in
// the order of its pairs; skipped counts the pairs whose baseline is 0,
// which have none.
func pairRatios(c compare.Comparison) (ratios []float64, skipped int) {
	for _, p := range c.Pairs {
		if p.Baseline == 0 {
			skipped++
			continue
		}
		ratios = append(ratios, p.Value/p.Baseline)
	}
	return ratios, skipped
}

// pairedOn says what a comparison's pairs share besides their group: the
// axes neither grouping nor compared that take more than one value, and the
// replicate when there are several.
func (b *builder) pairedOn(res *compare.Result) string {
	var on []string
	for _, a := range b.c.Axes {
		if a != res.Axis && !slices.Contains(res.By, a) && len(b.c.Values(a)) > 1 {
			on = append(on, a)
		}
	}
	if b.replicates > 1 {
		on = append(on, "replicate")
	}
	switch len(on) {
	case 0:
		return "other axes"
	case 1:
		return on[0]
	}
	return strings.Join(on[:len(on)-1], ", ") + " and " + on[len(on)-1]
}

// ecdfFigure draws the empirical distribution of job wait or bounded
// slowdown, one panel per group and one line per value.
func (b *builder) ecdfFigure(views []compare.JobView, kind string) (*figure, error) {
	what, unit := "wait", "wait (s)"
	dist := func(v compare.JobView) stats.ECDF { return v.Wait }
	if kind == "bsld" {
		what, unit = "bounded slowdown", "bounded slowdown"
		dist = func(v compare.JobView) stats.ECDF { return v.BSLD }
	}
	title := "ECDF of job " + what
	top := func(vs []compare.JobView) float64 {
		hi := 0.0
		for _, v := range vs {
			if e := dist(v); len(e.X) > 0 && finite(e.X[len(e.X)-1]) {
				hi = math.Max(hi, e.X[len(e.X)-1])
			}
		}
		return hi
	}
	// Waits of a loaded machine span seconds to weeks; a log axis shows
	// both ends. Zero waits cannot sit on it and are drawn at 1 s, which
	// reads right: the curve starts at the share of jobs waiting at most
	// 1 s. The choice is made once per figure so that panels compare.
	hi := top(views)
	logX := hi >= 100 && kind == "wait" || hi >= 10 && kind == "bsld"
	lo := 0.0
	xlabel := unit
	if logX {
		lo = 1
		xlabel += " (log scale)"
	}
	var order [][]compare.AxisValue
	byGroup := map[string][]compare.JobView{}
	for _, v := range views {
		g := groupName(v.Group)
		if _, ok := byGroup[g]; !ok {
			order = append(order, v.Group)
		}
		byGroup[g] = append(byGroup[g], v)
	}
	names, common := panelNames(order)
	var panels []*plot.Plot
	zoomed := false
	for gi, key := range order {
		vs := byGroup[groupName(key)]
		hi := math.Max(top(vs), lo+1)
		ylabel := "share of jobs ≤ x"
		bottom := 1.0
		var lines []*plotter.Line
		var legend []string
		for _, v := range vs {
			xys := ecdfXYs(dist(v), logX, lo, hi)
			if len(xys) == 0 {
				continue
			}
			if logX {
				// Drawn over log10 values: see scale.
				for i := range xys {
					xys[i].X = math.Log10(xys[i].X)
				}
			}
			l, err := line(xys, b.colourOf(v.Value), 1.5)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", title, err)
			}
			l.StepStyle = plotter.PostStep
			lines = append(lines, l)
			legend = append(legend, v.Value)
			bottom = math.Min(bottom, xys[0].Y)
		}
		// When most jobs sit at the left edge (no wait on an idle
		// machine), a 0-1 axis shows flat lines at the top: zoom in on the
		// top decade that holds every curve instead.
		ymin := 0.0
		if bottom >= 0.5 {
			ymin = math.Max(0, 1-math.Pow(10, math.Ceil(math.Log10(math.Max(1-bottom, 1e-4)))))
		}
		if ymin > 0 {
			ylabel += " (zoomed)"
			zoomed = true
		}
		p := newPlot(names[gi], xlabel, ylabel)
		for i, l := range lines {
			p.Add(l)
			p.Legend.Add(legend[i], l)
		}
		p.Y.Min, p.Y.Max = ymin, 1+0.02*(1-ymin)
		if logX {
			top := math.Max(hi, lo*10)
			p.X.Tick.Marker = log10Ticks(lo, top)
			p.X.Min, p.X.Max = math.Log10(lo), math.Log10(top)
		} else {
			p.X.Min, p.X.Max = lo, hi
		}
		panels = append(panels, p)
	}
	svg, err := tiles(title, panels, 2, tileW, tileH)
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("Share of jobs whose %s is at most x, per value of %s, pooled over the runs of each group%s. "+
		"A curve above and to the left of another is better; curves that coincide hide one another.", what, b.opts.Axis, common)
	if logX && kind == "wait" {
		caption += " The x axis is logarithmic; waits under 1 s are drawn at 1 s, so each curve starts at the share of jobs that waited at most a second."
	} else if logX {
		caption += " The x axis is logarithmic; curves start at 1, the smallest bounded slowdown."
	}
	if zoomed {
		caption += " Panels marked zoomed show only the top of the y axis, because nearly every job is at the left edge there."
	}
	return &figure{ID: figureID("ecdf", kind), Title: title, Caption: caption, SVG: svg}, nil
}

// groupKeys lists the keys of a result's groups.
func groupKeys(res *compare.Result) [][]compare.AxisValue {
	keys := make([][]compare.AxisValue, len(res.Groups))
	for i, g := range res.Groups {
		keys[i] = g.Key
	}
	return keys
}

// panelNames names panels by the axis values that differ between them, so
// titles fit their panels; common says, for the caption, the values all
// panels share ("; estimates=requested in every panel"), or is empty.
func panelNames(keys [][]compare.AxisValue) (names []string, common string) {
	if len(keys) == 0 {
		return nil, ""
	}
	varies := func(axis string) bool {
		first := ""
		for i, k := range keys {
			for _, kv := range k {
				if kv.Axis != axis {
					continue
				}
				if i == 0 {
					first = kv.Value
				} else if kv.Value != first {
					return true
				}
			}
		}
		return false
	}
	var same []string
	for _, k := range keys {
		var parts []string
		for _, kv := range k {
			if len(keys) == 1 || varies(kv.Axis) {
				parts = append(parts, kv.Axis+"="+kv.Value)
			}
		}
		names = append(names, cmp.Or(strings.Join(parts, ", "), "all runs"))
	}
	if len(keys) > 1 {
		for _, kv := range keys[0] {
			if !varies(kv.Axis) {
				same = append(same, kv.Axis+"="+kv.Value)
			}
		}
	}
	if len(same) > 0 {
		common = "; " + strings.Join(same, ", ") + " in every panel"
	}
	return names, common
}

// seriesFigures draws processors in use (as a share of the platform) and
// queue length over time, one panel per run of the selected group, on a
// common time axis.
func (b *builder) seriesFigures(sel []compare.AxisValue, runs []compare.Run) ([]*figure, error) {
	type curve struct {
		run                compare.Run
		procs, queue, work series.Step
		size               float64
	}
	var curves []curve
	var from, to int64
	for _, r := range runs {
		rows, _, err := results.ReadJobs(b.c.JobsPath(r))
		if err != nil {
			return nil, fmt.Errorf("report: time series of run %s: %w", r.Label, err)
		}
		f, t, ok := series.Span(rows)
		if !ok {
			continue
		}
		if len(curves) == 0 {
			from, to = f, t
		}
		from, to = min(from, f), max(to, t)
		size := r.Values["procs"]
		if !(size > 0) {
			return nil, fmt.Errorf("report: %s: run %s has no platform size (procs column)", b.raw.path, r.Label)
		}
		curves = append(curves, curve{run: r, procs: series.ProcsInUse(rows), queue: series.QueueLength(rows), work: series.QueuedWork(rows), size: size})
	}
	if len(curves) == 0 || to <= from {
		return nil, nil
	}
	unit, unitName := series.TimeUnit(float64(to - from))
	xlabel := fmt.Sprintf("time since the first submit (%s)", unitName)
	// Panel titles name the run by what varies among the plotted runs.
	varying := []string{b.opts.Axis}
	for _, a := range b.c.Axes {
		if a == b.opts.Axis || slices.ContainsFunc(sel, func(kv compare.AxisValue) bool { return kv.Axis == a }) {
			continue
		}
		if slices.ContainsFunc(curves, func(c curve) bool { return c.run.Axes[a] != curves[0].run.Axes[a] }) {
			varying = append(varying, a)
		}
	}
	name := func(r compare.Run) string {
		var parts []string
		for _, a := range varying {
			parts = append(parts, a+"="+r.Axes[a])
		}
		if b.replicates > 1 {
			parts = append(parts, fmt.Sprintf("replicate %d", r.Replicate))
		}
		return strings.Join(parts, " ")
	}
	binW := float64(to-from) / float64(b.opts.Points)
	group := groupName(sel)
	build := func(kind string) (*figure, error) {
		title := "Utilisation over time"
		ylabel := "utilisation"
		switch kind {
		case "queue":
			title, ylabel = "Queue length over time", "jobs waiting"
		case "work":
			title, ylabel = "Queued work over time", "processor-hours waiting"
		}
		title += ", " + group
		var panels []*plot.Plot
		ymax := 0.0
		var data []plotter.XYs
		for _, c := range curves {
			s, div := c.procs, c.size
			switch kind {
			case "queue":
				s, div = c.queue, 1
			case "work":
				s, div = c.work, 3600
			}
			mid, mean := s.BinMeans(float64(from), float64(to), b.opts.Points)
			xys := make(plotter.XYs, len(mid))
			for i := range mid {
				xys[i] = plotter.XY{X: (mid[i] - float64(from)) / unit, Y: mean[i] / div}
				ymax = math.Max(ymax, xys[i].Y)
			}
			data = append(data, xys)
		}
		setY := func(p *plot.Plot) {
			p.X.Min, p.X.Max = 0, float64(to-from)/unit
			p.Y.Min = 0
			if kind == "util" {
				p.Y.Max = math.Max(1, ymax)
			} else {
				p.Y.Max = math.Max(1, ymax*1.05)
			}
		}
		if len(curves) > 1 {
			// All the runs on one panel first, each in its value's
			// colour: where the policies differ over time shows at once.
			p := newPlot("overlaid: "+group, xlabel, ylabel)
			for i, c := range curves {
				l, err := line(data[i], b.colourOf(c.run.Axes[b.opts.Axis]), 1.1)
				if err != nil {
					return nil, fmt.Errorf("figure %s: %w", title, err)
				}
				p.Add(l)
				p.Legend.Add(name(c.run), l)
			}
			p.Legend.Top = true
			setY(p)
			p.Y.Max *= 1 + 0.08*float64(len(curves)) // room for the legend above the curves
			panels = append(panels, p)
		}
		for i, c := range curves {
			p := newPlot(name(c.run), xlabel, ylabel)
			col := b.colourOf(c.run.Axes[b.opts.Axis])
			// A light fill under the curve makes the level readable at a
			// glance; the polygon closes along the time axis.
			area := append(plotter.XYs{{X: data[i][0].X, Y: 0}}, data[i]...)
			area = append(area, plotter.XY{X: data[i][len(data[i])-1].X, Y: 0})
			fill, err := plotter.NewPolygon(area)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", title, err)
			}
			fill.Color = translucent(col, 0x2C)
			fill.LineStyle.Width = 0
			l, err := line(data[i], col, 1.1)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", title, err)
			}
			p.Add(fill, l)
			setY(p)
			panels = append(panels, p)
		}
		svg, err := tiles(title, panels, 1, wideW, seriesH)
		if err != nil {
			return nil, err
		}
		caption := fmt.Sprintf("Runs of the group %s on a common time axis: one panel per run, after a first panel that overlays them "+
			"(when there are several), each in its value's colour. ", group)
		if kind == "util" {
			caption += "Processors in use (the procs of the jobs with start ≤ t < end) over the platform size (the procs column of runs.parquet)"
		} else if kind == "queue" {
			caption += "Jobs submitted and not yet started (submit ≤ t < start)"
		} else {
			caption += "The work of the jobs submitted and not yet started, as policies see it: processors × requested walltime, in processor-hours"
		}
		caption += fmt.Sprintf(", averaged over %d bins of %s each.", b.opts.Points, duration(binW))
		return &figure{ID: figureID(kind), Title: title, Caption: caption, SVG: svg}, nil
	}
	util, err := build("util")
	if err != nil {
		return nil, err
	}
	queue, err := build("queue")
	if err != nil {
		return nil, err
	}
	work, err := build("work")
	if err != nil {
		return nil, err
	}
	return []*figure{util, queue, work}, nil
}

// duration formats seconds for a caption.
func duration(s float64) string {
	switch {
	case s >= 2*86400:
		return fmt.Sprintf("%.3g days", s/86400)
	case s >= 2*3600:
		return fmt.Sprintf("%.3g hours", s/3600)
	case s >= 120:
		return fmt.Sprintf("%.3g minutes", s/60)
	}
	return fmt.Sprintf("%.3g seconds", s)
}

// fadedInk is the colour of annotations, dark enough to read, light
// enough to stay behind the data.
func fadedInk() color.RGBA { return color.RGBA{0x44, 0x44, 0x44, 0xFF} }
