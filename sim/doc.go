// Package sim runs a workload on a chip and reports what happens: time to
// first token, prefill and decode rates, the per-token latency spread,
// memory traffic, L3 miss rates and where the time went.
//
// [Run] takes a [Config] (a loaded chip, a model, a quantisation and how many
// tokens to prefill and decode) and returns a [Result], whose JSON form is
// the contract of `edgetwin simulate --format json`.
//
// A [Fidelity] names a preset of [Options]; three exist:
//
//   - Tile (the default) executes every operator on the discrete-event
//     kernel in sim/des: each operator's weights and KV cache are cut into
//     tiles that DMA brings from DRAM (through the L3, simulated block by
//     block) into the unit's SRAM while the unit computes the previous tile
//     (double buffering). DRAM and L3 are fluid links shared by concurrent
//     transfers; the DMA moves its own in order. Every operator pays the
//     unit's dispatch cost first.
//   - Analytic follows the same tile stream by arithmetic: per tile, when
//     its buffer frees, its set-up, its turn on the link and its compute,
//     with the settled middle of each operator skipped at its period, and
//     the L3's hits estimated per class instead of simulated.
//   - Line, the exact reference: the tile stream with the L3 simulated
//     line by line and no shortcut taken.
//
// Both executors run a pass planned once (its operators' spans, tiles and
// compute); a run is a sequence of stretches (passes, sampling, stages,
// idle time) on one clock. Each stretch's energy is accounted first, by
// parts and by where it goes as heat; the heat side then adds leakage at
// the nodes' temperatures, advances the thermal network, lets the
// governor poll and tells the engine when a cap moved; the clock then
// moves to the stretch's end.
//
// With nothing contending, the two agree within a few percent (the L3
// estimate is the difference); the tile fidelity is what sees the L3
// thrash.
//
// What the unit does not run — operators it or its runtime leaves to the
// CPU, blocks a layer split places there ([Config.CPULayers]) or on a
// third unit ([Config.LayersOn]) — runs on that unit as segments, with one
// hand-off at each boundary between two units ([Boundary]); a result
// lists both. A serve scenario's requests arrive on their own and share
// the unit as the schedule's [Batching] says.
//
// A run is single-threaded and deterministic: the same inputs give the same
// Result, byte for byte, on any machine.
package sim
