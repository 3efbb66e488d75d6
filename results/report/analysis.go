package report

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/schedlab/schedlab/results/fit"
	"github.com/schedlab/schedlab/results/stats"
	"github.com/schedlab/schedlab/workload/analysis"
)

// Analysis is what `schedlab workload analyze` found in a scheduler's
// history, for WriteAnalysis: the jobs as read and, per factor, the
// descriptive statistics, the clustering of the factor's values and the
// distribution fits per cluster and parameter.
type Analysis struct {
	// Title heads the page; empty means "Workload analysis: FILE".
	Title string
	// Path is the input file as given, SHA256 its digest and Format says
	// what it holds ("SWF" or "Slurm accounting").
	Path, SHA256, Format string
	// Notes are remarks of the reader shown under the overview (lines
	// skipped, say).
	Notes []string
	// Options are the analysis options as name and value, in order.
	Options [][2]string
	// Meta is build provenance (results.Metadata), shown in a table.
	Meta map[string]string
	// Jobs are the jobs analysed.
	Jobs []analysis.Job
	// Factors holds one analysis per factor, in page order.
	Factors []FactorAnalysis
	// Rules are the rules that marked the jobs killed at their limit and
	// never run, and Endings the jobs they touched; nil Rules: not said.
	Rules   *analysis.Rules
	Endings analysis.Endings
	// Alarms are the thresholds of the table of programs; nil means
	// analysis.DefaultAlarms.
	Alarms *analysis.Alarms
	// Top bounds the rows of each statistics table (largest share of work
	// first), 20 by default; MaxClusters bounds the clusters per factor
	// whose fits are plotted (most jobs first), 4 by default. Both bounds
	// are stated in the page.
	Top, MaxClusters int
}

// FactorAnalysis is the analysis of the jobs grouped by one factor.
type FactorAnalysis struct {
	Factor string
	// Stats are analysis.Describe's statistics, largest share of work first.
	Stats []analysis.Stats
	// Clusters is the clustering of the values; nil when there is none,
	// with ClusterErr saying why.
	Clusters   *analysis.Clusters
	ClusterErr string
	// Fits are analysis.FitParameters' fits; nil when not fitted.
	Fits []analysis.ParamFit
}

// WriteAnalysis writes the HTML report of a workload analysis to w: one
// self-contained page, like Write's, with the provenance, per factor a
// table of descriptive statistics, a scatter plot of the clustered values,
// a table of the fits with their goodness-of-fit statistics and the ECDF
// of each cluster's parameters against the fitted laws, and for Slurm
// input box plots of the efficiency indicators by node-count group.
// Nothing is written when it fails.
func WriteAnalysis(w io.Writer, a *Analysis) error {
	if a.Top <= 0 {
		a.Top = 20
	}
	if a.MaxClusters <= 0 {
		a.MaxClusters = 4
	}
	pg := &page{Title: cmp.Or(a.Title, "Workload analysis: "+filepath.Base(a.Path))}
	pg.Subtitle = fmt.Sprintf("%s — %s, %d jobs; by %s", a.Path, a.Format, len(a.Jobs), strings.Join(a.factorNames(), ", "))
	pg.Sections = append(pg.Sections, a.overview())
	for _, fa := range a.Factors {
		s, err := a.factorSection(fa)
		if err != nil {
			return err
		}
		pg.Sections = append(pg.Sections, s)
	}
	if s, err := a.efficiency(); err != nil {
		return err
	} else if len(s.Blocks) > 0 {
		pg.Sections = append(pg.Sections, s)
	}
	pg.Sections = append(pg.Sections, a.provenance())
	pg.Footer = fmt.Sprintf("Written by schedlab workload analyze from %s (sha256 %s), schedlab %s (commit %s%s), %s. "+
		"The same command with the same options on the same file rebuilds the same figures and tables.",
		a.Path, cmp.Or(a.SHA256, "?"), cmp.Or(a.Meta["schedlab.version"], "?"), cmp.Or(a.Meta["vcs.revision"], "unknown"),
		modified(a.Meta["vcs.modified"]), cmp.Or(a.Meta["go.version"], "Go ?"))
	if err := render(w, pg); err != nil {
		return fmt.Errorf("analysis report of %s: %w", a.Path, err)
	}
	return nil
}

func (a *Analysis) factorNames() []string {
	var out []string
	for _, f := range a.Factors {
		out = append(out, f.Factor)
	}
	return out
}

