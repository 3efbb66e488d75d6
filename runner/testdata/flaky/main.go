// Command flaky is a test plugin that fails the third run its process
// serves, as $SCHEDLAB_FLAKY says: "exit" ends the process, "hang" never
// answers. Its count of runs is package state on purpose: a host that
// reuses the process sees the failure in the process's third run, and a
// fresh process starts counting again.
package main

import (
	"os"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/serve"
)

var runs int // policies made by this process

type flaky struct{ sdk.Policy }

func (f flaky) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	if runs == 3 {
		switch os.Getenv("SCHEDLAB_FLAKY") {
		case "exit":
			os.Exit(4)
		case "hang":
			select {}
		}
	}
	return f.Policy.Schedule(s)
}

func main() {
	p := backfill.FCFS()
	inner := p.New
	p.Info.Name = "flaky"
	p.New = func() sdk.Policy {
		runs++
		return flaky{inner()}
	}
	serve.Main(p)
}
