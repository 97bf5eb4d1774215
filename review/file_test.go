package review

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw/spec"
)

// TestParseExample: the shipped example parses, with the defaults
// filled in.
func TestParseExample(t *testing.T) {
	path := filepath.Join("..", "examples", "review", "review.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Chips) < 3 || len(r.Models) != 2 || r.Models[1].Model != "llama-2-7b" || r.Models[1].Quant != "Q4_0" || r.Models[0].KVDtype != "F16" {
		t.Errorf("chips %v, models %+v", r.Chips, r.Models)
	}
	if len(r.Scenarios) != 2 || r.Scenarios[0].Label() != "sustained, 2 min" || !slices.Equal(r.Scenarios[0].Sets(), []string{"scenario.context_limit=2048"}) ||
		r.Scenarios[1].Label() != "chat-30" || !slices.Equal(r.Scenarios[1].Sets(), []string{"scenario.turns=10"}) {
		t.Errorf("scenarios %+v", r.Scenarios)
	}
	if r.Fidelity != "tile" || r.Prompt != 512 || r.Gen != 128 || r.Batch != 1 || r.Seed != 1 || !slices.Equal(r.Contexts, defaultContexts) {
		t.Errorf("defaults: %+v", r)
	}
	if id, text := r.Question(0); id != "best-chip" || text != "Which chip should we choose?" {
		t.Errorf("question 0: %q %q", id, text)
	}
	if r.Objective != "thermal.sustained_tokens_per_s" || !r.Maximize {
		t.Errorf("objective %q, maximize %v", r.Objective, r.Maximize)
	}
	if id, _ := r.Question(len(r.Questions) - 1); id != "" {
		t.Errorf("the free-text question has id %q", id)
	}
}

// TestParseResolvesFiles: chip and model files are read relative to
// the review file; catalog ids stay ids.
func TestParseResolvesFiles(t *testing.T) {
	r, err := Parse("reviews/r.yaml", []byte("title: t\nchips: [seed-a, chips/mine.yaml]\nmodels: [{model: ../m.yaml}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Chips, []string{"seed-a", filepath.Join("reviews", "chips", "mine.yaml")}) || r.Models[0].Model != "m.yaml" {
		t.Errorf("chips %v, model %q", r.Chips, r.Models[0].Model)
	}
}

// TestParseErrors: every bad review names the file, the line and
// the field, and what is allowed.
func TestParseErrors(t *testing.T) {
	const ok = "title: t\nchips: [seed-a]\nmodels: [{model: seed-moe-3b}]\n"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"unknown field", ok + "colour: blue\n", "r.yaml:4:1: field colour"},
		{"duplicate key", ok + "title: again\n", "r.yaml:4"},
		{"no title", "chips: [seed-a]\nmodels: [{model: seed-moe-3b}]\n", "title"},
		{"empty title", "title: ' '\nchips: [seed-a]\nmodels: [{model: seed-moe-3b}]\n", "r.yaml:1:8: field title: the title is empty"},
		{"no chips", "title: t\nchips: []\nmodels: [{model: seed-moe-3b}]\n", "field chips: list 1 to 16 chips"},
		{"chip twice", "title: t\nchips: [seed-a, seed-a]\nmodels: [{model: seed-moe-3b}]\n", "r.yaml:2:17: field chips.1: seed-a is listed twice"},
		{"bad quant", "title: t\nchips: [seed-a]\nmodels: [{model: seed-moe-3b, quant: Q3}]\n", "r.yaml:3:38: field models.0.quant"},
		{"model twice", "title: t\nchips: [seed-a]\nmodels: [{model: seed-moe-3b}, {model: seed-moe-3b, quant: Q4_0}]\n", "field models.1: seed-moe-3b Q4_0 is listed twice"},
		{"bad fidelity", ok + "fidelity: exact\n", "r.yaml:4:11: field fidelity: \"exact\" is not allowed: use one of analytic, tile, line"},
		{"negative prompt", ok + "workload: {prompt: -1}\n", "r.yaml:4:20: field workload.prompt"},
		{"unknown scenario", ok + "scenarios: [{scenario: marathon}]\n", "r.yaml:4:13: field scenarios.0: \"marathon\": no catalog scenario"},
		{"zero duration", ok + "scenarios: [{scenario: sustained, duration: 0s}]\n", "field scenarios.0.duration"},
		{"prefixed scenario set", ok + "scenarios: [{scenario: sustained, set: [scenario.prompt=64]}]\n", "field scenarios.0.set.0: write scenario.prompt without the scenario. prefix"},
		{"bad scenario value", ok + "scenarios: [{scenario: sustained, set: [prompt=many]}]\n", "r.yaml:4:13: field scenarios.0"},
		{"bad set", ok + "set: [ambient]\n", "r.yaml:4:7: field set.0"},
		{"contexts out of order", ok + "contexts: [512, 256]\n", "r.yaml:4:17: field contexts.1: 256 is not allowed"},
		{"empty question", ok + "questions: ['']\n", "field questions.0: an empty question"},
		{"empty requirement", ok + "requirements: ['  ']\n", "field requirements.0: an empty requirement"},
		{"two objectives", ok + "maximize: decode.tokens_per_s\nminimize: chip.price_usd\n", "r.yaml:5:11: field minimize: maximize and minimize both given"},
		{"not yaml", "title: [\n", "r.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("r.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error; want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
			if !spec.IsSpecError(err) {
				t.Errorf("%v is not a spec error (exit 2)", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

// TestFileErrorf locates a later problem at its field.
func TestFileErrorf(t *testing.T) {
	r, err := Parse("r.yaml", []byte("title: t\nchips: [seed-a]\nmodels: [{model: seed-moe-3b}]\nrequirements:\n  - ttft_s < 1\n  - decode.tokens_per_sec > 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = r.Errorf("requirements.1", os.ErrInvalid)
	if got := err.Error(); got != "r.yaml:6:5: field requirements.1: invalid argument" {
		t.Errorf("got %q", got)
	}
}

// FuzzParse: no input panics, and an error is one line.
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "review", "review.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("title: t\nchips: [seed-a]\nmodels: [{model: seed-moe-3b}]\ncontexts: [1, 2]\n"))
	f.Add([]byte("title: t\nchips: [a, a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse("fuzz.yaml", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			return
		}
		if r.Title == "" || len(r.Chips) == 0 || len(r.Models) == 0 || len(r.Contexts) == 0 {
			t.Errorf("a review without title, chips, models or contexts loaded: %+v", r)
		}
	})
}
