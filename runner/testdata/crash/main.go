// Command crash is a test plugin whose policy panics on its third call.
package main

import (
	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/serve"
)

type crash struct {
	sdk.Policy
	calls int
}

func (c *crash) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if c.calls++; c.calls == 3 {
		panic("crash plugin: deliberate panic on call 3")
	}
	return c.Policy.Schedule(s)
}

func main() {
	p := backfill.FCFS()
	inner := p.New
	p.Info.Name = "crash"
	p.New = func() sdk.Policy { return &crash{Policy: inner()} }
	serve.Main(p)
}
