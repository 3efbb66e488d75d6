package plan_test

import (
	"fmt"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// conservative is conservative backfilling on cluster 0: every queued job, in
// submit order, gets the earliest start that delays no job before it.
type conservative struct {
	// profile and out are kept between calls so that a Schedule call
	// allocates nothing once they have grown.
	profile plan.Profile
	out     []sdk.Decision
}

func (c *conservative) Init(sdk.Env) error { return nil }

func (c *conservative) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p := &c.profile
	p.ResetFromState(s, 0)
	c.out = c.out[:0]
	for _, j := range s.Queue {
		t := p.EarliestFit(j.Request, j.Walltime)
		if t < 0 {
			continue // larger than the cluster: it can never start here
		}
		// Reserving makes later jobs plan around this one, which is what
		// keeps them from delaying it.
		if err := p.Reserve(t, j.Walltime, j.Request); err != nil {
			return nil, err
		}
		if t == s.Now {
			c.out = append(c.out, sdk.StartOn(j, 0))
		} else {
			c.out = append(c.out, sdk.Promise(j, t))
		}
	}
	return c.out, nil
}

// Example plans three queued jobs on a cluster of 4 processors and 100 units
// of burst buffer, half of which a running job holds until time 10.
func Example() {
	running := &sdk.Job{ID: 1, Walltime: 10, Request: sdk.Vector{2, 40}}
	s := &sdk.State{
		Now:     0,
		Free:    []sdk.Vector{{2, 60}},
		Running: []sdk.Running{{Job: running, Start: 0, ExpectedEnd: 10}},
		Queue: []*sdk.Job{
			{ID: 2, Walltime: 5, Request: sdk.Vector{4, 0}},   // needs the whole machine
			{ID: 3, Walltime: 10, Request: sdk.Vector{1, 30}}, // ends just as job 2 starts
			{ID: 4, Walltime: 3, Request: sdk.Vector{2, 50}},  // needs more buffer than is free now
		},
	}
	var c conservative
	ds, err := c.Schedule(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range ds {
		if d.Action == sdk.ActionStart {
			fmt.Printf("job %d: start now\n", d.Job.ID)
		} else {
			fmt.Printf("job %d: reserved at %d\n", d.Job.ID, d.Time)
		}
	}
	fmt.Println("free:", &c.profile)
	// Output:
	// job 2: reserved at 10
	// job 3: start now
	// job 4: reserved at 15
	// free: [0: [1 30], 10: [0 100], 15: [2 50], 18: [4 100]]
}
