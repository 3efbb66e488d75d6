package gantt_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/browsercheck"
	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/gantt"
	"github.com/schedlab/schedlab/results/layout"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
	"github.com/schedlab/schedlab/workload"
	"github.com/schedlab/schedlab/workload/tracedata"
)

type view struct{ T0, T1, L0, L1 float64 }

// driven is what .ci/browser/gantt.mjs prints.
type driven struct {
	ConsoleErrors []string `json:"console_errors"`
	PageErrors    []string `json:"page_errors"`
	Requests      []string `json:"requests"`
	Viewport      int      `json:"viewport"`
	FirstPaint    float64  `json:"first_paint"`
	RedrawMS      float64  `json:"redraw_ms"`
	Drawn         int      `json:"drawn"`
	PowerLevels   int      `json:"power_levels"`
	View0         view     `json:"view0"`
	Hovered       *int64   `json:"hovered"`
	Tip           string   `json:"tip"`
	AfterWheel    view     `json:"after_wheel"`
	AfterDrag     view     `json:"after_drag"`
	AfterKey      view     `json:"after_key"`
	Screenshot    struct {
		Bytes int64 `json:"bytes"`
	} `json:"screenshot"`
}

func (v *view) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*v = view{m["t0"], m["t1"], m["l0"], m["l1"]}
	return nil
}

// drive writes r's page and runs gantt.mjs on it, hovering at hover (a
// time and a lane) when given.
func drive(t *testing.T, name string, r *layout.Run, hover ...float64) driven {
	t.Helper()
	c, err := gantt.New(r, gantt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, name+".html")
	if err := results.WriteFileAtomic(page, c.HTML); err != nil {
		t.Fatal(err)
	}
	shots := dir
	if d := os.Getenv("SCHEDLAB_SCREENSHOTS"); d != "" {
		shots = d
	}
	args := []string{page, filepath.Join(shots, name+".png")}
	for _, h := range hover {
		args = append(args, strconv.FormatFloat(h, 'f', -1, 64))
	}
	var d driven
	out := browsercheck.Script(t, "gantt.mjs", args...)
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("gantt.mjs printed %s: %v", out, err)
	}
	if len(d.ConsoleErrors)+len(d.PageErrors)+len(d.Requests) > 0 {
		t.Errorf("console %q, page errors %q, requests %q", d.ConsoleErrors, d.PageErrors, d.Requests)
	}
	if d.Viewport != 1280 || d.Drawn == 0 || d.FirstPaint <= 0 || d.Screenshot.Bytes < 10_000 {
		t.Errorf("viewport %d, %d rectangles drawn, first paint %.0f ms, screenshot %d bytes", d.Viewport, d.Drawn, d.FirstPaint, d.Screenshot.Bytes)
	}
	// One wheel step in at the centre shrinks the time span to 0.8 about
	// the centre; dragging 200 px left moves it right by 200 px' worth;
	// '-' widens it by 1.25.
	span := d.View0.T1 - d.View0.T0
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }
	if w := d.AfterWheel.T1 - d.AfterWheel.T0; !near(w, 0.8*span) || !near(d.AfterWheel.T0+w/2, d.View0.T0+span/2) {
		t.Errorf("after a wheel step in: %+v from %+v", d.AfterWheel, d.View0)
	}
	if w := d.AfterDrag.T1 - d.AfterDrag.T0; !near(w, 0.8*span) || d.AfterDrag.T0 <= d.AfterWheel.T0 {
		t.Errorf("after dragging left: %+v from %+v", d.AfterDrag, d.AfterWheel)
	}
	if w := d.AfterKey.T1 - d.AfterKey.T0; !near(w, 0.8*span*1.25) {
		t.Errorf("after '-': %+v", d.AfterKey)
	}
	t.Logf("%s: %d rectangles, first paint %.0f ms, redraw %.1f ms (headless Chromium, this machine)", name, d.Drawn, d.FirstPaint, d.RedrawMS)
	return d
}

