package calibrate

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/edgetwin/edgetwin/sim"
	"gonum.org/v1/gonum/mat"
)

// synthetic makes records whose values the simulator itself predicts with
// overlay truth: prefill and decode of a small model on three GPU chips of
// two bandwidths, at two weight formats.
func synthetic(t *testing.T, truth *Overlay) []Record {
	t.Helper()
	gpu := 99
	var recs []Record
	for _, soc := range []string{"../examples/calibration/apple/apple-m2-10c.yaml", "../examples/calibration/apple/apple-m1-pro-16c.yaml", "../examples/calibration/apple/apple-m1-max-32c.yaml"} {
		for _, q := range []string{"Q4_0", "F16"} {
			recs = append(recs,
				Record{Kind: KindPrefill, SoC: soc, Model: "llama-3.2-1b", Quant: q, Shape: Shape{Prompt: 128}, NGPULayers: &gpu, Unit: UnitTokensPerSecond, Source: "synthetic"},
				Record{Kind: KindDecode, SoC: soc, Model: "llama-3.2-1b", Quant: q, Shape: Shape{Gen: 16}, NGPULayers: &gpu, Unit: UnitTokensPerSecond, Source: "synthetic"})
		}
	}
	return measuredUnder(t, recs, truth)
}

// measuredUnder gives records the figures the simulator predicts for them
// under the truth overlay, as if they had been measured on chips it
// describes.
func measuredUnder(t *testing.T, recs []Record, truth *Overlay) []Record {
	t.Helper()
	pred, err := NewPredictor(sim.Analytic).Predict(context.Background(), recs, truth)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		recs[i].Value = pred[i]
	}
	return recs
}

