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
	"os"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/experiments/internal/runtable"
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

type row = runtable.Row

func run(w io.Writer, path string) error {
	runs, err := runtable.Read(path, runtable.ByWorkloadPolicy)
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
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f |\n", tr.name, c.Num("jobs"), c.Num("feedback_dependent"),
			c.Num("feedback_no_predecessor"), c.Num("feedback_session_break"), c.Num("feedback_dropped_predecessor"),
			100*c.Num("feedback_dependent")/c.Num("jobs"))
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
			bsld["open"][pol], bsld["closed"][pol] = o.Num("mean_bsld"), c.Num("mean_bsld")
			jobs := c.Num("jobs")
			per := func(total, n string) float64 {
				if c.Num(n) == 0 {
					return 0
				}
				return c.Num(total) / c.Num(n) / 3600
			}
			fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %.1f | %.1f | %.4f | %.4f | %.1f | %.2f | %.1f | %.2f | %.4f | %.0f | %.2f | %.3f |\n",
				tr.name, pol, o.Num("mean_wait")/3600, c.Num("mean_wait")/3600, o.Num("mean_bsld"), c.Num("mean_bsld"),
				o.Num("utilisation"), c.Num("utilisation"),
				100*c.Num("delayed_jobs")/jobs, per("submit_delay_total", "delayed_jobs"),
				100*c.Num("advanced_jobs")/jobs, per("submit_advance_total", "advanced_jobs"),
				c.Num("submit_span_ratio"), c.Num("sessions"), c.Num("session_duration_mean")/3600, c.Num("weekly_jobs_cv"))
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
					m[pol] = val[key{s, mode, pol}].Num("mean_bsld")
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
					return val[key{s, mode, p[0]}].Num(metric) / val[key{s, mode, p[1]}].Num(metric)
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
				runtable.Cell(so, "%.3f"), runtable.Cell(sc, "%.3f"), runtable.Cell(sd, "%+.3f"), runtable.Cell(wo, "%.3f"), runtable.Cell(wc, "%.3f"), runtable.Cell(wd, "%+.3f"),
				flips, segments, three, segments)
		}
	}
	return nil
}
