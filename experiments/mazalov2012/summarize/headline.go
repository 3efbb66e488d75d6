package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/compare"
)

// The headline's thresholds (section 3): the mean wait more than halved,
// errors at most 4 % of the jobs.
const (
	headlineDTw    = 0.5
	headlineErrors = 0.04
)

// headlineTable prints, for each request law and reading of c_q, dTw and
// the share of errors against tau up to 0.3 (Fig. 3's axis), with the
// streams that meet the headline, and a verdict per reading: where the
// interval of dTw lies against 0.5 at the tau where its mean is largest.
func headlineTable(w io.Writer, c *compare.Campaign) error {
	fmt.Fprintln(w, "### The headline against tau, both readings of c_q (headline.toml: section 3's parameters, 30 streams each)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| requests | c_q | tau | dTw | share errors | streams with dTw > 0.5 | of them with errors <= 0.04 |")
	fmt.Fprintln(w, "|---|---|---:|---|---|---:|---:|")
	type best struct {
		tau string
		p   point
	}
	var verdicts []string
	for _, wl := range []string{"exponential", "pareto"} {
		for _, cq := range nonEmpty(c.Values("param_cq")) {
			var b *best
			maxErr := 0.0
			for _, tau := range nonEmpty(c.Values("param_tau")) {
				p, err := paired(c, func(r compare.Run) bool {
					return r.Axes["workload"] == wl && r.Axes["param_cq"] == cq && r.Axes["param_tau"] == tau
				})
				if err != nil {
					return err
				}
				above, met := 0, 0
				for i, d := range p.streams.dTw {
					if d > headlineDTw {
						above++
						if p.streams.dTwErrors[i] <= headlineErrors {
							met++
						}
					}
				}
				maxErr = max(maxErr, slices.Max(p.streams.errors))
				x, _ := strconv.ParseFloat(tau, 64)
				fmt.Fprintf(w, "| %s | %s | %g | %s | %s | %d of %d | %d |\n", wl, cq, x, dtw(p), ci(p.errors), above, len(p.streams.dTw), met)
				if b == nil || p.dTw.Mean > b.p.dTw.Mean {
					b = &best{tau: tau, p: p}
				}
			}
			where := against(b.p.dTw)
			verdicts = append(verdicts, fmt.Sprintf("| %s | %s | %s | %s | %s | %.3f |", wl, cq, b.tau, ci(b.p.dTw), where, maxErr))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| requests | c_q | tau of the largest mean dTw | dTw there | its interval | largest share of errors of a stream, any tau |")
	fmt.Fprintln(w, "|---|---|---:|---|---|---:|")
	for _, v := range verdicts {
		fmt.Fprintln(w, v)
	}
	fmt.Fprintln(w)
	return nil
}

// offeredLoad is section 3's offered load, 0.00944 /min x 208.3 min x 10.03
// processors / 64, which the load campaign multiplies by its factor.
const offeredLoad = 0.00944 / 0.0048 * 10.03 / 64

// loadTable prints the table's three figures against the arrival rate,
// for every policy of the load campaign, and whether the paper's values
// lie in their intervals.
func loadTable(w io.Writer, c *compare.Campaign) error {
	fmt.Fprintln(w, "### The table's figures against the load (load.toml: section 3's parameters but lambda_a, 30 streams each)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| requests | lambda_a x | offered load | policy | dTw | share backfilled | share errors | the paper's dTw, backfilled, errors in the interval |")
	fmt.Fprintln(w, "|---|---:|---:|---|---|---|---|---|")
	var met []string
	n := 0
	for _, law := range []struct{ prefix, name string }{{"exp", "exponential"}, {"par", "pareto"}} {
		ref := paperTable()[law.name]
		for _, wl := range c.Values("workload") {
			if !strings.HasPrefix(wl, law.prefix) {
				continue
			}
			pct, err := strconv.ParseFloat(wl[len(law.prefix):], 64)
			if err != nil {
				return fmt.Errorf("workload %q: want the law and the arrival rate in %% (exp150)", wl)
			}
			for _, pol := range c.Values("policy") {
				if pol == "fcfs" {
					continue
				}
				p, err := pairedPolicy(c, pol, func(r compare.Run) bool { return r.Axes["workload"] == wl })
				if err != nil {
					return err
				}
				in := [3]string{inside(p.dTw, ref[0]), inside(p.backfill, ref[1]), inside(p.errors, ref[2])}
				n++
				if in == [3]string{"yes", "yes", "yes"} {
					met = append(met, fmt.Sprintf("%s x%g %s", law.name, pct/100, pol))
				}
				fmt.Fprintf(w, "| %s | %g | %.2f | %s | %s | %s | %s | %s, %s, %s |\n", law.name, pct/100, offeredLoad*pct/100, pol,
					dtw(p), ci(p.backfill), ci(p.errors), in[0], in[1], in[2])
			}
		}
	}
	fmt.Fprintf(w, "\nPoints with all three of the paper's values in their intervals: %d of %d", len(met), n)
	if len(met) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(met, "; "))
	}
	fmt.Fprint(w, ".\n\n")
	return nil
}