func (a *Analysis) overview() section {
	s := section{ID: "overview", Title: "Overview"}
	s.Blocks = append(s.Blocks, block{Para: fmt.Sprintf("%s (%s) holds %d jobs. They are described per value of %s: "+
		"jobs, share of the jobs, share of the work (processor-seconds), and the distributions of requested processors, "+
		"requested time T_lim, runtime, wait and K_wall = T_run / T_lim. The values of each factor are clustered by k-means "+
		"(k-means++, seeded) on <A, R1, mean T_lim, mean K_wall>, standardised, with k chosen by the "+
		"mean silhouette: A and R1 as the options --activity and --resource set them (paper 002's by default: the share of "+
		"the jobs, and the mean nodes where the log records them, else processors), each factor's section naming the features; "+
		"then "+
		"per cluster and parameter, exponential, log-normal, Weibull and gamma laws are fitted by maximum "+
		"likelihood and tested by Kolmogorov–Smirnov (KS) and Cramér–von Mises (CvM) statistics with parametric-bootstrap p-values.",
		a.Path, a.Format, len(a.Jobs), strings.Join(a.factorNames(), ", "))})
	note := "Censoring: a job killed at its limit has a true runtime only known to be at least T_lim. " +
		"Such jobs are counted (column censored) and kept at their observed values in the statistics tables, which " +
		"therefore understate the runtime tail; the runtime fits leave them out (counted as dropped), as they do " +
		"non-positive values, on which no fitted family lives (waits of 0 s, say). Jobs that never ran (T_run = 0) " +
		"are counted (column never ran) and, unless kept, left out of the runtime, K_wall and wait."
	if a.Rules != nil {
		note += " Rules: " + strings.Join(a.Endings.Lines(*a.Rules), "; ") + "."
	}
	s.Blocks = append(s.Blocks, block{Note: note})
	s.Blocks = append(s.Blocks, block{Para: fmt.Sprintf("To keep the page readable on large traces, each statistics "+
		"table shows the %d values of largest share of work (all of them are in factors.parquet with `--out`), and the ECDF "+
		"figures are drawn for the %d clusters with the most jobs of each factor; the fit tables list every cluster.",
		a.Top, a.MaxClusters)})
	for _, n := range a.Notes {
		s.Blocks = append(s.Blocks, block{Para: n})
	}
	return s
}

func (a *Analysis) provenance() section {
	s := section{ID: "provenance", Title: "Provenance"}
	t := &table{Caption: "Input and options", Head: []string{"key", "value"}, Class: []string{"", "wrap"}}
	t.Rows = append(t.Rows, tableRow{Cells: []string{"input", a.Path}}, tableRow{Cells: []string{"format", a.Format}},
		tableRow{Cells: []string{"sha256", a.SHA256}}, tableRow{Cells: []string{"jobs", strconv.Itoa(len(a.Jobs))}})
	for _, o := range a.Options {
		t.Rows = append(t.Rows, tableRow{Cells: []string{o[0], o[1]}})
	}
	s.Blocks = append(s.Blocks, block{Table: t})
	if len(a.Meta) > 0 {
		m := &table{Caption: "Build provenance", Head: []string{"key", "value"}, Class: []string{"", "wrap"}}
		for _, k := range slices.Sorted(maps.Keys(a.Meta)) {
			m.Rows = append(m.Rows, tableRow{Cells: []string{k, a.Meta[k]}})
		}
		s.Blocks = append(s.Blocks, block{Table: m})
	}
	return s
}

// paramLabel names a parameter of package analysis for a reader.
func paramLabel(p string) string {
	switch p {
	case "procs":
		return "processors"
	case "req_time":
		return "T_lim (s)"
	case "runtime":
		return "runtime (s)"
	case "wait":
		return "wait (s)"
	case "k_wall":
		return "K_wall"
	case "k_ef1":
		return "K_ef1"
	case "k_ef2":
		return "K_ef2"
	}
	return p
}

func (a *Analysis) sacct() bool {
	for _, j := range a.Jobs {
		if !math.IsNaN(j.KEf1) || !math.IsNaN(j.KEf2) {
			return true
		}
	}
	return false
}

