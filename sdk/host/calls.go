package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"syscall"
	"time"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/internal/calls"
	"github.com/schedlab/schedlab/sdk/sim"
)

// CallsFDEnv names, in a plugin's environment, the file descriptor of its
// end of the call protocol's socket (calls.Version).
const CallsFDEnv = "SCHEDLAB_CALLS_FD"

// closeChildEnd closes this process's copy of the plugin's end of the
// socket, once the plugin has started (or failed to), so that the host
// reads an end of file when the plugin dies.
func closeChildEnd(cmd *exec.Cmd) {
	for _, f := range cmd.ExtraFiles {
		if f != nil && f.Name() == "schedlab-calls-policy" {
			_ = f.Close()
		}
	}
}

// ErrNoAnswer reports a policy that did not answer a call within the
// run's stall timeout.
var ErrNoAnswer = errors.New("the policy did not answer")

// runCalls simulates a run in this process, the policy answering each
// call over the plugin's socket. A call unanswered for the stall timeout,
// or a run whose context ends, kills the process; so does a run that
// fails, by the runner's rule that a failed process is not reused.
func (p *Plugin) runCalls(ctx context.Context, spec RunSpec, jobs []sim.Input, sink func([]sim.Record)) (*sim.Result, error) {
	run, _ := p.out.lend(spec.Log)
	defer p.out.unlend()
	conn := p.conn.forRun(spec.StallTimeout)
	remote := &calls.Remote{Conn: conn, Output: func(_ byte, text []byte) { _, _ = p.out.Write(text) }, IO: spec.IO}
	stop := context.AfterFunc(ctx, conn.cancel)
	defer stop()
	pl := sdk.Plugin{Info: p.info, New: func() sdk.Policy { return remote }}
	res, err := local{pl}.Run(ctx, spec, jobs, sink)
	if err == nil {
		// A failure asking for the notes fails the run, whose result
		// would lack them.
		err = remote.Err()
	}
	if err == nil {
		if err = remote.End(); err == nil {
			return res, nil
		}
	}
	var perr *calls.PolicyError
	switch {
	case ctx.Err() != nil:
		p.client.Kill()
		return nil, p.wrap(fmt.Errorf("run: %w", context.Cause(ctx)), run, false)
	case conn.stalled():
		p.client.Kill()
		return nil, p.wrap(fmt.Errorf("run: %w in %v (the stall timeout): %v", ErrNoAnswer, spec.StallTimeout, err), run, false)
	case errors.As(err, &perr):
		// The policy failed and said why; its process is sound, but a
		// process whose run failed is not reused.
		_ = remote.End()
		return nil, p.wrap(err, run, false)
	}
	// The connection broke or the engine refused a decision: give a
	// dying process a moment to exit, so that the error says how it ended.
	for deadline := time.Now().Add(time.Second); !p.client.Exited() && time.Now().Before(deadline); {
		if !errors.Is(err, calls.ErrFrame) && !isConnErr(err) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if p.client.Exited() {
		return nil, p.wrap(fmt.Errorf("plugin process died during the run: %w", err), run, true)
	}
	_ = remote.End()
	return nil, p.wrap(err, run, false)
}

func isConnErr(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}
