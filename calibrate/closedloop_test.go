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
// measures the memory system, the Q4_0 GEMV and Q8_0 GEMM kernels and the
// reference decoder at three sizes; the probe writes a chip file for the
// host; a fit calibrates it on the kernel records alone; and the
// calibrated twin predicts the decoders' tokens/s — models the fit never
// saw — against their measured medians.
func TestClosedLoopHost(t *testing.T) {
	// Seven rounds take about 90 s here; on a slower or busier machine the
	// rounds stop once 100 s are spent (three at least), which keeps the
	// test inside the 3 minutes.
	const (
		maxRounds, minRounds = 7, 3
		roundsBudget         = 100 * time.Second
	)
	if testing.Short() {
		t.Skip("measures this machine for a minute and a half")
	}
	// On one core, fitted on kernel medians (GEMV, GEMM and DRAM
	// efficiency; fitting the dispatch cost too, from just two GEMV
	// sizes, swung it between 0 and 190 µs with the noise and the error to
	// +35%), decoder-m came out at +1.9%, −4.9%, −7.3%, −14.5%, −2.4% and
	// +3.9% over five rounds in session 3, −18% to +46% on both cores. In
	// session 4, seven rounds, the median over the three decoders: −0.3%,
	// +2.4%, −1.8%, −10.5%, +4.4%, −0.4%, +2.3% run alone, −12.8% and
	// +19.9% with other tests running beside it. scripts/test therefore
	// runs it alone, after the others.
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	chip := filepath.Join(dir, "host.yaml")
	// One core of this machine: the probe's kernels and decoders on one
	// thread, and a chip file of one core. On a shared machine a kernel
	// on every core waits for whichever core a neighbour holds; one
	// thread leaves the others to absorb that.
	host := probe.Inspect()
	host.Cores = 1
	var recs []calibrate.Record
	measure := func(steps ...string) {
		opts := probe.Options{Quick: true, SoC: chip, Steps: steps, Threads: 1, Host: &host}
		if err := probe.Run(ctx, opts, func(r calibrate.Record) error { recs = append(recs, r); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// The memory once, for the chip file; then the kernels and decoders
	// in rounds, so that each figure is a median over moments of this
	// shared machine rather than one moment's luck.
	measure("bandwidth", "latency", "random_read")
	for round := 0; round < maxRounds && (round < minRounds || time.Since(start) < roundsBudget); round++ {
		measure("gemv-q4_0", "gemm-q8_0", "decoder-s", "decoder-m", "decoder-l")
	}
	recs = medianOver(recs)
	soc, err := probe.EmitSoC(host, recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(chip, soc, 0o644); err != nil {
		t.Fatal(err)
	}
	var fitOn, held []calibrate.Record
	for _, r := range recs {
		switch {
		case r.Kind == calibrate.KindGEMV || r.Kind == calibrate.KindGEMM:
			fitOn = append(fitOn, r)
		case r.Kind == calibrate.KindDecoder && r.Shape.Depth == 0:
			held = append(held, r)
		}
	}
	if len(fitOn) < 2 || len(held) == 0 {
		t.Fatalf("the probe gave %d kernel records to fit and %d decoder records to predict", len(fitOn), len(held))
	}
	fit, err := calibrate.FitRecords(ctx, fitOn, calibrate.FitOptions{Fidelity: sim.Analytic, Params: []string{"gemv_efficiency", "gemm_efficiency", "seq_efficiency"}, Source: "closed loop"})
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
		t.Logf("%s %s: measured %.2f tokens/s, predicted %.2f, error %+.1f%%", p.Model, p.Quant, p.Measured, p.Predicted, 100*p.Error)
	}
	for _, r := range fit.Residuals {
		t.Logf("fit on %s (%d threads, %d×%d×%d): measured %.4g, fitted %.4g (%+.1f%%)", r.Record.Kernel, r.Record.Threads, r.Record.Shape.M, r.Record.Shape.N, r.Record.Shape.K, r.Measured, r.Predicted, 100*r.Error)
	}
	for _, u := range fit.Skipped {
		t.Logf("not fitted: %s", u.Reason)
	}
	for _, p := range fit.Params {
		t.Logf("fitted %s %s %s %s = %s ± %s (from %.4g; identified %v)", p.Param.Param, p.UnitKind, p.Dtype, p.Memory, p.Value, p.Stderr, p.Before, p.Identified)
	}
	sort.Float64s(errs)
	median := errs[len(errs)/2]
	t.Logf("closed loop in %s, %d rounds: decoder error %+.1f%% (median of %d records the fit never saw)", time.Since(start).Round(time.Second), held[0].Reps, 100*median, len(errs))
	if math.Abs(median) > 0.15 {
		t.Errorf("held-out decoder predicted %+.1f%% off; want within 15%%", 100*median)
	}
}

// medianOver merges the records of one measurement taken in several
// rounds (same kind, kernel, model, shape and threads) into one whose
// value is the median of theirs, in first-seen order.
func medianOver(recs []calibrate.Record) []calibrate.Record {
	type key struct {
		kind          calibrate.Kind
		kernel, model string
		shape         calibrate.Shape
		threads       int
	}
	var order []key
	values := map[key][]float64{}
	first := map[key]calibrate.Record{}
	for _, r := range recs {
		k := key{r.Kind, r.Kernel, r.Model, r.Shape, r.Threads}
		if _, ok := first[k]; !ok {
			order = append(order, k)
			first[k] = r
		}
		values[k] = append(values[k], r.Value)
	}
	out := make([]calibrate.Record, 0, len(order))
	for _, k := range order {
		r, v := first[k], values[k]
		sort.Float64s(v)
		r.Value, r.Reps = v[len(v)/2], len(v)
		out = append(out, r)
	}
	return out
}
