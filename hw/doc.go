// Package hw describes what a chip is: its compute units, memories, caches
// and DMA, read from a datasheet-level YAML file or the embedded catalog,
// and the time-free physics of each component (MAC array cycle counts,
// DRAM efficiency). It has no clock: functions take sizes and return
// durations; the event loop lives in package sim.
//
// The smallest valid chip is a datasheet summary:
//
//	name: Example phone SoC
//	memory:
//	  dram: {type: LPDDR5X, bandwidth: 68.3 GB/s, capacity: 16 GiB}
//	units:
//	  - {name: npu, kind: npu, peak: {int8: 45 TOPS}}
//
// Everything else takes a default from one table, [Defaults], and is
// reported as "assumed" in the chip's provenance, so a result never hides
// which of its inputs were guessed. [Load] reads a file strictly (unknown
// fields, duplicate keys, bad units and impossible figures are errors naming
// file, line and field); [Catalog] lists the embedded chips, each figure with
// its citation in the chip's `sources`.
package hw
