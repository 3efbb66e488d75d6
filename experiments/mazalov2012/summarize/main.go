// Command summarize turns the Mazalov & Nikitina (2012) campaigns (table,
// table-request, tau, p, te, readings, fig3, lambda, streams, headline, load:
// see the manifests next to this folder) into the
// tables and figures of docs/reproductions/mazalov2012.md. It reads only
// the campaigns' Parquet files.
//
//	go run ./experiments/mazalov2012/summarize -campaigns out/mazalov2012 -figures docs/reproductions/mazalov2012
//
// Every number is a mean over the replicates (streams of 1000 jobs) with a
// 95 % Student t interval. Per replicate, FCFS and probabilistic backfilling
// run the same stream (same workload seed), so
// dTw = (Tw_FCFS - Tw_Backfill) / Tw_FCFS is computed per stream, as the
// paper does for its one stream; shares are of all jobs of the stream.
package main

import (
	"flag"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/compare"
	"github.com/schedlab/schedlab/results/stats"
)

func main() {
	root := flag.String("campaigns", "out/mazalov2012", "folder holding the campaigns (table, table-request, tau, p, te, readings, fig3, lambda, streams, headline, load)")
	figs := flag.String("figures", "", "folder to write the SVG figures into (none when empty)")
	flag.Parse()
	if err := run(os.Stdout, *root, *figs); err != nil {
		fmt.Fprintln(os.Stderr, "summarize:", err)
		os.Exit(1)
	}
}

// point is the outcome of one setting: per-stream dTw and shares.
type point struct {
	label                 string
	x                     float64
	dTw, backfill, errors stats.Summary
	// n counts the streams; undefined those where no job waited under
	// FCFS, left out of dTw.
	n, undefined int
	streams      streams
}

// paired computes the per-stream figures of the probfill runs of one
// setting against the FCFS runs with the same workload and replicate.
func paired(c *compare.Campaign, keep func(r compare.Run) bool) (point, error) {
	return pairedPolicy(c, "probfill", keep)
}

// pairedPolicy is paired for another policy than probfill.
func pairedPolicy(c *compare.Campaign, policy string, keep func(r compare.Run) bool) (point, error) {
	ps, err := perStream(c, policy, keep)
	if err != nil {
		return point{}, err
	}
	return point{dTw: stats.Describe(ps.dTw, 0.95), backfill: stats.Describe(ps.backfill, 0.95),
		errors: stats.Describe(ps.errors, 0.95), n: len(ps.backfill), undefined: ps.undefined, streams: ps}, nil
}

// streams holds the per-stream values of one setting: dTw (streams where
// a job waited under FCFS; dTwErrors the share of errors of the same
// streams), and the shares backfilled and of errors (every stream).
type streams struct {
	dTw, dTwErrors, backfill, errors []float64
	undefined                        int
}

// perStream pairs each run of the policy that keep admits with the FCFS
// run of the same workload and replicate (the same stream).
func perStream(c *compare.Campaign, policy string, keep func(r compare.Run) bool) (streams, error) {
	fcfs := map[string]compare.Run{}
	for _, r := range c.Runs {
		if r.Status == "ok" && r.Axes["policy"] == "fcfs" {
			fcfs[r.Axes["workload"]+"/"+strconv.Itoa(r.Replicate)] = r
		}
	}
	var s streams
	for _, r := range c.Runs {
		if r.Status != "ok" || r.Axes["policy"] != policy || !keep(r) {
			continue
		}
		f, ok := fcfs[r.Axes["workload"]+"/"+strconv.Itoa(r.Replicate)]
		if !ok {
			return s, fmt.Errorf("%s: no FCFS run for %s", c.Dir, r.Label)
		}
		jobs := r.Values["jobs"]
		if f.Values["mean_wait"] > 0 {
			s.dTw = append(s.dTw, (f.Values["mean_wait"]-r.Values["mean_wait"])/f.Values["mean_wait"])
			s.dTwErrors = append(s.dTwErrors, r.Values["backfill_errors"]/jobs)
		} else {
			s.undefined++ // no job waited under FCFS: dTw is undefined
		}
		s.backfill = append(s.backfill, r.Values["backfilled"]/jobs)
		s.errors = append(s.errors, r.Values["backfill_errors"]/jobs)
	}
	if len(s.backfill) == 0 {
		return s, fmt.Errorf("%s: no completed %s run", c.Dir, policy)
	}
	return s, nil
}

