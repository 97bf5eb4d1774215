package runtimes

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/hw"
	"github.com/edgetwin/edgetwin/hw/spec"
)

// The catalog holds at least the runtimes CONTRACT.md names, and every
// profile loads strictly.
func TestCatalog(t *testing.T) {
	want := []string{"llama.cpp-cpu", "llama.cpp-metal", "llama.cpp-opencl", "llama.cpp-cuda", "llama.cpp-vulkan", "llama.cpp-hexagon", "ollama", "mlc", "executorch-xnnpack", "executorch-qnn", "genie", "rkllm", "coreml", "neuropilot"}
	for _, id := range want {
		p, err := Load(id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if p.ID != id || p.Basis == "" {
			t.Errorf("%s: id %q, basis %q", id, p.ID, p.Basis)
		}
		if !slices.Contains(Preference, id) {
			t.Errorf("%s is not in Preference: no chip would get it by default", id)
		}
	}
	if got := IDs(); len(got) != len(want) {
		t.Errorf("catalog %v, want the %d of CONTRACT.md", got, len(want))
	}
	if len(Preference) != len(IDs()) {
		t.Errorf("Preference lists %d runtimes, the catalog %d", len(Preference), len(IDs()))
	}
}

// A profile's figures are fitted or absent, never a hoped-for share: every
// efficiency a catalog profile gives cites a calibration.
func TestEfficienciesCiteAFit(t *testing.T) {
	for _, id := range IDs() {
		p := MustLoad(id)
		for _, e := range p.Provenance {
			if strings.HasPrefix(e.Path, "efficiency.") && !strings.HasPrefix(e.Source, "calibrated:") {
				t.Errorf("%s: %s = %s cites %q, not a fit", id, e.Path, e.Value, e.Source)
			}
		}
	}
}

// The profile language's format vocabulary is the chip's.
func TestWeightFormatsMatchHW(t *testing.T) {
	if !slices.Equal(WeightFormats, hw.WeightFormats) {
		t.Errorf("runtimes.WeightFormats %v, hw.WeightFormats %v", WeightFormats, hw.WeightFormats)
	}
}

// Bad profiles are errors with the file, line and field.
func TestDecodeErrors(t *testing.T) {
	base := "name: x\nunits: [gpu]\nformats: [Q4_0]\ngraph: per-op\nbasis: b\n"
	cpu := strings.Replace(base, "[gpu]", "[cpu]", 1)
	for _, c := range []struct{ yaml, want string }{
		{"name: x\nunits: [tpu]\nformats: [Q4_0]\ngraph: per-op\nbasis: b\n", `x.yaml:2:9: field units.0: unit kind "tpu"`},
		{"name: x\nunits: [gpu]\nformats: [Q4_9]\ngraph: per-op\nbasis: b\n", `field formats.0: weight format "Q4_9"`},
		{base + "efficiency: {gemm: {q4_0: 1.5}}\n", "field efficiency.gemm.q4_0: an efficiency is a share"},
		{base + "efficiency: {gemm: {q9: 50%}}\n", `"q9" is not a weight format`},
		{base + "sources: {dispatch: somewhere}\n", `a source for "dispatch"`},
		{cpu + "efficiency: {cores: {cortex-a99: {gemv: {q4_0: 5%}}}}\n", `x.yaml:6:34: field efficiency.cores.cortex-a99: "cortex-a99" is not a core design`},
		{cpu + "efficiency: {cores: {apple-p: {gemv: {q4_0: 150%}}}}\n", "field efficiency.cores.apple-p.gemv.q4_0: an efficiency is a share"},
		{base + "efficiency: {cores: {apple-p: {gemv: {q4_0: 15%}}}}\n", "field efficiency.cores.apple-p: shares by core design are a CPU runtime's"},
		{base + "barrier: 3 us\n", "field barrier: 3 µs: a barrier between operators is a CPU runtime's"},
		{base + "cpu_ops: [embed, lm_head]\n", `x.yaml:6:18: field cpu_ops.1: "lm_head" is not an operator: use embed, norm, matmul, rope, attention, activation, residual, router or output`},
		{base + "batches: [1, 4, 2]\n", "field batches.2: 2 is not allowed: batch sizes are 1 or more, each larger than the one before"},
		{base + "batches: [0]\n", "field batches.0: 0 is not allowed"},
		{cpu + "cpu_ops: [embed]\n", "field cpu_ops.0: operators left to the CPU are a runtime's on another unit; this one drives cpu"},
		{base + "flash_ffn: {active: 10%, cached: 24%, fresh: 12%}\n", "field flash_ffn.fresh: the share of the FFN weights a token reads from storage: above 0, at most the active share (10%)"},
		{base + "flash_ffn: {active: 0, fresh: 1%}\n", "field flash_ffn.active:"},
		{base + "flash_ffn: {active: 10%, cached: 100%, fresh: 1%}\n", "field flash_ffn.cached:"},
		{base + "flash_ffn: {active: 10%}\n", "flash_ffn.fresh"},
		{base + "stream_layers: true\nflash_ffn: {active: 10%, fresh: 1%}\n", "field flash_ffn: a runtime streams every layer"},
		{base + "graph2: x\n", `unknown field "graph2"`},
		{"name: x\nunits: [gpu]\nformats: [Q4_0]\ngraph: eager\nbasis: b\n", "field graph"},
		{"name: x\nunits: [gpu]\nformats: [Q4_0]\ngraph: per-op\n", "field basis"},
	} {
		_, err := Decode("x.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.yaml, err, c.want)
		}
	}
}

// The default runtime follows the unit's kind, the chip's vendor and the
// model's formats.
func TestDefault(t *testing.T) {
	for _, c := range []struct {
		kind, vendor string
		formats      []string
		want         string
	}{
		{"gpu", "Qualcomm", []string{"Q4_0", "Q6_K"}, "llama.cpp-opencl"},
		{"gpu", "Apple", []string{"Q4_0", "Q6_K"}, "llama.cpp-metal"},
		{"gpu", "NVIDIA", []string{"Q8_0"}, "llama.cpp-cuda"},
		{"gpu", "Rockchip", []string{"Q4_0"}, "llama.cpp-vulkan"},
		{"npu", "Qualcomm", []string{"W4A16"}, "genie"},
		{"npu", "Qualcomm", []string{"Q4_0"}, "llama.cpp-hexagon"},
		{"npu", "Rockchip", []string{"INT8"}, "rkllm"},
		{"npu", "Apple", []string{"W4A16"}, "coreml"},
		{"npu", "MediaTek", []string{"INT4"}, "neuropilot"},
		{"cpu", "Broadcom", []string{"Q4_0", "Q6_K"}, "llama.cpp-cpu"},
		{"cpu", "Qualcomm", []string{"INT4"}, "executorch-xnnpack"},
		{"npu", "edgetwin", []string{"Q4_0"}, ""},
	} {
		got := ""
		if p := Default(c.kind, c.vendor, c.formats); p != nil {
			got = p.ID
		}
		if got != c.want {
			t.Errorf("%s of %s reading %v: %q, want %q", c.kind, c.vendor, c.formats, got, c.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, id := range IDs() {
		data, _ := Source(id)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode("fuzz.yaml", data)
		if err == nil && (p.Name == "" || len(p.Units) == 0) {
			t.Errorf("accepted a profile without name or units")
		}
	})
}

// TestDeploymentExampleRuntimes: examples/deployment's runtime files are
// the catalog's profiles with one line added (and the sources of its
// figures, which continue the catalog file's sources), so their figures
// cannot drift from the catalog's.
func TestDeploymentExampleRuntimes(t *testing.T) {
	for file, want := range map[string]struct{ id, line string }{
		"genie-static.yaml":     {"genie", "batches: [1, 2, 4]\n"},
		"mlc-paged.yaml":        {"mlc", "kv_block: 16\n"},
		"mlc-gpu-sampling.yaml": {"mlc", "sample_on_unit: true\n"},
		"metal-streamed.yaml":   {"llama.cpp-metal", "stream_layers: true\n"},
		"metal-flash.yaml":      {"llama.cpp-metal", "flash_ffn: {active: 10%, cached: 24%, fresh: 2.4%}\n"},
	} {
		got, err := os.ReadFile(filepath.Join("..", "examples", "deployment", file))
		if err != nil {
			t.Fatal(err)
		}
		src, _ := Source(want.id)
		added, ok := strings.CutPrefix(string(got), string(src))
		key, _, _ := strings.Cut(want.line, ":")
		var rest strings.Builder
		for _, l := range strings.SplitAfter(added, "\n") {
			if !strings.HasPrefix(l, "  "+key+".") {
				rest.WriteString(l)
			}
		}
		if !ok || rest.String() != want.line {
			t.Errorf("examples/deployment/%s is not catalog %s plus %q and its sources: bring it up to date with `edgetwin catalog show %s`", file, want.id, want.line, want.id)
		}
		if _, err := Decode(file, got); err != nil {
			t.Error(err)
		}
	}
}

// With sets a profile's figures as a file of it would, each citing its
// override, and names a bad one by its runtime. path.
func TestWith(t *testing.T) {
	p := MustLoad("ollama")
	q, err := p.With([]spec.Override{{Path: "context", Value: "32768"}, {Path: "efficiency.gemv.q4_0", Value: "9%"}})
	if err != nil {
		t.Fatal(err)
	}
	if q.ID != "ollama" || q.Context != 32768 || q.Efficiency.GEMV["q4_0"] != 0.09 {
		t.Errorf("set: id %s, context %d, gemv q4_0 %v; want ollama, 32768, 9%%", q.ID, q.Context, q.Efficiency.GEMV["q4_0"])
	}
	if got := q.Sources["context"]; got != "set: runtime.context=32768" {
		t.Errorf("context's source %q, want the override", got)
	}
	if p.Context != 4096 || p.Sources["context"] == q.Sources["context"] {
		t.Errorf("the catalog's profile changed: context %d", p.Context)
	}
	if same, _ := p.With(nil); same != p {
		t.Error("no overrides: want the profile itself")
	}
	for _, c := range []struct {
		p    *Profile
		set  spec.Override
		want string
	}{
		{p, spec.Override{Path: "contxt", Value: "1"}, `field runtime.contxt: unknown path`},
		{p, spec.Override{Path: "context", Value: "-5"}, "field runtime.context: -5 is not allowed"},
		{p, spec.Override{Path: "efficiency.gemv.q4_0", Value: "150%"}, "field runtime.efficiency.gemv.q4_0: an efficiency is a share"},
		{None, spec.Override{Path: "context", Value: "1"}, "field runtime.context: the run's runtime is none"},
	} {
		if _, err := c.p.With([]spec.Override{c.set}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%s: error %v, want it to contain %q", c.set.Path, c.set.Value, err, c.want)
		}
	}
}

// Every catalog profile takes an override: its text, as written, is what
// the override applies to.
func TestWithEveryCatalogProfile(t *testing.T) {
	for _, id := range IDs() {
		q, err := MustLoad(id).With([]spec.Override{{Path: "context", Value: "8192"}})
		if err != nil || q.Context != 8192 {
			t.Errorf("%s: %v (context %v)", id, err, q)
		}
	}
}

// A bare profile is not the text it was read from: an override applies to
// its own (empty) figures, not the catalog file's, and the sources of what
// its encoding leaves out (the efficiencies, llama.cpp-opencl's mmap:
// false) do not stop it.
func TestWithBareProfile(t *testing.T) {
	for _, id := range []string{"llama.cpp-metal", "llama.cpp-opencl"} {
		q, err := MustLoad(id).Bare().With([]spec.Override{{Path: "context", Value: "8192"}})
		if err != nil {
			t.Errorf("bare %s with context 8192: %v", id, err)
			continue
		}
		if q.Context != 8192 || len(q.Efficiency.GEMV) != 0 || q.Mmap != MustLoad(id).Mmap {
			t.Errorf("bare %s with context 8192: context %d, gemv %v, mmap %v", id, q.Context, q.Efficiency.GEMV, q.Mmap)
		}
	}
}
