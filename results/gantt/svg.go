package gantt

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"

	"github.com/schedlab/schedlab/results/series"
	"github.com/schedlab/schedlab/sdk"
)

// The SVG's geometry, in CSS pixels: a 1,280 px wide page, as the report.
const (
	svgWidth   = 1280
	plotLeft   = 110
	plotRight  = 20
	plotTop    = 44
	plotHeight = 480
	axisHeight = 56
	legendRow  = 22
	// titledSpans is the most spans that get a <title> (a hover text in
	// SVG viewers); beyond it the file would double for little use.
	titledSpans = 5000
	// labelledRows is the most rows that get a name on the left.
	labelledRows = 40
	// ruledRows is the most rows that get a line between them.
	ruledRows = 400
)

// SVG writes the chart as a standalone SVG: a rectangle (class "job", with
// the job's number in data-job) per job and run of consecutive lanes within
// the window, lines between rows (nodes, or the clusters of a pool), a
// time axis and a legend.
func (c *Chart) SVG(w io.Writer) error {
	bw := bufio.NewWriter(w)
	plotW := float64(svgWidth - plotLeft - plotRight)
	cats := c.Categories()
	legend := min(len(cats), 12)
	height := plotTop + plotHeight + axisHeight + legendRow*((legend+3)/4+2)
	if c.run.Power != nil {
		height += c.powerExtra() + legendRow // the panel and its note
	}
	unit, uname := series.TimeUnit(float64(c.to - c.from))
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="13" role="img" aria-label="%s">`+"\n",
		svgWidth, height, svgWidth, height, html.EscapeString(c.title))
	fmt.Fprintf(bw, `<text x="%d" y="26" font-size="16" font-weight="bold">%s</text>`+"\n", plotLeft, html.EscapeString(c.title))
	fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%g" height="%d" fill="#fafafa" stroke="#888"/>`+"\n", plotLeft, plotTop, plotW, plotHeight)
	lanes := float64(c.lay.Lanes)
	x := func(t int64) float64 { return plotLeft + float64(t-c.from)/float64(c.to-c.from)*plotW }
	y := func(lane int32) float64 { return plotTop + float64(lane)/lanes*plotHeight }
	spans := 0
	for i := range c.run.Jobs {
		if _, _, ok := c.clip(i); ok {
			spans += len(c.lay.Spans[i])
		}
	}
	titled := spans <= titledSpans
	bw.WriteString(`<g class="jobs" stroke="#fff" stroke-width="0.3">` + "\n")
	for i, j := range c.run.Jobs {
		t0, t1, ok := c.clip(i)
		if !ok {
			continue
		}
		col := cats[c.cat[i]].Colour
		for _, s := range c.lay.Spans[i] {
			fmt.Fprintf(bw, `<rect class="job" data-job="%d" x="%s" y="%s" width="%s" height="%s" fill="%s"`,
				j.JobID, num(x(t0)), num(y(s.Lo)), num(x(t1)-x(t0)), num(y(s.Lo+s.N)-y(s.Lo)), col)
			if titled {
				promised := ""
				if j.PromisedStart != nil {
					promised = ", promised start " + strconv.FormatInt(*j.PromisedStart, 10)
				}
				fmt.Fprintf(bw, `><title>job %d, %s: %d %ss, start %d, end %d, wait %d s%s</title></rect>`+"\n",
					j.JobID, html.EscapeString(cats[c.cat[i]].Name), s.N, c.lay.Unit, j.Start, j.End, j.Start-j.Submit, promised)
			} else {
				bw.WriteString("/>\n")
			}
		}
	}
	bw.WriteString("</g>\n")
	outages, interrupts := c.svgOutages(bw, x, y)
	// Reservations: a dashed line at the start the policy promised a job
	// (its first promise), across the lanes it ran on, when it started at
	// another time: how far from its reservation it ran.
	promises := 0
	bw.WriteString(`<g class="promises" stroke="#000" stroke-width="1" stroke-dasharray="3,2">` + "\n")
	for i, j := range c.run.Jobs {
		if j.PromisedStart == nil || *j.PromisedStart == j.Start || c.lay.Spans[i] == nil {
			continue
		}
		p := *j.PromisedStart
		if p < c.from || p > c.to {
			continue
		}
		for _, s := range c.lay.Spans[i] {
			fmt.Fprintf(bw, `<line class="promise" data-job="%d" x1="%s" x2="%s" y1="%s" y2="%s"/>`+"\n",
				j.JobID, num(x(p)), num(x(p)), num(y(s.Lo)), num(y(s.Lo+s.N)))
		}
		promises++
	}
	bw.WriteString("</g>\n")
	// Rows: a line between nodes (or clusters), names when few.
	rows := c.lay.Rows
	if len(rows) > 1 && len(rows) <= ruledRows {
		bw.WriteString(`<g class="rows" stroke="#555" stroke-width="0.6">` + "\n")
		for _, r := range rows[1:] {
			fmt.Fprintf(bw, `<line x1="%d" x2="%g" y1="%s" y2="%s"/>`+"\n", plotLeft, plotLeft+plotW, num(y(r.Lo)), num(y(r.Lo)))
		}
		bw.WriteString("</g>\n")
	}
	if len(rows) > 1 && len(rows) <= labelledRows {
		for _, r := range rows {
			fmt.Fprintf(bw, `<text class="row" x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n",
				plotLeft-6, num(y(r.Lo)+float64(r.N)/lanes*plotHeight/2), html.EscapeString(r.Name))
		}
	}
	what := fmt.Sprintf("%d processors", c.lay.Lanes)
	if c.lay.Unit == "core" {
		what = fmt.Sprintf("%d nodes (cores down each row)", len(rows))
	}
	fmt.Fprintf(bw, `<text x="14" y="%d" transform="rotate(-90 14 %d)" text-anchor="middle">%s</text>`+"\n",
		plotTop+plotHeight/2, plotTop+plotHeight/2, html.EscapeString(what))
	// The time axis, in the unit that suits the window, from time 0 of
	// the jobs file.
	if c.run.Power != nil {
		c.svgPower(bw, plotTop+plotHeight+powerGap, plotW, x)
	}
	base := plotTop + plotHeight + c.powerExtra()
	for _, v := range ticks(float64(c.from)/unit, float64(c.to)/unit, 8) {
		px := plotLeft + (v*unit-float64(c.from))/float64(c.to-c.from)*plotW
		fmt.Fprintf(bw, `<line x1="%s" x2="%s" y1="%d" y2="%d" stroke="#333"/><text x="%s" y="%d" text-anchor="middle">%s</text>`+"\n",
			num(px), num(px), base, base+5, num(px), base+20, strconv.FormatFloat(v, 'g', 6, 64))
	}
	fmt.Fprintf(bw, `<text x="%g" y="%d" text-anchor="middle">time (%s, from the trace's time 0)</text>`+"\n", plotLeft+plotW/2, base+42, uname)
	// The legend: the most frequent categories first.
	ly := base + axisHeight + 6
	for k, cat := range cats[:legend] {
		lx := plotLeft + (k%4)*280
		yy := ly + (k/4)*legendRow
		fmt.Fprintf(bw, `<g class="legend"><rect x="%d" y="%d" width="14" height="14" fill="%s"/><text x="%d" y="%d">%s (%d jobs)</text></g>`+"\n",
			lx, yy, cat.Colour, lx+20, yy+12, html.EscapeString(cat.Name), cat.Jobs)
	}
	note := ly + ((legend+3)/4)*legendRow + 12
	if more := len(cats) - legend; more > 0 {
		fmt.Fprintf(bw, `<text x="%d" y="%d">and %d more, colours repeating</text>`+"\n", plotLeft, note, more)
		note += legendRow
	}
	if outages > 0 || interrupts > 0 {
		fmt.Fprintf(bw, `<text x="%d" y="%d">grey: nodes failed; blue: in maintenance; orange: draining; violet: drained by the policy (%d outages); red ticks: the %d runs an outage ended, on the node it hit</text>`+"\n",
			plotLeft, note, outages, interrupts)
		note += legendRow
	}
	if promises > 0 {
		fmt.Fprintf(bw, `<text x="%d" y="%d">dashed lines: the promised starts (reservations) of the %d jobs that started at another time</text>`+"\n",
			plotLeft, note, promises)
		note += legendRow
	}
	if c.run.Power != nil {
		fmt.Fprintf(bw, `<text x="%d" y="%d">under the chart: the platform's power (black; where its steps are denser than pixels, the most in each pixel, and in grey its range) and the power cap (dashed red)</text>`+"\n",
			plotLeft, note)
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// clip returns job i's time within the window, or false when it held no
// lane there.
func (c *Chart) clip(i int) (t0, t1 int64, ok bool) {
	if c.lay.Spans[i] == nil {
		return 0, 0, false
	}
	j := c.run.Jobs[i]
	t0, t1 = max(j.Start, c.from), min(j.End, c.to)
	return t0, t1, t1 > t0
}

// num writes a coordinate with two decimals at most.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

// outageFill is the colour and opacity of each kind of outage.
var outageFill = map[sdk.OutageKind]string{
	sdk.Failure:     `fill="#000" fill-opacity="0.45"`,
	sdk.Maintenance: `fill="#1f4e9c" fill-opacity="0.35"`,
	sdk.Drain:       `fill="#e08a00" fill-opacity="0.25"`,
	sdk.PolicyDrain: `fill="#8a2be2" fill-opacity="0.25"`,
}

// band is an outage over a run of consecutive nodes, First to Last, in
// lanes [Lo, Hi).
type band struct {
	kind        sdk.OutageKind
	start, end  int64
	first, last int32
	lo, hi      int32
}

// outageBands returns the run's outages as bands of consecutive nodes;
// none on a pool.
func (c *Chart) outageBands() []band {
	rows := c.lay.Rows
	if c.lay.Unit != "core" {
		return nil
	}
	var out []band
	for _, o := range c.run.Outages {
		var first, prev int32 = -1, -1
		flush := func() {
			if first >= 0 {
				out = append(out, band{o.Kind, o.Start, o.End, first, prev, rows[first].Lo, rows[prev].Lo + rows[prev].N})
			}
		}
		for k := range o.All(int32(len(rows))) {
			if prev >= 0 && k == prev+1 {
				prev = k
				continue
			}
			flush()
			first, prev = k, k
		}
		flush()
	}
	return out
}

// interrupt is a run of a job that an outage ended: the job's row in the
// jobs file, when, and the lanes of the node it hit.
type interrupt struct {
	job    int
	at     int64
	lo, hi int32
}

// interrupts returns the runs outages ended.
func (c *Chart) interrupts() []interrupt {
	rows := c.lay.Rows
	if c.run.Extras.Outages == nil || c.lay.Unit != "core" {
		return nil
	}
	var out []interrupt
	for i, row := range c.run.Extras.Outages {
		for a, end := range row.AttemptEnds {
			if k := row.AttemptNodes[a]; k >= 0 && int(k) < len(rows) {
				out = append(out, interrupt{i, end, rows[k].Lo, rows[k].Lo + rows[k].N})
			}
		}
	}
	return out
}

// svgOutages draws the run's outages within the window over the rows of
// their nodes (consecutive nodes in one rectangle, class "outage" and the
// kind), and a red tick where an outage ended a job's run, on the node it
// hit (class "interrupt"); it returns how many of each it drew.
func (c *Chart) svgOutages(bw *bufio.Writer, x func(int64) float64, y func(int32) float64) (outages, interrupts int) {
	bands := c.outageBands()
	if len(bands) > 0 {
		bw.WriteString(`<g class="outages">` + "\n")
	}
	drawn := map[int64]bool{}
	for _, b := range bands {
		t0, t1 := max(b.start, c.from), min(b.end, c.to)
		if t1 <= t0 {
			continue
		}
		drawn[b.start<<2|int64(b.kind)] = true
		fmt.Fprintf(bw, `<rect class="outage %s" x="%s" y="%s" width="%s" height="%s" %s><title>%s of nodes %d-%d, %d to %d</title></rect>`+"\n",
			b.kind, num(x(t0)), num(y(b.lo)), num(x(t1)-x(t0)), num(y(b.hi)-y(b.lo)), outageFill[b.kind], b.kind, b.first, b.last, b.start, b.end)
	}
	if len(bands) > 0 {
		bw.WriteString("</g>\n")
	}
	ints := c.interrupts()
	if len(ints) > 0 {
		bw.WriteString(`<g class="interrupts" stroke="#d00" stroke-width="2">` + "\n")
	}
	for _, it := range ints {
		if it.at < c.from || it.at > c.to {
			continue
		}
		fmt.Fprintf(bw, `<line class="interrupt" data-job="%d" x1="%s" x2="%s" y1="%s" y2="%s"/>`+"\n",
			c.run.Jobs[it.job].JobID, num(x(it.at)), num(x(it.at)), num(y(it.lo)), num(y(it.hi)))
		interrupts++
	}
	if len(ints) > 0 {
		bw.WriteString("</g>\n")
	}
	return len(drawn), interrupts
}
