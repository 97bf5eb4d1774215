package hw

import (
	"math"
	"testing"

	"github.com/edgetwin/edgetwin/hw/dtype"
	"github.com/edgetwin/edgetwin/hw/units"
)

func TestGEMVOnWeightStationaryArray(t *testing.T) {
	c, err := LoadChip("seed-a", nil)
	if err != nil {
		t.Fatal(err)
	}
	npu := c.Unit("npu")
	// 30 TOPS int8 at 1 GHz is 15000 MACs/cycle; with R = 32 rows the array
	// is 32 × 468 (floor of 15000/32). A 4096 × 4096 GEMV (M = 1) needs
	// ceil(4096/32) × ceil(4096/468) = 128 × 9 = 1152 weight blocks of
	// max(R, M) = 32 cycles each, plus R + C = 500 fill:
	// 1152 × 32 + 500 = 37364 cycles = 37.364 µs.
	got := npu.MatmulSeconds(1, 4096, 4096, dtype.INT8, 0)
	if math.Abs(got-37.364e-6) > 1e-12 {
		t.Errorf("GEMV %.9f s, want 37.364 µs", got)
	}
	// The same product with 512 rows reuses each weight block 512 times:
	// 1152 × 512 + 500 cycles, divided by the 0.8 GEMM efficiency.
	got = npu.MatmulSeconds(512, 4096, 4096, dtype.INT8, 0)
	if want := (1152*512 + 500) / 1e9 / 0.8; math.Abs(got-want) > 1e-12 {
		t.Errorf("GEMM %.9f s, want %.9f", got, want)
	}
	// Half the clock doubles the time.
	if half := npu.MatmulSeconds(1, 4096, 4096, dtype.INT8, 0.5e9); math.Abs(half-2*37.364e-6) > 1e-12 {
		t.Errorf("at 500 MHz: %.9f s", half)
	}
}

func TestGPUAndCPURunAtPeakTimesEfficiency(t *testing.T) {
	u := &Unit{Kind: GPU, Peak: map[dtype.Dtype]units.OpsPerSecond{dtype.FP16: 4e12}, Clock: 1e9, GEMMEfficiency: 0.6, GEMVEfficiency: 0.5}
	// 2·M·N·K = 2 × 1 × 4096 × 4096 ops at 4 TFLOPS × 0.5 (GEMV).
	if got, want := u.MatmulSeconds(1, 4096, 4096, dtype.FP16, 0), 2*4096*4096/(4e12*0.5); math.Abs(got-want) > 1e-15 {
		t.Errorf("GPU GEMV %g s, want %g", got, want)
	}
	if got, want := u.MatmulSeconds(64, 4096, 4096, dtype.FP16, 0), 2*64*4096*4096/(4e12*0.6); math.Abs(got-want) > 1e-15 {
		t.Errorf("GPU GEMM %g s, want %g", got, want)
	}
}

func TestEfficiencyByFormat(t *testing.T) {
	u := &Unit{Kind: GPU, Peak: map[dtype.Dtype]units.OpsPerSecond{dtype.FP16: 4e12}, Clock: 1e9, GEMMEfficiency: 0.6, GEMVEfficiency: 0.5,
		GEMVEfficiencyBy: map[string]units.Fraction{"q4_0": 0.25}, GEMMEfficiencyBy: map[string]units.Fraction{"f16": 0.8}}
	for _, tc := range []struct {
		m      int
		format string
		want   float64
	}{
		{1, "q4_0", 0.25}, // listed: overrides the scalar GEMV efficiency
		{1, "q8_0", 0.5},  // not listed: the scalar
		{1, "", 0.5},      // no weights: the scalar
		{64, "q4_0", 0.6}, // a GEMM ignores the GEMV map
		{64, "f16", 0.8},
	} {
		if got := u.Efficiency(tc.m, tc.format); got != tc.want {
			t.Errorf("m=%d %q: efficiency %g, want %g", tc.m, tc.format, got, tc.want)
		}
	}
	// Half the efficiency, twice the time: 2 × 4096² ops at 4 TFLOPS × 0.25.
	if got, want := u.MatmulSecondsFor(1, 4096, 4096, dtype.FP16, 0, "q4_0"), 2*4096*4096/(4e12*0.25); math.Abs(got-want) > 1e-15 {
		t.Errorf("Q4_0 GEMV %g s, want %g", got, want)
	}
}

func TestComputeDtype(t *testing.T) {
	u := &Unit{Peak: map[dtype.Dtype]units.OpsPerSecond{dtype.INT4: 90e12, dtype.INT8: 45e12, dtype.FP16: 11e12}}
	for act, want := range map[dtype.Dtype]dtype.Dtype{dtype.INT8: dtype.INT8, dtype.FP16: dtype.FP16, dtype.INT4: dtype.INT4} {
		if got, ok := u.ComputeDtype(act); !ok || got != want {
			t.Errorf("activations %s: compute in %s, want %s", act, got, want)
		}
	}
	gpu := &Unit{Peak: map[dtype.Dtype]units.OpsPerSecond{dtype.FP16: 4e12, dtype.FP32: 2e12}}
	// Q4_0 activations are int8; a GPU with only float peaks computes in fp16 (CONTRACT.md).
	if got, _ := gpu.ComputeDtype(dtype.INT8); got != dtype.FP16 {
		t.Errorf("GPU computes int8 work in %s, want fp16", got)
	}
	if _, ok := gpu.ComputeDtype("fp64"); ok {
		t.Error("no dtype at or above an unknown one")
	}
}
