package calibrate

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/sim"
)

// kernelRecord is a probe-style GEMV or GEMM record on the Raspberry Pi 5.
func kernelRecord(kind Kind, quant string, m, n, k, threads int, bytes int64) Record {
	return Record{Kind: kind, SoC: "raspberry-pi-5", Kernel: string(kind) + "_" + strings.ToLower(quant), Quant: quant,
		Shape: Shape{M: m, N: n, K: k, Bytes: bytes}, Threads: threads, Unit: UnitOpsPerSecond, Source: "synthetic"}
}

// TestKernelPredictable: which probe kernels the simulator predicts, and
// why not the others.
func TestKernelPredictable(t *testing.T) {
	for _, c := range []struct {
		r    Record
		want string // "" when predictable, else part of the reason
	}{
		{kernelRecord(KindGEMV, "Q4_0", 1, 16384, 4096, 4, 36<<20), ""},
		{kernelRecord(KindGEMM, "Q8_0", 64, 2048, 2048, 4, 4<<20), ""},
		{kernelRecord(KindGEMV, "Q4_0", 1, 16384, 4096, 1, 36<<20), ""},
		{kernelRecord(KindGEMV, "", 1, 1024, 1024, 4, 36<<20), "needs shape.n, shape.k and quant"},
		{Record{Kind: KindBandwidth, SoC: "raspberry-pi-5"}, "memory probes"},
		{Record{Kind: KindDecoder, SoC: "raspberry-pi-5", Model: "probe-decoder-s", Quant: "Q4_0", Shape: Shape{Gen: 8}, Threads: 4}, ""},
		{Record{Kind: KindDecoder, SoC: "raspberry-pi-5", Model: "probe-decoder-s", Quant: "Q4_0", Shape: Shape{Gen: 8}, Threads: 1}, ""},
		{Record{Kind: KindDecoder, SoC: "raspberry-pi-5", Quant: "Q4_0", Shape: Shape{Gen: 8}, Threads: 4}, "needs model"},
	} {
		ok, why := Predictable(c.r)
		if ok != (c.want == "") || !strings.Contains(why, c.want) {
			t.Errorf("%s %s threads %d: predictable %v (%q), want %q", c.r.Kind, c.r.Quant, c.r.Threads, ok, why, c.want)
		}
	}
}

