package probe

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// FuzzParseCPUInfo: any text gives a CPUInfo without panicking, whose SIMD
// list is sorted, free of duplicates and made of known features, and whose
// clock is 0 or a plausible MHz.
func FuzzParseCPUInfo(f *testing.F) {
	if b, err := os.ReadFile("testdata/linux-arm64/proc/cpuinfo"); err == nil {
		f.Add(string(b))
	}
	f.Add("model name\t: x\ncpu MHz\t: 2100.000\nflags\t: sse2 avx2 avx512f\n")
	f.Add("flags:\nFeatures: asimd asimd\ncpu MHz: NaN\n")
	f.Fuzz(func(t *testing.T, text string) {
		ci := ParseCPUInfo(text)
		if !slices.IsSorted(ci.SIMD) || len(slices.Compact(slices.Clone(ci.SIMD))) != len(ci.SIMD) {
			t.Errorf("SIMD %v not sorted or has duplicates", ci.SIMD)
		}
		for _, s := range ci.SIMD {
			if _, ok := simdFlags[s]; !ok {
				t.Errorf("unknown feature %q kept", s)
			}
		}
		if ci.MHz < 0 || ci.MHz >= 1e6 || ci.MHz != ci.MHz {
			t.Errorf("MHz %v", ci.MHz)
		}
		if strings.ContainsAny(ci.Model, "\n") {
			t.Errorf("model %q spans lines", ci.Model)
		}
	})
}

// FuzzParseMemTotal: any text gives 0 or a positive size below 1 PiB·1024.
func FuzzParseMemTotal(f *testing.F) {
	f.Add("MemTotal:       24684092 kB\n")
	f.Add("MemTotal: 99999999999999999999 kB\n")
	f.Add("MemTotal: 1125899906842624 kB\n")
	f.Fuzz(func(t *testing.T, text string) {
		if n := ParseMemTotal(text); n < 0 || n > 1<<60 {
			t.Errorf("ParseMemTotal = %d", n)
		}
	})
}

// FuzzParseSysfs: a cache size is positive when accepted and its text
// round-trips through the number and suffix; a CPU list counts at least one
// CPU per comma-separated part when accepted.
func FuzzParseSysfs(f *testing.F) {
	for _, s := range []string{"48K", "307200K", "32M", "0-3,6", "1G", "-1", "0-65537"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, ok := ParseSize(s); ok != (n > 0) || n > 1<<50 {
			t.Errorf("ParseSize(%q) = %d, %v", s, n, ok)
		}
		if n := ParseCPUList(s); n != 0 && n < strings.Count(strings.TrimSpace(s), ",")+1 {
			t.Errorf("ParseCPUList(%q) = %d", s, n)
		}
	})
}
