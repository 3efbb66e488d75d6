package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/schedlab/schedlab/results"
)

// paperTransfer is the global streams' transfer time in the campaigns of
// paper 003 but pooled.toml (`transfer = 300`): a global job cannot start
// anywhere before submit + transfer, so it counts as waiting, for the
// waste, from then. measureWaste checks that no started global job starts
// earlier.
const paperTransfer = 300

// waste is the capacity left idle while work waits that could use it, the
// waste the paper names in static partitioning (§4.2: «одна часть ресурсов
// будет простаивать, если нет распределяемых на эту часть заданий, в то
// время как ресурсов для обслуживания заданий другого сорта может не
// хватать»), measured for every broker alike. Over each stretch of time
// and on each cluster, the idle processors (the cluster's capacity less
// what its running jobs hold) are counted up to the processors of the
// waiting jobs that fit in them: global jobs (from submit + transfer to
// their start; any cluster) and local jobs (from submit to their start;
// their home only). Rejected jobs never wait. Each is a share of the
// grid's capacity over the run's span (first submission to last end).
type waste struct {
	// global counts idle processors a waiting global job would fit in,
	// local those a waiting local job would, any those either would.
	global, local, any float64
}

// platformCaps reads the processors of each cluster from a jobs file's
// provenance (its platform key, sdk.Platform as JSON).
func platformCaps(meta results.Metadata) ([]int64, error) {
	var p struct {
		Clusters []struct {
			Name     string  `json:"name"`
			Capacity []int64 `json:"capacity"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal([]byte(meta["platform"]), &p); err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	if len(p.Clusters) == 0 {
		return nil, fmt.Errorf("platform: no clusters")
	}
	caps := make([]int64, len(p.Clusters))
	for i, c := range p.Clusters {
		if len(c.Capacity) == 0 {
			return nil, fmt.Errorf("platform: cluster %s has no capacity", c.Name)
		}
		caps[i] = c.Capacity[0]
	}
	return caps, nil
}

// measureWaste sweeps a run's jobs in time order (see waste).
func measureWaste(jobs []results.JobRow, grid []results.GridRow, caps []int64, transfer int64) (waste, error) {
	type event struct {
		t    int64
		kind int // 0: job ends, 1: starts, 2: stops waiting, 3: starts waiting
		job  int
	}
	var evs []event
	first, last := int64(-1), int64(0)
	for i, j := range jobs {
		g := grid[i]
		if g.Rejected {
			continue
		}
		if j.Cluster < 0 || int(j.Cluster) >= len(caps) {
			return waste{}, fmt.Errorf("job %d ran on cluster %d of %d", j.JobID, j.Cluster, len(caps))
		}
		from := j.Submit
		if g.Home < 0 {
			from += transfer
			if j.Start < from {
				return waste{}, fmt.Errorf("global job %d starts at %d, before submit + transfer %d (is the streams' transfer %d s?)", j.JobID, j.Start, from, transfer)
			}
		}
		if first < 0 || j.Submit < first {
			first = j.Submit
		}
		last = max(last, j.End)
		evs = append(evs, event{j.Start, 1, i}, event{j.End, 0, i})
		if from < j.Start {
			evs = append(evs, event{from, 3, i}, event{j.Start, 2, i})
		}
	}
	sort.Slice(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return evs[a].kind < evs[b].kind
	})
	var capSum float64
	for _, c := range caps {
		capSum += float64(c)
	}
	busy := make([]int64, len(caps))
	waiting := map[int]bool{}
	var w waste
	for k := 0; k < len(evs); {
		t := evs[k].t
		for ; k < len(evs) && evs[k].t == t; k++ {
			e, j := evs[k], jobs[evs[k].job]
			switch e.kind {
			case 0:
				busy[j.Cluster] -= j.Procs
			case 1:
				busy[j.Cluster] += j.Procs
			case 2:
				delete(waiting, e.job)
			case 3:
				waiting[e.job] = true
			}
		}
		if k == len(evs) || len(waiting) == 0 {
			continue
		}
		dt := float64(evs[k].t - t)
		for c, capc := range caps {
			idle := capc - busy[c]
			if idle < 0 {
				return waste{}, fmt.Errorf("cluster %d holds %d of %d processors at %d", c, busy[c], capc, t)
			}
			var fitG, fitL int64
			for i := range waiting {
				j, g := jobs[i], grid[i]
				if j.Procs > idle {
					continue
				}
				if g.Home < 0 {
					fitG += j.Procs
				} else if g.Home == int64(c) {
					fitL += j.Procs
				}
			}
			w.global += float64(min(idle, fitG)) * dt
			w.local += float64(min(idle, fitL)) * dt
			w.any += float64(min(idle, fitG+fitL)) * dt
		}
	}
	if total := capSum * float64(last-first); total > 0 {
		w.global, w.local, w.any = w.global/total, w.local/total, w.any/total
	}
	return w, nil
}

// wasteTable prints, per group, the waste with the waits of the jobs the
// broker accepted (claim 5).
func wasteTable(w io.Writer, header string, runs []runOf) {
	groups, by := groupRuns(runs)
	fmt.Fprintf(w, "| %s | idle while a waiting global job fits | idle while a waiting local job fits | idle while either fits | global mean wait (h) | local mean wait (h) | global rejected | local rejected |\n|---|---|---|---|---|---|---|---|\n", header)
	for _, g := range groups {
		col := func(f func(r runOf) float64) []float64 {
			var out []float64
			for _, r := range by[g] {
				out = append(out, f(r))
			}
			return out
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", g,
			ci(col(func(r runOf) float64 { return r.waste.global }), 4), ci(col(func(r runOf) float64 { return r.waste.local }), 4),
			ci(col(func(r runOf) float64 { return r.waste.any }), 4),
			ci(col(func(r runOf) float64 { return r.metrics["global_mean_wait"] / 3600 }), 2),
			ci(col(func(r runOf) float64 { return r.metrics["local_mean_wait"] / 3600 }), 2),
			ci(col(func(r runOf) float64 { return r.metrics["global_rejected"] }), 1),
			ci(col(func(r runOf) float64 { return float64(r.rejectedLocal) }), 1))
	}
	fmt.Fprintln(w)
}
