package reports

import (
	"strings"
	"testing"
)

// TestWriteSkipped: skips sharing a reason print on one line with their
// count and distinct sources (three, then how many more); a lone skip
// keeps its own line; reasons keep their first-seen order.
func TestWriteSkipped(t *testing.T) {
	var b strings.Builder
	writeSkipped(&b, [][2]string{
		{"p:bw", "memory"}, {"x.json:3", "no model"}, {"p:bw", "memory"}, {"p:lat", "memory"},
		{"p:rr", "memory"}, {"p:mc", "memory"},
	})
	want := "skipped 5 records (p:bw, p:lat, p:rr, … 1 more): memory\nskipped x.json:3: no model\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestModelName: catalog ids stay; model files lose folder and extension;
// a config.json is named by its folder.
func TestModelName(t *testing.T) {
	for in, want := range map[string]string{
		"llama-2-7b":                          "llama-2-7b",
		"models/llama-2-13b.yaml":             "llama-2-13b",
		"/tmp/cfg/Qwen2.5-1.5B/config.json":   "Qwen2.5-1.5B",
		"../phi-2/config.json":                "phi-2",
		"config.json":                         "config",
		"gemv_q4_0_q8_0 1×448×1024, 1 thread": "gemv_q4_0_q8_0 1×448×1024, 1 thread",
	} {
		if got := modelName(in); got != want {
			t.Errorf("modelName(%q) = %q, want %q", in, got, want)
		}
	}
}
