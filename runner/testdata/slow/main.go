// Command slow is a test plugin: FCFS that sleeps sleep_ms milliseconds at
// its first decision, so that a test can act while a campaign's runs are
// under way (cancel a Slurm task mid-way, say).
package main

import (
	"time"

	"github.com/schedlab/schedlab/plugins/backfill"
	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/serve"
)

type slow struct {
	sdk.Policy
	sleep time.Duration
	slept bool
}

func (s *slow) Init(env sdk.Env) error {
	s.sleep = time.Duration(env.Params.Int("sleep_ms")) * time.Millisecond
	return s.Policy.Init(env)
}

func (s *slow) Schedule(st *sdk.State) ([]sdk.Decision, error) {
	if !s.slept {
		s.slept = true
		time.Sleep(s.sleep)
	}
	return s.Policy.Schedule(st)
}

func main() {
	p := backfill.FCFS()
	inner := p.New
	p.Info.Name = "slow"
	p.Info.Params = append(p.Info.Params, sdk.Param{Name: "sleep_ms", Type: sdk.Int, Default: "300", Doc: "milliseconds slept at the first decision"})
	p.New = func() sdk.Policy { return &slow{Policy: inner()} }
	serve.Main(p)
}
