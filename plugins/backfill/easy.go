package backfill

import (
	"cmp"
	"slices"

	"github.com/schedlab/schedlab/sdk"
)

// EASY is the plugin of EASY backfilling (Lifka 1995; Mu'alem and Feitelson
// 2001). Jobs start in queue order while they fit. The first job that does not
// fit (the head) gets a reservation at the shadow time, the earliest time at
// which enough running jobs will have reached their walltime for it to fit;
// the capacity free at that time beyond the head's request is the extra
// capacity. Later jobs, in queue order, are backfilled when they fit now and
// either end by the shadow time or need no more than the extra capacity,
// which they then consume.
func EASY() sdk.Plugin {
	return sdk.Plugin{
		Info: sdk.Info{
			Name:        "easy",
			Version:     "1.0.0",
			Description: "EASY backfilling: one reservation, for the first job in queue order that does not fit",
			Params:      []sdk.Param{orderParam()},
		},
		New: func() sdk.Policy { return &easy{} },
	}
}

type easy struct {
	orderer
	free, avail, extra sdk.Vector
	now                []release // jobs started in this call, by expected end
	out                []sdk.Decision
}

// release is capacity that comes back at a time.
type release struct {
	at  int64
	idx int
	req sdk.Vector
}

func (p *easy) Init(env sdk.Env) error {
	p.orderer = newOrderer(env)
	return singleCluster("easy", env.Platform)
}

func (p *easy) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p.out = p.out[:0]
	p.now = p.now[:0]
	p.free = append(p.free[:0], s.Free[0]...)
	q := p.sorted(s.Queue)
	i := 0
	// The kept order must not change while q is read: the started jobs
	// are dropped from it when the call returns.
	defer func() { p.drop(p.out) }()
	for ; i < len(q) && q[i].Request.Fits(p.free); i++ {
		p.start(s.Now, q[i])
	}
	if i == len(q) {
		return p.out, nil
	}
	head := q[i]
	shadow := p.shadow(s, head)
	p.out = append(p.out, sdk.Promise(head, shadow))
	for _, j := range q[i+1:] {
		if !j.Request.Fits(p.free) {
			continue
		}
		switch {
		case s.Now+j.Walltime <= shadow:
			p.start(s.Now, j)
		case j.Request.Fits(p.extra):
			p.extra.Sub(j.Request)
			p.start(s.Now, j)
		}
	}
	return p.out, nil
}

func (p *easy) start(now int64, j *sdk.Job) {
	p.free.Sub(j.Request)
	p.out = append(p.out, sdk.Start(j))
	p.now = append(p.now, release{at: now + j.Walltime, idx: j.Index, req: j.Request})
}

// shadow returns the earliest time at which head fits once running jobs (and
// the jobs started in this call) reach their expected ends, and leaves in
// p.extra the capacity free then beyond head's request. Every release at the
// shadow time counts, not just the one that made head fit.
func (p *easy) shadow(s *sdk.State, head *sdk.Job) int64 {
	slices.SortFunc(p.now, func(a, b release) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	})
	p.avail = append(p.avail[:0], p.free...)
	run, started := s.Running, p.now
	shadow := int64(-1)
	for len(run) > 0 || len(started) > 0 {
		var at int64
		var req sdk.Vector
		if len(started) == 0 || (len(run) > 0 && run[0].ExpectedEnd <= started[0].at) {
			at, req = run[0].ExpectedEnd, run[0].Job.Request
			run = run[1:]
		} else {
			at, req = started[0].at, started[0].req
			started = started[1:]
		}
		if shadow >= 0 && at > shadow {
			break
		}
		p.avail.Add(req)
		if shadow < 0 && head.Request.Fits(p.avail) {
			shadow = at
		}
	}
	// The engine admits only jobs that fit the cluster, so head fits once
	// everything has ended and shadow is set.
	p.extra = append(p.extra[:0], p.avail...)
	p.extra.Sub(head.Request)
	return shadow
}
