package sim

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
	"github.com/edgetwin/edgetwin/runtimes"
	"github.com/edgetwin/edgetwin/workloads"
)

// budgetCPU is a phone-class CPU-only chip of 8 GiB: one app may hold 60%
// of it, 5.15 GB (hw.AppShare), and its storage reads 1 GB/s.
const budgetCPU = clusteredCPU + `storage: {read_bandwidth: 1 GB/s}
`

// TestAppBudget: Qwen2.5-7B at Q8_0 (8.1 GB) fits the 8 GiB but not the
// 5.15 GB an app may hold. A runtime that reads its weights refuses it,
// naming the budget; llama.cpp, which maps them, runs with the 3 GB past
// the budget left on storage, and every decode step waits for them at the
// storage's 1 GB/s: about 3 s a token more than with the budget raised.
func TestAppBudget(t *testing.T) {
	rt, err := runtimes.Load("llama.cpp-cpu")
	if err != nil {
		t.Fatal(err)
	}
	run := func(mmap bool, sets ...string) (*Result, error) {
		p := *rt
		p.Mmap = mmap
		cfg := configFor(t, opts{chipSrc: budgetCPU, model: "qwen2.5-7b", quant: "Q8_0", prompt: 0, gen: 4, fidelity: Analytic, sets: sets})
		cfg.Runtime = &p
		return Run(context.Background(), cfg)
	}
	_, err = run(false)
	var ie *spec.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "has 4.8 GiB, the app budget of the 8 GiB (memory.app_share: 60% of it, a phone's share for one app, assumed)") {
		t.Errorf("a runtime without mmap: %v, want a does-not-fit error naming the app budget and its basis", err)
	}
	paged, err := run(true)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := run(true, "memory.app_share=100%")
	if err != nil {
		t.Fatal(err)
	}
	m := paged.Memory
	over := m.WeightsBytes + m.KVBytes - m.AppBudget
	if math.Abs(m.PagedWeightsBytes/over-1) > 1e-9 || whole.Memory.PagedWeightsBytes != 0 {
		t.Errorf("paged %.3g B, want the %.3g B past the budget (and none with the budget raised: %.3g)", m.PagedWeightsBytes, over, whole.Memory.PagedWeightsBytes)
	}
	// Each step reads every layer's weights (the embedding table only a
	// row): the paged share of them comes from storage.
	perStep := m.StorageBytes / 4
	if perStep < 0.85*m.PagedWeightsBytes || perStep > m.PagedWeightsBytes {
		t.Errorf("%.3g B paged in a step, want 85–100%% of the %.3g B on storage", perStep, m.PagedWeightsBytes)
	}
	if got, want := paged.Time.Paging, m.StorageBytes/1e9; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("paging %.4f s, want %.4f s (the bytes at 1 GB/s)", got, want)
	}
	if d := paged.Decode.Seconds - whole.Decode.Seconds; math.Abs(d/paged.Time.Paging-1) > 1e-6 {
		t.Errorf("decode %.3f s paged, %.3f s resident: %.3f s more, want the %.3f s of paging", paged.Decode.Seconds, whole.Decode.Seconds, d, paged.Time.Paging)
	}
	if len(paged.Warnings) == 0 || !strings.Contains(strings.Join(paged.Warnings, " "), "page in every pass") {
		t.Errorf("warnings %q, want one saying the weights page in", paged.Warnings)
	}
}

