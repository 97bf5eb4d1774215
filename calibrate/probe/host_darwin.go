//go:build darwin

package probe

import (
	"encoding/binary"
	"syscall"
)

// inspectOther reads what macOS's sysctl gives without cgo: the CPU's
// name, memory size and cache sizes. Clocks and temperatures need private
// frameworks and are left out.
func inspectOther(h *Host) {
	if v, err := syscall.Sysctl("kern.osrelease"); err == nil {
		h.Kernel = v
	}
	if v, err := syscall.Sysctl("machdep.cpu.brand_string"); err == nil {
		h.CPU = v
	}
	h.MemoryBytes = sysctlInt("hw.memsize")
	line := int(sysctlInt("hw.cachelinesize"))
	for _, c := range []struct {
		name  string
		level int
		typ   string
	}{{"hw.l1dcachesize", 1, "Data"}, {"hw.l2cachesize", 2, "Unified"}, {"hw.l3cachesize", 3, "Unified"}} {
		if n := sysctlInt(c.name); n > 0 {
			h.Caches = append(h.Caches, Cache{Level: c.level, Type: c.typ, Bytes: n, Line: line})
		}
	}
	if h.Arch == "arm64" {
		h.SIMD, h.SIMDBits = []string{"asimd"}, 128
	} else {
		h.SIMDBits = simdBits(h.Arch, nil)
	}
	h.Missing = append(h.Missing, "clocks and temperatures: not exposed by sysctl on macOS without cgo")
}

// sysctlInt reads an integer sysctl, which syscall.Sysctl returns as its
// raw little-endian bytes (with a trailing NUL removed).
func sysctlInt(name string) int64 {
	v, err := syscall.Sysctl(name)
	if err != nil || v == "" {
		return 0
	}
	b := []byte(v)
	if len(b) < 8 {
		b = append(b, make([]byte, 8-len(b))...)
	}
	n := int64(binary.LittleEndian.Uint64(b[:8]))
	if n < 0 {
		return 0
	}
	return n
}
