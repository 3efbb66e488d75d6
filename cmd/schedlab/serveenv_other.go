//go:build !unix

package main

// closeOnExec does nothing: serve-env needs a Unix host (the call
// protocol's socket pair).
func closeOnExec(int) {}
