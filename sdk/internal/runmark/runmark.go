// Package runmark marks where each run's output begins and ends in what a
// plugin process writes to its standard output and error, which go-plugin
// forwards to the host asynchronously, on a stream of its own: without
// the marks, what a run wrote last could reach the host after the run, in
// the next run's log and error. The host asks for the marks by setting Env
// in the plugin's environment (so that an older host, which would show
// them, never gets them), the plugin writes Start to both streams when a
// run's policy is made and End when the run ends, and the host strips them.
package runmark

import (
	"io"
	"os"
)

// Env is set to "1" in a plugin's environment by a host that wants the
// marks.
const Env = "SCHEDLAB_RUN_MARKS"

// Start and End are the marks: bytes no policy prints by chance (a NUL, a
// record separator, a name), not lines, so that they are found whatever
// the output before them ended with.
const (
	Start = "\x00\x1eschedlab:run-start\x1e\x00"
	End   = "\x00\x1eschedlab:run-end\x1e\x00"
)

// Wanted reports whether this plugin process was asked for the marks.
func Wanted() bool { return os.Getenv(Env) == "1" }

// Write writes mark to the process's standard output and error as they
// are now (go-plugin's pipes, once it serves), each in one write.
func Write(mark string) {
	for _, w := range []io.Writer{os.Stdout, os.Stderr} {
		// A stream that fails loses the mark; the host then waits its
		// bound for the run's end and keeps the output apart all the same.
		_, _ = io.WriteString(w, mark)
	}
}
