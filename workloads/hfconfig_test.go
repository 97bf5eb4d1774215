package workloads

import (
	"math"
	"os"

	"path/filepath"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseHFConfigTestdata(t *testing.T) {
	// Each file holds a published config.json's values (written out here,
	// not copied), from the Hugging Face repository in the comment.
	for _, tc := range []struct {
		file   string
		want   Model   // Sources and Name checked apart
		params float64 // published total
		tol    float64 // relative; 0 means exactly
		why    string
	}{
		{"llama-2-7b.config.json",
			Model{Family: "llama", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, FFN: 11008, FFNKind: FFNGated, Vocab: 32000, MaxContext: 4096},
			6738415616, 0, "llama-bench model_n_params; same as the catalog entry"},
		{"mixtral-8x7b.config.json",
			Model{Family: "mixtral", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, FFN: 14336, FFNKind: FFNGated, Vocab: 32000, MaxContext: 32768,
				MoE: &MoE{Experts: 8, Active: 2}},
			46702792704, 0, "HF safetensors total of Mixtral-8x7B-v0.1 (46.7B)"},
		{"qwen2.5-7b.config.json",
			Model{Family: "qwen2", Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, FFN: 18944, FFNKind: FFNGated, Vocab: 152064, MaxContext: 131072, QKVBias: true},
			7615616512, 0, "HF safetensors total of Qwen2.5-7B (7.62B)"},
		{"gemma-2-2b.config.json",
			Model{Family: "gemma2", Layers: 26, Hidden: 2304, Heads: 8, KVHeads: 4, HeadDim: 256, FFN: 9216, FFNKind: FFNGated, Vocab: 256000, MaxContext: 8192,
				TiedEmbeddings: true, PostNorms: true},
			2614341888, 0, "HF safetensors total of gemma-2-2b (2.61B): tied by default, 4 norms a layer"},
		{"phi-3-mini-4k.config.json",
			Model{Family: "phi3", Layers: 32, Hidden: 3072, Heads: 32, KVHeads: 32, FFN: 8192, FFNKind: FFNGated, Vocab: 32064, MaxContext: 4096},
			3821079552, 0, "HF safetensors total of Phi-3-mini-4k-instruct (3.82B)"},
		// google/gemma-3-1b-it
		{"gemma-3-1b-it.config.json",
			Model{Family: "gemma3_text", Layers: 26, Hidden: 1152, Heads: 4, KVHeads: 1, HeadDim: 256, FFN: 6912, FFNKind: FFNGated, Vocab: 262144, MaxContext: 32768,
				TiedEmbeddings: true, QKNorm: true, PostNorms: true},
			999885952, 0, "HF safetensors total of gemma-3-1b-it, and keras-hub's gemma3_1b preset: tied, per-head q/k norms, 4 norms a layer"},
		// google/gemma-3-4b-it: the language model under text_config, most sizes from Gemma3TextConfig's defaults
		{"gemma-3-4b-it.config.json",
			Model{Family: "gemma3_text", Layers: 34, Hidden: 2560, Heads: 8, KVHeads: 4, HeadDim: 256, FFN: 10240, FFNKind: FFNGated, Vocab: 262208, MaxContext: 131072,
				TiedEmbeddings: true, QKNorm: true, PostNorms: true},
			3880099328 + 64*2560, 0, "keras-hub's gemma3_4b_text preset (3880099328, a 262144-row table) plus the 64 rows by which HF's vocab_size 262208 " +
				"exceeds it; HF's 4300079472 for gemma-3-4b-it also counts the SigLIP vision tower"},
		// microsoft/phi-2
		{"phi-2.config.json",
			Model{Family: "phi", Layers: 32, Hidden: 2560, Heads: 32, KVHeads: 32, FFN: 10240, FFNKind: FFNPlain, Vocab: 51200, MaxContext: 2048, QKVBias: true},
			2779683840, 0.0005, "HF safetensors total of phi-2; Model has no biases on dense, fc1, fc2 and lm_head nor on the final LayerNorm " +
				"(545280 parameters, 0.02%)"},
		// stabilityai/stablelm-2-1_6b
		{"stablelm-2-1_6b.config.json",
			Model{Family: "stablelm", Layers: 24, Hidden: 2048, Heads: 32, KVHeads: 32, FFN: 5632, FFNKind: FFNGated, Vocab: 100352, MaxContext: 4096, QKVBias: true},
			1644417024, 0.0005, "the model card's 1,644,417,024; Model's norms have no LayerNorm biases (the card seems to leave out the blocks' too)"},
		// bigcode/starcoder2-3b: no tie_word_embeddings key, and Starcoder2Config ties by default
		{"starcoder2-3b.config.json",
			Model{Family: "starcoder2", Layers: 30, Hidden: 3072, Heads: 24, KVHeads: 2, FFN: 12288, FFNKind: FFNPlain, Vocab: 49152, MaxContext: 16384,
				TiedEmbeddings: true, QKVBias: true},
			3.03e9, 0.001, "HF's 3.03B (3.18B if it were untied); Model has no o_proj, c_fc, c_proj or LayerNorm biases (0.02%)"},
		// EleutherAI/pythia-1b
		{"pythia-1b.config.json",
			Model{Family: "gpt_neox", Layers: 16, Hidden: 2048, Heads: 8, KVHeads: 8, FFN: 8192, FFNKind: FFNPlain, Vocab: 50304, MaxContext: 2048, QKVBias: true},
			1011781632, 0.0005, "HF safetensors total of pythia-1b; Model has no dense, FFN or LayerNorm biases (264192 parameters, 0.03%)"},
		// ibm-granite/granite-3.3-2b-instruct
		{"granite-3.3-2b-instruct.config.json",
			Model{Family: "granite", Layers: 40, Hidden: 2048, Heads: 32, KVHeads: 8, FFN: 8192, FFNKind: FFNGated, Vocab: 49159, MaxContext: 131072,
				TiedEmbeddings: true},
			2533539840, 0, "HF safetensors total and llama-bench model_n_params of granite-3.3-2b-instruct"},
		// allenai/OLMo-2-0425-1B
		{"olmo-2-0425-1b.config.json",
			Model{Family: "olmo2", Layers: 16, Hidden: 2048, Heads: 16, KVHeads: 16, FFN: 8192, FFNKind: FFNGated, Vocab: 100352, MaxContext: 4096, QKNorm: true},
			1484916736, 0.0005, "HF safetensors total of OLMo-2-0425-1B; its q and k norms span all heads, Model counts one head's (61440 parameters)"},
		// internlm/internlm2-chat-1_8b
		{"internlm2-chat-1_8b.config.json",
			Model{Family: "internlm2", Layers: 24, Hidden: 2048, Heads: 16, KVHeads: 8, FFN: 8192, FFNKind: FFNGated, Vocab: 92544, MaxContext: 32768},
			1889110016, 0, "HF safetensors total of internlm2_5-1_8b-chat, whose shapes are these; bias false turns off the wqkv and wo biases"},
		// HuggingFaceTB/SmolLM3-3B-Base
		{"smollm3-3b-base.config.json",
			Model{Family: "smollm3", Layers: 36, Hidden: 2048, Heads: 16, KVHeads: 4, FFN: 11008, FFNKind: FFNGated, Vocab: 128256, MaxContext: 65536,
				TiedEmbeddings: true},
			3075098624, 0, "HF safetensors total of SmolLM3-3B (same shapes); NoPE layers change no size"},
		// LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct: layers under num_layers
		{"exaone-3.0-7.8b-instruct.config.json",
			Model{Family: "exaone", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, FFN: 14336, FFNKind: FFNGated, Vocab: 102400, MaxContext: 4096},
			7.8e9, 0.005, "the 7.8B of the model card and technical report, a rounded figure"},
	} {
		m, err := ParseHFConfig("testdata/"+tc.file, readTestdata(t, tc.file))
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		got := m
		got.Name, got.Sources = "", nil
		if !modelsEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v %+v\nwant %+v %+v", tc.file, got, got.MoE, tc.want, tc.want.MoE)
		}
		if p := float64(m.Params()); (tc.tol == 0 && p != tc.params) || math.Abs(p-tc.params) > tc.tol*tc.params {
			t.Errorf("%s: Params = %.0f, want %.0f within %v (%s)", tc.file, p, tc.params, tc.tol, tc.why)
		}
		if !strings.Contains(m.Sources["layers"], "testdata/"+tc.file+":") || !strings.Contains(m.Sources["layers"], "layers") {
			t.Errorf("%s: sources %v do not cite the layer count", tc.file, m.Sources)
		}
	}
	// Names: _name_or_path, else the file name.
	m, _ := ParseHFConfig("x/config.json", readTestdata(t, "llama-2-7b.config.json"))
	if m.Name != "meta-llama/Llama-2-7b-hf" {
		t.Errorf("name %q, want _name_or_path", m.Name)
	}
	m, _ = ParseHFConfig("models/Mixtral-8x7B/config.json", readTestdata(t, "mixtral-8x7b.config.json"))
	if m.Name != "Mixtral-8x7B" {
		t.Errorf("name %q, want the folder of config.json", m.Name)
	}
	if m.Sources["moe.experts"] != "models/Mixtral-8x7B/config.json:18 num_local_experts" {
		t.Errorf("moe.experts source %q", m.Sources["moe.experts"])
	}
}

