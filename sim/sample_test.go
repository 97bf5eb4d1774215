package sim

import (
	"math"
	"testing"
)

// TestSamplingCost: drawing a token walks the whole vocabulary on one
// core. On a Cortex-A55 at 1.8 GHz Llama 3.2 1B's 128,256 logits take
// 128256 × 17.7 / 1.8 GHz = 1.261 ms a token, as llama-cli measured there
// (1.26 ms), plus the CPU's dispatch; a big out-of-order core at the same
// clock takes 2.2 cycles a logit, 0.157 ms. (The vectorised five
// operations a logit charged before gave about 5 µs.) A run for
// llama-bench's figures (NoSampling) draws none.
func TestSamplingCost(t *testing.T) {
	chip := func(core string) string {
		return minimalChip + "  - {name: cpu, kind: cpu, core: " + core + ", cores: 4, clock: 1.8 GHz, peak: {fp32: 57.6 GFLOPS}}\n"
	}
	for _, c := range []struct {
		core   string
		cycles float64
	}{{"cortex-a55", 17.7}, {"cortex-a76", 2.2}} {
		cfg := configFor(t, opts{chipSrc: chip(c.core), model: "llama-3.2-1b", prompt: 8, gen: 4, fidelity: Analytic})
		e := engineFor(t, cfg)
		got := e.sample()
		want := float64(e.host.Dispatch) + 128256*c.cycles/1.8e9
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: sampling takes %.4f ms a token, want %.4f ms (128256 logits × %g cycles at 1.8 GHz, and the dispatch)", c.core, got*1e3, want*1e3, c.cycles)
		}
		cfg.NoSampling = true
		if s := engineFor(t, cfg).sample(); s != 0 {
			t.Errorf("%s: a run without sampling samples for %g s", c.core, s)
		}
	}
}
