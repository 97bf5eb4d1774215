package probe

import (
	"context"
	"testing"
)

// BenchmarkGEMV runs each format's GEMV on one thread with weights that
// fit in the L2 (1 MiB or less) and reports ops/s (2·N·K per product) and
// weight bytes/s, so the formats can be compared with each other and with
// the read bandwidth of BenchmarkRead.
func BenchmarkGEMV(b *testing.B) {
	const k = 1024
	for _, f := range []Format{F16, Q8_0, Q4_0} {
		n := (1 << 20) / f.RowBytes(k)
		w := RandomMatrix(f, n, k, 0.02, 1)
		x := randomVector(k, 2)
		var a Activations
		dst := make([]float32, n)
		b.Run(f.String(), func(b *testing.B) {
			for b.Loop() {
				a.Prepare(f, x, 1, k)
				if err := MatMul(context.Background(), dst, w, &a, 1); err != nil {
					b.Fatal(err)
				}
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(Ops(1, n, k)*float64(b.N)/sec, "ops/s")
			b.ReportMetric(float64(w.Bytes())*float64(b.N)/sec, "B/s")
		})
	}
}

// BenchmarkRead is the sequential read kernel over 1 MiB (in the L2).
func BenchmarkRead(b *testing.B) {
	buf := make([]uint64, (1<<20)/8)
	for b.Loop() {
		readParallel(buf, 1)
	}
	b.ReportMetric(float64(8*len(buf))*float64(b.N)/b.Elapsed().Seconds(), "B/s")
}
