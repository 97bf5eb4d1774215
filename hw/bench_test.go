package hw

import (
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// BenchmarkLoadChip is one load of a catalog chip with one --set, as each
// point of a sweep over a chip field does.
func BenchmarkLoadChip(b *testing.B) {
	sets := []spec.Override{{Path: "memory.dram.bandwidth", Value: "60 GB/s", Origin: "--set"}}
	for b.Loop() {
		if _, err := LoadChip("seed-c", sets); err != nil {
			b.Fatal(err)
		}
	}
}
