//go:build unix

package target

import (
	"os/exec"
	"syscall"
)

// setGroup starts cmd in a process group of its own: Ctrl-C in the
// terminal reaches edgetwin alone, which stops the probe in order, and a
// kill reaches whatever the command started (a shell and its child).
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills cmd's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// terminate asks cmd's process group to stop.
func terminate(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}
