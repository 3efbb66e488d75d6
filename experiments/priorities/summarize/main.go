// Command summarize turns the campaign of docs/priorities.md (the
// literature's queue orders on 10 sequences of 1,024 jobs of three traces,
// without and with EASY backfilling; see ../campaign.toml) into the page's
// tables. It reads only the campaign's runs.parquet.
//
//	go run ./experiments/priorities/summarize -runs out/priorities/runs.parquet
//
// HPC2N: each order's mean bounded slowdown and utilisation beside the
// values of RLScheduler's artefact (its README's tables), and every pair of
// the artefact's five orders: which one the artefact ranks first, and
// whether our runs agree (the difference of the two orders' mean bounded
// slowdowns, sequence by sequence, mean with a 95 % Student t interval:
// "holds" when the interval lies on the artefact's side of 0, "reversed"
// when on the other, "not resolved" when it holds 0). The other traces:
// each order's mean bounded slowdown, the orders by it, and the same pairs.
package main

import (
	"cmp"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/experiments/internal/runtable"
	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/stats"
)

var (
	traces = []struct{ key, name string }{
		{"hpc2n", "HPC2N"}, {"kth", "KTH-SP2"}, {"blue", "SDSC-BLUE"},
	}
	modes     = []struct{ key, name string }{{"fcfs", "no"}, {"easy", "yes"}}
	orders    = []string{"submit", "shortest", "wfp3", "unicep", "f1", "f2", "f3", "f4"}
	sequences = 10
	// The HPC2N rows of the two tables of the README of
	// github.com/DIR-LAB/deep-batch-scheduler (commit cd433e3), "Results
	// of Scheduling Towards average bounded slowdown" and "... resource
	// utilization", by backfilling (fcfs: without, easy: with) and order.
	artefactBsld = map[string]map[string]float64{
		"fcfs": {"submit": 297.18, "wfp3": 426.99, "unicep": 609.77, "shortest": 157.71, "f1": 118.01},
		"easy": {"submit": 127.38, "wfp3": 97.39, "unicep": 175.12, "shortest": 122.04, "f1": 71.95},
	}
	artefactUtil = map[string]map[string]float64{
		"fcfs": {"submit": 0.638, "wfp3": 0.636, "unicep": 0.636, "shortest": 0.640, "f1": 0.637},
		"easy": {"submit": 0.639, "wfp3": 0.637, "unicep": 0.638, "shortest": 0.641, "f1": 0.638},
	}
	// The artefact's orders, in its table's column order.
	artefactOrders = []string{"submit", "wfp3", "unicep", "shortest", "f1"}
)

func main() {
	path := flag.String("runs", "out/priorities/runs.parquet", "the campaign's runs.parquet")
	art := flag.String("artefact", "out/priorities-artefact/runs.parquet", "the runs.parquet of artefact.toml")
	spans := flag.String("spans", "spans.csv", "each run's span to its last start (written with -extract, read otherwise)")
	extract := flag.String("extract", "", "campaign folders, comma-separated, whose jobs files to read into -spans")
	flag.Parse()
	var err error
	if *extract != "" {
		err = extractSpans(strings.Split(*extract, ","), *spans)
	} else {
		err = run(os.Stdout, *path, *art, *spans)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "summarize:", err)
		os.Exit(1)
	}
}

// values holds a metric per sequence: by trace, mode and order.
type values map[string]map[string]map[string][]float64

