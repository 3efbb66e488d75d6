package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

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
type powerFlags struct {
	off, idle, full, onEnergy, offEnergy, cap string
	on, offTime, busy, down                   string
}

func (f *powerFlags) register(fl *pflag.FlagSet) {
	for _, s := range []struct {
		dst        *string
		name, help string
	}{
		{&f.off, "power-off", "power: a node's power when off, in watts"},
		{&f.idle, "power-idle", "power: a node's power when on and idle, in watts (with --power-full, gives the model)"},
		{&f.full, "power-full", "power: a node's power with every core in use, in watts"},
		{&f.busy, "power-busy", "power: instead of --power-full, a node's power with 1, 2, ... cores in use, in watts, one a core (\"130,150,180,220\")"},
		{&f.on, "power-switch-on", "power: the time a node takes to switch on (\"2m\", or seconds)"},
		{&f.onEnergy, "power-switch-on-energy", "power: the energy of a switch on, in joules"},
		{&f.offTime, "power-switch-off", "power: the time a node takes to switch off"},
		{&f.offEnergy, "power-switch-off-energy", "power: the energy of a switch off, in joules"},
		{&f.cap, "power-cap", "power: the platform's power cap, in watts (none by default)"},
		{&f.down, "power-down", "power: what a node on draws while out of service for a failure or maintenance: idle (the default) or off"},
	} {
		fl.StringVar(s.dst, s.name, "", s.help)
	}
}

func (f *powerFlags) set() bool {
	return f.off != "" || f.idle != "" || f.full != "" || f.busy != "" || f.on != "" || f.onEnergy != "" || f.offTime != "" || f.offEnergy != "" || f.cap != "" || f.down != ""
}

// make returns the power model the flags give plat, nil without any
// flag; errors are bad input, naming the flag.
func (f *powerFlags) make(plat *sdk.Platform) (*sdk.Power, error) {
	if !f.set() {
		return nil, nil
	}
	if !plat.HasNodes() {
		return nil, fmt.Errorf("a power model is of nodes: the power flags need a platform of nodes (--nodes and --cores-per-node, or --machine)")
	}
	switch {
	case f.full != "" && f.busy != "":
		return nil, fmt.Errorf("--power-full and --power-busy: give one (the line from idle to full, or the table)")
	case f.idle == "" || f.full == "" && f.busy == "":
		return nil, fmt.Errorf("--power-idle and --power-full (or --power-busy) give the model: both are needed")
	}
	var np sdk.NodePower
	if f.busy != "" {
		for x, w := range strings.Split(f.busy, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
			if err != nil {
				return nil, fmt.Errorf("--power-busy: entry %d, %q, is not a number", x+1, w)
			}
			np.Busy = append(np.Busy, v)
		}
		np.Full = np.Busy[len(np.Busy)-1]
	}
	for _, x := range []struct {
		s    string
		name string
		dst  *float64
	}{{f.off, "power-off", &np.Off}, {f.idle, "power-idle", &np.Idle}, {f.full, "power-full", &np.Full},
		{f.onEnergy, "power-switch-on-energy", &np.OnJoules}, {f.offEnergy, "power-switch-off-energy", &np.OffJoules}} {
		if x.s == "" {
			continue
		}
		v, err := strconv.ParseFloat(x.s, 64)
		if err != nil {
			return nil, fmt.Errorf("--%s: %q is not a number", x.name, x.s)
		}
		*x.dst = v
	}
	for _, x := range []struct {
		s    string
		name string
		dst  *int64
	}{{f.on, "power-switch-on", &np.OnSeconds}, {f.offTime, "power-switch-off", &np.OffSeconds}} {
		if x.s == "" {
			continue
		}
		v, err := manifest.ParseSeconds(x.s)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", x.name, err)
		}
		*x.dst = v
	}
	switch f.down {
	case "", "idle":
	case sdk.DownOff:
		np.Down = sdk.DownOff
	default:
		return nil, fmt.Errorf("--power-down: %q: want idle or off", f.down)
	}
	m := &sdk.Power{Groups: [][]sdk.NodePower{make([]sdk.NodePower, len(plat.Clusters[0].Nodes))}}
	for g := range m.Groups[0] {
		m.Groups[0][g] = np
	}
	if f.cap != "" {
		w, err := strconv.ParseFloat(f.cap, 64)
		if err != nil {
			return nil, fmt.Errorf("--power-cap: %q is not a number of watts", f.cap)
		}
		// From before any job may be submitted, as a manifest's constant cap.
		m.Caps = []sdk.CapStep{{From: -sim.MaxTime, Watts: w}}
	}
	if err := m.Validate(plat); err != nil {
		return nil, fmt.Errorf("power flags: %w", err)
	}
	return m, nil
}

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