// TestParseHFConfigNested checks that a gemma3 config is read from its
// text_config: keys at their own lines, named text_config.KEY, and
// Gemma3TextConfig's defaults cited as such.
func TestParseHFConfigNested(t *testing.T) {
	m, err := ParseHFConfig("gemma-3-4b-it/config.json", readTestdata(t, "gemma-3-4b-it.config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "gemma-3-4b-it" {
		t.Errorf("name %q, want the folder", m.Name)
	}
	for field, want := range map[string]string{
		"hidden":   "gemma-3-4b-it/config.json:16 text_config.hidden_size",
		"layers":   "gemma-3-4b-it/config.json:19 text_config.num_hidden_layers",
		"heads":    "Gemma3TextConfig default text_config.num_attention_heads=8 (absent from gemma-3-4b-it/config.json)",
		"kv_heads": "Gemma3TextConfig default text_config.num_key_value_heads=4 (absent from gemma-3-4b-it/config.json)",
		"head_dim": "Gemma3TextConfig default text_config.head_dim=256 (absent from gemma-3-4b-it/config.json)",
	} {
		if got := m.Sources[field]; got != want {
			t.Errorf("source of %s: %q, want %q", field, got, want)
		}
	}

	const nested = "{\n \"model_type\": \"gemma3\",\n \"text_config\": {\n  \"hidden_size\": 2560,\n  \"num_hidden_layers\": 34\n },\n \"vision_config\": {}\n}"
	with := func(old, new string) string {
		if !strings.Contains(nested, old) {
			t.Fatalf("fixture lacks %q", old)
		}
		return strings.Replace(nested, old, new, 1)
	}
	if _, err := ParseHFConfig("c.json", []byte(nested)); err != nil {
		t.Errorf("minimal nested config: %v", err)
	}
	for _, tc := range []struct{ name, json, want string }{
		{"bad nested value", with(`"num_hidden_layers": 34`, `"num_hidden_layers": -1`),
			"c.json:5: field text_config.num_hidden_layers: -1 is not allowed: must be a positive integer"},
		{"no text_config", `{"model_type": "gemma3", "vision_config": {}}`,
			"c.json:1: field text_config: missing: must be an object holding the gemma3_text language model"},
		{"text_config not an object", with("{\n  \"hidden_size\": 2560,\n  \"num_hidden_layers\": 34\n }", "[1]"),
			"c.json:3: field text_config: [1] is not allowed: must be an object holding the gemma3_text language model"},
		{"text_config null", with("{\n  \"hidden_size\": 2560,\n  \"num_hidden_layers\": 34\n }", "null"),
			"c.json:3: field text_config: null is not allowed: must be an object holding the gemma3_text language model"},
		{"default that does not fit", with(`"hidden_size": 2560,`, `"hidden_size": 2560, "num_attention_heads": 6,`),
			"c.json:3: field text_config.num_key_value_heads: 4 is not allowed: must divide heads (6) (the key is absent and Gemma3TextConfig's default is used)"},
		{"bad nested bool", with(`"hidden_size": 2560,`, `"hidden_size": 2560, "tie_word_embeddings": 1,`),
			"c.json:4: field text_config.tie_word_embeddings: 1 is not allowed: must be true or false"},
		{"multimodal without a rule", `{"model_type": "llava", "text_config": {"model_type": "llama"}}`,
			`c.json:1: field model_type: "llava" is not supported: use one of`},
	} {
		_, err := ParseHFConfig("c.json", []byte(tc.json))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", tc.name, err, tc.want)
		}
	}
}

