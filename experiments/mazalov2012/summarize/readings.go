package main

import (
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/schedlab/schedlab/results/compare"
	"github.com/schedlab/schedlab/results/stats"
)

// paperTable is the paper's table: dTw, share backfilled, share of errors.
func paperTable() map[string][3]float64 {
	return map[string][3]float64{"exponential": {0.27, 0.16, 0.02}, "pareto": {0.23, 0.14, 0.03}}
}

// inside says whether v lies in the interval of s.
func inside(s stats.Summary, v float64) string {
	if s.N >= 2 && s.CI.Lo <= v && v <= s.CI.Hi {
		return "yes"
	}
	return "no"
}

// readings prints the factorial campaign of the method's readings: for
// each law, each combination of cq, te, lambda and mu and each tau, the
// paired figures, whether the paper's table's values fall in their
// intervals and how many streams meet the headline (dTw > 0.5 with errors
// <= 0.04); then, per reading, where the interval of dTw lies against 0.5
// at the tau where its mean is largest.
func readings(w io.Writer, c *compare.Campaign) error {
	taus := nonEmpty(c.Values("param_tau"))
	fmt.Fprintf(w, "### The readings of the method against tau (readings.toml: tau = %s, 30 streams each)\n\n", strings.Join(taus, ", "))
	fmt.Fprintln(w, "| requests | cq | te | lambda | mu | tau | dTw | share backfilled | share errors | the paper's dTw, backfilled, errors in the interval | streams with dTw > 0.5 and errors <= 0.04 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---:|---|---|---|---|---:|")
	all, n := 0, 0
	var verdicts []string
	counts := map[string]int{}
	for _, wl := range []string{"exponential", "pareto"} {
		ref := paperTable()[wl]
		for _, cq := range nonEmpty(c.Values("param_cq")) {
			for _, te := range nonEmpty(c.Values("param_te")) {
				for _, lambda := range nonEmpty(c.Values("param_lambda")) {
					for _, mu := range nonEmpty(c.Values("param_mu")) {
						var b point
						bTau, maxErr := "", 0.0
						for _, tau := range taus {
							p, err := paired(c, func(r compare.Run) bool {
								return r.Axes["workload"] == wl && r.Axes["param_cq"] == cq && r.Axes["param_te"] == te &&
									r.Axes["param_lambda"] == lambda && r.Axes["param_mu"] == mu && r.Axes["param_tau"] == tau
							})
							if err != nil {
								return err
							}
							in := [3]string{inside(p.dTw, ref[0]), inside(p.backfill, ref[1]), inside(p.errors, ref[2])}
							n++
							if in == [3]string{"yes", "yes", "yes"} {
								all++
							}
							x, _ := strconv.ParseFloat(tau, 64)
							fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %g | %s | %s | %s | %s, %s, %s | %d of %d |\n", wl, cq, te, reading(lambda, "online"),
								reading(mu, "online"), x, dtw(p), ci(p.backfill), ci(p.errors), in[0], in[1], in[2], headlineStreams(p), len(p.streams.dTw))
							maxErr = max(maxErr, slices.Max(p.streams.errors))
							if bTau == "" || p.dTw.Mean > b.dTw.Mean {
								b, bTau = p, tau
							}
						}
						where := against(b.dTw)
						counts[wl+"/"+where]++
						x, _ := strconv.ParseFloat(bTau, 64)
						verdicts = append(verdicts, fmt.Sprintf("| %s | %s | %s | %s | %s | %g | %s | %s | %d of %d | %.3f |", wl, cq, te,
							reading(lambda, "online"), reading(mu, "online"), x, ci(b.dTw), where, headlineStreams(b), len(b.streams.dTw), maxErr))
					}
				}
			}
		}
	}
	fmt.Fprintf(w, "\nSettings with all three of the paper's table's values in their intervals: %d of %d.\n\n", all, n)
	fmt.Fprintln(w, "Each reading at the tau where its mean dTw is largest, its interval against the headline's 0.5:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| requests | cq | te | lambda | mu | tau of the largest mean dTw | dTw there | its interval | streams there with dTw > 0.5 and errors <= 0.04 | largest share of errors of a stream, any tau |")
	fmt.Fprintln(w, "|---|---|---|---|---|---:|---|---|---:|---:|")
	for _, v := range verdicts {
		fmt.Fprintln(w, v)
	}
	fmt.Fprintln(w)
	for _, wl := range []string{"exponential", "pareto"} {
		fmt.Fprintf(w, "%s: of %d readings, the interval lies above 0.5 in %d, holds 0.5 in %d, lies below in %d.\n", wl,
			counts[wl+"/above 0.5"]+counts[wl+"/holds 0.5"]+counts[wl+"/below 0.5"], counts[wl+"/above 0.5"], counts[wl+"/holds 0.5"], counts[wl+"/below 0.5"])
	}
	fmt.Fprintln(w)
	return nil
}

