package probe

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// Format is a weight storage format the probe's kernels run.
type Format int

// The formats, with GGUF's names.
const (
	F16 Format = iota
	Q8_0
	Q4_0
)

// String is the GGUF name, which is also the quantisation spec
// workloads.ParseQuant reads.
func (f Format) String() string {
	switch f {
	case F16:
		return "F16"
	case Q8_0:
		return "Q8_0"
	case Q4_0:
		return "Q4_0"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ComputeDtype is the hw/dtype name of what the kernel multiplies in: int8
// for Q4_0 and Q8_0 (the activations are quantised to Q8_0 and the dot
// products are integer), fp16 for F16 (halves widened to float32).
func (f Format) ComputeDtype() string {
	if f == F16 {
		return "fp16"
	}
	return "int8"
}

// RowBytes is the stored size of a row of k weights (k a multiple of 32).
func (f Format) RowBytes(k int) int {
	switch f {
	case Q8_0:
		return k / BlockSize * Q8_0Bytes
	case Q4_0:
		return k / BlockSize * Q4_0Bytes
	}
	return 2 * k
}

// Matrix is N rows of K weights in one format, row-major as in a GGUF
// file: row n is the weights of output n.
type Matrix struct {
	Format Format
	N, K   int
	Data   []byte   // Q8_0 and Q4_0 blocks
	Half   []uint16 // F16 weights
}

// Bytes is the stored size of the matrix.
func (m *Matrix) Bytes() int64 { return int64(m.N) * int64(m.Format.RowBytes(m.K)) }

// RandomMatrix fills an N×K matrix with random weights of standard
// deviation about scale (K a multiple of 32). Quantised formats get random
// codes and scales directly, as a real quantised model has.
func RandomMatrix(f Format, n, k int, scale float32, seed uint64) *Matrix {
	m, _ := randomMatrix(context.Background(), f, n, k, scale, seed)
	return m
}

// fillChunk is how many rows randomMatrix fills between looks at its
// context: a few MiB, a few milliseconds.
const fillChunk = 4 << 20

// randomMatrix is RandomMatrix, stopping with ctx's error when ctx ends.
func randomMatrix(ctx context.Context, f Format, n, k int, scale float32, seed uint64) (*Matrix, error) {
	if k%BlockSize != 0 || n <= 0 {
		panic(fmt.Sprintf("probe: matrix %d×%d: K must be a multiple of %d", n, k, BlockSize))
	}
	m := &Matrix{Format: f, N: n, K: k}
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	rows := max(1, fillChunk/f.RowBytes(k))
	if f == F16 {
		m.Half = make([]uint16, n*k)
	} else {
		m.Data = make([]byte, n*f.RowBytes(k))
	}
	for lo := 0; lo < n; lo += rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(n, lo+rows)
		switch f {
		case F16:
			fillNormalHalves(m.Half[lo*k:hi*k], scale, r)
		case Q8_0:
			part := m.Data[lo*f.RowBytes(k) : hi*f.RowBytes(k)]
			fillRandom(part, r)
			// int8 codes uniform in [−128, 127] have a deviation of about 74.
			setScales(part, Q8_0Bytes, scale/74, r)
		case Q4_0:
			part := m.Data[lo*f.RowBytes(k) : hi*f.RowBytes(k)]
			fillRandom(part, r)
			// Nibbles uniform in [−8, 7] have a deviation of about 4.6.
			setScales(part, Q4_0Bytes, scale/4.6, r)
		}
	}
	return m, nil
}

// fillNormalHalves fills h with normal deviates of deviation scale, drawn
// from a table of 4096 so that filling hundreds of MiB takes a moment.
func fillNormalHalves(h []uint16, scale float32, r *rand.Rand) {
	var table [4096]uint16
	for i := range table {
		table[i] = ToHalf(float32(r.NormFloat64()) * scale)
	}
	for i := 0; i < len(h); {
		v := r.Uint64()
		for j := 0; j < 5 && i < len(h); j, i = j+1, i+1 {
			h[i] = table[v>>(12*j)&4095]
		}
	}
}

func fillRandom(b []byte, r *rand.Rand) {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	for ; i < len(b); i++ {
		b[i] = byte(r.Uint32())
	}
}

// setScales writes a scale in [0.5, 1.5)·d at the start of every block.
func setScales(b []byte, blockBytes int, d float32, r *rand.Rand) {
	for i := 0; i+blockBytes <= len(b); i += blockBytes {
		h := ToHalf(d * (0.5 + r.Float32()))
		b[i], b[i+1] = byte(h), byte(h>>8)
	}
}

// Dequantize decodes row n into dst (K float32s).
func (m *Matrix) Dequantize(dst []float32, n int) {
	rb := m.Format.RowBytes(m.K)
	switch m.Format {
	case F16:
		for j, h := range m.Half[n*m.K : (n+1)*m.K] {
			dst[j] = Half(h)
		}
	case Q8_0:
		DequantizeQ8_0(dst[:m.K], m.Data[n*rb:(n+1)*rb])
	case Q4_0:
		DequantizeQ4_0(dst[:m.K], m.Data[n*rb:(n+1)*rb])
	}
}

// Activations are M rows of K inputs prepared for one weight format: as
// Q8_0 blocks for the quantised formats (what llama.cpp's CPU backend does
// before a quantised matmul), as halves for F16.
type Activations struct {
	Format Format
	M, K   int
	Data   []byte
	Half   []uint16
}

// Prepare converts x (M rows of K) for weights of format f, reusing a's
// buffers.
func (a *Activations) Prepare(f Format, x []float32, m, k int) {
	a.Format, a.M, a.K = f, m, k
	if f == F16 {
		a.Half = grow(a.Half, m*k)
		for i, v := range x[:m*k] {
			a.Half[i] = ToHalf(v)
		}
		return
	}
	rb := Q8_0.RowBytes(k)
	a.Data = grow(a.Data, m*rb)
	for i := range m {
		QuantizeQ8_0(a.Data[i*rb:(i+1)*rb], x[i*k:(i+1)*k])
	}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// dot is the product of weight row n and activation row i.
func (m *Matrix) dot(n int, a *Activations, i int) float32 {
	k := m.K
	switch m.Format {
	case F16:
		return DotF16(m.Half[n*k:(n+1)*k], a.Half[i*k:(i+1)*k])
	case Q8_0:
		rb, ab := Q8_0.RowBytes(k), Q8_0.RowBytes(k)
		return DotQ8_0Q8_0(m.Data[n*rb:(n+1)*rb], a.Data[i*ab:(i+1)*ab])
	default:
		rb, ab := Q4_0.RowBytes(k), Q8_0.RowBytes(k)
		return DotQ4_0Q8_0(m.Data[n*rb:(n+1)*rb], a.Data[i*ab:(i+1)*ab])
	}
}

// cancelEvery is how many weight rows a kernel computes between looks at
// its context, so a cancelled probe stops within milliseconds.
const cancelEvery = 256

// MatMul computes dst[i·N+n] = Σ_k a[i][k]·w[n][k] for the M rows of a,
// with the weight rows split evenly over threads goroutines (llama.cpp
// splits a matmul's rows over its thread pool the same way). Each weight
// row is used for all M activation rows while it is in cache. It returns
// ctx's error if ctx ends first.
func MatMul(ctx context.Context, dst []float32, w *Matrix, a *Activations, threads int) error {
	if a.Format != w.Format || a.K != w.K {
		panic(fmt.Sprintf("probe: activations %v×%d for weights %v×%d", a.Format, a.K, w.Format, w.K))
	}
	return parallelRows(ctx, w.N, threads, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			for i := range a.M {
				dst[i*w.N+n] = w.dot(n, a, i)
			}
		}
	})
}

