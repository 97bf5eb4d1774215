// Package sim runs a workload on a chip and reports what happens: time to
// first token, prefill and decode rates, the per-token latency spread,
// memory traffic, L3 miss rates and where the time went.
//
// [Run] takes a [Config] (a loaded chip, a model, a quantisation and how many
// tokens to prefill and decode) and returns a [Result], whose JSON form is
// the contract of `edgetwin simulate --format json`.
//
// Two fidelities exist today:
//
//   - Tile (the default) executes every operator on the discrete-event
//     kernel in sim/des: each operator's weights and KV cache are cut into
//     tiles that DMA brings from DRAM (through the L3, simulated block by
//     block) into the unit's SRAM while the unit computes the previous tile
//     (double buffering). DRAM and L3 are fluid links shared by concurrent
//     transfers. Every operator pays the unit's dispatch cost first.
//   - Analytic is a roofline per operator: dispatch plus the larger of its
//     compute time and its memory time, with no overlap between operators.
//
// With nothing contending, the two agree within a few percent; the tile
// fidelity is what sees the L3 thrash and the pipeline bubbles.
//
// A run is single-threaded and deterministic: the same inputs give the same
// Result, byte for byte, on any machine.
package sim