func modelsEqual(a, b Model) bool {
	am, bm := a.MoE, b.MoE
	a.MoE, b.MoE = nil, nil
	a.Sources, b.Sources = nil, nil
	if (am == nil) != (bm == nil) || (am != nil && *am != *bm) {
		return false
	}
	return a.Name == b.Name && a.Family == b.Family && a.Layers == b.Layers && a.Hidden == b.Hidden &&
		a.Heads == b.Heads && a.KVHeads == b.KVHeads && a.HeadDim == b.HeadDim && a.FFN == b.FFN &&
		a.FFNKind == b.FFNKind && a.Vocab == b.Vocab && a.TiedEmbeddings == b.TiedEmbeddings &&
		a.MaxContext == b.MaxContext && a.QKVBias == b.QKVBias && a.QKNorm == b.QKNorm && a.PostNorms == b.PostNorms
}

func TestParseHFConfigFamilies(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		params     float64 // published total
		tol        float64 // relative
		check      func(Model) bool
		why        string
	}{
		{"mistral", `{"model_type":"mistral","hidden_size":4096,"intermediate_size":14336,"max_position_embeddings":32768,
			"num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,"vocab_size":32000,"head_dim":null}`,
			7241732096, 0, func(m Model) bool { return !m.TiedEmbeddings && m.HeadDimension() == 128 },
			"Mistral-7B-v0.1 7.24B; head_dim null means hidden/heads"},
		{"qwen3", `{"model_type":"qwen3","hidden_size":4096,"intermediate_size":12288,"max_position_embeddings":40960,
			"num_attention_heads":32,"num_hidden_layers":36,"num_key_value_heads":8,"head_dim":128,"vocab_size":151936,"tie_word_embeddings":false}`,
			8190735360, 0, func(m Model) bool { return m.QKNorm && !m.QKVBias },
			"Qwen3-8B 8.19B with per-head q/k norms"},
		{"qwen3_moe", `{"model_type":"qwen3_moe","hidden_size":2048,"intermediate_size":6144,"moe_intermediate_size":768,
			"max_position_embeddings":40960,"num_attention_heads":32,"num_hidden_layers":48,"num_key_value_heads":4,"head_dim":128,
			"num_experts":128,"num_experts_per_tok":8,"vocab_size":151936,"tie_word_embeddings":false}`,
			30.5e9, 0.005, func(m Model) bool {
				return m.MoE.Experts == 128 && m.MoE.Active == 8 && m.FFN == 768 && m.MoE.Shared == 0
			},
			"Qwen3-30B-A3B: 30.5B total"},
		{"qwen2_moe", `{"model_type":"qwen2_moe","hidden_size":2048,"intermediate_size":5632,"moe_intermediate_size":1408,
			"shared_expert_intermediate_size":5632,"max_position_embeddings":8192,"num_attention_heads":16,"num_hidden_layers":24,
			"num_key_value_heads":16,"num_experts":60,"num_experts_per_tok":4,"vocab_size":151936}`,
			14.3e9, 0.005, func(m Model) bool { return m.MoE.Shared == 1 && m.MoE.SharedFFN == 5632 && m.QKVBias },
			"Qwen1.5-MoE-A2.7B: 14.3B total, one shared expert"},
		{"gemma", `{"model_type":"gemma","head_dim":256,"hidden_size":2048,"intermediate_size":16384,"max_position_embeddings":8192,
			"num_attention_heads":8,"num_hidden_layers":18,"num_key_value_heads":1,"vocab_size":256000}`,
			2506172416, 0, func(m Model) bool { return m.TiedEmbeddings && !m.PostNorms },
			"gemma-2b 2.51B; Gemma ties embeddings by default"},
		{"llama without kv heads", `{"model_type":"llama","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,
			"num_attention_heads":4,"num_hidden_layers":2,"vocab_size":100}`,
			0, 0, func(m Model) bool { return m.KVHeads == 4 && !m.TiedEmbeddings },
			"num_key_value_heads defaults to num_attention_heads"},
		{"stablelm defaults", `{"model_type":"stablelm","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,"num_attention_heads":64,"num_hidden_layers":2,"vocab_size":100}`,
			0, 0, func(m Model) bool {
				return m.KVHeads == 32 && !m.QKVBias && !m.QKNorm && !m.TiedEmbeddings && m.gated()
			},
			"StableLmConfig: 32 KV heads, use_qkv_bias and qk_layernorm false, untied"},
		{"stablelm switches", `{"model_type":"stablelm","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,"num_attention_heads":32,"num_hidden_layers":2,"vocab_size":100,"num_key_value_heads":8,"use_qkv_bias":true,"qk_layernorm":true}`,
			0, 0, func(m Model) bool { return m.KVHeads == 8 && m.QKVBias && m.QKNorm },
			"use_qkv_bias and qk_layernorm turn the q, k, v biases and q/k norms on"},
		{"starcoder2 defaults", `{"model_type":"starcoder2","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,"num_attention_heads":32,"num_hidden_layers":2,"vocab_size":100}`,
			0, 0, func(m Model) bool { return m.KVHeads == 2 && m.QKVBias && m.TiedEmbeddings && !m.gated() },
			"Starcoder2Config: 2 KV heads, use_bias true, tied; c_fc and c_proj only"},
		{"starcoder2 without biases", `{"model_type":"starcoder2","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,"num_attention_heads":32,"num_hidden_layers":2,"vocab_size":100,"use_bias":false,"tie_word_embeddings":false}`,
			0, 0, func(m Model) bool { return !m.QKVBias && !m.TiedEmbeddings },
			"use_bias false"},
		{"gpt_neox", `{"model_type":"gpt_neox","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,"num_attention_heads":32,"num_hidden_layers":2,"vocab_size":100,"attention_bias":false}`,
			0, 0, func(m Model) bool { return m.KVHeads == 32 && !m.QKVBias && !m.TiedEmbeddings && !m.gated() },
			"attention_bias (default true) switches query_key_value's bias"},
		{"phi with qk_layernorm", `{"model_type":"phi","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,"num_attention_heads":32,"num_hidden_layers":2,"vocab_size":100,"qk_layernorm":true}`,
			0, 0, func(m Model) bool { return m.QKVBias && m.QKNorm && !m.gated() && !m.TiedEmbeddings },
			"phi: fixed q, k, v biases; qk_layernorm adds q/k norms"},
		{"internlm2 defaults", `{"model_type":"internlm2","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,"num_attention_heads":32,"num_hidden_layers":2,"vocab_size":100}`,
			0, 0, func(m Model) bool { return m.QKVBias && !m.TiedEmbeddings && m.KVHeads == 32 },
			"InternLM2Config: bias true, untied"},
		{"granite with attention_bias", `{"model_type":"granite","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,"num_attention_heads":32,"num_hidden_layers":2,"vocab_size":100,"attention_bias":true}`,
			0, 0, func(m Model) bool { return m.QKVBias && !m.TiedEmbeddings },
			"GraniteConfig: untied unless told"},
		{"olmo2", `{"model_type":"olmo2","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,"num_attention_heads":32,"num_hidden_layers":2,"vocab_size":100}`,
			0, 0, func(m Model) bool { return m.QKNorm && !m.QKVBias && !m.PostNorms && !m.TiedEmbeddings },
			"q and k norms; its two norms a block sit after the sub-layers, the same count as before"},
		{"olmoe", `{"model_type":"olmoe","hidden_size":2048,"intermediate_size":1024,"max_position_embeddings":4096,"num_attention_heads":16,
			"num_hidden_layers":16,"num_key_value_heads":16,"num_experts":64,"num_experts_per_tok":8,"vocab_size":50304,"tie_word_embeddings":false}`,
			6.9e9, 0.005, func(m Model) bool {
				return m.MoE.Experts == 64 && m.MoE.Active == 8 && m.FFN == 1024 && m.MoE.Shared == 0 && m.QKNorm && !m.QKVBias && !m.TiedEmbeddings
			},
			"OLMoE-1B-7B: 6.9B total (arXiv:2409.02060), 64 experts of 1024, 8 routed a token"},
		{"smollm3 defaults", `{"model_type":"smollm3","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,"num_attention_heads":16,"num_hidden_layers":2,"vocab_size":100}`,
			0, 0, func(m Model) bool { return m.KVHeads == 4 && m.TiedEmbeddings && !m.QKVBias },
			"SmolLM3Config: 4 KV heads, tied"},
		{"exaone", `{"model_type":"exaone","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,"num_attention_heads":32,"num_layers":2,"vocab_size":100}`,
			0, 0, func(m Model) bool {
				return m.Layers == 2 && m.TiedEmbeddings && m.Sources["layers"] == "exaone.json:1 num_layers"
			},
			"ExaoneConfig: layers in num_layers, tied by default"},
		{"chatglm", `{"model_type":"chatglm","num_layers":28,"hidden_size":4096,"num_attention_heads":32,"kv_channels":128,
			"multi_query_attention":true,"multi_query_group_num":2,"ffn_hidden_size":13696,"seq_length":8192,"padded_vocab_size":65024,
			"add_qkv_bias":true,"tie_word_embeddings":false}`,
			6243584000, 0, func(m Model) bool {
				return m.Layers == 28 && m.KVHeads == 2 && m.FFN == 13696 && m.Vocab == 65024 && m.MaxContext == 8192 && m.QKVBias &&
					m.gated() && m.Sources["kv_heads"] == "chatglm.json:2 multi_query_group_num"
			},
			"ChatGLM3-6B by hand: 2·65024·4096 embedding and output, 28 layers of 4096·4608 qkv + 4608 biases, 4096² dense, 3·4096·13696 FFN, two norms; one final norm"},
		{"chatglm without multi-query attention", `{"model_type":"chatglm","num_layers":2,"hidden_size":64,"num_attention_heads":32,
			"multi_query_group_num":2,"ffn_hidden_size":128,"seq_length":16,"padded_vocab_size":100}`,
			0, 0, func(m Model) bool { return m.KVHeads == 32 && !m.QKVBias && !m.TiedEmbeddings },
			"ChatGLMConfig: multi_query_attention and add_qkv_bias false unless set; the group count then does not apply"},
		{"gemma3_text defaults", `{"model_type":"gemma3_text","hidden_size":640,"intermediate_size":2048,"num_hidden_layers":18}`,
			0, 0, func(m Model) bool {
				return m.Heads == 8 && m.KVHeads == 4 && m.HeadDim == 256 && m.Vocab == 262208 && m.MaxContext == 131072 && m.QKNorm && m.PostNorms
			},
			"Gemma3TextConfig's defaults fill what a gemma3_text config leaves out"},
	} {
		m, err := ParseHFConfig(tc.name+".json", []byte(tc.json))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !tc.check(m) {
			t.Errorf("%s: parsed %+v (%s)", tc.name, m, tc.why)
		}
		if tc.params > 0 {
			p := float64(m.Params())
			if (tc.tol == 0 && p != tc.params) || (tc.tol > 0 && (p < tc.params*(1-tc.tol) || p > tc.params*(1+tc.tol))) {
				t.Errorf("%s: Params = %.0f, want %.0f within %v (%s)", tc.name, p, tc.params, tc.tol, tc.why)
			}
		}
	}
}

