// Package smallfirst is the policy of docs/policies.md, kept here so that the
// guide's code is compiled and tested (policytest's own tests use it).
package smallfirst

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// Plugin describes the policy and makes one value per run.
func Plugin() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name: "smallfirst", Version: "0.1.0",
			Description: "start the smallest waiting jobs that fit",
			Params: []sdk.Param{{Name: "limit", Type: sdk.Int, Default: "0",
				Doc: "start at most this many jobs per call (0: no limit)"}},
		},
		New: func() sdk.Policy { return &policy{} },
	}
}

type policy struct {
	limit int64
	buf   []*sdk.Job
	out   []sdk.Decision
}

func (p *policy) Init(env sdk.Env) error {
	p.limit = env.Params.Int("limit")
	return nil
}

func (p *policy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	p.buf = append(p.buf[:0], s.Queue...)
	slices.SortStableFunc(p.buf, func(a, b *sdk.Job) int { return cmp.Compare(a.Procs(), b.Procs()) })
	free := s.Free[0].Clone()
	for _, j := range p.buf {
		if p.limit > 0 && int64(len(p.out)) == p.limit {
			break
		}
		if j.Request.Fits(free) {
			free.Sub(j.Request)
			p.out = append(p.out, sdk.Start(j))
		}
	}
	return p.out, nil
}
