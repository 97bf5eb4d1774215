// Package runtimes describes the software stacks that run a model on a
// chip's units — llama.cpp on its CPU, Metal, OpenCL, CUDA, Vulkan and
// Hexagon backends, Ollama, MLC-LLM, ExecuTorch, Qualcomm Genie/QNN,
// RKLLM, Core ML, MediaTek NeuroPilot — as data.
//
// A chip is hardware; what a user gets is chip × runtime × model. A
// [Profile] says which unit kinds (and vendors' units) a stack drives,
// which weight formats it reads, whether it dispatches every operator or
// runs a compiled graph, and the share of the unit's modelled peak its
// kernels reach: GEMM for prefill and GEMV for decode, by weight format
// (a CPU runtime's GEMV also by core design, efficiency.cores, as an A76
// and an Apple performance core reach different shares of their clock ×
// pipes), the share of the DRAM peak its decode draws, and a CPU runtime's
// barrier: what each thread past the first adds to every operator. Those
// figures come from fits to published measurements (examples/public/), and
// each says so in its `sources`; a figure no measurement backs is marked
// assumed.
//
// Profiles are strict YAML like every other language of edgetwin:
//
//	p, err := runtimes.Load("genie")          // a catalog id, or a file
//	ok := p.Drives(unit, vendor)               // the unit kinds it runs on
//	missing, ok := p.Unread(formats)           // a weight format it cannot read
//
// The simulator (sim) applies a profile's figures to the unit it runs on
// wherever the chip file leaves them to the assumed defaults: a figure the
// chip file cites, a calibration overlay or a --set still wins.
package runtimes
