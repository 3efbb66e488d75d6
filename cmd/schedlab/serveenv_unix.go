//go:build unix

package main

import "syscall"

// closeOnExec keeps the environment's socket from the processes of the
// policies serve-env starts: when serve-env ends, the environment must
// read an end of file.
func closeOnExec(fd int) { syscall.CloseOnExec(fd) }
