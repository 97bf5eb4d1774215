package calibrate

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/sim"
)

// truthRuntime is RKLLM with known figures: the records of
// TestRuntimeFitTravels are what it predicts.
const truthRuntime = `name: RKLLM with known figures
units: [npu]
vendors: [Rockchip]
formats: [INT8, W4A16]
quant: INT8
graph: compiled
dispatch: 200 us
efficiency:
  gemm: {int8: 0.1}
  memory: 0.6
basis: the truth of a test
`

// TestRuntimeFitTravels fits a runtime's figures on one chip's records
// (calibrate fit --runtime) and runs the profile it writes on another chip
// of the family: the RK3576's records come back within 1%, and the RK3588,
// which no record measured, is predicted within 2% of what the true
// figures give there — the fit is the runtime's, not the chip's.
func TestRuntimeFitTravels(t *testing.T) {
	dir := t.TempDir()
	truth := filepath.Join(dir, "truth.yaml")
	if err := os.WriteFile(truth, []byte(truthRuntime), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir("..")
	recsOn := func(soc, runtime string) []Record {
		var recs []Record
		for _, m := range []string{"llama-3.2-1b", "llama-3.2-3b"} {
			recs = append(recs,
				Record{Kind: KindPrefill, SoC: soc, Model: m, Quant: "INT8", Shape: Shape{Prompt: 128}, Runtime: runtime, Unit: UnitSeconds, Source: "synthetic"},
				Record{Kind: KindDecode, SoC: soc, Model: m, Quant: "INT8", Shape: Shape{Gen: 64}, Runtime: runtime, Unit: UnitTokensPerSecond, Source: "synthetic"})
		}
		return recs
	}
	measured := measuredUnder(t, recsOn("rk3576", truth), nil)
	fit, err := FitRecords(context.Background(), measured, FitOptions{Runtime: truth, Fidelity: sim.Analytic, Starts: 1})
	if err != nil {
		t.Fatal(err)
	}
	prof := fit.Profile("synthetic.jsonl")
	data, err := prof.Encode()
	if err != nil {
		t.Fatal(err)
	}
	fitted := filepath.Join(dir, "fitted.yaml")
	if err := os.WriteFile(fitted, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runtimes.Load(fitted); err != nil {
		t.Fatalf("the profile the fit wrote does not load: %v\n%s", err, data)
	}
	if !strings.Contains(prof.Basis, "4 records") || !strings.Contains(prof.Sources["efficiency.gemm.int8"], "calibrated: synthetic.jsonl") {
		t.Errorf("basis %q, gemm source %q: want the records it rests on", prof.Basis, prof.Sources["efficiency.gemm.int8"])
	}
	for _, c := range []struct {
		soc string
		tol float64
	}{{"rk3576", 0.01}, {"rk3588", 0.02}} {
		want := measuredUnder(t, recsOn(c.soc, truth), nil)
		got := measuredUnder(t, recsOn(c.soc, fitted), nil)
		for i := range want {
			if e := got[i].Value/want[i].Value - 1; math.Abs(e) > c.tol {
				t.Errorf("%s %s %s: fitted profile %.4g, true figures %.4g (%+.1f%%), want within %.0f%%", c.soc, want[i].Model, want[i].Kind, got[i].Value, want[i].Value, 100*e, 100*c.tol)
			}
		}
	}
}