func (a *Analysis) factorSection(fa FactorAnalysis) (section, error) {
	s := section{ID: figureID("factor", fa.Factor), Title: "By " + fa.Factor}
	params := []string{"procs", "req_time", "runtime", "wait", "k_wall"}
	if a.sacct() {
		params = append(params, "k_ef1", "k_ef2")
	}
	t := &table{Head: []string{"value", "jobs", "share", "share of work", "censored", "never ran"}, Class: []string{"", "n", "n", "n", "n", "n"}}
	t.Caption = fmt.Sprintf("%s: %d values; per parameter the mean (sd) over the known values and the median [25th–75th percentile]", fa.Factor, len(fa.Stats))
	if len(fa.Stats) > a.Top {
		t.Caption += fmt.Sprintf("; the %d values of largest share of work shown", a.Top)
	}
	for _, p := range params {
		t.Head = append(t.Head, paramLabel(p)+" mean (sd)", paramLabel(p)+" median [IQR]")
		t.Class = append(t.Class, "n", "n")
	}
	for i, st := range fa.Stats {
		if i >= a.Top {
			break
		}
		row := []string{cmp.Or(st.Value, "(unknown)"), strconv.Itoa(st.Jobs), num(st.Share), num(st.WorkShare), strconv.Itoa(st.Censored), strconv.Itoa(st.NeverRan)}
		for _, p := range params {
			ps := st.Params[p]
			if ps.N == 0 {
				row = append(row, "-", "-")
				continue
			}
			ms := human(ps.Mean)
			if !math.IsNaN(ps.SD) {
				ms += " (" + human(ps.SD) + ")"
			}
			q := st.Quantiles[p]
			med := "-"
			if len(q) == 5 {
				med = fmt.Sprintf("%s [%s–%s]", human(q[2]), human(q[1]), human(q[3]))
			}
			row = append(row, ms, med)
		}
		t.Rows = append(t.Rows, tableRow{Cells: row})
	}
	s.Blocks = append(s.Blocks, block{Table: t})
	c := fa.Clusters
	if c == nil {
		s.Blocks = append(s.Blocks, block{Note: "Not clustered: " + cmp.Or(fa.ClusterErr, "no clustering") + "."})
		return s, nil
	}
	var tried []string
	for _, r := range c.Tried {
		tried = append(tried, fmt.Sprintf("k=%d: %s", r.K, num(r.Silhouette)))
	}
	s.Blocks = append(s.Blocks, block{Para: fmt.Sprintf("k-means chose k = %d clusters of %d values by the mean silhouette %s "+
		"(tried %s).", c.Result.K, len(c.Values), num(c.Result.Silhouette), strings.Join(tried, ", "))})
	jobs := map[string]int{}
	for _, st := range fa.Stats {
		jobs[st.Value] = st.Jobs
	}
	cjobs := make([]int, c.Result.K)
	examples := make([][]string, c.Result.K)
	for i, v := range c.Values {
		l := c.Labels[i]
		cjobs[l] += jobs[v]
		if len(examples[l]) < 5 {
			examples[l] = append(examples[l], cmp.Or(v, "(unknown)"))
		}
	}
	ct := &table{Caption: fmt.Sprintf("Clusters of %s values: centres in standardised units", fa.Factor),
		Head: append(append([]string{"cluster", "values", "jobs"}, featureLabels(c.Features)...), "values (first 5, by share of work)")}
	ct.Class = append(slices.Repeat([]string{"n"}, len(ct.Head)-1), "wrap")
	for k := range c.Result.K {
		row := []string{strconv.Itoa(k), strconv.Itoa(c.Result.Sizes[k]), strconv.Itoa(cjobs[k])}
		for _, x := range c.Result.Centers[k] {
			row = append(row, num(x))
		}
		row = append(row, strings.Join(examples[k], ", "))
		ct.Rows = append(ct.Rows, tableRow{Cells: row})
	}
	s.Blocks = append(s.Blocks, block{Table: ct})
	fig, err := clusterFigure(fa.Factor, c)
	if err != nil {
		return s, err
	}
	s.Blocks = append(s.Blocks, block{Figure: fig})
	if len(fa.Fits) == 0 {
		s.Blocks = append(s.Blocks, block{Note: "No distribution fits (run with --resamples > 0)."})
		return s, nil
	}
	s.Blocks = append(s.Blocks, block{Table: fitTable(fa)})
	order := make([]int, c.Result.K)
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(x, y int) int { return cjobs[y] - cjobs[x] })
	if len(order) > a.MaxClusters {
		s.Blocks = append(s.Blocks, block{Para: fmt.Sprintf("ECDF figures are drawn for the %s with the most jobs of %d "+
			"(`--report-clusters`).", plural(a.MaxClusters, "cluster"), len(order))})
		order = order[:a.MaxClusters]
	}
	for _, k := range order {
		fig, err := a.ecdfFitFigure(fa, k)
		if err != nil {
			return s, err
		}
		if fig != nil {
			s.Blocks = append(s.Blocks, block{Figure: fig})
		}
	}
	return s, nil
}

