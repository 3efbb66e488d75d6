package gantt

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/layout"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// handRun is four jobs on 4 processors, from 0 to 15: job 1 on 0-2 for
// [0, 10), job 2 (killed, user 8) on 3 for [1, 6), job 3 of no runtime,
// job 4 (backfilled) on 0-3 for [10, 15).
func handRun() *layout.Run {
	return &layout.Run{
		Jobs: []results.JobRow{
			{JobID: 1, Submit: 0, Start: 0, End: 10, Procs: 3, User: 7},
			{JobID: 2, Submit: 1, Start: 1, End: 6, Procs: 1, Killed: true, User: 8},
			{JobID: 3, Submit: 2, Start: 4, End: 4, Procs: 1, User: 7},
			{JobID: 4, Submit: 3, Start: 10, End: 15, Procs: 4, Backfilled: true, User: 7},
		},
		Meta:     results.Metadata{"run.label": "hand"},
		Platform: sdk.Platform{Name: "four", Resources: []string{"procs"}, Clusters: []sdk.Cluster{{Capacity: sdk.Vector{4}}}},
	}
}

type svgRect struct {
	Class  string  `xml:"class,attr"`
	Job    string  `xml:"data-job,attr"`
	X      float64 `xml:"x,attr"`
	Y      float64 `xml:"y,attr"`
	Width  float64 `xml:"width,attr"`
	Height float64 `xml:"height,attr"`
	Fill   string  `xml:"fill,attr"`
}

type svgLine struct {
	Class string  `xml:"class,attr"`
	Job   string  `xml:"data-job,attr"`
	X1    float64 `xml:"x1,attr"`
	Y1    float64 `xml:"y1,attr"`
	Y2    float64 `xml:"y2,attr"`
}

type svgDoc struct {
	Jobs  []svgRect `xml:"g>rect"`
	Rows  []svgLine `xml:"g>line"`
	Texts []string  `xml:"text"`
}

func drawSVG(t *testing.T, r *layout.Run, opts Options) svgDoc {
	t.Helper()
	c, err := New(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := c.SVG(&b); err != nil {
		t.Fatal(err)
	}
	var d svgDoc
	if err := xml.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatalf("the SVG does not parse: %v", err)
	}
	var jobs []svgRect
	for _, r := range d.Jobs {
		if r.Class == "job" {
			jobs = append(jobs, r)
		}
	}
	d.Jobs = jobs
	return d
}

