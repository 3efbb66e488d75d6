package report

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"image/color"
	"math"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/schedlab/schedlab/results/stats"
)

// figure is one plot of the report: an inline SVG with its title and
// caption, which the page puts in a <figure> with a <figcaption>.
type figure struct {
	// ID is the figure's HTML id, for links from the table of contents.
	ID string
	// Title is the plot's title, drawn at the top of the SVG and repeated
	// at the start of the caption.
	Title string
	// Caption says what the plot shows and how to read it.
	Caption string
	// SVG is the plot, without an XML prologue, ready to inline.
	SVG template.HTML
}

// Sizes of the drawings, in points. Tiles are sized for a page about 1000
// CSS pixels wide (750 pt), two panels a row.
const (
	tileW      = vg.Length(360)
	tileH      = vg.Length(235)
	wideW      = vg.Length(720)
	seriesH    = vg.Length(165)
	titleSpace = vg.Length(24)
)

// sansFont is the plots' typeface: Liberation Sans is metric-compatible with
// Arial and Helvetica, which the SVG names as fallbacks (see inlineSVG), so
// labels measured with its metrics fit wherever the page is opened.
func sansFont(size vg.Length, bold bool) font.Font {
	f := font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
	if bold {
		f.Weight = xfont.WeightBold
	}
	return f
}

// colour is the i-th colour of the Okabe-Ito palette, which stays
// distinguishable for readers with colour-vision deficiencies; yellow is
// left out because it does not show on white.
func colour(i int) color.RGBA {
	pal := [...]color.RGBA{
		{0x00, 0x72, 0xB2, 0xFF}, // blue
		{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
		{0x00, 0x9E, 0x73, 0xFF}, // bluish green
		{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
		{0xE6, 0x9F, 0x00, 0xFF}, // orange
		{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
		{0x00, 0x00, 0x00, 0xFF}, // black
	}
	return pal[((i%len(pal))+len(pal))%len(pal)]
}

// valuePalette holds the colours of the values of a compared axis: the
// Okabe-Ito colours of colour, then three more of Paul Tol's that stay
// apart from them (wine, olive, brown), so that ten policies of one report
// get ten colours.
func valuePalette() []color.RGBA {
	pal := make([]color.RGBA, 0, 10)
	for i := range 7 {
		pal = append(pal, colour(i))
	}
	return append(pal, color.RGBA{0x88, 0x22, 0x55, 0xFF}, color.RGBA{0x99, 0x99, 0x33, 0xFF}, color.RGBA{0x8C, 0x51, 0x0A, 0xFF})
}

// hexColour writes c as #RRGGBB, as the plots' SVG does.
func hexColour(c color.RGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

// translucent returns c with the given alpha, premultiplied as image/color
// requires.
func translucent(c color.RGBA, a uint8) color.RGBA {
	f := float64(a) / 255
	return color.RGBA{uint8(float64(c.R) * f), uint8(float64(c.G) * f), uint8(float64(c.B) * f), a}
}

// newPlot returns a plot with the report's fonts, a light grid, a title and
// axis labels.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sansFont(10.5, true)
	p.Title.Padding = 4
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sansFont(9.5, false)
		a.Tick.Label.Font = sansFont(8.5, false)
		a.Tick.Marker = humanTicks{}
	}
	p.Legend.TextStyle.Font = sansFont(8.5, false)
	p.Legend.ThumbnailWidth = 14
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{0xE4}
	g.Horizontal.Color = color.Gray{0xE4}
	p.Add(g)
	return p
}

// humanTicks are gonum's default ticks with labels people read at a glance:
// 250k rather than 250000.
type humanTicks struct{}

// Ticks implements plot.Ticker.
func (humanTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = human(ts[i].Value)
		}
	}
	return ts
}

// logTicks label the powers of ten of a log axis, and 2 and 5 times them
// when the axis spans less than two decades, so that every axis shows at
// least two labels.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	first := math.Floor(math.Log10(lo))
	last := math.Ceil(math.Log10(hi))
	few := last-first <= 2
	var ts []plot.Tick
	for e := first; e <= last; e++ {
		p := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || few && (m == 2 || m == 5) {
				t.Label = human(v)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// human formats a number for an axis or a table cell: thousands as k,
// millions as M, otherwise at most 4 significant digits.
func human(x float64) string {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x):
		return "-"
	case a >= 1e9:
		return sig(x/1e9) + "G"
	case a >= 1e6:
		return sig(x/1e6) + "M"
	case a >= 1e4:
		return sig(x/1e3) + "k"
	}
	return sig(x)
}

