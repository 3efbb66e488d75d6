// Package leaky is a policy that keeps state in a package variable, as a
// policy written for one run per process might: policytest's own tests
// check that NoStateBetweenRuns catches it.
package leaky

import (
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/policytest/testdata/smallfirst"
)

// runs counts the policies made in this process: package state, the leak.
var runs int

// Plugin is smallfirst starting at most as many jobs per call as policies
// were made before it in this process.
func Plugin() sdk.Plugin {
	p := smallfirst.Plugin()
	inner := p.New
	p.Info.Name = "leaky"
	p.New = func() sdk.Policy {
		runs++
		return &limited{Policy: inner(), limit: runs}
	}
	return p
}

type limited struct {
	sdk.Policy
	limit int
}

func (l *limited) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	ds, err := l.Policy.Schedule(s)
	return ds[:min(len(ds), l.limit)], err
}
