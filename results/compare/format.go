package compare

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/stats"
)

// Table is a comparison flattened to one row per group and value, the
// form of the CSV, JSON, Markdown and Parquet outputs.
type Table struct {
	Columns []results.Column
	Rows    [][]any
}

// Table flattens the result. Columns: the group axes, the compared value,
// whether it is the baseline, then the value's runs (n, mean, sd, t
// interval, bootstrap interval) and its comparison with the baseline
// (pairs, baseline mean, mean difference with t and bootstrap intervals,
// ratio of means with bootstrap interval, Wilcoxon statistic and p-value,
// Holm-adjusted p-value, effect sizes, pairs better/worse/tied). Missing
// values are NULL.
func (r *Result) Table() Table {
	var cols []results.Column
	add := func(name string, k results.Kind) { cols = append(cols, results.Column{Name: name, Kind: k}) }
	for _, a := range r.By {
		add(a, results.String)
	}
	add(r.Axis, results.String)
	add("baseline", results.Bool)
	for _, n := range []string{"n"} {
		add(n, results.Int64)
	}
	for _, n := range []string{"mean", "sd", "ci_lo", "ci_hi", "boot_lo", "boot_hi"} {
		add(n, results.Float64)
	}
	add("pairs", results.Int64)
	for _, n := range []string{"mean_baseline", "diff", "diff_lo", "diff_hi", "diff_boot_lo", "diff_boot_hi",
		"ratio", "ratio_lo", "ratio_hi", "wilcoxon_w", "wilcoxon_p", "p_holm"} {
		add(n, results.Float64)
	}
	add("test", results.String)
	add("rank_biserial", results.Float64)
	add("cohen_dz", results.Float64)
	for _, n := range []string{"better", "worse", "ties"} {
		add(n, results.Int64)
	}
	t := Table{Columns: cols}
	for _, g := range r.Groups {
		for _, lv := range g.Levels {
			row := make([]any, 0, len(cols))
			for _, kv := range g.Key {
				row = append(row, kv.Value)
			}
			s := lv.Summary
			row = append(row, lv.Value, lv.Value == r.Baseline, int64(s.N), num(s.Mean), num(s.SD), num(s.CI.Lo), num(s.CI.Hi))
			row = append(row, ivLo(lv.Boot), ivHi(lv.Boot))
			cmp := r.find(g, lv.Value)
			if cmp == nil || cmp.N == 0 {
				for len(row) < len(cols) {
					row = append(row, nil)
				}
				t.Rows = append(t.Rows, row)
				continue
			}
			row = append(row, int64(cmp.N), num(cmp.MeanBaseline), num(cmp.Diff.Mean), num(cmp.Diff.CI.Lo), num(cmp.Diff.CI.Hi),
				ivLo(cmp.DiffBoot), ivHi(cmp.DiffBoot), num(cmp.Ratio), ivLo(cmp.RatioBoot), ivHi(cmp.RatioBoot))
			if w := cmp.Wilcoxon; w != nil {
				row = append(row, num(w.Statistic), num(w.PValue), num(cmp.PHolm), "wilcoxon signed-rank, "+w.Method)
			} else {
				row = append(row, nil, nil, nil, nil)
			}
			row = append(row, num(cmp.RankBiserial), num(cmp.CohenDz), int64(cmp.Better), int64(cmp.Worse), int64(cmp.Ties))
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

func (r *Result) find(g Group, value string) *Comparison {
	for i := range g.Comparisons {
		if g.Comparisons[i].Value == value {
			return &g.Comparisons[i]
		}
	}
	return nil
}

// num turns NaN and infinities into NULL.
func num(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

func ivLo(iv *stats.Interval) any {
	if iv == nil {
		return nil
	}
	return num(iv.Lo)
}

func ivHi(iv *stats.Interval) any {
	if iv == nil {
		return nil
	}
	return num(iv.Hi)
}

// Method describes the statistics used, in one paragraph, for the text
// and Markdown outputs.
func (r *Result) Method() string {
	dir := "lower is better"
	if !r.LowerIsBetter {
		dir = "higher is better"
	}
	groups := "in one group of all runs (no grouping axis)"
	if len(r.By) > 0 {
		groups = "in groups by " + strings.Join(r.By, ", ")
	}
	s := fmt.Sprintf("Metric %s (%s), compared along %s against %s=%s, %s. ",
		r.Metric, dir, r.Axis, r.Axis, r.Baseline, groups)
	if !r.Replicated {
		return s + "Every comparison has a single pair of runs (one replicate; a trace run is deterministic), " +
			"so no interval or test can be estimated: the per-run values, their difference and ratio are shown."
	}
	return s + fmt.Sprintf("Runs are paired with the baseline run of equal other axes and replicate (hence the same workload seed). "+
		"Intervals are %.0f %%: Student t on means and mean differences, BCa bootstrap (%d resamples) on means and "+
		"mean differences, percentile bootstrap over pairs on the ratio of means. Tests: Wilcoxon signed-rank, "+
		"two-sided (exact without ties or zeros for up to 50 pairs, else normal approximation with tie correction), "+
		"p-values Holm-adjusted over the comparisons of each group. Effect sizes: matched-pairs rank-biserial r and Cohen's d_z.",
		100*r.Level, r.Resamples)
}

// WriteText prints the comparison for a terminal.
func (r *Result) WriteText(w io.Writer) error {
	fmt.Fprintln(w, wrap(r.Method(), 100))
	fmt.Fprintln(w)
	for _, g := range r.Groups {
		fmt.Fprintf(w, "== %s\n", groupName(g))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		if !r.Replicated {
			fmt.Fprintf(tw, "%s\t%s\tvs %s\tratio\t\n", r.Axis, r.Metric, r.Baseline)
			for _, lv := range g.Levels {
				if lv.Value == r.Baseline {
					fmt.Fprintf(tw, "%s\t%s\t(baseline)\t\t\n", lv.Value, f(lv.Summary.Mean))
					continue
				}
				cmp := r.find(g, lv.Value)
				if cmp == nil || cmp.N == 0 {
					fmt.Fprintf(tw, "%s\t%s\tno pair\t\t\n", lv.Value, f(lv.Summary.Mean))
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", lv.Value, f(lv.Summary.Mean), signed(cmp.Diff.Mean), f(cmp.Ratio))
			}
			tw.Flush()
			fmt.Fprintln(w)
			continue
		}
		fmt.Fprintf(tw, "%s\tn\tmean\t%.0f%% CI (t)\tdiff vs %s\t%.0f%% CI (t)\tratio\t%.0f%% CI (boot)\tp (Wilcoxon)\tp Holm\tr_rb\tbetter/worse/tied\t\n",
			r.Axis, 100*r.Level, r.Baseline, 100*r.Level, 100*r.Level)
		for _, lv := range g.Levels {
			s := lv.Summary
			line := fmt.Sprintf("%s\t%d\t%s\t%s\t", lv.Value, s.N, f(s.Mean), interval(s.CI.Lo, s.CI.Hi))
			cmp := r.find(g, lv.Value)
			switch {
			case lv.Value == r.Baseline:
				line += "(baseline)\t\t\t\t\t\t\t\t"
			case cmp == nil || cmp.N == 0:
				line += "no pair\t\t\t\t\t\t\t\t"
			default:
				p, ph := "-", "-"
				if cmp.Wilcoxon != nil {
					p, ph = pval(cmp.Wilcoxon.PValue), pval(cmp.PHolm)
				}
				rb := "-"
				if !math.IsNaN(cmp.RankBiserial) {
					rb = fmt.Sprintf("%+.2f", cmp.RankBiserial)
				}
				line += fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d/%d\t", signed(cmp.Diff.Mean), interval(cmp.Diff.CI.Lo, cmp.Diff.CI.Hi),
					f(cmp.Ratio), ivText(cmp.RatioBoot), p, ph, rb, cmp.Better, cmp.Worse, cmp.Ties)
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	if r.Skipped > 0 {
		fmt.Fprintf(w, "%d runs left out: not completed, or without %s.\n", r.Skipped, r.Metric)
	}
	return nil
}

// WriteJobsText prints job-level views.
func WriteJobsText(w io.Writer, views []JobView, baseline string) {
	if len(views) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "group\tvalue\truns\tjobs\t")
	for _, p := range views[0].Probs {
		fmt.Fprintf(tw, "wait p%g\t", 100*p)
	}
	for _, p := range views[0].Probs {
		fmt.Fprintf(tw, "bsld p%g\t", 100*p)
	}
	fmt.Fprintf(tw, "waits less / more than %s\t\n", baseline)
	for _, v := range views {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t", groupName(Group{Key: v.Group}), v.Value, v.Runs, v.Jobs)
		for _, q := range v.WaitQ {
			fmt.Fprintf(tw, "%s\t", f(q))
		}
		for _, q := range v.BSLDQ {
			fmt.Fprintf(tw, "%s\t", f(q))
		}
		if n := v.Improved + v.Worsened + v.Unchanged; n > 0 {
			fmt.Fprintf(tw, "%.1f%% / %.1f%%\t\n", 100*float64(v.Improved)/float64(n), 100*float64(v.Worsened)/float64(n))
		} else {
			fmt.Fprint(tw, "\t\n")
		}
	}
	tw.Flush()
}

// WriteCSV writes the table as CSV, NULL as an empty field.
func (t Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = c.Name
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, row := range t.Rows {
		rec := make([]string, len(row))
		for i, v := range row {
			rec[i] = cell(v, -1)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown writes the table as a Markdown table, numbers with 4
// significant digits.
func (t Table) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("|")
	for _, c := range t.Columns {
		b.WriteString(" " + c.Name + " |")
	}
	b.WriteString("\n|")
	for _, c := range t.Columns {
		if c.Kind == results.String {
			b.WriteString("---|")
		} else {
			b.WriteString("---:|")
		}
	}
	b.WriteString("\n")
	for _, row := range t.Rows {
		b.WriteString("|")
		for _, v := range row {
			b.WriteString(" " + strings.ReplaceAll(cell(v, 4), "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON is what --format json prints: the result, its flat table and the
// job-level views.
type JSON struct {
	Method string           `json:"method"`
	Result *Result          `json:"result"`
	Table  []map[string]any `json:"table"`
	Jobs   []JobViewJSON    `json:"jobs,omitempty"`
}

// JobViewJSON is a JobView without its full distributions.
type JobViewJSON struct {
	Group     []AxisValue `json:"group"`
	Value     string      `json:"value"`
	Runs      int         `json:"runs"`
	Jobs      int         `json:"jobs"`
	Probs     []float64   `json:"probs"`
	WaitQ     []float64   `json:"wait_quantiles"`
	BSLDQ     []float64   `json:"bsld_quantiles"`
	Improved  int         `json:"waits_less_than_baseline"`
	Worsened  int         `json:"waits_more_than_baseline"`
	Unchanged int         `json:"waits_equal_to_baseline"`
}

// WriteJSON writes the result, its table and the job views as one JSON
// object. NaN values become null.
func (r *Result) WriteJSON(w io.Writer, views []JobView) error {
	t := r.Table()
	out := JSON{Method: r.Method()}
	for _, row := range t.Rows {
		m := map[string]any{}
		for i, c := range t.Columns {
			m[c.Name] = row[i]
		}
		out.Table = append(out.Table, m)
	}
	for _, v := range views {
		out.Jobs = append(out.Jobs, JobViewJSON{v.Group, v.Value, v.Runs, v.Jobs, v.Probs, v.WaitQ, v.BSLDQ, v.Improved, v.Worsened, v.Unchanged})
	}
	// The groups hold NaNs (no test, no interval), which JSON cannot
	// encode; the table carries every one of their numbers as null or a
	// value, so the result goes without its groups (json:"-").
	out.Result = r
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func cell(v any, digits int) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		if digits > 0 {
			return strconv.FormatFloat(x, 'g', digits, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

func groupName(g Group) string {
	if len(g.Key) == 0 {
		return "all runs"
	}
	parts := make([]string, len(g.Key))
	for i, kv := range g.Key {
		parts[i] = kv.Axis + "=" + kv.Value
	}
	return strings.Join(parts, " ")
}

// f formats a number with 4 significant digits, whole numbers above 1000
// without exponent.
func f(x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case math.Abs(x) >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func signed(x float64) string {
	if x > 0 {
		return "+" + f(x)
	}
	return f(x)
}

func interval(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "-"
	}
	return "[" + f(lo) + ", " + f(hi) + "]"
}

func ivText(iv *stats.Interval) string {
	if iv == nil {
		return "-"
	}
	return interval(iv.Lo, iv.Hi)
}

func pval(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 1e-4:
		return "<1e-4"
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(s) {
		if i > 0 && n+1+len(word) > width {
			b.WriteString("\n")
			n = 0
		} else if i > 0 {
			b.WriteString(" ")
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// WriteParquet writes the table to a Parquet file with meta in its footer.
func (t Table) WriteParquet(path string, meta results.Metadata) error {
	return results.WriteTable(path, t.Columns, t.Rows, meta)
}
