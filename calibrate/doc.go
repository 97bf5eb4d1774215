// Package calibrate holds measurements of real chips and ties the twin to
// them: the record of one measured figure, the JSON Lines files they are
// kept in, importers for the benchmarks people already run (llama.cpp's
// llama-bench), calibration overlays, the fit that makes them and the
// validation that measures how well the twin predicts.
//
// # Records
//
// A [Record] is one measured thing: its [Kind] (bandwidth, latency,
// random_read, memcpy, gemv, gemm, decoder, prefill, decode), the chip it
// ran on (a catalog id, or a chip file's path with its [Digest]), what ran
// (model — a catalog id, a model YAML or a Hugging Face config.json — and
// quant, or kernel, shape and dtype; threads, backend, the runtime), the
// figure with its unit ("tokens/s", "B/s", "s", "ops/s"), the repetitions
// and their spread, the conditions (temperatures, clocks, OS, firmware,
// tool version and build) and where it came from. On disk it is one JSON
// object a line:
//
//	{"kind":"decode","soc":"apple-m2","model":"llama-2-7b","quant":"Q4_0","shape":{"gen":128,"batch":1},"backend":"Metal,BLAS","value":21.91,"unit":"tokens/s","source":"bench.json:120"}
//
// Import and probe name chip and model files relative to the records
// file ([PathFrom]), and [ReadFile] looks for them there first, so a
// records file reads the same from any directory.
//
// [Record.Validate] checks one: a known kind, a chip, a finite value > 0 in
// a unit that suits the kind, a model, a quant that workloads.ParseQuant
// reads and a prompt (prefill) or generation (decode) length for the model
// kinds. A record read from a file that leaves the length out (CONTRACT.md
// asks only for kind, soc, model, quant, value, unit and source) takes
// llama-bench's pp512 or tg128, with a warning naming the line.
//
// # Writing and reading
//
// A [Writer] appends records as they are measured, each in one write
// followed by a flush and an fsync. [Create] writes them beside the
// target and Close renames the file into place, so an earlier file is
// never truncated and a failed run leaves it as it was ([Writer.Discard],
// or [Writer.CloseAs] to keep what arrived under another name); Append
// goes on in place:
//
//	w, err := calibrate.Create("m2.jsonl")   // or calibrate.Append to go on
//	if err != nil { ... }
//	err = w.Write(rec)                       // invalid records are refused
//	err = w.Close()                          // m2.jsonl now holds the records
//
// [ReadFile] and [Read] read them back strictly: a key that is not a
// Record field, a wrong type or an invalid record is an error on one line,
//
//	m2.jsonl:3: field conditions.ambiant_c: unknown field; allowed: ambient_c, start_temp_c, …
//
// while a last line cut short by a killed writer is returned as a
// [Warning] next to the records before it.
//
// # Importing llama-bench
//
// [Import] reads llama-bench output in each of its forms, recognised by
// content ([Detect]): JSON (-o json), JSON Lines (-o jsonl), CSV (-o csv)
// and the Markdown table it prints by default (-o md):
//
//	| model         |     size | params | backend    | ngl | threads |  test |           t/s |
//	| ------------- | -------: | -----: | ---------- | --: | ------: | ----: | ------------: |
//	| llama 7B Q4_0 | 3.56 GiB | 6.74 B | Metal,BLAS |  99 |       8 | pp512 | 179.57 ± 0.00 |
//	| llama 7B Q4_0 | 3.56 GiB | 6.74 B | Metal,BLAS |  99 |       8 | tg128 |  21.91 ± 0.00 |
//
//	build: 8e672efe (1)
//
// Each row becomes one record:
//
//   - a pp-only row (n_gen 0) is a prefill record and a tg-only row
//     (n_prompt 0) a decode record, valued at avg_ts tokens/s with stddev_ts
//     as its spread; a pp+tg row is skipped, as edgetwin needs the two
//     phases apart; a row run after n_depth tokens of context ("pp512 @
//     d4096") keeps its depth, and is predicted with that context in the
//     KV cache (sim.Config.Depth);
//   - the model is the catalog model whose parameter count is within 1% of
//     model_n_params (Llama 2 7B's 6738415616 is llama-2-7b), the quant the
//     file type at the end of model_type ("llama 7B Q4_0" is Q4_0, "qwen2
//     7B Q4_K - Medium" Q4_K_M, "llama 8B IQ4_XS - 4.25 bpw" IQ4_XS);
//     [ImportOptions] Model and Quant override both;
//   - threads, backend, n_gpu_layers, model size and parameters, the KV
//     cache type, the build commit and number and the test time are kept;
//     the source is the file and line of the row.
//
// Rows that cannot be mapped come back as [Skip]s with the reason, and
// unknown columns are ignored; an error is only for input that is not
// llama-bench output at all (empty, binary, no known form). A typical use:
//
//	recs, skips, err := calibrate.Import("bench.md", data, calibrate.ImportOptions{SoC: "apple-m2"})
//	if err != nil { ... }                  // bench.md: not llama-bench output; expected …
//	fmt.Println(calibrate.ImportCommandSummary(recs, skips))
//	// 6 rows → 3 prefill, 3 decode records; none skipped
//
// # Calibration overlays
//
// An [Overlay] is YAML. Its params are fitted figures keyed by what they
// apply to, so an overlay fitted on some chips applies to others; set maps
// chip field paths, exactly as `simulate --set` takes them, to figures
// fitted for one chip (thermal resistances, say):
//
//	source: "calibrate fit of m1.jsonl (44 records) at tile fidelity"
//	params:
//	  - {param: gemv_efficiency, unit_kind: gpu, dtype: q4_0, value: 0.61, stderr: 0.02}
//	  - {param: gemm_efficiency, unit_kind: gpu, dtype: f16, value: 0.75}
//	  - {param: dispatch, unit_kind: gpu, value: 13 µs, stderr: 1.4 µs}
//	  - {param: seq_efficiency, memory: LPDDR5, value: 0.88}
//	  - {param: dma_setup, value: 190 ns}
//	set:
//	  thermal.links.2.resistance: 3.5 K/W
//
// The parameters: gemm_efficiency and gemv_efficiency (unit_kind, and
// optionally dtype, the weights' storage format in lower case: the unit's
// per-format maps gemm_efficiency_by / gemv_efficiency_by, else its
// scalar), dispatch, fallback_sync and sram_bandwidth (unit_kind),
// seq_efficiency, random_penalty and dram_latency (memory: a DRAM type;
// left out, every DRAM type the overlay has no figure of its own for), and
// dma_setup (every chip). Values are quantities with units; stderr is
// the fit's one-sigma uncertainty. [ParseOverlay] is strict: unknown
// fields, a parameter keyed by what it cannot apply to, a value out of
// range or a parameter given twice are errors with file:line.
//
// Applying an overlay ([Overlay.Load], or hw.LoadChipCalibrated with the
// overlay as its hw.Calibration) writes each generic parameter to every
// matching unit or DRAM of the chip, then the set entries, before any
// --set; the provenance of every field it touched is calibrated:<file>.
//
// # Fitting
//
// [FitRecords] chooses the parameters the records can inform (by the
// records' chips, phases and weight formats; [FitOptions] Params narrows
// or widens the choice), runs the simulator on each record's workload
// and minimises the squared log residuals with gonum/optimize's Newton
// method on the Gauss-Newton Hessian JᵀJ, each parameter on a logistic
// scale between its bounds (log-spaced for durations and bandwidths),
// damped as Levenberg's. A second start begins at the first minimum with
// every parameter the records did not see there moved to where it limits
// the time (a GEMV efficiency of 0.5 hides behind memory-bound decodes;
// no gradient leads away from it); further starts are displaced from the
// defaults. Records reuse runs whose parameters did not move. Above
// the analytic fidelity the optimiser works on the analytic model times a
// per-record correction, the ratio of the target fidelity's prediction to
// the analytic one at the current parameters, refreshed until it settles
// (within 0.2%): the fitted values answer to the target fidelity at the
// cost of a few runs of it per record. Uncertainties come from the
// residual Jacobian, cov = s²(JᵀJ)⁻¹ through J's singular values: a
// parameter that only trades off with others is Unresolved (unbounded).
// A parameter the records do not see at its fitted value but would see at
// its value before the fit stays in the overlay as a Limit (a DMA set-up
// pushed toward zero), since leaving it out hands the chips the default
// again. For each figure it keys by weight
// format or DRAM type, a fit also writes a pooled fallback without the
// key — the record-weighted mean of the keyed figures, its uncertainty
// their spread added to their variance — so the overlay still speaks for
// formats and memory types its records did not have ([FitParam] Pooled).
//
// [Validate] predicts every record (with an overlay, or with --holdout
// each chip's or model's records from a fit on the rest) and gives the
// signed error per point and the MAPE and worst point by phase, and for
// the time to first token the prefill points imply ([TTFT]).
package calibrate
