// Command summarize turns the campaign of docs/fairshare.md (EASY against
// multifactor with and without fair share on HPC2N, ../hpc2n.toml) into
// the page's tables.
//
//	go run ./experiments/fairshare/summarize -extract out/fairshare/hpc2n -users users.csv
//	go run ./experiments/fairshare/summarize -runs out/fairshare/hpc2n/runs.parquet -users users.csv
//
// With -extract it reads the campaign's jobs files and writes, for every
// run and user, the user's jobs, processor-seconds and summed wait and
// bounded slowdown (users.csv: a few hundred kilobytes where the jobs
// files are megabytes). Without it, it prints the tables from the
// campaign's runs.parquet and that file: per policy, the mean wait and
// bounded slowdown and the fairness columns of the run summaries; per
// heavy user (the five with the most processor-seconds over the log), the
// mean wait under EASY and each policy's difference with it; and the
// difference with EASY of the heavy users' and the other users' mean
// waits. Each is the mean over the 8 segments with a 95 % Student t
// interval (a user's over the segments in which it has jobs; differences
// segment by segment, as the segments are the blocks).
package main

import (
	"cmp"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/experiments/internal/runtable"
	"github.com/schedlab/schedlab/results"
)

var (
	policies = []string{"easy", "mf-nofs", "mf-fs-7d", "mf-fs-1d"}
	segments = []string{"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"}
	heavy    = 5
	// tau is the bounded slowdown's floor, the campaign's (the default).
	tau = 10.0
)

func main() {
	runs := flag.String("runs", "out/fairshare/hpc2n/runs.parquet", "the campaign's runs.parquet")
	users := flag.String("users", "users.csv", "the per-user sums (written with -extract, read otherwise)")
	extract := flag.String("extract", "", "the campaign folder whose jobs files to sum into -users")
	flag.Parse()
	var err error
	if *extract != "" {
		err = extractUsers(*extract, *users)
	} else {
		err = run(os.Stdout, *runs, *users)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "summarize:", err)
		os.Exit(1)
	}
}

// userSum is a user's jobs in one run.
type userSum struct {
	segment, policy string
	user            int64
	jobs            int64
	area            float64 // processor-seconds
	wait, bsld      float64 // sums
}

// extractUsers sums each run's jobs by user and writes the sums.
func extractUsers(dir, path string) error {
	runs, err := runtable.Read(filepath.Join(dir, "runs.parquet"), runtable.ByWorkloadPolicy)
	if err != nil {
		return err
	}
	var sums []userSum
	for _, r := range runs {
		jobs, _, err := results.ReadJobs(filepath.Join(dir, "jobs", fmt.Sprint(r["run_key"])+".parquet"))
		if err != nil {
			return fmt.Errorf("run %v: %w", r["label"], err)
		}
		by := map[int64]*userSum{}
		for _, j := range jobs {
			s := by[j.User]
			if s == nil {
				s = &userSum{segment: fmt.Sprint(r["workload"]), policy: fmt.Sprint(r["policy"]), user: j.User}
				by[j.User] = s
			}
			s.jobs++
			s.area += float64(j.Procs * j.Runtime)
			s.wait += float64(j.Wait)
			s.bsld += max(float64(j.Wait+j.Runtime)/max(float64(j.Runtime), tau), 1)
		}
		for _, s := range by {
			sums = append(sums, *s)
		}
	}
	slices.SortFunc(sums, func(a, b userSum) int {
		return cmp.Or(cmp.Compare(a.segment, b.segment), cmp.Compare(a.policy, b.policy), cmp.Compare(a.user, b.user))
	})
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"segment", "policy", "user", "jobs", "area", "wait", "bsld"})
	for _, s := range sums {
		_ = w.Write([]string{s.segment, s.policy, strconv.FormatInt(s.user, 10), strconv.FormatInt(s.jobs, 10),
			strconv.FormatFloat(s.area, 'f', -1, 64), strconv.FormatFloat(s.wait, 'f', -1, 64), strconv.FormatFloat(s.bsld, 'f', -1, 64)})
	}
	w.Flush()
	return errors.Join(w.Error(), f.Close())
}