// featureLabels names the clustered features for a table's head.
func featureLabels(features []string) []string {
	label := map[string]string{"jobs_share": "share of jobs", "work_share": "share of work", "nodes": "nodes", "procs": "procs",
		"req_time": "T_lim", "k_wall": "K_wall"}
	out := make([]string, len(features))
	for i, f := range features {
		out[i] = cmp.Or(label[f], f)
	}
	return out
}

// fitTable lists every fit of a factor with its goodness of fit.
func fitTable(fa FactorAnalysis) *table {
	t := &table{Caption: fmt.Sprintf("Fits by maximum likelihood per %s cluster and parameter, best AIC first; KS and CvM "+
		"statistics on all n values, as paper 002 reports them, then the parametric-bootstrap tests' own statistics and p-values "+
		"on the n tested values (all n, or a random subsample of %d when n is larger: "+
		"CvM grows with the sample, so compare statistics of equal n); highlighted rows are each parameter's "+
		"best fit, and samples of fewer than 10 values or of a single value are not fitted. With R resamples the smallest "+
		"p-value the bootstrap gives is 1/(R+1)", fa.Factor, analysis.GoFSample),
		Head: []string{"cluster", "parameter", "n", "dropped", "family", "parameters", "AIC", "KS (all n)", "CvM (all n)",
			"n tested", "KS", "KS p", "CvM", "CvM p", "resamples"},
		Class: []string{"n", "", "n", "n", "", "", "n", "n", "n", "n", "n", "n", "n", "n", "n"}}
	for _, pf := range fa.Fits {
		if len(pf.Fits) == 0 {
			t.Rows = append(t.Rows, tableRow{Cells: []string{strconv.Itoa(pf.Cluster), pf.Param, strconv.Itoa(pf.N),
				strconv.Itoa(pf.Dropped), "(no fit)", "", "", "", "", "", "", "", "", "", ""}})
			continue
		}
		for i, f := range pf.Fits {
			g := pf.GoF[i]
			t.Rows = append(t.Rows, tableRow{Mark: i == 0, Cells: []string{strconv.Itoa(pf.Cluster), pf.Param, strconv.Itoa(pf.N),
				strconv.Itoa(pf.Dropped), string(f.Family), fitParams(f), num(f.AIC), num(pf.KS[i]), num(pf.CvM[i]), strconv.Itoa(pf.GoFN), num(g.KS), num(g.KSP), num(g.CvM), num(g.CvMP),
				strconv.Itoa(g.Resamples)}})
		}
	}
	return t
}

// fitParams writes a fit's parameters as name=value pairs, sorted.
func fitParams(f fit.Fit) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(f.Params)) {
		parts = append(parts, k+"="+sig(f.Params[k]))
	}
	return strings.Join(parts, " ")
}