// sig formats x with at most 4 significant digits.
func sig(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

// useLog says whether values spread over enough orders of magnitude that a
// linear axis would squash the small ones against zero.
func useLog(vals []float64, ratio float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if v <= 0 {
			return false
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	return hi > 0 && hi/lo >= ratio
}

// scale maps data values to plot coordinates: the identity, or log10 for a
// log axis. Log axes are drawn as linear axes over log10 values, with ticks
// labelled in data units, rather than with plot.LogScale: gonum places the
// glyph box of a log axis's label at the normalised arithmetic midpoint of
// the range, near one end, and shrank the data area by a third to fit it.
type scale struct {
	log   bool
	floor float64 // values below it are drawn at it
}

// at is v in plot coordinates.
func (s scale) at(v float64) float64 {
	if !s.log {
		return v
	}
	return math.Log10(math.Max(v, s.floor))
}

// logScale is the scale of a log axis over the data range [lo, hi], lo > 0,
// padded by a tenth of the range at each end (in log terms, as the eye sees
// it), which leaves room for the labels of the extreme points.
func logScale(lo, hi float64) scale {
	return scale{log: true, floor: lo / logPad(lo, hi)}
}

// logPad is the factor a log axis over [lo, hi] is padded by at each end.
func logPad(lo, hi float64) float64 {
	return math.Pow(10, math.Max(0.1*math.Log10(hi/lo), 0.05))
}

// setLogY makes the y axis a log axis over [lo, hi] (see logScale); the
// data must have been added through logScale(lo, hi).at.
func setLogY(p *plot.Plot, lo, hi float64) {
	pad := logPad(lo, hi)
	p.Y.Min, p.Y.Max = math.Log10(lo/pad), math.Log10(hi*pad)
	p.Y.Tick.Marker = log10Ticks(lo/pad, hi*pad)
	p.Y.Label.Text += " (log scale)"
}

// log10Ticks are logTicks over [lo, hi] placed at the log10 of their values,
// for an axis whose coordinates are log10 values.
func log10Ticks(lo, hi float64) plot.ConstantTicks {
	ts := logTicks{}.Ticks(lo, hi)
	for i := range ts {
		ts[i].Value = math.Log10(ts[i].Value)
	}
	return ts
}

// tiles draws plots in a grid of cols columns under one title and returns
// the SVG.
func tiles(title string, plots []*plot.Plot, cols int, w, h vg.Length) (template.HTML, error) {
	if len(plots) == 0 {
		return "", fmt.Errorf("figure %q: no panel", title)
	}
	cols = max(1, min(cols, len(plots)))
	rows := (len(plots) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if i := r*cols + c; i < len(plots) {
				grid[r][c] = plots[i]
			}
		}
	}
	width, height := w*vg.Length(cols), h*vg.Length(rows)+titleSpace
	canvas := vgsvg.New(width, height)
	dc := draw.New(canvas)
	// gonum's drawing code panics on impossible input (a log axis over
	// non-positive values, say); a report must fail with an error instead.
	var perr error
	func() {
		defer func() {
			if r := recover(); r != nil {
				perr = fmt.Errorf("figure %q: %v", title, r)
			}
		}()
		sty := text.Style{Color: color.Black, Font: sansFont(12, true), XAlign: draw.XCenter, YAlign: draw.YTop,
			Handler: plot.DefaultTextHandler}
		dc.FillText(sty, vg.Point{X: width / 2, Y: height - 6}, title)
		body := draw.Crop(dc, 0, 0, 0, -titleSpace)
		// Each panel is laid out in its own tile, its title drawn in
		// padding reserved above the tile. plot.Align would line up the data
		// areas, but it assumes a plot's padding does not depend on its
		// size, which fails when a tick label sits at the edge of a log
		// axis: rows then overlapped and titles of one row came out at
		// different heights.
		const panelTitle = vg.Length(16)
		t := draw.Tiles{Rows: rows, Cols: cols, PadX: 14, PadY: 12 + panelTitle, PadTop: panelTitle, PadBottom: 4, PadLeft: 4, PadRight: 8}
		psty := sty
		psty.Font = sansFont(10.5, true)
		for r := range grid {
			for c, p := range grid[r] {
				if p == nil {
					continue
				}
				title := p.Title.Text
				p.Title.Text = ""
				tile := t.At(body, c, r)
				p.Draw(tile)
				data := p.DataCanvas(tile)
				dc.FillText(psty, vg.Point{X: (data.Min.X + data.Max.X) / 2, Y: tile.Max.Y + panelTitle - 1}, title)
			}
		}
	}()
	if perr != nil {
		return "", perr
	}
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("figure %q: write SVG: %w", title, err)
	}
	return inlineSVG(buf.String(), title), nil
}

