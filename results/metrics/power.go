package metrics

import (
	"cmp"
	"maps"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// PowerKeys returns the JSON names of the metrics of a run with a power
// model.
func PowerKeys() []string {
	return []string{"energy", "energy_static", "energy_dynamic", "energy_off", "energy_switching", "energy_jobs",
		"energy_idle", "power_mean", "energy_delay", "switch_ons", "switch_offs", "switching_node_seconds", "off_node_seconds",
		"over_cap_seconds"}
}

// JobEnergy returns the energy, in joules, that a job of tasks t drew
// running for d seconds on allocation a of a cluster with layout l and
// power model m (of the cluster's groups): on each of its nodes, its
// share of the node's idle power, by the cores it holds (an exclusive
// job holds the node whole), plus what its cores in use add. The jobs'
// energies and the idle energy (AddPower) add up to the static and
// dynamic energy of the nodes on. On a node whose group has a busy power
// table (sdk.NodePower.Busy), the job's idle share alone: what its cores
// in use add there depends on the other jobs on the node (TableEnergy).
func JobEnergy(l *sdk.Layout, m []sdk.NodePower, t *sdk.Tasks, a sdk.Alloc, d int64) float64 {
	w := 0.0
	for x, k := range a.Nodes {
		g := &m[l.Group(int(k))]
		cores := l.Cap(int(k)).Cores
		held := l.Held(t, k, a.Tasks[x]).Cores
		w += g.Idle * float64(held) / float64(cores)
		if g.Busy == nil {
			w += float64(int64(a.Tasks[x])*int64(t.Cores)) * g.CoreWatts(cores)
		}
	}
	return w * float64(d)
}

// Run is one run of job Job (an index): from Start to End on Alloc.
type Run struct {
	Job        int
	Start, End int64
	Alloc      sdk.Alloc
}

// Runs returns every run of the jobs of a result on a cluster of nodes:
// each record's that started (recs, allocs), then each run that an outage
// ended (atts, attAllocs; none without outages) but a killed job's last,
// which is its record's.
func Runs(recs []sim.Record, allocs *sim.Allocs, atts []sim.Attempt, attAllocs *sim.Allocs) []Run {
	if allocs == nil {
		return nil
	}
	runs := make([]Run, 0, len(recs)+len(atts))
	for i := range recs {
		if r := &recs[i]; !r.Rejected {
			runs = append(runs, Run{i, r.Start, r.End, allocs.Of(i)})
		}
	}
	for x, a := range atts {
		if r := &recs[a.Index]; r.Interrupted != 0 && a.Start == r.Start && a.End == r.End {
			continue
		}
		runs = append(runs, Run{int(a.Index), a.Start, a.End, attAllocs.Of(x)})
	}
	return runs
}

// RunEnergy returns, for each job, the energy it drew over all its runs:
// by JobEnergy (own) and, with a busy power table, by TableEnergy
// (table, nil without one), and the counts of the jobs the sharing rule
// touched (nil without a table). A job's energy is own[i] + table[i].
func RunEnergy(l *sdk.Layout, m []sdk.NodePower, jobs []sim.Input, runs []Run) (own, table []float64, counts *TableCounts) {
	table, c := TableEnergy(l, m, jobs, runs)
	if table != nil {
		counts = &c
	}
	own = make([]float64, len(jobs))
	for _, r := range runs {
		own[r.Job] += JobEnergy(l, m, jobs[r.Job].Job.Tasks, r.Alloc, r.End-r.Start)
	}
	return own, table, counts
}

// TableCounts counts the jobs the sharing rule of TableEnergy touched.
type TableCounts struct {
	// Jobs ran on some node with a busy power table; Shared shared one
	// with another job while both used cores there, so that their energy
	// depends on how a node's power is shared.
	Jobs   int `json:"table_jobs"`
	Shared int `json:"table_shared_jobs"`
}

// TableEnergy returns, for each job, what its cores in use added over its
// runs on the nodes whose group has a busy power table: over each interval
// during which such a node has u cores in use, its Busy[u-1] - Idle,
// shared among the jobs running there in proportion to their cores in
// use; nil when no group of model m (of the cluster's groups) has a
// table. With JobEnergy, the jobs' energies and the idle energy add up to
// the static and dynamic energy of the nodes on. It also counts the jobs
// the rule touched.
func TableEnergy(l *sdk.Layout, m []sdk.NodePower, jobs []sim.Input, runs []Run) ([]float64, TableCounts) {
	var counts TableCounts
	tables := false
	for _, g := range m {
		tables = tables || g.Busy != nil
	}
	if !tables {
		return nil, counts
	}
	type change struct {
		at    int64
		job   int
		cores int64 // > 0 at the start, < 0 at the end
	}
	byNode := map[int32][]change{}
	for _, r := range runs {
		if r.End <= r.Start {
			continue
		}
		a := r.Alloc
		for x, k := range a.Nodes {
			if m[l.Group(int(k))].Busy == nil {
				continue
			}
			n := int64(a.Tasks[x]) * int64(jobs[r.Job].Job.Tasks.Cores)
			byNode[k] = append(byNode[k], change{r.Start, r.Job, n}, change{r.End, r.Job, -n})
		}
	}
	out := make([]float64, len(jobs))
	on, shared := make([]bool, len(jobs)), make([]bool, len(jobs))
	for _, k := range slices.Sorted(maps.Keys(byNode)) {
		ch := byNode[k]
		// In time order, the ends of one instant before its starts.
		slices.SortStableFunc(ch, func(a, b change) int {
			return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.cores, b.cores))
		})
		g := &m[l.Group(int(k))]
		running := map[int]int64{}
		var use int64
		for x, c := range ch {
			if c.cores > 0 {
				running[c.job] += c.cores
			} else if running[c.job] += c.cores; running[c.job] == 0 {
				delete(running, c.job)
			}
			use += c.cores
			if x+1 == len(ch) || use == 0 {
				continue
			}
			dt := float64(ch[x+1].at - c.at)
			if dt == 0 {
				continue
			}
			dyn := (g.Busy[use-1] - g.Idle) * dt / float64(use)
			for j, n := range running {
				out[j] += float64(n) * dyn
				on[j] = true
				shared[j] = shared[j] || len(running) > 1
			}
		}
	}
	for j := range on {
		if on[j] {
			counts.Jobs++
		}
		if shared[j] {
			counts.Shared++
		}
	}
	return out, counts
}

