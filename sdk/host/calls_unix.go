//go:build unix

package host

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// callsSocket makes the socket of the call protocol: one end is given to
// cmd as a file descriptor (CallsFDEnv says which), the other returned.
func callsSocket(cmd *exec.Cmd) (*callsEnd, error) {
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("socket for the call protocol: %w", err)
	}
	// The host's end stays a bare descriptor, read and written by system
	// calls of this goroutine: not the network poller's (see callConn).
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return nil, fmt.Errorf("socket for the call protocol: %w", err)
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(fds[1]), "schedlab-calls-policy"))
	cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", CallsFDEnv, 2+len(cmd.ExtraFiles)))
	return &callsEnd{fd: fds[0]}, nil
}

// callsEnd is the host's end of the call protocol's socket.
type callsEnd struct {
	mu     sync.Mutex
	fd     int
	closed bool
}

// Close closes the socket; the policy's process reads an end of file.
func (e *callsEnd) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	return syscall.Close(e.fd)
}

// shutdown ends the read or write under way (poll wakes), and the
// process's reads.
func (e *callsEnd) shutdown() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		_ = syscall.Shutdown(e.fd, syscall.SHUT_RDWR)
	}
}

// forRun returns the connection of one run, its reads and writes bounded
// by the stall timeout (none when zero).
func (e *callsEnd) forRun(stall time.Duration) *callConn {
	return &callConn{end: e, stall: stall}
}

// callConn reads and writes the host's end of the socket with system
// calls, and waits in poll(2), whose timeout is the stall timeout. cancel,
// from another goroutine, shuts the socket down, which wakes poll. (A
// goroutine parked on the network poller was no faster to wake than a
// thread asleep in poll(2); spinning on the socket before sleeping halved
// the round trip of an echo, but gave no difference in whole runs that the
// noise of this machine let us see, and would take a processor from the
// policy when runs share them.)
type callConn struct {
	end   *callsEnd
	stall time.Duration

	mu       sync.Mutex
	canceled bool
	timedOut bool
}

// errStalled is the error of a read or write that outlived the stall
// timeout.
var errStalled = errors.New("i/o timeout")

func (c *callConn) cancel() {
	c.mu.Lock()
	c.canceled = true
	c.mu.Unlock()
	c.end.shutdown()
}

func (c *callConn) stalled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timedOut
}

func (c *callConn) check() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.canceled || c.timedOut {
		return net.ErrClosed
	}
	return nil
}

// wait sleeps in poll(2) until the socket is ready for events, or the
// stall timeout passes.
func (c *callConn) wait(events int16) error {
	timeout := -1
	if c.stall > 0 {
		timeout = int(c.stall.Milliseconds())
	}
	for {
		if err := c.check(); err != nil {
			return err
		}
		fds := []unix.PollFd{{Fd: int32(c.end.fd), Events: events}}
		n, err := unix.Poll(fds, timeout)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			c.mu.Lock()
			c.timedOut = !c.canceled
			c.mu.Unlock()
			return errStalled
		}
		return nil
	}
}

func (c *callConn) Read(b []byte) (int, error) {
	for {
		if err := c.check(); err != nil {
			return 0, err
		}
		n, err := syscall.Read(c.end.fd, b)
		switch {
		case err == nil && n == 0:
			return 0, io.EOF
		case err == nil:
			return n, nil
		case errors.Is(err, syscall.EINTR):
		case errors.Is(err, syscall.EAGAIN):
			if err := c.wait(unix.POLLIN); err != nil {
				return 0, err
			}
		default:
			return 0, err
		}
	}
}

func (c *callConn) Write(b []byte) (int, error) {
	done := 0
	for done < len(b) {
		if err := c.check(); err != nil {
			return done, err
		}
		n, err := syscall.Write(c.end.fd, b[done:])
		switch {
		case err == nil:
			done += n
		case errors.Is(err, syscall.EINTR):
		case errors.Is(err, syscall.EAGAIN):
			if err := c.wait(unix.POLLOUT); err != nil {
				return done, err
			}
		default:
			return done, err
		}
	}
	return done, nil
}
