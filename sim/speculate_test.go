package sim

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/workloads"
)

// TestExpectedTokensPerCycle holds the closed form to hand-computed cases:
// at α = 0.5 and 3 drafted tokens a cycle emits 1 + 0.5 + 0.25 + 0.125 =
// 1.875 tokens; at α = 0 the model's own token only; at α = 1 every draft
// and the model's.
func TestExpectedTokensPerCycle(t *testing.T) {
	for _, c := range []struct {
		alpha float64
		n     int
		want  float64
	}{{0.5, 3, 1.875}, {0, 4, 1}, {1, 4, 5}, {0.8, 1, 1.8}} {
		if got := ExpectedTokensPerCycle(c.alpha, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ExpectedTokensPerCycle(%g, %d) = %g, want %g", c.alpha, c.n, got, c.want)
		}
	}
}

// speculativeChip is a GPU whose decode is memory-bound: 8B Q4_0 weights
// (4.7 GB) over 60 GB/s of sequential DRAM take about 78 ms a step, while
// the 8 TFLOPS at 30% do a row of its 16 GFLOP in 7 ms. A verify pass of
// five rows reads the weights once, so it costs about a plain step.
const speculativeChip = `name: memory-bound GPU
memory:
  dram: {type: LPDDR5X, bandwidth: 85.7 GB/s, capacity: 16 GiB}
units:
  - {name: gpu, kind: gpu, peak: {fp16: 8 TFLOPS}, gemm_efficiency: 0.3, gemv_efficiency: 0.3}
  - {name: cpu, kind: cpu, peak: {fp32: 200 GFLOPS}}
`