// extractSpans writes, for every run of the campaign folders dirs, the
// time from its first submission to its last start, which the artefact's
// utilisation divides by (schedlab's divides by the time to the last end).
func extractSpans(dirs []string, path string) error {
	var lines [][]string
	for _, dir := range dirs {
		runs, err := runtable.Read(filepath.Join(dir, "runs.parquet"), runtable.ByWorkloadPolicy)
		if err != nil {
			return err
		}
		for _, r := range runs {
			jobs, _, err := results.ReadJobs(filepath.Join(dir, "jobs", fmt.Sprint(r["run_key"])+".parquet"))
			if err != nil {
				return fmt.Errorf("run %v: %w", r["label"], err)
			}
			first, last := int64(math.MaxInt64), int64(math.MinInt64)
			for _, j := range jobs {
				first, last = min(first, j.Submit), max(last, j.Start)
			}
			lines = append(lines, []string{fmt.Sprint(r["workload"]), fmt.Sprint(r["policy"]), strconv.FormatInt(last-first, 10)})
		}
	}
	slices.SortFunc(lines, func(a, b []string) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]), cmp.Compare(a[2], b[2]))
	})
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"workload", "policy", "span_to_last_start"})
	_ = w.WriteAll(lines)
	return errors.Join(w.Error(), f.Close())
}

// readSpans reads the spans extractSpans writes, by "workload/policy" (the
// two campaigns' policies have names of their own).
func readSpans(path string) (map[string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]float64{}
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[2], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[r[0]+"/"+r[1]] = v
	}
	return out, nil
}

// artefactUtilisation is a run's utilisation as the artefact computes it:
// the processor-seconds of its jobs over the processors times the span
// from the first submission to the last start (schedlab's: to the last
// end, the makespan).
func artefactUtilisation(r runtable.Row, spans map[string]float64) (float64, error) {
	span, ok := spans[runtable.ByWorkloadPolicy(r)]
	if !ok {
		return 0, fmt.Errorf("no span for run %v", r["label"])
	}
	return r.Num("utilisation") * r.Num("makespan") / span, nil
}

func run(w io.Writer, path, artPath, spansPath string) error {
	runs, err := runtable.Read(path, runtable.ByWorkloadPolicy)
	if err != nil {
		return err
	}
	spans, err := readSpans(spansPath)
	if err != nil {
		return err
	}
	bsld, util, autil := values{}, values{}, values{}
	for _, tr := range traces {
		bsld[tr.key], util[tr.key], autil[tr.key] = map[string]map[string][]float64{}, map[string]map[string][]float64{}, map[string]map[string][]float64{}
		for _, m := range modes {
			bsld[tr.key][m.key], util[tr.key][m.key], autil[tr.key][m.key] = map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
			for _, o := range orders {
				for q := 1; q <= sequences; q++ {
					r, ok := runs[fmt.Sprintf("%s-q%d/%s-%s", tr.key, q, m.key, o)]
					if !ok {
						return fmt.Errorf("%s: no run of %s-%s on %s-q%d", path, m.key, o, tr.key, q)
					}
					if r.Num("measured_jobs") != 1024 {
						return fmt.Errorf("%s: %s-q%d has %v measured jobs, not 1024", path, tr.key, q, r["measured_jobs"])
					}
					bsld[tr.key][m.key][o] = append(bsld[tr.key][m.key][o], r.Num("mean_bsld"))
					util[tr.key][m.key][o] = append(util[tr.key][m.key][o], r.Num("utilisation"))
					u, err := artefactUtilisation(r, spans)
					if err != nil {
						return err
					}
					autil[tr.key][m.key][o] = append(autil[tr.key][m.key][o], u)
				}
			}
		}
	}
	killed(w, runs)
	hpc2n(w, bsld["hpc2n"], util["hpc2n"], autil["hpc2n"])
	pairs(w, bsld, "hpc2n")
	if err := artefact(w, artPath, spans, bsld["hpc2n"]); err != nil {
		return err
	}
	others(w, bsld)
	pairs(w, bsld, "kth", "blue")
	return nil
}

// mean is the mean of xs.
func mean(xs []float64) float64 { return stats.Describe(xs, 0.95).Mean }

// artefactCell prints an artefact's value, or a dash for an order it does
// not report.
func artefactCell(m map[string]float64, o, f string) string {
	v, ok := m[o]
	if !ok {
		return "-"
	}
	return fmt.Sprintf(f, v)
}

