package runner

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/schedlab/schedlab/sdk/host"
)

// childWaitDelay bounds how long a child's output is awaited once the child
// was told to end: a process it started and that kept the output open must
// not hold the host.
const childWaitDelay = 10 * time.Second

// startPlugin starts the plugin command as host.Start does, but gives up as
// soon as ctx is cancelled: go-plugin waits for a plugin's handshake until
// its own start timeout whatever the context, and an interrupt must not
// wait for a plugin slow to start. A start given up on is ended when it
// returns (and the plugin dies with this process meanwhile). At ctx's
// deadline host.Start's own error, which says what the plugin printed, is
// the one returned.
func startPlugin(ctx context.Context, command []string) (*host.Plugin, error) {
	type started struct {
		p   *host.Plugin
		err error
	}
	done := make(chan started, 1)
	go func() {
		p, err := host.Start(ctx, exec.Command(command[0], command[1:]...))
		done <- started{p, err}
	}()
	select {
	case s := <-done:
		return s.p, s.err
	case <-ctx.Done():
		if !errors.Is(ctx.Err(), context.Canceled) {
			s := <-done
			return s.p, s.err
		}
		go func() {
			if s := <-done; s.p != nil {
				s.p.Close()
			}
		}()
		return nil, fmt.Errorf("start %s: %w", strings.Join(command, " "), context.Cause(ctx))
	}
}
