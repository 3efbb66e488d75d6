// Command summarize turns the two Kopański & Rządca (2021) campaigns (kth:
// the whole KTH-SP2 log; parts: its 16-part split; see the manifests next
// to this folder) into the tables and figures of
// docs/reproductions/kopanski2021.md. It reads only the campaigns' Parquet
// files.
//
//	go run ./experiments/kopanski2021/summarize -campaigns out/kopanski2021 -figures docs/reproductions/kopanski2021
//
// Whole log: per policy, the mean over the replicates (burst-buffer seeds)
// with a 95 % Student t interval, and ratios to sjf-bb and fcfs-bb over
// paired runs (same replicate, hence the same burst-buffer requests) from
// results/compare, and the quantiles of the job waits pooled over the
// replicates, read from the jobs files, with their tail as a figure; and
// the authors' one allocation-only run per policy (artefactWait,
// artefactTails) set against the range of our runs, the yardstick for a
// single run. Parts: as in the paper, each policy's metric in a part
// divided by sjf-bb's in the same part and replicate; per part the mean of
// these ratios over the replicates, then box plots over the 16 parts. The
// Gantt charts of the paper's starvation example come from simulating
// plugins/burstbuffer's hand-worked scenario.
package main

import (
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/schedlab/schedlab/results/compare"
	"github.com/schedlab/schedlab/results/stats"
)

func main() {
	root := flag.String("campaigns", "out/kopanski2021", "folder holding the kth and parts campaigns")
	figs := flag.String("figures", "", "folder to write the SVG figures into (none when empty)")
	jobs := flag.Bool("jobs", true, "read the whole-log campaign's jobs files for the quantiles and tails of the waits (false: runs.parquet only)")
	flag.Parse()
	if err := run(os.Stdout, *root, *figs, *jobs); err != nil {
		fmt.Fprintln(os.Stderr, "summarize:", err)
		os.Exit(1)
	}
}

// artefactWait is the mean wait (seconds) of the authors' one run per policy
// on the whole log in their allocation-only model, not the published
// paper's, which is the I/O model's. All come from one run set, the output
// folder KTH-alloc-only-filter of github.com/jankopanski/Burst-Buffer-Scheduling
// (commit 55cbeed), read by two notebooks: analysis/ScheduleComparison-AllocOnly.ipynb
// (cell 16, counting from 0, In [230], waiting_times.describe(): filler,
// backfill-1, no-future-1, fcfs) and analysis/BestScheduleComparison-AllocOnly.ipynb
// (cell 15, In [11]: backfill-1, backfill-sjf-1, plan-opt-square-0,
// plan-opt-cube-0). Both read the same backfill-1 run (14,791.352665 s in
// each). These are per-job means over the 28,453 jobs that ran; Batsim's
// mean_waiting_time averages over 28,467, the 14 rejected jobs at no wait.
var artefactWait = map[string]float64{
	"fcfs": 5.764506e6, "filler": 2.356393e4, "fcfs-easy": 5.509821e6,
	"fcfs-bb": 14791.352665, "sjf-bb": 16030.177212, "plan-2": 1.105945e4, "plan-3": 1.199261e4,
}

// plotted are the policies of the box plots and the whole-log figure: fcfs
// and fcfs-easy wait 100 to 1000 times longer and would flatten the rest;
// the tables give them.
var plotted = []string{"filler", "fcfs-bb", "sjf-bb", "plan-1", "plan-2", "plan-3"}

func run(w io.Writer, root, figs string, jobs bool) error {
	kth, err := compare.Load(filepath.Join(root, "kth"))
	if err != nil {
		return err
	}
	if err := whole(w, kth, figs); err != nil {
		return err
	}
	if err := artefactTable(w, kth); err != nil {
		return err
	}
	if err := artefactRuns(w, kth); err != nil {
		return err
	}
	if jobs {
		waits, err := jobWaits(kth)
		if err != nil {
			return err
		}
		waitTable(w, kth.Values("policy"), waits, replicates(kth))
		if figs != "" {
			if err := tailFigure(filepath.Join(figs, "kth-tail.svg"), waits, replicates(kth)); err != nil {
				return err
			}
		}
	}
	if figs != "" {
		if _, err := starvationFigure(filepath.Join(figs, "starvation.svg")); err != nil {
			return err
		}
	}
	parts, err := compare.Load(filepath.Join(root, "parts"))
	if err != nil {
		return err
	}
	if err := split(w, parts, figs, ""); err != nil {
		return err
	}
	withIO, err := compare.Load(filepath.Join(root, "io"))
	if err != nil {
		return err
	}
	if err := ioWhole(w, withIO, kth); err != nil {
		return err
	}
	partsIO, err := compare.Load(filepath.Join(root, "parts-io"))
	if err != nil {
		return err
	}
	return split(w, partsIO, figs, "io")
}