// TestKVSwapsPastTheBudget: Llama 3.1 8B Q4_0 (4.65 GB) leaves about
// 0.5 GB of a phone app's 4.8 GiB for its KV cache, 128 KiB a token: a
// little under 4,000 tokens. A prompt of 3,900 and 200 generated tokens
// pass it; from then each pass reads the KV past the budget back from
// zram at 1.5 GB/s, which is exactly the time the run adds over the same
// run with the whole DRAM to itself. A device without swap refuses it.
func TestKVSwapsPastTheBudget(t *testing.T) {
	run := func(sets ...string) (*Result, error) {
		cfg := configFor(t, opts{chipSrc: budgetCPU, model: "llama-3.1-8b", prompt: 3900, gen: 200, fidelity: Analytic, runtime: runtimes.None, sets: sets})
		return Run(context.Background(), cfg)
	}
	swapped, err := run()
	if err != nil {
		t.Fatal(err)
	}
	whole, err := run("memory.app_share=100%")
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, opts{chipSrc: budgetCPU, model: "llama-3.1-8b", prompt: 3900, gen: 200, fidelity: Analytic, runtime: runtimes.None})
	perToken := cfg.Model.KVBytesPerToken(cfg.KV)
	m := swapped.Memory
	room := m.AppBudget - m.WeightsBytes
	var want, peak float64
	for _, ctx := range append([]int{3900}, func() []int {
		var cs []int
		for s := range 200 {
			cs = append(cs, 3900+s+1)
		}
		return cs
	}()...) {
		if over := perToken*float64(ctx) - room; over > 0 {
			want += over / 1.5e9
			peak = math.Max(peak, over)
		}
	}
	if want == 0 {
		t.Fatal("the test's premise: the KV cache passes the budget")
	}
	if got := swapped.Time.Paging; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("swap time %.4f s, want %.4f s", got, want)
	}
	if d := swapped.Time.Total - whole.Time.Total; math.Abs(d/want-1) > 1e-6 {
		t.Errorf("the run took %.4f s more than with the whole DRAM, want the %.4f s of swap", d, want)
	}
	if math.Abs(m.SwappedKVBytes/peak-1) > 1e-9 || m.SwapOnsetS == nil || whole.Memory.SwapOnsetS != nil {
		t.Errorf("swapped %.3g B from %v s (whole DRAM: from %v), want %.3g B", m.SwappedKVBytes, m.SwapOnsetS, whole.Memory.SwapOnsetS, peak)
	}
	if _, err := run("memory.swap.kind=none"); err == nil || !strings.Contains(err.Error(), "no swap") {
		t.Errorf("without swap: %v, want a does-not-fit error saying the device has no swap", err)
	}
}

// TestStreamedLayersReadEveryWeightEveryPass: a runtime that streams its
// layers (stream_layers, AirLLM's offload) reads all the weights from
// storage every pass, whatever fits, the next block while one computes:
// where storage is the slower, the run takes what its reads take — Llama
// 3.2 1B on the A17 Pro, 17 passes of 763 MB at 2 GB/s — and it needs only
// two blocks' weights beside the KV cache in the app's budget.
func TestStreamedLayersReadEveryWeightEveryPass(t *testing.T) {
	rt, err := runtimes.Load("llama.cpp-metal")
	if err != nil {
		t.Fatal(err)
	}
	streamed := *rt
	streamed.StreamLayers = true
	r := simulate(t, opts{chip: "apple-a17-pro", model: "llama-3.2-1b", prompt: 16, gen: 16, fidelity: Analytic, runtime: &streamed})
	cfg := configFor(t, opts{chip: "apple-a17-pro", model: "llama-3.2-1b"})
	read := r.Memory.StorageBytes / float64(cfg.Chip.Storage.ReadBandwidth)
	if passes := r.Memory.StorageBytes / r.Memory.WeightsBytes; math.Abs(passes-17) > 0.5 {
		t.Errorf("%.2f model's worth of weights read from storage, want one a pass, 17", passes)
	}
	if r.Memory.PagedWeightsBytes != r.Memory.WeightsBytes || math.Abs(r.Time.Total/read-1) > 0.02 {
		t.Errorf("streamed %g of %g bytes, the run %.3f s against its reads' %.3f s: want every byte, the reads' time", r.Memory.PagedWeightsBytes, r.Memory.WeightsBytes, r.Time.Total, read)
	}
	if r.Time.Paging >= r.Time.Total || r.Time.Paging < 0.9*r.Time.Total {
		t.Errorf("%.3f s of %.3f s waiting on storage: want most, less the compute each block's load hides", r.Time.Paging, r.Time.Total)
	}
	small := simulate(t, opts{chip: "apple-a17-pro", model: "llama-3.2-1b", prompt: 16, gen: 16, fidelity: Analytic, runtime: rt})
	if small.Memory.StorageBytes != 0 {
		t.Errorf("the same runtime without streaming read %g bytes from storage for a model that fits", small.Memory.StorageBytes)
	}
}

