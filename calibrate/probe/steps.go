package probe

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/edgetwin/edgetwin/calibrate"
	"github.com/edgetwin/edgetwin/workloads"
)

// workingSets is the sizes of the bandwidth and latency curves: from 4 KiB
// to the largest working set, perOctave a doubling, each a multiple of 512
// bytes, the largest always included.
func workingSets(maxSet int64, perOctave int) []int64 {
	var out []int64
	for i := 0; ; i++ {
		n := int64(float64(minSet)*math.Pow(2, float64(i)/float64(perOctave))) &^ 511
		if n >= maxSet {
			break
		}
		if len(out) == 0 || n > out[len(out)-1] {
			out = append(out, n)
		}
	}
	return append(out, maxSet)
}

func (r *runner) bandwidth(ctx context.Context) error {
	perOctave := 2
	if r.opts.Quick {
		perOctave = 1
	}
	buf, err := r.buffer(ctx)
	if err != nil {
		return err
	}
	tm := r.timing(timing{reps: 5, minRep: 20 * time.Millisecond}, timing{reps: 3, minRep: 5 * time.Millisecond})
	sets := workingSets(r.maxSet, perOctave)
	for i, n := range sets {
		threads := []int{1}
		if i >= len(sets)-3 && r.threads > 1 { // the sizes at and beyond the LLC
			threads = append(threads, r.threads)
		}
		for _, th := range threads {
			st := stream{n: int(n / 8)}
			s, err := rates(ctx, tm, func() (float64, error) {
				lo, hi := st.chunk()
				return readParallel(buf[lo:hi], th), nil
			})
			if err != nil {
				return err
			}
			rec := r.record(calibrate.KindBandwidth, calibrate.UnitBytesPerSecond)
			rec.Kernel, rec.Threads, rec.Shape.Bytes = "read_sequential", th, n
			rec.Notes = "sum of 8-byte words read in order, 8 independent accumulators; median of the repetitions"
			if err := r.put(rec, s); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *runner) latency(ctx context.Context) error {
	perOctave := 1
	maxSet := r.maxSet
	tm := r.timing(timing{reps: 5, minRep: 20 * time.Millisecond}, timing{reps: 3, minRep: 5 * time.Millisecond})
	if r.opts.Quick {
		maxSet = max(maxSet/2, 1<<20) // linking the largest buffer at random takes seconds
	}
	line := 64
	if c := r.host.LLC(); c.Line >= 8 {
		line = c.Line
	}
	buf, err := r.buffer(ctx)
	if err != nil {
		return err
	}
	const loads = 1 << 14
	sets := workingSets(maxSet, perOctave)
	if r.opts.Quick {
		sets = everyOther(sets)
	}
	for _, n := range sets {
		b := buf[:n/8]
		if err := chain(ctx, b, line, uint64(n)); err != nil {
			return err
		}
		s, err := rates(ctx, tm, func() (float64, error) { return chase(b, loads), nil })
		if err != nil {
			return err
		}
		for i, v := range s {
			s[i] = 1 / v // loads per second to seconds per load
		}
		rec := r.record(calibrate.KindLatency, calibrate.UnitSeconds)
		rec.Kernel, rec.Threads, rec.Shape.Bytes = "pointer_chase", 1, n
		rec.Notes = fmt.Sprintf("dependent loads over one random cycle through every %d-byte line; seconds per load, median of the repetitions; 4 KiB pages, so TLB misses are included at large sizes", line)
		if err := r.put(rec, s); err != nil {
			return err
		}
	}
	return nil
}

// everyOther keeps every second size and the last.
func everyOther(s []int64) []int64 {
	var out []int64
	for i, v := range s {
		if i%2 == 0 || i == len(s)-1 {
			out = append(out, v)
		}
	}
	return out
}

func (r *runner) randomRead(ctx context.Context) error {
	buf, err := r.buffer(ctx)
	if err != nil {
		return err
	}
	tm := r.timing(timing{reps: 5, minRep: 50 * time.Millisecond}, timing{reps: 3, minRep: 20 * time.Millisecond})
	for _, random := range []bool{false, true} {
		br := newBlockReader(buf, random, 5)
		s, err := rates(ctx, tm, func() (float64, error) { return br.read(), nil })
		if err != nil {
			return err
		}
		rec := r.record(calibrate.KindRandomRead, calibrate.UnitBytesPerSecond)
		rec.Kernel, rec.Threads, rec.Shape.Bytes = "sequential_4k", 1, blockBytes
		order := "in address order"
		if random {
			rec.Kernel, order = "random_4k", "in a random order, each once per pass,"
		}
		rec.Notes = fmt.Sprintf("4 KiB blocks read %s from a %s buffer (%s); median of the repetitions", order, mib(int64(8*len(buf))), r.llcRatio(int64(8*len(buf))))
		if err := r.put(rec, s); err != nil {
			return err
		}
	}
	return nil
}

// llcRatio says how a size compares with the LLC.
func (r *runner) llcRatio(n int64) string {
	llc := r.host.LLC().Bytes
	if llc == 0 {
		return "LLC size unknown"
	}
	return fmt.Sprintf("%.3g× the %s LLC", float64(n)/float64(llc), mib(llc))
}

func (r *runner) memcpy(ctx context.Context) error {
	buf, err := r.buffer(ctx)
	if err != nil {
		return err
	}
	half := len(buf) / 2
	src, dst := buf[:half], buf[half:2*half]
	tm := r.timing(timing{reps: 5, minRep: 50 * time.Millisecond}, timing{reps: 3, minRep: 20 * time.Millisecond})
	for _, th := range r.threadCounts() {
		st := stream{n: half}
		s, err := rates(ctx, tm, func() (float64, error) {
			lo, hi := st.chunk()
			return copyParallel(dst[lo:hi], src[lo:hi], th), nil
		})
		if err != nil {
			return err
		}
		rec := r.record(calibrate.KindMemcpy, calibrate.UnitBytesPerSecond)
		rec.Kernel, rec.Threads, rec.Shape.Bytes = "memmove", th, int64(8*half)
		rec.Notes = fmt.Sprintf("bytes copied per second, each byte counted once (the memory moves twice that: a read and a write); Go's copy (runtime memmove) of %s (%s); median of the repetitions", mib(int64(8*half)), r.llcRatio(int64(16*half)))
		if err := r.put(rec, s); err != nil {
			return err
		}
	}
	return nil
}

// gemvShapes are a GEMV whose weights fit in half the per-core L2 (or 256
// KiB when unknown), K = 1024, and one whose weights exceed the LLC (by a
// quarter, at least 64 MiB, at most the largest working set), K = 4096.
func (r *runner) gemvShapes(f Format) []struct {
	n, k  int
	where string
} {
	l2 := int64(256 << 10)
	for _, c := range r.host.Caches {
		if c.Level == 2 && c.Type != "Instruction" {
			l2 = c.Bytes / 2
		}
	}
	big := max(r.host.LLC().Bytes*5/4, 64<<20)
	big = min(big, max(r.maxSet, 64<<20))
	rows := func(bytes int64, k int) int { return max(64, int(bytes/int64(f.RowBytes(k)))&^63) }
	return []struct {
		n, k  int
		where string
	}{
		{rows(l2, 1024), 1024, "in cache"},
		{rows(big, 4096), 4096, "beyond the LLC"},
	}
}

func kernelName(kind string, f Format) string {
	switch f {
	case Q4_0:
		return kind + "_q4_0_q8_0"
	case Q8_0:
		return kind + "_q8_0_q8_0"
	}
	return kind + "_f16_f16"
}

// gemvStep measures one format's GEMV in cache and beyond the LLC, on one
// thread and on all.
func gemvStep(f Format) func(r *runner, ctx context.Context) error {
	return func(r *runner, ctx context.Context) error {
		r.release()
		defer freeMemory()
		for i, sh := range r.gemvShapes(f) {
			w, err := randomMatrix(ctx, f, sh.n, sh.k, 0.02, uint64(sh.n))
			if err != nil {
				return err
			}
			x := randomVector(sh.k, 9)
			tm := r.timing(timing{reps: 5, minRep: 100 * time.Millisecond}, timing{reps: 3, minRep: 20 * time.Millisecond})
			threads := r.threadCounts()
			if i == 1 { // beyond the LLC: one product is long enough
				tm = r.timing(timing{reps: 3, cold: true}, timing{reps: 2, cold: true})
				if r.opts.Quick {
					threads = threads[len(threads)-1:]
				}
			}
			if err := r.matmulRecords(ctx, calibrate.KindGEMV, w, x, 1, tm, sh.where, threads); err != nil {
				return err
			}
		}
		return nil
	}
}

// gemm measures a Q8_0 prefill-shaped product: 64 tokens (32 quick) by a
// 2048×2048 weight matrix.
func (r *runner) gemm(ctx context.Context) error {
	r.release()
	m, n, k := 64, 2048, 2048
	if r.opts.Quick {
		m = 32
	}
	w := RandomMatrix(Q8_0, n, k, 0.02, 17)
	x := randomVector(m*k, 10)
	tm := r.timing(timing{reps: 5, minRep: 100 * time.Millisecond}, timing{reps: 2})
	return r.matmulRecords(ctx, calibrate.KindGEMM, w, x, m, tm, "weights in cache, reused by every token", r.threadCounts())
}

// matmulRecords times w times the m rows of x, on one thread and on all,
// and emits a record for each. The activations are quantised inside the
// timed loop, as llama.cpp does for every matmul.
func (r *runner) matmulRecords(ctx context.Context, kind calibrate.Kind, w *Matrix, x []float32, m int, tm timing, where string, threads []int) error {
	dst := make([]float32, m*w.N)
	var a Activations
	for _, th := range threads {
		s, err := rates(ctx, tm, func() (float64, error) {
			a.Prepare(w.Format, x, m, w.K)
			return Ops(m, w.N, w.K), MatMul(ctx, dst, w, &a, th)
		})
		if err != nil {
			return err
		}
		rec := r.record(kind, calibrate.UnitOpsPerSecond)
		rec.Kernel = kernelName(string(kind), w.Format)
		rec.Shape = calibrate.Shape{M: m, N: w.N, K: w.K, Bytes: w.Bytes()}
		rec.DType, rec.Quant, rec.Threads = w.Format.ComputeDtype(), w.Format.String(), th
		act := "activations quantised to Q8_0, integer dot products scaled per block"
		if w.Format == F16 {
			act = "activations rounded to F16, products accumulated in float32"
		}
		rec.Notes = fmt.Sprintf("ops = 2·M·N·K; %s weights of %s, %s (%s); %s; rows split over the threads; median of the repetitions", w.Format, mib(w.Bytes()), where, r.llcRatio(w.Bytes()), act)
		if err := r.put(rec, s); err != nil {
			return err
		}
	}
	return nil
}

func randomVector(n int, seed uint64) []float32 {
	m := RandomMatrix(F16, 1, (n+BlockSize-1)/BlockSize*BlockSize, 1, seed)
	x := make([]float32, m.K)
	m.Dequantize(x, 0)
	return x[:n]
}

// decoderRun is one configuration a decoder step measures: up to reps
// runs of gen tokens, but no more once budget has passed and two are done,
// so a slow or busy machine still finishes in time.
type decoderRun struct {
	gen, depth, threads, reps int
	budget                    time.Duration
}

// decoderRuns: every size decodes on all threads from an empty context;
// the smallest also on one thread and after a 1024-token context (full
// probe only). Token counts and budgets keep a full probe within five
// minutes on a 2-core machine, a quick one within one.
func (r *runner) decoderRuns(id string) []decoderRun {
	gen := map[string]int{"probe-decoder-s": 32, "probe-decoder-m": 16, "probe-decoder-l": 8}[id]
	budget := map[string]time.Duration{"probe-decoder-s": 10 * time.Second, "probe-decoder-m": 15 * time.Second, "probe-decoder-l": 25 * time.Second}[id]
	if r.opts.Quick {
		return []decoderRun{{gen: max(2, gen/4), threads: r.threads, reps: 2, budget: budget / 4}}
	}
	runs := []decoderRun{{gen: gen, threads: r.threads, reps: 5, budget: budget}}
	if id == "probe-decoder-s" {
		runs = append(runs, decoderRun{gen: gen, depth: 1024, threads: r.threads, reps: 5, budget: budget})
		if r.threads > 1 {
			runs = append(runs, decoderRun{gen: gen, threads: 1, reps: 3, budget: budget})
		}
	}
	return runs
}

// decoderStep measures one reference decoder's decode rate.
func decoderStep(id string) func(r *runner, ctx context.Context) error {
	return func(r *runner, ctx context.Context) error {
		r.release()
		defer freeMemory()
		spec, err := workloads.LoadModel(id, nil)
		if err != nil {
			return err
		}
		runs := r.decoderRuns(id)
		maxCtx := 0
		for _, run := range runs {
			maxCtx = max(maxCtx, run.depth+run.gen+1)
		}
		d, err := NewDecoder(ctx, spec.Model, DecoderQuant, maxCtx, r.threads, 21)
		if err != nil {
			return err
		}
		for _, run := range runs {
			if err := r.decode(ctx, id, d, run); err != nil {
				return err
			}
		}
		return nil
	}
}

// decode times up to run.reps runs of run.gen tokens after a warm-up token,
// with the sensors sampled throughout, and emits the median tokens/s.
func (r *runner) decode(ctx context.Context, id string, d *Decoder, run decoderRun) error {
	d.Threads = run.threads
	d.Reset(run.depth, 1)
	if !r.opts.Quick { // warm-up: weights touched once (a quick probe has just written them)
		if _, err := d.Step(ctx, 1); err != nil {
			return err
		}
	}
	rec := r.record(calibrate.KindDecoder, calibrate.UnitTokensPerSecond)
	smp := startSampler(sampleSensors)
	var s sample
	start := time.Now()
	for range run.reps {
		if len(s) >= 2 && time.Since(start) > run.budget {
			break
		}
		d.Reset(run.depth, 1)
		tok := 1
		t0 := time.Now()
		for range run.gen {
			var err error
			if tok, err = d.Step(ctx, tok); err != nil {
				smp.finish(&rec.Conditions)
				return err
			}
		}
		s = append(s, float64(run.gen)/time.Since(t0).Seconds())
	}
	readings := smp.finish(&rec.Conditions)
	rec.Model, rec.Quant, rec.KVDtype = id, DecoderQuant, "F16"
	rec.Kernel, rec.Threads = "decoder", run.threads
	rec.Shape = calibrate.Shape{Gen: run.gen, Depth: run.depth, Batch: 1}
	rec.ModelSize, rec.ModelParams = d.WeightBytes(), d.Model.Params()
	rec.Notes = fmt.Sprintf("greedy decoding of %d tokens from a context of %d, random weights; value is the median of %d runs (stddev over them; fewer than planned when the time budget ran out); %.3g s of sustained load, sensors read %d times (clocks: mean, min, max; temps: each zone's highest)", run.gen, run.depth, len(s), time.Since(start).Seconds(), readings)
	return r.put(rec, s)
}