// truthOverlay parses a known overlay for a test.
func truthOverlay(t *testing.T, yaml string) *Overlay {
	t.Helper()
	o, err := ParseOverlay("truth.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestFitRecoversKnownParameters fits records the simulator made with a
// known overlay and finds its figures again, the pooled fallbacks too:
// the GPU's scalar GEMM efficiency (which the Q4_0 model's Q6_K output
// matrix runs at) is the mean of the two fitted formats', each informed
// by three prefills, and the memory figure for other DRAM types is the one
// LPDDR5 figure.
func TestFitRecoversKnownParameters(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a few thousand simulations")
	}
	truth := truthOverlay(t, `source: the truth
params:
  - {param: gemm_efficiency, unit_kind: gpu, dtype: q4_0, value: 0.55}
  - {param: gemm_efficiency, unit_kind: gpu, dtype: f16, value: 0.72}
  - {param: gemm_efficiency, unit_kind: gpu, value: 0.635}
  - {param: seq_efficiency, memory: LPDDR5, value: 0.82}
  - {param: seq_efficiency, value: 0.82}
  - {param: dispatch, unit_kind: gpu, value: 6 us}
`)
	recs := synthetic(t, truth)
	fit, err := FitRecords(context.Background(), recs, FitOptions{Fidelity: sim.Analytic, Starts: 2, Params: []string{"gemm_efficiency", "seq_efficiency", "dispatch"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for _, p := range truth.Params {
		want[p.Key()] = p.Float()
	}
	if len(fit.Overlay.Params) != len(want) {
		t.Errorf("fitted %d parameters, want %d: %+v", len(fit.Overlay.Params), len(want), fit.Params)
	}
	for _, p := range fit.Overlay.Params {
		w, ok := want[p.Key()]
		if !ok {
			t.Errorf("fitted %s, which the truth does not have", p.Key())
			continue
		}
		if math.Abs(p.Float()/w-1) > 0.01 {
			t.Errorf("%s = %g, want %g", p.Key(), p.Float(), w)
		}
	}
	for _, r := range fit.Residuals {
		if math.Abs(r.Error) > 0.001 {
			t.Errorf("%s %s %s: residual %+.4f, want about 0", r.Record.SoC, r.Record.Quant, r.Record.Kind, r.Error)
		}
	}
}

// TestFromThetaStaysInside: however far an optimiser's step goes, a
// parameter's value stays strictly inside its range, where an overlay
// accepts it (a logistic rounding to 0 once gave a GEMV efficiency of 0,
// which the chip refused, ending the fit).
func TestFromThetaStaysInside(t *testing.T) {
	for _, d := range paramDefs {
		for _, theta := range []float64{-1e4, -745, 0, 745, 1e4} {
			v := fromTheta(&d, theta)
			if !(v > d.lo && v <= d.hi) {
				t.Errorf("%s at θ = %g: %g, outside (%g, %g]", d.name, theta, v, d.lo, d.hi)
			}
		}
	}
}

// TestToward: a second start moves an unseen parameter to where it limits
// the time: an efficiency down, an on-chip bandwidth down, an overhead up.
func TestToward(t *testing.T) {
	for _, c := range []struct {
		name       string
		from, want float64
	}{
		{"gemv_efficiency", 0.5, 0.0759},
		{"seq_efficiency", 0.7, 0.1607}, // 1/(1+e^(2.5−logit 0.7))
		{"sram_bandwidth", 400e9, 40e9},
		{"dispatch", 10e-6, 100e-6},
	} {
		d := defOf(c.name)
		got := fromTheta(d, toward(d, toTheta(d, c.from)))
		if math.Abs(got/c.want-1) > 1e-3 {
			t.Errorf("toward(%s %g) = %.4g, want %.4g", c.name, c.from, got, c.want)
		}
	}
}

// TestMatters: a DMA set-up of 0.2 ns is one the records cannot tell from
// 0.1 ns, but the default 500 ns would slow them, so a fit that ends at
// 0.2 ns must keep it in the overlay (session 4 dropped such a figure and
// a tile fit's M2 predictions fell back to the default).
func TestMatters(t *testing.T) {
	recs := synthetic(t, nil)
	d := defOf("dma_setup")
	p := &problem{ctx: context.Background(), recs: recs, info: make([]recInfo, len(recs)),
		params: []Param{{Param: "dma_setup"}}, defs: []*paramDef{d}, fast: NewPredictor(sim.Analytic), corr: make([]float64, len(recs))}
	for i := range p.corr {
		p.corr[i] = 1
	}
	theta := []float64{toTheta(d, 0.2e-9)}
	r0, err := p.residuals(theta)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		before float64
		want   bool
	}{{500e-9, true}, {0.1e-9, false}} {
		got, err := p.matters(theta, r0, 0, c.before)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("matters(0.2 ns, before %g s) = %v, want %v", c.before, got, c.want)
		}
	}
}

// TestThetaVariances: the diagonal of (JᵀJ)⁻¹ on hand-computed cases; two
// columns that only trade off get +Inf and leave the third's variance as
// it is.
func TestThetaVariances(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name string
		rows int
		J    []float64
		want []float64
	}{
		{"diagonal", 3, []float64{1, 0, 0, 2, 0, 0}, []float64{1, 0.25}},
		{"correlated", 2, []float64{1, 1, 0, 1}, []float64{2, 1}}, // JᵀJ = [[1 1] [1 2]], inverse [[2 −1] [−1 1]]
		{"collinear pair", 3, []float64{1, 1, 0, 2, 2, 0, 0, 0, 3}, []float64{inf, inf, 1.0 / 9}},
	} {
		got := thetaVariances(mat.NewDense(c.rows, len(c.want), c.J))
		for i := range c.want {
			if !(got[i] == c.want[i] || math.Abs(got[i]-c.want[i]) < 1e-9*c.want[i]) {
				t.Errorf("%s: variances %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

// TestRuntimesOf: a unit's figure lists the runtimes of the records it
// serves when there are two or more; a memory figure (the hardware's, not
// a runtime's) and a figure of one runtime list none.
func TestRuntimesOf(t *testing.T) {
	info := []recInfo{
		{phase: PhasePrefill, unitKind: "gpu", memory: "LPDDR5", formats: []string{"f16"}, runtime: RuntimeOf("Metal,BLAS")},
		{phase: PhasePrefill, unitKind: "gpu", memory: "LPDDR5X", formats: []string{"f16"}, runtime: RuntimeOf("llama.cpp OpenCL (Adreno GPU), ngl 99")},
		{phase: PhasePrefill, unitKind: "gpu", memory: "LPDDR5", formats: []string{"q4_0"}, runtime: "Metal"},
		{phase: PhasePrefill, unitKind: "npu", memory: "LPDDR5X", formats: []string{"w4a16"}, runtime: ""},
	}
	for _, c := range []struct {
		p    Param
		want []string
	}{
		{Param{Param: "gemm_efficiency", UnitKind: "gpu", Dtype: "f16"}, []string{"Metal", "llama.cpp OpenCL (Adreno GPU)"}},
		{Param{Param: "gemm_efficiency", UnitKind: "gpu", Dtype: "q4_0"}, nil},
		{Param{Param: "dispatch", UnitKind: "gpu"}, []string{"Metal", "llama.cpp OpenCL (Adreno GPU)"}},
		{Param{Param: "dispatch", UnitKind: "npu"}, nil},
		{Param{Param: "seq_efficiency", Memory: "LPDDR5"}, nil},
	} {
		if got := runtimesOf(c.p, info); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.p.Key(), got, c.want)
		}
	}
}
