package host

import (
	"bytes"
	"strings"
	"testing"
)

// TestOutputFatalLine: the line that says why a Go process died is kept
// when the goroutine dump after it pushes it out of the tail, however the
// writes cut it; what comes during a run also goes to the run's writers.
func TestOutputFatalLine(t *testing.T) {
	dump := "starting\nfatal error: runtime: out of memory\n\nruntime stack:\n" +
		strings.Repeat("goroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d\n", 1000)
	for _, piece := range []int{1, 7, 4096, len(dump)} {
		o := newOutput()
		run, log := &tail{max: StderrLimit}, &bytes.Buffer{}
		o.lend(run, log)
		for b := []byte(dump); len(b) > 0; b = b[min(piece, len(b)):] {
			o.Write(b[:min(piece, len(b))])
		}
		if got := o.fatalLine(); got != "fatal error: runtime: out of memory" {
			t.Errorf("writes of %d bytes: fatal line %q", piece, got)
		}
		if strings.Contains(o.tail.String(), "fatal error") || len(o.tail.String()) != StderrLimit {
			t.Errorf("writes of %d bytes: the tail still holds the fatal line, or is not %d bytes", piece, StderrLimit)
		}
		if log.String() != dump || run.String() != o.tail.String() {
			t.Errorf("writes of %d bytes: the run's writers did not get the output", piece)
		}
	}
	o := newOutput()
	o.Write([]byte("panic: boom\n"))
	o.Write([]byte("fatal error: later\n"))
	if got := o.fatalLine(); got != "panic: boom" {
		t.Errorf("first fatal line %q, want the first one", got)
	}
}
