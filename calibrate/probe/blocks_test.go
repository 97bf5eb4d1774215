package probe

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func TestHalf(t *testing.T) {
	for _, c := range []struct {
		f float32
		h uint16
	}{
		{1, 0x3c00}, {0.5, 0x3800}, {-2, 0xc000}, {0, 0}, {65504, 0x7bff},
		{0.25, 0x3400},
		{float32(math.Ldexp(1, -24)), 0x0001}, // smallest subnormal
		{float32(math.Ldexp(1, -14)), 0x0400}, // smallest normal
		{2049, 0x6800},                        // a tie: rounds to even 2048
		{2051, 0x6802},                        // a tie: rounds to even 2052
		{65520, 0x7c00},                       // rounds up to infinity
		{float32(math.Inf(-1)), 0xfc00},
	} {
		if got := ToHalf(c.f); got != c.h {
			t.Errorf("ToHalf(%v) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
	// Every finite half survives the round trip.
	for h := range 1 << 16 {
		f := Half(uint16(h))
		if math.IsNaN(float64(f)) {
			continue
		}
		if got := ToHalf(f); got != uint16(h) {
			t.Fatalf("ToHalf(Half(%#04x) = %v) = %#04x", h, f, got)
		}
	}
}

// TestQ4_0Layout decodes a hand-built block: d = 0.5 (half 0x3800), byte j
// = j | (15−j)<<4, so weight j is (j−8)·0.5 and weight j+16 is (7−j)·0.5.
func TestQ4_0Layout(t *testing.T) {
	blk := make([]byte, Q4_0Bytes)
	blk[0], blk[1] = 0x00, 0x38
	for j := range 16 {
		blk[2+j] = byte(j) | byte(15-j)<<4
	}
	got := make([]float32, BlockSize)
	DequantizeQ4_0(got, blk)
	for j := range 16 {
		if want := float32(j-8) * 0.5; got[j] != want {
			t.Errorf("weight %d = %v, want %v", j, got[j], want)
		}
		if want := float32(7-j) * 0.5; got[j+16] != want {
			t.Errorf("weight %d = %v, want %v", j+16, got[j+16], want)
		}
	}
	// Quantising the decoded values gives the block back, byte for byte:
	// the largest magnitude is −4 = −8·d, so d = 0.5 exactly.
	again := make([]byte, Q4_0Bytes)
	QuantizeQ4_0(again, got)
	if string(again) != string(blk) {
		t.Errorf("QuantizeQ4_0 = % x, want % x", again, blk)
	}
}

// TestQ8_0Layout decodes a hand-built block: d = 0.25 (0x3400), q_j = 8j − 128.
func TestQ8_0Layout(t *testing.T) {
	blk := make([]byte, Q8_0Bytes)
	blk[0], blk[1] = 0x00, 0x34
	for j := range BlockSize {
		blk[2+j] = byte(int8(8*j - 128))
	}
	got := make([]float32, BlockSize)
	DequantizeQ8_0(got, blk)
	for j := range BlockSize {
		if want := float32(8*j-128) * 0.25; got[j] != want {
			t.Errorf("weight %d = %v, want %v", j, got[j], want)
		}
	}
	// x = 127·0.5 at element 3 sets d = 0.5; the others round half away
	// from zero: 0.75/0.5 = 1.5 → 2, −0.75/0.5 → −2.
	x := make([]float32, BlockSize)
	x[3], x[4], x[5] = 63.5, 0.75, -0.75
	QuantizeQ8_0(blk, x)
	if d := Half(uint16(blk[0]) | uint16(blk[1])<<8); d != 0.5 {
		t.Errorf("d = %v, want 0.5", d)
	}
	if q := []int8{int8(blk[5]), int8(blk[6]), int8(blk[7])}; q[0] != 127 || q[1] != 2 || q[2] != -2 {
		t.Errorf("codes = %v, want [127 2 -2]", q)
	}
}

// TestDots checks each kernel's dot product against float64 sums of the
// decoded operands: they differ only by float32 accumulation.
func TestDots(t *testing.T) {
	const k = 256
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, k)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	for _, f := range []Format{F16, Q8_0, Q4_0} {
		w := RandomMatrix(f, 3, k, 0.1, 7)
		var a Activations
		a.Prepare(f, x, 1, k)
		ad := make([]float32, k)
		if f == F16 {
			for i, h := range a.Half {
				ad[i] = Half(h)
			}
		} else {
			DequantizeQ8_0(ad, a.Data)
		}
		wd := make([]float32, k)
		for n := range w.N {
			w.Dequantize(wd, n)
			var want float64
			for i := range k {
				want += float64(wd[i]) * float64(ad[i])
			}
			got := float64(w.dot(n, &a, 0))
			if math.Abs(got-want) > 1e-5*(1+math.Abs(want)) {
				t.Errorf("%v row %d: dot %v, want %v", f, n, got, want)
			}
		}
	}
}

// TestMatMul compares every kernel, one and three threads, GEMV and GEMM,
// with the float64 product of the decoded weights and the unquantised
// activations. The error bound is the activation quantisation's: Q8_0
// rounds each input by at most d/2 = max|x|/254 of its block, F16 by 2^-11
// relative.
func TestMatMul(t *testing.T) {
	const n, k = 37, 320 // rows not a multiple of the thread count
	r := rand.New(rand.NewPCG(3, 4))
	for _, f := range []Format{F16, Q8_0, Q4_0} {
		w := RandomMatrix(f, n, k, 0.05, 11)
		for _, m := range []int{1, 5} {
			x := make([]float32, m*k)
			x64 := make([]float64, m*k)
			for i := range x {
				x[i] = float32(r.NormFloat64())
				x64[i] = float64(x[i])
			}
			want := ReferenceMatMul(w, x64, m)
			for _, threads := range []int{1, 3} {
				var a Activations
				a.Prepare(f, x, m, k)
				got := make([]float32, m*n)
				if err := MatMul(context.Background(), got, w, &a, threads); err != nil {
					t.Fatal(err)
				}
				for i := range got {
					tol := quantBound(w, x, i/n, i%n, k)
					if d := math.Abs(float64(got[i]) - want[i]); d > tol || !isFinite32(got[i]) {
						t.Fatalf("%v m=%d threads=%d: out[%d] = %v, want %v (tolerance %g)", f, m, threads, i, got[i], want[i], tol)
					}
				}
			}
		}
	}
}

func TestMatMulCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := RandomMatrix(Q4_0, 4*cancelEvery, 64, 0.1, 1)
	var a Activations
	a.Prepare(Q4_0, make([]float32, 64), 1, 64)
	dst := make([]float32, w.N)
	if err := MatMul(ctx, dst, w, &a, 2); err != context.Canceled {
		t.Fatalf("MatMul on a cancelled context = %v, want context.Canceled", err)
	}
}

// quantBound is the most the quantised activations can move output (row,
// col): Σ_k |w_k|·δ_k with δ_k = max|x| of k's block / 254 for Q8_0 (half
// a step of d = max/127) or |x_k|·2^-11 for F16, plus float32 rounding.
func quantBound(w *Matrix, x []float32, row, col, k int) float64 {
	wd := make([]float32, k)
	w.Dequantize(wd, col)
	var b, mag float64
	for j := range k {
		xv := float64(x[row*k+j])
		var delta float64
		if w.Format == F16 {
			delta = math.Abs(xv) / 2048
		} else {
			var bmax float64
			for _, v := range x[row*k+j/BlockSize*BlockSize : row*k+(j/BlockSize+1)*BlockSize] {
				bmax = max(bmax, math.Abs(float64(v)))
			}
			delta = bmax/254 + bmax/127/1024 // and d itself rounded to a half
		}
		b += math.Abs(float64(wd[j])) * delta
		mag += math.Abs(float64(wd[j]) * xv)
	}
	return b + 1e-5*mag
}
