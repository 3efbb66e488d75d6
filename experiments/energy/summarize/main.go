// Command summarize turns the two campaigns of docs/energy.md (switching
// idle nodes off under EASY, ../idle.toml; a power cap under EASY,
// ../cap.toml) into the page's tables. It reads only the campaigns'
// runs.parquet files.
//
//	go run ./experiments/energy/summarize -idle out/energy/idle/runs.parquet -cap out/energy/cap/runs.parquet
//
// Idle timeouts: for each log and timeout, over the whole log, the energy,
// what switching saved against never switching, the mean wait and bounded
// slowdown and the switches; and over the 8 segments, the energy saved and
// the change of the mean wait, each the mean over the segments with a 95 %
// Student t interval. Caps: for each cap, the same over the whole log and
// the segments, against no cap.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/schedlab/schedlab/experiments/internal/runtable"
)

var (
	timeouts = []int64{-1, 60, 300, 900, 3600}
	caps     = []string{"none", "cap95", "cap90", "cap85"}
	segments = 8
)

func main() {
	idle := flag.String("idle", "out/energy/idle/runs.parquet", "the idle campaign's runs.parquet")
	capped := flag.String("cap", "out/energy/cap/runs.parquet", "the cap campaign's runs.parquet")
	flag.Parse()
	if err := run(os.Stdout, *idle, *capped); err != nil {
		fmt.Fprintln(os.Stderr, "summarize:", err)
		os.Exit(1)
	}
}

type row = runtable.Row

func run(w io.Writer, idlePath, capPath string) error {
	idle, err := runtable.Read(idlePath, func(r row) string {
		return fmt.Sprintf("%s/%d", r["workload"], int64(r.Num("param_idle_off")))
	})
	if err != nil {
		return err
	}
	get := func(m map[string]row, k string) (row, error) {
		r, ok := m[k]
		if !ok {
			return nil, fmt.Errorf("no run %s", k)
		}
		return r, nil
	}
	fmt.Fprintln(w, "Switching idle nodes off, whole logs:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| log | idle_off | energy (MWh) | saved | idle share | mean wait (h) | mean bsld | switches off |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, tr := range []struct{ key, name string }{{"kth", "KTH-SP2"}, {"blue", "SDSC-BLUE"}} {
		base, err := get(idle, tr.key+"-all/-1")
		if err != nil {
			return err
		}
		for _, t := range timeouts {
			r, err := get(idle, fmt.Sprintf("%s-all/%d", tr.key, t))
			if err != nil {
				return err
			}
			name := "never"
			if t >= 0 {
				name = fmt.Sprintf("%d s", t)
			}
			fmt.Fprintf(w, "| %s | %s | %.2f | %.1f %% | %.3f | %.3f | %.2f | %.0f |\n", tr.name, name, r.Num("energy")/3.6e9,
				100*(1-r.Num("energy")/base.Num("energy")), r.Num("energy_idle")/r.Num("energy"),
				r.Num("mean_wait")/3600, r.Num("mean_bsld"), r.Num("switch_offs"))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Switching idle nodes off, over the 8 segments of each log (mean [95 % interval]):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| log | idle_off | energy saved | mean wait added (min) | mean wait ratio |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, tr := range []struct{ key, name string }{{"kth", "KTH-SP2"}, {"blue", "SDSC-BLUE"}} {
		for _, t := range timeouts[1:] {
			var saved, added, ratio []float64
			for s := 1; s <= segments; s++ {
				base, err := get(idle, fmt.Sprintf("%s-s%d/-1", tr.key, s))
				if err != nil {
					return err
				}
				r, err := get(idle, fmt.Sprintf("%s-s%d/%d", tr.key, s, t))
				if err != nil {
					return err
				}
				saved = append(saved, 100*(1-r.Num("energy")/base.Num("energy")))
				added = append(added, (r.Num("mean_wait")-base.Num("mean_wait"))/60)
				ratio = append(ratio, r.Num("mean_wait")/base.Num("mean_wait"))
			}
			fmt.Fprintf(w, "| %s | %d s | %s %% | %s | %s |\n", tr.name, t, runtable.Cell(saved, "%.1f"), runtable.Cell(added, "%.1f"), runtable.Cell(ratio, "%.3f"))
		}
	}
	capped, err := runtable.Read(capPath, func(r row) string { return fmt.Sprintf("%s/%s", r["workload"], r["platform"]) })
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "A power cap under EASY, HPC2N whole and over its 8 segments (mean [95 % interval]):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| cap | whole: mean wait (h) | whole: mean bsld | whole: utilisation | whole: mean power (kW) | segments: mean wait ratio | segments: bsld ratio |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, c := range caps {
		r, err := get(capped, "hpc2n-all/"+c)
		if err != nil {
			return err
		}
		var wr, br []float64
		for s := 1; s <= segments; s++ {
			base, err := get(capped, fmt.Sprintf("hpc2n-s%d/none", s))
			if err != nil {
				return err
			}
			x, err := get(capped, fmt.Sprintf("hpc2n-s%d/%s", s, c))
			if err != nil {
				return err
			}
			wr = append(wr, x.Num("mean_wait")/base.Num("mean_wait"))
			br = append(br, x.Num("mean_bsld")/base.Num("mean_bsld"))
		}
		fmt.Fprintf(w, "| %s | %.2f | %.2f | %.3f | %.2f | %s | %s |\n", c, r.Num("mean_wait")/3600, r.Num("mean_bsld"),
			r.Num("utilisation"), r.Num("power_mean")/1000, runtable.Cell(wr, "%.3f"), runtable.Cell(br, "%.3f"))
	}
	return nil
}
