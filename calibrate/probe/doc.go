// Package probe measures the machine it runs on with real kernels: memory
// bandwidth across working-set sizes, dependent-load latency, random 4 KiB
// reads, memcpy, the quantised GEMV and GEMM kernels LLM inference runs (in
// GGUF's Q4_0, Q8_0 and F16 block layouts) and a small transformer decoder
// built from them. Each measurement is a calibrate.Record, handed to the
// caller as soon as it is taken, so an interrupted probe keeps everything
// measured before it stopped. It is pure Go (no cgo, no assembly) and
// builds for linux/arm64, linux/amd64 and darwin.
//
// [Plan] lists the steps a probe will take, [Run] takes them, [Inspect]
// describes the host (CPU, caches, cores, clocks, memory, thermal zones)
// and [EmitSoC] writes a chip file for it from that description and the
// measured records.
//
//	err := probe.Run(ctx, probe.Options{Quick: true}, w.Write) // w a calibrate.Writer
//
// # Steps
//
// Every record's source is "probe:" and its step's name:
//
//	bandwidth    sequential reads of 4 KiB … 4× the LLC (2× quick; 256 MiB when the
//	             LLC is unknown; at most an eighth of the memory and 2 GiB), two sizes
//	             an octave (one quick), one thread, and all threads at the three largest
//	latency      a pointer chase over one random cycle through every cache line, one
//	             size an octave; seconds per load
//	random_read  4 KiB blocks of the largest buffer in address order (sequential_4k)
//	             and in a random order (random_4k)
//	memcpy       Go's copy of half the largest buffer into the other half; bytes
//	             copied per second, each counted once
//	gemv-f16, gemv-q8_0, gemv-q4_0
//	             one activation row times weights in half the L2 (K = 1024) and
//	             beyond the LLC (1.25× it, at least 64 MiB; K = 4096), on one thread
//	             and on all (the large one on all only, quick)
//	gemm-q8_0    64 tokens (32 quick) times 2048×2048 Q8_0 weights
//	decoder-s, decoder-m, decoder-l
//	             greedy decoding on the catalog's probe-decoder-s/m/l models
//
// Values are the median of the repetitions; Reps and Stddev say how many
// and how much they spread. Matrix kinds are in ops/s, 2·M·N·K a product;
// their quant is the weights' GGUF format and their dtype what the kernel
// multiplies in (int8 for Q4_0 and Q8_0, fp16 for F16).
//
// # Kernels
//
// The blocks are GGUF's byte for byte: a Q4_0 block is an fp16 scale d
// and 16 bytes whose low nibbles are weights 0..15 and high nibbles 16..31,
// each (nibble − 8)·d; a Q8_0 block is d and 32 int8. As llama.cpp's CPU
// backend does, a quantised matmul first quantises its activations to Q8_0
// and then sums integer products per block, scaled by both blocks' d; an
// F16 matmul rounds the activations to halves and accumulates in float32.
// [MatMul] splits the weight rows over the threads.
//
// # The reference decoders
//
// [Decoder] is a Llama block stack — RMSNorm, Q/K/V projections with
// grouped-query attention, RoPE, attention over an F16 KV cache, the output
// projection, a gated SiLU FFN, the final norm and the output matrix — with
// random weights, stored in the formats workloads.Model.Tensors gives. The
// probe runs the catalog models probe-decoder-s, -m and -l (about 56, 201
// and 619 MB) under [DecoderQuant], Q4_0 with a Q4_0 output matrix, so
// `edgetwin simulate --model probe-decoder-m --quant Q4_0,output=Q4_0
// --prompt 0` models exactly what was measured.
//
// # Conditions
//
// Every record carries the clock and temperatures read when it was taken,
// the OS and kernel, and the tool's version and build. A decoder record,
// the probe's sustained load, carries the clock's mean, lowest and highest
// over the run and each thermal zone's hottest reading, sampled every
// 250 ms.
//
// # Budgets and cancellation
//
// A full probe takes at most five minutes on a 2-core machine and a quick
// one under a minute. Every step looks at its context every few
// milliseconds of work (matmuls every 256 rows, streams every 64 MiB,
// buffer set-up every 32 MiB), so Run returns promptly when it ends.
//
// The probe binary (cmd/edgetwin-probe) wraps Run for remote targets: it
// prints "#host " and the JSON of [Inspect] as its first line, then one
// record per line, each flushed as it is measured; progress goes to stderr.
package probe