// rank returns the rank of o among os by vals, 1 for the least; ties by
// the order of os.
func rank(vals map[string]float64, os []string, o string) int {
	r := 1
	for _, x := range os {
		if x != o && (vals[x] < vals[o] || vals[x] == vals[o] && slices.Index(os, x) < slices.Index(os, o)) {
			r++
		}
	}
	return r
}

// hpc2n prints HPC2N's table: each order's mean bounded slowdown and
// utilisation, the artefact's and ours, and their ranks among the
// artefact's five orders.
func hpc2n(w io.Writer, bsld, util, autil map[string]map[string][]float64) {
	fmt.Fprintf(w, "HPC2N, %d sequences of 1,024 jobs, schedlab's fcfs and easy: mean bounded slowdown and utilisation, the artefact's (README) and ours (mean over the sequences [95 %% interval]; utilisation to the last start, as the artefact computes it, and to the last end, schedlab's); ranks among the artefact's five orders, 1 the least slowdown\n", sequences)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| backfilling | order | artefact's bounded slowdown | ours | artefact's rank | our rank | artefact's utilisation | ours, to the last start | ours, to the last end |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, m := range modes {
		ours := map[string]float64{}
		for _, o := range artefactOrders {
			ours[o] = mean(bsld[m.key][o])
		}
		for _, o := range orders {
			ar, or := "-", "-"
			if _, ok := artefactBsld[m.key][o]; ok {
				ar = fmt.Sprint(rank(artefactBsld[m.key], artefactOrders, o))
				or = fmt.Sprint(rank(ours, artefactOrders, o))
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m.name, o,
				artefactCell(artefactBsld[m.key], o, "%.2f"), runtable.Cell(bsld[m.key][o], "%.1f"), ar, or,
				artefactCell(artefactUtil[m.key], o, "%.3f"), runtable.Cell(autil[m.key][o], "%.3f"), runtable.Cell(util[m.key][o], "%.3f"))
		}
	}
	fmt.Fprintln(w)
}

// verdict says whether the differences d (first minus second, sequence by
// sequence) agree with a claim that the first is less.
func verdict(d []float64) string {
	ci := stats.MeanCI(d, 0.95)
	switch {
	case math.IsNaN(ci.Lo):
		return "-"
	case ci.Hi < 0:
		return "holds"
	case ci.Lo > 0:
		return "reversed"
	}
	return "not resolved"
}

