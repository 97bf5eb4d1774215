package sim

import (
	"math"
	"os"
	"testing"

	"github.com/edgetwin/edgetwin/runtimes"
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

// TestSamplingOnTheUnit: a runtime that samples where the logits are
// (sample_on_unit) draws each token on the unit: one dispatch, and the
// fp32 logits read from DRAM or the sampler's operations at the unit's
// vector rate, whichever is longer — llama-3.2-3b's 128,256 logits are
// 513 KB a token — and the CPU samples nothing.
func TestSamplingOnTheUnit(t *testing.T) {
	src, err := os.ReadFile("../examples/deployment/mlc-gpu-sampling.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := runtimes.Decode("mlc-gpu-sampling.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, opts{chip: "snapdragon-8-gen3", model: "llama-3.2-3b", quant: "W4A16", runtime: rt, prompt: 16, gen: 4, fidelity: Analytic})
	onUnit, cfg := resolvedRun(t, cfg)
	if onUnit.Time.Host != 0 {
		t.Errorf("the CPU spent %g s sampling with the runtime sampling on the unit", onUnit.Time.Host)
	}
	e := engineFor(t, cfg)
	logits := float64(cfg.Model.Vocab)
	want := float64(e.unit.Dispatch) + math.Max(4*logits/e.dramBW, e.unit.VectorSeconds(sampleOpsPerLogit*logits, e.vdt, 0))
	if got := e.sample(); math.Abs(got/want-1) > 1e-12 {
		t.Errorf("a token drawn on the %s in %.6g s, want %.6g s", e.unit.Name, got, want)
	}
	if e.st.host != 0 || e.st.compute != want {
		t.Errorf("sampling charged %g s to the host and %g s to the unit, want 0 and %g", e.st.host, e.st.compute, want)
	}
}
