package reports

import (
	"strings"
	"testing"

	"github.com/edgetwin/edgetwin/calibrate"
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

// TestWriteRuntimes: a figure shared by two runtimes' records gets a note,
// and the residuals are summed up by runtime (in first-seen order, a
// record without a backend under its own name); one runtime alone prints
// nothing.
func TestWriteRuntimes(t *testing.T) {
	res := func(backend string, e float64) calibrate.Residual {
		return calibrate.Residual{Record: calibrate.Record{Backend: backend}, Error: e}
	}
	fit := &calibrate.Fit{
		Params: []calibrate.FitParam{
			{Param: calibrate.Param{Param: "gemm_efficiency", UnitKind: "gpu", Dtype: "f16"}, Identified: true, Runtimes: []string{"Metal", "llama.cpp OpenCL"}},
			{Param: calibrate.Param{Param: "dispatch", UnitKind: "gpu"}, Identified: true},
		},
		Residuals: []calibrate.Residual{res("Metal,BLAS", 0.02), res("llama.cpp OpenCL, ngl 99", -0.4), res("Metal,BLAS", -0.04), res("", 0.1)},
	}
	var b strings.Builder
	if err := writeRuntimes(&b, fit); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"note: gemm_efficiency[gpu,f16] is one figure for the records of 2 runtimes (Metal; llama.cpp OpenCL)",
		"Metal               2        -1.0%          3.0%",
		"llama.cpp OpenCL    1        -40.0%         40.0%",
		"(no backend given)  1        +10.0%         10.0%",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "dispatch") {
		t.Errorf("a figure of one runtime got a note:\n%s", b.String())
	}
	b.Reset()
	if err := writeRuntimes(&b, &calibrate.Fit{Residuals: []calibrate.Residual{res("Metal", 0.1), res("Metal,BLAS", 0.2)}}); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 0 {
		t.Errorf("one runtime: %q", b.String())
	}
}