// whole writes the tables of the whole-log campaign.
func whole(w io.Writer, c *compare.Campaign, figs string) error {
	policies := c.Values("policy")
	fmt.Fprintf(w, "### Whole KTH: mean over %d replicates, 95 %% t interval\n\n", replicates(c))
	fmt.Fprintln(w, "| policy | mean wait (s) | authors' artefact | mean bounded slowdown (tau 600 s) | runs |")
	fmt.Fprintln(w, "|---|---|---:|---|---:|")
	sums := map[string]stats.Summary{}
	for _, pol := range policies {
		wait, n := values(c, "mean_wait", func(r compare.Run) bool { return r.Axes["policy"] == pol })
		bsld, _ := values(c, "mean_bsld", func(r compare.Run) bool { return r.Axes["policy"] == pol })
		sw := stats.Describe(wait, 0.95)
		sums[pol] = sw
		paper := "-"
		if v, ok := artefactWait[pol]; ok {
			paper = thousands(v)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d |\n", pol, ci(sw, 0), paper, ci(stats.Describe(bsld, 0.95), 2), n)
	}
	fmt.Fprintln(w)
	for _, base := range []string{"sjf-bb", "fcfs-bb"} {
		fmt.Fprintf(w, "### Whole KTH: ratio of means to %s over paired runs (bootstrap 95 %% interval), Wilcoxon p (Holm)\n\n", base)
		fmt.Fprintln(w, "| policy | wait ratio | artefact wait ratio | bsld ratio | better / worse runs (wait) | p (wait) |")
		fmt.Fprintln(w, "|---|---|---:|---|---:|---:|")
		wr, err := ratios(c, "mean_wait", base)
		if err != nil {
			return err
		}
		br, err := ratios(c, "mean_bsld", base)
		if err != nil {
			return err
		}
		for _, pol := range policies {
			cw, ok := wr[pol]
			if !ok {
				continue
			}
			paper := "-"
			if a, ok := artefactWait[pol]; ok {
				paper = fmt.Sprintf("%.3f", a/artefactWait[base])
			}
			p := "-"
			if cw.Wilcoxon != nil {
				p = fmt.Sprintf("%.3g", cw.PHolm)
			}
			cb := br[pol]
			fmt.Fprintf(w, "| %s | %s | %s | %s | %d / %d | %s |\n", pol, ratio(cw), paper, ratio(cb), cw.Better, cw.Worse, p)
		}
		fmt.Fprintln(w)
	}
	if figs == "" {
		return nil
	}
	return meansFigure(filepath.Join(figs, "kth-wait.svg"), sums)
}

// split writes the tables and figures of a 16-part campaign: the
// allocation-only one (model ""), or the one with I/O (model "io"), whose
// titles and figure files say so.
func split(w io.Writer, c *compare.Campaign, figs, model string) error {
	workloads := c.Values("workload")
	reps := replicates(c)
	title, file := "", "parts"
	if model == "io" {
		title, file = "With I/O, ", "parts-io"
	}
	for _, metric := range []struct{ col, name, file string }{
		{"mean_wait", "mean wait", file + "-wait.svg"},
		{"mean_bsld", "mean bounded slowdown", file + "-bsld.svg"},
	} {
		perPart, err := partRatios(c, metric.col, "sjf-bb")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "### %s%d parts: %s / sjf-bb's, per part the mean over %d replicates; over the parts\n\n", title, len(workloads), metric.name, reps)
		fmt.Fprintln(w, "| policy | median | quartiles | min - max | parts better than sjf-bb | mean of the part ratios [95 % t] |")
		fmt.Fprintln(w, "|---|---:|---|---|---:|---|")
		for _, pol := range c.Values("policy") {
			xs := perPart[pol]
			if len(xs) == 0 || pol == "sjf-bb" {
				continue
			}
			q := quantiles(xs)
			better := 0
			for _, x := range xs {
				if x < 1 {
					better++
				}
			}
			fmt.Fprintf(w, "| %s | %s | %s - %s | %s - %s | %d of %d | %s |\n", pol, g3(q[2]), g3(q[1]), g3(q[3]),
				g3(q[0]), g3(q[4]), better, len(xs), ci(stats.Describe(xs, 0.95), 3))
		}
		fmt.Fprintln(w)
		if figs != "" {
			fig := fmt.Sprintf("%sKTH in %d parts: %s relative to sjf-bb", title, len(workloads), metric.name)
			if err := boxFigure(filepath.Join(figs, metric.file), fig, perPart); err != nil {
				return err
			}
		}
	}
	// Per part: the jobs, sjf-bb's wait, and plan-2 and fcfs-bb against it.
	fmt.Fprintf(w, "### %sPer part (mean over %d replicates; ratios per replicate, then averaged)\n\n", title, reps)
	fmt.Fprintln(w, "| part | jobs | sjf-bb mean wait (s) | fcfs-bb / sjf-bb | plan-2 / sjf-bb |")
	fmt.Fprintln(w, "|---|---:|---:|---|---|")
	for _, wl := range workloads {
		in := func(pol string) func(compare.Run) bool {
			return func(r compare.Run) bool { return r.Axes["workload"] == wl && r.Axes["policy"] == pol }
		}
		jobs, _ := values(c, "jobs", in("sjf-bb"))
		wait, _ := values(c, "mean_wait", in("sjf-bb"))
		row := fmt.Sprintf("| %s | %.0f | %s |", wl, mean(jobs), thousands(mean(wait)))
		for _, pol := range []string{"fcfs-bb", "plan-2"} {
			rs, err := pairRatios(c, "mean_wait", "sjf-bb", pol, func(r compare.Run) bool { return r.Axes["workload"] == wl })
			if err != nil {
				return err
			}
			row += " " + ci(stats.Describe(rs, 0.95), 3) + " |"
		}
		fmt.Fprintln(w, row)
	}
	fmt.Fprintln(w)
	return nil
}

