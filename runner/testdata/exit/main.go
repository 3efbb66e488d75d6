// Command exit is a test plugin whose process exits in the middle of its
// third policy call, as a policy calling os.Exit or killed from outside
// would: the host must fail the run and say the process died.
package main

import (
	"fmt"
	"os"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/serve"
)

type exit struct {
	sdk.Policy
	calls int
}

func (c *exit) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if c.calls++; c.calls == 3 {
		fmt.Fprintln(os.Stderr, "exit plugin: exiting on call 3")
		os.Exit(3)
	}
	return c.Policy.Schedule(s)
}

func main() {
	p := backfill.FCFS()
	inner := p.New
	p.Info.Name = "exit"
	p.New = func() sdk.Policy { return &exit{Policy: inner()} }
	serve.Main(p)
}
