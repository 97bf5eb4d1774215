package calibrate

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// TestValidationSummary checks the MAPE and worst case on hand-made
// points: prefill errors +10% and −20% (MAPE 15%, worst −20%), decode +5%
// (MAPE 5%), all three 35/3 %. The time to first token they imply is
// 1/1.1 − 1 = −9.09% and 1/0.8 − 1 = +25% off (MAPE 17.05%, worst b); a
// prefill measured in seconds keeps its error.
func TestValidationSummary(t *testing.T) {
	v := &Validation{Points: []Point{
		{SoC: "a", Phase: PhasePrefill, Measured: 100, Predicted: 110, Error: 0.10},
		{SoC: "b", Phase: PhasePrefill, Measured: 50, Predicted: 40, Error: -0.20},
		{SoC: "a", Phase: PhaseDecode, Measured: 20, Predicted: 21, Error: 0.05},
	}}
	v.summarise()
	for _, c := range []struct {
		phase string
		mape  float64
		worst string
		n     int
	}{{PhasePrefill, 0.15, "b", 2}, {TTFT, (0.1/1.1 + 0.25) / 2, "b", 2}, {PhaseDecode, 0.05, "a", 1}, {"all", 0.35 / 3, "b", 3}} {
		st := v.Phases[c.phase]
		if math.Abs(st.MAPE-c.mape) > 1e-12 || v.MAPE[c.phase] != st.MAPE || st.Worst.SoC != c.worst || st.Points != c.n {
			t.Errorf("%s: MAPE %g worst %s over %d, want %g, %s, %d", c.phase, st.MAPE, st.Worst.SoC, st.Points, c.mape, c.worst, c.n)
		}
	}
	if _, ok := v.Phases[PhaseKernel]; ok {
		t.Error("a phase without points has a summary")
	}
	if e := ttftError(Point{Phase: PhasePrefill, Unit: UnitSeconds, Error: 0.3}); e != 0.3 {
		t.Errorf("a prefill in seconds: TTFT error %g, want 0.3", e)
	}
}

// TestValidatePredictsEachRecord: with the overlay that made them, the
// synthetic records are predicted exactly; a kernel record without its
// shape is skipped with a reason; a hold-out needs two groups.
func TestValidatePredictsEachRecord(t *testing.T) {
	truth, err := ParseOverlay("truth.yaml", []byte("source: t\nparams:\n  - {param: seq_efficiency, memory: LPDDR5, value: 0.8}\n"))
	if err != nil {
		t.Fatal(err)
	}
	recs := synthetic(t, truth)[:4]
	recs = append(recs, Record{Kind: KindGEMV, SoC: "apple-m2", Value: 1e9, Unit: UnitOpsPerSecond, Source: "k.jsonl:1"})
	v, err := Validate(context.Background(), recs, ValidateOptions{Overlay: truth, Fidelity: "analytic"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Points) != 4 || len(v.Skipped) != 1 || !strings.Contains(v.Skipped[0].Reason, "gemv") {
		t.Fatalf("%d points, skipped %+v", len(v.Points), v.Skipped)
	}
	if v.MAPE["all"] > 1e-12 {
		t.Errorf("MAPE %g with the true overlay, want 0", v.MAPE["all"])
	}
	without, err := Validate(context.Background(), recs, ValidateOptions{Fidelity: "analytic"})
	if err != nil {
		t.Fatal(err)
	}
	if without.MAPE["decode"] < 0.01 {
		t.Errorf("decode MAPE %g without the overlay: the overlay should matter", without.MAPE["decode"])
	}
	_, err = Validate(context.Background(), recs[:2], ValidateOptions{Fidelity: "analytic", Holdout: "chip"})
	if err == nil || !spec.IsUserInput(err) || !strings.Contains(err.Error(), "two") {
		t.Errorf("hold-out over one chip: %v", err)
	}
}
