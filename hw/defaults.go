package hw

// Default is the value a field takes when a chip file leaves it out. Every
// default is an assumption: results report it as "assumed" in provenance,
// and Why says what it is based on.
//
// A Path that starts with "units.{kind}." applies to every unit of that kind.
type Default struct {
	Path  string
	Value string
	Why   string
}

// Defaults is the one table of assumed figures. docs/defaults.md is
// generated from it (go test ./hw -run TestDefaultsDoc -regen).
var Defaults = []Default{
	{"memory.dram.seq_efficiency", "0.7", "long sequential LPDDR streams on phone SoCs reach roughly 60–80% of peak; the middle of that range"},
	{"memory.dram.random_penalty", "4", "random 4 KiB reads pay row misses and bank conflicts; several times slower than sequential"},
	{"memory.dram.latency", "110 ns", "typical load-to-use latency of LPDDR5 behind a phone SoC's fabric (100–130 ns)"},
	{"memory.dram.row_size", "2 KiB", "the page size of an LPDDR5 x16 channel (JESD209-5: 2 KB per bank row)"},
	{"memory.l3.size", "8 MiB", "a flagship phone SoC's system-level cache is 6–12 MiB"},
	{"memory.l3.ways", "16", "common associativity of system-level caches"},
	{"memory.l3.line", "64 B", "the line size of every Arm system cache"},
	{"memory.l3.bandwidth", "100 GB/s", "system caches deliver 1.3–2× LPDDR5X peak to a single client"},
	{"memory.l3.latency", "25 ns", "system-level cache hit latency on phone SoCs (20–30 ns)"},
	{"memory.dram.energy_per_byte", "30 pJ", "LPDDR5 reads cost about 3.5–4 pJ/bit at the interface (Micron LPDDR5 white paper; JEDEC LPDDR5 marketing: 'about 20% below LPDDR4X'): ~30 pJ/B with the controller"},
	{"memory.dram.levels", "[50%, 75%, 100%]", "LPDDR5 controllers switch among a few data rates; the governor may drop to half"},
	{"memory.dram.static_power", "0.1 W", "LPDDR5 standby and refresh of 8–16 GB, a few tens of mW per die"},
	{"memory.l3.energy_per_byte", "2 pJ", "a multi-MiB SRAM read across the fabric; Horowitz (ISSCC 2014) gives ~1.25 pJ/B for an 8 KB array at 45 nm, large arrays and wires cost several times that"},
	{"memory.l3.replacement", "lru", "the textbook policy; vendors rarely document theirs"},
	{"policy", "stream-weights", "a runtime that streams weights past the L3 and keeps it for the KV cache and activations; naive and kv-first are the teaching extremes"},
	{"storage.read_bandwidth", "2 GB/s", "UFS 3.1 sequential read; UFS 4.0 phones reach about 4 GB/s"},
	{"storage.energy_per_byte", "500 pJ", "a UFS 3.1 device draws about 1 W reading 2 GB/s"},
	{"dma.channels", "4", "NPU DMA engines expose a handful of channels"},
	{"dma.setup", "500 ns", "descriptor write and doorbell per transfer"},
	{"dma.max_burst", "256 B", "AXI bursts of 16 beats at 128 bits"},

	{"units.{npu}.clock", "1 GHz", "phone NPUs run near 1 GHz"},
	{"units.{npu}.sram", "4 MiB", "NPU scratchpads are 2–8 MiB"},
	{"units.{npu}.sram_bandwidth", "512 GB/s", "on-die scratchpad feeds the array several times faster than DRAM"},
	{"units.{npu}.mac.rows", "32", "weight-stationary arrays reduce over 32–64 rows"},
	{"units.{npu}.mac.dataflow", "weight-stationary", "the dataflow of most mobile NPUs"},
	{"units.{npu}.gemm_efficiency", "0.8", "edge tiles, pipeline fill and requantisation not modelled elsewhere"},
	{"units.{npu}.gemv_efficiency", "1", "the MAC array model already accounts for GEMV under-use"},
	{"units.{npu}.dispatch", "5 us", "per-operator driver and firmware cost inside a compiled graph"},
	{"units.{npu}.sram_banks", "16", "scratchpads are split into 8–32 banks"},
	{"units.{npu}.init", "0.5 s", "opening an NPU runtime context and loading a compiled graph of a few hundred operators (a QNN context binary, a Core ML model) takes a few hundred ms to a second"},
	{"units.{npu}.fallback_sync", "50 us", "NPU-to-CPU hand-off: interrupt, cache maintenance, CPU wake-up and back"},
	{"units.{npu}.energy_per_op.int4", "0.025 pJ", "Horowitz (ISSCC 2014, 45 nm): 8-bit multiply 0.2 pJ, 16-bit FP multiply 1.1 pJ; scaled ~5× to 4 nm and doubled for operand delivery — about 10 TOPS/W at INT8, the order phone NPU vendors quote"},
	{"units.{npu}.energy_per_op.int8", "0.05 pJ", "Horowitz (ISSCC 2014, 45 nm): 8-bit multiply 0.2 pJ, 16-bit FP multiply 1.1 pJ; scaled ~5× to 4 nm and doubled for operand delivery — about 10 TOPS/W at INT8, the order phone NPU vendors quote"},
	{"units.{npu}.energy_per_op.fp16", "0.2 pJ", "Horowitz (ISSCC 2014, 45 nm): 8-bit multiply 0.2 pJ, 16-bit FP multiply 1.1 pJ; scaled ~5× to 4 nm and doubled for operand delivery — about 10 TOPS/W at INT8, the order phone NPU vendors quote"},
	{"units.{npu}.energy_per_op.fp32", "0.8 pJ", "Horowitz (ISSCC 2014, 45 nm): 8-bit multiply 0.2 pJ, 16-bit FP multiply 1.1 pJ; scaled ~5× to 4 nm and doubled for operand delivery — about 10 TOPS/W at INT8, the order phone NPU vendors quote"},
	{"units.{npu}.sram_energy_per_byte", "0.5 pJ", "Horowitz (ISSCC 2014): 8 KB SRAM, 64-bit read 10 pJ at 45 nm = 1.25 pJ/B; a few-MiB scratchpad at 4 nm costs about as much"},
	{"units.{npu}.active_power", "0.8 W", "a phone NPU's control, sequencers, DMA engines and clock tree while it runs a graph; vendors quote NPU inference power of a few watts, of which the MAC energy of a memory-bound GEMV is a small part"},
	{"units.{npu}.static_power", "0.15 W", "leakage of a phone-class block at nominal voltage, 25 °C: a few percent of its active power"},
	{"units.{npu}.leakage_per_c", "2%", "leakage roughly doubles every 35 °C at FinFET nodes (e^(0.02·35) = 2)"},
	{"units.{npu}.leakage_ref_temp", "25 C", "the temperature static_power is given at"},

	{"units.{gpu}.clock", "1 GHz", "mobile GPUs run at 0.8–1.4 GHz"},
	{"units.{gpu}.sram", "1 MiB", "on-chip GPU memory (GMEM/tile buffers) of about 1 MiB"},
	{"units.{gpu}.sram_bandwidth", "400 GB/s", "GPU on-chip memory bandwidth"},
	{"units.{gpu}.gemm_efficiency", "0.6", "mobile GPU GEMM kernels reach about 50–70% of peak"},
	{"units.{gpu}.gemv_efficiency", "0.5", "GEMV kernels are bound by loads, not FMAs"},
	{"units.{gpu}.dispatch", "10 us", "kernel launch cost of OpenCL/Vulkan/Metal on phones"},
	{"units.{gpu}.sram_banks", "32", "GPU on-chip memory banks"},
	{"units.{gpu}.init", "0.3 s", "creating an OpenCL/Vulkan/Metal context and building its kernels from a program cache"},
	{"units.{gpu}.fallback_sync", "30 us", "GPU queue flush and CPU wake-up per hand-off"},
	{"units.{gpu}.energy_per_op.int4", "0.15 pJ", "mobile GPUs sustain about 1–2 TFLOPS/W at FP16"},
	{"units.{gpu}.energy_per_op.int8", "0.3 pJ", "mobile GPUs sustain about 1–2 TFLOPS/W at FP16"},
	{"units.{gpu}.energy_per_op.fp16", "0.6 pJ", "mobile GPUs sustain about 1–2 TFLOPS/W at FP16"},
	{"units.{gpu}.energy_per_op.fp32", "1.2 pJ", "mobile GPUs sustain about 1–2 TFLOPS/W at FP16"},
	{"units.{gpu}.sram_energy_per_byte", "0.5 pJ", "Horowitz (ISSCC 2014): 8 KB SRAM, 64-bit read 10 pJ at 45 nm = 1.25 pJ/B; a few-MiB scratchpad at 4 nm costs about as much"},
	{"units.{gpu}.active_power", "3 W", "a phone GPU's shader front end, schedulers, load/store units and clock tree while busy: phone GPUs draw 3–8 W in sustained 3D loads, and a memory-bound kernel keeps every shader core issuing loads; the lower half of that range, the arithmetic being counted apart"},
	{"units.{gpu}.static_power", "0.2 W", "leakage of a phone-class block at nominal voltage, 25 °C: a few percent of its active power"},
	{"units.{gpu}.leakage_per_c", "2%", "leakage roughly doubles every 35 °C at FinFET nodes (e^(0.02·35) = 2)"},
	{"units.{gpu}.leakage_ref_temp", "25 C", "the temperature static_power is given at"},

	{"units.{cpu}.cores", "8", "phone CPUs have 8 cores"},
	{"units.{cpu}.clock", "2.5 GHz", "the middle of a phone CPU's big and little clocks"},
	{"units.{cpu}.simd_bits", "128", "Arm NEON vectors are 128 bits"},
	{"units.{cpu}.simd_pipes", "2", "two 128-bit NEON pipes a core, as Arm's Cortex-A7x performance cores (Cortex-X and Apple P-cores have four)"},
	{"units.{cpu}.core_bandwidth", "12 GB/s", "one core keeps about 20 cache-line misses in flight (the L1/L2 miss buffers of Arm's big cores): 20 × 64 B over the 110 ns DRAM latency is 11.6 GB/s; a phone's cores together, not one of them, reach the LPDDR peak"},
	{"units.{cpu}.sram", "1 MiB", "a core cluster's L2 used as the working set"},
	{"units.{cpu}.sram_bandwidth", "100 GB/s", "L2 bandwidth of a phone CPU cluster"},
	{"units.{cpu}.gemm_efficiency", "0.5", "quantised GEMM on NEON reaches about half of peak"},
	{"units.{cpu}.gemv_efficiency", "0.5", "quantised GEMV spends half its time unpacking"},
	{"units.{cpu}.dispatch", "2 us", "thread wake-up and barrier per operator"},
	{"units.{cpu}.sram_banks", "8", "L2 banks of a core cluster"},
	{"units.{cpu}.init", "0.05 s", "starting the thread pool and mapping the model file; the weights' read is counted apart"},
	{"units.{cpu}.fallback_sync", "0 s", "the CPU runs its own fallbacks"},
	{"units.{cpu}.energy_per_op.int4", "1 pJ", "NEON cores sustain a few hundred GOPS/W"},
	{"units.{cpu}.energy_per_op.int8", "2 pJ", "NEON cores sustain a few hundred GOPS/W"},
	{"units.{cpu}.energy_per_op.fp16", "3 pJ", "NEON cores sustain a few hundred GOPS/W"},
	{"units.{cpu}.energy_per_op.fp32", "5 pJ", "NEON cores sustain a few hundred GOPS/W"},
	{"units.{cpu}.sram_energy_per_byte", "1 pJ", "Horowitz (ISSCC 2014): 8 KB SRAM, 64-bit read 10 pJ at 45 nm = 1.25 pJ/B; a few-MiB scratchpad at 4 nm costs about as much"},
	{"units.{cpu}.active_power", "3 W", "eight Arm cores spinning through a memory-bound kernel (1 big at ~1 W, mid cores ~0.3–0.4 W each, little cores ~0.1 W), clock tree and out-of-order machinery active while stalled; a single busy core draws its 1/cores share"},
	{"units.{cpu}.static_power", "0.3 W", "leakage of a phone-class block at nominal voltage, 25 °C: a few percent of its active power"},
	{"units.{cpu}.leakage_per_c", "2%", "leakage roughly doubles every 35 °C at FinFET nodes (e^(0.02·35) = 2)"},
	{"units.{cpu}.leakage_ref_temp", "25 C", "the temperature static_power is given at"},

	{"units.{dsp}.clock", "1 GHz", "phone DSPs run near 1 GHz"},
	{"units.{dsp}.sram", "2 MiB", "DSP tightly coupled memory"},
	{"units.{dsp}.sram_bandwidth", "256 GB/s", "DSP vector memory bandwidth"},
	{"units.{dsp}.gemm_efficiency", "0.6", "vector DSP GEMM efficiency"},
	{"units.{dsp}.gemv_efficiency", "0.6", "vector DSP GEMV efficiency"},
	{"units.{dsp}.dispatch", "10 us", "FastRPC call cost per operator"},
	{"units.{dsp}.sram_banks", "16", "DSP memory banks"},
	{"units.{dsp}.init", "0.2 s", "opening a FastRPC session and loading the DSP library"},
	{"units.{dsp}.fallback_sync", "50 us", "FastRPC return and CPU wake-up per hand-off"},
	{"units.{dsp}.energy_per_op.int4", "0.1 pJ", "vector DSPs sit between NPU and GPU"},
	{"units.{dsp}.energy_per_op.int8", "0.2 pJ", "vector DSPs sit between NPU and GPU"},
	{"units.{dsp}.energy_per_op.fp16", "0.5 pJ", "vector DSPs sit between NPU and GPU"},
	{"units.{dsp}.energy_per_op.fp32", "1 pJ", "vector DSPs sit between NPU and GPU"},
	{"units.{dsp}.sram_energy_per_byte", "0.5 pJ", "Horowitz (ISSCC 2014): 8 KB SRAM, 64-bit read 10 pJ at 45 nm = 1.25 pJ/B; a few-MiB scratchpad at 4 nm costs about as much"},
	{"units.{dsp}.active_power", "0.3 W", "a vector DSP's control and clock tree while busy"},
	{"units.{dsp}.static_power", "0.05 W", "leakage of a phone-class block at nominal voltage, 25 °C: a few percent of its active power"},
	{"units.{dsp}.leakage_per_c", "2%", "leakage roughly doubles every 35 °C at FinFET nodes (e^(0.02·35) = 2)"},
	{"units.{dsp}.leakage_ref_temp", "25 C", "the temperature static_power is given at"},
}

// DefaultCPU is the CPU unit added to a chip that names none: every chip has
// one, and operators no accelerator supports run there.
const DefaultCPU = "{name: cpu, kind: cpu}"
