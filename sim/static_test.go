package sim

import (
	"context"
	"math"
	"testing"

	"github.com/edgetwin/edgetwin/runtimes"
)

// TestCompiledPrefillPads: Genie's prompt processor takes 128 tokens a
// pass, so a prompt of 130 runs as two passes, 126 tokens of them padding,
// and costs about twice the prompt of 128; 256 runs as two passes with no
// padding. (The 8 Elite's NPU is compute-bound on a 128-token pass, so
// the second pass costs the first's within a few per cent: its context
// grows by 128 tokens.)
func TestCompiledPrefillPads(t *testing.T) {
	genie, err := runtimes.Load("genie")
	if err != nil {
		t.Fatal(err)
	}
	run := func(prompt int) *Result {
		cfg := configFor(t, opts{chip: "snapdragon-8-elite", model: "llama-3.2-1b", quant: "W4A16", prompt: prompt, gen: 1, fidelity: Analytic, runtime: genie})
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one, padded, two := run(128), run(130), run(256)
	if one.Prefill.PaddedTokens != 0 || padded.Prefill.PaddedTokens != 126 || two.Prefill.PaddedTokens != 0 {
		t.Errorf("padded tokens %d, %d, %d at prompts 128, 130, 256; want 0, 126, 0", one.Prefill.PaddedTokens, padded.Prefill.PaddedTokens, two.Prefill.PaddedTokens)
	}
	if r := padded.Prefill.Seconds / one.Prefill.Seconds; math.Abs(r-2) > 0.1 {
		t.Errorf("a 130-token prompt takes %.3f× the 128-token one, want about 2 (two passes of 128)", r)
	}
	if math.Abs(two.Prefill.Seconds/padded.Prefill.Seconds-1) > 1e-9 {
		t.Errorf("256 tokens in %.5f s, 130 in %.5f s: want the same two passes", two.Prefill.Seconds, padded.Prefill.Seconds)
	}
}
