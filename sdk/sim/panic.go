package sim

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// panicError is the error of a run whose policy panicked. Its first line
// is the panic's value, the same for every run that panics alike; the
// second says where, in the terms of the simulation and of the code: the
// simulated time and the queue (when the engine had started), and the
// frame that panicked with, when that frame is in the SDK or the standard
// library, the policy's frame that called it; the stack follows. It runs
// in the deferred call, on the panicking goroutine, whose stack still
// holds the panicking frames.
func panicError(name string, v any, e *engine) error {
	var where []string
	if e != nil {
		q := fmt.Sprintf("at t=%d, %d waiting", e.state.Now, len(e.state.Queue))
		if len(e.state.Queue) > 0 {
			q += fmt.Sprintf(" (first: job id %d)", e.state.Queue[0].ID)
		}
		where = append(where, q+fmt.Sprintf(", %d running", len(e.state.Running)))
	}
	if at, policy, ok := panicFrames(); ok {
		frame := func(f runtime.Frame) string { return fmt.Sprintf("%s:%d (%s)", f.File, f.Line, f.Function) }
		w := "in " + frame(at)
		if policy != at {
			w += ", called from " + frame(policy)
		}
		where = append(where, w)
	}
	msg := fmt.Sprintf("policy %s panicked: %v", name, v)
	if len(where) > 0 {
		msg += "\n" + strings.Join(where, ", ")
	}
	return fmt.Errorf("%s\n%s", msg, debug.Stack())
}

// panicFrames returns, from the stack of a panicking goroutine, the frame
// that panicked (the first below the runtime's panic and its helpers) and
// the first frame at or below it that is neither the SDK's nor the
// standard library's, the policy's own code; policy is at when none is.
func panicFrames() (at, policy runtime.Frame, ok bool) {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && !strings.HasPrefix(f.Function, "runtime."):
			if !ok {
				at, policy, ok = f, f, true
			}
			// Past the SDK's frames and the standard library's (package
			// paths without a dot, but main), the policy's.
			pkg := funcPackage(f.Function)
			if pkg == "main" || strings.Contains(pkg, ".") && pkg != sdkModule && !strings.HasPrefix(pkg, sdkModule+"/") {
				return at, f, true
			}
		}
		if !more {
			return at, policy, ok
		}
	}
}

// sdkModule is the SDK's module path, the prefix of its packages.
const sdkModule = "github.com/schedlab/schedlab/sdk"

// funcPackage is the package path of a function name as runtime.Frame
// spells it: example.com/p.(*T).M is in example.com/p.
func funcPackage(fn string) string {
	slash := strings.LastIndexByte(fn, '/') + 1
	if dot := strings.IndexByte(fn[slash:], '.'); dot >= 0 {
		return fn[:slash+dot]
	}
	return fn
}