// TestPageInBrowser drives the page of a hand-made run, whose jobs lie
// where the test says, and of EASY on KTH-SP2 (committed).
func TestPageInBrowser(t *testing.T) {
	t.Run("hand", func(t *testing.T) {
		promised := int64(1)
		r := &layout.Run{
			Jobs: []results.JobRow{
				{JobID: 1, Submit: 0, Start: 0, End: 10, Procs: 3, User: 7},
				{JobID: 2, Submit: 1, Start: 1, End: 6, Procs: 1, Killed: true, User: 8, PromisedStart: &promised},
				{JobID: 4, Submit: 3, Start: 10, End: 15, Procs: 4, Backfilled: true, User: 7},
			},
			Meta:     results.Metadata{"run.label": "hand"},
			Platform: sdk.Platform{Name: "four", Resources: []string{"procs"}, Clusters: []sdk.Cluster{{Capacity: sdk.Vector{4}}}},
		}
		d := drive(t, "hand", r, 3, 3.5) // job 2 holds processor 3 over [1, 6)
		if d.Hovered == nil || *d.Hovered != 2 || !strings.Contains(d.Tip, "job 2 (killed)") || !strings.Contains(d.Tip, "wait 0 s, ran 5 s, promised start 1") {
			t.Errorf("hovering job 2 shows %v: %q", d.Hovered, d.Tip)
		}
	})
	t.Run("hand with power", func(t *testing.T) {
		cp := 400.0
		r := &layout.Run{
			Jobs: []results.JobRow{
				{JobID: 1, Submit: 0, Start: 0, End: 10, Procs: 3, User: 7},
				{JobID: 4, Submit: 3, Start: 10, End: 15, Procs: 4, Backfilled: true, User: 7},
			},
			Meta:     results.Metadata{"run.label": "hand with power"},
			Platform: sdk.Platform{Name: "four", Resources: []string{"procs"}, Clusters: []sdk.Cluster{{Capacity: sdk.Vector{4}}}},
			Power: []results.PowerStepRow{
				{Start: 0, End: 5, Watts: 300, CapWatts: &cp},
				{Start: 5, End: 10, Watts: 200, CapWatts: &cp},
				{Start: 10, End: 15, Watts: 100},
			},
		}
		// The canvas is 620 + 164 px high; the chart's 4 lanes take
		// 784 - 10 - 204 = 570 px, the power panel 584 to 734 px below
		// the chart's top: lane 4.6 is 655.5 px, within it.
		d := drive(t, "hand-power", r, 7, 4.6)
		if d.PowerLevels != 3 || d.Hovered != nil || !strings.Contains(d.Tip, "200.0 W over [5, 10)") || !strings.Contains(d.Tip, "cap 400.0 W") {
			t.Errorf("%d power levels drawn; hovering the power panel at 7 s shows %v: %q", d.PowerLevels, d.Hovered, d.Tip)
		}
	})
	t.Run("KTH-SP2", func(t *testing.T) {
		drive(t, "kth-easy", easyRun(t, filepath.Join("..", "..", "experiments", "data", "KTH-SP2-1996-2.1-cln.swf.gz")))
	})
}

// TestCurieInBrowser draws EASY on CEA-Curie whole (295,540 jobs; shared
// data) and logs its first paint, the figure docs/gantt.md quotes.
func TestCurieInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: CEA-Curie in the browser takes a minute")
	}
	path, err := tracedata.Path("CEA-Curie-2011-2.1-cln.swf.gz")
	if errors.Is(err, tracedata.ErrNotFound) {
		if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
			t.Fatalf("CEA-Curie not available under CI: %v", err)
		}
		t.Skipf("CEA-Curie not available, skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	drive(t, "curie-easy", easyRun(t, path))
}

// easyRun simulates EASY on the trace at path and returns its run as a
// jobs file would hold it.
func easyRun(t *testing.T, path string) *layout.Run {
	t.Helper()
	w, err := workload.LoadSWF(path, 0, workload.DefaultClean())
	if err != nil {
		t.Fatal(err)
	}
	p := sdk.SingleCluster(filepath.Base(path), w.Procs)
	res, err := sim.Run(t.Context(), backfill.EASY(), sim.Config{Platform: p, Jobs: w.Jobs})
	if err != nil {
		t.Fatal(err)
	}
	return &layout.Run{Path: path, Jobs: runner.JobRows(w.Jobs, res.Records), Platform: *p,
		Meta: results.Metadata{"run.label": "easy on " + filepath.Base(path)}}
}
