package burstbuffer

import "github.com/schedlab/schedlab/sdk"

// Fresh returns plugin p (bb-easy, bb-easy-sjf or bb-easy-procs) making
// every call afresh, and a function giving the calls a run of p reused
// the previous call in (the last policy p made).
func Fresh(p sdk.Plugin) (fresh sdk.Plugin, reusing sdk.Plugin, reused func() int) {
	var last *easy
	fresh, reusing = p, p
	fresh.New = func() sdk.Policy { e := p.New().(*easy); e.fresh = true; return e }
	reusing.New = func() sdk.Policy { last = p.New().(*easy); return last }
	return fresh, reusing, func() int { return last.reused }
}
