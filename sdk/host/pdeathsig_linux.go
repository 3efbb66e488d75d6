package host

import (
	"os/exec"
	"syscall"
)

// dieWithParent asks the kernel to kill the plugin when this process dies, so
// that a killed campaign leaves no plugin behind.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
