//go:build !linux

package host

import "os/exec"

// dieWithParent does nothing where the kernel offers no parent-death signal;
// go-plugin still ends plugins when the host exits normally.
func dieWithParent(*exec.Cmd) {}