func speculative(t *testing.T, draftLen int, accept float64) *Result {
	t.Helper()
	cfg := configFor(t, opts{chipSrc: speculativeChip, model: "llama-3.1-8b", prompt: 64, gen: 96, fidelity: Analytic, runtime: runtimes.None})
	draft, err := workloads.LoadModel("llama-3.2-1b", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Draft = &Draft{Model: draft, Len: draftLen, Accept: &accept}
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSpeculationAtTheExtremes: when every draft is accepted a cycle emits
// draft_len + 1 tokens (the last cycle only what is left of --gen); when
// none is, one, and speculation costs more than plain decoding, by the
// draft steps it wastes. Every run emits exactly --gen tokens.
func TestSpeculationAtTheExtremes(t *testing.T) {
	all := speculative(t, 4, 1)
	none := speculative(t, 4, 0)
	for name, r := range map[string]*Result{"accept 1": all, "accept 0": none} {
		if r.Decode.Tokens != 96 {
			t.Errorf("%s: decoded %d tokens, want 96", name, r.Decode.Tokens)
		}
	}
	if s := all.Speculative; s.Cycles != 20 || s.AcceptedShare != 1 { // 19 cycles of 5 and one of 1
		t.Errorf("accept 1: %d cycles, accepted share %g; want 20 cycles, all accepted", s.Cycles, s.AcceptedShare)
	}
	if s := none.Speculative; s.Cycles != 96 || s.TokensPerCycle != 1 || s.Speedup >= 1 {
		t.Errorf("accept 0: %d cycles of %g tokens, speed-up %g; want 96 cycles of 1 token, slower than plain", s.Cycles, s.TokensPerCycle, s.Speedup)
	}
}

// TestSpeculationSpeedsMemoryBoundDecode: on a memory-bound unit a verify
// pass of five rows costs about a plain step (the weights are read once),
// so at α = 0.8 and four drafted tokens (3.36 tokens a cycle) decode runs
// about twice as fast, as the closed form says; the speed-up grows with α; the break-even rate
// is where the curve crosses 1; and decode's time is the cycles' time.
func TestSpeculationSpeedsMemoryBoundDecode(t *testing.T) {
	cfg := configFor(t, opts{chipSrc: speculativeChip, model: "llama-3.1-8b", prompt: 64, gen: 96, fidelity: Analytic, runtime: runtimes.None})
	plain, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := speculative(t, 4, 0.8)
	s := r.Speculative
	if got := s.VerifyS / s.PlainStepS; got < 1 || got > 1.2 {
		t.Errorf("verify pass / plain step = %.3f, want 1–1.2 (the weights are read once)", got)
	}
	// Leviathan et al.'s speed-up, (1 − α^(γ+1)) / ((1 − α)(γc + 1)) with
	// c the draft step's cost over a plain step's: about 3.36 / 1.68 = 2
	// here (c ≈ 0.17, the 1B's weights over the 8B's). The drawn
	// acceptances of 24 cycles land within 10% of it.
	c := s.DraftStepS / s.PlainStepS
	want := ExpectedTokensPerCycle(0.8, 4) / (4*c + 1)
	if got := *r.Decode.TokensPerS / *plain.Decode.TokensPerS; math.Abs(got/want-1) > 0.1 || got < 1.6 {
		t.Errorf("decode speed-up at α 0.8 = %.2f (%.1f vs %.1f tokens/s), want %.2f ± 10%% (c = %.3f)", got, *r.Decode.TokensPerS, *plain.Decode.TokensPerS, want, c)
	}
	if math.Abs(s.Speedup/(*r.Decode.TokensPerS / *plain.Decode.TokensPerS)-1) > 0.05 {
		t.Errorf("reported speed-up %.3f, measured against a plain run %.3f: want within 5%%", s.Speedup, *r.Decode.TokensPerS / *plain.Decode.TokensPerS)
	}
	if math.Abs(r.Decode.Seconds-float64(s.Cycles)*s.CycleS) > 1e-9*r.Decode.Seconds {
		t.Errorf("decode %.6f s, cycles %d × %.6f s: want equal", r.Decode.Seconds, s.Cycles, s.CycleS)
	}
	low := speculative(t, 4, 0.3)
	if *low.Decode.TokensPerS >= *r.Decode.TokensPerS {
		t.Errorf("α 0.3 decodes at %.1f tokens/s, α 0.8 at %.1f: want slower", *low.Decode.TokensPerS, *r.Decode.TokensPerS)
	}
	be := s.BreakEvenAccept
	if be == nil || *be <= 0 || *be >= 0.5 {
		t.Fatalf("break-even α %v, want in (0, 0.5)", be)
	}
	at := s.PlainStepS * ExpectedTokensPerCycle(*be, 4) / s.CycleS
	if math.Abs(at-1) > 1e-3 {
		t.Errorf("speed-up at the break-even α %.4f is %.4f, want 1", *be, at)
	}
	for i := 1; i < len(s.Curve); i++ {
		if s.Curve[i].Speedup <= s.Curve[i-1].Speedup {
			t.Errorf("curve falls from α %g to %g", s.Curve[i-1].AcceptRate, s.Curve[i].AcceptRate)
		}
	}
}

// TestDraftCountsInTheRun: the draft prefills the prompt too (the time to
// first token grows), its weights are loaded and counted against memory,
// and assumed defaults say so in the provenance.
func TestDraftCountsInTheRun(t *testing.T) {
	cfg := configFor(t, opts{chipSrc: speculativeChip, model: "llama-3.1-8b", prompt: 64, gen: 8, fidelity: Analytic, runtime: runtimes.None})
	plain, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	draft, _ := workloads.LoadModel("llama-3.2-1b", nil)
	cfg.Draft = &Draft{Model: draft}
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.TTFT <= plain.TTFT || r.ColdStartS <= plain.ColdStartS {
		t.Errorf("TTFT %.4f vs %.4f, cold start %.3f vs %.3f: want the draft's prefill and load added", r.TTFT, plain.TTFT, r.ColdStartS, plain.ColdStartS)
	}
	s := r.Speculative
	if !s.DraftLenAssumed || !s.AcceptAssumed || s.DraftLen != DefaultDraftLen || s.AcceptRate != DefaultDraftAccept {
		t.Errorf("defaults: %+v, want draft_len %d and accept %g, both assumed", s, DefaultDraftLen, DefaultDraftAccept)
	}
	found := 0
	for _, p := range r.Provenance {
		if (p.Path == "draft.len" || p.Path == "draft.accept_rate") && p.Source == "assumed" {
			found++
		}
	}
	if found != 2 {
		t.Errorf("provenance marks %d of the draft's 2 defaults as assumed", found)
	}
	// 8B Q4_0 (4.7 GB) fits the 60% of 8 GiB a phone app may hold
	// alone; with the 1B draft (0.76 GB) it does not.
	cfg = configFor(t, opts{chipSrc: strings.Replace(speculativeChip, "16 GiB", "8 GiB", 1), model: "llama-3.1-8b", prompt: 64, gen: 8, fidelity: Analytic, runtime: runtimes.None})
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatalf("8B alone on 8 GiB: %v", err)
	}
	cfg.Draft = &Draft{Model: draft}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "draft") {
		t.Errorf("8B with a draft on 8 GiB: %v, want a does-not-fit error", err)
	}
}

