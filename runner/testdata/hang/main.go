// Command hang is a test plugin whose policy never returns from its first
// call.
package main

import (
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/serve"
)

type hang struct{}

func (hang) Init(sdk.Env) error { return nil }

func (hang) Schedule(*sdk.State) ([]sdk.Decision, error) {
	select {}
}

func main() {
	serve.Main(sdk.Plugin{Info: sdk.Info{Name: "hang", Version: "0"}, New: func() sdk.Policy { return hang{} }})
}
