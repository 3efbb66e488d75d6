package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// childCommand returns the command that runs args (a `go build`) so that
// it ends with everything it started: the build runs in a process group of
// its own, which ctx's end kills whole (exec.CommandContext would kill the
// go command alone, leaving its compilers to finish). With a supervisor
// (Resolver.Supervisor), the group also dies when this process does, even
// by SIGKILL: the kernel sends the supervisor SIGTERM then (Pdeathsig),
// which it turns into the group's kill (Supervise). Without one, the go
// command dies with this process (Pdeathsig) and the compilers it had
// started finish their package.
func childCommand(ctx context.Context, supervisor []string, args ...string) *exec.Cmd {
	if len(supervisor) > 0 {
		cmd := exec.CommandContext(ctx, supervisor[0], append(supervisor[1:len(supervisor):len(supervisor)], args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = childWaitDelay
		return cmd
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = childWaitDelay
	return cmd
}

// Supervise runs args as a process group of its own, with this process's
// standard streams, and returns its exit status. When ctx ends (schedlab
// cancels it on SIGINT and SIGTERM, and its host makes the kernel send
// SIGTERM when it dies) it kills the whole group and returns 128 + SIGTERM.
// It is what `schedlab plugin supervise` runs, the supervisor of
// Resolver.Supervisor.
func Supervise(ctx context.Context, args []string, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "supervise: no command")
		return 2
	}
	if ctx.Err() != nil {
		return 128 + int(syscall.SIGTERM) // the host died before the child started
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The child dies if this process does, whatever kills it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "supervise: %v\n", err)
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitStatus(err)
	case <-ctx.Done():
		// Start returned once the child had exec'd, so its group exists.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return 128 + int(syscall.SIGTERM)
	}
}

// exitStatus is the exit status a shell would give for a Wait error.
func exitStatus(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return 1
}
