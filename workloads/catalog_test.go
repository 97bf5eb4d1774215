package workloads

import (
	"bytes"
	"io/fs"
	"math"
	"path"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// catalogIDs are the models CONTRACT.md requires in the catalog.
var catalogIDs = []string{"llama-2-7b", "llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "qwen2.5-7b", "seed-moe-3b"}

// loadModel strictly decodes models/<id>.yaml from the embedded catalog (the
// real loader lives in hw/spec; this only proves the files match Model).
func loadModel(t testing.TB, id string) Model {
	t.Helper()
	data, err := ModelFiles.ReadFile("models/" + id + ".yaml")
	if err != nil {
		t.Fatalf("catalog model %s: %v", id, err)
	}
	var m Model
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("models/%s.yaml does not match Model: %v", id, err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("models/%s.yaml: %v", id, err)
	}
	return m
}

func TestCatalogFilesDecodeValidateAndCiteEveryField(t *testing.T) {
	files, err := fs.Glob(ModelFiles, "models/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range files {
		id := strings.TrimSuffix(path.Base(f), ".yaml")
		have[id] = true
		loadModel(t, id)

		// Every figure given needs a citation under sources, keyed by its
		// field path.
		data, _ := ModelFiles.ReadFile(f)
		var doc map[string]any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		sources, _ := doc["sources"].(map[string]any)
		for key, v := range doc {
			switch key {
			case "name", "sources":
				continue
			case "moe":
				for sub := range v.(map[string]any) {
					if sources["moe."+sub] == nil {
						t.Errorf("%s: moe.%s has no source", f, sub)
					}
				}
				continue
			}
			if sources[key] == nil {
				t.Errorf("%s: %s has no source", f, key)
			}
		}
	}
	for _, id := range catalogIDs {
		if !have[id] {
			t.Errorf("catalog lacks %s (required by CONTRACT.md)", id)
		}
	}
}

func TestCatalogParams(t *testing.T) {
	for _, tc := range []struct {
		id     string
		params int64
		why    string
	}{
		{"llama-2-7b", 6738415616, "llama-bench model_n_params for llama 7B"},
		{"llama-3.2-1b", 1235814400, "HF safetensors total of Llama-3.2-1B (1.24B)"},
		{"llama-3.2-3b", 3212749824, "HF safetensors total of Llama-3.2-3B (3.21B)"},
		{"llama-3.1-8b", 8030261248, "HF safetensors total of Llama-3.1-8B (8.03B)"},
		{"qwen2.5-7b", 7615616512, "HF safetensors total of Qwen2.5-7B (7.62B), q/k/v biases included"},
		// 24*(attn 10485760 + router 32768 + 16 experts*7077888 + norms 4096)
		// + 2*32000*2048 + 2048, by hand.
		{"seed-moe-3b", 3101526016, "hand count; CONTRACT.md says about 3.1B"},
	} {
		m := loadModel(t, tc.id)
		if got := m.Params(); got != tc.params {
			t.Errorf("%s Params = %d, want %d (%s)", tc.id, got, tc.params, tc.why)
		}
		if got := m.paramsFloat(); got != float64(tc.params) {
			t.Errorf("%s closed-form params = %.0f, want %d", tc.id, got, tc.params)
		}
	}
}

func TestSeedMoEMatchesContract(t *testing.T) {
	m := loadModel(t, "seed-moe-3b")
	want := Model{Layers: 24, Hidden: 2048, Heads: 16, KVHeads: 4, HeadDim: 128, FFN: 1152, Vocab: 32000, MaxContext: 4096}
	if m.Layers != want.Layers || m.Hidden != want.Hidden || m.Heads != want.Heads || m.KVHeads != want.KVHeads ||
		m.HeadDimension() != 128 || m.FFN != want.FFN || m.Vocab != want.Vocab || m.MaxContext != want.MaxContext ||
		m.TiedEmbeddings || m.FFNKind != FFNGated {
		t.Errorf("seed-moe-3b shape %+v differs from CONTRACT.md", m)
	}
	if m.MoE == nil || m.MoE.Experts != 16 || m.MoE.Active != 2 || m.MoE.Shared != 0 {
		t.Fatalf("seed-moe-3b MoE %+v, want 16 experts, 2 active, no shared", m.MoE)
	}
	// CONTRACT.md: about 3.1B parameters, about 0.66B active.
	if p := float64(m.Params()); math.Abs(p-3.1e9) > 0.05e9 {
		t.Errorf("Params = %.4g, want about 3.1e9", p)
	}
	// Active: 24*(10485760 + 32768 + 2*7077888 + 4096) + output 65536000 +
	// output_norm 2048 = 657819648, by hand.
	if a := m.ActiveParams(); a != 657819648 {
		t.Errorf("ActiveParams = %d, want 657819648 (about 0.66B)", a)
	}
}

// FuzzDecodeModel: no model file makes the loader panic; every failure is
// a one-line error naming the file.
func FuzzDecodeModel(f *testing.F) {
	for _, id := range ModelIDs() {
		src, _ := ModelSource(id)
		f.Add(src)
	}
	f.Add([]byte("name: x\nlayers: -1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeModel("m.yaml", data, nil)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "m.yaml") || strings.Contains(msg, "\n") {
				t.Fatalf("error does not name the file on one line: %q", msg)
			}
			return
		}
		if s.Layers <= 0 || s.WeightBytes(Quant{}) <= 0 {
			t.Fatalf("loaded an impossible model: %+v", s.Model)
		}
	})
}
