package burstbuffer

import "github.com/schedlab/schedlab/sdk"

// Fresh returns plugin p (bb-easy, bb-easy-sjf or bb-easy-procs) making
// every call afresh, the same plugin going on from previous calls and
// checking, at each call that goes on from the previous call's profile,
// that profile against the one rebuilt from the state, and a function
// giving the calls the last run of the second reused the previous call in
// (easy.keeps) and went on from its profile (easy.goesOn).
func Fresh(p sdk.Plugin) (fresh sdk.Plugin, reusing sdk.Plugin, counts func() (reused, carried int)) {
	var last *easy
	fresh, reusing = p, p
	fresh.New = func() sdk.Policy { e := p.New().(*easy); e.fresh = true; return e }
	reusing.New = func() sdk.Policy { last = p.New().(*easy); last.check = true; return last }
	return fresh, reusing, func() (int, int) { return last.reused, last.carried }
}