// pairs prints, for every pair of the artefact's orders, the one that the
// artefact's HPC2N table ranks first, and on each trace of keys the
// difference of the two orders' mean bounded slowdowns, sequence by
// sequence, with the verdict; and how many pairs hold, are reversed and
// are not resolved.
func pairs(w io.Writer, bsld values, keys ...string) {
	names := map[string]string{}
	for _, tr := range traces {
		names[tr.key] = tr.name
	}
	var title []string
	for _, k := range keys {
		title = append(title, names[k])
	}
	fmt.Fprintf(w, "The artefact's HPC2N ranking, pair by pair, on %s: our difference first minus second in mean bounded slowdown, mean over the sequences [95 %% interval], and the verdict\n", strings.Join(title, " and "))
	fmt.Fprintln(w)
	head := "| backfilling | artefact's claim | artefact's values |"
	rule := "|---|---|---|"
	for _, k := range keys {
		head += fmt.Sprintf(" %s difference | verdict |", names[k])
		rule += "---|---|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	count := map[string]map[string]int{}
	for _, m := range modes {
		for i, a := range artefactOrders {
			for _, b := range artefactOrders[i+1:] {
				lo, hi := a, b
				if artefactBsld[m.key][b] < artefactBsld[m.key][a] {
					lo, hi = b, a
				}
				line := fmt.Sprintf("| %s | %s < %s | %.2f < %.2f |", m.name, lo, hi, artefactBsld[m.key][lo], artefactBsld[m.key][hi])
				for _, k := range keys {
					var d []float64
					for q := range sequences {
						d = append(d, bsld[k][m.key][lo][q]-bsld[k][m.key][hi][q])
					}
					v := verdict(d)
					if count[k+"/"+m.key] == nil {
						count[k+"/"+m.key] = map[string]int{}
					}
					count[k+"/"+m.key][v]++
					line += fmt.Sprintf(" %s | %s |", runtable.Cell(d, "%+.1f"), v)
				}
				fmt.Fprintln(w, line)
			}
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The pairs by verdict")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| trace | backfilling | holds | reversed | not resolved | the ranking |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, k := range keys {
		for _, m := range modes {
			c := count[k+"/"+m.key]
			ranking := "partly reproduced"
			switch {
			case c["reversed"] > 0:
				ranking = "not reproduced"
			case c["holds"] == len(artefactOrders)*(len(artefactOrders)-1)/2:
				ranking = "reproduced"
			}
			fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %s |\n", names[k], m.name, c["holds"], c["reversed"], c["not resolved"], ranking)
		}
	}
	fmt.Fprintln(w)
}

// others prints every trace's mean bounded slowdown per order, and the
// orders by it, least first.
func others(w io.Writer, bsld values) {
	fmt.Fprintf(w, "Every trace, %d sequences of 1,024 jobs: mean bounded slowdown per order, mean over the sequences [95 %% interval]\n", sequences)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| trace | backfilling | "+strings.Join(orders, " | ")+" |")
	fmt.Fprintln(w, "|---|---|"+strings.Repeat("---|", len(orders)))
	var ranked []string
	for _, tr := range traces {
		for _, m := range modes {
			line := fmt.Sprintf("| %s | %s |", tr.name, m.name)
			vals := map[string]float64{}
			for _, o := range orders {
				line += " " + runtable.Cell(bsld[tr.key][m.key][o], "%.1f") + " |"
				vals[o] = mean(bsld[tr.key][m.key][o])
			}
			fmt.Fprintln(w, line)
			all, five := slices.Clone(orders), slices.Clone(artefactOrders)
			by := func(a, b string) int { return cmp.Compare(vals[a], vals[b]) }
			slices.SortStableFunc(all, by)
			slices.SortStableFunc(five, by)
			ranked = append(ranked, fmt.Sprintf("| %s | %s | %s | %s |", tr.name, m.name, strings.Join(five, " < "), strings.Join(all, " < ")))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The orders by mean bounded slowdown, least first: the artefact's five, and all eight")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| trace | backfilling | the artefact's five | all |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range ranked {
		fmt.Fprintln(w, r)
	}
	fmt.Fprintln(w)
	art := map[string]string{}
	for _, m := range modes {
		five := slices.Clone(artefactOrders)
		slices.SortStableFunc(five, func(a, b string) int { return cmp.Compare(artefactBsld[m.key][a], artefactBsld[m.key][b]) })
		art[m.key] = strings.Join(five, " < ")
	}
	fmt.Fprintf(w, "The artefact's HPC2N order, for comparison: without backfilling %s; with %s\n\n", art["fcfs"], art["easy"])
}

// killed prints the share of each trace's jobs that run past their
// requested walltime, which schedlab kills there and the artefact lets
// run: from the fcfs runs in submit order (the same in every run of a
// sequence).
func killed(w io.Writer, runs map[string]runtable.Row) {
	fmt.Fprintln(w, "Jobs killed at their requested walltime (the artefact lets them run on), % of the 1,024 jobs of a sequence: mean over the sequences, least and most")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| trace | killed (%) | least | most |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, tr := range traces {
		var xs []float64
		for q := 1; q <= sequences; q++ {
			xs = append(xs, 100*runs[fmt.Sprintf("%s-q%d/fcfs-submit", tr.key, q)].Num("killed")/1024)
		}
		fmt.Fprintf(w, "| %s | %.1f | %.1f | %.1f |\n", tr.name, mean(xs), slices.Min(xs), slices.Max(xs))
	}
	fmt.Fprintln(w)
}

// artefact prints the runs of artefact.toml (the artefact's scheduler,
// copied) beside the artefact's values and schedlab's fcfs and easy on
// HPC2N, and the pairs of the artefact's orders under the copy.
func artefact(w io.Writer, path string, spans map[string]float64, ours map[string]map[string][]float64) error {
	runs, err := runtable.Read(path, runtable.ByWorkloadPolicy)
	if err != nil {
		return err
	}
	// get returns a policy's mean bounded slowdowns and utilisations (the
	// artefact's) over the sequences.
	get := func(mode, pol string) (bsld, util []float64, err error) {
		for q := 1; q <= sequences; q++ {
			r, ok := runs[fmt.Sprintf("hpc2n-q%d/art-%s-%s", q, mode, pol)]
			if !ok {
				return nil, nil, fmt.Errorf("%s: no run of art-%s-%s on hpc2n-q%d", path, mode, pol, q)
			}
			if r.Num("measured_jobs") != 1024 {
				return nil, nil, fmt.Errorf("%s: hpc2n-q%d has %v measured jobs, not 1024", path, q, r["measured_jobs"])
			}
			u, err := artefactUtilisation(r, spans)
			if err != nil {
				return nil, nil, err
			}
			bsld, util = append(bsld, r.Num("mean_bsld")), append(util, u)
		}
		return bsld, util, nil
	}
	artMode := map[string]string{"fcfs": "nobf", "easy": "bf"}
	copyBsld := values{"hpc2n": {}}
	var utilLines []string
	fmt.Fprintf(w, "HPC2N, the same %d sequences: mean bounded slowdown, the artefact's (README) and ours (mean over the sequences [95 %% interval]) under its scheduler copied (artefact.py; WFP3 and UNICEP with the wait its code uses, -1 - s, and with the wait now) and under schedlab's fcfs and easy; reproduced: the artefact's value lies in the copy's interval; ratio: the copy's mean over the artefact's\n", sequences)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| backfilling | order | artefact's | its scheduler copied | ratio | verdict | copied, wait now | schedlab | artefact's in schedlab's interval |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	inside := func(v float64, xs []float64) bool {
		ci := stats.MeanCI(xs, 0.95)
		return ci.Lo <= v && v <= ci.Hi
	}
	for _, m := range modes {
		copyBsld["hpc2n"][m.key] = map[string][]float64{}
		for _, o := range artefactOrders {
			c, cu, err := get(artMode[m.key], o)
			if err != nil {
				return err
			}
			uv := artefactUtil[m.key][o]
			uverdict := "not reproduced"
			if math.Abs(mean(cu)-uv) <= 0.005 {
				uverdict = "reproduced"
			}
			utilLines = append(utilLines, fmt.Sprintf("| %s | %s | %.3f | %s | %+.3f | %s |", m.name, o, uv, runtable.Cell(cu, "%.3f"), mean(cu)-uv, uverdict))
			copyBsld["hpc2n"][m.key][o] = c
			now := "-"
			if o == "wfp3" || o == "unicep" {
				n, _, err := get(artMode[m.key], o+"-now")
				if err != nil {
					return err
				}
				now = runtable.Cell(n, "%.1f")
			}
			v := artefactBsld[m.key][o]
			verdict, in := "not reproduced", "no"
			if inside(v, c) {
				verdict = "reproduced"
			}
			if inside(v, ours[m.key][o]) {
				in = "yes"
			}
			fmt.Fprintf(w, "| %s | %s | %.2f | %s | %.3f | %s | %s | %s | %s |\n", m.name, o, v, runtable.Cell(c, "%.1f"), mean(c)/v, verdict, now, runtable.Cell(ours[m.key][o], "%.1f"), in)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "HPC2N, the artefact's scheduler copied: utilisation as the artefact computes it (to the last start), the artefact's and ours, mean over the sequences [95 % interval]; reproduced: the means differ by at most 0.005")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| backfilling | order | artefact's | its scheduler copied | difference | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, l := range utilLines {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Under the artefact's scheduler copied (WFP3 and UNICEP as coded):")
	fmt.Fprintln(w)
	pairs(w, copyBsld, "hpc2n")
	return nil
}
