package host

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/schedlab/schedlab/sdk/internal/runmark"
)

// output takes everything a plugin process writes: its standard error as
// the process writes it (the runtime's panics and fatal errors), and what
// its policy writes to os.Stdout and os.Stderr, which go-plugin forwards
// on a stream of its own, asynchronously: a run's last lines can come
// after the run has returned. The plugin marks each run's output there
// (runmark, asked for by Start), so that what a run wrote goes to that
// run's writers only, never to the next run's, however late it comes.
//
// Everything goes to the process's sink, which keeps the last StderrLimit
// bytes and the first fatal line for errors outside a run (a failed
// start); what belongs to the run under way also goes to the run's sink.
type output struct {
	mu      sync.Mutex
	changed *sync.Cond // a mark came, or a wait's time is up
	proc    sink
	run     *sink // the run under way; nil between runs
	runs    int   // runs lent so far: the number of the one under way
	streams [2]forwarded
}

// sink keeps the last max bytes written to it, the first fatal line the Go
// runtime or a panic printed (which a long goroutine dump would push out of
// the tail), and passes everything to its log.
type sink struct {
	tail  tail
	log   io.Writer // nil: none
	line  []byte    // the current line, while looking for a fatal one
	fatal string
}

// forwarded is one of go-plugin's forwarded streams, the policy's
// os.Stdout or os.Stderr, and where its runs stand by their marks. Every
// run of the plugin ends with an End mark, and a run whose policy was made
// has a Start mark before: output after a Start and before the End that
// follows is the run's, output outside those is no run's.
type forwarded struct {
	marked bool   // a mark came: the plugin marks its runs
	held   []byte // the end of the last write, when it may begin a mark
	open   bool   // between a Start and its End
	ends   int    // End marks seen: runs ended
	to     *sink  // where a marked stream's output goes now (nil: the process's only)
}

func newOutput() *output {
	o := &output{proc: sink{tail: tail{max: StderrLimit}}}
	o.changed = sync.NewCond(&o.mu)
	return o
}

// Write takes the process's own standard error, which has no marks: what
// comes during a run goes to it.
func (o *output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.proc.write(b)
	if o.run != nil {
		o.run.write(b)
	}
	return len(b), nil
}

// forwardedWriter returns the writer of forwarded stream i (0 stdout, 1
// stderr).
func (o *output) forwardedWriter(i int) io.Writer { return streamWriter{o, i} }

type streamWriter struct {
	o *output
	i int
}

func (w streamWriter) Write(b []byte) (int, error) {
	o := w.o
	o.mu.Lock()
	defer o.mu.Unlock()
	st := &o.streams[w.i]
	data := b
	if len(st.held) > 0 {
		data = append(append([]byte(nil), st.held...), b...)
		st.held = st.held[:0]
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, 0) // both marks begin with a NUL
		if i < 0 {
			o.deliver(st, data)
			break
		}
		o.deliver(st, data[:i])
		rest := data[i:]
		switch {
		case bytes.HasPrefix(rest, []byte(runmark.Start)):
			o.mark(st, false)
			data = rest[len(runmark.Start):]
		case bytes.HasPrefix(rest, []byte(runmark.End)):
			o.mark(st, true)
			data = rest[len(runmark.End):]
		case strings.HasPrefix(runmark.Start, string(rest)) || strings.HasPrefix(runmark.End, string(rest)):
			// A mark cut by the stream's pieces: its rest comes next.
			st.held = append(st.held, rest...)
			data = nil
		default:
			o.deliver(st, rest[:1])
			data = rest[1:]
		}
	}
	return len(b), nil
}

// deliver passes output of a forwarded stream on: to the process's sink,
// and to the run it belongs to: by the marks, or, from a plugin that does
// not mark its runs, the run under way.
func (o *output) deliver(st *forwarded, b []byte) {
	if len(b) == 0 {
		return
	}
	o.proc.write(b)
	to := o.run
	if st.marked {
		to = st.to
	}
	if to != nil {
		to.write(b)
	}
}

// mark takes a Start or End mark of st. The run open on st is the one
// after the last that ended.
func (o *output) mark(st *forwarded, end bool) {
	st.marked = true
	st.open, st.to = !end, nil
	if end {
		st.ends++
	} else if st.ends+1 == o.runs {
		st.to = o.run // nil if the run has already returned
	}
	o.changed.Broadcast()
}

// lend starts a run: what belongs to it goes to its sink, and to log (nil:
// none) as well. It returns the sink and the run's number in the process.
func (o *output) lend(log io.Writer) (*sink, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.runs++
	o.run = &sink{tail: tail{max: StderrLimit}, log: log}
	for i := range o.streams {
		if st := &o.streams[i]; st.open && st.ends+1 == o.runs {
			st.to = o.run
		}
	}
	return o.run, o.runs
}

// unlend ends the run under way: what comes after belongs to no run.
func (o *output) unlend() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.run = nil
	for i := range o.streams {
		o.streams[i].to = nil
	}
}

// settle waits, at most limit, for run k's output to have come whole: for
// every marked stream, run k's End, which the plugin writes when the run
// ends however it ends; or until gone reports the process has ended.
func (o *output) settle(k int, limit time.Duration, gone func() bool) {
	done := make(chan struct{})
	defer close(done)
	// Wake the wait at the deadline, and now and then to look at gone.
	go func() {
		deadline := time.NewTimer(limit)
		defer deadline.Stop()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-deadline.C:
				o.mu.Lock()
				limit = -1
				o.changed.Broadcast()
				o.mu.Unlock()
				return
			case <-tick.C:
				o.mu.Lock()
				o.changed.Broadcast()
				o.mu.Unlock()
			}
		}
	}()
	o.mu.Lock()
	defer o.mu.Unlock()
	for limit >= 0 && !o.settled(k) {
		o.mu.Unlock()
		ended := gone()
		o.mu.Lock()
		if ended {
			return
		}
		o.changed.Wait()
	}
}

// settled reports whether every marked stream has brought run k whole.
func (o *output) settled(k int) bool {
	for i := range o.streams {
		if st := &o.streams[i]; st.marked && st.ends < k {
			return false
		}
	}
	return true
}

// fatalLine returns the first fatal line s received, or "".
func (o *output) fatalLine(s *sink) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return s.fatal
}

// text returns the last bytes s received.
func (o *output) text(s *sink) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return string(s.tail.buf)
}

func (s *sink) write(b []byte) {
	s.tail.write(b)
	if s.log != nil {
		// A log that fails does not fail the plugin.
		_, _ = s.log.Write(b)
	}
	if s.fatal == "" {
		s.findFatal(b)
	}
}

// findFatal looks for the first fatal line in b, continuing the line that
// the previous writes began.
func (s *sink) findFatal(b []byte) {
	for len(b) > 0 && s.fatal == "" {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(s.line) < 512 {
				s.line = append(s.line, b[:min(len(b), 512-len(s.line))]...)
			}
			return
		}
		if len(s.line) < 512 {
			s.line = append(s.line, b[:min(i, 512-len(s.line))]...)
		}
		// The lines that say why a Go process died.
		for _, p := range [...]string{"fatal error: ", "panic: ", "runtime: out of memory"} {
			if bytes.HasPrefix(s.line, []byte(p)) {
				s.fatal = string(bytes.TrimSpace(s.line))
			}
		}
		s.line = s.line[:0]
		b = b[i+1:]
	}
}

// tail keeps the last max bytes written to it; its owner locks it.
type tail struct {
	max int
	buf []byte
}

func (t *tail) write(b []byte) {
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
}
