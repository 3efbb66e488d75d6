// Command firstfit is a policy plugin built with schedlab SDK 0.5.0
// (protocol 5), kept as it was released: the sources beside cmd/ are that
// SDK's, unchanged. The host tests build it to check that a host of a newer
// SDK still runs plugins of the previous protocol, and refuses it
// on a platform of nodes, which protocol 5 cannot carry.
//
// The policy starts each waiting job, in queue order, on the first cluster
// where it fits now, and sends a wake-up and a promise so that every kind of
// decision crosses the wire.
package main

import (
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/serve"
)

type firstFit struct {
	free []sdk.Vector
	out  []sdk.Decision
}

func (p *firstFit) Init(sdk.Env) error { return nil }

func (p *firstFit) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	p.free = p.free[:0]
	for _, f := range s.Free {
		p.free = append(p.free, f.Clone())
	}
	for _, j := range s.Queue {
		started := false
		for c := range p.free {
			if j.Request.Fits(p.free[c]) {
				p.free[c].Sub(j.Request)
				p.out = append(p.out, sdk.StartOn(j, c))
				started = true
				break
			}
		}
		if !started && len(s.Running) > 0 {
			p.out = append(p.out, sdk.Promise(j, s.Running[len(s.Running)-1].ExpectedEnd))
		}
	}
	return p.out, nil
}

func main() {
	serve.Main(sdk.Plugin{
		Info: sdk.Info{Name: "firstfit", Version: "0.5.0", Description: "first fit over clusters, built with SDK 0.5.0"},
		New:  func() sdk.Policy { return &firstFit{} },
	})
}
