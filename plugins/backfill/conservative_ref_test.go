package backfill

import (
	"fmt"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/plan"
)

// refConservative is conservative backfilling as version 1.0.0 of the plugin
// implemented it, kept as the reference that Conservative must match exactly
// (conservative_equiv_test.go). It states the policy as directly as
// possible: at every call it rebuilds the profile from the state, lays every
// reservation back into it, and, when a job ended before its walltime, takes
// each reserved job out in queue order and puts it back at the earliest time
// it fits. That costs O(queue x profile steps) per call.
func refConservative() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "conservative",
			Version:     "1.0.0",
			Description: "conservative backfilling: every waiting job holds a reservation that is never delayed",
			Params:      []sdk.Param{orderParam()},
		},
		New: func() sdk.Policy { return &refCons{} },
	}
}

type refCons struct {
	orderer
	profile *plan.Profile
	// resv is each job's reservation by job index; noReservation when none.
	resv []int64
	out  []sdk.Decision
}

func (p *refCons) Init(env sdk.Env) error {
	p.orderer = newOrderer(env)
	return supported("conservative", env.Platform)
}

func (p *refCons) reservation(j *sdk.Job) int64 {
	for j.Index >= len(p.resv) {
		p.resv = append(p.resv, noReservation)
	}
	return p.resv[j.Index]
}

func (p *refCons) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	if p.profile == nil {
		p.profile = plan.FromState(s, 0)
	} else {
		p.profile.ResetFromState(s, 0)
	}
	q := p.sorted(s)
	// Lay the existing reservations back into the profile. Capacity only
	// grows between calls (jobs end, at the latest at their walltime), so
	// they still fit.
	for _, j := range q {
		if r := p.reservation(j); r != noReservation {
			if r < s.Now {
				return nil, fmt.Errorf("conservative: job id %d missed its reservation at %d", j.ID, r)
			}
			if err := p.profile.Reserve(r, j.Walltime, j.Request); err != nil {
				return nil, fmt.Errorf("conservative: job id %d: reservation at %d no longer fits: %w", j.ID, r, err)
			}
		}
	}
	if refEndedEarly(s) {
		for _, j := range q {
			r := p.resv[j.Index]
			if r == noReservation || r == s.Now {
				continue
			}
			p.profile.Unreserve(r, j.Walltime, j.Request)
			t := p.profile.EarliestFit(j.Request, j.Walltime)
			if err := p.profile.Reserve(t, j.Walltime, j.Request); err != nil {
				return nil, fmt.Errorf("conservative: job id %d: %w", j.ID, err)
			}
			p.resv[j.Index] = t
		}
	}
	wake := int64(-1)
	for _, j := range q {
		r := p.resv[j.Index]
		if r == noReservation {
			r = p.profile.EarliestFit(j.Request, j.Walltime)
			if err := p.profile.Reserve(r, j.Walltime, j.Request); err != nil {
				return nil, fmt.Errorf("conservative: job id %d: %w", j.ID, err)
			}
			p.resv[j.Index] = r
			p.out = append(p.out, sdk.Promise(j, r))
		}
		if r == s.Now {
			p.out = append(p.out, sdk.Start(j))
		} else if wake < 0 || r < wake {
			wake = r
		}
	}
	// A reservation normally falls on a job's end, which is an event anyway;
	// the wake-up makes sure the policy is called then in every case.
	if wake > 0 {
		p.out = append(p.out, sdk.WakeAt(wake))
	}
	p.drop(p.out)
	return p.out, nil
}

// endedEarly reports whether a job ended before its walltime since the last
// call, which is when reservations may move earlier.
func refEndedEarly(s *sdk.State) bool {
	for _, c := range s.Completed {
		if c.End < c.Start+c.Job.Walltime {
			return true
		}
	}
	return false
}
