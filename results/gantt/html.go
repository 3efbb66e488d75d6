package gantt

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
)

//go:embed page.html
var pageHTML string

//go:embed page.js
var pageJS string

// page is the template of the HTML chart, parsed per call rather than held
// in a package variable: a command writes one page.
func page() (*template.Template, error) {
	return template.New("gantt").Parse(pageHTML)
}

// data is what the page's script draws: the whole run, not the window
// alone, so that the reader can pan beyond it. Jobs are columns of the
// jobs that hold lanes; spans are triples (job, first lane, lanes) grouped
// by category, so that the script sets each colour once per frame.
type data struct {
	Title string     `json:"title"`
	Unit  string     `json:"unit"`
	Lanes int32      `json:"lanes"`
	Rows  [][3]any   `json:"rows"`
	From  int64      `json:"from"`
	To    int64      `json:"to"`
	Cats  [][3]any   `json:"cats"`
	Jobs  jobColumns `json:"jobs"`
	// Spans[k] are the spans of category k.
	Spans [][]int32 `json:"spans"`
	// Outages are the run's outages by runs of consecutive nodes: (kind,
	// 1 failure, 2 drain, 3 maintenance; start; end; first lane; lanes);
	// Interrupts the runs outages ended: (time, first lane, lanes).
	Outages    [][5]int64 `json:"outages,omitempty"`
	Interrupts [][3]int64 `json:"interrupts,omitempty"`
	// Power is the platform's draw, of a run with a power file: steps
	// (start, end, watts, cap or -1 for none).
	Power [][4]float64 `json:"power,omitempty"`
}

type jobColumns struct {
	ID     []int64 `json:"id"`
	Submit []int64 `json:"submit"`
	Start  []int64 `json:"start"`
	End    []int64 `json:"end"`
	Procs  []int64 `json:"procs"`
	User   []int64 `json:"user"`
	Cat    []int32 `json:"cat"`
	// Promised is the start the policy promised (a reservation), -1
	// without one.
	Promised []int64  `json:"promised"`
	Where    []string `json:"where"`
}

// HTML writes the chart as a self-contained page (no request leaves it):
// a canvas that pans (drag, arrow keys) and zooms (wheel on time, shift and
// wheel on lanes, +/-), a job's details on hover, the window of opts as
// the first view and a button back to it.
func (c *Chart) HTML(w io.Writer) error {
	d := data{Title: c.title, Unit: c.lay.Unit, Lanes: c.lay.Lanes, From: c.from, To: c.to}
	for _, r := range c.lay.Rows {
		d.Rows = append(d.Rows, [3]any{r.Name, r.Lo, r.N})
	}
	cats := c.Categories()
	for _, k := range cats {
		d.Cats = append(d.Cats, [3]any{k.Name, k.Colour, k.Jobs})
	}
	d.Spans = make([][]int32, len(cats))
	for i, j := range c.run.Jobs {
		sp := c.lay.Spans[i]
		if sp == nil {
			continue
		}
		k := int32(len(d.Jobs.ID))
		d.Jobs.ID = append(d.Jobs.ID, j.JobID)
		d.Jobs.Submit = append(d.Jobs.Submit, j.Submit)
		d.Jobs.Start = append(d.Jobs.Start, j.Start)
		d.Jobs.End = append(d.Jobs.End, j.End)
		d.Jobs.Procs = append(d.Jobs.Procs, j.Procs)
		d.Jobs.User = append(d.Jobs.User, j.User)
		d.Jobs.Cat = append(d.Jobs.Cat, c.cat[i])
		p := int64(-1)
		if j.PromisedStart != nil {
			p = *j.PromisedStart
		}
		d.Jobs.Promised = append(d.Jobs.Promised, p)
		d.Jobs.Where = append(d.Jobs.Where, c.where(i))
		cat := c.cat[i]
		for _, s := range sp {
			d.Spans[cat] = append(d.Spans[cat], k, s.Lo, s.N)
		}
	}
	for _, b := range c.outageBands() {
		d.Outages = append(d.Outages, [5]int64{int64(b.kind), b.start, b.end, int64(b.lo), int64(b.hi - b.lo)})
	}
	for _, it := range c.interrupts() {
		d.Interrupts = append(d.Interrupts, [3]int64{it.at, int64(it.lo), int64(it.hi - it.lo)})
	}
	for _, s := range c.run.Power {
		cp := -1.0
		if s.CapWatts != nil {
			cp = *s.CapWatts
		}
		d.Power = append(d.Power, [4]float64{float64(s.Start), float64(s.End), s.Watts, cp})
	}
	js, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("gantt: %w", err)
	}
	t, err := page()
	if err != nil {
		return fmt.Errorf("gantt: %w", err)
	}
	return t.Execute(w, map[string]any{
		"Title":  c.title,
		"Data":   template.JS(js),
		"Script": template.JS(pageJS),
		"Power":  d.Power != nil,
	})
}

// where names the rows job i ran on, for the hover text: its nodes on a
// platform of nodes (at most eight, then a count), else its processors.
func (c *Chart) where(i int) string {
	if c.run.Extras.Nodes == nil {
		sp := c.lay.Spans[i]
		s := c.lay.Unit + "s "
		for k, x := range sp[:min(len(sp), 8)] {
			if k > 0 {
				s += " "
			}
			s += strconv.Itoa(int(x.Lo))
			if x.N > 1 {
				s += "-" + strconv.Itoa(int(x.Lo+x.N-1))
			}
		}
		if len(sp) > 8 {
			s += fmt.Sprintf(" and %d more runs", len(sp)-8)
		}
		return s
	}
	nodes := c.run.Extras.Nodes[i].AllocNodes
	s := ""
	for k, n := range nodes[:min(len(nodes), 8)] {
		if k > 0 {
			s += ", "
		}
		s += c.lay.Rows[n].Name
	}
	if len(nodes) > 8 {
		s += fmt.Sprintf(" and %d more nodes", len(nodes)-8)
	}
	return s
}