// headlineStreams counts the streams of p that meet the headline: dTw
// above 0.5 with at most 4 % of the jobs errors.
func headlineStreams(p point) int {
	met := 0
	for i, d := range p.streams.dTw {
		if d > headlineDTw && p.streams.dTwErrors[i] <= headlineErrors {
			met++
		}
	}
	return met
}

// against says where an interval of dTw lies against the headline's 0.5.
func against(s stats.Summary) string {
	switch {
	case s.CI.Lo > headlineDTw:
		return "above 0.5"
	case s.CI.Hi >= headlineDTw:
		return "holds 0.5"
	}
	return "below 0.5"
}

func nonEmpty(vs []string) []string {
	var out []string
	for _, v := range vs {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// reading names a rate: "online" for 0, else its fixed value.
func reading(v, zero string) string {
	if f, err := strconv.ParseFloat(v, 64); err == nil && f == 0 {
		return zero
	}
	return "fixed " + v
}

// tauCurves prints and plots dTw against tau for each workload of the
// fig3 campaign, in the groups given (figure 3a: p; figure 3b: t_e).
func tauCurves(w io.Writer, c *compare.Campaign, figs string) error {
	for _, g := range []struct {
		name, title string
		curves      []string
		labels      []string
	}{
		{"fig3a", "Figure 3a: dTw against tau for three values of p (t_e = 206.12 min)", []string{"p13", "p17", "p25"}, []string{"p = 0.13", "p = 0.17", "p = 0.25"}},
		{"fig3b", "Figure 3b: dTw against tau for the legend's three mean runtimes (p = 0.17)", []string{"te180", "p17", "te247"}, []string{"t_e = 179.96 min", "t_e = 206.12 min", "t_e = 247.27 min"}},
	} {
		fmt.Fprintf(w, "### %s\n\n| tau |", g.title)
		for _, l := range g.labels {
			fmt.Fprintf(w, " %s |", l)
		}
		fmt.Fprint(w, "\n|---:|")
		for range g.labels {
			fmt.Fprint(w, "---|")
		}
		fmt.Fprintln(w)
		curves := make([][]point, len(g.curves))
		for _, tau := range nonEmpty(c.Values("param_tau")) {
			x, _ := strconv.ParseFloat(tau, 64)
			fmt.Fprintf(w, "| %g |", x)
			for k, wl := range g.curves {
				p, err := paired(c, func(r compare.Run) bool { return r.Axes["workload"] == wl && r.Axes["param_tau"] == tau })
				if err != nil {
					return err
				}
				p.x = x
				curves[k] = append(curves[k], p)
				fmt.Fprintf(w, " %s |", dtw(p))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
		if figs != "" {
			if err := dTwFigure(filepath.Join(figs, g.name+".svg"), g.title, g.labels, curves); err != nil {
				return err
			}
		}
	}
	return nil
}

// lambdaTable prints dTw and the shares against p with lambda estimated
// online and fixed.
func lambdaTable(w io.Writer, c *compare.Campaign) error {
	fmt.Fprintln(w, "### The completion rate lambda, online or fixed, against p (lambda.toml: tau = 0.2, t_e = 206.12 min)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| p | lambda | dTw | share backfilled | share errors |")
	fmt.Fprintln(w, "|---:|---|---|---|---|")
	for _, wl := range c.Values("workload") {
		x, _ := strconv.ParseFloat(wl[1:], 64)
		for _, lambda := range nonEmpty(c.Values("param_lambda")) {
			p, err := paired(c, func(r compare.Run) bool { return r.Axes["workload"] == wl && r.Axes["param_lambda"] == lambda })
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "| %g | %s | %s | %s | %s |\n", x/100, reading(lambda, "online"), dtw(p), ci(p.backfill), ci(p.errors))
		}
	}
	fmt.Fprintln(w)
	return nil
}

// dTwFigure plots dTw against tau, one curve per label, with 95 %
// intervals.
func dTwFigure(path, title string, labels []string, curves [][]point) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "tau"
	p.Y.Label.Text = "dTw, mean over streams (95 % CI)"
	colors := []color.RGBA{{0x1f, 0x77, 0xb4, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff}}
	for k, pts := range curves {
		// Curves side by side, so that their intervals do not hide each
		// other.
		if err := addCurve(p, pts, func(p point) stats.Summary { return p.dTw }, 0.004*float64(k-1), colors[k], labels[k]); err != nil {
			return err
		}
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return save(p, path)
}
