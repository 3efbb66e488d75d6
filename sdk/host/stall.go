package host

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// stallWatch ends a run whose plugin's heartbeats show no new event for
// limit: it cancels the run's context with a cause that says so.
type stallWatch struct {
	limit  time.Duration
	cancel context.CancelCauseFunc
	halt   chan struct{}
	done   chan struct{}

	mu      sync.Mutex
	events  int64     // the events of the last beat that showed progress
	now     int64     // its simulated time
	changed time.Time // when it came
}

func newStallWatch(limit time.Duration, cancel context.CancelCauseFunc) *stallWatch {
	w := &stallWatch{limit: limit, cancel: cancel, halt: make(chan struct{}), done: make(chan struct{}),
		events: -1, changed: time.Now()}
	go w.watch()
	return w
}

// beat takes a heartbeat of the plugin.
func (w *stallWatch) beat(events, now int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if events != w.events {
		w.events, w.now, w.changed = events, now, time.Now()
	}
}

func (w *stallWatch) watch() {
	defer close(w.done)
	t := time.NewTicker(min(w.limit/4, time.Second))
	defer t.Stop()
	for {
		select {
		case <-w.halt:
			return
		case <-t.C:
			w.mu.Lock()
			since, events, now := time.Since(w.changed), w.events, w.now
			w.mu.Unlock()
			if since < w.limit {
				continue
			}
			if events < 0 {
				w.cancel(fmt.Errorf("the plugin's engine gave no sign of progress in %v (stall_timeout)", w.limit.Round(time.Millisecond)))
			} else {
				w.cancel(fmt.Errorf("no progress in simulated time for %v (stall_timeout): still at t=%d after %d events, in a policy call or stuck",
					w.limit.Round(time.Millisecond), now, events))
			}
			return
		}
	}
}

func (w *stallWatch) stop() {
	close(w.halt)
	<-w.done
}
