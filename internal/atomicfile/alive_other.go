//go:build !unix

package atomicfile

// alive cannot tell on this system, so every leftover is kept.
func alive(int) bool { return true }
