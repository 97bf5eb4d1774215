// Package probe measures the machine it runs on with real kernels: memory
// bandwidth across working-set sizes, dependent-load latency, random 4 KiB
// reads, memcpy, the quantised GEMV and GEMM kernels LLM inference runs (in
// GGUF's Q4_0, Q8_0 and F16 block layouts) and a small transformer decoder
// built from them. Each measurement is a calibrate.Record, handed to the
// caller as soon as it is taken, so an interrupted probe keeps everything
// measured before it stopped.
//
// [Plan] lists the steps a probe will take, [Run] takes them, [Inspect]
// describes the host (CPU, caches, cores, clocks, memory, thermal zones)
// and [EmitSoC] writes a chip file for it from that description and the
// measured records.
//
// The probe binary (cmd/edgetwin-probe) wraps Run for remote targets: it
// prints "#host " and the JSON of [Inspect] as its first line, then one
// record per line, each flushed as it is measured.
package probe
