package manifest

import (
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/sim"
)

// rawPower is a [platforms.NAME.power] table: the power model of every
// node group, which a [platforms.NAME.power.groups.GROUP] table overrides
// key by key for one group, and the platform's cap.
type rawPower struct {
	// The keys of rawNodePower, spelled out: the check of unknown keys
	// does not follow embedded structs.
	Off             any                     `toml:"off"`
	Idle            any                     `toml:"idle"`
	Full            any                     `toml:"full"`
	SwitchOn        any                     `toml:"switch_on"`
	SwitchOnEnergy  any                     `toml:"switch_on_energy"`
	SwitchOff       any                     `toml:"switch_off"`
	SwitchOffEnergy any                     `toml:"switch_off_energy"`
	BusyWatts       any                     `toml:"busy_watts"`
	Down            any                     `toml:"down"`
	Cap             any                     `toml:"cap"`
	Caps            []rawCap                `toml:"caps"`
	Groups          map[string]rawNodePower `toml:"groups"`
}

type rawNodePower struct {
	Off             any `toml:"off"`
	Idle            any `toml:"idle"`
	Full            any `toml:"full"`
	SwitchOn        any `toml:"switch_on"`
	SwitchOnEnergy  any `toml:"switch_on_energy"`
	SwitchOff       any `toml:"switch_off"`
	SwitchOffEnergy any `toml:"switch_off_energy"`
	BusyWatts       any `toml:"busy_watts"`
	Down            any `toml:"down"`
}

type rawCap struct {
	From  any `toml:"from"`
	Watts any `toml:"watts"`
}

// finite reads a TOML integer or float as a finite float64.
func finite(v any) (float64, error) {
	x, ok := number(v)
	if !ok || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%v is not a finite number", v)
	}
	return x, nil
}

// powerModel reads a platform of nodes' [platforms.NAME.power] table
// into the model of its groups (plat's, in order); nil without one.
func (p *parser) powerModel(name string, rp *rawPower, plat *sdk.Platform) *sdk.Power {
	if rp == nil {
		return nil
	}
	base := []string{"platforms", name, "power"}
	key := func(k ...string) []string { return append(slices.Clone(base), k...) }
	groups := plat.Clusters[0].Nodes
	m := &sdk.Power{Groups: [][]sdk.NodePower{make([]sdk.NodePower, len(groups))}}
	for gname := range rp.Groups {
		if !slices.ContainsFunc(groups, func(g sdk.NodeGroup) bool { return g.Name == gname }) {
			var names []string
			for _, g := range groups {
				names = append(names, g.Name)
			}
			p.errAt(key("groups", gname), "%q is not a node group of the platform%s", gname, hint(gname, names))
		}
	}
	ok := true
	// A platform-wide value is read for every group: its error is told
	// once.
	told := map[string]bool{}
	bad := func(at []string, format string, args ...any) {
		ok = false
		if k := keyString(at...); !told[k] {
			told[k] = true
			p.errAt(at, format, args...)
		}
	}
	for g, ng := range groups {
		over, has := rp.Groups[ng.Name]
		// A value of the group's table, else of the platform's.
		pick := func(k string, own, all any) (any, []string) {
			if has && own != nil {
				return own, key("groups", ng.Name, k)
			}
			return all, key(k)
		}
		watts := func(k string, own, all any, required bool) float64 {
			v, at := pick(k, own, all)
			if v == nil {
				if required {
					bad(at, "required: the %s power of node group %q, in watts", k, ng.Name)
				}
				return 0
			}
			x, err := finite(v)
			if err != nil {
				bad(at, "%v", err)
			}
			return x
		}
		secs := func(k string, own, all any) int64 {
			v, at := pick(k, own, all)
			if v == nil {
				return 0
			}
			x, err := ParseSeconds(v)
			if err != nil {
				bad(at, "%v", err)
			}
			return x
		}
		np := &m.Groups[0][g]
		np.Off = watts("off", over.Off, rp.Off, false)
		np.Idle = watts("idle", over.Idle, rp.Idle, true)
		if bv, at := pick("busy_watts", over.BusyWatts, rp.BusyWatts); bv != nil {
			// A table instead of the line from idle to full.
			if fv, fat := pick("full", over.Full, rp.Full); fv != nil {
				bad(fat, "node group %q has a busy power table (%s): give full or busy_watts, not both", ng.Name, keyString(at...))
			}
			np.Busy = busyTable(bv, at, ng, np.Idle, bad)
			if np.Busy != nil {
				np.Full = np.Busy[len(np.Busy)-1]
			}
		} else {
			np.Full = watts("full", over.Full, rp.Full, true)
		}
		np.OnSeconds = secs("switch_on", over.SwitchOn, rp.SwitchOn)
		np.OnJoules = watts("switch_on_energy", over.SwitchOnEnergy, rp.SwitchOnEnergy, false)
		np.OffSeconds = secs("switch_off", over.SwitchOff, rp.SwitchOff)
		np.OffJoules = watts("switch_off_energy", over.SwitchOffEnergy, rp.SwitchOffEnergy, false)
		if v, at := pick("down", over.Down, rp.Down); v != nil {
			switch v {
			case "idle":
				np.Down = sdk.DownIdle
			case sdk.DownOff:
				np.Down = sdk.DownOff
			default:
				bad(at, "%v: want \"idle\" (a node out of service for a failure or maintenance draws its idle power) or \"off\" (its off power)", v)
			}
		}
	}
	if rp.Cap != nil && len(rp.Caps) > 0 {
		p.errAt(key("caps"), "the cap is one value (cap) or steps (caps), not both")
		ok = false
	}
	if rp.Cap != nil {
		w, err := finite(rp.Cap)
		if err != nil {
			p.errAt(key("cap"), "%v", err)
			ok = false
		}
		// From before any job may be submitted (sim.MaxTime bounds times).
		m.Caps = []sdk.CapStep{{From: -sim.MaxTime, Watts: w}}
	}
	for i, c := range rp.Caps {
		at := key("caps")
		if c.From == nil || c.Watts == nil {
			p.errAt(at, "cap step %d: from (a time) and watts are required", i+1)
			ok = false
			continue
		}
		from, err := ParseSeconds(c.From)
		if err != nil {
			p.errAt(at, "cap step %d: from: %v", i+1, err)
			ok = false
		}
		w, err := finite(c.Watts)
		if err != nil {
			p.errAt(at, "cap step %d: watts: %v", i+1, err)
			ok = false
		}
		m.Caps = append(m.Caps, sdk.CapStep{From: from, Watts: w})
	}
	if ok {
		if err := m.Validate(plat); err != nil {
			p.errAt(key(), "%v", err)
		}
	}
	return m
}

