// Package stream carries a transport's hooks into the engine: a workload
// that arrives in pieces while the run goes on, and records handed on as
// they become final. The plugin server and the in-process host set them;
// policy authors never see them, which is why they travel in the run's
// context instead of in sim.Config.
package stream

import (
	"context"
	"sync/atomic"
)

// Hooks is how a run's workload arrives and its records leave. I is the
// engine's input type and R its record type (sim.Input and sim.Record):
// parameters only so that this package need not import the engine.
type Hooks[I, R any] struct {
	// More, when set, streams the workload: the run's Config.Jobs holds only
	// its first jobs (maybe none), Total is the number of jobs in all, and
	// the engine calls More for the next ones when the simulation reaches
	// the end of those it has. More returns the next jobs, at least one,
	// continuing the jobs in order and index; it may block until they are
	// there. The engine checks each job as it arrives, so a bad job fails
	// the run when the simulation reaches it. It copies the jobs before it
	// calls More again, so the caller may then reuse their memory. An error
	// of More ends the run with that error.
	More  func() ([]I, error)
	Total int
	// Emit, when set, is given the records as they become final. A job's
	// record is final once the job started and the policy call that started
	// it returned; the engine emits the longest prefix of jobs, in index
	// order, that are all final, once it has at least EmitAtLeast records
	// to emit. The calls are in index order and together cover every job
	// exactly once, the last before the run returns. The slice is part of
	// the result's records, which the engine does not change after emitting
	// it: the caller may keep it, and must not change it. An error from Emit
	// ends the run with that error.
	Emit        func(recs []R) error
	EmitAtLeast int
	// Progress, when set, is where the engine publishes, at every event,
	// the number of events so far and the simulated time, for another
	// goroutine to read while the run goes on (the plugin's heartbeat).
	Progress *Progress
}

// Progress is how far a run has come.
type Progress struct {
	Events, Now atomic.Int64
}

type key struct{}

// With returns a context that carries h to the engine.
func With[I, R any](ctx context.Context, h *Hooks[I, R]) context.Context {
	return context.WithValue(ctx, key{}, h)
}

// From returns the hooks ctx carries, or nil.
func From[I, R any](ctx context.Context) *Hooks[I, R] {
	h, _ := ctx.Value(key{}).(*Hooks[I, R])
	return h
}