func TestParseHFConfigErrors(t *testing.T) {
	const llama = `{
  "model_type": "llama",
  "hidden_size": 4096,
  "num_hidden_layers": 32,
  "num_attention_heads": 32,
  "num_key_value_heads": 32,
  "intermediate_size": 11008,
  "vocab_size": 32000,
  "max_position_embeddings": 4096
}`
	with := func(old, new string) string {
		if !strings.Contains(llama, old) {
			t.Fatalf("fixture lacks %q", old)
		}
		return strings.Replace(llama, old, new, 1)
	}
	for _, tc := range []struct{ name, json, want string }{
		{"negative layers", with(`"num_hidden_layers": 32`, `"num_hidden_layers": -3`),
			"c.json:4: field num_hidden_layers: -3 is not allowed: must be a positive integer"},
		{"zero heads", with(`"num_attention_heads": 32`, `"num_attention_heads": 0`),
			"c.json:5: field num_attention_heads: 0 is not allowed: must be a positive integer"},
		{"missing layers", with(`"num_hidden_layers": 32,`, ``),
			"c.json:1: field num_hidden_layers: missing: must be a positive integer"},
		{"layers null", with(`"num_hidden_layers": 32`, `"num_hidden_layers": null`),
			"c.json:4: field num_hidden_layers: null is not allowed: must be a positive integer"},
		{"string number", with(`"hidden_size": 4096`, `"hidden_size": "4096"`),
			`c.json:3: field hidden_size: "4096" is not allowed: must be a positive integer`},
		{"fraction", with(`"hidden_size": 4096`, `"hidden_size": 4096.5`),
			`c.json:3: field hidden_size: 4096.5 is not allowed: must be a positive integer`},
		{"huge", with(`"vocab_size": 32000`, `"vocab_size": 99999999999999999999`),
			`c.json:8: field vocab_size: 99999999999999999999 is not allowed: must be a positive integer`},
		{"too large", with(`"num_hidden_layers": 32`, `"num_hidden_layers": 100000`),
			`c.json:4: field num_hidden_layers: 100000 is not allowed: must be a positive integer no larger than 1024`},
		{"kv heads do not divide", with(`"num_key_value_heads": 32`, `"num_key_value_heads": 5`),
			`c.json:6: field num_key_value_heads: 5 is not allowed: must divide heads (32)`},
		{"object value", with(`"num_hidden_layers": 32`, "\"num_hidden_layers\": {\"a\":\n 1}"),
			`c.json:4: field num_hidden_layers: {"a":1} is not allowed: must be a positive integer`},
		{"bad bool", with(`"vocab_size": 32000`, `"vocab_size": 32000, "tie_word_embeddings": "yes"`),
			`c.json:8: field tie_word_embeddings: "yes" is not allowed: must be true or false`},
		{"head_dim zero", with(`"vocab_size": 32000`, `"vocab_size": 32000, "head_dim": 0`),
			`c.json:8: field head_dim: 0 is not allowed: must be a positive integer`},
		{"unsupported type", with(`"llama"`, `"bert"`),
			`c.json:2: field model_type: "bert" is not supported: use one of chatglm, exaone, gemma, gemma2, gemma3, gemma3_text, gpt_neox, granite, internlm2, ` +
				`llama, mistral, mixtral, olmo2, olmoe, phi, phi3, qwen2, qwen2_moe, qwen3, qwen3_moe, smollm3, stablelm, starcoder2`},
		{"model_type not a string", with(`"llama"`, `42`),
			`c.json:2: field model_type: 42 is not supported: use one of chatglm, exaone, gemma`},
		{"missing model_type", with(`"model_type": "llama",`, ``),
			`c.json:1: field model_type: missing: must be one of chatglm, exaone, gemma, gemma2`},
		{"too many experts active", `{"model_type":"mixtral","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,
"num_attention_heads":4,"num_hidden_layers":2,"vocab_size":100,"num_local_experts":2,"num_experts_per_tok":3}`,
			`c.json:2: field num_experts_per_tok: 3 is not allowed: must be from 1 to experts (2)`},
		{"mixtral without experts", `{"model_type":"mixtral","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,
"num_attention_heads":4,"num_hidden_layers":2,"vocab_size":100}`,
			`c.json:1: field num_local_experts: missing: must be a positive integer`},
		{"bad bias switch", `{"model_type":"stablelm","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,
"num_attention_heads":4,"num_hidden_layers":2,"vocab_size":100,"use_qkv_bias":"yes"}`,
			`c.json:2: field use_qkv_bias: "yes" is not allowed: must be true or false`},
		{"exaone layers under the llama key", `{"model_type":"exaone","hidden_size":64,"intermediate_size":128,"max_position_embeddings":16,
"num_attention_heads":4,"num_hidden_layers":2,"vocab_size":100}`,
			`c.json:1: field num_layers: missing: must be a positive integer`},
		{"array", `[1, 2]`, `c.json:1: not a Hugging Face config.json: expected a JSON object`},
		{"string", `"model_type"`, `c.json:1: not a Hugging Face config.json: expected a JSON object`},
		{"empty", ``, `c.json:1: not a Hugging Face config.json: the JSON ends early`},
		{"binary", "\x00\x01\x02\xff", `c.json:1: not a Hugging Face config.json: invalid character`},
		{"truncated", "{\n\"model_type\": \"llama\",\n", `c.json:3: not a Hugging Face config.json: the JSON ends early`},
		{"syntax error line", "{\n\"model_type\": \"llama\",\n\"hidden_size\": 40 96\n}", `c.json:3: not a Hugging Face config.json: invalid character '9'`},
		{"trailing data", "{}\n{}", `c.json:2: not a Hugging Face config.json: data after the JSON object`},
	} {
		_, err := ParseHFConfig("c.json", []byte(tc.json))
		if err == nil {
			t.Errorf("%s: no error, want %q", tc.name, tc.want)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, msg, tc.want)
		}
		if strings.ContainsAny(msg, "\n\r") {
			t.Errorf("%s: error spans lines: %q", tc.name, msg)
		}
	}
	// Heads that do not divide hidden, and no head_dim to say the width.
	odd := strings.NewReplacer(`"num_attention_heads": 32`, `"num_attention_heads": 3`,
		`"num_key_value_heads": 32`, `"num_key_value_heads": 3`).Replace(llama)
	_, err := ParseHFConfig("c.json", []byte(odd))
	if want := "c.json:1: field head_dim: missing: must be given when heads (3) does not divide hidden (4096)"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestIsHFConfig(t *testing.T) {
	for in, want := range map[string]bool{
		`{"model_type": "llama"}`:                 true,
		`{"model_type": "bert", "x": [1]}`:        true, // recognised; ParseHFConfig then says unsupported
		`{"name": "llama-2-7b"}`:                  false,
		"name: x\nlayers: 32\n":                   false, // a model YAML
		`[{"model_type": "llama"}]`:               false,
		`{"a": {"model_type": "llama"}}`:          false, // only the top level counts
		"":                                        false,
		"\x00\xff":                                false,
		`{"model_type": "llama"`:                  true, // broken JSON still recognised, so its error is JSON's (issue 17)
		"\xef\xbb\xbf{\"model_type\": \"llama\"}": true,
		`{"model_type": "llama", }`:               true,
	} {
		if got := IsHFConfig([]byte(in)); got != want {
			t.Errorf("IsHFConfig(%q) = %v, want %v", in, got, want)
		}
	}
	if !IsHFConfig(readTestdata(t, "gemma-2-2b.config.json")) {
		t.Error("gemma-2-2b config.json not recognised")
	}
}