// TestStreamedWeightsMayOutgrowTheDRAM: Qwen2.5-7B at F16 (15 GB) is
// larger than the 8 GiB chip itself. Mapped, it would page most of its
// weights every pass, and it is refused, as is a runtime that reads its
// weights into memory, naming the DRAM; a runtime that streams its layers
// holds two blocks' weights and runs, reading every byte each pass.
func TestStreamedWeightsMayOutgrowTheDRAM(t *testing.T) {
	rt, err := runtimes.Load("llama.cpp-cpu")
	if err != nil {
		t.Fatal(err)
	}
	run := func(mmap, stream bool) (*Result, error) {
		p := *rt
		p.Mmap, p.StreamLayers = mmap, stream
		cfg := configFor(t, opts{chipSrc: budgetCPU, model: "qwen2.5-7b", quant: "F16", prompt: 0, gen: 2, fidelity: Analytic})
		cfg.Runtime = &p
		return Run(context.Background(), cfg)
	}
	for _, mmap := range []bool{false, true} {
		if _, err := run(mmap, false); err == nil || !strings.Contains(err.Error(), "does not fit") || !strings.Contains(err.Error(), "has 8 GiB") {
			t.Errorf("mmap %v: %v, want a does-not-fit error naming the 8 GiB", mmap, err)
		}
	}
	streamed, err := run(false, true)
	if err != nil {
		t.Fatalf("streamed: %v", err)
	}
	s := streamed.Memory
	if s.WeightsBytes <= 8*(1<<30) {
		t.Fatalf("the test's premise: %.3g B of weights, more than the 8 GiB", s.WeightsBytes)
	}
	// Each pass reads every layer and the output matrix; of the 1.1 GB
	// embedding table (152K × 3584 at F16), only a row.
	if s.PagedWeightsBytes != s.WeightsBytes || s.StorageBytes < 2*0.9*s.WeightsBytes || s.StorageBytes > 2*s.WeightsBytes {
		t.Errorf("streamed %.3g of %.3g B, %.3g B read in 2 passes: want all but the embedding table each pass", s.PagedWeightsBytes, s.WeightsBytes, s.StorageBytes)
	}
}

// A runtime's context setting sizes the KV cache it allocates, whether the
// runtime was named or chosen: Ollama's num_ctx raised from its 4096 to
// 32768 gives Llama 2 7B (32 layers × 4096 keys and values × 2 bytes,
// 512 KiB a token) 16 GiB of KV for a 24-token run, and the 8 Elite's
// default runtime (Genie) set to 8192 gives Llama 3.2 1B (16 layers × 8
// heads × 64 × 2 × 2 bytes, 32 KiB a token) 256 MiB. Past the DRAM the
// refusal says that the runtime's context sized it.
func TestRuntimeContextSizesTheKV(t *testing.T) {
	run := func(chip, model, quant string, rt *runtimes.Profile, sets ...spec.Override) (*Result, error) {
		cfg := configFor(t, opts{chip: chip, model: model, quant: quant, prompt: 16, gen: 8, fidelity: Analytic, runtime: rt})
		cfg.RuntimeSets = sets
		return Run(context.Background(), cfg)
	}
	for _, c := range []struct {
		chip, model, quant string
		rt                 *runtimes.Profile
		context            string
		want               float64
	}{
		{"jetson-agx-orin", "llama-2-7b", "Q4_0", runtimes.MustLoad("ollama"), "", 4096 * 512 << 10},
		{"jetson-agx-orin", "llama-2-7b", "Q4_0", runtimes.MustLoad("ollama"), "32768", 16 << 30},
		{"snapdragon-8-elite", "llama-3.2-1b", "W4A16", nil, "8192", 256 << 20},
	} {
		var sets []spec.Override
		if c.context != "" {
			sets = []spec.Override{{Path: "context", Value: c.context}}
		}
		r, err := run(c.chip, c.model, c.quant, c.rt, sets...)
		if err != nil {
			t.Fatal(err)
		}
		if r.Memory.KVBytes != c.want {
			t.Errorf("%s on %s, context %q: KV %.0f bytes, want %.0f", c.model, c.chip, c.context, r.Memory.KVBytes, c.want)
		}
		i := slices.IndexFunc(r.Provenance, func(e spec.Entry) bool { return e.Path == "runtime.context" })
		if set := i >= 0 && r.Provenance[i].Value == c.context && r.Provenance[i].Source == spec.SetOrigin; set != (c.context != "") {
			t.Errorf("%s on %s, context %q: the override's provenance is %v, want it there only when set", c.model, c.chip, c.context, set)
		}
	}
	_, err := run("raspberry-pi-5-16gb", "llama-2-7b", "Q4_0", runtimes.MustLoad("ollama"), spec.Override{Path: "context", Value: "32768"})
	if want := "ollama preallocates its context of 32768; the run needs 24"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("32K on a 16 GiB Pi 5: error %v, want it to say %q", err, want)
	}
	_, err = run("seed-c", "llama-2-7b", "Q4_0", nil, spec.Override{Path: "context", Value: "1"})
	if want := "no runtime profile applies"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a chip no runtime drives: error %v, want it to say %q", err, want)
	}
}

