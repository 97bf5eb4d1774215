package calibrate_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/calibrate/probe"
	"github.com/edgetwin/edgetwin/sim"
)

// TestClosedLoopHost closes the loop on this machine: a quick probe
// measures the memory system and the reference decoder at three sizes,
// the probe writes a chip file for the host, a fit calibrates it on the
// small and large decoders, and the calibrated twin predicts the middle
// decoder's tokens/s, which the fit never saw, against its measured
// median. The fit uses the decoders' decode rates, not the GEMV/GEMM
// records: calibrate fit predicts model runs only (kernel records are
// skipped with a reason), so this is the closest loop the fitter closes.
func TestClosedLoopHost(t *testing.T) {
	if testing.Short() {
		t.Skip("measures this machine for about a minute")
	}
	// On a shared 2-core machine three runs gave −9.9%, −10.6% and +31.9%:
	// the quick probe's two repetitions are too noisy for CI to hold 15%,
	// so the loop runs when asked for (scripts/test does not, yet).
	if os.Getenv("EDGETWIN_CLOSED_LOOP") == "" {
		t.Skip("set EDGETWIN_CLOSED_LOOP=1 to run: its quick measurements are still too noisy for CI")
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	chip := filepath.Join(dir, "host.yaml")
	opts := probe.Options{Quick: true, SoC: chip, Steps: []string{"bandwidth", "latency", "random_read", "gemv-q4_0", "decoder-s", "decoder-m", "decoder-l"}}
	var recs []calibrate.Record
	if err := probe.Run(ctx, opts, func(r calibrate.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	soc, err := probe.EmitSoC(probe.Inspect(), recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(chip, soc, 0o644); err != nil {
		t.Fatal(err)
	}
	var fitOn, held []calibrate.Record
	for _, r := range recs {
		if r.Kind != calibrate.KindDecoder || r.Shape.Depth != 0 {
			continue
		}
		r.Kind = calibrate.KindDecode // a decoder run is a model's decode
		if r.Model == "probe-decoder-m" {
			held = append(held, r)
		} else {
			fitOn = append(fitOn, r)
		}
	}
	if len(fitOn) < 2 || len(held) == 0 {
		t.Fatalf("the probe gave %d decoder records to fit and %d to predict", len(fitOn), len(held))
	}
	fit, err := calibrate.FitRecords(ctx, fitOn, calibrate.FitOptions{Fidelity: sim.Analytic, Params: []string{"gemv_efficiency", "seq_efficiency"}, Source: "closed loop"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := calibrate.Validate(ctx, held, calibrate.ValidateOptions{Overlay: fit.Overlay, Fidelity: sim.Analytic})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Points) == 0 {
		t.Fatalf("nothing predicted: %+v", v.Skipped)
	}
	var errs []float64
	for _, p := range v.Points {
		errs = append(errs, p.Error)
		t.Logf("%s %s (threads as measured): measured %.2f tokens/s, predicted %.2f, error %+.1f%%", p.Model, p.Quant, p.Measured, p.Predicted, 100*p.Error)
	}
	for _, p := range fit.Params {
		t.Logf("fitted %s %s %s %s = %s ± %s (from %.4g; identified %v)", p.Param.Param, p.UnitKind, p.Dtype, p.Memory, p.Value, p.Stderr, p.Before, p.Identified)
	}
	sort.Float64s(errs)
	median := errs[len(errs)/2]
	t.Logf("closed loop in %s: held-out decoder error %+.1f%% (median of %d records)", time.Since(start).Round(time.Second), 100*median, len(errs))
	if math.Abs(median) > 0.15 {
		t.Errorf("held-out decoder predicted %+.1f%% off; want within 15%%", 100*median)
	}
}
