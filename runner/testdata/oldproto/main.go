// Command oldproto is a test plugin built with this SDK but announcing the
// previous protocol version in the go-plugin handshake, as a plugin built
// with the previous SDK would: the host must refuse it before sending it a
// run.
package main

import (
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk/wire"
)

func main() {
	h := wire.Handshake()
	h.ProtocolVersion--
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: h,
		Plugins:         plugin.PluginSet{wire.PluginName: &wire.GRPCPlugin{Policy: backfill.FCFS()}},
		GRPCServer:      wire.NewServer,
		Logger:          hclog.NewNullLogger(),
	})
}
