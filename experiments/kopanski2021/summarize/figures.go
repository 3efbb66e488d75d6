package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/schedlab/schedlab/plugins/burstbuffer"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/compare"
	"github.com/schedlab/schedlab/results/stats"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest"
)

// tailProbs are the quantiles of the job waits the quantile table gives:
// the paper's figures of wait quantiles and of the tail (Figs. 7-10) show
// where policies differ, which is in the upper tail, not at the median.
var tailProbs = []float64{0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1}

// jobWaits reads every jobs file of the campaign and returns, per policy,
// the waits of all its jobs pooled over the replicates.
func jobWaits(c *compare.Campaign) (map[string][]float64, error) {
	out := map[string][]float64{}
	for _, r := range c.Runs {
		if r.Status != "ok" {
			continue
		}
		rows, _, err := results.ReadJobs(results.CampaignJobsPath(c.Dir, r.Key))
		if err != nil {
			return nil, err
		}
		pol := r.Axes["policy"]
		for _, j := range rows {
			out[pol] = append(out[pol], float64(j.Wait))
		}
	}
	return out, nil
}

// waitTable writes the quantiles of each policy's pooled job waits.
func waitTable(w io.Writer, policies []string, waits map[string][]float64, reps int) {
	fmt.Fprintf(w, "### Whole KTH: quantiles of the job waits (s), all jobs of the %d replicates pooled\n\n", reps)
	fmt.Fprintln(w, "| policy | jobs | median | p75 | p90 | p95 | p99 | p99.9 | max |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, pol := range policies {
		xs := waits[pol]
		if len(xs) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %d |", pol, len(xs))
		for _, q := range stats.Quantiles(xs, tailProbs) {
			fmt.Fprintf(w, " %s |", thousands(q))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// tailFigure plots, on log-log axes, the share of jobs that waited longer
// than w against w, for the plotted policies: the tail the paper's
// figures compare.
func tailFigure(path string, waits map[string][]float64, reps int) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Whole KTH: share of jobs waiting longer than w (%d replicates pooled)", reps)
	p.X.Label.Text = "w (s)"
	p.Y.Label.Text = "share of jobs with wait > w"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	for i, pol := range plotted {
		xs := slices.Clone(waits[pol])
		if len(xs) == 0 {
			continue
		}
		sort.Float64s(xs)
		var pts plotter.XYs
		// 200 points on a log grid from 1 s to the largest wait.
		top := xs[len(xs)-1]
		for k := 0; k <= 200 && top >= 1; k++ {
			x := math.Pow(top, float64(k)/200)
			above := len(xs) - sort.Search(len(xs), func(i int) bool { return xs[i] > x })
			if above == 0 {
				break
			}
			pts = append(pts, plotter.XY{X: x, Y: float64(above) / float64(len(xs))})
		}
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color, l.Width = palette[i%len(palette)], vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(pol, l)
	}
	// Room above the curves for the legend, and right of the longest
	// wait for its tick label.
	p.Y.Max = 1
	p.X.Max = 3 * math.Max(p.X.Max, 10)
	p.Legend.Top, p.Legend.Left = true, false
	p.Add(plotter.NewGrid())
	return save(p, path)
}

// starvation is the hand-worked scenario of plugins/burstbuffer's
// TestStarvationScenario (the test holds the starts it must give): 4
// processors, a burst buffer of two units of 40; job 2 needs the whole
// burst buffer, jobs 3, 4 and 5 follow one another each holding a piece of
// 20, job 6 needs none.
func starvation() policytest.Scenario {
	sc := policytest.Scenario{Name: "starvation", Platform: &sdk.Platform{Name: "bb", Resources: []string{sdk.Processors, "bb"},
		Clusters: []sdk.Cluster{{Name: "m", Capacity: sdk.Vector{4, 80},
			Units: []sdk.Units{{Resource: 1, PiecesBy: 0, Capacity: []int64{40, 40}}}}}}}
	for _, j := range []struct{ id, submit, runtime, procs, bb int64 }{
		{1, 0, 10, 1, 20}, {2, 1, 10, 2, 80}, {6, 2, 5, 1, 0},
		{3, 5, 10, 1, 20}, {4, 14, 10, 1, 20}, {5, 23, 10, 1, 20},
	} {
		sc.Jobs = append(sc.Jobs, policytest.Job{ID: j.id, Submit: j.submit, Runtime: j.runtime, Walltime: j.runtime, Procs: j.procs})
		sc.Requests = append(sc.Requests, sdk.Vector{j.procs, j.bb})
	}
	return sc
}

// starvationFigure simulates the starvation scenario under fcfs-easy
// (processors reserved only) and fcfs-bb (processors and burst buffer)
// and draws each as a Gantt chart, after the paper's Fig. 3: a bar per job
// from its start to its end, darker the more burst buffer it holds, a
// thin line from its submission, and a cross at a promised start. It
// returns the starts it drew, by policy and job.
func starvationFigure(path string) (map[string]map[int64]int64, error) {
	sc := starvation()
	starts := map[string]map[int64]int64{}
	var plots [][]*plot.Plot
	for _, pol := range []struct {
		name string
		p    sdk.Plugin
	}{{"fcfs-easy", burstbuffer.EASYProcs()}, {"fcfs-bb", burstbuffer.EASY()}} {
		recs, err := policytest.Simulate(pol.p, sc)
		if err != nil {
			return nil, fmt.Errorf("%s on the starvation scenario: %w", pol.name, err)
		}
		starts[pol.name] = map[int64]int64{}
		p := plot.New()
		p.X.Label.Text = "time"
		p.Y.Label.Text = "job"
		var names []string
		for row, j := range sc.Jobs {
			r := recs[j.ID]
			starts[pol.name][j.ID] = r.Start
			y := float64(row)
			names = append(names, fmt.Sprintf("%d (bb %d)", j.ID, sc.Requests[row][1]))
			wait, err := plotter.NewLine(plotter.XYs{{X: float64(j.Submit), Y: y}, {X: float64(r.Start), Y: y}})
			if err != nil {
				return nil, err
			}
			wait.Color, wait.Dashes = color.Gray{Y: 0x80}, []vg.Length{vg.Points(2), vg.Points(2)}
			bar, err := plotter.NewPolygon(plotter.XYs{{X: float64(r.Start), Y: y - 0.35}, {X: float64(r.End), Y: y - 0.35},
				{X: float64(r.End), Y: y + 0.35}, {X: float64(r.Start), Y: y + 0.35}})
			if err != nil {
				return nil, err
			}
			shade := uint8(0xd0 - 0xa0*sc.Requests[row][1]/80)
			bar.Color, bar.LineStyle.Color = color.RGBA{R: shade, G: shade, B: 0xff, A: 0xff}, color.Black
			p.Add(wait, bar)
			if r.HasPromise {
				mark, err := plotter.NewScatter(plotter.XYs{{X: float64(r.Promised), Y: y}})
				if err != nil {
					return nil, err
				}
				mark.Shape, mark.Radius, mark.Color = draw.CrossGlyph{}, vg.Points(5), color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
				p.Add(mark)
			}
		}
		p.Title.Text = fmt.Sprintf("%s: job 2 submitted at 1, starts at %d", pol.name, starts[pol.name][2])
		p.NominalY(names...)
		p.X.Min, p.X.Max = 0, 45
		p.Add(plotter.NewGrid())
		plots = append(plots, []*plot.Plot{p})
	}
	return starts, saveTiles(plots, path)
}

// saveTiles draws plots, one row each, into one SVG file.
func saveTiles(plots [][]*plot.Plot, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	img := vgsvg.New(7*vg.Inch, vg.Length(len(plots))*3*vg.Inch)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Millimeter * 6, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, draw.New(img))
	for i := range plots {
		for j := range plots[i] {
			plots[i][j].Draw(canvases[i][j])
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := img.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// artefactTails are the per-job waits of the authors' one allocation-only
// run per policy (their notebook analysis/BestScheduleComparison-AllocOnly,
// cell 15, waiting_times.describe()): the longest and the median wait, in
// seconds.
var artefactTails = map[string][2]float64{
	"fcfs-bb": {508076.00185, 37.00145}, "sjf-bb": {815531.00335, 9.00055},
	"plan-2": {2490436, 35.00045}, "plan-3": {1417185, 46.0031},
}

// artefactTable sets each run's longest and median wait, and its longest
// wait relative to sjf-bb's in the same replicate, beside the artefact's
// one run. A single run is judged against the range over our runs, not
// against the interval of our mean.
func artefactTable(w io.Writer, c *compare.Campaign) error {
	fmt.Fprintf(w, "### Whole KTH: per run, the longest and the median wait against the artefact's one run (mean over our %d runs [95 %% t], their range)\n\n", replicates(c))
	fmt.Fprintln(w, "| policy | longest wait (s) | range | artefact | longest / sjf-bb's, mean of the per-run ratios | range | artefact | median wait (s) | range | artefact |")
	fmt.Fprintln(w, "|---|---|---|---:|---|---|---:|---|---|---:|")
	rng := func(xs []float64) string {
		return fmt.Sprintf("%s - %s", thousands(slices.Min(xs)), thousands(slices.Max(xs)))
	}
	for _, pol := range []string{"fcfs-bb", "sjf-bb", "plan-1", "plan-2", "plan-3"} {
		in := func(r compare.Run) bool { return r.Axes["policy"] == pol }
		longest, _ := values(c, "max_wait", in)
		median, _ := values(c, "median_wait", in)
		if len(longest) == 0 {
			continue
		}
		rs, err := pairRatios(c, "max_wait", "sjf-bb", pol, func(compare.Run) bool { return true })
		if err != nil {
			return err
		}
		// plan-1 is not in the artefact's run set: "-".
		a, ok := artefactTails[pol]
		their := func(f func() string) string {
			if !ok {
				return "-"
			}
			return f()
		}
		cells := []string{pol, ci(stats.Describe(longest, 0.95), 0), rng(longest), their(func() string { return thousands(a[0]) })}
		if pol == "sjf-bb" {
			cells = append(cells, "1", "1", "1")
		} else {
			cells = append(cells, ci(stats.Describe(rs, 0.95), 3), fmt.Sprintf("%.2f - %.2f", slices.Min(rs), slices.Max(rs)),
				their(func() string { return fmt.Sprintf("%.3f", a[0]/artefactTails["sjf-bb"][0]) }))
		}
		cells = append(cells, ci(stats.Describe(median, 0.95), 1), fmt.Sprintf("%.1f - %.1f", slices.Min(median), slices.Max(median)),
			their(func() string { return fmt.Sprintf("%.1f", a[1]) }))
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintln(w)
	return nil
}

// against says where one value of the authors' single run lies relative
// to our runs' values: the yardstick for every single-run reference value
// (a run of theirs is one draw of requests, so it is compared with our
// runs, one draw each, not with the interval of our mean).
func against(theirs float64, ours []float64) string {
	switch {
	case theirs > slices.Max(ours):
		return fmt.Sprintf("above all %d", len(ours))
	case theirs < slices.Min(ours):
		return fmt.Sprintf("below all %d", len(ours))
	}
	return "within"
}

// artefactRuns sets each policy's mean wait, and its ratios to sjf-bb and
// fcfs-bb in the same replicate, per run beside the artefact's one run
// (artefactWait): the range over our runs and where the artefact's value
// lies in it.
func artefactRuns(w io.Writer, c *compare.Campaign) error {
	fmt.Fprintf(w, "### Whole KTH: mean wait per run against the artefact's one run (range over our %d runs)\n\n", replicates(c))
	fmt.Fprintln(w, "| policy | our runs: mean wait (s) | artefact (s) | artefact against our runs | our runs: / sjf-bb | artefact | artefact against our runs | our runs: / fcfs-bb | artefact | artefact against our runs |")
	fmt.Fprintln(w, "|---|---|---:|---|---|---:|---|---|---:|---|")
	all := func(compare.Run) bool { return true }
	for _, pol := range c.Values("policy") {
		a, ok := artefactWait[pol]
		if !ok {
			continue
		}
		waits, _ := values(c, "mean_wait", func(r compare.Run) bool { return r.Axes["policy"] == pol })
		if len(waits) == 0 {
			continue
		}
		cells := []string{pol, fmt.Sprintf("%s - %s", thousands(slices.Min(waits)), thousands(slices.Max(waits))), thousands(a), against(a, waits)}
		for _, base := range []string{"sjf-bb", "fcfs-bb"} {
			if pol == base {
				cells = append(cells, "1", "1", "-")
				continue
			}
			rs, err := pairRatios(c, "mean_wait", base, pol, all)
			if err != nil {
				return err
			}
			ar := a / artefactWait[base]
			cells = append(cells, fmt.Sprintf("%.3f - %.3f", slices.Min(rs), slices.Max(rs)), fmt.Sprintf("%.3f", ar), against(ar, rs))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintln(w)
	return nil
}