// TestKernelThreads: a record on fewer threads than the CPU's cores runs
// on that many cores. A compute-bound GEMM on one of the Pi 5's four
// cores takes four times as long — whether the peak is derived from the
// cores (the catalog's Pi 5) or given (a probe's host chip); a GEMV, bound
// by DRAM bandwidth (which one thread is modelled as reaching in full),
// about as long; more threads than cores change nothing.
func TestKernelThreads(t *testing.T) {
	host := filepath.Join(t.TempDir(), "host.yaml")
	if err := os.WriteFile(host, []byte(`name: host
memory:
  dram: {type: DDR4, bandwidth: 14 GB/s, capacity: 16 GiB}
units:
  - {name: cpu, kind: cpu, cores: 4, clock: 2.4 GHz, peak: {int8: 300 GOPS, fp16: 150 GOPS, fp32: 75 GOPS}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	pr := NewPredictor(sim.Analytic)
	ops := func(kind Kind, quant string, m, threads int, soc string) float64 {
		t.Helper()
		r := kernelRecord(kind, quant, m, 2048, 2048, threads, 0)
		if soc != "" {
			r.SoC = soc
		}
		_, v, err := pr.figure(context.Background(), r, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Measured here: GEMM 4 threads / 1 = 3.997 (the dispatch, the same on
	// both, keeps it under 4), GEMV 1.000. The bounds leave room for that
	// fixed cost and nothing for a thread count ignored (a ratio of 1).
	for _, soc := range []string{"", host} {
		if r := ops(KindGEMM, "Q8_0", 64, 4, soc) / ops(KindGEMM, "Q8_0", 64, 1, soc); math.Abs(r-4) > 0.2 {
			t.Errorf("%s: GEMM on 4 threads / on 1 = %.2f, want about 4", soc, r)
		}
	}
	if r := ops(KindGEMV, "Q4_0", 1, 4, "") / ops(KindGEMV, "Q4_0", 1, 1, ""); r > 1.3 {
		t.Errorf("GEMV on 4 threads / on 1 = %.2f, want about 1 (memory-bound)", r)
	}
	if a, b := ops(KindGEMM, "Q8_0", 64, 4, ""), ops(KindGEMM, "Q8_0", 64, 16, ""); a != b {
		t.Errorf("GEMM on 16 threads %g, on all 4 cores %g: want equal", b, a)
	}
}

// TestFitKernels fits GEMV and GEMM records the simulator made with a
// known overlay and finds the CPU's GEMM efficiency and the DRAM's
// sequential efficiency again: the loop the probe's records close.
func TestFitKernels(t *testing.T) {
	truth := truthOverlay(t, `source: the truth
params:
  - {param: gemm_efficiency, unit_kind: cpu, dtype: q8_0, value: 0.35}
  - {param: seq_efficiency, memory: LPDDR4X, value: 0.62}
`)
	recs := measuredUnder(t, []Record{
		kernelRecord(KindGEMV, "Q4_0", 1, 16384, 4096, 4, 36<<20),
		kernelRecord(KindGEMV, "Q8_0", 1, 16384, 4096, 4, 68<<20),
		kernelRecord(KindGEMV, "F16", 1, 8192, 4096, 4, 64<<20),
		kernelRecord(KindGEMM, "Q8_0", 64, 2048, 2048, 4, 4<<20),
		kernelRecord(KindGEMM, "Q8_0", 32, 2048, 2048, 4, 4<<20),
	}, truth)
	fit, err := FitRecords(context.Background(), recs, FitOptions{Fidelity: sim.Analytic, Starts: 2, Params: []string{"gemm_efficiency", "seq_efficiency"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, p := range fit.Overlay.Params {
		got[p.Key()] = p.Float()
	}
	for _, p := range truth.Params {
		if g, ok := got[p.Key()]; !ok || math.Abs(g/p.Float()-1) > 0.01 {
			t.Errorf("%s = %g (fitted: %v), want %g", p.Key(), g, ok, p.Float())
		}
	}
	for _, r := range fit.Residuals {
		if math.Abs(r.Error) > 0.001 {
			t.Errorf("%s %s: residual %+.4f, want about 0", r.Record.Kernel, r.Record.Quant, r.Error)
		}
	}
}

// TestUnitForRecord: the unit a model record ran on, from llama.cpp's
// offload count or the backend's name, on a chip with CPU, GPU and NPU.
func TestUnitForRecord(t *testing.T) {
	chip, err := (*Overlay)(nil).Load("snapdragon-8-gen3", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		gpu     int
		backend string
		want    string // unit kind, "" for the simulator's choice
	}{
		{99, "", hw.GPU},
		{99, "llama.cpp Hexagon NPU (HTP0)", hw.NPU}, // offloaded to the NPU
		{99, "OpenCL (CPU fallback)", hw.GPU},
		{0, "OpenCL", hw.CPU}, // n_gpu_layers wins over the name
		{-1, "QNN (HTP)", hw.NPU},
		{-1, "OpenCL", hw.GPU},
		{-1, "CPU", hw.CPU},
		{-1, "", ""},
		{-1, "some new runtime", ""},
		{-1, "ExecuTorch XNNPACK + KleidiAI", hw.CPU},
		{-1, "a vendor chip runtime", ""}, // "chip" is not HIP
		{-1, "RKLLM 1.1 (w8a8)", hw.NPU},
		{-1, "Qualcomm Genie", hw.NPU},
		{-1, "MLX", hw.GPU},
		{-1, "TensorRT-LLM", hw.GPU},
		{-1, "MediaTek NeuroPilot", hw.NPU},
	} {
		got := unitForRecord(chip, c.gpu, c.backend)
		kind := ""
		if u := chip.Unit(got); u != nil {
			kind = u.Kind
		}
		if kind != c.want {
			t.Errorf("n_gpu_layers %d, backend %q: unit %q (%s), want a %q unit", c.gpu, c.backend, got, kind, c.want)
		}
	}
}

// TestFitSkipsRefusedRecords: a record the simulator refuses (the 8 Gen
// 3's NPU reads no K-quant blocks) is skipped with the reason by fit
// and validate alike, and the others are used.
func TestFitSkipsRefusedRecords(t *testing.T) {
	truth := truthOverlay(t, "source: t\nparams:\n  - {param: seq_efficiency, memory: LPDDR5, value: 0.8}\n")
	recs := synthetic(t, truth)[:4]
	refused := Record{Kind: KindDecode, SoC: "snapdragon-8-gen3", Model: "llama-3.2-1b", Quant: "Q4_K_M", Backend: "QNN (HTP)",
		Shape: Shape{Gen: 16}, Value: 20, Unit: UnitTokensPerSecond, Source: "phone.jsonl:1"}
	recs = append(recs, refused)
	fit, err := FitRecords(context.Background(), recs, FitOptions{Fidelity: sim.Analytic, Starts: 1, Params: []string{"seq_efficiency"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(fit.Residuals) != 4 || len(fit.Skipped) != 1 || !strings.Contains(fit.Skipped[0].Reason, "Q4_K") {
		t.Errorf("fit: %d residuals, skipped %+v; want 4 and the NPU record, for its format", len(fit.Residuals), fit.Skipped)
	}
	v, err := Validate(context.Background(), recs, ValidateOptions{Fidelity: sim.Analytic, Overlay: truth})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Points) != 4 || len(v.Skipped) != 1 || v.Skipped[0].Source != "phone.jsonl:1" {
		t.Errorf("validate: %d points, skipped %+v", len(v.Points), v.Skipped)
	}
}
