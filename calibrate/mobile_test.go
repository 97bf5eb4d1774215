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

// maxHoldoutDecodeMAPE bounds the decode error of a model predicted from
// a fit on the other phone models. It was 19.3% when the public profiles
// were installed (2026-12-03); the margin allows a refit to move it, not
// a regression to double it.
const maxHoldoutDecodeMAPE = 0.25

// TestMobileRecords predicts every phone record with the catalog as it
// ships, then each model from a fit on the other models (validate
// --holdout model), and prints both tables. The shipped runtime profiles
// were fitted on examples/public, which carries these same rows, so the
// first table is in-sample and the second is the cost of generalising to
// a model the fit never saw. It holds that every record is predicted
// (none skipped, every figure finite and positive), that in-sample beats
// out-of-sample on decode (if it does not, the shipped profiles are not
// the fit of the public rows), and that the hold-out decode error stays
// below maxHoldoutDecodeMAPE.
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
	in, out := runs[""].MAPE[PhaseDecode], runs["model"].MAPE[PhaseDecode]
	if in >= out {
		t.Errorf("decode MAPE %.1f%% with the shipped profiles, %.1f%% with each model fitted on the others: the shipped fit includes these rows and should do better",
			100*in, 100*out)
	}
	if out > maxHoldoutDecodeMAPE {
		t.Errorf("decode MAPE %.1f%% with each model fitted on the others, above %.0f%%", 100*out, 100*maxHoldoutDecodeMAPE)
	}
}
