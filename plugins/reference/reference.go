// Package reference lists the policies that ship with schedlab, so that a
// manifest or `schedlab sim` can name them without building a plugin.
package reference

import (
	"sort"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/plugins/broker"
	"github.com/schedlab/schedlab/plugins/burstbuffer"
	"github.com/schedlab/schedlab/plugins/groupsel"
	"github.com/schedlab/schedlab/plugins/probfill"
	"github.com/schedlab/schedlab/sdk"
)

// All returns every reference policy, sorted by name.
func All() []sdk.Plugin {
	ps := []sdk.Plugin{backfill.FCFS(), backfill.EASY(), backfill.Conservative(), backfill.Multifactor(), probfill.Plugin(), probfill.NF(), groupsel.Plugin()}
	ps = append(ps, burstbuffer.Plugins()...)
	ps = append(ps, broker.Plugins()...)
	sort.Slice(ps, func(i, j int) bool { return ps[i].Info.Name < ps[j].Info.Name })
	return ps
}

// Lookup returns the reference policy called name.
func Lookup(name string) (sdk.Plugin, bool) {
	for _, p := range All() {
		if p.Info.Name == name {
			return p, true
		}
	}
	return sdk.Plugin{}, false
}

// Names returns the names of the reference policies, sorted.
func Names() []string {
	var out []string
	for _, p := range All() {
		out = append(out, p.Info.Name)
	}
	return out
}
