// Package reference lists the policies that ship with schedlab, so that a
// manifest or `schedlab sim` can name them without building a plugin.
package reference

import (
	"errors"
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

// checks are the reference policies that check their parameters' values
// beyond their types (what their Init would refuse), so that a host
// refuses bad values before any run.
var checks = map[string]func(map[string]string) error{
	"multifactor": backfill.CheckMultifactor,
}

// CheckParams checks the parameters of the reference policy called name
// as its Init would, and returns the parameter at fault with the error
// ("" when the error names no single parameter); nil for a policy that
// makes no such checks.
func CheckParams(name string, params map[string]string) (string, error) {
	check, ok := checks[name]
	if !ok {
		return "", nil
	}
	err := check(params)
	var pe *backfill.ParamError
	if errors.As(err, &pe) {
		return pe.Param, err
	}
	return "", err
}
