package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
)

// termsSweep prints, from the terms-C.parquet files (Table 1's grid of
// terms at capacity C, 1 worker), how each method's work grows from the
// fewest terms to the most, beside the paper's growth of its time: the
// counted work (paths, term evaluations, nodes), then the times as a side
// reading.
func termsSweep(w io.Writer, dir string) error {
	files, _ := filepath.Glob(filepath.Join(dir, "terms-*.parquet"))
	type end struct{ paths, rankEvals, nodes, bnbEvals, rank, bnb []float64 }
	type point struct {
		capacity   float64
		lo, hi     int
		first, at  end
		instances  int
		agree, all int
	}
	var pts []point
	for _, f := range files {
		rows, meta, err := read(f)
		if err != nil {
			return err
		}
		p := point{lo: math.MaxInt}
		p.capacity, _ = strconv.ParseFloat(meta["table1.capacity"], 64)
		p.instances, _ = strconv.Atoi(meta["table1.instances"])
		for _, r := range rows {
			p.lo, p.hi = min(p.lo, r.terms), max(p.hi, r.terms)
			if r.method == "rank" {
				p.all++
				if r.agrees {
					p.agree++
				}
			}
		}
		for _, r := range rows {
			var e *end
			switch r.terms {
			case p.lo:
				e = &p.first
			case p.hi:
				e = &p.at
			default:
				continue
			}
			switch {
			case r.method == "rank" && r.workers == 1:
				e.paths, e.rankEvals, e.rank = append(e.paths, r.paths), append(e.rankEvals, r.termEvals), append(e.rank, r.secs)
			case r.method == "bnb":
				e.nodes, e.bnbEvals, e.bnb = append(e.nodes, r.nodes), append(e.bnbEvals, r.termEvals), append(e.bnb, r.secs)
			}
		}
		pts = append(pts, p)
	}
	if len(pts) == 0 {
		return nil
	}
	slices.SortFunc(pts, func(a, b point) int { return -cmp.Compare(a.capacity, b.capacity) })
	lo, hi := pts[0].lo, pts[0].hi
	fmt.Fprintf(w, "### Growth from %d to %d terms at each capacity\n\n%d instances per point, 1 worker; each cell is the mean at %d terms, then the growth to %d (the mean at %d over the mean at %d).\n\n",
		lo, hi, pts[0].instances, lo, hi, hi, lo)
	ps, pl := paper[lo][0], paper[hi][0]
	fmt.Fprintf(w, "The paper's sequential time grows %.1fx over %.1fx the terms: terms^%.2f.\n\n", pl/ps, float64(hi)/float64(lo),
		math.Log(pl/ps)/math.Log(float64(hi)/float64(lo)))
	fmt.Fprintln(w, "| capacity | rank: paths | rank: term evaluations | bnb: nodes | bnb: term evaluations | rank, 1 worker (ms), side reading | bnb (ms), side reading | agree (all terms) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	cell := func(a, b []float64, scale float64, format string) string {
		return fmt.Sprintf(format+", %.2fx", scale*mean(a), mean(b)/mean(a))
	}
	for _, p := range pts {
		if p.lo != lo || p.hi != hi {
			return fmt.Errorf("terms-%g.parquet: terms %d to %d, the others %d to %d", p.capacity, p.lo, p.hi, lo, hi)
		}
		fmt.Fprintf(w, "| %g | %s | %s | %s | %s | %s | %s | %d/%d |\n", p.capacity, cell(p.first.paths, p.at.paths, 1, "%.0f"),
			cell(p.first.rankEvals, p.at.rankEvals, 1, "%.0f"), cell(p.first.nodes, p.at.nodes, 1, "%.0f"),
			cell(p.first.bnbEvals, p.at.bnbEvals, 1, "%.0f"), cell(p.first.rank, p.at.rank, 1000, "%.1f"), cell(p.first.bnb, p.at.bnb, 1000, "%.2f"), p.agree, p.all)
	}
	fmt.Fprintln(w)
	return nil
}