func ci(s stats.Summary) string {
	if s.N < 2 {
		return "-"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", s.Mean, s.CI.Lo, s.CI.Hi)
}

func dtw(p point) string {
	if p.undefined > 0 {
		return fmt.Sprintf("%s (%d streams without FCFS waits left out)", ci(p.dTw), p.undefined)
	}
	return ci(p.dTw)
}

func run(w io.Writer, root, figs string) error {
	load := func(name string) (*compare.Campaign, error) { return compare.Load(filepath.Join(root, name)) }

	// The table, with c_q the head's shortfall and its whole request.
	var table *compare.Campaign
	for _, v := range []struct{ dir, title string }{
		{"table", "Table: 1000-job streams, tau = 0.2, c_q = the head's shortfall"},
		{"table-request", "Table: the same streams, c_q = the head's whole request"},
	} {
		c, err := load(v.dir)
		if err != nil {
			return err
		}
		if table == nil {
			table = c
		}
		fmt.Fprintf(w, "### %s\n\n", v.title)
		fmt.Fprintln(w, "| requests | policy | streams | dTw | share backfilled | share errors | paper: dTw, backfilled, errors |")
		fmt.Fprintln(w, "|---|---|---:|---|---|---|---|")
		for _, wl := range []string{"exponential", "pareto"} {
			for _, pol := range c.Values("policy") {
				if pol == "fcfs" {
					continue
				}
				p, err := pairedPolicy(c, pol, func(r compare.Run) bool { return r.Axes["workload"] == wl })
				if err != nil {
					return err
				}
				ref := "-"
				if v := paperTable()[wl]; pol == "probfill" {
					ref = fmt.Sprintf("%g, %g, %g", v[0], v[1], v[2])
				}
				fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s |\n", wl, pol, p.n, dtw(p), ci(p.backfill), ci(p.errors), ref)
			}
		}
		fmt.Fprintln(w)
	}

	// tau sweep.
	tau, err := load("tau")
	if err != nil {
		return err
	}
	var taus []point
	for _, v := range tau.Values("param_tau") {
		if v == "" {
			continue
		}
		x, _ := strconv.ParseFloat(v, 64)
		p, err := paired(tau, func(r compare.Run) bool { return r.Axes["param_tau"] == v })
		if err != nil {
			return err
		}
		p.label, p.x = "tau = "+v, x
		taus = append(taus, p)
	}
	sweep(w, "Figure 3a: against tau (exponential, t_e = 206.12 min)", "tau", taus)

	// p and t_e sweeps: one workload per value, named p10 .. p30 and te116 .. te300.
	for _, sw := range []struct{ name, title, axis, prefix string }{
		{"p", "Figure 4a: against p, the mean share of the machine a job requests (t_e = 206.12 min, tau = 0.2)", "p", "p"},
		{"te", "Figure 4b: against t_e, the mean runtime in minutes (p = 0.17, tau = 0.2)", "t_e (min)", "te"},
	} {
		c, err := load(sw.name)
		if err != nil {
			return err
		}
		var pts []point
		for _, wl := range c.Values("workload") {
			p, err := paired(c, func(r compare.Run) bool { return r.Axes["workload"] == wl })
			if err != nil {
				return err
			}
			x, _ := strconv.ParseFloat(wl[len(sw.prefix):], 64)
			if sw.name == "p" {
				x /= 100
			}
			p.label, p.x = wl, x
			pts = append(pts, p)
		}
		sweep(w, sw.title, sw.axis, pts)
		if figs != "" {
			if err := sharesFigure(filepath.Join(figs, sw.name+".svg"), sw.title, sw.axis, pts); err != nil {
				return err
			}
		}
	}
	for _, v := range []struct {
		dir string
		f   func(io.Writer, *compare.Campaign) error
	}{
		{"readings", readings},
		{"fig3", func(w io.Writer, c *compare.Campaign) error { return tauCurves(w, c, figs) }},
		{"lambda", lambdaTable},
		{"streams", func(w io.Writer, c *compare.Campaign) error { return streamsTable(w, table, c) }},
		{"headline", headlineTable},
		{"load", loadTable},
		{"table-request", func(w io.Writer, c *compare.Campaign) error {
			return fig5Table(w, []fig5Set{{table, "probfill", "probfill (c_q shortfall)"}, {c, "probfill", "probfill (c_q request)"},
				{table, "probfill-all", "probfill-all (tau = 1)"}, {table, "easy", "easy"}})
		}},
	} {
		c, err := load(v.dir)
		if err != nil {
			return err
		}
		if err := v.f(w, c); err != nil {
			return err
		}
	}
	if figs != "" {
		if err := sharesFigure(filepath.Join(figs, "tau.svg"), "Against tau (exponential, t_e = 206.12 min)", "tau", taus); err != nil {
			return err
		}
		if err := ecdfFigure(filepath.Join(figs, "wait-ecdf.svg"), table); err != nil {
			return err
		}
	}
	return nil
}

func sweep(w io.Writer, title, axis string, pts []point) {
	fmt.Fprintf(w, "### %s\n\n", title)
	fmt.Fprintf(w, "| %s | streams | dTw | share backfilled | share errors |\n|---:|---:|---|---|---|\n", axis)
	for _, p := range pts {
		fmt.Fprintf(w, "| %g | %d | %s | %s | %s |\n", p.x, p.n, dtw(p), ci(p.backfill), ci(p.errors))
	}
	fmt.Fprintln(w)
}

// sharesFigure plots dTw, the share backfilled and the share of errors
// against the swept parameter, with 95 % intervals.
func sharesFigure(path, title, axis string, pts []point) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = axis
	p.Y.Label.Text = "mean over streams (95 % CI)"
	colors := []color.RGBA{{0x1f, 0x77, 0xb4, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff}}
	for k, series := range []struct {
		name string
		get  func(point) stats.Summary
	}{
		{"dTw", func(p point) stats.Summary { return p.dTw }},
		{"share backfilled", func(p point) stats.Summary { return p.backfill }},
		{"share of errors", func(p point) stats.Summary { return p.errors }},
	} {
		if err := addCurve(p, pts, series.get, 0, colors[k], series.name); err != nil {
			return err
		}
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return save(p, path)
}

// addCurve adds to p a line through the means of get over pts, with their
// intervals as error bars, its x shifted by dx; points of fewer than two
// streams are left out.
func addCurve(p *plot.Plot, pts []point, get func(point) stats.Summary, dx float64, c color.RGBA, name string) error {
	var xys plotter.XYs
	var errs plotter.YErrors
	for _, pt := range pts {
		s := get(pt)
		if s.N < 2 {
			continue // nothing to plot at this point
		}
		xys = append(xys, plotter.XY{X: pt.x + dx, Y: s.Mean})
		errs = append(errs, struct{ Low, High float64 }{s.Mean - s.CI.Lo, s.CI.Hi - s.Mean})
	}
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	line.Color, points.Color = c, c
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{xys, errs})
	if err != nil {
		return err
	}
	bars.Color = c
	p.Add(line, points, bars)
	p.Legend.Add(name, line, points)
	return nil
}