// values returns the metric of the completed runs that keep selects, and
// how many there are.
func values(c *compare.Campaign, metric string, keep func(compare.Run) bool) ([]float64, int) {
	var xs []float64
	for _, r := range c.Runs {
		if r.Status == "ok" && keep(r) {
			xs = append(xs, r.Values[metric])
		}
	}
	return xs, len(xs)
}

// ratios compares every policy with base over paired runs, pooling every
// other axis (the comparison of `schedlab compare --by none`).
func ratios(c *compare.Campaign, metric, base string) (map[string]compare.Comparison, error) {
	res, err := compare.Compare(c, compare.Options{Metric: metric, Axis: "policy", Baseline: base, By: []string{}, Seed: 1})
	if err != nil {
		return nil, fmt.Errorf("%s: %s against %s: %w", c.Dir, metric, base, err)
	}
	out := map[string]compare.Comparison{}
	for _, g := range res.Groups {
		for _, cm := range g.Comparisons {
			out[cm.Value] = cm
		}
	}
	return out, nil
}

// pairRatios returns pol's metric divided by base's, per pair of runs with
// the same workload and replicate among those keep selects.
func pairRatios(c *compare.Campaign, metric, base, pol string, keep func(compare.Run) bool) ([]float64, error) {
	key := func(r compare.Run) string { return r.Axes["workload"] + "/" + strconv.Itoa(r.Replicate) }
	bases := map[string]float64{}
	for _, r := range c.Runs {
		if r.Status == "ok" && r.Axes["policy"] == base && keep(r) {
			bases[key(r)] = r.Values[metric]
		}
	}
	var out []float64
	for _, r := range c.Runs {
		if r.Status != "ok" || r.Axes["policy"] != pol || !keep(r) {
			continue
		}
		b, ok := bases[key(r)]
		if !ok {
			return nil, fmt.Errorf("%s: no %s run paired with %s", c.Dir, base, r.Label)
		}
		if b == 0 {
			return nil, fmt.Errorf("%s: %s is 0 under %s in %s: the ratio is undefined", c.Dir, metric, base, key(r))
		}
		out = append(out, r.Values[metric]/b)
	}
	return out, nil
}

// partRatios returns, per policy, one value per part: the mean over the
// replicates of the policy's metric divided by base's.
func partRatios(c *compare.Campaign, metric, base string) (map[string][]float64, error) {
	out := map[string][]float64{}
	for _, pol := range c.Values("policy") {
		for _, wl := range c.Values("workload") {
			rs, err := pairRatios(c, metric, base, pol, func(r compare.Run) bool { return r.Axes["workload"] == wl })
			if err != nil {
				return nil, err
			}
			if len(rs) > 0 {
				out[pol] = append(out[pol], mean(rs))
			}
		}
	}
	return out, nil
}

func replicates(c *compare.Campaign) int {
	n := 0
	for _, r := range c.Runs {
		n = max(n, r.Replicate+1)
	}
	return n
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// quantiles returns the minimum, quartiles and maximum (linear
// interpolation between order statistics, as NumPy's default).
func quantiles(xs []float64) [5]float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	at := func(p float64) float64 {
		h := p * float64(len(s)-1)
		lo := math.Floor(h)
		i := int(lo)
		if i+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[i] + (h-lo)*(s[i+1]-s[i])
	}
	return [5]float64{s[0], at(0.25), at(0.5), at(0.75), s[len(s)-1]}
}

