package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/units"
	"github.com/edgetwin/edgetwin/runtimes"
)

// flashMetal is llama.cpp's Metal backend with LLM in a Flash's OPT 6.7B
// figures: 10% of the FFN's neurons computed a token, 24% of the FFN held
// in DRAM, 2.4% read anew a token.
func flashMetal(t testing.TB, fresh float64) *runtimes.Profile {
	t.Helper()
	rt, err := runtimes.Load("llama.cpp-metal")
	if err != nil {
		t.Fatal(err)
	}
	p := *rt
	p.FlashFFN = &runtimes.FlashFFN{Active: 0.10, Cached: 0.24, Fresh: 0.024}
	if fresh > 0 {
		p.FlashFFN.Fresh = units.Fraction(0.024 * fresh)
	}
	return &p
}

// TestFlashFFNReadsTheFreshNeurons, by hand: Llama 2 7B at F16 has 32
// layers of gate, up and down matrices of 4096 × 11008, 8.66 GB of FFN
// weights; one neuron's rows in the three are 3 × 4096 × 2 B = 24 KiB, a
// read that the M2 Max's SSD serves at six times its 4 KiB random rate
// (6 × 409.6 MB/s = 2.46 GB/s, under its 5.32 GB/s sequential). A decode
// token reads 2.4% of the FFN, 208 MB: 84.5 ms of storage a token. It
// computes 10% of the FFN's rows, so its DRAM traffic is that of the dense
// run less 90% of the FFN weights. Twice the fresh share, twice the wait.
func TestFlashFFNReadsTheFreshNeurons(t *testing.T) {
	const gen = 4
	metal, err := runtimes.Load("llama.cpp-metal")
	if err != nil {
		t.Fatal(err)
	}
	o := opts{chip: "apple-m2-max", model: "llama-2-7b", quant: "F16", prompt: 0, gen: gen, fidelity: Analytic, runtime: metal}
	dense := simulate(t, o)
	o.runtime = flashMetal(t, 0)
	r := simulate(t, o)
	fl := r.Memory.FlashFFN
	if fl == nil {
		t.Fatal("no flash_ffn block in the result's memory")
	}
	const ffn = 32 * 3 * 4096 * 11008 * 2.0
	if math.Abs(fl.StoredBytes/(0.76*ffn)-1) > 1e-9 || fl.ReadBytes != 24576 || math.Abs(fl.ReadRate/2.4576e9-1) > 1e-9 {
		t.Errorf("stored %.4g B, reads of %g B at %.4g B/s; want %.4g B (76%% of the FFN), 24576 B at 2.4576e9 B/s", fl.StoredBytes, fl.ReadBytes, fl.ReadRate, 0.76*ffn)
	}
	perToken := 0.024 * ffn / 2.4576e9
	if got := r.Time.Paging / gen; math.Abs(got/perToken-1) > 1e-9 {
		t.Errorf("%.4f s of storage a token, want %.4f s", got, perToken)
	}
	if got, want := (dense.Memory.DRAMBytes-r.Memory.DRAMBytes)/gen, 0.9*ffn; math.Abs(got/want-1) > 0.01 {
		t.Errorf("a token moves %.4g B less DRAM than the dense run, want 90%% of the FFN, %.4g B", got, want)
	}
	if r.Memory.PagedWeightsBytes != fl.StoredBytes || !strings.Contains(strings.Join(r.Warnings, " "), "reads the neurons each token activates") {
		t.Errorf("paged %.4g B, warnings %q: want the stored FFN and a warning saying what is read", r.Memory.PagedWeightsBytes, r.Warnings)
	}
	o.runtime = flashMetal(t, 2)
	twice := simulate(t, o)
	if math.Abs(twice.Time.Paging/r.Time.Paging-2) > 1e-9 {
		t.Errorf("twice the fresh share waits %.4f s, once %.4f s: want twice", twice.Time.Paging, r.Time.Paging)
	}
}

// TestFlashFFNFitsWhatStaysInDRAM: with the FFN's 76% on storage, Llama 2
// 7B F16 holds 13.5 − 6.58 = 6.9 GB in DRAM: an app budget of 21% of the
// M2 Max's 32 GiB (7.2 GB) holds it, 20% (6.87 GB) does not, and the
// refusal names the budget. A mixture of experts has no dense FFN to read
// by neuron: refused.
func TestFlashFFNFitsWhatStaysInDRAM(t *testing.T) {
	o := opts{chip: "apple-m2-max", model: "llama-2-7b", quant: "F16", prompt: 0, gen: 1, fidelity: Analytic, runtime: flashMetal(t, 0)}
	o.sets = []string{"memory.app_share=21%"}
	if _, err := try(o); err != nil {
		t.Errorf("21%%: %v", err)
	}
	o.sets = []string{"memory.app_share=20%"}
	if _, err := try(o); err == nil || !strings.Contains(err.Error(), "does not fit even with its FFN on storage") || !strings.Contains(err.Error(), "the app budget is 6.4 GiB") {
		t.Errorf("20%%: %v, want a refusal naming the budget", err)
	}
	o.sets, o.model, o.quant, o.chip = nil, "seed-moe-3b", "Q4_0", "apple-m2-max"
	if _, err := try(o); err == nil || !strings.Contains(err.Error(), "experts") {
		t.Errorf("a mixture of experts: %v, want a refusal", err)
	}
}