func TestSVGLayout(t *testing.T) {
	w := float64(svgWidth - plotLeft - plotRight)
	near := func(a, b float64) bool { return a-b < 0.011 && b-a < 0.011 }
	from, to := int64(5), int64(12)
	tests := []struct {
		name string
		opts Options
		want []svgRect // x, y, width, height and fill of each job's rectangle
	}{
		{"whole run, by decision", Options{}, []svgRect{
			{Job: "1", X: plotLeft, Y: plotTop, Width: w * 10 / 15, Height: plotHeight * 3 / 4, Fill: "#0072B2"},
			{Job: "2", X: plotLeft + w/15, Y: plotTop + plotHeight*3/4, Width: w * 5 / 15, Height: plotHeight / 4, Fill: "#D55E00"},
			{Job: "4", X: plotLeft + w*10/15, Y: plotTop, Width: w * 5 / 15, Height: plotHeight, Fill: "#009E73"},
		}},
		{"a window clips the jobs, by user", Options{From: &from, To: &to, Colour: "user"}, []svgRect{
			{Job: "1", X: plotLeft, Y: plotTop, Width: w * 5 / 7, Height: plotHeight * 3 / 4, Fill: "#0072B2"},
			{Job: "2", X: plotLeft, Y: plotTop + plotHeight*3/4, Width: w / 7, Height: plotHeight / 4, Fill: "#D55E00"},
			{Job: "4", X: plotLeft + w*5/7, Y: plotTop, Width: w * 2 / 7, Height: plotHeight, Fill: "#0072B2"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := drawSVG(t, handRun(), tc.opts)
			if len(d.Jobs) != len(tc.want) {
				t.Fatalf("%d job rectangles, want %d: %+v", len(d.Jobs), len(tc.want), d.Jobs)
			}
			for i, g := range d.Jobs {
				e := tc.want[i]
				if g.Job != e.Job || !near(g.X, e.X) || !near(g.Y, e.Y) || !near(g.Width, e.Width) || !near(g.Height, e.Height) || g.Fill != e.Fill {
					t.Errorf("rectangle %d: %+v, want %+v", i, g, e)
				}
			}
		})
	}
}

func TestSVGNodes(t *testing.T) {
	r := handRun()
	r.Jobs = r.Jobs[:2]
	r.Platform.Clusters[0].Nodes = []sdk.NodeGroup{{Name: "n", Count: 3, Cores: 2}}
	r.Extras.Nodes = []results.NodeRow{
		{AllocNodes: []int32{0, 1}, AllocCores: []int32{2, 1}, NodePartition: "a"},
		{AllocNodes: []int32{1}, AllocCores: []int32{1}, NodePartition: "b"},
	}
	d := drawSVG(t, r, Options{Colour: "node_partition"})
	// Six cores, 80 px each: job 1 on node 0's two cores and node 1's
	// first, job 2 on node 1's second.
	var got []string
	for _, j := range d.Jobs {
		got = append(got, j.Job+"@"+strconv.FormatFloat(j.Y-plotTop, 'f', 0, 64)+"+"+strconv.FormatFloat(j.Height, 'f', 0, 64))
	}
	if strings.Join(got, " ") != "1@0+160 1@160+80 2@240+80" {
		t.Errorf("rectangles %v", got)
	}
	var lines []float64
	for _, l := range d.Rows {
		if l.Class != "promise" {
			lines = append(lines, l.Y1-plotTop)
		}
	}
	if len(lines) < 2 || lines[0] != 160 || lines[1] != 320 {
		t.Errorf("row lines at %v, want 160 and 320 first", lines)
	}
	if !strings.Contains(strings.Join(d.Texts, "|"), "n[2]") {
		t.Errorf("no row label n[2] in %q", d.Texts)
	}
}

// TestSVGPromises: a dashed line at the start promised to a job that
// started at another time, across its lanes; none for a job that started
// when promised.
func TestSVGPromises(t *testing.T) {
	r := handRun()
	twelve, one := int64(12), int64(1)
	r.Jobs[3].PromisedStart = &twelve // job 4 ran from 10 on processors 0-3
	r.Jobs[1].PromisedStart = &one    // job 2 started at 1, as promised
	d := drawSVG(t, r, Options{})
	var promises []svgLine
	for _, l := range d.Rows {
		if l.Class == "promise" {
			promises = append(promises, l)
		}
	}
	w := float64(svgWidth - plotLeft - plotRight)
	if len(promises) != 1 || promises[0].Job != "4" || math.Abs(promises[0].X1-(plotLeft+w*12/15)) > 0.01 ||
		promises[0].Y1 != plotTop || promises[0].Y2 != plotTop+plotHeight {
		t.Errorf("promise lines %+v", promises)
	}
	if !strings.Contains(strings.Join(d.Texts, "|"), "reservations) of the 1 jobs") {
		t.Errorf("no note of the promises in %q", d.Texts)
	}
}

func TestBadOptions(t *testing.T) {
	at := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"an unknown column", Options{Colour: "colour"}},
		{"a window after the run", Options{From: at(20), To: at(30)}},
		{"a window before the run", Options{From: at(-10), To: at(0)}},
		{"an empty window", Options{From: at(5), To: at(5)}},
		{"node partitions on a pool", Options{Colour: "node_partition"}},
		{"home outside a grid", Options{Colour: "home"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(handRun(), tc.opts); !errors.Is(err, ErrInput) {
				t.Errorf("err %v, want ErrInput", err)
			}
		})
	}
}

