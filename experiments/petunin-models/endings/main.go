// Command endings shows how jobs end near their limit in SWF logs, the
// evidence for the default rules of `schedlab workload analyze` and `fit`
// on which jobs were killed at their limit (analysis.DefaultRules), and
// counts the jobs that never ran (docs/reproductions/petunin-models.md):
//
//	go run ./experiments/petunin-models/endings LOG.swf.gz...
//
// It prints two Markdown tables: per log and band of requested time, the
// jobs that ran and how many ended at or after their limit, and 1 to 60,
// 61 to 120 and 121 to 180 s before it; then per log what the default rules
// make of its jobs (analysis.Endings).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/workload/analysis"
	"github.com/schedlab/schedlab/workload/swf"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: endings LOG.swf[.gz]...")
		os.Exit(2)
	}
	logs := map[string][]swf.Record{}
	for _, p := range os.Args[1:] {
		recs, err := read(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "endings:", err)
			os.Exit(2)
		}
		logs[p] = recs
	}
	write(os.Stdout, os.Args[1:], logs)
}

func read(path string) ([]swf.Record, error) {
	r, err := swf.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var recs []swf.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
}

// bands are the upper bounds of the bands of requested time, in seconds;
// the last band is open.
var bands = []int64{120, 300, 600, 1200, 3600}

func bandName(i int) string {
	switch {
	case i == 0:
		return fmt.Sprintf("up to %d s", bands[0])
	case i == len(bands):
		return fmt.Sprintf("above %d s", bands[len(bands)-1])
	}
	return fmt.Sprintf("%d to %d s", bands[i-1], bands[i])
}

func write(w io.Writer, paths []string, logs map[string][]swf.Record) {
	fmt.Fprintln(w, "Jobs that ran (T_run > 0) with a limit, by band of requested time T_lim (above the lower bound, up to the upper): how many ended at or after their limit, and how many 1 to 60, 61 to 120 and 121 to 180 s before it:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| log | T_lim | jobs | T_run >= T_lim | 1 to 60 s before | 61 to 120 s before | 121 to 180 s before |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|")
	for _, p := range paths {
		type row struct{ jobs, at, m1, m2, m3 int }
		rows := make([]row, len(bands)+1)
		for _, r := range logs[p] {
			if r.RunTime <= 0 || r.ReqTime <= 0 {
				continue
			}
			b := len(bands)
			for i, hi := range bands {
				if r.ReqTime <= hi {
					b = i
					break
				}
			}
			x := &rows[b]
			x.jobs++
			switch early := r.ReqTime - r.RunTime; {
			case early <= 0:
				x.at++
			case early <= 60:
				x.m1++
			case early <= 120:
				x.m2++
			case early <= 180:
				x.m3++
			}
		}
		for i, x := range rows {
			fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %d |\n", filepath.Base(p), bandName(i), x.jobs, x.at, x.m1, x.m2, x.m3)
		}
	}
	r := analysis.DefaultRules()
	fmt.Fprintln(w)
	fmt.Fprintf(w, "What the default rules make of each log (--limit-tolerance %g --tolerance-min-limit %g --never-ran %s):\n\n",
		r.LimitTolerance, r.ToleranceMinLimit, r.NeverRan)
	fmt.Fprintln(w, "| log | jobs | killed at their limit | of which T_run >= T_lim | of which within 60 s of a limit above 300 s | 60 to 120 s before such a limit (not killed) | within 60 s of a shorter limit (not killed) | never ran (T_run = 0) | share never ran |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, p := range paths {
		jobs := analysis.FromSWF(logs[p])
		e := r.Apply(jobs)
		fmt.Fprintf(w, "| %s | %d | %d (%.1f %%) | %d | %d | %d | %d | %d | %.1f %% |\n", filepath.Base(p), e.Jobs, e.Killed,
			100*float64(e.Killed)/float64(e.Jobs), e.AtLimit, e.NearLimit, e.NextWindow, e.NearShortLimit, e.NeverRan,
			100*float64(e.NeverRan)/float64(e.Jobs))
	}
}
