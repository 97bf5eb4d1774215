package sim

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/runtimes"
)

// withBatches is the catalog's genie compiled for batches 1, 2 and 4 only.
func withBatches(t *testing.T) *runtimes.Profile {
	t.Helper()
	src, _ := runtimes.Source("genie")
	p, err := runtimes.Decode("genie-static.yaml", append(src, []byte("batches: [1, 2, 4]\n")...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBatchRunsAsTheNextCompiledOne: a runtime whose graphs take batches
// of 1, 2 and 4 runs a batch of 3 as 4 — each pass the batch-4 pass, its
// KV cache batch 4's — and counts the 3 sequences it asked for: three
// quarters of batch 4's tokens a second, a quarter of the work padding.
func TestBatchRunsAsTheNextCompiledOne(t *testing.T) {
	p := withBatches(t)
	run := func(batch int) *Result {
		cfg := configFor(t, opts{chip: "snapdragon-8-gen3", model: "llama-3.2-1b", quant: "W4A16", prompt: 64, gen: 16, batch: batch, fidelity: Analytic, runtime: p})
		cfg.NoSampling = true // only the batch's own sequences are sampled: the passes alone compare
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	three, four := run(3), run(4)
	if three.CompiledBatch != 4 || four.CompiledBatch != 0 {
		t.Fatalf("compiled batch %d for batch 3 and %d for batch 4, want 4 and 0 (not padded)", three.CompiledBatch, four.CompiledBatch)
	}
	if three.Decode.Seconds != four.Decode.Seconds || three.Prefill.Seconds != four.Prefill.Seconds {
		t.Errorf("batch 3 took %g s + %g s, batch 4 %g s + %g s: the same passes", three.Prefill.Seconds, three.Decode.Seconds, four.Prefill.Seconds, four.Decode.Seconds)
	}
	if got, want := *three.Decode.TokensPerS, 0.75**four.Decode.TokensPerS; math.Abs(got-want) > 1e-9*want {
		t.Errorf("batch 3 decodes %.4f tokens/s, want 3/4 of batch 4's %.4f", got, *four.Decode.TokensPerS)
	}
	if three.Memory.KVBytes != four.Memory.KVBytes {
		t.Errorf("KV cache %g bytes for batch 3, %g for batch 4: the compiled graph holds 4 sequences'", three.Memory.KVBytes, four.Memory.KVBytes)
	}
	if _, err := try(opts{chip: "snapdragon-8-gen3", model: "llama-3.2-1b", quant: "W4A16", prompt: 8, gen: 1, batch: 5, fidelity: Analytic, runtime: p}); err == nil ||
		!strings.Contains(err.Error(), "batch") || !strings.Contains(err.Error(), "compiled for batches of 1, 2, 4") {
		t.Errorf("batch 5: error %v, want one naming the compiled batches", err)
	}
}
