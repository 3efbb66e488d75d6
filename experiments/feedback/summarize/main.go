// Command summarize turns the campaign of docs/feedback.md (open against
// closed loop on four shared traces, under FCFS, EASY and conservative
// backfilling; see ../open-closed.toml) into the page's tables. It reads
// only the campaign's runs.parquet.
//
//	go run ./experiments/feedback/summarize -runs out/feedback/runs.parquet
//
// The whole traces: each policy's metrics replayed (open) and with the
// inferred sessions (closed), and the policies' order by mean bounded
// slowdown. The segments: per trace and pair of policies, the ratio of
// their mean bounded slowdowns and of their mean waits in each of the 8
// segments, open and closed, and the change from open to closed, each the
// mean over the segments with a 95 % Student t interval; and in how many
// segments the pair's order differs between open and closed.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/stats"
)

// The traces in the campaign, by short name, and the policies.
var (
	traces = []struct{ key, name string }{
		{"kth", "KTH-SP2"}, {"blue", "SDSC-BLUE"}, {"hpc2n", "HPC2N"}, {"ricc", "RICC"},
	}
	policies = []string{"fcfs", "easy", "conservative"}
	segments = 8
)

func main() {
	path := flag.String("runs", "out/feedback/runs.parquet", "the campaign's runs.parquet")
	flag.Parse()
	if err := run(os.Stdout, *path); err != nil {
		fmt.Fprintln(os.Stderr, "summarize:", err)
		os.Exit(1)
	}
}

// row is a run's columns by name.
type row map[string]any

func (r row) num(name string) float64 {
	switch x := r[name].(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	}
	return math.NaN()
}

// index reads the runs.parquet: each completed run by workload and policy.
func index(path string) (map[string]row, error) {
	cols, rows, _, err := results.ReadTable(path)
	if err != nil {
		return nil, err
	}
	out := map[string]row{}
	for _, r := range rows {
		m := row{}
		for i, c := range cols {
			m[c.Name] = r[i]
		}
		if m["status"] != "ok" {
			return nil, fmt.Errorf("%s: run %v is %v", path, m["label"], m["status"])
		}
		out[m["workload"].(string)+"/"+m["policy"].(string)] = m
	}
	return out, nil
}

func run(w io.Writer, path string) error {
	runs, err := index(path)
	if err != nil {
		return err
	}
	get := func(trace, part, mode, pol string) (row, error) {
		r, ok := runs[trace+"-"+part+"-"+mode+"/"+pol]
		if !ok {
			return nil, fmt.Errorf("%s: no run of %s on %s-%s-%s", path, pol, trace, part, mode)
		}
		return r, nil
	}
	if err := shares(w, get); err != nil {
		return err
	}
	if err := whole(w, get); err != nil {
		return err
	}
	return segmented(w, get)
}

// shares prints the share of each whole trace's jobs that the sessions
// make dependent, from the feedback counts of its closed FCFS run (the
// same for every policy: they come from the trace).
func shares(w io.Writer, get func(trace, part, mode, pol string) (row, error)) error {
	fmt.Fprintln(w, "The whole traces under feedback = \"sessions\" (defaults): the jobs each rule counted")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| trace | jobs | dependent | no predecessor | session break | dropped predecessor | dependent share (%) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, tr := range traces {
		c, err := get(tr.key, "all", "closed", "fcfs")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f |\n", tr.name, c.num("jobs"), c.num("feedback_dependent"),
			c.num("feedback_no_predecessor"), c.num("feedback_session_break"), c.num("feedback_dropped_predecessor"),
			100*c.num("feedback_dependent")/c.num("jobs"))
	}
	fmt.Fprintln(w)
	return nil
}

// order returns the policies by their value of metric, least first, ties
// by name, joined by " < ".
func order(vals map[string]float64) string {
	ps := slices.Clone(policies)
	slices.SortStableFunc(ps, func(a, b string) int { return cmp.Compare(vals[a], vals[b]) })
	return strings.Join(ps, " < ")
}