// ecdfFigure plots the empirical distribution of job waits under FCFS and
// probabilistic backfilling, pooled over the exponential streams of the
// table campaign (the paper's figure 5).
func ecdfFigure(path string, c *compare.Campaign) error {
	p := plot.New()
	p.Title.Text = "Wait-time ECDF, exponential model, 30 streams pooled"
	p.X.Label.Text = "wait (minutes)"
	p.Y.Label.Text = "share of jobs with a smaller or equal wait"
	colors := map[string]color.RGBA{"fcfs": {0x7f, 0x7f, 0x7f, 0xff}, "probfill": {0x1f, 0x77, 0xb4, 0xff}}
	for _, pol := range []string{"fcfs", "probfill"} {
		var waits []float64
		for _, r := range c.Runs {
			if r.Status != "ok" || r.Axes["policy"] != pol || r.Axes["workload"] != "exponential" {
				continue
			}
			rows, _, err := results.ReadJobs(c.JobsPath(r))
			if err != nil {
				return err
			}
			for _, j := range rows {
				waits = append(waits, float64(j.Wait)/60)
			}
		}
		e := stats.NewECDF(waits)
		// A step function: each value carries the share up to it.
		xys := make(plotter.XYs, 0, 2*len(e.X))
		prev := 0.0
		for i, x := range e.X {
			xys = append(xys, plotter.XY{X: x, Y: prev}, plotter.XY{X: x, Y: e.P[i]})
			prev = e.P[i]
		}
		// Cut the long tail at the 99th percentile of FCFS for legibility.
		line, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		line.Color = colors[pol]
		line.Width = vg.Points(1.5)
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s (%d jobs)", pol, len(waits)), line)
	}
	p.Legend.Top = true
	p.Legend.Left = false
	p.X.Max = 1500
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

// streamsTable compares dTw over whole streams (the table campaign) with
// dTw over the middle of the same streams (the streams campaign, its first
// and last jobs left out of the wait statistics), per request law. The
// shares count every job of a stream in both.
func streamsTable(w io.Writer, whole, middle *compare.Campaign) error {
	warm, cool := middle.Meta["metrics.warmup_jobs"], middle.Meta["metrics.cooldown_jobs"]
	fmt.Fprintf(w, "### How the streams start and end: the first %s and last %s jobs left out of the waits (streams.toml, tau = 0.2)\n\n", warm, cool)
	fmt.Fprintln(w, "| requests | streams | dTw, whole streams | dTw, middle of the streams | share backfilled | share errors |")
	fmt.Fprintln(w, "|---|---:|---|---|---|---|")
	for _, wl := range []string{"exponential", "pareto"} {
		keep := func(r compare.Run) bool { return r.Axes["workload"] == wl }
		all, err := paired(whole, keep)
		if err != nil {
			return err
		}
		mid, err := paired(middle, keep)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", wl, mid.n, dtw(all), dtw(mid), ci(mid.backfill), ci(mid.errors))
	}
	fmt.Fprintln(w)
	return nil
}
