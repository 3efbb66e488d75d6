// Command oldproto is a test plugin built with this SDK but announcing
// protocol 2 in the go-plugin handshake, as a plugin built with SDK 0.2
// would: a host speaks this SDK's protocol and the one before it, and must
// refuse this one before sending it a run.
package main

import (
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/internal/wire"
)

type idle struct{}

func (idle) Init(sdk.Env) error                          { return nil }
func (idle) Schedule(*sdk.State) ([]sdk.Decision, error) { return nil, nil }

func main() {
	h := wire.Handshake()
	h.ProtocolVersion = 2
	p := sdk.Plugin{Info: sdk.Info{Name: "oldproto", Version: "0"}, New: func() sdk.Policy { return idle{} }}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: h,
		Plugins:         plugin.PluginSet{wire.PluginName: &wire.GRPCPlugin{Policy: p, Version: 2}},
		GRPCServer:      wire.NewServer,
		Logger:          hclog.NewNullLogger(),
	})
}