func TestHTMLData(t *testing.T) {
	c, err := New(handRun(), Options{Colour: "user"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := c.HTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	start := strings.Index(page, `<script id="gantt-data" type="application/json">`)
	end := strings.Index(page[start:], "</script>")
	if start < 0 || end < 0 {
		t.Fatal("no data script")
	}
	raw := page[start+len(`<script id="gantt-data" type="application/json">`) : start+end]
	var d data
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		t.Fatalf("data: %v\n%s", err, raw)
	}
	// Jobs that held lanes: 1, 2 and 4; user 7 (two of them) first.
	if len(d.Jobs.ID) != 3 || d.Jobs.ID[2] != 4 || d.Cats[0][0] != "user 7" || len(d.Spans) != 2 {
		t.Fatalf("data %+v", d)
	}
	want := [][]int32{{0, 0, 3, 2, 0, 4}, {1, 3, 1}}
	for k := range want {
		if !slices.Equal(d.Spans[k], want[k]) {
			t.Errorf("spans of %v: %v, want %v", d.Cats[k][0], d.Spans[k], want[k])
		}
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("the page names a URL; it must be self-contained")
	}
}

func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 10, "0 2 4 6 8 10"},
		{6.9, 13.9, "8 10 12"},
		{0, 1, "0 0.2 0.4 0.6 0.8 1"},
	} {
		var got []string
		for _, v := range ticks(tc.lo, tc.hi, 6) {
			got = append(got, strconv.FormatFloat(v, 'g', 6, 64))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("ticks(%g, %g) = %v, want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestSVGOutages: on three nodes of two cores (80 px a core, 160 a node)
// over the window [0, 10] (the first submission to the last end, 115 px a
// second), a failure of node 1 from 2 to 4 is one rectangle over node 1's
// row; a maintenance of every node from 8 to 20, clipped to the window's
// end, is one rectangle over all three rows; the run of job 1 that the
// failure ended is a red tick at 2 on node 1.
func TestSVGOutages(t *testing.T) {
	r := handRun()
	r.Jobs = r.Jobs[:2]
	r.Platform.Clusters[0].Nodes = []sdk.NodeGroup{{Name: "n", Count: 3, Cores: 2}}
	r.Extras.Nodes = []results.NodeRow{
		{AllocNodes: []int32{0, 1}, AllocCores: []int32{2, 1}},
		{AllocNodes: []int32{1}, AllocCores: []int32{1}},
	}
	r.Extras.Outages = []results.OutageRow{{Attempts: 1, AttemptStarts: []int64{0}, AttemptEnds: []int64{2}, AttemptNodes: []int32{1}, AttemptCauses: []string{"failure"}}, {}}
	outs, err := results.DecodeOutages(results.EncodeOutages([]sdk.Outage{
		{Nodes: []int32{1}, Start: 2, End: 4, Kind: sdk.Failure},
		{Start: 8, End: 20, Kind: sdk.Maintenance},
	}))
	if err != nil {
		t.Fatal(err)
	}
	// The policy drained node 2 from 5 and never resumed it: to the
	// run's last end, 10.
	drains, err := results.DecodePolicyDrains(results.EncodePolicyDrains([]sim.PolicyDrain{{Cluster: 0, Node: 2, Start: 5, End: -1}}), 10)
	if err != nil {
		t.Fatal(err)
	}
	r.Outages = append(outs, drains...)
	c, err := New(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := c.SVG(&b); err != nil {
		t.Fatal(err)
	}
	var d struct {
		Rects []svgRect `xml:"g>rect"`
		Lines []svgLine `xml:"g>line"`
	}
	if err := xml.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatalf("the SVG does not parse: %v", err)
	}
	plotW := float64(svgWidth - plotLeft - plotRight)
	px := func(s int64) float64 { return math.Round(float64(s)/10*plotW*100) / 100 }
	var got []string
	for _, x := range d.Rects {
		if strings.HasPrefix(x.Class, "outage") {
			got = append(got, x.Class+" "+strconv.FormatFloat(x.X-plotLeft, 'f', 2, 64)+"+"+strconv.FormatFloat(x.Width, 'f', 2, 64)+
				" "+strconv.FormatFloat(x.Y-plotTop, 'f', 0, 64)+"+"+strconv.FormatFloat(x.Height, 'f', 0, 64))
		}
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	want := []string{"outage failure " + f(px(2)) + "+" + f(px(4)-px(2)) + " 160+160", "outage maintenance " + f(px(8)) + "+" + f(px(10)-px(8)) + " 0+480",
		"outage policy_drain " + f(px(5)) + "+" + f(px(10)-px(5)) + " 320+160"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("outages %q, want %q", got, want)
	}
	ticks := 0
	for _, l := range d.Lines {
		if l.Class == "interrupt" {
			ticks++
			if l.Job != "1" || math.Abs(l.X1-plotLeft-px(2)) > 0.01 || l.Y1-plotTop != 160 || l.Y2-plotTop != 320 {
				t.Errorf("interrupt tick %+v", l)
			}
		}
	}
	if ticks != 1 {
		t.Errorf("%d interrupt ticks, want 1", ticks)
	}
	// The page draws the same, from its data: node 1 is lanes 2-3, every
	// node lanes 0-5.
	b.Reset()
	if err := c.HTML(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"outages":[[1,2,4,2,2],[3,8,20,0,6],[4,5,10,4,2]]`, `"interrupts":[[2,2,2]]`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the page's data lacks %s", want)
		}
	}
}
