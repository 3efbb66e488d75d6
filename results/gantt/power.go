package gantt

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/results"
)

// The power panel under the chart, in CSS pixels.
const (
	powerGap    = 14
	powerHeight = 150
)

// powerExtra is the height the power panel adds to the SVG: none for a
// run without a power file.
func (c *Chart) powerExtra() int {
	if c.run.Power == nil {
		return 0
	}
	return powerGap + powerHeight
}

// powerLevel is the draw (or the cap) over [from, to), w; NaN for no
// cap. Over a pixel column of many steps, w is the largest draw and lo
// the least; else lo is w.
type powerLevel struct {
	from, to int64
	w, lo    float64
}

// powerLevels returns the steps of the draw and of the cap within the
// window, clipped to it. When there are more steps than half-pixels, each
// pixel column gets one step at the largest draw within it (its
// envelope), so that a whole log draws in a few thousand segments and
// its peaks stay visible.
func (c *Chart) powerLevels(columns int) (draw, cp []powerLevel) {
	var in []results.PowerStepRow
	for _, s := range c.run.Power {
		if s.End > c.from && s.Start < c.to {
			in = append(in, s)
		}
	}
	capOf := func(s results.PowerStepRow) float64 {
		if s.CapWatts == nil {
			return math.NaN()
		}
		return *s.CapWatts
	}
	if len(in) <= 2*columns {
		for _, s := range in {
			t0, t1 := max(s.Start, c.from), min(s.End, c.to)
			draw = append(draw, powerLevel{t0, t1, s.Watts, s.Watts})
			cp = append(cp, powerLevel{t0, t1, capOf(s), capOf(s)})
		}
		return draw, cp
	}
	span := float64(c.to - c.from)
	at := func(k int) int64 { return c.from + int64(math.Ceil(float64(k)*span/float64(columns))) }
	x := 0
	for k := range columns {
		t0, t1 := at(k), at(k+1)
		if k == columns-1 {
			t1 = c.to
		}
		if t1 <= t0 {
			continue
		}
		w, lo, cw := math.Inf(-1), math.Inf(1), math.NaN()
		for x < len(in) && in[x].End <= t0 {
			x++
		}
		for y := x; y < len(in) && in[y].Start < t1; y++ {
			w, lo = max(w, in[y].Watts), min(lo, in[y].Watts)
			if v := capOf(in[y]); !math.IsNaN(v) && (math.IsNaN(cw) || v < cw) {
				cw = v // the lowest cap within the column
			}
		}
		if !math.IsInf(w, -1) {
			draw = append(draw, powerLevel{t0, t1, w, lo})
			cp = append(cp, powerLevel{t0, t1, cw, cw})
		}
	}
	return draw, cp
}

// svgPower draws the power panel with its top at y0: the platform's draw
// over the window as a step line (class "power"), the range of the draw
// within each pixel column where steps are denser than pixels (class
// "power-range"), the cap as a dashed red step line (class "cap"), and a
// watts axis.
func (c *Chart) svgPower(bw *bufio.Writer, y0 int, plotW float64, x func(int64) float64) {
	draw, cp := c.powerLevels(int(plotW))
	top := 0.0
	for i := range draw {
		top = max(top, draw[i].w)
		if !math.IsNaN(cp[i].w) {
			top = max(top, cp[i].w)
		}
	}
	if top <= 0 {
		top = 1
	}
	unit, uname := 1.0, "W"
	if top >= 1e6 {
		unit, uname = 1e6, "MW"
	} else if top >= 1e4 {
		unit, uname = 1e3, "kW"
	}
	ts := ticks(0, top*1.05/unit, 4)
	hi := top * 1.05
	if len(ts) > 0 {
		hi = max(hi, ts[len(ts)-1]*unit)
	}
	y := func(w float64) float64 { return float64(y0+powerHeight) - w/hi*powerHeight }
	fmt.Fprintf(bw, `<rect class="power-frame" x="%d" y="%d" width="%g" height="%d" fill="#fafafa" stroke="#888"/>`+"\n", plotLeft, y0, plotW, powerHeight)
	for _, v := range ts {
		py := y(v * unit)
		fmt.Fprintf(bw, `<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="#333"/><text x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n",
			plotLeft-5, plotLeft, num(py), num(py), plotLeft-8, num(py), strconv.FormatFloat(v, 'g', 6, 64))
	}
	fmt.Fprintf(bw, `<text x="14" y="%d" transform="rotate(-90 14 %d)" text-anchor="middle">power (%s)</text>`+"\n",
		y0+powerHeight/2, y0+powerHeight/2, uname)
	var band strings.Builder
	for _, l := range draw {
		if l.lo < l.w {
			fmt.Fprintf(&band, "M%s %sH%sV%sH%sZ", num(x(l.from)), num(y(l.w)), num(x(l.to)), num(y(l.lo)), num(x(l.from)))
		}
	}
	if band.Len() > 0 {
		fmt.Fprintf(bw, `<path class="power-range" fill="#999" fill-opacity="0.5" d="%s"/>`+"\n", band.String())
	}
	fmt.Fprintf(bw, `<path class="power" fill="none" stroke="#000" stroke-width="1.2" d="%s"/>`+"\n", stepPath(draw, x, y))
	if d := stepPath(cp, x, y); d != "" {
		fmt.Fprintf(bw, `<path class="cap" fill="none" stroke="#d00" stroke-width="1.2" stroke-dasharray="5,3" d="%s"/>`+"\n", d)
	}
}

// stepPath is the SVG path of levels as a step line, broken where a
// level is NaN (no cap) or where two levels are not contiguous.
func stepPath(ls []powerLevel, x func(int64) float64, y func(float64) float64) string {
	var b strings.Builder
	prev := int64(math.MinInt64)
	for _, l := range ls {
		if math.IsNaN(l.w) {
			prev = math.MinInt64
			continue
		}
		if l.from != prev {
			fmt.Fprintf(&b, "M%s %s", num(x(l.from)), num(y(l.w)))
		} else {
			fmt.Fprintf(&b, "V%s", num(y(l.w)))
		}
		fmt.Fprintf(&b, "H%s", num(x(l.to)))
		prev = l.to
	}
	return b.String()
}