// busyTable reads busy_watts (at key at) for node group ng of idle
// power idle: one finite power a core, none below idle; nil after an
// error, told through bad.
func busyTable(v any, at []string, ng sdk.NodeGroup, idle float64, bad func([]string, string, ...any)) []float64 {
	list, ok := v.([]any)
	if !ok {
		bad(at, "want a list of powers in watts, one for each number of cores in use, 1 to %d (node group %q)", ng.Cores, ng.Name)
		return nil
	}
	if int64(len(list)) != ng.Cores {
		bad(at, "%d powers for node group %q, whose nodes have %d cores: want one for each number of cores in use, 1 to %d", len(list), ng.Name, ng.Cores, ng.Cores)
		return nil
	}
	out := make([]float64, len(list))
	for i, x := range list {
		w, err := finite(x)
		switch {
		case err != nil:
			bad(at, "entry %d (%d cores in use): %v", i+1, i+1, err)
			return nil
		case w < 0 || w < idle:
			bad(at, "entry %d (%d cores in use) of %v W for node group %q: want a power >= 0 and >= its idle power of %v W", i+1, i+1, w, ng.Name, idle)
			return nil
		}
		out[i] = w
	}
	return out
}

// powerSpec is a power model in a run's spec, its keys in order.
type powerSpec struct {
	Caps   []capSpec        `json:"caps,omitempty"`
	Groups []groupPowerSpec `json:"groups"`
}

type capSpec struct {
	From  int64   `json:"from"`
	Watts float64 `json:"watts"`
}

type groupPowerSpec struct {
	// Busy is left out without a table, so that a linear model's spec,
	// and its runs' keys, are what they were before tables.
	Busy []float64 `json:"busy,omitempty"`
	// Down is left out under the default rule (idle), for the same
	// reason.
	Down       string  `json:"down,omitempty"`
	Full       float64 `json:"full"`
	Idle       float64 `json:"idle"`
	Name       string  `json:"name"`
	Off        float64 `json:"off"`
	OffJoules  float64 `json:"off_joules"`
	OffSeconds int64   `json:"off_seconds"`
	OnJoules   float64 `json:"on_joules"`
	OnSeconds  int64   `json:"on_seconds"`
}

// PowerSpec returns the spec of power model m of a platform of groups
// (nil without a model), as a run's spec and its jobs file record it.
func PowerSpec(m *sdk.Power, groups []sdk.NodeGroup) any {
	if m == nil {
		return nil
	}
	return specPower(m, groups)
}

func specPower(m *sdk.Power, groups []sdk.NodeGroup) *powerSpec {
	if m == nil {
		return nil
	}
	s := &powerSpec{}
	for _, c := range m.Caps {
		s.Caps = append(s.Caps, capSpec(c))
	}
	for g, np := range m.Groups[0] {
		s.Groups = append(s.Groups, groupPowerSpec{Busy: np.Busy, Down: np.Down, Full: np.Full, Idle: np.Idle, Name: groups[g].Name, Off: np.Off,
			OffJoules: np.OffJoules, OffSeconds: np.OffSeconds, OnJoules: np.OnJoules, OnSeconds: np.OnSeconds})
	}
	return s
}