func FuzzParseHFConfig(f *testing.F) {
	entries, _ := os.ReadDir("testdata")
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			data, err := os.ReadFile(filepath.Join("testdata", e.Name()))
			if err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`{"model_type":"qwen2_moe","hidden_size":64,"intermediate_size":128,"moe_intermediate_size":32,"shared_expert_intermediate_size":64,"max_position_embeddings":16,"num_attention_heads":4,"num_hidden_layers":2,"num_experts":4,"num_experts_per_tok":2,"vocab_size":100}`))
	f.Add([]byte(`{"model_type":"llama","num_hidden_layers":-3}`))
	f.Add([]byte("\x00\x01"))
	f.Add([]byte(`{"model_type":"gemma","head_dim":null,"hidden_size":1e3}`))
	// Nested text_config (one line, several, not an object, repeated), class
	// defaults, switch keys and other layer keys.
	f.Add([]byte("{\"model_type\":\"gemma3\",\n\"text_config\":{\n\"hidden_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":2,\"head_dim\":8,\"vocab_size\":10}}"))
	f.Add([]byte(`{"model_type":"gemma3","text_config":[{"hidden_size":64}]}`))
	f.Add([]byte(`{"model_type":"gemma3","text_config":{"text_config":{}},"text_config":{"num_hidden_layers":null}}`))
	f.Add([]byte(`{"model_type":"gemma3_text","hidden_size":8,"intermediate_size":8,"num_hidden_layers":1,"num_attention_heads":3}`))
	f.Add([]byte(`{"model_type":"stablelm","hidden_size":64,"intermediate_size":64,"max_position_embeddings":8,"num_attention_heads":4,"num_hidden_layers":1,"vocab_size":10,"use_qkv_bias":"true","qk_layernorm":true}`))
	f.Add([]byte(`{"model_type":"exaone","num_layers":1,"hidden_size":64,"intermediate_size":64,"max_position_embeddings":8,"num_attention_heads":4,"vocab_size":10}`))
	f.Add([]byte(`{"model_type":"starcoder2","hidden_size":64,"intermediate_size":64,"max_position_embeddings":8,"num_attention_heads":3,"num_hidden_layers":1,"vocab_size":10}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseHFConfig("f.json", data)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "f.json:") || strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error not one located line: %q", msg)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("parsed model does not validate: %v", err)
		}
		if !IsHFConfig(data) {
			t.Fatal("parsed, but IsHFConfig says no")
		}
		if m.paramsFloat() <= 0 || m.KVBytesPerToken(KVFormat{}) <= 0 {
			t.Fatalf("degenerate model %+v", m)
		}
		// Listing every tensor is cheap only for modest models.
		experts := 1
		if m.MoE != nil {
			experts += m.MoE.Experts + m.MoE.Shared
		}
		if m.Layers*experts <= 4096 {
			if p := m.Params(); float64(p) != m.paramsFloat() {
				t.Fatalf("Params %d != closed form %.0f", p, m.paramsFloat())
			}
		}
	})
}

// TestMalformedHFConfigs: keys given twice in a config.json are refused
// at the second, naming the first (testdata/malformed/README.md).
func TestMalformedHFConfigs(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"hf-duplicate-key.config.json", `hf-duplicate-key.config.json:5: field num_hidden_layers: duplicate key "num_hidden_layers" (first at line 3)`},
		{"hf-duplicate-nested-key.config.json", `hf-duplicate-nested-key.config.json:8: field rope_scaling.factor: duplicate key "factor" (first at line 7)`},
	} {
		data, err := os.ReadFile("testdata/malformed/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ParseHFConfig(tc.file, data)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !spec.IsSpecError(err) {
			t.Errorf("%s: got %v, want a spec.Error containing %q", tc.file, err, tc.want)
		}
	}
}