// AddPower fills the metrics of a run with power model m into sum, from
// the energy the power verification integrated (verify.Power) and the
// run's records: the energy by what drew it; the jobs' energy (JobEnergy,
// summed) and the energy of the idle cores of the nodes on (static plus
// dynamic less the jobs'); the mean power over the span; the
// energy-delay product, the energy (J) times the mean wait (s) of the
// measured jobs; the switches on and off (the nodes that began one); and
// the node-seconds switching and off, and the seconds over the cap,
// within the span.
func AddPower(sum *Summary, p *sdk.Platform, m *sdk.Power, jobs []sim.Input, res *sim.Result, en sim.Energy) {
	sum.Power = true
	sum.Energy = en.Total()
	sum.EnergyStatic, sum.EnergyDynamic, sum.EnergyOff, sum.EnergySwitching = en.Static, en.Dynamic, en.Off, en.Switching
	l := sdk.NewLayout(p, 0)
	own, table, _ := RunEnergy(l, m.Groups[0], jobs, Runs(res.Records, res.Allocs, res.Attempts, res.AttemptAllocs))
	for i, e := range own {
		sum.EnergyJobs += e
		if table != nil {
			sum.EnergyJobs += table[i]
		}
	}
	sum.EnergyIdle = en.Static + en.Dynamic - sum.EnergyJobs
	if span := en.To - en.From; span > 0 {
		w := sum.Energy / float64(span)
		sum.PowerMean = &w
	}
	if sum.HasJobStats() {
		x := sum.Energy * sum.MeanWait
		sum.EnergyDelay = &x
	}
	// Each node's time switching and off within the span, from its events.
	type state struct {
		mode  sdk.PowerMode
		since int64
	}
	st := make([]state, l.Len())
	for k := range st {
		st[k].since = en.From
	}
	account := func(k int32, at int64) {
		s := &st[k]
		d := float64(max(0, min(at, en.To)-max(s.since, en.From)))
		switch s.mode {
		case sdk.NodeOff:
			sum.OffNodeSeconds += d
		case sdk.NodeSwitchingOn, sdk.NodeSwitchingOff:
			sum.SwitchingNodeSeconds += d
		}
	}
	for _, ev := range res.Power.Events {
		switch ev.Mode {
		case sdk.NodeSwitchingOn:
			sum.SwitchOns++
		case sdk.NodeSwitchingOff:
			sum.SwitchOffs++
		case sdk.NodeOn:
			if st[ev.Node].mode == sdk.NodeOff {
				sum.SwitchOns++ // a switch of 0 s
			}
		case sdk.NodeOff:
			if st[ev.Node].mode == sdk.NodeOn {
				sum.SwitchOffs++
			}
		}
		account(ev.Node, ev.At)
		st[ev.Node] = state{ev.Mode, ev.At}
	}
	for k := range st {
		account(int32(k), en.To)
	}
	sum.OverCapSeconds = en.OverCap
}
