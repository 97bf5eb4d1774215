package calibrate

import (
	"context"
	"math"
	"testing"

	"github.com/edgetwin/edgetwin/sim"
)

// mobileRecords are the phone results of shared/data/mobile_llm_dev.csv
// on the catalog's Snapdragon 8 Gen 3 and 8 Elite (llama.cpp OpenCL and
// Hexagon, ExecuTorch on the CPU, Qualcomm Genie on the NPU, with Genie's
// times to first token), converted as examples/calibration/README.md says.
const mobileRecords = "../examples/calibration/mobile.jsonl"

// TestMobileRecords predicts every phone record with the catalog chips
// as they stand (no calibration), then each model from a fit on the
// other models (validate --holdout model), and prints both tables: the
// twin's accuracy on chips, runtimes and models it was never fitted to.
// It holds that every record is predicted (none skipped, every figure
// finite and positive) and that the hold-out fit does better than no
// fit on decode.
func TestMobileRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("three fits")
	}
	recs, warns, err := ReadFile(mobileRecords)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	t.Chdir("..")
	runs := map[string]*Validation{}
	for _, holdout := range []string{"", "model"} {
		v, err := Validate(context.Background(), recs, ValidateOptions{Fidelity: sim.Analytic, Holdout: holdout,
			Fit: FitOptions{Starts: 1}})
		if err != nil {
			t.Fatal(err)
		}
		runs[holdout] = v
		if len(v.Points) != len(recs) || len(v.Skipped) != 0 {
			t.Errorf("holdout %q: %d points of %d records, skipped %+v", holdout, len(v.Points), len(recs), v.Skipped)
		}
		for _, p := range v.Points {
			if !(p.Predicted > 0) || math.IsInf(p.Predicted, 0) {
				t.Errorf("%s %s %s: predicted %g", p.SoC, p.Model, p.Phase, p.Predicted)
			}
			t.Logf("holdout %-5q %-18s %-12s %-9s %-7s measured %8.2f predicted %8.2f %+7.1f%%", holdout, p.SoC, p.Model, p.Quant, p.Phase, p.Measured, p.Predicted, 100*p.Error)
		}
		for _, ph := range []string{PhasePrefill, TTFT, PhaseDecode} {
			t.Logf("holdout %q: %s MAPE %.1f%% over %d points", holdout, ph, 100*v.MAPE[ph], v.Phases[ph].Points)
		}
	}
	if runs["model"].MAPE[PhaseDecode] >= runs[""].MAPE[PhaseDecode] {
		t.Errorf("decode MAPE %.1f%% with each model predicted from a fit on the others, %.1f%% with no fit: the fit should help",
			100*runs["model"].MAPE[PhaseDecode], 100*runs[""].MAPE[PhaseDecode])
	}
}