// clusterFigure plots the clustered values in two pairs of their
// standardised coordinates, a colour per cluster.
func clusterFigure(factor string, c *analysis.Clusters) (*figure, error) {
	title := fmt.Sprintf("Clusters of %s values", factor)
	label := map[string]string{"jobs_share": "share of jobs", "work_share": "share of work", "nodes": "mean nodes",
		"procs": "mean processors", "req_time": "mean T_lim", "k_wall": "mean K_wall"}
	var panels []*plot.Plot
	for _, pair := range [][2]int{{0, 1}, {2, 3}} {
		fx, fy := c.Features[pair[0]], c.Features[pair[1]]
		p := newPlot(label[fx]+" against "+label[fy], label[fx]+" (standardised)", label[fy]+" (standardised)")
		for k := range c.Result.K {
			var xys plotter.XYs
			for i, l := range c.Labels {
				if l == k {
					xys = append(xys, plotter.XY{X: c.Points[i][pair[0]], Y: c.Points[i][pair[1]]})
				}
			}
			if len(xys) == 0 {
				continue
			}
			sc, err := scatter(xys, translucent(colour(k), 0xC0), draw.CircleGlyph{}, 2.6)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", title, err)
			}
			p.Add(sc)
			p.Legend.Add(fmt.Sprintf("cluster %d (%d)", k, len(xys)), sc)
		}
		// Room above the points for the legend, and around them so that
		// the extreme ones are not drawn on the axes.
		var xs, ys []float64
		for _, pt := range c.Points {
			xs, ys = append(xs, pt[pair[0]]), append(ys, pt[pair[1]])
		}
		xlo, xhi := minMax(xs)
		ylo, yhi := minMax(ys)
		dx, dy := math.Max(xhi-xlo, 0.5), math.Max(yhi-ylo, 0.5)
		p.X.Min, p.X.Max = xlo-0.06*dx, xhi+0.06*dx
		p.Y.Min, p.Y.Max = ylo-0.06*dy, yhi+(0.1+0.07*float64(c.Result.K))*dy
		p.Legend.Top = true
		panels = append(panels, p)
	}
	svg, err := tiles(title, panels, 2, tileW, tileH)
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("Each point is a value of %s, placed by two pairs of the four features k-means clustered "+
		"(standardised: 0 is the mean over the values, 1 a standard deviation), coloured by its cluster; the legend gives "+
		"the number of values per cluster.", factor)
	return &figure{ID: figureID("clusters", factor), Title: title, Caption: caption, SVG: svg}, nil
}

// ecdfFitFigure draws, per fitted parameter, the ECDF of cluster k's values
// against the CDFs of the fitted laws; nil when nothing was fitted.
func (a *Analysis) ecdfFitFigure(fa FactorAnalysis, k int) (*figure, error) {
	title := fmt.Sprintf("ECDF against fitted laws, %s cluster %d", fa.Factor, k)
	var panels []*plot.Plot
	logged := false
	for _, pf := range fa.Fits {
		if pf.Cluster != k || len(pf.Fits) == 0 {
			continue
		}
		xs, _ := fa.Clusters.Sample(a.Jobs, k, pf.Param)
		e := stats.NewECDF(xs)
		if len(e.X) == 0 {
			continue
		}
		lo, hi := e.X[0], e.X[len(e.X)-1]
		if !(hi > lo) {
			hi = lo + 1
		}
		logX := useLog([]float64{lo, hi}, logRatio)
		xlabel := paramLabel(pf.Param)
		if logX {
			xlabel += " (log scale)"
			logged = true
		}
		p := newPlot(fmt.Sprintf("%s, n = %d, best %s", pf.Param, pf.N, pf.Fits[0].Family), xlabel, "share of jobs ≤ x")
		pos := func(x float64) float64 {
			if logX {
				return math.Log10(x)
			}
			return x
		}
		data := ecdfXYs(e, logX, lo, hi)
		for i := range data {
			data[i].X = pos(data[i].X)
		}
		l, err := line(data, colour(6), 2)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", title, err)
		}
		l.StepStyle = plotter.PostStep
		p.Add(l)
		p.Legend.Add("data", l)
		for _, f := range pf.Fits {
			const n = 200
			xys := make(plotter.XYs, n)
			for i := range n {
				t := pos(lo) + (pos(hi)-pos(lo))*float64(i)/(n-1)
				x := t
				if logX {
					x = math.Pow(10, t)
				}
				xys[i] = plotter.XY{X: t, Y: f.CDF(x)}
			}
			c, dashes := familyStyle(f.Family)
			fl, err := line(xys, c, 1.8)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", title, err)
			}
			fl.LineStyle.Dashes = dashes
			p.Add(fl)
			p.Legend.Add(string(f.Family), fl)
		}
		p.Legend.Top = false
		p.Legend.Left = false
		p.Legend.XOffs, p.Legend.YOffs = -4, 4
		p.X.Min, p.X.Max = pos(lo), pos(hi)
		if logX {
			p.X.Tick.Marker = log10Ticks(lo, hi)
		}
		p.Y.Min, p.Y.Max = 0, 1.02
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil, nil
	}
	svg, err := tiles(title, panels, 2, tileW, tileH)
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("Share of the jobs of %s cluster %d whose value is at most x (black steps, the fitted sample: "+
		"positive values, runtimes of jobs killed at their limit left out), against the CDFs of the four laws fitted by maximum "+
		"likelihood (dashed); the fit table above gives their parameters and goodness of fit.", fa.Factor, k)
	if logged {
		caption += " Axes marked log scale are logarithmic."
	}
	return &figure{ID: figureID("fit", fa.Factor, strconv.Itoa(k)), Title: title, Caption: caption, SVG: svg}, nil
}