// parallelRows runs body over [0, n) in at most threads contiguous shares,
// each cut into chunks of cancelEvery rows between context checks.
func parallelRows(ctx context.Context, n, threads int, body func(lo, hi int)) error {
	threads = max(1, min(threads, n))
	done := ctx.Done()
	run := func(lo, hi int) {
		for c := lo; c < hi; c += cancelEvery {
			select {
			case <-done:
				return
			default:
			}
			body(c, min(hi, c+cancelEvery))
		}
	}
	if threads == 1 {
		run(0, n)
		return ctx.Err()
	}
	var wg sync.WaitGroup
	for t := range threads {
		lo, hi := n*t/threads, n*(t+1)/threads
		wg.Go(func() { run(lo, hi) })
	}
	wg.Wait()
	return ctx.Err()
}

// ReferenceMatMul is the plain float64 product of a (M×K) and the decoded
// weights, the yardstick of the kernels' tests.
func ReferenceMatMul(w *Matrix, x []float64, m int) []float64 {
	out := make([]float64, m*w.N)
	row := make([]float32, w.K)
	for n := range w.N {
		w.Dequantize(row, n)
		for i := range m {
			var s float64
			for k, v := range row {
				s += float64(v) * x[i*w.K+k]
			}
			out[i*w.N+n] = s
		}
	}
	return out
}

// Ops is the arithmetic of an M×N×K matrix product, 2 per multiply-add.
func Ops(m, n, k int) float64 { return 2 * float64(m) * float64(n) * float64(k) }

func isFinite32(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }
