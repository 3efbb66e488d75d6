//go:build !linux

package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// childCommand returns the command that runs args. Outside Linux there is
// no parent-death signal: the build is killed when ctx ends, and the
// supervisor, if any, is not used.
func childCommand(ctx context.Context, _ []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.WaitDelay = childWaitDelay
	return cmd
}

// Supervise runs args with this process's standard streams and returns
// its exit status; outside Linux it adds nothing to running the command.
func Supervise(ctx context.Context, args []string, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "supervise: no command")
		return 2
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	fmt.Fprintf(stderr, "supervise: %v\n", err)
	return 127
}