// familyStyle is the colour and dash pattern of a fitted family, the same
// in every figure.
func familyStyle(f fit.Family) (color.RGBA, []vg.Length) {
	// Colour alone did not tell the laws apart (thin dashed lines in
	// blue and bluish green look alike): each law has its own dash pattern
	// too, all of them broken so that the data's solid step shows.
	dashes := [][]vg.Length{{6, 3}, {2, 2}, {9, 3, 2, 3}, {4, 2, 1, 2, 1, 2}}
	i := slices.Index(fit.Families(), f)
	if i < 0 {
		return colour(5), []vg.Length{1, 3}
	}
	return colour(i), dashes[i%len(dashes)]
}

// efficiency draws the efficiency indicators of Slurm input by node-count
// group, over all jobs and per program (paper 002's table of programs and
// its box plots of K_ef2 by node count per program); an empty section for
// other input.
func (a *Analysis) efficiency() (section, error) {
	s := section{ID: "efficiency", Title: "Efficiency by node count"}
	if !a.sacct() {
		return s, nil
	}
	title := "K_ef2 and K_ef1 by node-count group"
	by := byNodeGroup(a.Jobs, func(analysis.Job) bool { return true })
	groups := nodeGroupsWith(by["k_ef2"], by["k_ef1"])
	if len(groups) == 0 {
		s.Blocks = append(s.Blocks, block{Note: "No completed job with known CPU times and node count: no efficiency indicator by node count to plot."})
		return a.programs(s)
	}
	t := &table{Caption: "Efficiency indicators of completed jobs by node-count group",
		Head:  []string{"nodes", "jobs", "K_ef2 mean", "K_ef2 median", "K_ef1 mean", "K_ef1 median"},
		Class: []string{"", "n", "n", "n", "n", "n"}}
	var panels []*plot.Plot
	for _, ind := range []string{"k_ef2", "k_ef1"} {
		if len(slices.Concat(slices.Collect(maps.Values(by[ind]))...)) == 0 {
			continue // no job has this indicator
		}
		p, err := nodeGroupPlot(paramLabel(ind), paramLabel(ind), groups, by[ind])
		if err != nil {
			return s, fmt.Errorf("figure %s: %w", title, err)
		}
		panels = append(panels, p)
	}
	for _, g := range groups {
		e2, e1 := stats.Describe(by["k_ef2"][g], 0.95), stats.Describe(by["k_ef1"][g], 0.95)
		t.Rows = append(t.Rows, tableRow{Cells: []string{g, strconv.Itoa(max(e2.N, e1.N)), num(e2.Mean), num(e2.Median), num(e1.Mean), num(e1.Median)}})
	}
	svg, err := tiles(title, panels, 2, tileW, tileH)
	if err != nil {
		return s, err
	}
	s.Blocks = append(s.Blocks, block{Para: "K_ef1 = T_sys / (T_sys + T_user) is the share of system time in the CPU time " +
		"the job's processes used; K_ef2 = (T_CPU - (T_sys + T_user)) / T_CPU the share of the allocated CPU time " +
		"(elapsed time x allocated CPUs) that no process used. Both are computed on successfully completed jobs only, " +
		"as paper 002 does."})
	s.Blocks = append(s.Blocks, block{Table: t})
	s.Blocks = append(s.Blocks, block{Figure: &figure{ID: "efficiency-nodes", Title: title, SVG: svg,
		Caption: "Per node-count group, the box spans the quartiles of the completed jobs' indicator with the median " +
			"inside, whiskers reach the most extreme jobs within 1.5 interquartile ranges; the dots beside each box are the jobs."}})
	return a.programs(s)
}

