package advisor

import (
	"context"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/sim"
	"github.com/edgetwin/edgetwin/workloads"
)

func TestBasis(t *testing.T) {
	for _, tc := range []struct{ source, want string }{
		{"assumed", BasisAssumed},
		{"assumed: a 12 GiB phone", BasisAssumed},
		{"derived: clock × 0.4…1.0 at 0.60…0.88 V (assumed)", BasisAssumed},
		{"derived: 2 × fp32 (azhirnov/cpu-gpu-arch)", BasisCited},
		{"nextpit.com comparison table (76.8 GB/s)", BasisCited},
		{"calibrated:fit.yaml", BasisCalibrated},
		{"--set", BasisSet},
		{"mychip.yaml:12", BasisGiven},
	} {
		if got := Basis(tc.source); got != tc.want {
			t.Errorf("Basis(%q) = %s, want %s", tc.source, got, tc.want)
		}
	}
}

// TestNPUAlternative: on the Snapdragon 8 Gen 3 a GGUF model runs on the
// GPU through llama.cpp's OpenCL backend, the stack its users run for
// GGUF (the NPU reads Q4_0 only through the Hexagon backend, and no
// K-quant at all), so the questions try the NPU with the format Genie
// would run there: INT4 for 4-bit models, INT8 for wider ones. seed-c's
// NPU runs every format, and --unit is the user's choice: no alternative.
func TestNPUAlternative(t *testing.T) {
	load := loader(t, "llama-3.2-1b")
	for _, tc := range []struct {
		chip, quant, unit string
		want              string // the alternative's quant, "" for none
	}{
		{"snapdragon-8-gen3", "Q4_0", "", "INT4"},
		{"snapdragon-8-gen3", "Q8_0", "", "INT8"},
		{"snapdragon-8-gen3", "Q4_K_M", "", "INT4"}, // Q4_K and Q6_K: neither is read
		{"snapdragon-8-gen3", "Q3_K_S", "", "INT4"}, // fewer bits still: the 4-bit alternative
		{"snapdragon-8-gen3", "Q5_K_M", "", "INT8"},
		{"snapdragon-8-gen3", "F16,output=Q6_K", "", "INT8"}, // only the output matrix is unread
		{"snapdragon-8-gen3", "Q4_0", "gpu", ""},
		{"seed-c", "Q4_0", "", ""},
	} {
		c, err := load(tc.chip, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Quant, err = workloads.ParseQuant(tc.quant); err != nil {
			t.Fatal(err)
		}
		c.Unit = tc.unit
		got := ""
		if alt := npuAlternativeFor(c); alt != nil {
			got = alt.quant
			if alt.unit != "npu" {
				t.Errorf("%s %s: alternative on %s", tc.chip, tc.quant, alt.unit)
			}
		}
		if got != tc.want {
			t.Errorf("%s %s --unit %q: alternative %q, want %q", tc.chip, tc.quant, tc.unit, got, tc.want)
		}
	}
}

// TestCoverageAnswer: on the Snapdragon 8 Gen 3 with Q4_0 the GPU runs the
// model through llama.cpp-opencl; the answer says why the NPU is passed
// over (the stack users run for Q4_0 drives the GPU), and what Genie would
// do on it with INT4. Only the runs the answer needs are made.
func TestCoverageAnswer(t *testing.T) {
	p, err := PrepareQuestions(QuestionsRequest{SoC: "snapdragon-8-gen3", Load: loader(t, "llama-3.2-1b")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.runs {
		if r := &p.runs[i]; r.id == runBase || r.id == runNPU {
			if r.res, err = sim.Run(context.Background(), r.cfg); err != nil {
				t.Fatal(err)
			}
		}
	}
	a := p.coverageAnswer()
	for _, want := range []string{"The gpu runs the model's matrix work", "llama.cpp-opencl drives it, the stack a user of snapdragon-8-gen3 runs for Q4_0",
		"The npu is passed over: llama.cpp-hexagon reads Q4_0 weights on it", "--runtime llama.cpp-hexagon runs it there",
		"With INT4 weights, which it reads, the npu would run it through genie"} {
		if !strings.Contains(a.Answer, want) {
			t.Errorf("answer lacks %q:\n%s", want, a.Answer)
		}
	}
	found := false
	for _, f := range a.Provenance {
		found = found || (f.Path == "units.npu.formats" && f.Basis == BasisCited)
	}
	if !found {
		t.Errorf("the NPU's formats are not among the cited figures: %+v", a.Provenance)
	}
	if a.Metrics["npu.decode.tokens_per_s"] == nil {
		t.Errorf("no decode rate on the NPU: %v", a.Metrics)
	}
}

// TestKVQuestionHoldsItsSize: the L3 question at a KV size decodes at most
// a twentieth of its context's tokens, so the answer is about that size —
// 128 steps after a 85-token context (4 MiB of seed-moe-3b's KV) would
// have measured a KV 2.5 times larger.
func TestKVQuestionHoldsItsSize(t *testing.T) {
	p, err := PrepareQuestions(QuestionsRequest{SoC: "seed-c", Load: loader(t, "seed-moe-3b"), KVSizes: []float64{4 << 20, 64 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range p.runs {
		if r.kv == 0 {
			continue
		}
		n++
		if c := r.cfg; c.Gen < 1 || c.Gen > max(1, c.Prompt/20) {
			t.Errorf("KV %g B: %d decode steps after a %d-token context", r.kv, c.Gen, c.Prompt)
		}
	}
	if n != 2 {
		t.Fatalf("%d KV runs, want 2", n)
	}
}

// TestCoverageSaysWhyTheCPURanWhatTheUnitCould: a unit that runs every
// operator kind may still leave some to the CPU — its runtime's cpu_ops,
// a layer split — and the answer says which, not that the unit lacked
// them.
func TestCoverageSaysWhyTheCPURanWhatTheUnitCould(t *testing.T) {
	u := &hw.Unit{Name: "npu", Kind: hw.NPU}
	res := &sim.Result{Runtime: "llama.cpp-hexagon", CPULayers: "0-3",
		Fallbacks: []sim.Fallback{{Op: "embed", Unit: "cpu", Count: 5, Seconds: 0.001}, {Op: "matmul", Unit: "cpu", Count: 40, Seconds: 0.2}}}
	got := coverage(u, res)
	for _, want := range []string{"taken to run all 8 operator kinds", "these ran off it (blocks 0-3 placed on the CPU; llama.cpp-hexagon leaving embed and output to the CPU), on the cpu: embed (5 calls", "embed (5 calls", "matmul (40 calls"} {
		if !strings.Contains(got, want) {
			t.Errorf("coverage %q lacks %q", got, want)
		}
	}
	three := &sim.Result{Runtime: "llama.cpp-hexagon", LayersOn: "gpu=0-13",
		Fallbacks: []sim.Fallback{{Op: "matmul", Unit: "gpu", Count: 490, Seconds: 0.3}, {Op: "matmul", Unit: "cpu", Count: 5, Seconds: 0.04}}}
	if got, want := coverage(u, three), "(blocks 0-13 placed on the gpu; llama.cpp-hexagon leaving embed and output to the CPU), on the gpu: matmul (490 calls, 300 ms); on the cpu: matmul (5 calls, 40 ms)"; !strings.Contains(got, want) {
		t.Errorf("coverage of a three-way split %q lacks %q", got, want)
	}
	if got := coverage(u, &sim.Result{Runtime: "genie"}); !strings.HasSuffix(got, "nothing falls back to the CPU") {
		t.Errorf("coverage without fallbacks: %q", got)
	}
}
