//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// alive reports whether process pid may still be running: a leftover of a
// live process is never removed.
func alive(pid int) bool {
	if pid <= 0 {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
