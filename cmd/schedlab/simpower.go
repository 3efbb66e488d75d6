package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/schedlab/schedlab/results"
	"github.com/schedlab/schedlab/results/metrics"
	"github.com/schedlab/schedlab/runner"
	"github.com/schedlab/schedlab/runner/manifest"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// powerFlags are the flags of `schedlab sim` that give its platform of
// nodes a power model: the keys of a manifest's [platforms.NAME.power]
// table, one model for every node group, and a constant cap.
type powerFlags struct{ manifest.PowerFlags }

func (f *powerFlags) register(fl *pflag.FlagSet) {
	for _, s := range []struct {
		dst        *string
		name, help string
	}{
		{&f.Off, "power-off", "power: a node's power when off, in watts"},
		{&f.Idle, "power-idle", "power: a node's power when on and idle, in watts (with --power-full, gives the model)"},
		{&f.Full, "power-full", "power: a node's power with every core in use, in watts"},
		{&f.Busy, "power-busy", "power: instead of --power-full, a node's power with 1, 2, ... cores in use, in watts, one a core (\"130,150,180,220\")"},
		{&f.On, "power-switch-on", "power: the time a node takes to switch on (\"2m\", or seconds)"},
		{&f.OnEnergy, "power-switch-on-energy", "power: the energy of a switch on, in joules"},
		{&f.OffTime, "power-switch-off", "power: the time a node takes to switch off"},
		{&f.OffEnergy, "power-switch-off-energy", "power: the energy of a switch off, in joules"},
		{&f.Cap, "power-cap", "power: the platform's power cap, in watts (none by default)"},
		{&f.Down, "power-down", "power: what a node on draws while out of service for a failure or maintenance: idle (the default) or off"},
	} {
		fl.StringVar(s.dst, s.name, "", s.help)
	}
}

// make returns the power model the flags give plat, nil without any
// flag; errors are bad input, naming the flag.
func (f *powerFlags) make(plat *sdk.Platform) (*sdk.Power, error) { return f.Model(plat) }

// addPower adds a run's power model to its jobs file: the metadata and
// the energy column, as a campaign's has them.
func addPower(meta results.Metadata, x *results.JobExtras, plat *sdk.Platform, m *sdk.Power, jobs []sim.Input, out *runner.Outcome, path string) error {
	if m == nil {
		return nil
	}
	meta["power.model"] = jsonText(manifest.PowerSpec(m, plat.Clusters[0].Nodes))
	var counts *metrics.TableCounts
	x.Power, counts = runner.PowerRows(plat, m, jobs, out)
	if counts != nil {
		meta["power.counts"] = jsonText(counts)
	}
	// The power file beside the jobs file, written first, as a campaign's.
	return results.WritePowerSeries(results.PowerSeriesPath(path), runner.PowerSteps(out), meta)
}

// printPower prints the energy metrics of a run with a power model.
func printPower(w io.Writer, m *sdk.Power, out *runner.Outcome) {
	if m == nil || !out.Summary.Power {
		return
	}
	s := out.Summary
	fmt.Fprintf(w, "energy  %.4g J (static %.4g, dynamic %.4g, off %.4g, switching %.4g), %d nodes switched off, %d on, %d s over the cap\n",
		s.Energy, s.EnergyStatic, s.EnergyDynamic, s.EnergyOff, s.EnergySwitching, s.SwitchOffs, s.SwitchOns, s.OverCapSeconds)
}
