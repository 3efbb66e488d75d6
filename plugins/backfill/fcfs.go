package backfill

import "github.com/schedlab/schedlab/sdk"

// FCFS is the plugin of first-come-first-served scheduling without
// backfilling: jobs start in queue order while they fit, and the first that
// does not fit blocks all behind it. On a platform of nodes a job fits when
// the cluster's placement rule places it.
func FCFS() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "fcfs",
			Version:     "1.1.0",
			Description: "start jobs in queue order while they fit; no backfilling; on pools and on nodes",
			Params:      []sdk.Param{orderParam(), windowsParam()},
		},
		New: func() sdk.Policy { return &fcfs{} },
	}
}

type fcfs struct {
	orderer
	room room
	out  []sdk.Decision
}

func (p *fcfs) Init(env sdk.Env) error {
	p.orderer = newOrderer(env)
	p.room = newRoom(env.Platform)
	p.room.setPower(env.Power, env.Platform)
	p.room.ignoreWindows = env.Params.String("windows") == WindowsIgnore
	return supported("fcfs", env.Platform)
}

func (p *fcfs) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	p.room.reset(s)
	for _, j := range p.sorted(s) {
		if !p.room.fits(j) {
			break
		}
		p.out = append(p.out, p.room.start(j))
		p.room.take(j, p.room.alloc)
	}
	p.drop(p.out)
	return p.out, nil
}