// whole prints the table of the whole traces.
func whole(w io.Writer, get func(trace, part, mode, pol string) (row, error)) error {
	fmt.Fprintln(w, "The whole traces, open (replayed) and closed (sessions): each policy's metrics")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| trace | policy | mean wait open (h) | mean wait closed (h) | mean bounded slowdown open | closed | utilisation open | closed | jobs delayed (%) | mean delay (h) | jobs advanced (%) | mean advance (h) | span ratio | sessions | mean session (h) | weekly jobs CV |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	var orders []string
	for _, tr := range traces {
		bsld := map[string]map[string]float64{"open": {}, "closed": {}}
		for _, pol := range policies {
			o, err := get(tr.key, "all", "open", pol)
			if err != nil {
				return err
			}
			c, err := get(tr.key, "all", "closed", pol)
			if err != nil {
				return err
			}
			bsld["open"][pol], bsld["closed"][pol] = o.num("mean_bsld"), c.num("mean_bsld")
			jobs := c.num("jobs")
			per := func(total, n string) float64 {
				if c.num(n) == 0 {
					return 0
				}
				return c.num(total) / c.num(n) / 3600
			}
			fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %.1f | %.1f | %.4f | %.4f | %.1f | %.2f | %.1f | %.2f | %.4f | %.0f | %.2f | %.3f |\n",
				tr.name, pol, o.num("mean_wait")/3600, c.num("mean_wait")/3600, o.num("mean_bsld"), c.num("mean_bsld"),
				o.num("utilisation"), c.num("utilisation"),
				100*c.num("delayed_jobs")/jobs, per("submit_delay_total", "delayed_jobs"),
				100*c.num("advanced_jobs")/jobs, per("submit_advance_total", "advanced_jobs"),
				c.num("submit_span_ratio"), c.num("sessions"), c.num("session_duration_mean")/3600, c.num("weekly_jobs_cv"))
		}
		orders = append(orders, fmt.Sprintf("| %s | %s | %s |", tr.name, order(bsld["open"]), order(bsld["closed"])))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The policies by mean bounded slowdown, best first")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| trace | open | closed |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, o := range orders {
		fmt.Fprintln(w, o)
	}
	fmt.Fprintln(w)
	return nil
}

// cell formats the mean of xs with its 95 % Student t interval.
func cell(xs []float64, f string) string {
	s := stats.Describe(xs, 0.95)
	if s.SD == 0 || math.IsNaN(s.CI.Lo) {
		return fmt.Sprintf(f, s.Mean)
	}
	return fmt.Sprintf(f+" ["+f+", "+f+"]", s.Mean, s.CI.Lo, s.CI.Hi)
}

// segmented prints the table of the segments.
func segmented(w io.Writer, get func(trace, part, mode, pol string) (row, error)) error {
	pairs := [][2]string{{"easy", "fcfs"}, {"conservative", "fcfs"}, {"easy", "conservative"}}
	fmt.Fprintf(w, "The %d segments of each trace: the ratio of two policies' metric, mean over the segments [95 %% interval]\n", segments)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| trace | policies | slowdown ratio open | closed | change | wait ratio open | closed | change | order by slowdown differs | three policies' order differs |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, tr := range traces {
		// The policies' metrics by segment and mode.
		type key struct {
			seg       int
			mode, pol string
		}
		val := map[key]row{}
		for s := 1; s <= segments; s++ {
			for _, mode := range []string{"open", "closed"} {
				for _, pol := range policies {
					r, err := get(tr.key, fmt.Sprintf("s%d", s), mode, pol)
					if err != nil {
						return err
					}
					val[key{s, mode, pol}] = r
				}
			}
		}
		three := 0
		for s := 1; s <= segments; s++ {
			by := func(mode string) string {
				m := map[string]float64{}
				for _, pol := range policies {
					m[pol] = val[key{s, mode, pol}].num("mean_bsld")
				}
				return order(m)
			}
			if by("open") != by("closed") {
				three++
			}
		}
		for _, p := range pairs {
			var so, sc, sd, wo, wc, wd []float64
			flips := 0
			for s := 1; s <= segments; s++ {
				ratio := func(mode, metric string) float64 {
					return val[key{s, mode, p[0]}].num(metric) / val[key{s, mode, p[1]}].num(metric)
				}
				a, b := ratio("open", "mean_bsld"), ratio("closed", "mean_bsld")
				so, sc, sd = append(so, a), append(sc, b), append(sd, b-a)
				if (a < 1) != (b < 1) {
					flips++
				}
				a, b = ratio("open", "mean_wait"), ratio("closed", "mean_wait")
				wo, wc, wd = append(wo, a), append(wc, b), append(wd, b-a)
			}
			fmt.Fprintf(w, "| %s | %s / %s | %s | %s | %s | %s | %s | %s | %d of %d | %d of %d |\n", tr.name, p[0], p[1],
				cell(so, "%.3f"), cell(sc, "%.3f"), cell(sd, "%+.3f"), cell(wo, "%.3f"), cell(wc, "%.3f"), cell(wd, "%+.3f"),
				flips, segments, three, segments)
		}
	}
	return nil
}