// TestBadDrafts: a draft with another tokenizer, a batch, an acceptance
// outside 0..1 and an unbounded draft length are input errors that say
// what is allowed.
func TestBadDrafts(t *testing.T) {
	other, _ := workloads.LoadModel("llama-2-7b", nil)
	small, _ := workloads.LoadModel("llama-3.2-1b", nil)
	half, over := 1.5, -0.1
	for _, c := range []struct {
		name  string
		draft Draft
		batch int
		want  string
	}{
		{"vocabulary", Draft{Model: other}, 1, "share the model's tokenizer"},
		{"batch", Draft{Model: small}, 2, "a batch of 1"},
		{"accept > 1", Draft{Model: small, Accept: &half}, 1, "lies in 0..1"},
		{"accept < 0", Draft{Model: small, Accept: &over}, 1, "lies in 0..1"},
		{"length", Draft{Model: small, Len: 1000}, 1, "1 to 64"},
	} {
		cfg := configFor(t, opts{chipSrc: speculativeChip, model: "llama-3.1-8b", prompt: 8, gen: 8, fidelity: Analytic, runtime: runtimes.None})
		cfg.Batch = c.batch
		d := c.draft
		cfg.Draft = &d
		_, err := Run(context.Background(), cfg)
		var ie *spec.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an input error saying %q", c.name, err, c.want)
		}
	}
}

// TestSpeculativeStepReuse: the draft steps and verify passes a turn
// takes from the memo (interpolated between passes simulated in full, as
// decode steps are) keep decode's time within 1% of simulating every
// one, at tile fidelity.
func TestSpeculativeStepReuse(t *testing.T) {
	run := func(exact bool) *Result {
		cfg := configFor(t, opts{chip: "seed-c", model: "llama-3.2-3b", prompt: 32, gen: 96, fidelity: Tile})
		draft, _ := workloads.LoadModel("llama-3.2-1b", nil)
		cfg.Draft = &Draft{Model: draft}
		cfg.Exact.StepReuse = exact
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	fast, exact := run(false), run(true)
	if d := fast.Decode.Seconds/exact.Decode.Seconds - 1; math.Abs(d) > 0.01 {
		t.Errorf("decode %.4f s with reuse, %.4f s simulating every pass: %+.2f%%, want within 1%%", fast.Decode.Seconds, exact.Decode.Seconds, 100*d)
	}
	if fast.Speculative.Cycles != exact.Speculative.Cycles {
		t.Errorf("cycles %d vs %d: the acceptance draws must not depend on reuse", fast.Speculative.Cycles, exact.Speculative.Cycles)
	}
}

// TestPlainStepIsTheRunWithoutTheDraft: the speed-up compares with the
// model run alone. On the A17 Pro, Llama 3.1 8B Q4_0 (4.65 GB) fits the
// app's 4.8 GiB alone but not beside the 1B draft (0.76 GB): with the
// draft, llama.cpp-metal pages 268 MB of its weights in every pass, and
// the plain step it is compared with stays the resident one — drafting
// there costs more than it gains (speed-up below 1). A runtime that
// streams every layer streams them with or without the draft, and its
// plain step is the streamed one: a verify pass that streams the weights
// once for several tokens is then worth it.
func TestPlainStepIsTheRunWithoutTheDraft(t *testing.T) {
	draft, err := workloads.LoadModel("llama-3.2-1b", nil)
	if err != nil {
		t.Fatal(err)
	}
	metal, err := runtimes.Load("llama.cpp-metal")
	if err != nil {
		t.Fatal(err)
	}
	streamed := *metal
	streamed.StreamLayers = true
	accept := 0.7
	for _, c := range []struct {
		rt           *runtimes.Profile
		paged        bool // with the draft, and not without
		speedUpOver1 bool
	}{{metal, true, false}, {&streamed, false, true}} {
		cfg := configFor(t, opts{chip: "apple-a17-pro", model: "llama-3.1-8b", prompt: 16, gen: 16, fidelity: Analytic, runtime: c.rt})
		alone, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Draft = &Draft{Model: draft, Accept: &accept}
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		s := r.Speculative
		step := 1 / *alone.Decode.TokensPerS
		if math.Abs(s.PlainStepS/step-1) > 0.01 {
			t.Errorf("%s: plain step %.4f s, the model alone decodes a token in %.4f s", c.rt.ID, s.PlainStepS, step)
		}
		if got := r.Memory.PagedWeightsBytes > 0 && alone.Memory.PagedWeightsBytes == 0; got != c.paged {
			t.Errorf("%s: paged %.3g B with the draft, %.3g B alone", c.rt.ID, r.Memory.PagedWeightsBytes, alone.Memory.PagedWeightsBytes)
		}
		if (s.Speedup > 1) != c.speedUpOver1 {
			t.Errorf("%s: speed-up %.2f", c.rt.ID, s.Speedup)
		}
	}
}