// inlineSVG turns a standalone SVG document into an element to inline in
// HTML: the XML prologue goes, the element gets an accessible name, and the
// font gets fallbacks (the report embeds no font, and a browser without
// Liberation Sans would otherwise fall back to a serif face).
func inlineSVG(doc, title string) template.HTML {
	if i := strings.Index(doc, "<svg"); i >= 0 {
		doc = doc[i:]
	}
	doc = strings.Replace(doc, "<svg ", `<svg role="img" class="plot" aria-label="`+html.EscapeString(title)+`" `, 1)
	doc = strings.ReplaceAll(doc, "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;")
	// The SVG's text was escaped by vgsvg and the title above by
	// html.EscapeString: the markup is ours.
	return template.HTML(doc)
}

// errPoints are points with asymmetric y errors, for plotter.YErrorBars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// scatter is a coloured point glyph at each of xys.
// boxAndDots adds to p a box plot of vals at x, drawn in c, and the values
// themselves as dots in dot beside it, spread sideways deterministically so
// that equal values do not hide each other.
func boxAndDots(p *plot.Plot, x float64, vals plotter.Values, c, dot color.RGBA) error {
	bp, err := plotter.NewBoxPlot(28, x, vals)
	if err != nil {
		return err
	}
	bp.FillColor = translucent(c, 0x30)
	bp.BoxStyle.Color, bp.MedianStyle.Color, bp.WhiskerStyle.Color = c, c, c
	bp.MedianStyle.Width = 2
	bp.GlyphStyle.Color = c
	p.Add(bp)
	dots := make(plotter.XYs, len(vals))
	for k, v := range vals {
		off := 0.0
		if n := len(vals); n > 1 {
			off = (float64(k)/float64(n-1) - 0.5) * 0.15
		}
		dots[k] = plotter.XY{X: x + 0.32 + off, Y: v}
	}
	sc, err := scatter(dots, translucent(dot, 0xB0), draw.CircleGlyph{}, 1.8)
	if err != nil {
		return err
	}
	p.Add(sc)
	return nil
}

func scatter(xys plotter.XYs, c color.Color, shape draw.GlyphDrawer, radius vg.Length) (*plotter.Scatter, error) {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: radius, Shape: shape}
	return s, nil
}

// line is a coloured line through xys.
func line(xys plotter.XYs, c color.Color, width vg.Length) (*plotter.Line, error) {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.LineStyle = draw.LineStyle{Color: c, Width: width}
	return l, nil
}

// ecdfXYs is the ECDF as points for a post-step line, thinned to at most a
// thousand or so: a point is kept when the share or the (log) position has
// moved by 1/800 of the range since the last kept one, so the curve keeps
// its shape in both directions while a 28,000-job run does not put 28,000
// points in the page. With logX, values below lo are drawn at lo.
func ecdfXYs(e stats.ECDF, logX bool, lo, hi float64) plotter.XYs {
	if len(e.X) == 0 || math.IsNaN(e.X[0]) {
		return nil
	}
	pos := func(x float64) float64 {
		if logX {
			return math.Log10(math.Max(x, lo))
		}
		return x
	}
	span := pos(hi) - pos(lo)
	if !(span > 0) {
		span = 1
	}
	var xys plotter.XYs
	if logX {
		xys = append(xys, plotter.XY{X: lo, Y: e.At(lo)})
	} else {
		xys = append(xys, plotter.XY{X: e.X[0], Y: 0})
	}
	last := xys[0]
	for i, x := range e.X {
		if logX && x <= lo {
			continue
		}
		pt := plotter.XY{X: x, Y: e.P[i]}
		if i == len(e.X)-1 || pt.Y-last.Y >= 1.0/800 || (pos(pt.X)-pos(last.X))/span >= 1.0/800 {
			xys = append(xys, pt)
			last = pt
		}
	}
	return xys
}

// metricLabel is an axis label for a runs.parquet column.
func metricLabel(metric string) string {
	l := strings.ReplaceAll(metric, "_", " ")
	l = strings.ReplaceAll(l, "bsld", "bounded slowdown")
	switch {
	case strings.Contains(metric, "wait"), strings.Contains(metric, "turnaround"), metric == "makespan",
		strings.HasSuffix(metric, "_seconds"):
		l += " (s)"
	}
	return l
}
