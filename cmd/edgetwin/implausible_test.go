package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestImplausibleSets: --set values that once ran and printed nonsense
// with exit 0 (a 100 B/s DRAM gave a 9.2e6 s prefill; a 1e9 s DMA set-up
// made decode faster) are bad input, exit 2, one located line naming the
// field and, for a bare number, the unit meant.
func TestImplausibleSets(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"memory.dram.bandwidth=100B/s", "--set: field memory.dram.bandwidth: 100 B/s is not a plausible DRAM bandwidth"},
		{"memory.dram.bandwidth=85.3", "85.3 — did you mean 85.3 GB/s?"},
		{"dma.setup=1e9s", "--set: field dma.setup: 1000000000 s is not a plausible per-operation cost"},
		{"units.npu.clock=1612", "1612 — did you mean 1612 MHz?"},
		{"memory.l3.size=64GiB", "--set: field memory.l3.size: 64 GiB is not a plausible cache size"},
		// The check across the two fields blames the one --set changed.
		{"memory.dram.capacity=4MiB", "--set: field memory.dram.capacity: 4 MiB is smaller than the chip's L3 (memory.l3.size 12 MiB"},
	} {
		var out, errb bytes.Buffer
		code := run([]string{"simulate", "--soc", "seed-c", "--set", tc.set}, &out, &errb)
		msg := errb.String()
		if code != exitBadInput || !strings.Contains(msg, tc.want) || strings.Count(strings.TrimSpace(msg), "\n") > 0 || out.Len() > 0 {
			t.Errorf("--set %s: exit %d, stdout %q, stderr %q; want exit 2 with %q", tc.set, code, out.String(), msg, tc.want)
		}
	}
}
