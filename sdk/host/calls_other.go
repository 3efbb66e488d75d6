//go:build !unix

package host

import (
	"errors"
	"os/exec"
	"time"
)

// callsSocket returns nil: the call protocol of Python policies needs a
// Unix socket pair, and the host offers it only on Unix.
func callsSocket(*exec.Cmd) (*callsEnd, error) { return nil, nil }

// callsEnd is never made here.
type callsEnd struct{}

// Close does nothing.
func (e *callsEnd) Close() error { return nil }

func (e *callsEnd) forRun(time.Duration) *callConn { return &callConn{} }

// callConn fails every call.
type callConn struct{}

var errNoCalls = errors.New("policies over the call protocol need a Unix host")

func (c *callConn) cancel()                   {}
func (c *callConn) stalled() bool             { return false }
func (c *callConn) Read([]byte) (int, error)  { return 0, errNoCalls }
func (c *callConn) Write([]byte) (int, error) { return 0, errNoCalls }
