// Package atomicfiletest gives tests a disk that fills up: a small tmpfs,
// for checking that a write which runs out of space costs the user no
// file (see internal/atomicfile).
package atomicfiletest

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
)

// SmallDisk mounts a tmpfs of size (as mount's size= option takes it:
// "64k", "1m") on a fresh temporary folder, unmounted when the test ends,
// and returns the folder. Mounting needs root on Linux (scripts/test runs
// as root); elsewhere, or when the mount fails, the test is skipped with
// the reason.
func SmallDisk(t testing.TB, size string) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root on Linux")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s)", err, out)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, 0); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	return mnt
}