// Between a chat's turns the operating system takes back the scenario's
// share of a mapped model's pages for other apps (clean file pages go
// first), and each later turn reads them back from storage before its
// prefill: Llama 3.2 3B's Q4_0 weights at half, over the A17 Pro's flash,
// are half the weights ÷ its read bandwidth, on every turn but the
// first, and the first token waits for them. A runtime that reads its
// weights into its own memory keeps them, and the run says so.
func TestReclaimedWeightsComeBackFromStorage(t *testing.T) {
	run := func(rt *runtimes.Profile, quant, reclaim string) *Result {
		sc, err := workloads.LoadScenario("chat-30", []spec.Override{{Path: "turns", Value: "3"}, {Path: "reclaim", Value: reclaim}})
		if err != nil {
			t.Fatal(err)
		}
		cfg := configFor(t, opts{chip: "apple-a17-pro", model: "llama-3.2-3b", quant: quant, fidelity: Analytic, runtime: rt})
		cfg.Scenario = sc
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	stage := func(tn Turn, name string) (float64, bool) {
		for _, s := range tn.Stages {
			if s.Name == name {
				return s.Seconds, true
			}
		}
		return 0, false
	}
	metal := runtimes.MustLoad("llama.cpp-metal")
	kept, taken := run(metal, "Q4_0", "0"), run(metal, "Q4_0", "50%")
	chip, _ := hw.LoadChip("apple-a17-pro", nil)
	want := 0.5 * taken.Memory.WeightsBytes / float64(chip.Storage.ReadBandwidth)
	for i, tn := range taken.Turns {
		got, ok := stage(tn, "reload")
		switch {
		case i == 0 && ok:
			t.Errorf("turn 1 reloads %.3f s: the model was just loaded", got)
		case i > 0 && (!ok || math.Abs(got/want-1) > 1e-9):
			t.Errorf("turn %d reloads %.4f s (%v), want half the weights from storage, %.4f s", i+1, got, ok, want)
		case i > 0 && math.Abs(tn.TTFTS-kept.Turns[i].TTFTS-want) > 1e-9:
			t.Errorf("turn %d: first token %.4f s, %.4f s without the reclaim: want the reload between them", i+1, tn.TTFTS, kept.Turns[i].TTFTS)
		}
	}
	for _, tn := range kept.Turns {
		if _, ok := stage(tn, "reload"); ok {
			t.Errorf("no reclaim: turn %d reloads", tn.Turn)
		}
	}
	own := run(runtimes.MustLoad("coreml"), "W4A16", "50%")
	if _, ok := stage(own.Turns[1], "reload"); ok || !slices.ContainsFunc(own.Warnings, func(w string) bool { return strings.Contains(w, "reclaim") && strings.Contains(w, "no mmap") }) {
		t.Errorf("a runtime that holds its weights: reload %v, warnings %q; want none and a warning", ok, own.Warnings)
	}
}