// fig5Set is a policy of a campaign compared with the campaign's FCFS.
type fig5Set struct {
	c             *compare.Campaign
	policy, label string
}

// jobWaits reads the waits of a run's jobs by job ID.
func jobWaits(c *compare.Campaign, r compare.Run) (map[int64]int64, error) {
	rows, _, err := results.ReadJobs(c.JobsPath(r))
	if err != nil {
		return nil, err
	}
	out := make(map[int64]int64, len(rows))
	for _, j := range rows {
		out[j.JobID] = j.Wait
	}
	return out, nil
}

// fig5Table compares, job by job and stream by stream, the waits of each
// policy with FCFS's on the same stream (the paper's Fig. 5 and its "the
// share of jobs whose wait decreased ... was 100 %"): the shares of jobs
// that wait less, more and the same (pooled over the streams), the share
// waiting less among the jobs whose wait changed, and the streams whose
// wait ECDF never lies below FCFS's (the k-th shortest wait no longer than
// FCFS's for every k) and those in which no job waits longer.
func fig5Table(w io.Writer, sets []fig5Set) error {
	fmt.Fprintln(w, "### Figure 5: each job's wait against FCFS's on the same stream (the table's streams, 30 per law)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| requests | policy | jobs waiting less | waiting more | same wait | waiting less, of the jobs whose wait changed | streams whose ECDF never lies below FCFS's | streams where no job waits longer |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|")
	for _, wl := range []string{"exponential", "pareto"} {
		for _, set := range sets {
			fcfs := map[int]compare.Run{}
			for _, r := range set.c.Runs {
				if r.Status == "ok" && r.Axes["policy"] == "fcfs" && r.Axes["workload"] == wl {
					fcfs[r.Replicate] = r
				}
			}
			var less, more, same, nStreams, dominated, noneLonger int
			for _, r := range set.c.Runs {
				if r.Status != "ok" || r.Axes["policy"] != set.policy || r.Axes["workload"] != wl {
					continue
				}
				f, ok := fcfs[r.Replicate]
				if !ok {
					return fmt.Errorf("%s: no FCFS run for %s", set.c.Dir, r.Label)
				}
				base, err := jobWaits(set.c, f)
				if err != nil {
					return err
				}
				got, err := jobWaits(set.c, r)
				if err != nil {
					return err
				}
				if len(got) != len(base) {
					return fmt.Errorf("%s: %d jobs against FCFS's %d", r.Label, len(got), len(base))
				}
				var a, b []int64
				longer := 0
				for id, wt := range got {
					fw, ok := base[id]
					if !ok {
						return fmt.Errorf("%s: job %d not in the FCFS run", r.Label, id)
					}
					switch {
					case wt < fw:
						less++
					case wt > fw:
						more++
						longer++
					default:
						same++
					}
					a, b = append(a, wt), append(b, fw)
				}
				slices.Sort(a)
				slices.Sort(b)
				nStreams++
				if below(a, b) {
					dominated++
				}
				if longer == 0 {
					noneLonger++
				}
			}
			if nStreams == 0 {
				return fmt.Errorf("%s: no completed %s run on %s", set.c.Dir, set.policy, wl)
			}
			all := float64(less + more + same)
			changed := "-"
			if less+more > 0 {
				changed = fmt.Sprintf("%.3f", float64(less)/float64(less+more))
			}
			fmt.Fprintf(w, "| %s | %s | %.3f | %.3f | %.3f | %s | %d of %d | %d of %d |\n", wl, set.label,
				float64(less)/all, float64(more)/all, float64(same)/all, changed, dominated, nStreams, noneLonger, nStreams)
		}
	}
	fmt.Fprintln(w)
	return nil
}

// below reports whether every order statistic of a is at most b's (both
// sorted, of one length): the ECDF of a never lies below b's.
func below(a, b []int64) bool {
	for k := range a {
		if a[k] > b[k] {
			return false
		}
	}
	return true
}
