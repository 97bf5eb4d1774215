package workloads

import (
	"math"
	"slices"
	"testing"
)

func mixtral(t testing.TB) Model {
	t.Helper()
	m, err := ParseHFConfig("mixtral-8x7b.config.json", readTestdata(t, "mixtral-8x7b.config.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFileTypeRules: llama-quantize's per-tensor choices
// (llama_tensor_get_type in llama.cpp src/llama-quant.cpp), tensor by
// tensor. Llama 2 7B has 32 layers and no GQA; use_more_bits picks layers
// 0-3, 28-31 and 6, 9, ..., 27; n/8 = 4 and n/16 = 2. Llama 3.1 8B has GQA
// 4; Mixtral 8 experts and GQA 4; Seed MoE 3B 24 layers of 16 experts.
func TestFileTypeRules(t *testing.T) {
	shared := loadModel(t, "seed-moe-3b")
	shared.MoE.Shared = 1
	models := map[string]Model{
		"llama-2-7b":   loadModel(t, "llama-2-7b"),
		"llama-3.1-8b": loadModel(t, "llama-3.1-8b"),
		"mixtral":      mixtral(t),
		"seed-moe-3b":  loadModel(t, "seed-moe-3b"),
		"seed+shared":  shared,
	}
	for _, tc := range []struct {
		model, quant string
		want         map[string]string // tensor → format
		why          string
	}{
		{"llama-2-7b", "Q4_K_M", map[string]string{
			"blk.0.attn_v": "Q6_K", "blk.4.attn_v": "Q4_K", "blk.6.attn_v": "Q6_K", "blk.28.attn_v": "Q6_K",
			"blk.6.ffn_down": "Q6_K", "blk.5.ffn_down": "Q4_K", "blk.27.ffn_down": "Q6_K", "blk.26.ffn_down": "Q4_K",
			"blk.0.attn_q": "Q4_K", "blk.0.attn_k": "Q4_K", "blk.0.attn_output": "Q4_K", "blk.0.ffn_gate": "Q4_K", "blk.0.ffn_up": "Q4_K",
			"output": "Q6_K", "token_embd": "Q4_K", "blk.0.attn_norm": "F32",
		}, "attn_v and ffn_down Q6_K where use_more_bits; output Q6_K; token_embd the default"},
		{"llama-2-7b", "Q4_K_S", map[string]string{
			"blk.3.attn_v": "Q5_K", "blk.4.attn_v": "Q4_K", "blk.3.ffn_down": "Q5_K", "blk.4.ffn_down": "Q4_K", "output": "Q6_K",
		}, "attn_v Q5_K below layer 4, ffn_down below n/8"},
		{"llama-2-7b", "Q5_K_M", map[string]string{
			"blk.31.attn_v": "Q6_K", "blk.30.attn_v": "Q6_K", "blk.5.attn_v": "Q5_K", "blk.9.ffn_down": "Q6_K", "blk.10.ffn_down": "Q5_K",
			"token_embd": "Q5_K", "output": "Q6_K",
		}, "like Q4_K_M over Q5_K"},
		{"llama-2-7b", "Q5_K_S", map[string]string{"blk.0.attn_v": "Q5_K", "blk.0.ffn_down": "Q5_K", "output": "Q6_K"}, "Q5_K everywhere but output"},
		{"llama-2-7b", "Q3_K_S", map[string]string{"blk.0.attn_v": "Q3_K", "blk.0.attn_output": "Q3_K", "output": "Q6_K"}, "Q3_K everywhere but output"},
		{"llama-2-7b", "Q3_K_M", map[string]string{
			"blk.1.attn_v": "Q5_K", "blk.2.attn_v": "Q4_K", "blk.1.ffn_down": "Q5_K", "blk.2.ffn_down": "Q4_K",
			"blk.9.attn_output": "Q4_K", "blk.9.attn_q": "Q3_K", "blk.9.ffn_up": "Q3_K", "token_embd": "Q3_K",
		}, "attn_v Q5_K below layer 2, ffn_down Q5_K below n/16, else Q4_K; attn_output Q4_K"},
		{"llama-2-7b", "Q3_K_L", map[string]string{
			"blk.20.attn_v": "Q5_K", "blk.20.ffn_down": "Q5_K", "blk.20.attn_output": "Q5_K", "blk.20.ffn_up": "Q3_K",
		}, "attn_v, ffn_down and attn_output Q5_K"},
		{"llama-2-7b", "Q2_K", map[string]string{
			"blk.0.attn_v": "Q3_K", "blk.0.ffn_down": "Q3_K", "blk.0.attn_output": "Q3_K", "blk.0.attn_q": "Q2_K",
			"token_embd": "Q2_K", "output": "Q6_K",
		}, "without GQA attn_v is Q3_K"},
		{"llama-3.1-8b", "Q2_K", map[string]string{"blk.0.attn_v": "Q4_K", "blk.0.attn_k": "Q2_K"}, "GQA 4: attn_v Q4_K"},
		{"llama-2-7b", "IQ4_XS", map[string]string{
			"blk.0.attn_v": "IQ4_XS", "blk.3.ffn_down": "Q5_K", "blk.4.ffn_down": "IQ4_XS", "output": "Q6_K", "token_embd": "IQ4_XS",
		}, "no GQA: attn_v stays; ffn_down Q5_K below n/8"},
		{"llama-3.1-8b", "IQ4_NL", map[string]string{"blk.9.attn_v": "Q5_K", "blk.9.ffn_down": "IQ4_NL"}, "GQA 4: attn_v Q5_K"},
		{"llama-2-7b", "Q6_K", map[string]string{"blk.0.attn_v": "Q6_K", "output": "Q6_K", "token_embd": "Q6_K"}, "Q6_K everywhere"},
		{"llama-2-7b", "Q4_K", map[string]string{"blk.0.attn_v": "Q4_K", "blk.0.ffn_down": "Q4_K", "output": "Q6_K"}, "the single format: no mix, output Q6_K"},
		{"llama-2-7b", "Q5_1", map[string]string{"blk.0.attn_v": "Q5_1", "output": "Q6_K"}, "legacy block format: output Q6_K"},
		{"llama-2-7b", "Q4_K_M,attn=Q8_0", map[string]string{
			"blk.0.attn_v": "Q8_0", "blk.0.attn_q": "Q8_0", "blk.0.ffn_down": "Q6_K", "blk.5.ffn_down": "Q4_K",
		}, "a named role wins over the rule in every tensor of the role"},
		{"llama-2-7b", "Q4_K_M,ffn=Q4_K", map[string]string{"blk.0.ffn_down": "Q4_K", "blk.0.attn_v": "Q6_K"}, "ffn named: no ffn_down bump"},
		{"mixtral", "Q4_K_M", map[string]string{
			"blk.0.attn_v": "Q8_0", "blk.0.attn_k": "Q8_0", "blk.0.attn_q": "Q4_K", "blk.0.attn_output": "Q5_K",
			"blk.0.ffn_down.e5": "Q6_K", "blk.4.ffn_down.e3": "Q4_K", "blk.0.ffn_up.e1": "Q4_K", "blk.0.ffn_gate_inp": "F32",
		}, "8 experts: attn_v and attn_k Q8_0, attn_output Q5_K; an expert's ffn_down goes by its layer"},
		{"mixtral", "Q4_0", map[string]string{"blk.3.attn_v": "Q8_0", "blk.3.attn_k": "Q8_0", "blk.3.attn_output": "Q4_0"}, "the 8-expert bump holds for every quantised type"},
		{"mixtral", "Q4_0,attn=Q4_0", map[string]string{"blk.3.attn_v": "Q4_0", "blk.3.attn_k": "Q4_0"}, "a named role overrides it"},
		{"mixtral", "Q3_K_L", map[string]string{"blk.0.attn_output": "Q3_K", "blk.0.ffn_down.e0": "Q5_K"}, "8 experts: Q3_K_L's attn_output rule does not apply"},
		{"mixtral", "Q2_K", map[string]string{"blk.0.attn_output": "Q5_K", "blk.0.attn_v": "Q8_0", "blk.7.ffn_down.e7": "Q3_K"}, "8 experts: attn_output Q5_K"},
		{"seed-moe-3b", "Q4_K_M", map[string]string{
			"blk.0.attn_v": "Q6_K", "blk.0.attn_k": "Q4_K", "blk.0.attn_output": "Q4_K", "blk.0.ffn_up.e15": "Q4_K",
			"blk.0.ffn_down.e15": "Q8_0", "blk.3.ffn_down.e0": "Q5_0",
		}, "16 experts are not 8: no bump; an expert's ffn_down (K = 1152, 4.5 blocks of 256) is Q6_K where use_more_bits(layer, 24), else Q4_K, and falls back"},
		{"seed+shared", "Q4_K_M", map[string]string{"blk.5.ffn_down.s0": "Q8_0", "blk.5.ffn_down.e2": "Q8_0", "blk.6.ffn_down.s0": "Q5_0"}, "shared experts go by their layer too"},
	} {
		ts := models[tc.model].Tensors(mustQuant(t, tc.quant))
		for name, want := range tc.want {
			if got := tensorNamed(t, ts, name).Format.String(); got != want {
				t.Errorf("%s %s: %s stored as %s, want %s (%s)", tc.model, tc.quant, name, got, want, tc.why)
			}
		}
	}
}

// TestUseMoreBits: how many layers llama.cpp's use_more_bits picks.
func TestUseMoreBits(t *testing.T) {
	for _, tc := range []struct{ layers, want int }{
		{32, 16}, // 0-3, 28-31, 6, 9, ..., 27
		{24, 12}, // 0-2, 21-23, 5, 8, ..., 20
		{28, 14}, // 0-2, 24-27, 5, 8, ..., 23
		{16, 8},  // 0-1, 14-15, 4, 7, 10, 13
		{1, 1},
	} {
		n := 0
		for i := range tc.layers {
			if moreBits(tensorAt{layer: i, layers: tc.layers}) {
				n++
			}
		}
		if n != tc.want {
			t.Errorf("use_more_bits picks %d of %d layers, want %d", n, tc.layers, tc.want)
		}
	}
}

// TestFileTypeSizesAgainstLlamaBench: llama-bench's size column, in GiB to
// two decimals, for published runs of these GGUF files ("llama 8B Q4_K -
// Medium 4.58 GiB 8.03 B", "qwen2 7B Q4_K - Medium 4.36 GiB 7.62 B",
// "llama 8x7B Q4_K - Medium 26.49 GiB 46.70 B"). Mixtral's figure needs the
// 8-expert rules: without attn_output at Q5_K it would be 26.43 GiB.
func TestFileTypeSizesAgainstLlamaBench(t *testing.T) {
	for _, tc := range []struct {
		name  string
		m     Model
		quant string
		gib   float64
	}{
		{"llama-3.1-8b", loadModel(t, "llama-3.1-8b"), "Q4_K_M", 4.58},
		{"qwen2.5-7b", loadModel(t, "qwen2.5-7b"), "Q4_K_M", 4.36},
		{"mixtral-8x7b", mixtral(t), "Q4_K_M", 26.49},
	} {
		got := tc.m.WeightBytes(mustQuant(t, tc.quant)) / (1 << 30)
		if math.Round(got*100)/100 != tc.gib {
			t.Errorf("%s %s: %.4f GiB, llama-bench %.2f GiB", tc.name, tc.quant, got, tc.gib)
		}
	}
}

func TestMatrixFormats(t *testing.T) {
	l2, l1, mx := loadModel(t, "llama-2-7b"), loadModel(t, "llama-3.2-1b"), mixtral(t)
	odd := Model{Name: "odd", Layers: 1, Hidden: 96, Heads: 3, KVHeads: 1, FFN: 200, Vocab: 10, MaxContext: 8}
	for _, tc := range []struct {
		m     Model
		quant string
		want  []string
		why   string
	}{
		{l2, "Q4_K_M", []string{"Q4_K", "Q6_K"}, "attn_v and ffn_down bumps, output"},
		{l2, "Q4_0", []string{"Q4_0", "Q6_K"}, "the output matrix"},
		{l2, "Q8_0", []string{"Q8_0"}, "one format"},
		{l2, "Q4_0,output=Q4_0", []string{"Q4_0"}, "output named"},
		{l2, "INT8,ffn=INT4", []string{"INT8", "INT4"}, "per role; the embedding table (a lookup) does not count"},
		{l1, "Q4_0", []string{"Q4_0", "Q6_K"}, "the tied table is the output matmul's, read last"},
		{mx, "Q4_K_M", []string{"Q4_K", "Q8_0", "Q5_K", "Q6_K"}, "8-expert rules"},
		{odd, "Q4_0", []string{"Q4_0", "F16", "Q8_0"}, "row fits: ffn_down (K=200) F16, output (K=96) Q8_0"},
	} {
		var got []string
		for _, f := range tc.m.MatrixFormats(mustQuant(t, tc.quant)) {
			got = append(got, f.String())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %s MatrixFormats = %v, want %v (%s)", tc.m.Name, tc.quant, got, tc.want, tc.why)
		}
	}
}
