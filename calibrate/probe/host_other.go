//go:build !darwin

package probe

// inspectOther describes a host that is neither Linux nor macOS: only
// what the Go runtime knows.
func inspectOther(h *Host) {
	h.Missing = append(h.Missing, "cpu, caches, clocks, memory and temperatures: not read on "+h.OS)
}
