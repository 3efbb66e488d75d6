package backfill

import "github.com/schedlab/schedlab/sdk"

// FCFS is the plugin of first-come-first-served scheduling without
// backfilling: jobs start in queue order while they fit, and the first that
// does not fit blocks all behind it.
func FCFS() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "fcfs",
			Version:     "1.0.0",
			Description: "start jobs in queue order while they fit; no backfilling",
			Params:      []sdk.Param{orderParam()},
		},
		New: func() sdk.Policy { return &fcfs{} },
	}
}

type fcfs struct {
	orderer
	free sdk.Vector
	out  []sdk.Decision
}

func (p *fcfs) Init(env sdk.Env) error {
	p.orderer = newOrderer(env)
	return singleCluster("fcfs", env.Platform)
}

func (p *fcfs) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	p.free = append(p.free[:0], s.Free[0]...)
	for _, j := range p.sorted(s.Queue) {
		if !j.Request.Fits(p.free) {
			break
		}
		p.free.Sub(j.Request)
		p.out = append(p.out, sdk.Start(j))
	}
	p.drop(p.out)
	return p.out, nil
}
