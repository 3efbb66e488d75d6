package manifest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// PowerFlags are the settings of a power model as `schedlab sim`'s flags
// and the Gymnasium environment's power settings give them: the keys of a
// manifest's [platforms.NAME.power] table as text, one model for every
// node group, and a constant cap. In JSON (the Gymnasium environment's
// requests) each is named as its key.
type PowerFlags struct {
	Off       string `json:"off,omitempty"`
	Idle      string `json:"idle,omitempty"`
	Full      string `json:"full,omitempty"`
	Busy      string `json:"busy,omitempty"`
	On        string `json:"switch_on,omitempty"`
	OnEnergy  string `json:"switch_on_energy,omitempty"`
	OffTime   string `json:"switch_off,omitempty"`
	OffEnergy string `json:"switch_off_energy,omitempty"`
	Cap       string `json:"cap,omitempty"`
	Down      string `json:"down,omitempty"`
	// Names names a setting in errors by its table key (idle,
	// switch_on...); nil names it as sim's flag (--power-idle).
	Names func(key string) string `json:"-"`
}

// name is how errors name the setting of table key k.
func (f *PowerFlags) name(k string) string {
	if f.Names != nil {
		return f.Names(k)
	}
	return "--power-" + strings.ReplaceAll(k, "_", "-")
}

// Set reports whether any setting is given.
func (f *PowerFlags) Set() bool {
	return f.Off != "" || f.Idle != "" || f.Full != "" || f.Busy != "" || f.On != "" || f.OnEnergy != "" || f.OffTime != "" || f.OffEnergy != "" || f.Cap != "" || f.Down != ""
}

// Model returns the power model the flags give plat, one model for
// every node group and a constant cap, as a manifest's [platforms.NAME.power]
// table with the same settings would; nil without any flag. Errors name
// the flags.
func (f *PowerFlags) Model(plat *sdk.Platform) (*sdk.Power, error) {
	if !f.Set() {
		return nil, nil
	}
	if !plat.HasNodes() {
		return nil, fmt.Errorf("a power model is of nodes: %s needs a platform of nodes", f.name("idle"))
	}
	switch {
	case f.Full != "" && f.Busy != "":
		return nil, fmt.Errorf("%s and %s: give one (the line from idle to full, or the table)", f.name("full"), f.name("busy"))
	case f.Idle == "" || f.Full == "" && f.Busy == "":
		return nil, fmt.Errorf("%s and %s (or %s) give the model: both are needed", f.name("idle"), f.name("full"), f.name("busy"))
	}
	var np sdk.NodePower
	if f.Busy != "" {
		for x, w := range strings.Split(f.Busy, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
			if err != nil {
				return nil, fmt.Errorf("%s: entry %d, %q, is not a number", f.name("busy"), x+1, w)
			}
			np.Busy = append(np.Busy, v)
		}
		np.Full = np.Busy[len(np.Busy)-1]
	}
	for _, x := range []struct {
		s    string
		name string
		dst  *float64
	}{{f.Off, "off", &np.Off}, {f.Idle, "idle", &np.Idle}, {f.Full, "full", &np.Full},
		{f.OnEnergy, "switch_on_energy", &np.OnJoules}, {f.OffEnergy, "switch_off_energy", &np.OffJoules}} {
		if x.s == "" {
			continue
		}
		v, err := strconv.ParseFloat(x.s, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a number", f.name(x.name), x.s)
		}
		*x.dst = v
	}
	for _, x := range []struct {
		s    string
		name string
		dst  *int64
	}{{f.On, "switch_on", &np.OnSeconds}, {f.OffTime, "switch_off", &np.OffSeconds}} {
		if x.s == "" {
			continue
		}
		v, err := ParseSeconds(x.s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name(x.name), err)
		}
		*x.dst = v
	}
	switch f.Down {
	case "", "idle":
	case sdk.DownOff:
		np.Down = sdk.DownOff
	default:
		return nil, fmt.Errorf("%s: %q: want idle or off", f.name("down"), f.Down)
	}
	m := &sdk.Power{Groups: [][]sdk.NodePower{make([]sdk.NodePower, len(plat.Clusters[0].Nodes))}}
	for g := range m.Groups[0] {
		m.Groups[0][g] = np
	}
	if f.Cap != "" {
		w, err := strconv.ParseFloat(f.Cap, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a number of watts", f.name("cap"), f.Cap)
		}
		// From before any job may be submitted, as a manifest's constant cap.
		m.Caps = []sdk.CapStep{{From: -sim.MaxTime, Watts: w}}
	}
	if err := m.Validate(plat); err != nil {
		return nil, fmt.Errorf("power settings: %w", err)
	}
	return m, nil
}