// readUsers reads the sums written by extractUsers.
func readUsers(path string) ([]userSum, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []userSum
	for i, r := range recs[1:] {
		var s userSum
		var errs [5]error
		s.segment, s.policy = r[0], r[1]
		s.user, errs[0] = strconv.ParseInt(r[2], 10, 64)
		s.jobs, errs[1] = strconv.ParseInt(r[3], 10, 64)
		s.area, errs[2] = strconv.ParseFloat(r[4], 64)
		s.wait, errs[3] = strconv.ParseFloat(r[5], 64)
		s.bsld, errs[4] = strconv.ParseFloat(r[6], 64)
		if err := errors.Join(errs[:]...); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+2, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func run(w io.Writer, runsPath, usersPath string) error {
	runs, err := runtable.Read(runsPath, runtable.ByWorkloadPolicy)
	if err != nil {
		return err
	}
	sums, err := readUsers(usersPath)
	if err != nil {
		return err
	}
	col := func(pol, name string, scale float64) ([]float64, error) {
		var xs []float64
		for _, seg := range segments {
			r, ok := runs[seg+"/"+pol]
			if !ok {
				return nil, fmt.Errorf("no run %s/%s", seg, pol)
			}
			xs = append(xs, r.Num(name)/scale)
		}
		return xs, nil
	}
	fmt.Fprintln(w, "Every user, per policy (mean over the 8 segments, 95 % interval):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| policy | mean wait (h) | mean bsld | users' mean bsld, Jain's index | largest user mean bsld |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, pol := range policies {
		var cells []string
		for _, c := range []struct {
			name  string
			scale float64
			f     string
		}{{"mean_wait", 3600, "%.2f"}, {"mean_bsld", 1, "%.1f"}, {"user_bsld_jain", 1, "%.3f"}, {"user_mean_bsld_max", 1, "%.0f"}} {
			xs, err := col(pol, c.name, c.scale)
			if err != nil {
				return err
			}
			cells = append(cells, runtable.Cell(xs, c.f))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", pol, cells[0], cells[1], cells[2], cells[3])
	}
	// The heavy users: the most processor-seconds over the log (EASY's
	// runs: every policy runs the same jobs).
	area := map[int64]float64{}
	total := 0.0
	for _, s := range sums {
		if s.policy == "easy" {
			area[s.user] += s.area
			total += s.area
		}
	}
	users := make([]int64, 0, len(area))
	for u := range area {
		users = append(users, u)
	}
	slices.SortFunc(users, func(a, b int64) int { return cmp.Or(cmp.Compare(area[b], area[a]), cmp.Compare(a, b)) })
	top := users[:min(heavy, len(users))]
	by := map[string]userSum{}
	for _, s := range sums {
		by[fmt.Sprintf("%s/%s/%d", s.segment, s.policy, s.user)] = s
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The heavy users' mean wait (hours): under EASY, and each policy's difference with EASY (mean over the segments in which the user has jobs, 95 % interval):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| user | share of the work | segments | jobs | easy | mf-nofs - easy | mf-fs-7d - easy | mf-fs-1d - easy |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, u := range top {
		var base []float64
		diffs := make([][]float64, len(policies)-1)
		jobs := int64(0)
		for _, seg := range segments {
			e, ok := by[fmt.Sprintf("%s/easy/%d", seg, u)]
			if !ok {
				continue
			}
			jobs += e.jobs
			base = append(base, e.wait/float64(e.jobs)/3600)
			for k, pol := range policies[1:] {
				s := by[fmt.Sprintf("%s/%s/%d", seg, pol, u)]
				diffs[k] = append(diffs[k], (s.wait-e.wait)/float64(e.jobs)/3600)
			}
		}
		fmt.Fprintf(w, "| %d | %.1f %% | %d | %d | %s | %s | %s | %s |\n", u, 100*area[u]/total, len(base), jobs,
			runtable.Cell(base, "%.2f"), runtable.Cell(diffs[0], "%+.2f"), runtable.Cell(diffs[1], "%+.2f"), runtable.Cell(diffs[2], "%+.2f"))
	}
	// The heavy users' and the others' mean waits against EASY's, segment
	// by segment.
	isTop := map[int64]bool{}
	for _, u := range top {
		isTop[u] = true
	}
	meanWait := func(seg, pol string, heavy bool) float64 {
		var wait float64
		var jobs int64
		for _, s := range sums {
			if s.segment == seg && s.policy == pol && isTop[s.user] == heavy {
				wait += s.wait
				jobs += s.jobs
			}
		}
		return wait / float64(jobs) / 3600
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Against EASY, segment by segment: every job's mean wait (hours) and bounded slowdown, and the mean wait of the heavy users' jobs and of the others' (mean over the 8 segments of the difference, 95 % interval):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| policy | mean wait | mean bsld | heavy users' mean wait | other users' mean wait |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, pol := range policies[1:] {
		var dw, db, dh, do []float64
		for _, seg := range segments {
			r, e := runs[seg+"/"+pol], runs[seg+"/easy"]
			dw = append(dw, (r.Num("mean_wait")-e.Num("mean_wait"))/3600)
			db = append(db, r.Num("mean_bsld")-e.Num("mean_bsld"))
			dh = append(dh, meanWait(seg, pol, true)-meanWait(seg, "easy", true))
			do = append(do, meanWait(seg, pol, false)-meanWait(seg, "easy", false))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", pol, runtable.Cell(dw, "%+.2f"), runtable.Cell(db, "%+.1f"), runtable.Cell(dh, "%+.2f"), runtable.Cell(do, "%+.2f"))
	}
	return nil
}
