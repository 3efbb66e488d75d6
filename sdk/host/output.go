package host

import (
	"bytes"
	"io"
	"sync"
)

// output takes everything a plugin process writes: it keeps the last
// StderrLimit bytes for error messages, the first fatal line the Go runtime
// or a panic printed (which a long goroutine dump would push out of the
// tail), and passes what comes during a run to that run's writers.
type output struct {
	tail *tail

	mu    sync.Mutex
	run   *tail     // the run's own last lines, or nil between runs
	log   io.Writer // the run's log, or nil
	line  []byte    // the current line, while looking for a fatal one
	fatal string
}

func newOutput() *output { return &output{tail: &tail{max: StderrLimit}} }

// lend sends what comes from now on to run and log as well (nil: neither).
func (o *output) lend(run *tail, log io.Writer) {
	o.mu.Lock()
	o.run, o.log = run, log
	o.mu.Unlock()
}

func (o *output) Write(b []byte) (int, error) {
	o.tail.Write(b)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.run != nil {
		o.run.Write(b)
	}
	if o.log != nil {
		// A log that fails does not fail the plugin.
		_, _ = o.log.Write(b)
	}
	if o.fatal == "" {
		o.findFatal(b)
	}
	return len(b), nil
}

// findFatal looks for the first fatal line in b, continuing the line that
// the previous writes began.
func (o *output) findFatal(b []byte) {
	for len(b) > 0 && o.fatal == "" {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(o.line) < 512 {
				o.line = append(o.line, b[:min(len(b), 512-len(o.line))]...)
			}
			return
		}
		if len(o.line) < 512 {
			o.line = append(o.line, b[:min(i, 512-len(o.line))]...)
		}
		// The lines that say why a Go process died.
		for _, p := range [...]string{"fatal error: ", "panic: ", "runtime: out of memory"} {
			if bytes.HasPrefix(o.line, []byte(p)) {
				o.fatal = string(bytes.TrimSpace(o.line))
			}
		}
		o.line = o.line[:0]
		b = b[i+1:]
	}
}

// fatalLine returns the first fatal line the process printed, or "".
func (o *output) fatalLine() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.fatal
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
