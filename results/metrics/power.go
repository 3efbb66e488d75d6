package metrics

import (
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
// dynamic energy of the nodes on.
func JobEnergy(l *sdk.Layout, m []sdk.NodePower, t *sdk.Tasks, a sdk.Alloc, d int64) float64 {
	w := 0.0
	for x, k := range a.Nodes {
		g := &m[l.Group(int(k))]
		cores := l.Cap(int(k)).Cores
		held := l.Held(t, k, a.Tasks[x]).Cores
		w += g.Idle*float64(held)/float64(cores) + float64(int64(a.Tasks[x])*int64(t.Cores))*g.CoreWatts(cores)
	}
	return w * float64(d)
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
	for i := range res.Records {
		r := &res.Records[i]
		if r.Rejected || res.Allocs == nil {
			continue
		}
		sum.EnergyJobs += JobEnergy(l, m.Groups[0], jobs[i].Job.Tasks, res.Allocs.Of(i), r.End-r.Start)
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
