package sim

import (
	"context"
	"math"
	"testing"
)

// TestSlidingWindowBoundsDecode: with every layer windowed at 1024 tokens
// a decode step costs the same at 2,048 and 8,192 tokens of context, and
// the KV cache holds 1,024 tokens; with full attention the step slows as
// the context grows and the cache holds all of it.
func TestSlidingWindowBoundsDecode(t *testing.T) {
	run := func(window, depth int) *Result {
		cfg := configFor(t, opts{chip: "seed-c", model: "llama-3.2-1b", prompt: 16, depth: depth, gen: 8, fidelity: Analytic})
		m := *cfg.Model
		m.SlidingWindow = window
		cfg.Model = &m
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	near, far := run(1024, 2048), run(1024, 8192)
	if d := *far.Decode.TokensPerS / *near.Decode.TokensPerS; math.Abs(d-1) > 1e-9 {
		t.Errorf("windowed: decode at 8192 tokens / at 2048 = %.6f, want 1", d)
	}
	fullNear, fullFar := run(0, 2048), run(0, 8192)
	if *fullFar.Decode.TokensPerS >= 0.99**fullNear.Decode.TokensPerS {
		t.Errorf("full attention: %.2f tokens/s at 8192, %.2f at 2048: want slower", *fullFar.Decode.TokensPerS, *fullNear.Decode.TokensPerS)
	}
	if got, want := far.Memory.KVBytes/fullFar.Memory.KVBytes, 1024.0/(8192+16+8); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("windowed KV cache is %.4f of the full one, want %.4f (1024 of %d tokens)", got, want, 8192+16+8)
	}
}
