package host

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/sdk/internal/runmark"
)

// TestOutputFatalLine: the line that says why a Go process died is kept
// when the goroutine dump after it pushes it out of the tail, however the
// writes cut it; what comes during a run also goes to the run's writers.
func TestOutputFatalLine(t *testing.T) {
	dump := "starting\nfatal error: runtime: out of memory\n\nruntime stack:\n" +
		strings.Repeat("goroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d\n", 1000)
	for _, piece := range []int{1, 7, 4096, len(dump)} {
		o := newOutput()
		log := &bytes.Buffer{}
		run, _ := o.lend(log)
		for b := []byte(dump); len(b) > 0; b = b[min(piece, len(b)):] {
			o.Write(b[:min(piece, len(b))])
		}
		for _, s := range []*sink{run, &o.proc} {
			if got := o.fatalLine(s); got != "fatal error: runtime: out of memory" {
				t.Errorf("writes of %d bytes: fatal line %q", piece, got)
			}
		}
		if strings.Contains(o.text(&o.proc), "fatal error") || len(o.text(&o.proc)) != StderrLimit {
			t.Errorf("writes of %d bytes: the tail still holds the fatal line, or is not %d bytes", piece, StderrLimit)
		}
		if log.String() != dump || o.text(run) != o.text(&o.proc) {
			t.Errorf("writes of %d bytes: the run's writers did not get the output", piece)
		}
	}
	o := newOutput()
	o.Write([]byte("panic: boom\n"))
	o.Write([]byte("fatal error: later\n"))
	if got := o.fatalLine(&o.proc); got != "panic: boom" {
		t.Errorf("first fatal line %q, want the first one", got)
	}
}

// TestOutputMarks: a plugin's forwarded output reaches each run by its
// marks, however the stream's pieces cut them: what a run wrote last and
// came after the run returned (after the next run began, too) goes to
// neither run, and the next run gets its own output and fatal line only.
// A plugin that does not mark its runs has its output go to the run under
// way, as it comes.
func TestOutputMarks(t *testing.T) {
	stream := runmark.Start + "run 1 says a\n" + "run 1 ends without a newline" + runmark.End +
		"between runs\n" + runmark.Start + "panic: run 2 fails\nrun 2 says b\x00c\n" + runmark.End
	for _, piece := range []int{1, 2, 5, 17, len(stream)} {
		o := newOutput()
		w := o.forwardedWriter(0)
		write := func(s string) {
			for b := []byte(s); len(b) > 0; b = b[min(piece, len(b)):] {
				w.Write(b[:min(piece, len(b))])
			}
		}
		var log1, log2 bytes.Buffer
		run1, k1 := o.lend(&log1)
		// Run 1's start and part of its output come during the run, the
		// rest once run 2 is under way.
		cut := strings.Index(stream, "run 1 ends")
		write(stream[:cut])
		o.unlend()
		run2, k2 := o.lend(&log2)
		write(stream[cut:])
		o.settle(k2, time.Second, func() bool { return false })
		if k1 != 1 || k2 != 2 {
			t.Fatalf("runs numbered %d and %d", k1, k2)
		}
		if got := log1.String(); got != "run 1 says a\n" {
			t.Errorf("pieces of %d: run 1's log %q", piece, got)
		}
		if got := log2.String(); got != "panic: run 2 fails\nrun 2 says b\x00c\n" || o.text(run2) != got || o.text(run1) != log1.String() {
			t.Errorf("pieces of %d: run 2's log %q", piece, got)
		}
		if o.fatalLine(run1) != "" || o.fatalLine(run2) != "panic: run 2 fails" {
			t.Errorf("pieces of %d: fatal lines %q and %q", piece, o.fatalLine(run1), o.fatalLine(run2))
		}
		if got := o.text(&o.proc); strings.Contains(got, "schedlab:run") || !strings.Contains(got, "ends without a newlinebetween runs\n") {
			t.Errorf("pieces of %d: the process's output %q", piece, got)
		}
	}
	// Unmarked: the output goes to the run under way.
	o := newOutput()
	var log1, log2 bytes.Buffer
	o.lend(&log1)
	o.forwardedWriter(1).Write([]byte("one\n"))
	o.unlend()
	o.forwardedWriter(1).Write([]byte("between\n"))
	_, k := o.lend(&log2)
	o.forwardedWriter(1).Write([]byte("two\n"))
	o.settle(k, time.Minute, func() bool { return false }) // nothing awaited: returns at once
	if log1.String() != "one\n" || log2.String() != "two\n" {
		t.Errorf("unmarked output: logs %q and %q", log1.String(), log2.String())
	}
}

// TestOutputMarksRefusedRun: a run refused before its policy was made has
// an End mark and no Start; the runs after it still get their own output,
// and a run's end waits for its End only.
func TestOutputMarksRefusedRun(t *testing.T) {
	o := newOutput()
	w := o.forwardedWriter(1)
	var logs [3]bytes.Buffer
	for k, out := range []string{runmark.Start + "one\n" + runmark.End, runmark.End, runmark.Start + "three\n" + runmark.End} {
		_, n := o.lend(&logs[k])
		w.Write([]byte(out))
		o.settle(n, time.Minute, func() bool { return false }) // the End is there: no wait
		o.unlend()
	}
	if logs[0].String() != "one\n" || logs[1].String() != "" || logs[2].String() != "three\n" {
		t.Errorf("logs %q, %q, %q", logs[0].String(), logs[1].String(), logs[2].String())
	}
	// A run whose End has not come waits for it until the process is gone.
	_, n := o.lend(nil)
	w.Write([]byte(runmark.Start + "four\n"))
	gone := false
	time.AfterFunc(50*time.Millisecond, func() { o.mu.Lock(); gone = true; o.mu.Unlock() })
	o.settle(n, time.Minute, func() bool { o.mu.Lock(); defer o.mu.Unlock(); return gone })
	if !gone {
		t.Error("settle returned before the process was gone, without the run's End")
	}
}