func ci(s stats.Summary, digits int) string {
	f := func(x float64) string {
		if digits == 0 {
			return thousands(x)
		}
		return strconv.FormatFloat(x, 'f', digits, 64)
	}
	if s.N < 2 {
		return f(s.Mean)
	}
	return fmt.Sprintf("%s [%s, %s]", f(s.Mean), f(s.CI.Lo), f(s.CI.Hi))
}

func ratio(cm compare.Comparison) string {
	if cm.RatioBoot == nil {
		return fmt.Sprintf("%.3f", cm.Ratio)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", cm.Ratio, cm.RatioBoot.Lo, cm.RatioBoot.Hi)
}

func g3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

// thousands writes x rounded to an integer with comma separators.
func thousands(x float64) string {
	s := strconv.FormatInt(int64(math.Round(math.Abs(x))), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if x < 0 {
		s = "-" + s
	}
	return s
}

var palette = []color.RGBA{
	{0x7f, 0x7f, 0x7f, 0xff}, {0x1f, 0x77, 0xb4, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0xff, 0x7f, 0x0e, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x94, 0x67, 0xbd, 0xff},
}

// meansFigure plots the whole-log mean wait of the plotted policies with
// their 95 % intervals.
func meansFigure(path string, sums map[string]stats.Summary) error {
	p := plot.New()
	// The crosses are named in the title rather than a legend, whose
	// text width depends on the font the viewer substitutes.
	p.Title.Text = "Whole KTH: mean wait (x: the authors' artefact)"
	p.Y.Label.Text = "mean wait (s)"
	var names []string
	for i, pol := range plotted {
		s, ok := sums[pol]
		if !ok {
			continue
		}
		names = append(names, pol)
		x := float64(len(names) - 1)
		pts, err := plotter.NewScatter(plotter.XYs{{X: x, Y: s.Mean}})
		if err != nil {
			return err
		}
		pts.Color, pts.Shape, pts.Radius = palette[i%len(palette)], draw.CircleGlyph{}, vg.Points(3.5)
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{plotter.XYs{{X: x, Y: s.Mean}}, plotter.YErrors{{Low: s.Mean - s.CI.Lo, High: s.CI.Hi - s.Mean}}})
		if err != nil {
			return err
		}
		bars.Color = palette[i%len(palette)]
		p.Add(pts, bars)
		if v, ok := artefactWait[pol]; ok {
			paper, err := plotter.NewScatter(plotter.XYs{{X: x + 0.2, Y: v}})
			if err != nil {
				return err
			}
			paper.Color, paper.Shape, paper.Radius = color.Black, draw.CrossGlyph{}, vg.Points(4)
			p.Add(paper)
		}
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	return save(p, path)
}

// boxFigure draws one box per plotted policy over the per-part ratios, with
// the parts as dots and a dashed line at 1 (as good as sjf-bb).
func boxFigure(path, title string, perPart map[string][]float64) error {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "ratio to sjf-bb (below 1: shorter)"
	var names []string
	lo, hi := 1.0, 1.0
	for i, pol := range plotted {
		xs := perPart[pol]
		if len(xs) == 0 || pol == "sjf-bb" { // the baseline, 1 everywhere
			continue
		}
		names = append(names, pol)
		x := float64(len(names) - 1)
		c := palette[i%len(palette)]
		bp, err := plotter.NewBoxPlot(vg.Points(24), x, plotter.Values(xs))
		if err != nil {
			return err
		}
		bp.BoxStyle.Color, bp.MedianStyle.Color, bp.WhiskerStyle.Color, bp.GlyphStyle.Color = c, c, c, c
		bp.MedianStyle.Width = vg.Points(2)
		p.Add(bp)
		dots := make(plotter.XYs, len(xs))
		for k, v := range xs {
			dots[k] = plotter.XY{X: x + 0.3, Y: v}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return err
		}
		sc.Color, sc.Shape, sc.Radius = c, draw.CircleGlyph{}, vg.Points(1.8)
		p.Add(sc)
	}
	one, err := plotter.NewLine(plotter.XYs{{X: -0.6, Y: 1}, {X: float64(len(names)) - 0.4, Y: 1}})
	if err != nil {
		return err
	}
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	one.Color = color.Gray{Y: 0x60}
	p.Add(one)
	p.NominalX(names...)
	pad := 0.05 * (hi - lo)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	p.Add(plotter.NewGrid())
	return save(p, path)
}

func save(p *plot.Plot, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := p.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