// programs adds paper 002's view per program (the app factor, the job
// name) to the efficiency section: a table of the programs with the most
// jobs, their mean K_ef2 and K_ef1 and the alarming ones (above the
// thresholds of a.Alarms), and K_ef2 by node-count group for each of the
// MaxClusters programs with the most jobs that have it.
func (a *Analysis) programs(s section) (section, error) {
	st := analysis.ByJobs(analysis.Describe(a.Jobs, analysis.App))
	alarms := analysis.DefaultAlarms()
	if a.Alarms != nil {
		alarms = *a.Alarms
	}
	t := &table{Caption: fmt.Sprintf("Programs (job names) with the most jobs, K_ef over their completed jobs; "+
		"%s is flagged (paper 002 calls K_ef1 above 0.5 and high K_ef2 alarming)", alarms.Text()),
		Head:  []string{"program", "jobs", "n (K_ef1)", "K_ef2 mean", "K_ef1 mean", ""},
		Class: []string{"", "n", "n", "n", "n", ""}}
	var panels []*plot.Plot
	for i, p := range st {
		if i < a.Top {
			flag := alarms.Flag(p)
			t.Rows = append(t.Rows, tableRow{Mark: flag != "", Cells: []string{cmp.Or(p.Value, "(unknown)"), strconv.Itoa(p.Jobs),
				strconv.Itoa(p.Params["k_ef1"].N), num(p.Params["k_ef2"].Mean), num(p.Params["k_ef1"].Mean), flag}})
		}
		if len(panels) == a.MaxClusters || i >= a.Top || p.Params["k_ef2"].N == 0 {
			continue // only programs of the table are drawn
		}
		by := byNodeGroup(a.Jobs, func(j analysis.Job) bool { return j.Factors[analysis.App] == p.Value })
		groups := nodeGroupsWith(by["k_ef2"])
		if len(groups) == 0 {
			continue // its jobs with a K_ef2 have no node count
		}
		pl, err := nodeGroupPlot(cmp.Or(p.Value, "(unknown)"), paramLabel("k_ef2"), groups, by["k_ef2"])
		if err != nil {
			return s, fmt.Errorf("figure K_ef2 of program %s: %w", p.Value, err)
		}
		panels = append(panels, pl)
	}
	s.Blocks = append(s.Blocks, block{Table: t})
	if len(panels) == 0 {
		return s, nil
	}
	title := "K_ef2 by node-count group per program"
	svg, err := tiles(title, panels, 2, tileW, tileH)
	if err != nil {
		return s, err
	}
	s.Blocks = append(s.Blocks, block{Figure: &figure{ID: "efficiency-programs", Title: title, SVG: svg,
		Caption: fmt.Sprintf("For each of the %s with the most jobs that have a K_ef2, the box plot of its completed "+
			"jobs' K_ef2 by node-count group, drawn as above.", plural(len(panels), "program"))}})
	return s, nil
}

// byNodeGroup collects K_ef2 and K_ef1 of the jobs keep accepts by
// node-count group, leaving out unknown values.
func byNodeGroup(jobs []analysis.Job, keep func(analysis.Job) bool) map[string]map[string][]float64 {
	by := map[string]map[string][]float64{"k_ef2": {}, "k_ef1": {}}
	for _, j := range jobs {
		g := j.Factors[analysis.NodeGroup]
		if g == "" || !keep(j) {
			continue
		}
		if !math.IsNaN(j.KEf2) {
			by["k_ef2"][g] = append(by["k_ef2"][g], j.KEf2)
		}
		if !math.IsNaN(j.KEf1) {
			by["k_ef1"][g] = append(by["k_ef1"][g], j.KEf1)
		}
	}
	return by
}

// nodeGroupsWith lists, smallest first, the node-count groups with a value
// in any of vals.
func nodeGroupsWith(vals ...map[string][]float64) []string {
	var groups []string
	for _, g := range analysis.NodeGroups() {
		for _, v := range vals {
			if len(v[g]) > 0 {
				groups = append(groups, g)
				break
			}
		}
	}
	return groups
}

// nodeGroupPlot draws box plots of vals by node-count group.
func nodeGroupPlot(title, ylabel string, groups []string, vals map[string][]float64) (*plot.Plot, error) {
	p := newPlot(title, "nodes", ylabel)
	p.NominalX(groups...)
	var all []float64
	for i, g := range groups {
		if len(vals[g]) == 0 {
			continue
		}
		all = append(all, vals[g]...)
		if err := boxAndDots(p, float64(i), plotter.Values(vals[g]), colour(0), colour(1)); err != nil {
			return nil, err
		}
	}
	lo, hi := minMax(all)
	pad := math.Max(0.08*(hi-lo), 0.02)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	p.X.Min, p.X.Max = -0.6, float64(len(groups))-0.4
	return p, nil
}
