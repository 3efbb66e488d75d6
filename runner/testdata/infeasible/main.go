// Command infeasible is a test plugin whose policy starts every waiting job
// at once, whether it fits or not.
package main

import (
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/serve"
)

type all struct{}

func (all) Init(sdk.Env) error { return nil }

func (all) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	var out []sdk.Decision
	for _, j := range s.Queue {
		out = append(out, sdk.Start(j))
	}
	return out, nil
}

func main() {
	serve.Main(sdk.Plugin{Info: sdk.Info{Name: "infeasible", Version: "0"}, New: func() sdk.Policy { return all{} }})
}
