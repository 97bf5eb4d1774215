package calibrate

import (
	"context"
	"testing"

	"github.com/edgetwin/edgetwin/sim"
)

// TestNPUBoardHeldOutModels runs the workflow of an NPU board whose models
// come as Hugging Face config.json files: records of decode rates and
// times to first token (in seconds, as NPU runtimes report them) made by
// the simulator under a known calibration, each model predicted from a
// fit on the others (validate --holdout model). The fit starts from the
// defaults, far from the truth (GEMM efficiency 0.8 against 0.2, dispatch
// 5 µs against 40 µs); every held-out model must come back within 2%
// (measured: 1.3% TTFT, 0.1% decode; the held-out model's TTFT carries
// what three models leave of the GEMM efficiency and dispatch trade-off).
func TestNPUBoardHeldOutModels(t *testing.T) {
	if testing.Short() {
		t.Skip("four fits")
	}
	truth := truthOverlay(t, `source: the truth
params:
  - {param: gemm_efficiency, unit_kind: npu, dtype: int8, value: 0.2}
  - {param: seq_efficiency, memory: LPDDR4X, value: 0.6}
  - {param: dispatch, unit_kind: npu, value: 40 us}
`)
	const board = "testdata/npu-board.yaml"
	var recs []Record
	for _, m := range []string{"llama-3.2-1b", "llama-3.2-3b", "../workloads/testdata/gemma-2-2b.config.json", "../workloads/testdata/qwen2.5-7b.config.json"} {
		recs = append(recs,
			Record{Kind: KindPrefill, SoC: board, Model: m, Quant: "INT8", Shape: Shape{Prompt: 128}, Backend: "RKNN", Unit: UnitSeconds, Source: "synthetic"},
			Record{Kind: KindDecode, SoC: board, Model: m, Quant: "INT8", Shape: Shape{Gen: 64}, Backend: "RKNN", Unit: UnitTokensPerSecond, Source: "synthetic"})
	}
	v, err := Validate(context.Background(), measuredUnder(t, recs, truth), ValidateOptions{Fidelity: sim.Analytic, Holdout: "model"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range v.Points {
		t.Logf("%-45s %-7s measured %8.4g predicted %8.4g %+6.2f%%", p.Model, p.Phase, p.Measured, p.Predicted, 100*p.Error)
	}
	for _, ph := range []string{TTFT, PhaseDecode} {
		if st := v.Phases[ph]; st.Points == 0 || v.MAPE[ph] > 0.02 {
			t.Errorf("%s: MAPE %.2f%% over %d points, want within 2%%", ph, 100*v.MAPE[ph], st.Points)
		}
	}
}
