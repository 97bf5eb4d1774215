//go:build !unix

package target

import "os/exec"

func setGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// terminate cannot ask politely where there are no signals: it kills.
func terminate(cmd *exec.Cmd) { killGroup(cmd) }
